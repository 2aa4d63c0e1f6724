"""Model and rule-list files are checked against one schema, the same in ``load``, ``from_dict``,
``fairlist show`` and ``fairlist predict``: a refused file gives one line naming the file and the
JSON path of the bad field; a file that is shown is one that predicts."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

from fairlist.cli import app
from fairlist.errors import DataError, ModelFileError
from fairlist.estimator import FairRuleListClassifier
from fairlist.rulelist import Rule, RuleList, RuleListFormatError

runner = CliRunner()


def binary_table(n: int = 120, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    X = (rng.random((n, 4)) < 0.4).astype(int)
    frame = pd.DataFrame(X, columns=["a", "b", "c", "d"])
    frame["grp"] = (rng.random(n) < 0.5).astype(int)
    frame["label"] = ((X[:, 0] | X[:, 1]) ^ (rng.random(n) < 0.1)).astype(int)
    return frame


def raw_table(n: int = 200, seed: int = 1) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    raw = pd.DataFrame(
        {
            "age": rng.integers(18, 70, n),
            "job": rng.choice(["a", "b"], n),
            "sex": rng.choice(["F", "M"], n),
        }
    )
    raw["hired"] = np.where((raw["age"] < 35) ^ (rng.random(n) < 0.1), "yes", "no")
    return raw


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    """A model of 0/1 antecedents (with the CSV it predicts) and a model with a binarizer."""
    folder = tmp_path_factory.mktemp("models")
    table = binary_table()
    table.to_csv(folder / "d.csv", index=False)
    clf = FairRuleListClassifier(engine="cpsat", max_length=2, time_limit=None)
    clf.fit(table[["a", "b", "c", "d"]], table["label"], sensitive_features=table["grp"])
    assert len(clf.rule_list_) >= 1
    raw = raw_table()
    raw_clf = FairRuleListClassifier(engine="cpsat", max_length=2, time_limit=None)
    raw_clf.fit(raw.drop(columns="hired"), raw["hired"], sensitive_features="sex")
    assert raw_clf.binarizer_ is not None
    return {"folder": folder, "doc": clf.to_dict(), "raw_doc": raw_clf.to_dict(), "table": table}


def write(folder, doc, name="model.json"):
    path = folder / name
    path.write_text(doc if isinstance(doc, str) else json.dumps(doc))
    return path


def mutated(doc, change):
    doc = json.loads(json.dumps(doc))  # as a file holds it
    change(doc)
    return doc


def one_error_line(args):
    """The CLI's answer to ``args``: exit 1 and a single ``error: ...`` line (its text)."""
    result = runner.invoke(app, [str(a) for a in args])
    assert result.exit_code == 1, result.output
    assert isinstance(result.exception, SystemExit), result.exception
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), result.output
    return lines[0][len("error: ") :]


def drop(key):
    return lambda d: d.pop(key)


def set_(key, value):
    return lambda d: d.__setitem__(key, value)


# The audit's cases (issue 17): each loaded, printed or predicted before, or died with a bare
# exception; now each is one line naming the file and the field.
AUDIT = {
    "rule_n_samples cut to one entry": (
        set_("rule_n_samples", [4]),
        "'rule_n_samples' has 1 entry, expected 3 (one per rule and the default)",
    ),
    "both count lists cut to one entry (predict_proba was [0.25, 0.75] for every row)": (
        lambda d: d.update(rule_n_samples=[4], rule_n_positive=[3]),
        "'rule_n_samples' has 1 entry, expected 3 (one per rule and the default)",
    ),
    "three classes": (
        set_("classes", [0, 1, 2]),
        "'classes' has 3 entries, expected exactly 2 (a fairlist model is binary)",
    ),
    "a future version": (
        set_("version", 3),
        "model file version 3 is newer than this fairlist (2) reads; upgrade fairlist",
    ),
    "one class (IndexError in predict)": (
        set_("classes", ["a"]),
        "'classes' has 1 entry, expected exactly 2 (a fairlist model is binary)",
    ),
    "no training (KeyError)": (drop("training"), "'training' is missing"),
    "no rule_n_samples (KeyError)": (drop("rule_n_samples"), "'rule_n_samples' is missing"),
    "feature_names 5 ('int' object is not iterable)": (
        lambda d: d["rule_list"].update(feature_names=5),
        "'rule_list.feature_names' is a number (5), expected a list of names",
    ),
    "feature_names_in 5": (
        set_("feature_names_in", 5),
        "'feature_names_in' is a number (5), expected a list of names",
    ),
}


