"""Raw tables from the estimator and the command line: missing values, how numeric columns are
cut, predict's columns, progress, stray cells, the time limit while binarizing, and the
errors of bad arguments (issue 25)."""

from __future__ import annotations

import re
import warnings

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

from fairlist import FairRuleListClassifier
from fairlist.binarize import ConstantColumnWarning, UnseenCategoryWarning
from fairlist.cli import app
from fairlist.errors import DataError, InvalidParameterError

runner = CliRunner()


def people(n: int = 300, seed: int = 0, missing: bool = False) -> tuple[pd.DataFrame, np.ndarray]:
    """A raw table: ``age`` (0.17-74, unrelated to the label: MDLP finds no cut), ``job`` (the
    label's cause), ``sex`` (the group)."""
    rng = np.random.default_rng(seed)
    job = rng.choice(["clerk", "nurse", "engineer"], n)
    frame = pd.DataFrame(
        {
            "age": rng.uniform(0.17, 74.0, n),
            "job": job,
            "sex": rng.choice(["F", "M"], n),
        }
    )
    y = np.where((job == "engineer") ^ (rng.random(n) < 0.1), "yes", "no")
    if missing:
        frame.loc[[3, 10, 20], "job"] = None
    return frame, y


def fit(X, y, **params):
    params = {"time_limit": 10, "max_length": 2} | params
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConstantColumnWarning)
        return FairRuleListClassifier(**params).fit(X, y, sensitive_features="sex")


# --------------------------------------------------------------------------- 1. missing values
def test_the_missing_value_error_suggests_what_the_estimator_accepts():
    X, y = people(missing=True)
    with pytest.raises(DataError, match="handle_missing='category'") as err:
        fit(X, y)
    assert "'job'" in str(err.value) and "\n" not in str(err.value)
    clf = fit(X, y, handle_missing="category")
    assert "job:missing" in clf.binarizer_.single_names_
    assert clf.predict(X.head()).shape == (5,)


def test_handle_missing_is_validated_and_applies_to_a_given_binarizer():
    X, y = people(missing=True)
    with pytest.raises(InvalidParameterError, match="'handle_missing' parameter"):
        fit(X, y, handle_missing="drop")
    from fairlist.binarize import Binarizer

    clf = fit(X, y, binarizer=Binarizer(min_support=0.2), handle_missing="category")
    assert clf.binarizer_.handle_missing == "category" and clf.binarizer_.min_support == 0.2
    assert clf.binarizer.handle_missing == "error"  # the parameter itself is not changed


@pytest.mark.parametrize("command", ["fit", "verify", "pareto"])
def test_the_commands_take_handle_missing(tmp_path, command):
    X, y = people(n=120, missing=True)
    X["label"] = y
    X.to_csv(tmp_path / "d.csv", index=False)
    args = [command, str(tmp_path / "d.csv"), "--target", "label", "--sensitive", "sex"]
    args += {
        "fit": ["--max-length", "1"],
        "verify": ["--max-length", "1"],
        "pareto": ["--exact", "--max-length", "1", "--output", str(tmp_path / "p.csv")],
    }[command]
    refused = runner.invoke(app, args)
    assert refused.exit_code == 1
    assert "--handle-missing category" in refused.output
    result = runner.invoke(app, [*args, "--handle-missing", "category"])
    assert result.exit_code in (0, 4), result.output  # (verify: 4 would be a disagreement)


# --------------------------------------------------------------------------- 2. numeric cuts
def test_a_column_without_an_mdlp_cut_warns_what_to_do_and_quantile_cuts_keep_it():
    X, y = people()
    with pytest.warns(ConstantColumnWarning, match="cuts='quantile'"):
        FairRuleListClassifier(time_limit=10, max_length=1).fit(X, y, sensitive_features="sex")
    clf = fit(X, y, cuts="quantile")
    assert any(name.startswith("age:") for name in clf.binarizer_.single_names_)
    with pytest.raises(InvalidParameterError, match="'cuts' parameter"):
        fit(X, y, cuts="uniform")


