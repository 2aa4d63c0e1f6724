"""Model selection under a fairness level: the fair scorer makes GridSearchCV choose a cap whose
held-out unfairness meets ``u`` (plain accuracy picks the loosest cap, which does not), with the
groups named as a column or routed as metadata; ``select`` picks the right point of a front."""

from __future__ import annotations

import doctest
import warnings

import numpy as np
import pandas as pd
import pytest
import sklearn
from sklearn.exceptions import ConvergenceWarning
from sklearn.model_selection import GridSearchCV, StratifiedKFold

import fairlist.model_selection
from fairlist.errors import DataError, InvalidParameterError
from fairlist.estimator import FairRuleListClassifier
from fairlist.metrics import Metric, unfairness
from fairlist.model_selection import fair_score, make_fair_scorer, select
from fairlist.pareto import ParetoResult

U = 0.1
CAPS = [0.02, 0.1, None]


def biased_table(n: int = 1000, seed: int = 0) -> pd.DataFrame:
    """``a`` follows the group and predicts the label best; ``b`` predicts it less, fairly."""
    rng = np.random.default_rng(seed)
    sex = rng.choice(["F", "M"], n)
    a = np.where(rng.random(n) < 0.85, sex == "M", sex == "F").astype(int)
    b = (rng.random(n) < 0.5).astype(int)
    label = np.where(rng.random(n) < 0.6, a, b)
    c = (rng.random(n) < 0.5).astype(int)
    return pd.DataFrame({"a": a, "b": b, "c": c, "sex": sex, "label": label})


def estimator() -> FairRuleListClassifier:
    return FairRuleListClassifier(max_length=2, lam=0.005, time_limit=None, max_nodes=50_000)


def grid(scoring) -> GridSearchCV:
    cv = StratifiedKFold(5, shuffle=True, random_state=0)
    return GridSearchCV(estimator(), {"epsilon": CAPS}, scoring=scoring, cv=cv)


def held_out_unfairness(search: GridSearchCV, X, y, groups, **fit_params) -> float:
    """The chosen cap's cross-validated unfairness: its mean over the search's folds."""
    cap = search.best_params_["epsilon"]
    values = []
    for train, test in search.cv.split(X, y):
        clf = estimator().set_params(epsilon=cap)
        clf.fit(_rows(X, train), _rows(y, train), sensitive_features=_fold(groups, train))
        predicted = clf.predict(_rows(X, test))
        values.append(unfairness(_rows(y, test), predicted, _rows(table_groups(X, groups), test)))
    return float(np.mean(values))


def _rows(v, index):
    return v.iloc[index] if hasattr(v, "iloc") else v[index]


def _fold(groups, index):
    return groups if isinstance(groups, str) else groups[index]


def table_groups(X, groups):
    return X[groups] if isinstance(groups, str) else groups