@pytest.mark.parametrize("case", list(AUDIT))
def test_the_audits_model_files_are_refused_by_load(files, tmp_path, case):
    change, message = AUDIT[case]
    path = write(tmp_path, mutated(files["doc"], change))
    with pytest.raises(ModelFileError) as info:
        FairRuleListClassifier.load(path)
    assert str(info.value) == f"{path}: {message}"
    assert isinstance(info.value, DataError) and isinstance(info.value, ValueError)


@pytest.mark.parametrize("case", list(AUDIT))
def test_show_and_predict_refuse_the_audits_model_files_with_the_same_line(files, tmp_path, case):
    change, message = AUDIT[case]
    path = write(tmp_path, mutated(files["doc"], change))
    shown = one_error_line(["show", path])
    assert shown == f"{path}: {message}"
    assert one_error_line(["predict", path, files["folder"] / "d.csv"]) == shown


def test_from_dict_names_the_document_when_there_is_no_file(files):
    doc = mutated(files["doc"], set_("classes", [0, 1, 2]))
    with pytest.raises(ModelFileError, match=r"^model document: 'classes' has 3 entries"):
        FairRuleListClassifier.from_dict(doc)


@pytest.mark.parametrize("command", ["show", "predict"])
def test_a_file_that_is_not_json_is_named_with_the_line_and_column(files, tmp_path, command):
    path = write(tmp_path, '{\n  "format": "fairlist.classifier",\n  "version": 2,,\n}')
    args = [command, path] + ([files["folder"] / "d.csv"] if command == "predict" else [])
    assert one_error_line(args) == (
        f"{path} is not valid JSON (line 3, column 16): Expecting property name enclosed in "
        "double quotes"
    )


def test_load_of_a_file_that_is_not_json_is_a_model_file_error(tmp_path):
    path = write(tmp_path, "[1, 2")
    with pytest.raises(ModelFileError, match=r"is not valid JSON \(line 1, column 6\): "):
        FairRuleListClassifier.load(path)


# --------------------------------------------------------------------------- the schema
def rule(k):
    return lambda d: d["rule_list"]["rules"][k]


