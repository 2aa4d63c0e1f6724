"""Exported rule lists predict what the model predicts: the Python function executed on each
row, the SQL expression run by SQLite on the same rows, and every antecedent of a fitted
binarizer written as column tests gives the binarizer's own column."""

from __future__ import annotations

import doctest
import json
import math
import sqlite3
import warnings

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

import fairlist.export
from fairlist.binarize import Binarizer, UnseenCategoryWarning
from fairlist.cli import app
from fairlist.errors import InvalidParameterError
from fairlist.estimator import FairRuleListClassifier
from fairlist.export import (
    _binarizer_terms,
    _py,
    _sql,
    export,
    export_python,
    export_sql,
    export_text,
    quote_identifier,
)
from fairlist.rulelist import Rule, RuleList

runner = CliRunner()


def raw_frame(n: int = 240, seed: int = 3) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    frame = pd.DataFrame(
        {
            "age": rng.integers(18, 70, n).astype(float),
            "capital gain": rng.choice([0.0, 0.0, 0.0, 5119.5, 20000.0], n),
            'odd "name"': rng.choice(["a", "b", "it's"], n),
            "flag": rng.random(n) < 0.3,
        }
    )
    frame["sex"] = rng.choice(["F", "M"], n)
    frame["label"] = np.where(
        ((frame["age"] < 30) | (frame["capital gain"] > 5000)) ^ (rng.random(n) < 0.1), "yes", "no"
    )
    return frame


def python_function(source: str):
    namespace: dict = {}
    exec(source, namespace)  # noqa: S102 - the code under test
    return namespace["predict"]


def rows(frame: pd.DataFrame) -> list[dict]:
    """Rows as a service would see them: plain Python values, None where missing."""
    return [
        {k: (None if isinstance(v, float) and math.isnan(v) else v) for k, v in r.items()}
        for r in frame.astype(object).to_dict(orient="records")
    ]


def sqlite_values(frame: pd.DataFrame, expression: str) -> list:
    con = sqlite3.connect(":memory:")
    columns = ", ".join(quote_identifier(c) for c in frame.columns)
    con.execute(f"CREATE TABLE t ({columns})")
    marks = ", ".join("?" for _ in frame.columns)
    con.executemany(
        f"INSERT INTO t VALUES ({marks})",
        [tuple(r.values()) for r in rows(frame)],
    )
    return [v for (v,) in con.execute(f"SELECT {expression} FROM t ORDER BY rowid")]


@pytest.fixture(scope="module")
def raw_model():
    frame = raw_frame()
    clf = FairRuleListClassifier(
        metric="SP", epsilon=0.1, max_length=3, time_limit=None, max_nodes=200_000
    )
    clf.fit(frame.drop(columns="label"), frame["label"], sensitive_features="sex")
    assert clf.binarizer_ is not None and len(clf.rule_list_) >= 1
    return clf, frame


def test_python_and_sql_of_a_raw_table_fit_predict_what_the_model_predicts(raw_model):
    clf, frame = raw_model
    X = frame.drop(columns="label")
    expected = list(clf.predict(X))
    indices = list(clf.rule_list_.predict(clf.binarizer_.transform(X.drop(columns="sex"))))
    predict = python_function(export_python(clf, labels=True))
    assert [predict(r) for r in rows(X)] == expected
    assert [python_function(export_python(clf))(r) for r in rows(X)] == indices
    assert sqlite_values(X, export_sql(clf, labels=True)) == expected
    assert sqlite_values(X, export_sql(clf)) == indices
    assert '"age" >= ' in export_sql(clf) or '"capital gain"' in export_sql(clf)


