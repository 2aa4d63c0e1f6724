"""The model file: the JSON schemas of a saved model and of a saved rule list, checked in one place.

A model file (``fairlist.classifier``, written by
:meth:`~fairlist.estimator.FairRuleListClassifier.save`) and a rule-list file
(``fairlist.rule_list``, written by :meth:`~fairlist.rulelist.RuleList.to_json`) are read back
through :func:`check_model` and :func:`check_rule_list`, and nowhere else: ``load``,
``from_dict``, ``fairlist show`` and ``fairlist predict`` therefore accept and refuse the same
documents. The check is strict, because a file is edited, truncated or written by another
version, and a model that loads must predict what was saved:

* ``format`` names the document, ``version`` is one this fairlist reads (a newer one asks for
  an upgrade);
* every field has its JSON type (integers are integers, numbers are finite, names are
  strings), required fields are present and no field is unknown;
* the parts agree: two distinct classes, named by the rule list's labels; one count per rule
  and the default; the groups' counts add up to them; every antecedent is one of the feature
  names; the binarizer's output is the rule list's feature names; the training accuracy is the
  one the counts give;
* the figures do not contradict each other (:mod:`fairlist.model_file_agreement`): the
  objective, each group's positive rate, true and false positive rates, and the unfairness are
  recomputed from the counts and rates they come from; the lower bound is not above the
  objective; an ``optimal`` status has stop reason ``completed``; the metric is the
  parameters' and the unfairness meets the file's own cap; a model fitted on an array names its
  columns ``x0, x1, …`` in order (it reads them by position).

The schema is written with the cursor of :mod:`fairlist.model_file_cursor`; a fitted binarizer's
document, the part of a model that binarizes raw rows, is checked by
:mod:`fairlist.model_file_binarizer`.

A refused document raises :class:`~fairlist.errors.ModelFileError`, one line that names the
file (when there is one) and the JSON path of the bad field, e.g. ``model.json:
'rule_n_samples' has 1 entry, expected 3 (one per rule and the default)`` or ``model.json:
'training.lower_bound' 0.5 is above the objective 0.43``.

The checks return the document normalized (version 1's missing fields filled with their
defaults), for the classes to build themselves from without further checks.
"""

from __future__ import annotations

import numbers
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from ._json import read_json
from .errors import ModelFileError
from .metric_table import RATES
from .model_file_agreement import check_agreement
from .model_file_binarizer import check_binarizer, check_binarizer_params
from .model_file_cursor import At, Doc, format_and_version, n_entries, nearly_equal, shorten

__all__ = [
    "MODEL_FORMAT",
    "MODEL_VERSION",
    "RULE_LIST_FORMAT",
    "RULE_LIST_VERSION",
    "check_model",
    "check_rule_list",
    "read_document",
]

MODEL_FORMAT = "fairlist.classifier"
MODEL_VERSION = 2  # 2: the fitted binarizer and the sensitive columns (1 is still read)
RULE_LIST_FORMAT = "fairlist.rule_list"
RULE_LIST_VERSION = 1

#: The per-group rates of ``groups.rates`` (each a list, one entry a group).
_RATES = tuple(RATES)


def read_document(path: str | Path) -> Any:
    """The JSON document in ``path`` (a missing file or invalid JSON is an error naming it)."""
    return read_json(path, "model file", ModelFileError)


# --------------------------------------------------------------------------- the rule list
def check_rule_list(
    doc: Any, source: str | Path | None = None, *, error: type[ModelFileError] = ModelFileError
) -> dict[str, Any]:
    """A rule-list document checked against its schema (see the module docstring).

    Returns ``{"rules": [(antecedent, prediction), ...], "default", "labels",
    "feature_names"}`` (``labels`` and ``feature_names`` None when absent). ``source`` names
    the file in messages; ``error`` is the class raised (a :class:`ModelFileError`).
    """
    return _rule_list(At(doc, "", Doc(source, "rule-list document", error)))