def test_the_fit_command_takes_cuts(tmp_path):
    X, y = people(n=150)
    X["label"] = y
    X.to_csv(tmp_path / "d.csv", index=False)
    args = ["fit", str(tmp_path / "d.csv"), "--target", "label", "--sensitive", "sex"]
    args += ["--max-length", "1", "--output", str(tmp_path / "m.json")]
    mdlp = runner.invoke(app, args)
    assert mdlp.exit_code == 0, mdlp.output
    assert "--cuts quantile" in mdlp.output  # the warning says what to do
    result = runner.invoke(app, [*args, "--cuts", "quantile"])
    assert result.exit_code == 0, result.output
    clf = FairRuleListClassifier.load(tmp_path / "m.json")
    assert clf.cuts == "quantile" and "age" in clf.binarizer_.cut_points_


# --------------------------------------------------------------------------- 3. predict's columns
def test_predict_reads_the_raw_columns_by_name_in_any_order():
    X, y = people()
    clf = fit(X, y, cuts="quantile")
    expected = clf.predict(X)
    shuffled = X[["sex", "job", "age"]]
    np.testing.assert_array_equal(clf.predict(shuffled), expected)
    np.testing.assert_array_equal(clf.predict(X[["job", "age"]]), expected)  # no group column
    np.testing.assert_array_equal(clf.predict_proba(shuffled), clf.predict_proba(X))


def test_predict_reads_antecedents_by_name_in_any_order():
    rng = np.random.default_rng(1)
    X = pd.DataFrame((rng.random((200, 3)) < 0.5).astype(int), columns=["a", "b", "c"])
    y = X["a"] ^ (rng.random(200) < 0.1)
    clf = FairRuleListClassifier(max_length=2, time_limit=10).fit(
        X, y, sensitive_features=rng.integers(0, 2, 200)
    )
    np.testing.assert_array_equal(clf.predict(X[["c", "a", "b"]]), clf.predict(X))


def test_predict_names_a_missing_or_unknown_column_in_one_line():
    X, y = people()
    clf = fit(X, y, cuts="quantile")
    with pytest.raises(DataError, match="lacks 1 column.*'age'") as err:
        clf.predict(X.drop(columns="age"))
    assert "\n" not in str(err.value)
    with pytest.raises(DataError, match="not fitted on: 'label'") as err:
        clf.predict(X.assign(label=y))
    assert "\n" not in str(err.value)
    with pytest.raises(DataError) as err:  # by position: scikit-learn's count check, one line
        clf.predict(np.zeros((2, 5)))
    assert "\n" not in str(err.value)


# --------------------------------------------------------------------------- 4. verbose
@pytest.mark.parametrize("engine", ["bnb", "cpsat"])
def test_verbose_hands_the_engine_a_progress_callback_that_writes_lines(capsys, engine):
    seen = []
    clf = FairRuleListClassifier(engine=engine, verbose=1, engine_options={"progress": seen.append})
    progress = clf._solver().progress
    progress({"seconds": 1.5, "nodes_expanded": 1200, "best_objective": 0.3, "lower_bound": 0.2})
    progress({"seconds": 1.6})  # within the interval: the user's callback only
    assert len(seen) == 2
    assert capsys.readouterr().err == (
        "searching: 1.5 s, 1,200 nodes, best 0.300000, bound 0.200000, gap 0.100000\n"
    )
    assert FairRuleListClassifier(engine=engine)._solver().progress is None


def test_verbose_reports_a_fit_on_stderr(capsys, monkeypatch):
    from fairlist import progress

    monkeypatch.setattr(progress, "VERBOSE_INTERVAL", 0.0)  # every progress call is a line
    X, y = people()
    seen = []
    options = {"progress": seen.append, "num_workers": 1}
    fit(X, y, cuts="quantile", engine="cpsat", verbose=1, engine_options=options)
    lines = capsys.readouterr().err.splitlines()
    assert lines[0].startswith("fit: binarizing 300 rows x 2 columns")
    assert lines[1].startswith("fit: 300 rows") and "from 2 raw columns" in lines[1]
    assert "building the search" in lines[1]
    phases = [d["phase"] for d in seen if "phase" in d]  # fit's phases, then the engine's dicts
    assert phases == ["preparing", "binarizing", "building"]
    assert seen[len(phases)] is not None and "phase" not in seen[-1]
    searching = [d for d in seen if "phase" not in d]
    assert searching  # the user's own callback still runs, and each search call was a line
    assert len([line for line in lines if line.startswith("searching: ")]) == len(searching)
    assert "best" in lines[-1] and "status optimal" in lines[-1]
    fit(X, y, cuts="quantile", engine="cpsat")
    assert capsys.readouterr().err == ""  # verbose=0: silent


