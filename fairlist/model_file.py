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
* the figures do not contradict each other (:func:`_agreement`): the objective, each group's
  positive rate, true and false positive rates, and the unfairness are recomputed from the
  counts and rates they come from; the lower bound is not above the objective; an ``optimal``
  status has stop reason ``completed``; the metric is the parameters' and the unfairness meets
  the file's own cap; a model fitted on an array names its columns ``x0, x1, …`` in order (it
  reads them by position).

A refused document raises :class:`~fairlist.errors.ModelFileError`, one line that names the
file (when there is one) and the JSON path of the bad field, e.g. ``model.json:
'rule_n_samples' has 1 entry, expected 3 (one per rule and the default)`` or ``model.json:
'training.lower_bound' 0.5 is above the objective 0.43``.

The checks return the document normalized (version 1's missing fields filled with their
defaults), for the classes to build themselves from without further checks.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, NoReturn

from ._json import read_json
from .errors import ModelFileError
from .metric_table import RATES

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

#: The largest count a file may hold as an integer (numpy's int64).
_MAX_INT = 2**63 - 1
#: Relative tolerance when sums of (possibly weighted) counts are compared.
_RTOL = 1e-7
#: The per-group rates of ``groups.rates`` (each a list, one entry a group).
_RATES = tuple(RATES)


def read_document(path: str | Path) -> Any:
    """The JSON document in ``path`` (a missing file or invalid JSON is an error naming it)."""
    return read_json(path, "model file", ModelFileError)


# --------------------------------------------------------------------------- the cursor
class _Doc:
    """What a message needs beyond the path: the file (or what the document is) and the
    error class to raise."""

    def __init__(self, source: str | Path | None, what: str, error: type[ModelFileError]) -> None:
        self.prefix = f"{source}: " if source is not None else f"{what}: "
        self.error = error


class _At:
    """One value of the document and its JSON path, with the checks a schema is made of."""

    __slots__ = ("value", "path", "doc")

    def __init__(self, value: Any, path: str, doc: _Doc) -> None:
        self.value, self.path, self.doc = value, path, doc

    @property
    def name(self) -> str:
        return f"{self.path!r}" if self.path else "the document"

    def fail(self, what: str) -> NoReturn:
        raise self.doc.error(f"{self.doc.prefix}{self.name} {what}")

    def wrong(self, expected: str) -> NoReturn:
        self.fail(f"is {_kind(self.value)}, expected {expected}")

    # ------------------------------------------------------------ objects
    def obj(self, required: Sequence[str], optional: Sequence[str] = ()) -> _At:
        """An object with these required keys, and no key other than the optional ones."""
        if not isinstance(self.value, Mapping):
            self.wrong("a JSON object")
        for key in self.value:
            if key not in required and key not in optional:
                self.child(key).fail("is not a known field")
        for key in required:
            if key not in self.value:
                self.child(key).fail("is missing")
        return self

    def child(self, key: Any) -> _At:
        value = self.value.get(key) if isinstance(self.value, Mapping) else None
        path = f"{self.path}.{key}" if self.path else str(key)
        return _At(value, path, self.doc)

    def has(self, key: str) -> bool:
        return key in self.value

    # ------------------------------------------------------------ lists
    def items(self, expected: str = "a list", length: int | None = None, why: str = "") -> list:
        """The entries (each an ``_At``) of a list; ``length`` checks their number."""
        if not isinstance(self.value, (list, tuple)):
            self.wrong(expected)
        n = len(self.value)
        if length is not None and n != length:
            self.fail(f"has {_entries(n)}, expected {length}{f' ({why})' if why else ''}")
        return [_At(v, f"{self.path}[{k}]", self.doc) for k, v in enumerate(self.value)]

    def names(self, distinct: bool = True, **kw: Any) -> list[str]:
        """A list of non-empty strings, distinct unless told otherwise."""
        names = [item.string() for item in self.items("a list of names", **kw)]
        if distinct:
            _distinct(self, names)
        return names

    # ------------------------------------------------------------ scalars
    def string(self, nonempty: bool = True) -> str:
        if not isinstance(self.value, str):
            self.wrong("a string")
        if nonempty and not self.value.strip():
            self.fail("is an empty string")
        return self.value

    def choice(self, options: Sequence[str]) -> str:
        value = self.string()
        if value not in options:
            self.fail(f"is {value!r}, expected one of {', '.join(map(repr, options))}")
        return value

    def boolean(self) -> bool:
        if not isinstance(self.value, bool):
            self.wrong("true or false")
        return self.value

    def integer(self, lo: int | None = None, hi: int | None = None) -> int:
        value = self.value
        if not isinstance(value, numbers.Integral) or isinstance(value, bool):
            self.wrong("an integer")
        if (lo is not None and value < lo) or (hi is not None and value > hi):
            bounds = f">= {lo}" if hi is None else f"in [{lo}, {hi}]" if lo is not None else ""
            self.fail(f"is {value}, expected an integer {bounds or f'<= {hi}'}")
        return int(value)

    def number(self, lo: float | None = None, hi: float | None = None) -> float | int:
        """A finite number (an integer stays one, up to int64), in ``[lo, hi]`` when given."""
        value = self.value
        if not isinstance(value, numbers.Real) or isinstance(value, bool):
            self.wrong("a number")
        if isinstance(value, numbers.Integral):
            if abs(value) > _MAX_INT:
                self.fail(f"is {_short(value)}, too large for a count")
            value = int(value)
        elif not math.isfinite(value):
            self.fail(f"is {value}, expected a finite number")
        else:
            value = float(value)
        if (lo is not None and value < lo) or (hi is not None and value > hi):
            where = f">= {lo}" if hi is None else f"in [{lo}, {hi}]"
            self.fail(f"is {value!r}, expected a number {where}")
        return value

    def rate(self) -> float | None:
        """A rate in [0, 1], or null (a rate over no sample)."""
        return None if self.value is None else self.number(0, 1)

    def optional(self, check: str, *args: Any) -> Any:
        """``None`` for null, else the ``check`` method's value."""
        return None if self.value is None else getattr(self, check)(*args)