CASES = {
    "not an object": (lambda d: d.clear() or d.update(x=1), "'format' is missing"),
    "another format": (
        set_("format", "sklearn"),
        "not a fairlist model file: 'format' is 'sklearn', expected 'fairlist.classifier'",
    ),
    "version 0": (set_("version", 0), "'version' is 0, expected 1 or 2"),
    "version as text": (set_("version", "2"), "'version' is a string ('2'), expected an integer"),
    "an unknown field": (set_("trained", True), "'trained' is not a known field"),
    "an unknown training field": (
        lambda d: d["training"].update(seconds=1),
        "'training.seconds' is not a known field",
    ),
    "two equal classes": (set_("classes", [1, 1]), "'classes' holds 1 twice"),
    "classes of two types": (set_("classes", [0, "1"]), "expected two labels of one type"),
    "classes out of order": (set_("classes", [1, 0]), "expected the two classes in sorted order"),
    "labels that are not the classes": (
        lambda d: d["rule_list"].update(labels=["no", "yes"]),
        "'rule_list.labels' is ['no', 'yes'], expected the classes as text, ['0', '1']",
    ),
    "an antecedent that is not a feature": (
        lambda d: rule(0)(d).update(antecedent="zzz"),
        "'rule_list.rules[0].antecedent' is 'zzz', which is not one of 'rule_list.feature_names'",
    ),
    "a prediction of 2": (
        lambda d: rule(0)(d).update(prediction=2),
        "'rule_list.rules[0].prediction' is a number (2), expected 0 or 1",
    ),
    "a prediction of true": (
        lambda d: rule(0)(d).update(prediction=True),
        "'rule_list.rules[0].prediction' is a boolean (true), expected 0 or 1",
    ),
    "a negative count": (
        lambda d: d["rule_n_samples"].__setitem__(0, -1),
        "'rule_n_samples[0]' is -1, expected a number >= 0",
    ),
    "a count that is not finite": (
        lambda d: d["rule_n_positive"].__setitem__(0, float("nan")),
        "'rule_n_positive[0]' is nan, expected a finite number",
    ),
    "a huge count": (
        lambda d: d["rule_n_samples"].__setitem__(0, 10**40),
        "'rule_n_samples[0]' is 1e40, too large for a count",
    ),
    "more positives than samples": (
        lambda d: d["rule_n_positive"].__setitem__(0, d["rule_n_samples"][0] + 1),
        "'rule_n_positive[0]' is",
    ),
    "group counts that do not add up": (
        lambda d: d["groups"]["rule_n_samples"][0].__setitem__(0, 0),
        "'groups.rule_n_samples[0]' adds up to",
    ),
    "a group rate above 1": (
        lambda d: d["groups"]["rates"]["tpr"].__setitem__(0, 1.5),
        "'groups.rates.tpr[0]' is 1.5, expected a number in [0, 1]",
    ),
    "a rule prediction flipped (the training accuracy no longer fits)": (
        lambda d: rule(0)(d).update(prediction=1 - rule(0)(d)["prediction"]),
        "'training.accuracy' is",
    ),
    "a status a model cannot have": (
        lambda d: d["training"].update(status="infeasible"),
        "'training.status' is 'infeasible', expected one of 'optimal', 'feasible'",
    ),
    "an unknown metric": (
        lambda d: d["training"].update(metric="accuracy"),
        "'training.metric' is 'accuracy', not a fairness metric",
    ),
    "a parameter out of range": (
        lambda d: d["params"].update(lam=-1),
        "'params.lam' is a number (-1), expected 'auto' or a real number in [0, inf)",
    ),
    "an unknown parameter": (
        lambda d: d["params"].update(alpha=1),
        "'params.alpha' is not a known field",
    ),
    "fewer input columns than their names": (
        set_("n_features_in", 3),
        "'feature_names_in' has 4 entries, expected 3 ('n_features_in', one per input column)",
    ),
    "fewer input columns than antecedents": (
        lambda d: d.pop("feature_names_in") and d.update(n_features_in=3),
        "'rule_list.feature_names' has 4 entries, expected 'n_features_in' (3)",
    ),
    "a sensitive column that is an input": (
        set_("sensitive_columns", ["a"]),
        "'sensitive_columns[0]' is 'a', also an input column",
    ),
}


@pytest.mark.parametrize("case", list(CASES))
def test_every_field_is_checked(files, case):
    change, message = CASES[case]
    with pytest.raises(ModelFileError) as info:
        FairRuleListClassifier.from_dict(mutated(files["doc"], change))
    assert message in str(info.value)
    assert "\n" not in str(info.value)


BINARIZER_CASES = {
    "no binarizer version": (
        lambda b: b.pop("version"),
        "'binarizer.version' is missing",
    ),
    "a newer binarizer": (
        lambda b: b.update(version=2),
        "'binarizer': binarizer version 2 is newer than this fairlist (1) reads",
    ),
    "cut points out of order": (
        lambda b: b["columns"][0].update(cut_points=[40.0, 30.0]),
        "'binarizer.columns[0].cut_points' is [40.0, 30.0], expected strictly increasing",
    ),
    "names that are not the cut points'": (
        lambda b: b["columns"][0].update(cut_points=[36.0]),
        "'binarizer.columns[0].names' is",
    ),
    "an index past the single antecedents": (
        lambda b: b["single_keep"].__setitem__(0, 99),
        "'binarizer.single_keep[0]' is 99, expected an integer in [0, 3]",
    ),
    "a column it was not fitted on": (
        lambda b: b["columns"][0].update(name="height"),
        "'binarizer.columns[0].name' is 'height', not one of the binarizer's",
    ),
    "one support too few": (
        lambda b: b["supports"].pop(),
        "'binarizer.supports' has",
    ),
    "an unknown parameter": (
        lambda b: b["params"].update(bins=3),
        "'binarizer.params.bins' is not a known field",
    ),
    "a parameter of the wrong type": (
        lambda b: b["params"].update(min_support="0.2"),
        "'binarizer.params.min_support' is a string ('0.2'), expected a real number in [0, 1]",
    ),
}