def test_verbose_is_validated():
    X, y = people()
    with pytest.raises(InvalidParameterError, match="'verbose' parameter"):
        fit(X, y, verbose=-1)
    from fairlist.solvers import get_solver

    with pytest.raises(InvalidParameterError, match="verbose apply to the named engines"):
        fit(X, y, engine=get_solver("bnb"), verbose=1, cuts="quantile")


# --------------------------------------------------------------------------- 5. stray cells
@pytest.mark.parametrize("cell", ["?", "yes", 0.5])  # a NUL: its own error (test_bad_input)
def test_one_stray_cell_in_a_table_of_0_1_columns_is_named(tmp_path, cell):
    from fairlist.table import read_table

    rng = np.random.default_rng(0)
    frame = pd.DataFrame((rng.random((60, 3)) < 0.4).astype(int), columns=["a", "b", "c"])
    frame = frame.astype(object)
    frame.loc[5, "b"] = cell
    frame["g"] = rng.integers(0, 2, 60)
    frame["y"] = rng.integers(0, 2, 60)
    frame.to_csv(tmp_path / "d.csv", index=False)
    with pytest.warns(UserWarning, match=re.escape(f"column 'b' is 0/1 but for {cell!r} at row 5")):
        read_table(str(tmp_path / "d.csv"), "y", ["g"], None, antecedents=False)
    result = runner.invoke(
        app,
        ["fit", str(tmp_path / "d.csv"), "--target", "y", "--sensitive", "g", "--max-length", "1"],
    )
    assert "column 'b' is 0/1 but for" in result.output and "at row 5" in result.output


def test_a_column_of_text_is_not_a_stray_cell():
    from fairlist._validation import stray_binary_cell

    frame = pd.DataFrame({"sex": ["F", "M"] * 5, "bit": ["0", "1"] * 5})
    assert stray_binary_cell(frame) is None
    frame.loc[3, "bit"] = "?"
    assert stray_binary_cell(frame) == ("bit", 3, "?")


# --------------------------------------------------------------------------- 6. the time limit
def wide(n_rows: int = 3000, n_columns: int = 800, seed: int = 0):
    """A wide raw table: many numeric columns for MDLP and many antecedents to pair."""
    rng = np.random.default_rng(seed)
    frame = pd.DataFrame(
        rng.integers(0, 50, (n_rows, n_columns)).astype(float),
        columns=[f"x{j}" for j in range(n_columns)],
    )
    frame["sex"] = rng.choice(["F", "M"], n_rows)
    y = (frame.iloc[:, :20].sum(axis=1) + rng.normal(0, 20, n_rows) > 490).astype(int)
    return frame, y.to_numpy()


def test_the_time_limit_stops_the_binarizer_with_a_clear_error():
    import time

    from fairlist.errors import TimeLimitError

    X, y = wide()
    start = time.perf_counter()
    with pytest.raises(
        TimeLimitError,
        match=r"binarizing did not finish within the time limit "
        r"\(\d+ of \d+ ",
    ):
        FairRuleListClassifier(time_limit=0.3, cuts="quantile", max_length=1).fit(
            X, y, sensitive_features="sex"
        )
    assert time.perf_counter() - start < 0.3 + 1.0  # the tests allow 1 s past the limit


def test_the_fit_command_exits_3_when_binarizing_outlasts_the_time_limit(tmp_path):
    X, y = wide(n_rows=1500)
    X["label"] = y
    X.to_csv(tmp_path / "d.csv", index=False)
    result = runner.invoke(
        app,
        [
            "fit",
            str(tmp_path / "d.csv"),
            "--target",
            "label",
            "--sensitive",
            "sex",
            "--time-limit",
            "0.2",
        ],
    )
    assert result.exit_code == 3, result.output
    assert "binarizing did not finish within the time limit" in result.output