def test_every_antecedent_of_a_binarizer_is_its_column_in_python_and_sql():
    """Intervals, categories (quotes in names and values), booleans, missing values, negations
    and conjunctions: each antecedent's tests give exactly ``transform``'s column, unseen
    categories and missing values included."""
    frame = raw_frame(120).drop(columns=["sex", "label"])
    frame.loc[::7, "age"] = np.nan
    frame.loc[::5, 'odd "name"'] = None
    b = Binarizer(
        numeric="quantile",
        n_bins=4,
        handle_missing="category",
        handle_unknown="ignore",
        min_support=0.0,
    ).fit(frame)
    test = frame.copy()
    test.loc[::3, 'odd "name"'] = "never seen"
    test.loc[1, "age"] = np.nan
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UnseenCategoryWarning)
        expected = np.asarray(b.transform(test))
    terms = _binarizer_terms(b)
    assert list(terms) == list(b.get_feature_names_out())
    kinds = {type(t).__name__ for t in terms.values()}
    assert kinds >= {"_Interval", "_Category", "_Missing", "_Not", "_And"}
    as_rows = rows(test)
    checks = [f"CASE WHEN {_sql(term)} THEN 1 ELSE 0 END" for term in terms.values()]
    in_sql = np.array([sqlite_values(test, c) for c in checks]).T
    for j, (name, term) in enumerate(terms.items()):
        condition, _ = _py(term)
        fn = python_function(
            f"def _present(value):\n    return value is not None and value == value\n"
            f"def predict(row):\n    return int(bool({condition}))\n"
        )
        assert [fn(r) for r in as_rows] == expected[:, j].tolist(), name
        assert in_sql[:, j].tolist() == expected[:, j].tolist(), name


def test_an_antecedent_table_fit_exports_tests_of_its_0_1_columns(tmp_path):
    rng = np.random.default_rng(5)
    names = ["priors:>3", "age:18-20 && gender:Male", "it's", 'a "b"']
    X = pd.DataFrame((rng.random((150, 4)) < 0.4).astype(int), columns=names)
    y = (X.iloc[:, 0] | X.iloc[:, 1]) ^ (rng.random(150) < 0.1)
    s = rng.random(150) < 0.5
    clf = FairRuleListClassifier(max_length=3, time_limit=None).fit(X, y, sensitive_features=s)
    assert clf.binarizer_ is None and len(clf.rule_list_) >= 1
    expected = clf.predict(X).tolist()
    assert [python_function(export_python(clf, labels=True))(r) for r in rows(X)] == expected
    assert sqlite_values(X, export_sql(clf)) == clf.rule_list_.predict(X).tolist()
    # a bare rule list too
    rl = clf.rule_list_
    assert [python_function(export_python(rl))(r) for r in rows(X)] == rl.predict(X).tolist()
    assert sqlite_values(X, export_sql(rl)) == rl.predict(X).tolist()


def test_the_text_is_the_papers_print_format(raw_model):
    clf, _ = raw_model
    assert export_text(clf) == str(clf.rule_list_)
    assert export(clf.rule_list_, "text") == str(clf.rule_list_)
    assert export_text(RuleList([], default=1, labels=("no", "yes"))).startswith("always predict")


def test_bad_arguments_are_named():
    rl = RuleList([Rule("a", 1)])
    with pytest.raises(InvalidParameterError, match="format='xml'"):
        export(rl, "xml")
    with pytest.raises(InvalidParameterError, match="function_name='1st'"):
        export_python(rl, function_name="1st")
    with pytest.raises(InvalidParameterError, match="FairRuleListClassifier, got str"):
        export_sql("model")
    with pytest.raises(InvalidParameterError, match="FairRuleListClassifier, got str"):
        export_text("model")