def _rule_list(at: At, in_model: bool = False) -> dict[str, Any]:
    """A rule list; in a model it has feature names, and its antecedents are among them (a
    model reads arrays by position; a bare rule list may compose ``a && b`` on a DataFrame)."""
    format_and_version(at, RULE_LIST_FORMAT, (RULE_LIST_VERSION,), "rule list")
    required = ["format", "version", "rules", "default"]
    optional = ["labels", "feature_names"]
    if in_model:
        required, optional = required + optional, []
    at.obj(required, optional)
    rules, seen = [], {}
    for item in at.child("rules").items("a list of rules"):
        item.obj(["antecedent", "prediction"])
        antecedent = item.child("antecedent").string()
        if antecedent in seen:
            item.child("antecedent").fail(
                f"is {antecedent!r}, which rule {seen[antecedent]} already tests: an antecedent "
                "appears twice in the rule list"
            )
        seen[antecedent] = len(rules)
        rules.append((antecedent, _prediction(item.child("prediction"))))
    default = _prediction(at.child("default"))
    labels = None
    if at.has("labels"):
        labels = at.child("labels").names(length=2, why="the names of the predictions 0 and 1")
    feature_names = None
    if at.has("feature_names"):
        names_at = at.child("feature_names")
        feature_names = names_at.names()
        known = set(feature_names) if in_model else {a for a, _ in rules}
        for k, (antecedent, _) in enumerate(rules):
            if antecedent not in known:
                at.child("rules").items()[k].child("antecedent").fail(
                    f"is {antecedent!r}, which is not one of {names_at.name}"
                )
    return {"rules": rules, "default": default, "labels": labels, "feature_names": feature_names}


def _prediction(at: At) -> int:
    value = at.value
    if not isinstance(value, numbers.Integral) or isinstance(value, bool) or value not in (0, 1):
        at.wrong("0 or 1")
    return int(at.value)


# --------------------------------------------------------------------------- the model
#: The fields of a model document, by version (required, optional).
_MODEL_FIELDS = {
    1: (
        [
            "format",
            "version",
            "fairlist_version",
            "params",
            "classes",
            "n_features_in",
            "rule_list",
            "rule_n_samples",
            "rule_n_positive",
            "training",
        ],
        ["feature_names_in", "groups", "metadata"],
    ),
    2: (
        [
            "format",
            "version",
            "fairlist_version",
            "params",
            "classes",
            "n_features_in",
            "rule_list",
            "rule_n_samples",
            "rule_n_positive",
            "sensitive_columns",
            "groups",
            "binarizer",
            "training",
        ],
        ["feature_names_in", "metadata"],
    ),
}
_TRAINING_FIELDS = [
    "status",
    "objective",
    "lower_bound",
    "accuracy",
    "unfairness",
    "metric",
    "engine",
    "search_space",
    "stop_reason",
    "stats",
]


