"""Fuzzing the command line with generated CSV files (hypothesis).

Any table (repeated, empty, unicode or numeric column names; numeric, text, boolean and mixed
columns; NaN, inf and empty cells; 0 to 40 rows; labels of 1 to 3 classes; 1 to 3 groups) gives
either a result or one ``error:`` line with exit 1 (3 when no list is fair) — never a traceback
— and a result is of the table as written: every data row counted, and the model reads exactly
the file's columns other than the target, the sensitive, the weight and the dropped ones.
"""

from __future__ import annotations

import csv
import json

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from fairlist.cli import app

runner = CliRunner()
FAST = ["--max-nodes", "2000", "--max-length", "2", "--time-limit", "5"]

NAMES = ["a", "b", "y", "s", "w", "", "é", "1", "a.1", " a", "Unnamed: 0"]
FLOATS = st.floats(-1e3, 1e3, allow_nan=False).map(repr)
ODD = st.sampled_from(["nan", "inf", "-inf", ""])
CELLS = {
    "binary": st.sampled_from(["0", "1"]),
    "int": st.integers(-3, 100).map(str),
    "float": FLOATS,
    "text": st.sampled_from(["x", "y z", "é", "NA", "True", "1", "0", "", "x,y"]),
    "bool": st.sampled_from(["True", "False"]),
    "mixed": st.one_of(st.sampled_from(["0", "1", "x", "", "inf"]), FLOATS),
}
LABELS = [["0", "1", "2"], ["no", "yes", "maybe"]]
GROUPS = [["F", "M", "X"], ["1", "0", "2"]]


@st.composite
def tables(draw):
    """(header, rows, fit options): a CSV as written, and how ``fit`` is told to read it.

    Each way of being wrong is drawn on its own, one time in twelve, so that most tables fit and
    the others err in one or a few ways at once."""

    def odd() -> bool:
        return draw(st.sampled_from([False] * 11 + [True]))

    def column(cells) -> list[str]:
        return draw(st.lists(cells, min_size=n, max_size=n))

    def spoil(cells: list[str], bad) -> list[str]:
        """``cells`` with one cell (if any) replaced by a draw of ``bad``, when odd."""
        if cells and odd():
            cells[draw(st.integers(0, len(cells) - 1))] = draw(bad)
        return cells

    n = draw(st.integers(0, 3)) if odd() else draw(st.integers(4, 40))
    columns = []  # (name, cells)
    for j in range(draw(st.integers(1, 4))):
        kind = draw(st.sampled_from(sorted(CELLS) if odd() else ["binary"] * 3 + ["int", "float"]))
        name = draw(st.sampled_from(NAMES)) if odd() else f"f{j}"
        columns.append((name, spoil(column(CELLS[kind]), ODD)))  # NaN, inf, an empty cell
    labels = draw(st.sampled_from(LABELS))[: draw(st.sampled_from([1, 3])) if odd() else 2]
    y = spoil(column(st.sampled_from(labels)), st.sampled_from(["", "nan", "NA"]))
    groups = draw(st.sampled_from(GROUPS))[: draw(st.sampled_from([1, 3])) if odd() else 2]
    s = spoil(column(st.sampled_from(groups)), st.sampled_from(["", "nan"]))
    target, sensitive = draw(st.sampled_from([("y", "y"), ("label", "s")])) if odd() else ("y", "s")
    n_features = len(columns)
    columns += [(target, y), (sensitive, s)]
    options = ["--target", target, "--sensitive", sensitive]
    if draw(st.booleans()):
        bad = st.one_of(ODD, CELLS["text"], st.just("-1"))
        columns.append(("wt", spoil(column(st.integers(1, 5).map(str)), bad)))
        options += ["--weight", "wt"]
    if draw(st.booleans()):
        some = columns if odd() else columns[:n_features]  # a feature, or any column
        options += ["--drop", draw(st.sampled_from([name for name, _ in some]))]
    order = draw(st.permutations(range(len(columns))))
    header = [columns[j][0] for j in order]
    rows = [[columns[j][1][i] for j in order] for i in range(n)]
    return header, rows, options


def write_csv(path, header, rows) -> None:
    with open(path, "w", newline="", encoding="utf-8") as f:
        writer = csv.writer(f)
        writer.writerow(header)
        writer.writerows(rows)


