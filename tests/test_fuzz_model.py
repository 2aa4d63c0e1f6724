"""Fuzzing model files: any document gives a model or one error line, never a traceback.

Documents start from real saved models (0/1 antecedents, and raw columns with a binarizer) and
are mutated anywhere: a key dropped, a value replaced by another JSON type or nested one level
deeper or shallower, a list cut, extended or reordered, a number made huge, negative, NaN or
infinite, a string replaced by another of the document or by random text; arbitrary JSON and
arbitrary bytes too. For each, the library (``from_dict``) raises only fairlist's errors, and
``fairlist show`` / ``fairlist predict`` exit 1 with a single ``error: ...`` line. A document
that loads is its model: it saves back to the same document (normalized), and it predicts, on a
fixed table, what its own rule list and counts give.
"""

from __future__ import annotations

import json
import math
import random
from collections.abc import Mapping

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from fairlist._json import dumps
from fairlist.binarize import LATER_PARAMETERS, Binarizer
from fairlist.cli import app
from fairlist.errors import FairlistError
from fairlist.estimator import FairRuleListClassifier
from fairlist.metrics import Metric

runner = CliRunner()


def fuzz(examples: int) -> settings:
    """Deterministic runs of ``examples`` documents, with no time limit per example."""
    return settings(
        max_examples=examples,
        derandomize=True,
        deadline=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
        database=None,
    )


# --------------------------------------------------------------------------- the models
@pytest.fixture(scope="module")
def models(tmp_path_factory):
    """Two saved models with the tables they predict (fitted once for the module)."""
    folder = tmp_path_factory.mktemp("fuzz")
    rng = np.random.default_rng(0)
    n = 120
    X = pd.DataFrame((rng.random((n, 4)) < 0.4).astype(int), columns=["a", "b", "c", "d"])
    y = ((X["a"] | X["b"]) ^ (rng.random(n) < 0.1)).astype(int)
    g = (rng.random(n) < 0.5).astype(int)
    binary = FairRuleListClassifier(engine="cpsat", max_length=2, time_limit=None)
    binary.fit(X, y, sensitive_features=g)
    X.assign(grp=g, label=y).to_csv(folder / "binary.csv", index=False)
    raw = pd.DataFrame(
        {
            "age": rng.integers(18, 70, 200),
            "job": rng.choice(["a", "b"], 200),
            "sex": rng.choice(["F", "M"], 200),
        }
    )
    hired = np.where((raw["age"] < 35) ^ (rng.random(200) < 0.1), "yes", "no")
    with_binarizer = FairRuleListClassifier(engine="cpsat", max_length=2, time_limit=None)
    with_binarizer.fit(raw, hired, sensitive_features="sex")
    raw.assign(hired=hired).to_csv(folder / "raw.csv", index=False)
    return {
        "binary": (json.loads(dumps(binary.to_dict())), X, folder / "binary.csv"),
        "raw": (json.loads(dumps(with_binarizer.to_dict())), raw, folder / "raw.csv"),
        "folder": folder,
    }


# --------------------------------------------------------------------------- mutations
SPECIAL = st.sampled_from(
    [
        None,
        True,
        False,
        0,
        1,
        -1,
        2,
        3,
        0.5,
        -0.0,
        1e308,
        10**20,
        10**400,
        "",
        "x",
        [],
        {},
        float("nan"),
        float("inf"),
        float("-inf"),
    ]
)
SCALARS = st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=8) | SPECIAL
JSON = st.recursive(
    SCALARS,
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner, max_size=4)
    ),
    max_leaves=8,
)
OPERATIONS = ("drop", "replace", "wrap", "unwrap", "cut", "extend", "swap", "number", "string")


def paths(value, prefix=()):
    """Every path (a tuple of keys and indices) into a JSON value, the root included."""
    yield prefix
    if isinstance(value, dict):
        for k, v in value.items():
            yield from paths(v, (*prefix, k))
    elif isinstance(value, list):
        for k, v in enumerate(value):
            yield from paths(v, (*prefix, k))


def strings(value):
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for v in value.values():
            yield from strings(v)
    elif isinstance(value, list):
        for v in value:
            yield from strings(v)