@pytest.mark.parametrize("case", list(BINARIZER_CASES))
def test_the_binarizer_of_a_model_is_checked(files, case):
    doc = files["raw_doc"]
    assert doc["binarizer"]["columns"][0]["name"] == "age"
    assert doc["binarizer"]["columns"][0]["cut_points"] == [35.0]
    change, message = BINARIZER_CASES[case]
    with pytest.raises(ModelFileError) as info:
        FairRuleListClassifier.from_dict(mutated(doc, lambda d: change(d["binarizer"])))
    assert message in str(info.value)


def test_the_binarizers_output_must_be_the_rule_lists_feature_names(files):
    def swap(d):
        names = d["rule_list"]["feature_names"]
        names[0], names[1] = names[1], names[0]

    with pytest.raises(ModelFileError, match="'rule_list.feature_names' differs from the "):
        FairRuleListClassifier.from_dict(mutated(files["raw_doc"], swap))


@pytest.mark.parametrize("which", ["doc", "raw_doc"])
def test_a_saved_model_round_trips_and_predicts_the_same(files, tmp_path, which):
    doc = files[which]
    path = write(tmp_path, doc)
    loaded = FairRuleListClassifier.load(path)
    assert json.loads(json.dumps(loaded.to_dict())) == json.loads(json.dumps(doc))
    original = FairRuleListClassifier.from_dict(doc)
    X = (
        files["table"][["a", "b", "c", "d"]]
        if which == "doc"
        else raw_table().drop(columns="hired")
    )
    np.testing.assert_array_equal(loaded.predict(X), original.predict(X))
    np.testing.assert_array_equal(loaded.predict_proba(X), original.predict_proba(X))


def test_a_version_1_model_still_loads(files):
    def to_v1(d):
        d["version"] = 1
        for key in ("sensitive_columns", "binarizer", "groups"):
            d.pop(key)
        d["training"].pop("certified_length")

    clf = FairRuleListClassifier.from_dict(mutated(files["doc"], to_v1))
    X = files["table"][["a", "b", "c", "d"]]
    np.testing.assert_array_equal(
        clf.predict(X), FairRuleListClassifier.from_dict(files["doc"]).predict(X)
    )
    assert clf.binarizer_ is None and clf.sensitive_columns_ == [] and clf.certified_length_ is None


def test_version_2_fields_are_required_in_a_version_2_model(files):
    with pytest.raises(ModelFileError, match="'groups' is missing"):
        FairRuleListClassifier.from_dict(mutated(files["doc"], drop("groups")))


# --------------------------------------------------------------------------- bare rule lists
def test_show_checks_a_bare_rule_list_as_strictly(files, tmp_path):
    doc = mutated(files["doc"], lambda d: None)["rule_list"]
    assert "if [" in runner.invoke(app, ["show", str(write(tmp_path, doc, "rl.json"))]).stdout
    cases = [
        (
            lambda r: r.update(version=2),
            "rule list version 2 is newer than this fairlist (1) reads; upgrade fairlist",
        ),
        (
            lambda r: r.update(feature_names=5),
            "'feature_names' is a number (5), expected a list of names",
        ),
        (
            lambda r: r.update(labels=["yes"]),
            "'labels' has 1 entry, expected 2 (the names of the predictions 0 and 1)",
        ),
        (lambda r: r["rules"][0].update(antecedent=""), "'rules[0].antecedent' is an empty string"),
        (lambda r: r.update(extra=[]), "'extra' is not a known field"),
    ]
    for change, message in cases:
        path = write(tmp_path, mutated(doc, change), "rl.json")
        assert one_error_line(["show", path]) == f"{path}: {message}"
        with pytest.raises(RuleListFormatError, match="^rule-list document: "):
            RuleList.from_dict(mutated(doc, change))


def test_a_rule_list_error_is_a_model_file_error():
    assert issubclass(RuleListFormatError, ModelFileError)


def test_show_prints_what_predict_uses(files, tmp_path):
    """A model that show prints is one that predict accepts, figures normalized."""
    path = write(tmp_path, files["doc"])
    shown = runner.invoke(app, ["show", str(path), "--json"])
    assert shown.exit_code == 0, shown.output
    training = json.loads(shown.stdout)["training"]
    assert training == json.loads(json.dumps(files["doc"]["training"]))
    predicted = runner.invoke(app, ["predict", str(path), str(files["folder"] / "d.csv")])
    assert predicted.exit_code == 0, predicted.output