def assert_one_error(result) -> None:
    """Exit 1 or 3 with one ``error:`` line, and no traceback (SystemExit is how typer exits)."""
    assert isinstance(result.exception, SystemExit), repr(result.exception)
    assert result.exit_code in (1, 3), result.output
    errors = [line for line in result.output.splitlines() if line.startswith("error: ")]
    assert len(errors) == 1, result.output
    assert "Traceback" not in result.output


def check_fit(tmp_path, header, rows, options) -> None:
    data, model = tmp_path / "d.csv", tmp_path / "m.json"
    model.unlink(missing_ok=True)
    write_csv(data, header, rows)
    result = runner.invoke(app, ["fit", str(data), *options, *FAST, "--output", str(model)])
    if result.exit_code != 0:
        assert_one_error(result)
        return
    assert result.exception is None, repr(result.exception)
    doc = json.loads(model.read_text())
    roles = {options[i + 1] for i in range(0, len(options), 2)}
    assert doc["feature_names_in"] == [c for c in header if c not in roles]
    counted = sum(doc["rule_n_samples"])
    if "--weight" in options:  # the rows' weights are counted
        weights = pd.to_numeric(pd.Series([r[header.index("wt")] for r in rows])).sum()
        assert counted == pytest.approx(weights)
    else:
        assert counted == len(rows)


FIT_SETTINGS = dict(
    derandomize=True,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)


@settings(max_examples=120, **FIT_SETTINGS)
@given(table=tables())
def test_fit_on_any_csv_gives_a_result_of_that_table_or_one_error(tmp_path, table):
    check_fit(tmp_path, *table)


@pytest.mark.slow
@settings(max_examples=1500, **FIT_SETTINGS)
@given(table=tables())
def test_fit_on_many_more_csv_files(tmp_path, table):
    check_fit(tmp_path, *table)


# --------------------------------------------------------------------------- predict
@pytest.fixture(scope="module")
def model(tmp_path_factory):
    """A model of a raw table: a numeric column, a text one, the groups and the label."""
    folder = tmp_path_factory.mktemp("model")
    rng = np.random.default_rng(0)
    n = 60
    a = rng.integers(0, 50, n)
    frame = pd.DataFrame(
        {
            "a": a,
            "c": rng.choice(["u", "v", "w"], n),
            "s": rng.choice(["F", "M"], n),
            "y": (a > 25).astype(int),
        }
    )
    frame.to_csv(folder / "train.csv", index=False)
    path = folder / "m.json"
    result = runner.invoke(
        app,
        [
            "fit",
            str(folder / "train.csv"),
            "--target",
            "y",
            "--sensitive",
            "s",
            *FAST,
            "--output",
            str(path),
        ],
    )
    assert result.exit_code == 0, result.output
    return path


@st.composite
def predict_tables(draw):
    n = draw(st.one_of(st.integers(0, 3), st.integers(4, 40)))
    names = draw(
        st.lists(st.sampled_from(["a", "c", "s", "y", "x", "", "a.1"]), min_size=1, max_size=5)
    )
    kinds = [draw(st.sampled_from(sorted(CELLS))) for _ in names]
    rows = [[draw(CELLS[k]) for k in kinds] for _ in range(n)]
    return names, rows


def check_predict(tmp_path, model, header, rows) -> None:
    data = tmp_path / "p.csv"
    write_csv(data, header, rows)
    result = runner.invoke(app, ["predict", str(model), str(data), "--json"])
    if result.exit_code != 0:
        assert isinstance(result.exception, SystemExit), repr(result.exception)
        assert result.exit_code == 1, result.output
        doc = json.loads(result.stdout.strip())  # --json: the error as one JSON object
        assert set(doc) == {"error", "exit_code"} and doc["exit_code"] == 1
        return
    assert result.exception is None, repr(result.exception)
    doc = json.loads(result.stdout)
    assert doc["n_samples"] == len(rows) == len(doc["predictions"])


@settings(max_examples=80, **FIT_SETTINGS)
@given(table=predict_tables())
def test_predict_on_any_csv_gives_one_prediction_a_row_or_one_error(tmp_path, model, table):
    check_predict(tmp_path, model, *table)


@pytest.mark.slow
@settings(max_examples=1000, **FIT_SETTINGS)
@given(table=predict_tables())
def test_predict_on_many_more_csv_files(tmp_path, model, table):
    check_predict(tmp_path, model, *table)