def test_the_docstring_examples_run():
    result = doctest.testmod(fairlist.export, optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0 and result.failed == 0


@pytest.mark.parametrize("fmt", ["python", "sql", "text"])
def test_the_export_command_prints_each_format(raw_model, tmp_path, fmt):
    clf, frame = raw_model
    path = tmp_path / "model.json"
    clf.save(path)
    result = runner.invoke(app, ["export", str(path), "--format", fmt])
    assert result.exit_code == 0, result.output
    assert result.output == export(clf, fmt) + "\n"
    written = tmp_path / f"out.{fmt}"
    result = runner.invoke(
        app, ["export", str(path), "--format", fmt, "--labels", "--output", str(written)]
    )
    assert result.exit_code == 0, result.output
    assert written.read_text() == export(clf, fmt, labels=True) + "\n"


def test_the_export_command_reads_a_rule_list_and_refuses_a_bad_file(tmp_path):
    path = tmp_path / "rl.json"
    RuleList([Rule("a", 1)], labels=("n", "y")).to_json(path)
    result = runner.invoke(app, ["export", str(path), "--format", "sql"])
    assert result.exit_code == 0 and '"a" = 1' in result.output
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"format": "fairlist.classifier", "version": 2}))
    result = runner.invoke(app, ["export", str(bad)])
    assert result.exit_code == 1 and "error: " in result.output
    result = runner.invoke(app, ["export", str(path), "--format", "xml"])
    assert result.exit_code == 2


def test_the_export_command_answers_in_json(raw_model, tmp_path):
    clf, _ = raw_model
    path = tmp_path / "model.json"
    clf.save(path)
    result = runner.invoke(app, ["export", str(path), "--format", "sql", "--json"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.output) == {"format": "sql", "text": export_sql(clf), "output": None}
    result = runner.invoke(app, ["export", str(tmp_path / "none.json"), "--json"])
    assert result.exit_code == 1 and json.loads(result.output)["exit_code"] == 1


@pytest.mark.parametrize(
    ("output", "message"),
    [
        (".", "--output . is a folder; give a file name in it"),
        ("{tmp}", "--output {tmp} is a folder; give a file name in it"),
        ("{tmp}/none/out.py", "--output {tmp}/none/out.py: the folder {tmp}/none does not exist"),
    ],
    ids=["dot", "folder", "no folder"],
)
def test_the_export_command_refuses_an_output_that_is_not_a_file(
    tmp_path, monkeypatch, output, message
):
    path = tmp_path / "rl.json"
    RuleList([Rule("a", 1)], labels=("n", "y")).to_json(path)
    monkeypatch.chdir(tmp_path)
    output, message = output.format(tmp=tmp_path), message.format(tmp=tmp_path)
    result = runner.invoke(app, ["export", str(path), "--output", output])
    assert result.exit_code == 1, result.output
    assert result.output.strip() == f"error: {message}"
    assert ".tmp" not in result.output and sorted(p.name for p in tmp_path.iterdir()) == ["rl.json"]


@pytest.mark.parametrize("where", ["folder", "no folder"])
def test_writing_a_file_names_the_file_not_a_temporary_one(tmp_path, where):
    from fairlist._json import write_text

    path = tmp_path if where == "folder" else tmp_path / "none" / "x.json"
    error = IsADirectoryError if where == "folder" else FileNotFoundError
    with pytest.raises(error, match=r"is a folder|the folder .* does not exist") as caught:
        write_text(path, "{}")
    assert ".tmp" not in str(caught.value)
    with pytest.raises(error):
        RuleList([Rule("a", 1)]).to_json(path)


def test_the_binarizers_terms_are_public_and_name_each_antecedent():
    """``Binarizer.terms_`` (what export reads, not the binarizer's private arrays): each
    output antecedent's kind and single antecedents spell its name, a loaded binarizer too."""
    frame = raw_frame(120).drop(columns=["sex", "label"])
    b = Binarizer(numeric="quantile", n_bins=4, min_support=0.0).fit(frame)
    for fitted in (b, Binarizer.from_dict(b.to_dict())):
        singles = list(fitted.single_names_)
        spelled = {
            "single": lambda k, s=singles: s[k],
            "not": lambda k, s=singles: f"not {s[k]}",
            "and": lambda a, c, s=singles: f"{s[a]} && {s[c]}",
        }
        names = [spelled[kind](*parts) for kind, parts in fitted.terms_]
        assert names == list(fitted.get_feature_names_out())
        assert {kind for kind, _ in fitted.terms_} == {"single", "not", "and"}
    assert not hasattr(Binarizer(), "terms_")  # not fitted: no terms