# --------------------------------------------------------------------------- 7. bad arguments
def test_integer_group_codes_far_apart_are_numbered_not_counted_up_to():
    from fairlist.solvers import Problem

    rng = np.random.default_rng(0)
    X = (rng.random((100, 3)) < 0.5).astype(np.uint8)
    y = rng.integers(0, 2, 100).astype(np.uint8)
    far = np.where(rng.random(100) < 0.5, 7, 10**11)
    with pytest.raises(DataError, match="code 0 has no sample.*the largest is 100000000000"):
        Problem(X, y, far)  # (was a MemoryError: a count for each code up to 10**11)
    assert Problem.from_data(X, y, far).group_names == ("7", "100000000000")
    clf = FairRuleListClassifier(max_length=1, time_limit=10).fit(X, y, sensitive_features=far)
    assert clf.group_names_ == ("7", "100000000000")


@pytest.mark.parametrize("X", [None, 3, "abc"])
def test_x_none_or_a_scalar_is_named(X):
    y = np.arange(10) % 2
    with pytest.raises(DataError, match=r"^X must be a table of samples .*; got (None|int 3|str)"):
        FairRuleListClassifier().fit(X, y, sensitive_features=y)
    X_ok = np.eye(10, 3, dtype=int)
    clf = FairRuleListClassifier(max_length=1).fit(X_ok, y, sensitive_features=y)
    with pytest.raises(DataError, match=r"^X must be a table of samples"):
        clf.predict(X)


@pytest.mark.parametrize("y", [[1, "a"] * 10, np.array(["a", 1] * 10, dtype=object)])
def test_labels_of_mixed_types_are_named(y):
    X = np.eye(20, 3, dtype=int)
    with pytest.raises(DataError, match=r"^y mixes labels of types int, str \(.* at row 1\)"):
        FairRuleListClassifier().fit(X, y, sensitive_features=np.arange(20) % 2)


# --------------------------------------------------------------------------- 4. scoring a split
def _split(n: int = 1500, seed: int = 3):
    """A 70/30 split of a wide synthetic table whose test part holds long-tail categories the
    training part never saw."""
    from fairlist.synthetic import make_wide_table

    t = make_wide_table(n, seed=seed, n_id_like=0)
    X = t.X.assign(sex=t.sensitive)
    cut = int(0.7 * n)
    return X.iloc[:cut], t.y[:cut], X.iloc[cut:], t.y[cut:]


def _unseen(train: pd.DataFrame, test: pd.DataFrame) -> dict[str, int]:
    return {
        c: int((~test[c].dropna().isin(train[c].dropna().unique())).sum())
        for c in train.columns
        if not pd.api.types.is_numeric_dtype(train[c]) and c != "sex"
    }


@pytest.mark.parametrize("lam", [0.5, 0.002])  # the constant list, and a list that reads columns
def test_a_model_fitted_on_a_split_scores_the_other_split_with_unseen_categories(lam):
    X, y, X_test, y_test = _split()
    assert sum(_unseen(X, X_test).values()) > 0
    clf = fit(X, y, lam=lam, epsilon=0.1, handle_missing="category")
    read = {r.antecedent for r in clf.rule_list_.rules}
    assert (lam == 0.5) == (not read)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UnseenCategoryWarning)
        predicted = clf.predict(X_test)
        score = clf.score(X_test, y_test)
    assert predicted.shape == (len(X_test),) and 0 <= score <= 1
    # the default ("ignore") is what the exported Python does, row by row
    from fairlist.export import export_python

    namespace: dict = {}
    exec(export_python(clf), namespace)
    rows = X_test.drop(columns="sex").to_dict("records")
    exported = np.array([namespace["predict"](row) for row in rows])
    np.testing.assert_array_equal(exported, clf.classes_.searchsorted(predicted))