def test_a_bare_rule_list_may_test_a_conjunction_of_its_feature_names():
    """On a DataFrame a rule list composes ``a && b`` from its columns, so a saved rule list
    (unlike a model, which reads arrays by position) need not list it among its names."""
    rl = RuleList([Rule("a && b", 1)], 0, feature_names=["a", "b"])
    assert RuleList.from_dict(rl.to_dict()) == rl
    frame = pd.DataFrame({"a": [1, 1, 0], "b": [1, 0, 1]})
    assert RuleList.from_dict(rl.to_dict()).predict(frame).tolist() == [1, 0, 0]


def test_a_write_that_fails_midway_leaves_the_old_file_whole(tmp_path):
    """Model, rule-list and front files are written atomically (a temporary file renamed over
    the old one): a write stopped midway (here a text UTF-8 cannot encode; a second signal or a
    full disk alike) leaves the previous file as it was and no temporary file behind."""
    from fairlist._json import write_text

    target = tmp_path / "model.json"
    write_text(target, '{"old": true}\n')
    plain = tmp_path / "plain.json"
    plain.write_text("x", encoding="utf-8")
    assert target.stat().st_mode == plain.stat().st_mode  # the permissions open() gives
    with pytest.raises(UnicodeEncodeError):
        write_text(target, '{"new": "\udcff"}\n')
    assert target.read_text(encoding="utf-8") == '{"old": true}\n'
    assert sorted(p.name for p in tmp_path.iterdir()) == ["model.json", "plain.json"]


# --------------------------------------------------------------------------- the certificate
def test_the_certificate_is_one_value_in_the_estimator_and_the_file(files, tmp_path):
    """``certified_length_`` and ``stats_["certified_length"]`` agree (an optimal list certifies
    every length; the engine's count was its length deepening's only), before and after a save;
    an older file's contradicting statistic reads as the field."""
    table = files["table"]
    clf = FairRuleListClassifier(max_length=2, time_limit=None)
    clf.fit(table[["a", "b", "c", "d"]], table["label"], sensitive_features=table["grp"])
    assert clf.status_ == "optimal" and clf.certified_length_ == 2
    assert clf.stats_["certified_length"] == 2 == clf.result_.stats["certified_length"]
    assert "n_classes" not in clf.stats_ and clf.stats_["n_sample_classes"] >= 2
    doc = clf.to_dict()
    assert doc["training"]["stats"]["certified_length"] == doc["training"]["certified_length"]

    def older(d):  # as fairlist 0.1 wrote it: the engine's 0 and the old name
        d["training"]["stats"]["certified_length"] = 0
        d["training"]["stats"]["n_classes"] = d["training"]["stats"].pop("n_sample_classes")

    loaded = FairRuleListClassifier.load(write(tmp_path, mutated(doc, older)))
    assert loaded.certified_length_ == 2 == loaded.stats_["certified_length"]
    assert loaded.stats_["n_sample_classes"] == clf.stats_["n_sample_classes"]
    assert "n_classes" not in loaded.stats_


# --------------------------------------------------------------------------- contradictions
def training(**fields):
    return lambda d: d["training"].update(fields)


def shift(path, k, delta):
    """Add ``delta`` to ``groups.rates.<path>[k]``."""
    return lambda d: d["groups"]["rates"][path].__setitem__(
        k, d["groups"]["rates"][path][k] + delta
    )


def swap_feature_names(d):
    names = d["rule_list"]["feature_names"]
    names[0], names[1] = names[1], names[0]