@st.composite
def mutated(draw, base):
    """``base`` after one to three random mutations."""
    doc = json.loads(json.dumps(base))
    pick = random.Random(draw(st.integers(0, 2**32)))  # uniform over paths, not the first ones
    for _ in range(draw(st.integers(1, 3))):
        path = pick.choice(list(paths(doc))[1:] or [()])  # the root: see the arbitrary JSON
        op = pick.choice(OPERATIONS)
        parent = doc
        for key in path[:-1]:
            parent = parent[key]
        value = parent[path[-1]] if path else doc
        if op == "drop" and path:
            del parent[path[-1]]
            continue
        if op == "wrap":
            new = draw(st.sampled_from([[value], {"value": value}]))
        elif op == "unwrap" and isinstance(value, (dict, list)) and value:
            new = draw(st.sampled_from(list(value.values() if isinstance(value, dict) else value)))
        elif op == "cut" and isinstance(value, list):
            new = value[: draw(st.integers(0, max(0, len(value) - 1)))]
        elif op == "extend" and isinstance(value, list):
            extra = draw(st.sampled_from(value) if value else JSON)
            new = value + [json.loads(json.dumps(extra))]
        elif op == "swap" and isinstance(value, list) and len(value) > 1:
            i, j = draw(st.lists(st.integers(0, len(value) - 1), min_size=2, max_size=2))
            new = list(value)
            new[i], new[j] = new[j], new[i]
        elif op == "number" and isinstance(value, (int, float)) and not isinstance(value, bool):
            third = [value / 3] if not isinstance(value, int) or abs(value) < 2**1000 else []
            new = draw(
                st.sampled_from([value + 1, value - 1, -value, value * 2, 0] + third)
                | st.integers()
                | st.floats()
                | SPECIAL
            )
        elif op == "string" and isinstance(value, str):
            new = draw(st.sampled_from(sorted(set(strings(doc)))) | st.text(max_size=8))
        else:
            new = draw(JSON)
        if path:
            parent[path[-1]] = new
        else:
            doc = new
    return doc


# --------------------------------------------------------------------------- the properties
def load_or_refuse(doc):
    """The model of ``doc``, or None when it is refused with one line of a fairlist error."""
    try:
        return FairRuleListClassifier.from_dict(doc)
    except FairlistError as exc:
        assert str(exc) and "\n" not in str(exc), repr(exc)
        return None


def normalized(doc):
    """What ``to_dict`` writes for a document it accepted: version 2 with version 1's missing
    fields filled, every parameter (with its default; a fitted binarizer's parameters added since
    0.2, ``LATER_PARAMETERS``, too), metric names in full, the statistics'
    certified length equal to the field, this fairlist's version, and metadata only when there
    is some."""
    doc = json.loads(dumps(doc))
    if doc["version"] == 1:
        doc.update(version=2, sensitive_columns=doc.get("sensitive_columns", []))
        doc.setdefault("binarizer", None)
        doc.setdefault("groups", None)
        doc["training"].setdefault("certified_length", None)
    doc.pop("fairlist_version")
    params = {**FairRuleListClassifier().get_params(), **doc["params"]}
    params["metric"] = Metric.parse(params["metric"]).name.lower()
    if isinstance(params["binarizer"], Mapping):
        params["binarizer"] = {
            "Binarizer": {**Binarizer().get_params(), **params["binarizer"]["Binarizer"]}
        }
    doc["params"] = params
    fitted = doc.get("binarizer")
    if isinstance(fitted, Mapping) and isinstance(fitted.get("params"), Mapping):
        defaults = Binarizer().get_params()  # parameters added since: optional, their defaults
        for name in LATER_PARAMETERS:
            fitted["params"].setdefault(name, defaults[name])
        fitted.setdefault("id_columns", [])  # (written since 0.3; absent: none left out)
    doc["training"]["metric"] = Metric.parse(doc["training"]["metric"]).name.lower()
    training, stats = doc["training"], doc["training"]["stats"]
    # one certificate: the engine statistics repeat the field (older files' count was partial)
    if training.get("certified_length") is not None or "certified_length" in stats:
        stats["certified_length"] = training.get("certified_length")
    if "n_classes" in stats and "n_sample_classes" not in stats:  # its name before 0.2
        stats["n_sample_classes"] = stats.pop("n_classes")
    if not doc.get("metadata"):
        doc.pop("metadata", None)
    return doc


def assert_same(a, b, where=""):
    """Equal JSON values, numbers to 1e-12 (an integer may come back as a float)."""
    if (
        isinstance(a, (int, float))
        and isinstance(b, (int, float))
        and not (isinstance(a, bool) or isinstance(b, bool))
    ):
        same = a == b if isinstance(a, int) and isinstance(b, int) else math.isclose(a, b)
        assert same, (where, a, b)
    elif isinstance(a, dict) and isinstance(b, dict):
        assert sorted(a) == sorted(b), (where, sorted(a), sorted(b))
        for k in a:
            assert_same(a[k], b[k], f"{where}.{k}")
    elif isinstance(a, list) and isinstance(b, list):
        assert len(a) == len(b), (where, a, b)
        for k, (u, v) in enumerate(zip(a, b, strict=True)):
            assert_same(u, v, f"{where}[{k}]")
    else:
        assert a == b and type(a) is type(b), (where, a, b)