def test_handle_unknown_error_blocks_only_the_columns_a_rule_reads():
    X, y, X_test, _ = _split()
    clf = fit(X, y, lam=0.002, epsilon=0.1, handle_missing="category", handle_unknown="error")
    assert clf.binarizer_.handle_unknown == "error"
    read = {
        c.name
        for c in clf.binarizer_.columns_
        for r in clf.rule_list_.rules
        if f"{c.name}:" in r.antecedent
    }
    assert "education" in read
    unseen = {c for c, k in _unseen(X, X_test).items() if k}
    assert unseen and not unseen & read  # unseen values only where no rule reads
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # not even a warning: those columns are not read
        clf.predict(X_test)
    new = X_test.copy()
    new["education"] = new["education"].astype(object)
    new.loc[new.index[0], "education"] = "edu_never_seen"
    with pytest.raises(DataError, match="'education'.*edu_never_seen"):
        clf.predict(new)
    clf.binarizer_.set_params(handle_unknown="ignore")  # the default: as the export does
    with pytest.warns(UnseenCategoryWarning, match="'education'.*edu_never_seen"):
        predicted = clf.predict(new)
    rule = clf.rule_list_.rules[0]
    assert rule.antecedent == "not education:edu_5"  # an unseen value is not edu_5: it fires
    assert predicted[0] == clf.classes_[rule.prediction]


def test_the_fit_command_makes_a_model_that_scores_the_other_split(tmp_path):
    X, y, X_test, y_test = _split()
    X.assign(label=y).to_csv(tmp_path / "train.csv", index=False)
    X_test.assign(label=y_test).to_csv(tmp_path / "test.csv", index=False)
    args = ["fit", str(tmp_path / "train.csv"), "--target", "label", "--sensitive", "sex"]
    args += ["--max-length", "2", "--lam", "0.002", "--epsilon", "0.1"]
    args += ["--handle-missing", "category", "--output", str(tmp_path / "m.json")]
    result = runner.invoke(app, [*args, "--handle-unknown", "ignore"])
    assert result.exit_code == 0, result.output
    clf = FairRuleListClassifier.load(tmp_path / "m.json")
    assert clf.handle_unknown == "ignore" and clf.rule_list_.rules
    result = runner.invoke(app, ["predict", str(tmp_path / "m.json"), str(tmp_path / "test.csv")])
    assert result.exit_code == 0, result.output
    assert len(result.stdout.strip().splitlines()) == len(X_test) + 1  # a header, then the rows


def test_the_fit_command_keeps_only_the_columns_given(tmp_path):
    X, y, _, _ = _split(n=600)
    X.assign(label=y).to_csv(tmp_path / "d.csv", index=False)
    args = ["fit", str(tmp_path / "d.csv"), "--target", "label", "--sensitive", "sex"]
    args += ["--max-length", "1", "--output", str(tmp_path / "m.json")]
    result = runner.invoke(app, [*args, "--columns", "age,education,marital"])
    assert result.exit_code == 0, result.output
    clf = FairRuleListClassifier.load(tmp_path / "m.json")
    assert list(clf.feature_names_in_) == ["age", "education", "marital"]
    bad = runner.invoke(app, [*args, "--columns", "age,nope"])
    assert bad.exit_code == 1 and "--columns 'nope' is not a column" in bad.output


def test_id_like_columns_are_left_out_by_name_unless_kept(tmp_path):
    from fairlist.binarize import IdLikeColumnWarning
    from fairlist.synthetic import make_wide_table

    t = make_wide_table(400, seed=2, n_numeric=3, n_categorical=3)
    X = t.X.assign(sex=t.sensitive)
    with pytest.warns(IdLikeColumnWarning, match="'row_id'.*'name'.*'timestamp'"):
        clf = fit(X, t.y, handle_missing="category", lam=0.01)
    assert clf.binarizer_.id_columns_ == ["row_id", "name", "timestamp"]
    kept = fit(X, t.y, handle_missing="category", lam=0.01, keep_id_columns=True)
    assert kept.binarizer_.id_columns_ == [] and "name" in kept.binarizer_.categories_
    X.assign(label=t.y).to_csv(tmp_path / "d.csv", index=False)
    args = ["fit", str(tmp_path / "d.csv"), "--target", "label", "--sensitive", "sex"]
    args += ["--max-length", "1", "--handle-missing", "category", "--output", str(tmp_path / "m")]
    result = runner.invoke(app, args)
    assert result.exit_code == 0 and "look like identifiers" in result.output
    assert FairRuleListClassifier.load(tmp_path / "m").binarizer_.id_columns_
    result = runner.invoke(app, [*args, "--keep-id-columns"])
    assert result.exit_code == 0 and "look like identifiers" not in result.output
    assert FairRuleListClassifier.load(tmp_path / "m").binarizer_.id_columns_ == []