# Fields that each pass the schema but contradict another field (issue 25): each loaded, was
# shown and predicted silently; now refused, naming the field.
CONTRADICTIONS = {
    "a lower bound above the objective": (
        lambda d: d["training"].update(lower_bound=d["training"]["objective"] + 0.1),
        "'training.lower_bound' {lower_bound!r} is above the objective {objective!r}",
    ),
    "status optimal, stopped by the time limit": (
        training(stop_reason="time_limit"),
        "'training.stop_reason' is 'time_limit', but the status is 'optimal'",
    ),
    "an objective the counts do not give": (
        lambda d: d["training"].update(objective=d["training"]["objective"] + 0.05),
        "'training.objective' is",
    ),
    "an unfairness the groups' rates do not give": (
        lambda d: d["training"].update(unfairness=d["training"]["unfairness"] + 0.05),
        "'training.unfairness' is",
    ),
    "an unfairness over the file's own cap": (
        lambda d: d["params"].update(epsilon=d["training"]["unfairness"] / 2),
        "'training.unfairness' {unfairness!r} is over the model's own cap, 'params.epsilon'",
    ),
    "a certified length over max_length": (
        training(certified_length=3),
        "'training.certified_length' is 3, over 'params.max_length' 2: no list of more than 2 "
        "rules was searched",
    ),
    "a certified length over the antecedents": (
        lambda d: d["training"].update(certified_length=5) or d["params"].update(max_length=9),
        "'training.certified_length' is 5, over the 4 antecedents ('rule_list.feature_names')",
    ),
    "a metric that is not the parameters'": (
        lambda d: d["params"].update(metric="predictive_parity"),
        "'training.metric' is 'statistical_parity', but 'params.metric' is 'predictive_parity'",
    ),
    "a group's positive rate changed": (
        shift("positive_rate", 0, 0.01),
        "'groups.rates.positive_rate[0]' is",
    ),
    "a group's true positive rate changed": (shift("tpr", 1, -0.01), "'groups.rates.tpr[1]' is"),
    "a group's predictive value changed": (shift("ppv", 0, -0.01), "'groups.rates."),
    "the predictive values swapped between the groups": (
        lambda d: d["groups"]["rates"].update(
            ppv=d["groups"]["rates"]["ppv"][::-1], npv=d["groups"]["rates"]["npv"][::-1]
        ),
        "'groups.rates.",
    ),
}


@pytest.mark.parametrize("case", list(CONTRADICTIONS))
def test_fields_that_contradict_each_other_are_refused(files, tmp_path, case):
    doc = files["doc"]
    assert doc["training"]["status"] == "optimal" and doc["training"]["unfairness"] > 0
    assert doc["params"]["epsilon"] is None and doc["training"]["metric"] == "statistical_parity"
    change, message = CONTRADICTIONS[case]
    bad = mutated(doc, change)
    message = message.format(**bad["training"])
    path = write(tmp_path, bad)
    with pytest.raises(ModelFileError) as info:
        FairRuleListClassifier.load(path)
    assert str(info.value).startswith(f"{path}: {message}"), str(info.value)
    assert one_error_line(["show", path]) == str(info.value)
    assert one_error_line(["predict", path, files["folder"] / "d.csv"]) == str(info.value)


def test_swapped_feature_names_of_an_array_fitted_model_are_refused(files, tmp_path):
    """An array-fitted model reads its antecedents by position: swapping two names changed
    its predictions silently."""
    table = files["table"]
    X = table[["a", "b", "c", "d"]].to_numpy()
    clf = FairRuleListClassifier(engine="cpsat", max_length=2, time_limit=None)
    clf.fit(X, table["label"], sensitive_features=table["grp"])
    doc = clf.to_dict()
    assert doc["rule_list"]["feature_names"] == ["x0", "x1", "x2", "x3"]
    assert FairRuleListClassifier.from_dict(mutated(doc, lambda d: None)).predict(X).tolist() == (
        clf.predict(X).tolist()
    )
    path = write(tmp_path, mutated(doc, swap_feature_names))
    with pytest.raises(ModelFileError) as info:
        FairRuleListClassifier.load(path)
    assert str(info.value) == (
        f"{path}: 'rule_list.feature_names' is ['x1', 'x0', 'x2', 'x3'], expected ['x0', 'x1', "
        "'x2', 'x3']: a model fitted on an array reads its columns by position"
    )


@pytest.mark.parametrize("which", ["doc", "raw_doc"])
def test_saved_models_agree_with_themselves(files, which):
    """Every model the estimator saves passes the agreement checks (weighted ones too)."""
    FairRuleListClassifier.from_dict(files[which])
    table = files["table"]
    weights = np.random.default_rng(0).integers(1, 4, len(table)) / 2
    for metric in ("EOdds", "CUAE", "PE"):
        clf = FairRuleListClassifier(metric=metric, epsilon=0.2, max_length=2, time_limit=None)
        clf.fit(
            table[["a", "b", "c", "d"]],
            table["label"],
            sensitive_features=table["grp"],
            sample_weight=weights,
        )
        FairRuleListClassifier.from_dict(json.loads(json.dumps(clf.to_dict())))
