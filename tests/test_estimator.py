"""FairRuleListClassifier: scikit-learn conventions, fairness, explanations and JSON models."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pandas as pd
import pytest
import sklearn
from reference import reference_solve
from sklearn.base import clone
from sklearn.exceptions import ConvergenceWarning, NotFittedError
from sklearn.model_selection import GridSearchCV
from sklearn.pipeline import make_pipeline
from sklearn.utils.estimator_checks import parametrize_with_checks

from fairlist import estimator as est_module
from fairlist.errors import DataError
from fairlist.estimator import FairRuleListClassifier, InfeasibleError, sensitive_mask
from fairlist.metrics import Metric, unfairness
from fairlist.rulelist import Rule, RuleList
from fairlist.solvers import ENGINES, Problem, Result, Status, StopReason


def tiny(n: int = 120, m: int = 5, seed: int = 0):
    """Binary antecedents (DataFrame), string labels and string groups, correlated."""
    rng = np.random.default_rng(seed)
    X = pd.DataFrame((rng.random((n, m)) < 0.4).astype(np.uint8), columns=list("abcdefgh"[:m]))
    women = rng.random(n) < 0.5
    logits = 1.8 * X["a"] + 1.2 * X["b"] - 1.0 * X["c"] + 0.9 * women - 0.8
    y = np.where(rng.random(n) < 1 / (1 + np.exp(-logits)), "hired", "rejected")
    return X, y, np.where(women, "F", "M")


def options(engine: str) -> dict:
    return {"num_workers": 1} if engine == "cpsat" else {}


# --------------------------------------------------------------------------- a fake engine
class RecordingSolver:
    """An engine that returns a fixed result and remembers the problem it was given."""

    name = "recording"

    def __init__(self, status=Status.OPTIMAL, rule_list=None):
        self.status = status
        self.rule_list = rule_list
        self.problems: list[Problem] = []

    def solve(self, problem: Problem) -> Result:
        self.problems.append(problem)
        rl = self.rule_list
        if rl is None or self.status in (Status.INFEASIBLE, Status.UNKNOWN):
            return Result(
                self.status,
                None,
                math.inf,
                math.nan,
                math.nan,
                math.inf,
                StopReason.COMPLETED if self.status is Status.INFEASIBLE else StopReason.TIME_LIMIT,
                self.name,
            )
        ev = problem.evaluate(rl)
        stop = StopReason.COMPLETED if self.status is Status.OPTIMAL else StopReason.NODE_LIMIT
        return Result(
            self.status,
            rl,
            ev.objective,
            ev.accuracy,
            ev.unfairness,
            ev.objective - 0.01,
            stop,
            self.name,
            stats={"nodes": 7},
        )


# --------------------------------------------------------------------------- exactness
@pytest.mark.parametrize("engine", list(ENGINES))
@pytest.mark.parametrize(("metric", "epsilon"), [("SP", None), ("SP", 0.05), ("EOdds", 0.1)])
def test_fit_finds_the_optimal_fair_rule_list(engine, metric, epsilon):
    X, y, s = tiny()
    clf = FairRuleListClassifier(
        metric=metric,
        epsilon=epsilon,
        lam=0.01,
        max_length=2,
        engine=engine,
        engine_options=options(engine),
    ).fit(X, y, sensitive_features=s, protected="F")
    problem = Problem(
        X.to_numpy(),
        (y == "rejected").astype(np.uint8),
        s == "F",
        metric=metric,
        epsilon=epsilon,
        lam=0.01,
        feature_names=list(X.columns),
    )
    ref = reference_solve(problem, max_length=2)
    assert clf.status_ is Status.OPTIMAL
    assert abs(clf.objective_ - ref.objective) <= 1e-9
    pred = clf.predict(X)
    assert clf.unfairness_ == pytest.approx(
        unfairness(y == "rejected", pred == "rejected", s, metric, protected="F"), abs=1e-12
    )
    if epsilon is not None:
        assert clf.unfairness_ <= epsilon + 1e-9
    assert clf.accuracy_ == pytest.approx(np.mean(pred == y))


def test_statistical_parity_agrees_with_fairlearn():
    fl = pytest.importorskip("fairlearn.metrics")
    X, y, s = tiny(seed=3)
    clf = FairRuleListClassifier(
        metric="statistical_parity",
        epsilon=0.03,
        max_length=2,
        engine="cpsat",
        engine_options={"num_workers": 1},
    ).fit(X, y, sensitive_features=s, protected="F")
    pred = clf.predict(X) == "rejected"
    expected = fl.demographic_parity_difference(y == "rejected", pred, sensitive_features=s)
    assert clf.unfairness_ == pytest.approx(expected, abs=1e-12)
    assert clf.unfairness_ <= 0.03 + 1e-9


# --------------------------------------------------------------------------- labels, probas
def test_predictions_are_the_original_classes_of_any_type():
    X, y, s = tiny()
    for labels in ([-1, 7], [False, True], ["no", "yes"]):
        yy = np.where(y == "hired", labels[0], labels[1])
        clf = FairRuleListClassifier(max_length=2, engine="cpsat").fit(
            X, yy, sensitive_features=s, protected="F"
        )
        assert list(clf.classes_) == sorted(labels)
        assert set(np.unique(clf.predict(X))) <= set(labels)
        assert clf.predict(X).dtype == np.asarray(yy).dtype
        assert clf.score(X, yy) == pytest.approx(clf.accuracy_)


def test_predict_proba_is_each_rules_training_positive_rate():
    X, y, s = tiny(seed=1)
    clf = FairRuleListClassifier(max_length=3, engine="cpsat").fit(
        X, y, sensitive_features=s, protected="F"
    )
    proba = clf.predict_proba(X)
    assert proba.shape == (len(X), 2)
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)
    fired = clf.apply(X)
    for k in np.unique(fired):
        captured = fired == k
        rate = np.mean(y[captured] == clf.classes_[1])
        np.testing.assert_allclose(proba[captured, 1], rate)


def test_apply_and_explain_name_the_rule_that_fired():
    X, y, s = tiny(seed=2)
    clf = FairRuleListClassifier(max_length=3, engine="cpsat").fit(
        X, y, sensitive_features=s, protected="F"
    )
    fired = clf.apply(X)
    rl = clf.rule_list_
    for i in range(len(X)):
        first = next((k for k, r in enumerate(rl.rules) if X.iloc[i][r.antecedent]), len(rl))
        assert fired[i] == first
    table = clf.explain(X.iloc[10:20])
    assert list(table.index) == list(range(10, 20))
    assert list(table["rule"]) == list(fired[10:20])
    names = [r.antecedent for r in rl.rules] + ["default"]
    assert list(table["antecedent"]) == [names[k] for k in fired[10:20]]
    assert list(table["prediction"]) == list(clf.predict(X.iloc[10:20]))


def test_get_rules_reports_support_rate_and_prediction():
    X, y, s = tiny(seed=4)
    clf = FairRuleListClassifier(max_length=3, engine="cpsat").fit(
        X, y, sensitive_features=s, protected="F"
    )
    rules = clf.get_rules()
    assert list(rules.columns) == [
        "antecedent",
        "prediction",
        "n_samples",
        "support",
        "positive_rate",
    ]
    assert len(rules) == len(clf.rule_list_) + 1
    assert rules["n_samples"].sum() == len(X)
    assert rules["support"].sum() == pytest.approx(1.0)
    assert rules["antecedent"].iloc[-1] == "default"
    fired = clf.apply(X)
    for k, row in rules.iterrows():
        assert row["n_samples"] == np.sum(fired == k)


def test_a_default_only_rule_list_prints_as_a_sentence():
    X, y, s = tiny()
    clf = FairRuleListClassifier(lam=0.5, engine="cpsat").fit(
        X, y, sensitive_features=s, protected="F"
    )
    assert len(clf.rule_list_) == 0
    text = str(clf)
    assert text.startswith("always predict [")
    assert "if (" not in text
    assert clf.classes_[clf.rule_list_.default] in text


# --------------------------------------------------------------------------- JSON models
def test_save_and_load_round_trip(tmp_path):
    X, y, s = tiny(seed=5)
    yy = np.where(y == "hired", 3, 9)
    clf = FairRuleListClassifier(metric="EOpp", epsilon=0.1, max_length=2, engine="cpsat").fit(
        X, yy, sensitive_features=s, protected="F"
    )
    path = tmp_path / "model.json"
    clf.save(path)
    assert path.read_text().lstrip().startswith("{")
    back = FairRuleListClassifier.load(path)
    np.testing.assert_array_equal(back.predict(X), clf.predict(X))
    np.testing.assert_allclose(back.predict_proba(X), clf.predict_proba(X))
    assert list(back.classes_) == [3, 9]
    assert back.get_params() == {**clf.get_params(), "metric": "equal_opportunity"}
    assert back.rule_list_ == clf.rule_list_
    assert back.status_ is clf.status_
    assert back.unfairness_ == clf.unfairness_
    assert list(back.feature_names_in_) == list(X.columns)


def test_load_refuses_a_document_that_is_not_a_model(tmp_path):
    path = tmp_path / "x.json"
    path.write_text(RuleList([Rule("a", 1)], 0).to_json())
    with pytest.raises(ValueError, match="not a fairlist model"):
        FairRuleListClassifier.load(path)


# --------------------------------------------------------------------------- validation
@pytest.mark.parametrize(
    ("param", "value"),
    [
        ("metric", "accuracy"),
        ("epsilon", -0.1),
        ("epsilon", "0.1"),
        ("lam", -1.0),
        ("lam", float("inf")),
        ("max_length", 1.5),
        ("max_length", -1),
        ("engine", "gurobi"),
        ("time_limit", 0),
        ("max_nodes", 0),
        ("gap_tolerance", -0.01),
        ("random_state", 0.5),
        ("engine_options", ["a"]),
    ],
)
def test_a_bad_parameter_is_named_in_the_error(param, value):
    X, y, s = tiny(n=20)
    clf = FairRuleListClassifier().set_params(**{param: value})  # accepted until fit
    with pytest.raises(ValueError, match=f"'{param}' parameter"):
        clf.fit(X, y, sensitive_features=s, protected="F")


def test_metrics_are_accepted_by_long_and_short_name():
    X, y, s = tiny(n=60)
    for long_name, short in ((m.name.lower(), m.short_name) for m in Metric):
        a = FairRuleListClassifier(metric=long_name, epsilon=0.2, max_length=1, engine="cpsat")
        b = clone(a).set_params(metric=short)
        try:
            a.fit(X, y, sensitive_features=s, protected="F")
        except InfeasibleError:
            with pytest.raises(InfeasibleError):
                b.fit(X, y, sensitive_features=s, protected="F")
            continue
        b.fit(X, y, sensitive_features=s, protected="F")
        assert a.metric_ is b.metric_ is Metric.parse(short)
        assert a.objective_ == b.objective_


@pytest.mark.parametrize(
    ("sensitive", "protected", "message"),
    [
        (None, None, "sensitive_features is required"),
        ("nan", "F", "missing value"),
        ("single", "F", "single group"),
        ("strings", "X", "protected='X' does not occur"),
        ("short", "F", "sensitive_features has 119 rows, X has 120"),
    ],
)
def test_sensitive_features_errors_say_what_is_wrong(sensitive, protected, message):
    X, y, s = tiny()
    values = {
        None: None,
        "nan": np.where(np.arange(120) == 7, None, s),
        "single": np.full(120, "F"),
        "three": np.where(np.arange(120) < 5, "Z", s),
        "strings": s,
        "short": s[1:],
    }[sensitive]
    with pytest.raises(ValueError, match=message):
        FairRuleListClassifier(engine="cpsat").fit(
            X, y, sensitive_features=values, protected=protected
        )


def test_a_float_nan_in_sensitive_features_is_refused():
    X, y, s = tiny()
    groups = (s == "F").astype(float)
    groups[3] = np.nan
    with pytest.raises(ValueError, match="1 missing value.*row 3"):
        FairRuleListClassifier().fit(X, y, sensitive_features=groups)


def test_a_boolean_mask_needs_no_protected_value():
    mask = sensitive_mask(np.array([0, 1, 1, 0]))
    assert mask.tolist() == [False, True, True, False]
    assert sensitive_mask(pd.DataFrame({"g": ["a", "b"]}), protected="b").tolist() == [False, True]


def test_without_a_binarizer_non_binary_x_points_to_the_binarizer():
    X, y, s = tiny()
    X = X.astype(float)
    X.iloc[4, 2] = 37.0
    with pytest.raises(ValueError, match=r"found 37.0 at row 4, column 'c'.*Binarizer"):
        FairRuleListClassifier(binarizer=None).fit(X, y, sensitive_features=s, protected="F")
    raw = pd.DataFrame({"a": ["x", "y"] * 10})
    with pytest.raises(ValueError, match="Binarizer"):
        FairRuleListClassifier(binarizer=None).fit(
            raw, y[:20], sensitive_features=s[:20], protected="F"
        )


def test_a_multiclass_target_is_refused():
    X, y, s = tiny()
    y3 = np.where(np.arange(120) % 3 == 0, "maybe", y)
    with pytest.raises(ValueError, match="Only binary classification"):
        FairRuleListClassifier().fit(X, y3, sensitive_features=s, protected="F")


def test_predict_before_fit_raises_not_fitted():
    X, _, _ = tiny(n=10)
    for method in ("predict", "predict_proba", "apply", "explain", "get_rules"):
        with pytest.raises(NotFittedError):
            getattr(FairRuleListClassifier(), method)(*([] if method == "get_rules" else [X]))


def test_predict_checks_the_feature_names_and_count():
    X, y, s = tiny()
    clf = FairRuleListClassifier(max_length=1, engine="cpsat").fit(
        X, y, sensitive_features=s, protected="F"
    )
    # scikit-learn also warns that the array has no feature names.
    with pytest.raises(ValueError, match="features"), pytest.warns(UserWarning, match="names"):
        clf.predict(X.iloc[:, :3].to_numpy())
    with pytest.raises(ValueError, match="lacks 1 column.*'a'"):  # read by name: 'a' is missing
        clf.predict(X.rename(columns={"a": "z"}))


# --------------------------------------------------------------------------- engine plumbing
def test_engine_options_are_passed_down(monkeypatch):
    seen = {}

    def fake_get_solver(engine, **options):
        seen.update(engine=engine, **options)
        return RecordingSolver(rule_list=RuleList([], 0))

    monkeypatch.setattr(est_module, "get_solver", fake_get_solver)
    X, y, s = tiny(n=30)
    FairRuleListClassifier(
        engine="bnb", policy="curious", random_state=3, engine_options={"majority_only": True}
    ).fit(X, y, sensitive_features=s, protected="F")
    assert seen == {"engine": "bnb", "policy": "curious", "seed": 3, "majority_only": True}
    seen.clear()
    FairRuleListClassifier(engine="cpsat", random_state=4).fit(
        X, y, sensitive_features=s, protected="F"
    )
    assert seen == {"engine": "cpsat", "seed": 4}
    with pytest.raises(ValueError, match="policy='bfs'.*cpsat"):
        FairRuleListClassifier(engine="cpsat", policy="bfs").fit(
            X, y, sensitive_features=s, protected="F"
        )


def test_the_problem_carries_every_parameter():
    solver = RecordingSolver(rule_list=RuleList([Rule("b", 1)], 0))
    X, y, s = tiny(n=40)
    FairRuleListClassifier(
        metric="PE",
        epsilon=0.2,
        lam=0.003,
        max_length=4,
        engine=solver,
        time_limit=2.5,
        max_nodes=1000,
    ).fit(X, y, sensitive_features=s, protected="M")
    p = solver.problems[0]
    assert p.metric is Metric.PREDICTIVE_EQUALITY
    assert (p.epsilon, p.lam, p.max_length) == (0.2, 0.003, 4)
    assert p.limits.max_nodes == 1000
    assert 2.0 < p.limits.time_limit <= 2.5  # less what fit spent preparing the data
    assert p.feature_names == tuple(X.columns)
    assert p.labels == ("hired", "rejected")
    np.testing.assert_array_equal(p.protected, s == "M")
    np.testing.assert_array_equal(p.y, (y == "rejected").astype(np.uint8))


def test_an_infeasible_problem_raises_and_leaves_the_estimator_unfitted():
    X, y, s = tiny(n=40)
    clf = FairRuleListClassifier(engine=RecordingSolver(Status.INFEASIBLE), epsilon=0.0)
    with pytest.raises(InfeasibleError, match="proved infeasible") as info:
        clf.fit(X, y, sensitive_features=s, protected="F")
    assert info.value.result.status is Status.INFEASIBLE
    assert not hasattr(clf, "rule_list_")
    clf.set_params(engine=RecordingSolver(Status.UNKNOWN))
    with pytest.raises(InfeasibleError, match="before the search stopped"):
        clf.fit(X, y, sensitive_features=s, protected="F")


def test_a_search_stopped_by_a_limit_warns_and_keeps_the_best_list():
    X, y, s = tiny(n=40)
    clf = FairRuleListClassifier(engine=RecordingSolver(Status.FEASIBLE, RuleList([Rule("a", 0)])))
    with pytest.warns(ConvergenceWarning, match="node_limit"):
        clf.fit(X, y, sensitive_features=s, protected="F")
    assert clf.status_ is Status.FEASIBLE
    assert clf.stats_ == {"nodes": 7, "lam": clf.lam_}  # the engine's, and the lam used


# --------------------------------------------------------------------------- composition
def test_clone_get_params_and_set_params():
    clf = FairRuleListClassifier(metric="EOdds", epsilon=0.05, engine="cpsat")
    other = clone(clf)
    assert other is not clf and other.get_params() == clf.get_params()
    assert other.set_params(epsilon=0.1).epsilon == 0.1
    assert clf.epsilon == 0.05


def raw_table(n: int = 150, seed: int = 0):
    rng = np.random.default_rng(seed)
    df = pd.DataFrame(
        {
            "age": rng.integers(18, 70, n),
            "job": rng.choice(["a", "b", "c"], n),
            "sex": rng.choice(["F", "M"], n),
        }
    )
    y = ((df["age"] < 35) ^ (rng.random(n) < 0.15)).astype(int).to_numpy()
    return df, y


def test_works_in_a_pipeline_after_the_binarizer():
    binarize = pytest.importorskip("fairlist.binarize")
    df, y = raw_table()
    pipe = make_pipeline(
        binarize.Binarizer(sensitive="sex", numeric="quantile", n_bins=3, min_support=0.2),
        FairRuleListClassifier(metric="SP", epsilon=0.1, max_length=2, engine="cpsat"),
    ).set_output(transform="pandas")  # keeps the antecedent names
    pipe.fit(
        df,
        y,
        fairrulelistclassifier__sensitive_features=df["sex"],
        fairrulelistclassifier__protected="F",
    )
    clf = pipe[-1]
    assert clf.unfairness_ <= 0.1 + 1e-9
    assert set(pipe.predict(df)) <= {0, 1}
    assert all(":" in r.antecedent for r in clf.rule_list_.rules)


def test_grid_search_with_sensitive_features_as_a_fit_parameter():
    X, y, s = tiny(n=150)
    grid = GridSearchCV(
        FairRuleListClassifier(max_length=2, engine="cpsat"),
        {"epsilon": [0.02, 0.2]},
        cv=3,
    )
    grid.fit(X, y, sensitive_features=s, protected="F")
    assert grid.best_params_["epsilon"] in (0.02, 0.2)
    assert len(grid.cv_results_["mean_test_score"]) == 2


def test_grid_search_with_metadata_routing_through_a_pipeline():
    binarize = pytest.importorskip("fairlist.binarize")
    df, y = raw_table(n=150, seed=1)
    with sklearn.config_context(enable_metadata_routing=True):
        clf = FairRuleListClassifier(max_length=2, engine="cpsat").set_fit_request(
            sensitive_features=True, protected=True
        )
        pipe = make_pipeline(
            binarize.Binarizer(sensitive="sex", numeric="quantile", n_bins=3, min_support=0.2),
            clf,
        )
        grid = GridSearchCV(pipe, {"fairrulelistclassifier__epsilon": [0.05, 0.3]}, cv=3)
        grid.fit(df, y, sensitive_features=df["sex"], protected="F")
    assert (
        grid.best_estimator_[-1].unfairness_
        <= grid.best_params_["fairrulelistclassifier__epsilon"] + 1e-9
    )


# --------------------------------------------------------------------------- sklearn's checks
# The estimator needs the group of each sample, so the generic checks, which fit without
# sensitive_features, cannot fit it; some fail before that, because their X is noise in which
# MDLP (binarizer="auto" cuts continuous X) finds no cut, so no antecedent. Each expected
# failure is listed with its reason; the checks that do not fit (construction, params, cloning,
# tags, unfitted errors, y validation) run and must pass, and the checks that fit run on the
# adapter below, which supplies antecedents and groups.
_NEEDS_FIT = "fits without sensitive_features, a required fit argument (see the adapter below)"
_NO_CUT = (
    "fits on noise, in which MDLP finds no cut: no antecedent (then without sensitive_features)"
)
_CHECKS_ON_NOISE = {
    "check_fit_score_takes_y",
    "check_n_features_in_after_fitting",
    "check_estimators_dtypes",
    "check_sample_weights_pandas_series",
    "check_sample_weights_list",
    "check_estimators_nan_inf",
    "check_supervised_y_2d",
    "check_fit_idempotent",
    "check_fit_check_is_fitted",
    "check_n_features_in",
    "check_fit2d_1feature",
    "check_sample_weights_not_an_array",
    "check_classifier_data_not_an_array",
}
_CHECKS_THAT_FIT = [
    "check_fit_score_takes_y",
    "check_estimators_overwrite_params",
    "check_dont_overwrite_parameters",
    "check_estimators_fit_returns_self",
    "check_readonly_memmap_input",
    "check_n_features_in_after_fitting",
    "check_positive_only_tag_during_fit",
    "check_estimators_dtypes",
    "check_dtype_object",
    "check_pipeline_consistency",
    "check_estimators_nan_inf",
    "check_estimators_pickle",
    "check_f_contiguous_array_estimator",
    "check_classifier_data_not_an_array",
    "check_classifiers_classes",
    "check_classifiers_train",
    "check_supervised_y_2d",
    "check_methods_sample_order_invariance",
    "check_methods_subset_invariance",
    "check_fit2d_1feature",
    "check_dict_unchanged",
    "check_fit_idempotent",
    "check_fit_check_is_fitted",
    "check_n_features_in",
    "check_fit2d_predict1d",
    "check_sample_weights_pandas_series",
    "check_sample_weights_not_an_array",
    "check_sample_weights_list",
    "check_sample_weights_shape",
    "check_sample_weights_not_overwritten",
    "check_sample_weight_equivalence_on_dense_data",
    "check_sample_weights_invariance",
]


def test_the_generic_checks_fail_for_the_reasons_given():
    from sklearn.utils import estimator_checks as checks

    clf = FairRuleListClassifier(engine="cpsat", max_length=2)
    for name, match in [
        ("check_dict_unchanged", "^sensitive_features is required"),
        ("check_classifiers_train", "^sensitive_features is required"),
        ("check_estimators_dtypes", "^no antecedent could be built: column 'x0' has no cut"),
        ("check_classifier_data_not_an_array", "^no antecedent could be built"),  # (a TypeError)
    ]:
        assert (_expected_failures(clf)[name] == _NO_CUT) == ("antecedent" in match)
        with pytest.raises(DataError, match=match):
            getattr(checks, name)(name, clf)


def _expected_failures(estimator) -> dict[str, str]:
    return {c: _NO_CUT if c in _CHECKS_ON_NOISE else _NEEDS_FIT for c in _CHECKS_THAT_FIT}


@parametrize_with_checks(
    [FairRuleListClassifier(engine="cpsat", max_length=2)],
    expected_failed_checks=_expected_failures,
)
def test_sklearn_checks(estimator, check):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        check(estimator)


class _GroupsAndThresholds(FairRuleListClassifier):
    """What the generic checks can fit: antecedents ``x > 0`` and alternating groups.

    Test-only adapter: it binarises X (``x > 0``; NaN/inf pass through so that the estimator's own
    input validation rejects them) and, when sensitive_features is omitted, splits the rows into
    two groups by index parity. Everything else is the real estimator, so the checks exercise its
    fit/predict plumbing: classes, pickling, feature names, idempotence, invariances.
    """

    @staticmethod
    def _threshold(X):
        if isinstance(X, pd.DataFrame):
            return X.apply(lambda c: c.where(~np.isfinite(c), (c > 0).astype(float)))
        arr = np.asarray(X)
        if arr.dtype.kind not in "iuf":
            return X
        return np.where(np.isfinite(arr), (arr > 0).astype(arr.dtype), arr)

    def fit(self, X, y, sensitive_features=None, protected=None, sample_weight=None):
        if sensitive_features is None and y is not None:
            sensitive_features = np.arange(len(np.asarray(y))) % 2 == 0
        return super().fit(self._threshold(X), y, sensitive_features, protected, sample_weight)

    def _binary_input(self, X):
        return super()._binary_input(self._threshold(X))


_ADAPTER_FAILURES = {
    "check_dtype_object": "fits on strings, which are not binary antecedents",
}


@parametrize_with_checks(
    [_GroupsAndThresholds(engine="cpsat", max_length=2, engine_options={"num_workers": 1})],
    expected_failed_checks=lambda est: _ADAPTER_FAILURES,
    xfail_strict=False,
)
def test_sklearn_checks_with_binary_data_and_groups(estimator, check):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        check(estimator)


# --------------------------------------------------------------------------- raw tables
def raw_people(n: int = 300, seed: int = 1):
    """Raw columns of every kind (numeric, categorical, boolean) and the group as a column."""
    rng = np.random.default_rng(seed)
    race = rng.choice(["A", "B", "C"], n, p=[0.5, 0.3, 0.2])
    age = rng.integers(18, 70, n)
    job = rng.choice(["clerk", "nurse", "engineer"], n)
    owner = rng.random(n) < 0.4
    logits = 0.05 * (age - 40) + 1.2 * (job == "engineer") - 0.8 * owner + 0.5 * (race == "A")
    y = np.where(rng.random(n) < 1 / (1 + np.exp(-logits)), "yes", "no")
    frame = pd.DataFrame({"age": age, "job": job, "owner": owner, "race": race})
    return frame, y


def test_a_raw_table_is_binarized_with_readable_names_and_the_group_column_left_out():
    X, y = raw_people()
    clf = FairRuleListClassifier(metric="SP", epsilon=0.1, lam=0.005, max_length=3)
    clf.fit(X, y, sensitive_features="race", protected="A")
    assert clf.binarizer_ is not None and clf.sensitive_columns_ == ["race"]
    names = list(clf.binarizer_.get_feature_names_out())
    assert names and all(":" in n for n in names)
    assert not any("race" in n for n in names)  # the group is never an antecedent
    assert list(clf.feature_names_in_) == ["age", "job", "owner"]
    # predict on raw rows, with or without the group column: same as on the antecedents
    antecedents = clf.binarizer_.transform(X.drop(columns="race"))
    expected = clf.classes_[clf.rule_list_.predict(antecedents).astype(int)]
    np.testing.assert_array_equal(clf.predict(X), expected)
    np.testing.assert_array_equal(clf.predict(X.drop(columns="race")), expected)
    groups = X["race"] == "A"
    assert unfairness(y == "yes", clf.predict(X) == "yes", groups, "SP") <= 0.1 + 1e-9


def test_a_saved_raw_table_model_predicts_raw_rows_after_loading(tmp_path):
    X, y = raw_people()
    clf = FairRuleListClassifier(metric="SP", epsilon=0.1, lam=0.005, max_length=2)
    clf.fit(X, y, sensitive_features="race", protected="A")
    clf.save(tmp_path / "m.json")
    loaded = FairRuleListClassifier.load(tmp_path / "m.json")
    np.testing.assert_array_equal(loaded.predict(X), clf.predict(X))
    np.testing.assert_array_equal(loaded.predict_proba(X), clf.predict_proba(X))
    pd.testing.assert_frame_equal(loaded.explain(X), clf.explain(X))
    assert loaded.sensitive_columns_ == ["race"]


def test_raw_rows_with_a_missing_column_or_an_unseen_category_get_a_clear_error():
    X, y = raw_people()
    clf = FairRuleListClassifier(
        metric="SP", epsilon=0.2, lam=0.01, max_length=2, handle_unknown="error"
    )
    clf.fit(X, y, sensitive_features="race", protected="A")
    with pytest.raises(ValueError, match="job"):
        clf.predict(X.drop(columns="job"))
    new = X.head(3).copy()
    new.loc[new.index[0], "job"] = "pilot"
    assert any("job" in r.antecedent for r in clf.rule_list_.rules)  # (it reads job)
    with pytest.raises(ValueError, match=r"'job'.*pilot"):
        clf.predict(new)


def test_sensitive_features_naming_an_absent_column_is_named_in_the_error():
    X, y = raw_people()
    with pytest.raises(KeyError, match="'ethnicity'"):
        FairRuleListClassifier().fit(X, y, sensitive_features="ethnicity", protected="A")
    with pytest.raises(ValueError, match="not a DataFrame"):
        FairRuleListClassifier().fit(X.to_numpy(), y, sensitive_features="race", protected="A")


def test_a_configured_binarizer_is_cloned_and_used():
    from fairlist.binarize import Binarizer

    X, y = raw_people()
    spec = Binarizer(numeric="quantile", n_bins=3, conjunctions=False)
    clf = FairRuleListClassifier(binarizer=spec, lam=0.01, max_length=2)
    clf.fit(X, y, sensitive_features="race", protected="A")
    assert clf.binarizer_ is not spec and not hasattr(spec, "columns_")
    assert not any("&&" in n for n in clf.binarizer_.get_feature_names_out())


def test_grid_search_over_a_raw_table_routes_the_group_column():
    X, y = raw_people()
    grid = GridSearchCV(
        FairRuleListClassifier(metric="SP", lam=0.01, max_length=2),
        {"epsilon": [0.05, 0.2]},
        cv=3,
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        grid.fit(X, y, sensitive_features="race", protected="A")
    assert grid.best_estimator_.sensitive_columns_ == ["race"]
    assert grid.predict(X).shape == (len(X),)


def test_bounded_by_default_with_gap_and_certified_length():
    X, y, s = tiny()
    clf = FairRuleListClassifier(metric="SP", epsilon=0.05, lam=0.005)
    assert (clf.max_nodes, clf.time_limit) == (4_000_000, 60.0)
    clf.fit(X, y, sensitive_features=s, protected="F")
    assert clf.status_ is Status.OPTIMAL and clf.gap_ == 0.0
    assert clf.certified_length_ == X.shape[1]
    limited = FairRuleListClassifier(metric="SP", epsilon=0.05, lam=0.001, max_nodes=2)
    with pytest.warns(ConvergenceWarning):
        limited.fit(X, y, sensitive_features=s, protected="F")
    assert limited.status_ is Status.FEASIBLE
    assert limited.gap_ == pytest.approx(limited.objective_ - limited.lower_bound_)
    assert limited.gap_ > 0


# --------------------------------------------------------------------------- the group as values
def leaky_people(n: int = 300, seed: int = 2):
    """raw_people plus a ``gender`` column that predicts y well: a rule list left free to test
    it would (the fairlearn way of passing the groups is ``sensitive_features=X["gender"]``)."""
    X, y = raw_people(n, seed)
    rng = np.random.default_rng(seed)
    X["gender"] = np.where((y == "yes") ^ (rng.random(n) < 0.1), "male", "female")
    return X, y


LEAKY = dict(metric="SP", epsilon=0.3, lam=0.01, max_length=2, time_limit=None)


def test_sensitive_features_given_as_a_column_of_x_is_left_out_with_a_warning(tmp_path):
    from fairlist import SensitiveColumnWarning

    X, y = leaky_people()
    free = FairRuleListClassifier(**LEAKY, allow_sensitive_antecedents=True)
    assert "gender" in str(free.fit(X, y, sensitive_features=X["gender"]).rule_list_)
    with pytest.warns(SensitiveColumnWarning, match="'gender'"):
        clf = FairRuleListClassifier(**LEAKY).fit(X, y, sensitive_features=X["gender"])
    by_name = FairRuleListClassifier(**LEAKY).fit(X, y, sensitive_features="gender")
    assert clf.sensitive_columns_ == by_name.sensitive_columns_ == ["gender"]
    assert not any("gender" in n for n in clf.binarizer_.get_feature_names_out())
    assert str(clf.rule_list_) == str(by_name.rule_list_) and "gender" not in str(clf.rule_list_)
    np.testing.assert_array_equal(clf.predict(X), by_name.predict(X))
    clf.save(tmp_path / "m.json")
    loaded = FairRuleListClassifier.load(tmp_path / "m.json")
    assert loaded.sensitive_columns_ == ["gender"]
    np.testing.assert_array_equal(loaded.predict(X), clf.predict(X))


def test_a_copy_of_the_groups_under_another_name_or_dtype_is_left_out_a_correlated_one_stays():
    from fairlist import SensitiveColumnWarning

    X, y, s = tiny(n=200)
    sex = pd.Series(s, name="sex", dtype="category")  # strings; X holds a 0/1 code of them
    X["is_female"] = (s == "F").astype(np.uint8)
    X["mostly_female"] = X["is_female"].to_numpy().copy()
    X.loc[X.index[:15], "mostly_female"] ^= 1  # correlated, not the same groups
    with pytest.warns(SensitiveColumnWarning, match="'is_female'") as caught:
        clf = FairRuleListClassifier(metric="SP", epsilon=0.1, lam=0.01, max_length=2).fit(
            X, y, sensitive_features=sex, protected="F"
        )
    assert "mostly_female" not in str(caught[0].message)
    assert clf.sensitive_columns_ == ["is_female"]
    assert list(clf.feature_names_in_) == [c for c in X.columns if c != "is_female"]
    # an array has no names to leave a column out by at predict time: not searched
    on_array = FairRuleListClassifier(metric="SP", epsilon=0.1, lam=0.01, max_length=2)
    on_array.fit(X.to_numpy(), y, sensitive_features=sex.to_numpy(), protected="F")
    assert on_array.n_features_in_ == X.shape[1] and on_array.sensitive_columns_ == []


def test_grid_search_scores_the_same_whether_the_group_column_is_named_or_given():
    X, y = leaky_people()
    scores, columns = [], []
    for s in ("gender", X["gender"]):
        grid = GridSearchCV(FairRuleListClassifier(**LEAKY), {"epsilon": [0.1, 0.3]}, cv=3)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            grid.fit(X, y, sensitive_features=s)
        scores.append(grid.cv_results_["mean_test_score"])
        columns.append(grid.best_estimator_.sensitive_columns_)
    np.testing.assert_array_equal(scores[0], scores[1])
    assert columns == [["gender"], ["gender"]]


def test_allow_sensitive_antecedents_keeps_the_column_and_survives_clone_and_save(tmp_path):
    X, y = leaky_people()
    clf = FairRuleListClassifier(**LEAKY, allow_sensitive_antecedents=True)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no SensitiveColumnWarning
        clf.fit(X, y, sensitive_features=X["gender"])
    assert clf.sensitive_columns_ == [] and "gender" in list(clf.feature_names_in_)
    assert "gender" in str(clf.rule_list_)
    assert clone(clf).get_params()["allow_sensitive_antecedents"] is True
    clf.save(tmp_path / "m.json")
    loaded = FairRuleListClassifier.load(tmp_path / "m.json")
    assert loaded.allow_sensitive_antecedents is True
    np.testing.assert_array_equal(loaded.predict(X), clf.predict(X))
    named = FairRuleListClassifier(**LEAKY, allow_sensitive_antecedents=True)
    assert "gender" in str(named.fit(X, y, sensitive_features="gender").rule_list_)
    with pytest.raises(ValueError, match="allow_sensitive_antecedents"):
        FairRuleListClassifier(allow_sensitive_antecedents="yes").fit(
            X, y, sensitive_features="gender"
        )