def test_the_fair_scorer_chooses_a_cap_that_meets_u_where_accuracy_does_not():
    table = biased_table()
    X, y = table.drop(columns="label"), table["label"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        plain = grid("accuracy").fit(X, y, sensitive_features="sex")
        fair = grid(make_fair_scorer("SP", U, sensitive="sex")).fit(X, y, sensitive_features="sex")
        # what the fair scorer says of the cap accuracy chose
        judged = grid(make_fair_scorer("SP", U, sensitive="sex"))
        judged.set_params(param_grid={"epsilon": [plain.best_params_["epsilon"]]})
        judged.fit(X, y, sensitive_features="sex")
    assert plain.best_params_["epsilon"] is None  # the loosest cap
    assert held_out_unfairness(plain, X, y, "sex") > U and judged.best_score_ < 0
    assert fair.best_params_["epsilon"] is not None
    assert held_out_unfairness(fair, X, y, "sex") <= U and fair.best_score_ > 0
    assert fair.best_score_ <= plain.best_score_  # the price of fairness, in accuracy


def test_the_groups_can_be_routed_to_the_scorer_as_metadata():
    table = biased_table()
    X, y = table[["a", "b", "c"]].to_numpy(), table["label"].to_numpy()
    groups = table["sex"].to_numpy()
    with sklearn.config_context(enable_metadata_routing=True), warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        search = GridSearchCV(
            estimator().set_fit_request(sensitive_features=True),
            {"epsilon": CAPS},
            scoring=make_fair_scorer("SP", U),
            cv=StratifiedKFold(5, shuffle=True, random_state=0),
        ).fit(X, y, sensitive_features=groups)
    assert search.best_params_["epsilon"] is not None
    assert held_out_unfairness(search, X, y, groups) <= U


def test_the_scorer_is_accuracy_when_fair_and_below_every_fair_score_otherwise():
    table = biased_table()
    X, y = table.drop(columns="label"), table["label"]
    clf = estimator().fit(X, y, sensitive_features="sex")
    scorer = make_fair_scorer(Metric.STATISTICAL_PARITY, 1.0, sensitive="sex")
    assert scorer(clf, X, y) == pytest.approx(clf.score(X.drop(columns="sex"), y))
    strict = make_fair_scorer("SP", 0.0, sensitive="sex")
    assert clf.unfairness_ > 0 and strict(clf, X, y) < 0
    assert fair_score(0.0, 0.05, 0.05) == 0.0 > fair_score(1.0, 0.06, 0.05)


def test_the_scorer_says_what_it_lacks():
    table = biased_table(60)
    X, y = table.drop(columns="label"), table["label"]
    assert len(X) == 60
    clf = estimator().fit(X, y, sensitive_features="sex")
    with pytest.raises(DataError, match="needs each held-out sample's group"):
        make_fair_scorer("SP", 0.1)(clf, X.drop(columns="sex"), y)
    with pytest.raises(DataError, match="held-out X has no sensitive column 'gender'"):
        make_fair_scorer("SP", 0.1, sensitive="gender")(clf, X, y)
    with pytest.raises(DataError, match="sensitive_features has 3 rows, the held-out X has 60"):
        make_fair_scorer("SP", 0.1)(clf, X, y, sensitive_features=["F", "M", "F"])
    with pytest.raises(InvalidParameterError, match="max_unfairness=-1"):
        make_fair_scorer("SP", -1)
    with pytest.raises(InvalidParameterError, match="metric='accuracy'"):
        make_fair_scorer("accuracy", 0.1)
    with pytest.raises(RuntimeError, match="metadata routing"):
        make_fair_scorer("SP", 0.1).set_score_request(sensitive_features=True)


FRONT = pd.DataFrame(
    {
        "epsilon": [0.0, 0.02, 0.05, 0.1, 0.3],
        "policy": ["bfs"] * 5,
        "test_unfairness": [0.01, 0.03, 0.048, 0.09, 0.2],
        "test_error": [0.40, 0.36, 0.33, 0.33, 0.30],
    }
)


@pytest.mark.parametrize(
    ("u", "epsilon"), [(0.0, None), (0.01, 0.0), (0.04, 0.02), (0.05, 0.05), (0.1, 0.05), (1, 0.3)]
)
def test_select_picks_the_most_accurate_point_under_u(u, epsilon):
    result = ParetoResult(
        points=FRONT, front=FRONT, kind="cross_validation", metric=Metric.STATISTICAL_PARITY
    )
    if epsilon is None:
        u = 0.005
        with pytest.raises(DataError, match="fairest has 0.01 \\(error 0.4\\)"):
            select(result, u)
        return
    assert select(result, u)["epsilon"] == epsilon  # ties on error: the fairer point
    assert select(FRONT, u)["epsilon"] == epsilon


def test_select_reads_a_training_front():
    training = FRONT.rename(columns={"test_unfairness": "unfairness", "test_error": "error"})
    assert select(training, 0.1)["epsilon"] == 0.05
    with pytest.raises(DataError, match="neither"):
        select(FRONT[["epsilon"]], 0.1)
    with pytest.raises(InvalidParameterError, match="ParetoResult or a DataFrame"):
        select([1, 2], 0.1)


def test_the_docstring_examples_run():
    result = doctest.testmod(fairlist.model_selection)
    assert result.attempted > 0 and result.failed == 0