def expected_predictions(doc, X):
    """Classes and positive rates recomputed from the document's own rule list and counts."""
    rl = doc["rule_list"]
    if doc.get("binarizer"):
        antecedents = Binarizer.from_dict(doc["binarizer"]).transform(X.drop(columns="sex"))
        columns = antecedents.to_numpy().astype(bool)
    elif "feature_names_in" in doc:  # read by name
        columns = X[rl["feature_names"]].to_numpy().astype(bool)
    else:  # read by position
        columns = X.to_numpy().astype(bool)
    index = {name: j for j, name in enumerate(rl["feature_names"])}
    fired = np.full(len(X), len(rl["rules"]))
    for k in reversed(range(len(rl["rules"]))):
        fired[columns[:, index[rl["rules"][k]["antecedent"]]]] = k
    outputs = np.array([r["prediction"] for r in rl["rules"]] + [rl["default"]])
    n, pos = np.asarray(doc["rule_n_samples"], float), np.asarray(doc["rule_n_positive"], float)
    with np.errstate(invalid="ignore", divide="ignore"):
        rates = np.where(n > 0, pos / np.where(n > 0, n, 1), outputs)
    return np.asarray(doc["classes"])[outputs[fired]], rates[fired]


def check_document(doc, X):
    """The library's side: refused in one line, or loaded as the document says."""
    clf = load_or_refuse(doc)
    if clf is None:
        return None
    assert_same(normalized(clf.to_dict()), normalized(doc))
    try:
        predicted, proba = clf.predict(X), clf.predict_proba(X)
    except FairlistError:  # e.g. a column of X the mutated model does not read
        return None
    classes, rates = expected_predictions(doc, X)
    np.testing.assert_array_equal(predicted, classes)
    np.testing.assert_allclose(proba[:, 1], rates, rtol=1e-12)
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)
    return predicted


def check_cli(folder, doc, data, predicted):
    """The command line's side: ``show`` and ``predict`` answer, or exit 1 with one line."""
    path = folder / "fuzzed.json"
    path.write_text(doc if isinstance(doc, str) else json.dumps(doc), encoding="utf-8")
    shown = runner.invoke(app, ["show", str(path)])
    out = runner.invoke(app, ["predict", str(path), str(data), "--json"])
    for result in (shown, out):
        if result.exit_code == 0:
            continue
        assert result.exit_code == 1 and isinstance(result.exception, SystemExit), (
            result.output,
            result.exception,
        )
        lines = result.output.strip().splitlines()
        assert len(lines) == 1, result.output
        if result is out:  # under --json the line is {"error": ..., "exit_code": 1}
            assert json.loads(lines[0])["exit_code"] == 1
        else:
            assert lines[0].startswith("error: "), result.output
    if isinstance(doc, Mapping) and doc.get("format") != "fairlist.rule_list":
        assert (shown.exit_code == 0) == (load_or_refuse(doc) is not None), shown.output
    if (
        out.exit_code == 0
        and predicted is not None
        and len(predicted) == json.loads(out.stdout)["n_samples"]
    ):
        got = [row["prediction"] for row in json.loads(out.stdout)["predictions"]]
        assert got == predicted.tolist()


@pytest.mark.parametrize("which", ["binary", "raw"])
@fuzz(150)
@given(data=st.data())
def test_a_mutated_model_loads_as_itself_or_is_refused_in_one_line(models, which, data):
    base, X, _ = models[which]
    check_document(data.draw(mutated(base)), X)


@fuzz(100)
@given(doc=JSON)
def test_arbitrary_json_is_refused_in_one_line(doc):
    assert load_or_refuse(doc) is None


@pytest.mark.parametrize("which", ["binary", "raw"])
@fuzz(20)
@given(data=st.data())
def test_show_and_predict_answer_a_mutated_model_or_exit_1_in_one_line(models, which, data):
    base, X, csv = models[which]
    doc = data.draw(mutated(base))
    predicted = check_document(doc, X)
    check_cli(models["folder"], doc, csv, predicted)


@fuzz(15)
@given(
    text=st.binary(max_size=40)
    | st.text(max_size=40).map(str.encode)
    | JSON.map(lambda v: json.dumps(v).encode())
)
def test_show_and_predict_answer_any_file_in_one_line(models, text):
    path = models["folder"] / "any.json"
    path.write_bytes(text)
    for args in (["show", str(path)], ["predict", str(path), str(models["binary"][2])]):
        result = runner.invoke(app, args)
        assert result.exit_code == 1 and isinstance(result.exception, SystemExit), result.output
        assert result.output.strip().count("\n") == 0 and result.output.startswith("error: ")


@pytest.mark.slow
@pytest.mark.parametrize("which", ["binary", "raw"])
@fuzz(3000)
@given(data=st.data())
def test_many_mutated_models_load_as_themselves_or_are_refused(models, which, data):
    base, X, _ = models[which]
    check_document(data.draw(mutated(base)), X)