def _kind(value: Any) -> str:
    """A value as a message names it: its JSON type, and the value when it is short."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return f"a boolean ({'true' if value else 'false'})"
    if isinstance(value, str):
        return f"a string ({_short(value)})"
    if isinstance(value, numbers.Real):
        return f"a number ({_short(value)})"
    if isinstance(value, Mapping):
        return "an object"
    if isinstance(value, (list, tuple)):
        return f"a list of {_entries(len(value))}"
    return f"a {type(value).__name__}"


def _short(value: Any, width: int = 40) -> str:
    """``repr(value)``, cut to ``width`` characters (a huge integer by its order of magnitude)."""
    if isinstance(value, int) and abs(value) >= 10**30:
        return f"{'-' if value < 0 else ''}1e{len(str(abs(value))) - 1}"
    text = repr(value)
    return text if len(text) <= width else text[: width - 1] + "…"


def _entries(n: int) -> str:
    return f"{n} entr{'y' if n == 1 else 'ies'}"


def _distinct(at: _At, values: list) -> None:
    seen: set = set()
    for v in values:
        key = (type(v).__name__, v)
        if key in seen:
            at.fail(f"holds {_short(v)} twice, expected distinct values")
        seen.add(key)


def _close(a: float, b: float) -> bool:
    return abs(a - b) <= _RTOL * max(1.0, abs(a), abs(b))


def _format_and_version(at: _At, fmt: str, versions: Sequence[int], what: str) -> int:
    """``format`` is ``fmt`` and ``version`` one of ``versions`` (a newer one: upgrade fairlist)."""
    if not isinstance(at.value, Mapping):
        at.wrong(f"a JSON object (a fairlist {what})")
    fmt_at, version_at = at.child("format"), at.child("version")
    if fmt_at.value != fmt:
        found = f"is {_short(fmt_at.value)}" if at.has("format") else "is missing"
        if at.path:
            fmt_at.fail(f"{found}, expected {fmt!r}")
        raise at.doc.error(
            f"{at.doc.prefix}not a fairlist {what}: 'format' {found}, expected {fmt!r}"
        )
    if not at.has("version"):
        version_at.fail("is missing")
    number = version_at.integer()
    if number > max(versions):
        where = f"{at.name}: " if at.path else ""
        raise at.doc.error(
            f"{at.doc.prefix}{where}{what} version {number} is newer than this fairlist "
            f"({max(versions)}) reads; upgrade fairlist"
        )
    if number not in versions:
        version_at.fail(f"is {number}, expected {' or '.join(map(str, versions))}")
    return number


# --------------------------------------------------------------------------- the rule list
def check_rule_list(
    doc: Any, source: str | Path | None = None, *, error: type[ModelFileError] = ModelFileError
) -> dict[str, Any]:
    """A rule-list document checked against its schema (see the module docstring).

    Returns ``{"rules": [(antecedent, prediction), ...], "default", "labels",
    "feature_names"}`` (``labels`` and ``feature_names`` None when absent). ``source`` names
    the file in messages; ``error`` is the class raised (a :class:`ModelFileError`).
    """
    return _rule_list(_At(doc, "", _Doc(source, "rule-list document", error)))


def _rule_list(at: _At, in_model: bool = False) -> dict[str, Any]:
    """A rule list; in a model it has feature names, and its antecedents are among them (a
    model reads arrays by position; a bare rule list may compose ``a && b`` on a DataFrame)."""
    _format_and_version(at, RULE_LIST_FORMAT, (RULE_LIST_VERSION,), "rule list")
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


def _prediction(at: _At) -> int:
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
    at = _At(doc, "", _Doc(source, "model document", ModelFileError))
    version = _format_and_version(at, MODEL_FORMAT, tuple(_MODEL_FIELDS), "model file")
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
        if pos[r] > n[r] and not _close(pos[r], n[r]):
            entry.fail(f"is {pos[r]!r}, more than the rule's {n[r]!r} samples ('rule_n_samples')")
    if not sum(n) > 0:
        n_at.fail("adds up to 0, expected the training samples (a positive total)")
    _inputs(at, out, rl)
    groups_at = at.child("groups")  # null: a version-1 model that had none, saved again
    out["groups"] = None if groups_at.value is None else _groups(groups_at, n)
    out["training"] = _training(at.child("training"), rl, n, pos, version)
    out["metadata"] = dict(_free(at.child("metadata"))) if at.has("metadata") else {}
    _agreement(at, out, defaults)
    return out


def _free(at: _At) -> Mapping:
    """An object whose content is free (engine statistics, the user's metadata)."""
    if not isinstance(at.value, Mapping):
        at.wrong("a JSON object")
    return at.value


def _constraint(at: _At, allowed: Sequence[Any]) -> Any:
    """A parameter's value, accepted by one of its declared constraints (see ``_params``)."""
    from ._params import _describe

    value = at.value
    if isinstance(value, float) and not math.isfinite(value):
        at.fail(f"is {value}, expected a finite number")
    if isinstance(value, numbers.Integral) and abs(value) > _MAX_INT:
        at.fail(f"is {_short(value)}, too large")
    if any(value is None if c is None else c.accepts(value) for c in allowed):
        return value
    at.fail(f"is {_kind(value)}, expected {' or '.join(_describe(c) for c in allowed)}")


def _params(at: _At, constraints: Mapping[str, Sequence[Any]]) -> dict[str, Any]:
    """The estimator's parameters: the known ones, each as its declaration allows (a missing
    one takes its default)."""
    at.obj([], list(constraints))
    params = {}
    for name in at.value:
        p = at.child(name)
        if name == "engine":  # a Solver instance is saved by its name
            params[name] = p.string()
        elif name == "engine_options":
            params[name] = None if p.value is None else dict(_free(p))
        elif name == "binarizer" and isinstance(p.value, Mapping):
            p.obj(["Binarizer"])
            params[name] = {"Binarizer": _binarizer_params(p.child("Binarizer"), pairs=False)}
        else:
            params[name] = _constraint(p, constraints[name])
    return params


def _classes(at: _At) -> list[Any]:
    """Two distinct labels of one JSON type, in sorted order (``classes[1]`` is positive)."""
    items = at.items("a list of two class labels")
    if len(items) != 2:
        at.fail(f"has {_entries(len(items))}, expected exactly 2 (a fairlist model is binary)")
    kinds = {type(i.value) for i in items}
    values = [i.value for i in items]
    if len(kinds) != 1 or not isinstance(values[0], (str, bool, int, float)):
        at.fail(f"is {_short(values)}, expected two labels of one type (strings or numbers)")
    if isinstance(values[0], float):
        for i in items:
            i.number()
    if values[0] == values[1]:
        at.fail(f"holds {_short(values[0])} twice, expected two distinct classes")
    if not values[0] < values[1]:
        at.fail(f"is {_short(values)}, expected the two classes in sorted order")
    return values


def _column_name(at: _At) -> str | int:
    """A column name: a string, or an integer for an array's columns."""
    if isinstance(at.value, numbers.Integral) and not isinstance(at.value, bool):
        return at.integer()
    return at.string()


def _column_names(at: _At) -> list[Any]:
    """Distinct column names."""
    names = [_column_name(e) for e in at.items("a list of column names")]
    _distinct(at, names)
    return names


def _inputs(at: _At, out: dict[str, Any], rl: dict[str, Any]) -> None:
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
    out["binarizer"] = None if b_at.value is None else _binarizer(b_at)
    if out["binarizer"] is None:
        if len(features) != n_in:
            features_at.fail(
                f"has {_entries(len(features))}, expected 'n_features_in' ({n_in}): the model "
                "reads its antecedents as input columns"
            )
        if names_in is not None and names_in != features:
            features_at.fail("differs from 'feature_names_in' (the input columns are antecedents)")
        return
    b = out["binarizer"]
    if len(b["feature_names_in"]) != n_in:
        b_at.child("feature_names_in").fail(
            f"has {_entries(len(b['feature_names_in']))}, expected 'n_features_in' ({n_in})"
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
            f"{_short(b['names_out'], 60)})"
        )


def _groups(at: _At, n: list) -> dict[str, Any]:
    """The groups: their names, each rule's count per group (adding up to the rule's count) and
    each group's size and training rates."""
    at.obj(["names", "rule_n_samples", "rates"])
    names_at = at.child("names")
    names = names_at.names()
    if len(names) < 2:
        names_at.fail(f"has {_entries(len(names))}, expected at least 2 (the groups compared)")
    g, counts_at = len(names), at.child("rule_n_samples")
    counts = []
    for r, row_at in enumerate(
        counts_at.items("a list of counts per group", len(n), "one per rule and the default")
    ):
        row = [e.number(0) for e in row_at.items("a list of counts", g, "one per group")]
        if not _close(sum(row), n[r]):
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
        if not _close(size, total):
            sizes_at.items()[j].fail(f"is {size!r}, expected {total!r} (the group's counts)")
    for rate in _RATES:
        rates[rate] = [e.rate() for e in rates_at.child(rate).items("a list of rates", g, why)]
    return {"names": names, "rule_n_samples": counts, "rates": rates}


def _training(at: _At, rl: dict[str, Any], n: list, pos: list, version: int) -> dict[str, Any]:
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
    out["stats"] = dict(_free(at.child("stats")))
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


# --------------------------------------------------------------------------- agreement
#: Tolerance when a figure of the file is compared with what its counts give.
_ATOL = 1e-7


def _agreement(at: _At, out: dict[str, Any], defaults: Mapping[str, Any] | None) -> None:
    """The fields that must agree with each other: what the counts determine is recomputed
    (objective, groups' rates, unfairness), the certificate is possible, the training figures
    are those of the parameters (metric, cap), and an array-fitted model reads its columns by
    position (``x0, x1, …``)."""
    from .metrics import FEASIBILITY_TOL, METRIC_RATES, Metric

    train, train_at, rl = out["training"], at.child("training"), out["rule_list"]
    params = {**(defaults or {}), **out["params"]}  # a parameter absent and without default:
    # the check that needs it is skipped
    # 1. the certificate
    objective, lower = train["objective"], train["lower_bound"]
    if lower > objective + _ATOL * max(1.0, abs(objective)):
        train_at.child("lower_bound").fail(f"{lower!r} is above the objective {objective!r}")
    if train["status"] == "optimal" and train["stop_reason"] != "completed":
        train_at.child("stop_reason").fail(
            f"is {train['stop_reason']!r}, but the status is 'optimal' (a certified search "
            "completes)"
        )
    _certified_within(train_at, train["certified_length"], params, rl)
    # 2. the objective the counts and the length penalty give
    n, pos = out["rule_n_samples"], out["rule_n_positive"]
    outputs = [p for _, p in rl["rules"]] + [rl["default"]]
    correct = sum(p if q == 1 else c - p for q, c, p in zip(outputs, n, pos, strict=True))
    lam = params.get("lam")
    if not isinstance(lam, numbers.Real):  # lam="auto": the number it resolved to, in stats
        lam = train["stats"].get("lam") if isinstance(train.get("stats"), dict) else None
    if isinstance(lam, numbers.Real) and not isinstance(lam, bool):
        length = len(rl["rules"])
        expected = (sum(n) - correct) / sum(n) + lam * length
        if abs(objective - expected) > _ATOL:
            train_at.child("objective").fail(
                f"is {objective!r}, but the counts and the length penalty give {expected!r} "
                f"(error {1 - correct / sum(n)!r} + lam {lam!r} x {length} rules)"
            )
    # 3. the metric and the cap of the parameters
    metric = train["metric"]
    try:
        asked = Metric.parse(params.get("metric", metric)).name.lower()
    except (ValueError, TypeError):
        asked = metric
    if asked != metric:
        train_at.child("metric").fail(f"is {metric!r}, but 'params.metric' is {asked!r}")
    epsilon, unfair = params.get("epsilon"), train["unfairness"]
    if isinstance(epsilon, numbers.Real) and unfair > epsilon + FEASIBILITY_TOL + _ATOL:
        train_at.child("unfairness").fail(
            f"{unfair!r} is over the model's own cap, 'params.epsilon' {epsilon!r}"
        )
    # 4. the groups' rates, and the unfairness they give
    if out["groups"] is not None:
        _group_rates(at.child("groups"), out["groups"], outputs, n, pos, correct)
        rates = out["groups"]["rates"]
        needed = METRIC_RATES[Metric.parse(metric)]
        if all(v is not None for r in needed for v in rates[r]):
            gap = sum(max(rates[r]) - min(rates[r]) for r in needed)
            if abs(gap - unfair) > _ATOL:
                train_at.child("unfairness").fail(
                    f"is {unfair!r}, but the groups' rates ('groups.rates') give {gap!r} under "
                    f"{metric}"
                )
    # 5. an array-fitted model reads its antecedents by position
    if out["binarizer"] is None and out["feature_names_in"] is None:
        position = [f"x{j}" for j in range(out["n_features_in"])]
        if rl["feature_names"] != position:
            at.child("rule_list").child("feature_names").fail(
                f"is {_short(rl['feature_names'], 60)}, expected {_short(position, 60)}: a model "
                "fitted on an array reads its columns by position"
            )


def _certified_within(
    at: _At, certified: int | None, params: Mapping[str, Any], rl: dict[str, Any]
) -> None:
    """The certified length is one the search could certify: at most ``params.max_length``
    (no longer list was searched) and at most the number of antecedents (no antecedent
    appears twice in a list). A file claiming more claims lists nothing looked at.
    """
    if certified is None:
        return
    at = at.child("certified_length")  # present: the value came from it
    max_length = params.get("max_length")
    if isinstance(max_length, numbers.Integral) and certified > max_length:
        at.fail(
            f"is {certified}, over 'params.max_length' {max_length}: no list of more than "
            f"{max_length} rules was searched"
        )
    n_antecedents = len(rl.get("feature_names") or ())
    if n_antecedents and certified > n_antecedents:
        at.fail(
            f"is {certified}, over the {n_antecedents} antecedents ('rule_list.feature_names'): "
            "a list uses each antecedent once at most"
        )


def _group_rates(
    at: _At, groups: dict[str, Any], outputs: list[int], n: list, pos: list, correct: float
) -> None:
    """Each group's rates, recomputed where the counts determine them: the positive rate from
    the rules' counts per group; the true and false positive rates from it and the predictive
    values; the true positives and negatives the predictive values give add up to the rules'."""
    rates, counts = groups["rates"], groups["rule_n_samples"]
    rates_at = at.child("rates")
    tp_total = tn_total = 0.0
    for g, size in enumerate(rates["n_samples"]):
        predicted = sum(row[g] for row, q in zip(counts, outputs, strict=True) if q == 1)
        expected = {"positive_rate": predicted / size if size else 0.0}
        ppv, npv = rates["ppv"][g], rates["npv"][g]
        if ppv is not None and npv is not None:
            tp, tn = ppv * predicted, npv * (size - predicted)
            fp, fn = predicted - tp, size - predicted - tn
            tp_total, tn_total = tp_total + tp, tn_total + tn
            expected["tpr"] = tp / (tp + fn) if tp + fn > _ATOL else 0.0
            expected["fpr"] = fp / (fp + tn) if fp + tn > _ATOL else 0.0
        for rate, value in expected.items():
            stored = rates[rate][g]
            if stored is not None and abs(stored - value) > 1e-6:
                rates_at.child(rate).items()[g].fail(
                    f"is {stored!r}, but the group's counts give {value!r}"
                )
    if all(v is not None for r in ("ppv", "npv") for v in rates[r]):
        tp_rules = sum(p for q, p in zip(outputs, pos, strict=True) if q == 1)
        scale = max(1.0, sum(n))
        if abs(tp_total - tp_rules) > 1e-6 * scale or abs(tp_total + tn_total - correct) > (
            1e-6 * scale
        ):
            rates_at.child("ppv").fail(
                f"and 'npv' give {tp_total:.6g} true positives and {tn_total:.6g} true negatives "
                f"over the groups, but the rules' counts give {tp_rules:.6g} and "
                f"{correct - tp_rules:.6g}"
            )


# --------------------------------------------------------------------------- the binarizer
def _binarizer(at: _At) -> dict[str, Any]:
    """A fitted binarizer's document: its parameters and, column by column, the cut points or
    categories and the antecedent names they give; then which single antecedents, negations
    and pairs make its output, and their supports."""
    from .binarize import BINARIZER_FORMAT, BINARIZER_VERSION

    _format_and_version(at, BINARIZER_FORMAT, (BINARIZER_VERSION,), "binarizer")
    at.obj(
        [
            "format",
            "version",
            "params",
            "feature_names_in",
            "columns",
            "single_keep",
            "negated",
            "pairs",
            "supports",
            "n_dropped",
        ],
        ["id_columns"],  # (written since the ID-like columns are left out)
    )
    out: dict[str, Any] = {"format": BINARIZER_FORMAT, "version": BINARIZER_VERSION}
    out["params"] = _binarizer_params(at.child("params"), pairs=True)
    out["feature_names_in"] = names_in = _column_names(at.child("feature_names_in"))
    columns, singles = [], []
    for c_at in at.child("columns").items("a list of columns"):
        column = _binarizer_column(c_at, names_in, columns)
        columns.append(column)
        singles += column["names"]
    out["columns"] = columns
    r = len(singles)
    keep = out["single_keep"] = _indices(at.child("single_keep"), r)
    negated = out["negated"] = _indices(at.child("negated"), r)
    pairs = []
    for p_at in at.child("pairs").items("a list of pairs"):
        a, b = _indices(p_at, r, length=2)
        if a == b:
            p_at.fail(f"pairs antecedent {a} with itself")
        pairs.append([a, b])
    out["pairs"] = pairs
    names_out = [singles[k] for k in keep] + [f"not {singles[k]}" for k in negated]
    names_out += [f"{singles[a]} && {singles[b]}" for a, b in pairs]
    sup_at = at.child("supports")
    why = "one per output antecedent"
    out["supports"] = [e.number(0, 1) for e in sup_at.items("a list", len(names_out), why)]
    out["n_dropped"] = at.child("n_dropped").integer(0)
    if at.has("id_columns"):
        out["id_columns"] = _column_names(at.child("id_columns"))
    out["names_out"] = names_out
    return out


def _binarizer_column(c_at: _At, names_in: list, columns: list[dict]) -> dict[str, Any]:
    """One column of a fitted binarizer's document: its cut points or categories, checked
    against the antecedent names they give (``columns``: those read before it)."""
    import numpy as np

    from .binarize import MISSING, interval_names

    c_at.obj(["name", "kind", "names", "categories", "cut_points", "integer", "missing"])
    name_at = c_at.child("name")
    name = name_at.value
    if name not in names_in or isinstance(name, bool):
        name_at.fail(f"is {_short(name)}, not one of the binarizer's 'feature_names_in'")
    if any(c["name"] == name for c in columns):
        name_at.fail(f"is {name!r}, a column described twice")
    kind = c_at.child("kind").choice(("numeric", "categorical"))
    integer, missing = c_at.child("integer").boolean(), c_at.child("missing").boolean()
    cats_at, cuts_at = c_at.child("categories"), c_at.child("cut_points")
    if kind == "numeric":
        if cats_at.items("a list") != []:
            cats_at.fail("is not empty, expected [] for a numeric column")
        cuts = _increasing(cuts_at)
        labels = interval_names(np.asarray(cuts, dtype=float), integer)
        legacy = interval_names(np.asarray(cuts, dtype=float), integer, digits=6)
        categories: list = []
    else:
        if cuts_at.value is not None:
            cuts_at.wrong("null for a categorical column")
        cuts = None
        categories = [_category(e) for e in cats_at.items("a list of categories")]
        _distinct(cats_at, categories)
        labels = legacy = [str(v) for v in categories]
    expected = [f"{name}:{label}" for label in labels] + ([f"{name}:{MISSING}"] * missing)
    older = [f"{name}:{label}" for label in legacy] + ([f"{name}:{MISSING}"] * missing)
    names_at = c_at.child("names")
    names = names_at.names()
    if names and names != expected and names != older:  # [] is a constant column's: none
        # (older: cut points printed with 6 digits, as fairlist 0.1 did)
        names_at.fail(f"is {_short(names, 60)}, expected {_short(expected, 60)}")
    return {
        "name": name,
        "kind": kind,
        "names": names,
        "categories": categories,
        "cut_points": cuts,
        "integer": integer,
        "missing": missing,
    }


def _binarizer_params(at: _At, pairs: bool) -> dict[str, Any]:
    """A binarizer's parameters (``cut_points`` as ``[[column, cuts], ...]`` pairs in a fitted
    binarizer's document, as an object in the estimator's parameters)."""
    from .binarize import LATER_PARAMETERS, PARAMETER_CONSTRAINTS, Binarizer

    names = list(Binarizer().get_params())  # a fitted one's transform reads them: all needed
    older = [n for n in names if n not in LATER_PARAMETERS]  # (but those added since)
    at.obj(older if pairs else [], names)
    params: dict[str, Any] = {}
    for name in at.value:
        p = at.child(name)
        if p.value is None and name in ("sensitive", "categorical", "cut_points"):
            params[name] = None
        elif name == "sensitive":
            one = not isinstance(p.value, (list, tuple))
            params[name] = _column_name(p) if one else _column_names(p)
        elif name == "categorical":
            params[name] = _column_names(p)
        elif name == "cut_points" and pairs:
            params[name] = []
            for e in p.items("a list of [column, cut points] pairs"):
                column, cuts = e.items("a [column, cut points] pair", 2, "a column and its cuts")
                params[name].append([_column_name(column), _increasing(cuts)])
            _distinct(p, [column for column, _ in params[name]])
        elif name == "cut_points":
            if not isinstance(p.value, Mapping):
                p.wrong("an object (column: cut points)")
            params[name] = {k: _increasing(p.child(k)) for k in p.value}
        else:
            params[name] = _constraint(p, PARAMETER_CONSTRAINTS[name])
    return params


def _increasing(at: _At) -> list[float]:
    """Strictly increasing finite numbers (cut points)."""
    cuts = [float(e.number()) for e in at.items("a list of cut points")]
    for k in range(1, len(cuts)):
        if cuts[k] <= cuts[k - 1]:
            at.fail(f"is {_short(cuts, 60)}, expected strictly increasing cut points")
    return cuts


def _category(at: _At) -> Any:
    """A category: a string, a finite number or a boolean."""
    if isinstance(at.value, (str, bool)):
        return at.value
    if isinstance(at.value, numbers.Real):
        return at.number()
    at.wrong("a category (a string, a number or a boolean)")


def _indices(at: _At, size: int, length: int | None = None) -> list[int]:
    """Distinct indices into a list of ``size`` entries."""
    indices = [e.integer(0, size - 1) for e in at.items("a list of indices", length)]
    _distinct(at, indices)
    return indices