def check_model(
    doc: Any,
    source: str | Path | None = None,
    *,
    parameters: Mapping[str, Sequence[Any]],
    defaults: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """A model document checked against its schema (see the module docstring).

    ``parameters`` is the estimator's declared table of parameter constraints and ``defaults``
    its parameters' defaults, for a document that omits some (the estimator hands them in: the
    schema knows no estimator, so the two do not import each other).

    Returns the document normalized: ``rule_list`` as :func:`check_rule_list` returns it, a
    version-1 document's missing fields filled (``sensitive_columns`` empty, ``groups``,
    ``binarizer`` and ``training.certified_length`` None, ``metadata`` empty). ``source``
    names the file in messages.
    """
    at = At(doc, "", Doc(source, "model document", ModelFileError))
    version = format_and_version(at, MODEL_FORMAT, tuple(_MODEL_FIELDS), "model file")
    at.obj(*_MODEL_FIELDS[version])
    out: dict[str, Any] = {"version": version}
    out["fairlist_version"] = at.child("fairlist_version").string()
    out["params"] = _params(at.child("params"), parameters)
    out["classes"] = classes = _classes(at.child("classes"))
    rl_at = at.child("rule_list")
    out["rule_list"] = rl = _rule_list(rl_at, in_model=True)
    if rl["labels"] != [str(c) for c in classes]:
        rl_at.child("labels").fail(
            f"is {rl['labels']!r}, expected the classes as text, {[str(c) for c in classes]!r}"
        )
    k = len(rl["rules"]) + 1
    why = "one per rule and the default"
    n_at, pos_at = at.child("rule_n_samples"), at.child("rule_n_positive")
    out["rule_n_samples"] = n = [e.number(0) for e in n_at.items("a list of counts", k, why)]
    out["rule_n_positive"] = pos = [e.number(0) for e in pos_at.items("a list of counts", k, why)]
    for r, entry in enumerate(pos_at.items()):
        if pos[r] > n[r] and not nearly_equal(pos[r], n[r]):
            entry.fail(f"is {pos[r]!r}, more than the rule's {n[r]!r} samples ('rule_n_samples')")
    if not sum(n) > 0:
        n_at.fail("adds up to 0, expected the training samples (a positive total)")
    _inputs(at, out, rl)
    groups_at = at.child("groups")  # null: a version-1 model that had none, saved again
    out["groups"] = None if groups_at.value is None else _groups(groups_at, n)
    out["training"] = _training(at.child("training"), rl, n, pos, version)
    out["metadata"] = dict(at.child("metadata").free()) if at.has("metadata") else {}
    check_agreement(at, out, defaults)
    return out


def _params(at: At, constraints: Mapping[str, Sequence[Any]]) -> dict[str, Any]:
    """The estimator's parameters: the known ones, each as its declaration allows (a missing
    one takes its default)."""
    at.obj([], list(constraints))
    params = {}
    for name in at.value:
        p = at.child(name)
        if name == "engine":  # a Solver instance is saved by its name
            params[name] = p.string()
        elif name == "engine_options":
            params[name] = None if p.value is None else dict(p.free())
        elif name == "binarizer" and isinstance(p.value, Mapping):
            p.obj(["Binarizer"])
            params[name] = {"Binarizer": check_binarizer_params(p.child("Binarizer"), pairs=False)}
        else:
            params[name] = p.declared(constraints[name])
    return params


def _classes(at: At) -> list[Any]:
    """Two distinct labels of one JSON type, in sorted order (``classes[1]`` is positive)."""
    items = at.items("a list of two class labels")
    if len(items) != 2:
        at.fail(f"has {n_entries(len(items))}, expected exactly 2 (a fairlist model is binary)")
    kinds = {type(i.value) for i in items}
    values = [i.value for i in items]
    if len(kinds) != 1 or not isinstance(values[0], (str, bool, int, float)):
        at.fail(f"is {shorten(values)}, expected two labels of one type (strings or numbers)")
    if isinstance(values[0], float):
        for i in items:
            i.number()
    if values[0] == values[1]:
        at.fail(f"holds {shorten(values[0])} twice, expected two distinct classes")
    if not values[0] < values[1]:
        at.fail(f"is {shorten(values)}, expected the two classes in sorted order")
    return values


def _inputs(at: At, out: dict[str, Any], rl: dict[str, Any]) -> None:
    """What ``predict`` reads: ``n_features_in``, ``feature_names_in``, the sensitive columns
    and the binarizer, consistent with each other and with the rule list's feature names."""
    n_at = at.child("n_features_in")
    out["n_features_in"] = n_in = n_at.integer(1)
    out["feature_names_in"] = names_in = None
    if at.has("feature_names_in"):
        names_at = at.child("feature_names_in")
        out["feature_names_in"] = names_in = names_at.names(
            length=n_in, why="'n_features_in', one per input column"
        )
    sens_at = at.child("sensitive_columns")
    out["sensitive_columns"] = sens = sens_at.names() if at.has("sensitive_columns") else []
    for k, name in enumerate(sens):
        if names_in is not None and name in names_in:
            sens_at.items()[k].fail(f"is {name!r}, also an input column: a group is never read")
    features = rl["feature_names"]
    features_at = at.child("rule_list").child("feature_names")
    b_at = at.child("binarizer")
    out["binarizer"] = None if b_at.value is None else check_binarizer(b_at)
    if out["binarizer"] is None:
        if len(features) != n_in:
            features_at.fail(
                f"has {n_entries(len(features))}, expected 'n_features_in' ({n_in}): the model "
                "reads its antecedents as input columns"
            )
        if names_in is not None and names_in != features:
            features_at.fail("differs from 'feature_names_in' (the input columns are antecedents)")
        return
    b = out["binarizer"]
    if len(b["feature_names_in"]) != n_in:
        b_at.child("feature_names_in").fail(
            f"has {n_entries(len(b['feature_names_in']))}, expected 'n_features_in' ({n_in})"
        )
    if names_in is not None:
        for c in b["columns"]:
            if c["name"] not in names_in:
                b_at.child("columns").fail(
                    f"reads column {c['name']!r}, which is not in 'feature_names_in'"
                )
    if b["names_out"] != features:
        features_at.fail(
            "differs from the antecedents the binarizer makes, in name or order (expected "
            f"{shorten(b['names_out'], 60)})"
        )


def _groups(at: At, n: list) -> dict[str, Any]:
    """The groups: their names, each rule's count per group (adding up to the rule's count) and
    each group's size and training rates."""
    at.obj(["names", "rule_n_samples", "rates"])
    names_at = at.child("names")
    names = names_at.names()
    if len(names) < 2:
        names_at.fail(f"has {n_entries(len(names))}, expected at least 2 (the groups compared)")
    g, counts_at = len(names), at.child("rule_n_samples")
    counts = []
    for r, row_at in enumerate(
        counts_at.items("a list of counts per group", len(n), "one per rule and the default")
    ):
        row = [e.number(0) for e in row_at.items("a list of counts", g, "one per group")]
        if not nearly_equal(sum(row), n[r]):
            row_at.fail(f"adds up to {sum(row)!r}, expected the rule's {n[r]!r} ('rule_n_samples')")
        counts.append(row)
    rates_at = at.child("rates")
    rates_at.obj(["group", "n_samples", *_RATES])
    why = "one per group"
    group_at = rates_at.child("group")
    if group_at.names(length=g, why=why) != names:
        group_at.fail(f"differs from {names_at.name}")
    rates: dict[str, Any] = {"group": names}
    sizes_at = rates_at.child("n_samples")
    rates["n_samples"] = sizes = [e.number(0) for e in sizes_at.items("a list", g, why)]
    for j, size in enumerate(sizes):
        total = sum(row[j] for row in counts)
        if not nearly_equal(size, total):
            sizes_at.items()[j].fail(f"is {size!r}, expected {total!r} (the group's counts)")
    for rate in _RATES:
        rates[rate] = [e.rate() for e in rates_at.child(rate).items("a list of rates", g, why)]
    return {"names": names, "rule_n_samples": counts, "rates": rates}


def _training(at: At, rl: dict[str, Any], n: list, pos: list, version: int) -> dict[str, Any]:
    """The training figures: status and certificate, objective and bound, accuracy (the one the
    counts give), unfairness, metric, engine statistics."""
    from .metrics import Metric
    from .status import StopReason

    certified = ["certified_length"]  # since version 2
    at.obj(_TRAINING_FIELDS + certified * (version > 1), certified * (version == 1))
    out: dict[str, Any] = {"status": at.child("status").choice(("optimal", "feasible"))}
    for name in ("objective", "lower_bound"):
        out[name] = at.child(name).number()
    out["accuracy"] = accuracy = at.child("accuracy").number(0, 1)
    out["unfairness"] = at.child("unfairness").number(0)
    metric_at = at.child("metric")
    try:
        out["metric"] = Metric.parse(metric_at.string()).name.lower()
    except ValueError:
        metric_at.fail(f"is {metric_at.value!r}, not a fairness metric")
    out["engine"] = at.child("engine").string()
    out["search_space"] = at.child("search_space").choice(("full", "majority"))
    out["stop_reason"] = at.child("stop_reason").choice([s.value for s in StopReason])
    out["stats"] = dict(at.child("stats").free())
    cert_at = at.child("certified_length")
    out["certified_length"] = cert_at.optional("integer", 0) if at.has("certified_length") else None
    stats = out["stats"]  # one certificate: the field; older files' engine count was partial
    if out["certified_length"] is not None or "certified_length" in stats:
        stats["certified_length"] = out["certified_length"]
    if "n_classes" in stats and "n_sample_classes" not in stats:  # its name before 0.2
        stats["n_sample_classes"] = stats.pop("n_classes")
    outputs = [p for _, p in rl["rules"]] + [rl["default"]]
    correct = sum(p if q == 1 else c - p for q, c, p in zip(outputs, n, pos, strict=True))
    if abs(correct / sum(n) - accuracy) > 1e-6:
        at.child("accuracy").fail(
            f"is {accuracy!r}, but the rules and their counts give {correct / sum(n)!r}"
        )
    return out
