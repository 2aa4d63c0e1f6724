"""Bad data and bad arguments: each gives one error naming the column (and the cell), never a
traceback, a vague message or a silently different table (issue 17's audit)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

from fairlist import FairRuleListClassifier
from fairlist.binarize import Binarizer
from fairlist.errors import DataError, InvalidParameterError
from fairlist.pareto import cross_validated_front
from fairlist.solvers import Problem

runner = CliRunner()
FAST = ["--max-nodes", "2000", "--max-length", "2", "--time-limit", "5"]


def table(n: int = 40, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    a, b, s = (rng.integers(0, 2, n) for _ in range(3))
    return pd.DataFrame({"a": a, "b": b, "s": s, "y": a | b})


def write(path, text: str) -> str:
    path.write_text(text)
    return str(path)


def fit_cli(*args: str):
    from fairlist.cli import app

    return runner.invoke(app, ["fit", *args, *FAST])


def one_error(result, *parts: str) -> str:
    """The single ``error:`` line of a failed command (exit 1), which must contain ``parts``."""
    assert result.exit_code == 1, result.output
    assert isinstance(result.exception, SystemExit), result.exception
    lines = [line for line in result.output.splitlines() if line.startswith("error:")]
    assert len(lines) == 1, result.output
    for part in parts:
        assert part in lines[0], lines[0]
    return lines[0]


# --------------------------------------------------------------------------- CSV files
def test_a_label_column_given_twice_in_the_csv_is_an_error_not_an_antecedent(tmp_path):
    frame = table()
    rows = "".join(f"{a},{b},{s},{y},{y}\n" for a, b, s, y in frame.to_numpy())
    data = write(tmp_path / "d.csv", "a,b,s,y,y\n" + rows)
    one_error(fit_cli(data, "--target", "y", "--sensitive", "s"), "duplicate column", "'y'")


def test_any_repeated_column_name_in_the_csv_is_named(tmp_path):
    data = write(tmp_path / "d.csv", "a,a,s,y\n1,0,0,1\n0,1,1,0\n")
    one_error(fit_cli(data, "--target", "y", "--sensitive", "s"), "duplicate column", "'a'")


def test_a_column_without_a_name_is_an_error(tmp_path):
    data = write(tmp_path / "d.csv", ",a,s,y\n0,1,0,1\n1,0,1,0\n")
    one_error(fit_cli(data, "--target", "y", "--sensitive", "s"), "column 1", "no name")


def test_rows_longer_than_the_header_are_not_turned_into_an_index(tmp_path):
    data = write(tmp_path / "d.csv", "a,s,y\n7,1,0,1\n8,0,1,0\n")
    one_error(fit_cli(data, "--target", "y", "--sensitive", "s"), "more fields than the header")


def test_a_csv_with_only_a_header_has_no_rows(tmp_path):
    data = write(tmp_path / "d.csv", "a,b,s,y\n")
    one_error(fit_cli(data, "--target", "y", "--sensitive", "s"), "d.csv has no rows")


def test_an_empty_or_non_utf8_file_is_named(tmp_path):
    one_error(
        fit_cli(write(tmp_path / "e.csv", ""), "--target", "y", "--sensitive", "s"),
        "e.csv is empty",
    )
    path = tmp_path / "l.csv"
    path.write_bytes(b"a,s,y\n\xff,1,0\n")
    one_error(fit_cli(str(path), "--target", "y", "--sensitive", "s"), "not UTF-8")


def test_predict_on_a_header_only_csv_blames_the_rows(tmp_path):
    from fairlist.cli import app

    frame = table()
    frame.to_csv(tmp_path / "d.csv", index=False)
    model = tmp_path / "m.json"
    fitted = runner.invoke(
        app,
        [
            "fit",
            str(tmp_path / "d.csv"),
            "--target",
            "y",
            "--sensitive",
            "s",
            *FAST,
            "--output",
            str(model),
        ],
    )
    assert fitted.exit_code == 0, fitted.output
    empty = write(tmp_path / "e.csv", "a,b,s,y\n")
    one_error(runner.invoke(app, ["predict", str(model), empty]), "e.csv has no rows")


@pytest.mark.parametrize(
    "roles, message",
    [
        (["--target", "s", "--sensitive", "s"], "'s' is given as --target and --sensitive"),
        (["--target", "y", "--sensitive", "s", "--sensitive", "s"], "'s' is given twice"),
        (["--target", "y", "--sensitive", "s", "--weight", "y"], "as --target and --weight"),
        (["--target", "y", "--sensitive", "s", "--weight", "s"], "as --sensitive and --weight"),
        (["--target", "y", "--sensitive", "s", "--drop", "y"], "as --target and --drop"),
        (["--target", "y", "--sensitive", "s", "--drop", "s"], "as --sensitive and --drop"),
    ],
)
def test_a_column_has_one_role(tmp_path, roles, message):
    table().to_csv(tmp_path / "d.csv", index=False)
    one_error(fit_cli(str(tmp_path / "d.csv"), *roles), message)


@pytest.mark.parametrize(
    "column, cell, message",
    [
        ("y", np.nan, "y (column 'y') has 1 missing label(s) (NaN/None), first at row 3"),
        (
            "s",
            np.nan,
            "sensitive_features (column 's') has 1 missing value(s) (NaN/None), first at row 3",
        ),
        ("a", np.inf, "column 'a' has 1 infinite value(s), first inf at row 3"),
        ("a", -np.inf, "column 'a' has 1 infinite value(s), first -inf at row 3"),
        ("a", np.nan, "column 'a' has 1 missing values (NaN or None, of 40 rows; first at row 3)"),
        ("a", 0.5, "column 'a' is 0/1 but for 0.5 at row 3"),
    ],
)
def test_a_bad_cell_is_named_by_column_and_row(tmp_path, column, cell, message):
    frame = table().astype(float)
    frame.loc[3, column] = cell
    if column == "a" and cell == 0.5:  # a table MDLP finds no cut in: nothing left to learn
        frame = pd.DataFrame(
            {
                "a": [1, 0, 1, 0.5, 0, 1, 0, 1],
                "b": [0, 1, 1, 1, 0, 0, 1, 0],
                "s": [0, 1] * 4,
                "y": [0, 1] * 4,
            }
        )
    frame.to_csv(tmp_path / "d.csv", index=False)
    result = fit_cli(str(tmp_path / "d.csv"), "--target", "y", "--sensitive", "s")
    one_error(result, message)
    warned = [line for line in result.output.splitlines() if line.startswith("warning:")]
    # one error, not a warning per column (0.5: one warning that the table is read as raw)
    assert warned == ([f"warning: {RAW_0_5}"] if cell == 0.5 else []), result.output


RAW_0_5 = (
    "column 'a' is 0/1 but for 0.5 at row 3: the table is read as raw columns and binarized (if "
    "it holds antecedents, fix that cell)"
)


def test_a_stray_cell_in_a_table_of_antecedents_is_named_when_the_fit_goes_on(tmp_path):
    """One 0.5 in a table of 0/1 antecedents makes it a raw table; when the binarizer finds cuts
    the fit succeeds, and a warning names the cell that made the difference."""
    frame = table().astype(float)
    frame.loc[3, "a"] = 0.5
    frame.to_csv(tmp_path / "d.csv", index=False)
    result = fit_cli(str(tmp_path / "d.csv"), "--target", "y", "--sensitive", "s")
    assert result.exit_code == 0, result.output
    assert f"warning: {RAW_0_5}" in result.output.splitlines()
    frame.loc[3, "a"] = 1.0
    frame["c"] = np.linspace(0, 1, len(frame))  # a raw column: no warning
    frame.to_csv(tmp_path / "r.csv", index=False)
    result = fit_cli(str(tmp_path / "r.csv"), "--target", "y", "--sensitive", "s")
    assert result.exit_code == 0 and "is 0/1 but for" not in result.output, result.output


@pytest.mark.parametrize(
    "weights, message",
    [
        (-1.0, "1 negative values (first at row 0)"),
        (np.nan, "1 NaN values (first at row 0)"),
        (np.inf, "1 infinite values (first at row 0)"),
        ("heavy", "sample_weight (column 'w') must hold numbers, got dtype object; row 0 holds"),
    ],
)
def test_a_bad_weight_is_named(tmp_path, weights, message):
    frame = table()
    frame["w"] = [weights] + [1.0] * (len(frame) - 1)
    frame.to_csv(tmp_path / "d.csv", index=False)
    one_error(
        fit_cli(str(tmp_path / "d.csv"), "--target", "y", "--sensitive", "s", "--weight", "w"),
        message,
    )


@pytest.mark.parametrize(
    "column, value, message",
    [
        ("y", 1, "y (column 'y') has 1 class (1) only"),
        ("s", 1, "sensitive_features (column 's') has a single group (1 for every sample)"),
    ],
)
def test_a_single_class_or_group_is_named(tmp_path, column, value, message):
    frame = table()
    frame[column] = value
    frame.to_csv(tmp_path / "d.csv", index=False)
    one_error(fit_cli(str(tmp_path / "d.csv"), "--target", "y", "--sensitive", "s"), message)


def test_pareto_n_epsilons_zero_names_the_option(tmp_path):
    from fairlist.cli import app

    table().to_csv(tmp_path / "d.csv", index=False)
    result = runner.invoke(
        app,
        [
            "pareto",
            str(tmp_path / "d.csv"),
            "--target",
            "y",
            "--sensitive",
            "s",
            "--n-epsilons",
            "0",
            "--output",
            str(tmp_path / "p.csv"),
        ],
    )
    assert result.exit_code == 2 and "--n-epsilons" in result.output, result.output


def test_cross_validated_front_refuses_an_empty_grid():
    X = np.eye(4, dtype=int)[[0, 1, 2, 3] * 5]
    with pytest.raises(InvalidParameterError, match="'epsilons' parameter.*non-empty"):
        cross_validated_front(X, [0, 1] * 10, [0, 0, 1, 1] * 5, epsilons=[])


# --------------------------------------------------------------------------- the library
X4 = [[1, 0], [0, 1], [1, 1], [0, 0]]


def test_a_dataframe_with_repeated_column_names_is_refused():
    frame = pd.DataFrame([[1, 0, 1], [0, 1, 0], [1, 1, 1], [0, 0, 0]], columns=["a", "b", "a"])
    with pytest.raises(DataError, match=r"X has duplicate column names: \['a'\]"):
        FairRuleListClassifier(max_nodes=100).fit(frame, [0, 1, 1, 0], [0, 0, 1, 1])
    with pytest.raises(DataError, match=r"X has duplicate column names: \['a'\]"):
        Problem.from_data(frame, [0, 1, 1, 0], [0, 0, 1, 1])


def test_sensitive_features_naming_a_column_twice_is_refused():
    frame = pd.DataFrame({"a": [1, 0, 1, 0], "s": [0, 1, 0, 1]})
    with pytest.raises(DataError, match="names 's' twice"):
        FairRuleListClassifier(max_nodes=100).fit(frame, [0, 1, 1, 0], ["s", "s"])


def test_protected_must_be_one_group():
    with pytest.raises(InvalidParameterError, match=r"protected=\['F', 'M'\] must be a single"):
        FairRuleListClassifier(max_nodes=100).fit(
            X4, [0, 1, 1, 0], ["F", "M", "F", "M"], protected=["F", "M"]
        )
    two = pd.DataFrame({"r": ["a", "b", "a", "b"], "x": ["F", "F", "M", "M"]})
    with pytest.raises(InvalidParameterError, match="a tuple of 2 values"):
        Problem.from_data(X4, [0, 1, 1, 0], two, protected="a")


def test_a_ragged_x_is_named_with_its_row():
    with pytest.raises(DataError, match="X is ragged: row 1 has 3 values, row 0 has 2"):
        FairRuleListClassifier(max_nodes=100).fit(
            [[1, 0], [0, 1, 1], [1, 1], [0, 0]], [0, 1, 0, 1], [0, 1, 0, 1]
        )
    with pytest.raises(DataError, match="X is ragged: row 2"):
        Binarizer().fit([["a", 1], ["b", 2], ["c"]], [0, 1, 0])


@pytest.mark.parametrize("missing", [None, np.nan])
def test_a_missing_label_is_named_with_its_row(missing):
    for y in ([0, 1, missing, 1], ["a", "b", missing, "a"]):
        with pytest.raises(DataError, match=r"y has 1 missing label\(s\) .*first at row 2"):
            FairRuleListClassifier(max_nodes=100).fit(X4, y, [0, 1, 0, 1])


def test_labels_of_mixed_types_are_named():
    with pytest.raises(DataError, match="y mixes labels of types int, str"):
        Problem.from_data(X4, [0, "a", 0, "a"], [0, 1, 0, 1])


def test_the_binarizer_refuses_infinite_values_naming_the_row():
    X = pd.DataFrame({"a": [1.0, 2.0, 3.0, -np.inf, 5.0, 6.0]})
    for numeric in ("quantile", "mdlp"):
        with pytest.raises(DataError, match="column 'a' has 1 infinite value.*-inf at row 3"):
            Binarizer(numeric=numeric).fit(X, [0, 1, 0, 1, 0, 1])
    fitted = Binarizer(numeric="quantile").fit(X.replace(-np.inf, 4.0))
    with pytest.raises(DataError, match="first inf at row 0"):
        fitted.transform(pd.DataFrame({"a": [np.inf, 1.0]}))


def test_a_text_cell_in_a_numeric_column_at_transform_time_is_named():
    fitted = Binarizer(numeric="quantile").fit(pd.DataFrame({"a": [1.0, 2.0, 3.0, 4.0]}))
    with pytest.raises(DataError, match="column 'a' held numbers at fit time; row 1 holds 'x'"):
        fitted.transform(pd.DataFrame({"a": [1.0, "x"]}, dtype=object))


def test_no_antecedent_is_one_error_without_warnings(recwarn):
    X = pd.DataFrame({"a": [1, 0, 1, 0.5, 0, 1, 0, 1], "b": [0, 1, 1, 1, 0, 0, 1, 0]})
    with pytest.raises(DataError) as info:
        Binarizer().fit(X, [0, 1] * 4)
    message = str(info.value)
    assert "column 'a' has no cut point, column 'b' has no cut point" in message
    assert "column 'a' is 0/1 but for 0.5 at row 3" in message
    assert not [w for w in recwarn if "yields no antecedent" in str(w.message)]


def test_a_single_text_class_given_as_a_list_is_named():
    with pytest.raises(DataError, match=r"y has 1 class \('no'\) only"):
        FairRuleListClassifier(max_nodes=100).fit(X4, ["no"] * 4, [0, 1, 0, 1])


def test_a_third_class_is_named(tmp_path):
    frame = table()
    frame["y"] = frame["y"].map({0: "no", 1: "yes"})
    frame.loc[5, "y"] = "maybe"
    frame.to_csv(tmp_path / "d.csv", index=False)
    one_error(
        fit_cli(str(tmp_path / "d.csv"), "--target", "y", "--sensitive", "s"),
        "Only binary classification is supported",
        "y (column 'y') must be binary; it has 3 distinct values ('maybe', 'no', 'yes')",
    )


def test_no_column_left_for_rules_is_named(tmp_path):
    table().to_csv(tmp_path / "d.csv", index=False)
    one_error(
        fit_cli(
            str(tmp_path / "d.csv"),
            "--target",
            "y",
            "--sensitive",
            "s",
            "--drop",
            "a",
            "--drop",
            "b",
        ),
        "X has no column once the sensitive columns are out",
    )
    with pytest.raises(DataError, match="X has no column at all"):
        FairRuleListClassifier().fit(pd.DataFrame(index=range(4)), [0, 1, 1, 0], [0, 1, 0, 1])


def test_a_nan_among_antecedents_is_named_by_row_and_column():
    X = pd.DataFrame({"a": [1, 0, 1, 0], "b": [0, np.nan, 1, 0]})
    with pytest.raises(DataError, match=r"X contains NaN \(at row 1, column 'b'\)"):
        Problem.from_data(X, [0, 1, 1, 0], [0, 1, 0, 1])


# --------------------------------------------------------------------------- issue 37, item 8
@pytest.mark.parametrize("sensitive", [5, 1.5, [], [1], ["s", "s"], "", np.array([0, 1])])
def test_make_fair_scorer_refuses_a_bad_sensitive_at_construction(sensitive):
    from fairlist.model_selection import make_fair_scorer

    with pytest.raises(InvalidParameterError, match=r"^sensitive=.* must be the name of a column"):
        make_fair_scorer("SP", 0.05, sensitive=sensitive)


def test_a_routed_sensitive_features_without_rows_is_named():
    from fairlist.model_selection import make_fair_scorer

    clf = FairRuleListClassifier(max_length=1).fit(table()[["a", "b"]], table()["y"], table()["s"])
    with pytest.raises(DataError, match="sensitive_features=5 must hold one group per held-out"):
        make_fair_scorer("SP", 0.05)(clf, table()[["a", "b"]], table()["y"], sensitive_features=5)


@pytest.mark.parametrize(
    ("X", "message"),
    [
        (pd.DataFrame({"a": [], "b": []}), "X has no samples (rows); a fit needs at least 2"),
        (np.zeros((0, 2)), "X has no samples (rows); a fit needs at least 2"),
        (pd.DataFrame({"a": [1], "b": [0.5]}), "X has 1 sample (row); a fit needs at least 2"),
        (np.array([[1, 0]]), "X has 1 sample (row); a fit needs at least 2"),
        ([[1, 0]], "X has 1 sample (row); a fit needs at least 2"),
        ({"a": [1, 0, 1, 0], "b": [0, 1, 1, 0]}, "X is a dict (columns by name), not a table"),
    ],
    ids=["0-row frame", "0-row array", "1-row frame", "1-row array", "1-row list", "dict"],
)
def test_a_table_without_two_rows_or_a_dict_gets_its_own_error(X, message):
    n = len(X) if not isinstance(X, dict) else 4
    y, s = [1, 0, 1, 0][:n], [0, 1, 0, 1][:n]
    with pytest.raises(DataError) as caught:
        FairRuleListClassifier(max_length=1).fit(X, y, sensitive_features=s)
    assert str(caught.value).startswith(message), caught.value
    assert "column" not in str(caught.value).replace("columns by name", "").replace(
        "dict of columns", ""
    )


def test_problem_refuses_a_dict():
    with pytest.raises(DataError, match=r"^X is a dict \(columns by name\), not a table"):
        Problem.from_data({"a": [1, 0, 1, 0], "b": [0, 1, 1, 0]}, [1, 0, 1, 0], [0, 1, 0, 1])


def test_predict_and_the_binarizer_refuse_a_dict():
    clf = FairRuleListClassifier(max_length=1).fit(table()[["a", "b"]], table()["y"], table()["s"])
    with pytest.raises(DataError, match="X is a dict"):
        clf.predict({"a": [1, 0], "b": [0, 1]})
    with pytest.raises(DataError, match="X is a dict"):
        Binarizer().fit({"a": [1.5, 2.5], "b": ["x", "y"]})


@pytest.mark.parametrize(
    ("text", "where"),
    [
        ("a,b,g,y\n1,0,0,1\n0,1\x00x,1,0\n1,1,0,1\n0,0,1,0\n", "row 1, column 'b'"),
        ("a,b,g,y\n1,0,0,1\n0,1,1,0\n1,1,0,1\n0,0,1,0\x00\n", "row 3, column 'y'"),
        ("a,b,g,y\n1,0,0,1\n0,\x00,1,0\n1,1,0,1\n0,0,1,0\n", "row 1, column 'b'"),
        ("a,b\x00c,g,y\n1,0,0,1\n0,1,1,0\n", "the header, column 2"),
        ('a,b,g,y\n1,"x\x00\ny",0,1\n0,1,1,0\n', "row 0, column 'b'"),
    ],
    ids=["text cell", "label", "0/1 column", "header", "quoted"],
)
def test_a_nul_byte_in_a_csv_is_named_by_row_and_column(tmp_path, text, where):
    from fairlist.cli import app
    from fairlist.table import read_csv

    path = tmp_path / "d.csv"
    path.write_bytes(text.encode())
    message = f"d.csv holds a NUL byte (\\x00) at {where}"
    with pytest.raises(DataError) as caught:
        read_csv(path)
    assert str(caught.value).startswith(message)
    result = runner.invoke(app, ["fit", str(path), "--target", "y", "--sensitive", "g"])
    assert result.exit_code == 1 and result.output.startswith(f"error: {message}"), result.output
