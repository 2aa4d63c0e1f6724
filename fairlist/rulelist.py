"""The rule-list model: an ordered ``if … then … else if … else …`` classifier.

A :class:`RuleList` is immutable. Each :class:`Rule` has an *antecedent*, the name of a binary
feature (a mined conjunction such as ``age:18-20 && gender:Male`` is one name), and a prediction
(0 or 1). A sample is classified by the first rule whose antecedent it satisfies, else by the
default prediction.

Printing follows the paper::

    if [priors:>3] then [recidivism]
    else if [age:18-20 && gender:Male] then [recidivism]
    else [no recidivism]

Models are shared as a versioned JSON document (see :meth:`RuleList.to_json`), never pickle.
On one line (a CSV cell, a study's table) a list is :meth:`RuleList.to_text`, the paper's
listing joined, read back by :meth:`RuleList.from_text`: the one text format.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from ._json import invalid_json, write_text
from ._validation import as_binary
from .errors import DataError, InvalidParameterError, MissingColumnError, ModelFileError
from .model_file import RULE_LIST_FORMAT, RULE_LIST_VERSION, check_rule_list

__all__ = ["Rule", "RuleList", "RuleListFormatError", "JSON_FORMAT", "JSON_VERSION"]

JSON_FORMAT = RULE_LIST_FORMAT
JSON_VERSION = RULE_LIST_VERSION
CONJUNCTION = " && "
NEGATION = "not "
#: Between an antecedent and its prediction in :meth:`RuleList.to_text`.
_THEN = "] then ["


class RuleListFormatError(ModelFileError):
    """A JSON document is not a fairlist rule list (or is a malformed one)."""


@dataclass(frozen=True)
class Rule:
    """``if antecedent then prediction``."""

    antecedent: str
    prediction: int

    def __post_init__(self) -> None:
        if not isinstance(self.antecedent, str) or not self.antecedent.strip():
            raise DataError(
                f"a rule's antecedent must be a non-empty string, got {self.antecedent!r}"
            )
        if self.prediction not in (0, 1) or isinstance(self.prediction, float):
            raise DataError(f"a rule's prediction must be 0 or 1, got {self.prediction!r}")
        object.__setattr__(self, "prediction", int(self.prediction))


@dataclass(frozen=True)
class RuleList:
    """An immutable rule list.

    Parameters
    ----------
    rules : sequence of Rule
    default : int
        Prediction (0 or 1) for samples that no rule captures.
    labels : pair of str
        Names of the predictions 0 and 1, used when printing.
    feature_names : sequence of str, optional
        Column order of the boolean matrices given to :meth:`predict` (a DataFrame is matched by
        column name instead).

    Examples
    --------
    >>> rl = RuleList([Rule("priors:>3", 1)], default=0, labels=("no", "yes"))
    >>> print(rl)
    if [priors:>3] then [yes]
    else [no]
    """

    rules: tuple[Rule, ...]
    default: int
    labels: tuple[str, str] = ("0", "1")
    feature_names: tuple[str, ...] | None = field(default=None, compare=False)

    def __init__(
        self,
        rules: Sequence[Rule] = (),
        default: int = 0,
        labels: Sequence[str] = ("0", "1"),
        feature_names: Sequence[str] | None = None,
    ) -> None:
        rules = tuple(rules)
        for r in rules:
            if not isinstance(r, Rule):
                raise InvalidParameterError(f"rules must be Rule objects, got {type(r).__name__}")
        names = [r.antecedent for r in rules]
        if len(set(names)) != len(names):
            dup = next(n for n in names if names.count(n) > 1)
            raise DataError(f"antecedent {dup!r} appears twice in the rule list")
        if default not in (0, 1) or isinstance(default, float):
            raise DataError(f"default must be 0 or 1, got {default!r}")
        labels = tuple(str(x) for x in labels)
        if len(labels) != 2:
            raise DataError(f"labels must name the two predictions, got {labels!r}")
        object.__setattr__(self, "rules", rules)
        object.__setattr__(self, "default", int(default))
        object.__setattr__(self, "labels", labels)
        object.__setattr__(
            self, "feature_names", None if feature_names is None else tuple(map(str, feature_names))
        )

    # ---------------------------------------------------------------- construction
    @classmethod
    def from_indices(
        cls,
        antecedents: Sequence[int],
        predictions: Sequence[int],
        default: int,
        feature_names: Sequence[str],
        labels: Sequence[str] = ("0", "1"),
    ) -> RuleList:
        """Build from antecedent column indices, as the engines return them."""
        if len(antecedents) != len(predictions):
            raise DataError(
                f"{len(antecedents)} antecedents but {len(predictions)} predictions were given"
            )
        rules = [
            Rule(str(feature_names[j]), int(p))
            for j, p in zip(antecedents, predictions, strict=True)
        ]
        return cls(rules, default, labels, feature_names)

    # ---------------------------------------------------------------- properties
    def __len__(self) -> int:
        return len(self.rules)

    @property
    def length(self) -> int:
        """Number of rules, not counting the default."""
        return len(self.rules)

    def antecedent_indices(self, feature_names: Sequence[str] | None = None) -> list[int]:
        """Column index of each rule's antecedent in ``feature_names`` (default: stored ones)."""
        names = feature_names if feature_names is not None else self.feature_names
        if names is None:
            raise DataError("feature_names are needed to map antecedents to columns")
        position = {n: i for i, n in enumerate(names)}
        missing = [r.antecedent for r in self.rules if r.antecedent not in position]
        if missing:
            raise DataError(f"antecedent {missing[0]!r} is not among the feature names")
        return [position[r.antecedent] for r in self.rules]

    # ---------------------------------------------------------------- prediction
    def _columns(self, X: Any) -> list[np.ndarray]:
        """One boolean column per rule, resolved by name on a DataFrame, by position otherwise."""
        if hasattr(X, "columns"):
            return [_resolve_column(X, r.antecedent) for r in self.rules]
        arr = np.asarray(X)
        if arr.ndim != 2:
            raise DataError(f"X must be two-dimensional, got shape {arr.shape}")
        if self.feature_names is None:
            raise DataError(
                "this rule list has no feature_names, so it can only predict on a DataFrame"
            )
        if arr.shape[1] != len(self.feature_names):
            raise DataError(
                f"X has {arr.shape[1]} columns, the rule list expects {len(self.feature_names)}"
            )
        used = self.antecedent_indices()
        names = [self.feature_names[j] for j in used]
        return list(as_binary("X", arr[:, used], 2, columns=names).astype(bool).T)

    def apply(self, X: Any) -> np.ndarray:
        """Index of the rule that fires on each sample; ``len(self)`` for the default."""
        cols = self._columns(X)
        n = len(X)
        fired = np.full(n, len(self.rules), dtype=np.int64)
        free = np.ones(n, dtype=bool)
        for k, col in enumerate(cols):
            hit = free & col
            fired[hit] = k
            free &= ~col
        return fired

    def predict(self, X: Any) -> np.ndarray:
        """Predictions (0/1, ``int8``) for a boolean matrix or a DataFrame of binary columns."""
        outputs = np.array([r.prediction for r in self.rules] + [self.default], dtype=np.int8)
        return outputs[self.apply(X)]

    # ---------------------------------------------------------------- printing
    def __str__(self) -> str:
        yes = lambda q: self.labels[q]  # noqa: E731
        if not self.rules:
            return f"always predict [{yes(self.default)}] (no rule; the default alone)"
        lines = [
            f"{'if' if k == 0 else 'else if'} [{r.antecedent}] then [{yes(r.prediction)}]"
            for k, r in enumerate(self.rules)
        ]
        lines.append(f"else [{yes(self.default)}]")
        return "\n".join(lines)

    # ---------------------------------------------------------------- one line of text
    def to_text(self, labels: Sequence[str] | None = None) -> str:
        """The list on one line, in the paper's words, so that a CSV holds one readable list per
        cell: ``if [a] then [yes] else if [b] then [no] else [no]`` (the default alone: ``[no]``).

        ``labels`` names the predictions 0 and 1 (default: the list's own labels).
        :meth:`from_text` reads it back.

        >>> rl = RuleList([Rule("priors:>3", 1), Rule("age:18-20", 1)], 0, ("no", "yes"))
        >>> rl.to_text()
        'if [priors:>3] then [yes] else if [age:18-20] then [yes] else [no]'
        >>> RuleList.from_text(rl.to_text(), ("no", "yes")) == rl
        True
        """
        label = tuple(labels) if labels is not None else self.labels
        parts = [
            f"{'if' if k == 0 else 'else if'} [{r.antecedent}{_THEN}{label[r.prediction]}]"
            for k, r in enumerate(self.rules)
        ]
        parts.append(f"{'else ' if parts else ''}[{label[self.default]}]")
        return " ".join(parts)

    @classmethod
    def from_text(cls, text: str, labels: Sequence[str] = ("0", "1")) -> RuleList:
        """The rule list of a :meth:`to_text` line whose predictions are named by ``labels``.

        Read left to right: an antecedent ends at the first ``] then [`` after it (a name with
        brackets, ``age:[18, 25]``, reads back whole), a prediction is one of ``labels``.

        Raises
        ------
        DataError
            When ``text`` is not a rule list in that format, quoting it.
        """
        labels = tuple(str(x) for x in labels)
        names = sorted(labels, key=len, reverse=True)  # the longer first: "yes" before "y"

        def label_at(rest: str, ends: tuple[str, ...]) -> tuple[int, str]:
            for name in names:
                for end in ends:
                    if rest.startswith(name + end):
                        return labels.index(name), rest[len(name) + len(end) :]
            raise DataError(f"not a rule list in the paper's format (labels {labels}): {text!r}")

        rules, rest = [], str(text)
        while rest.startswith("if [" if not rules else "else if ["):
            rest = rest[len("if [") if not rules else len("else if [") :]
            cut = rest.find(_THEN)
            if cut <= 0:
                break
            antecedent, rest = rest[:cut], rest[cut + len(_THEN) :]
            prediction, rest = label_at(rest, ("] ",))
            rules.append(Rule(antecedent, prediction))
        if rules and not rest.startswith("else ["):
            raise DataError(f"not a rule list in the paper's format (labels {labels}): {text!r}")
        default, rest = label_at(rest[len("else [") if rules else 1 :], ("]",))
        if rest or not (rules or str(text).startswith("[")):
            raise DataError(f"not a rule list in the paper's format (labels {labels}): {text!r}")
        return cls(rules, default, labels)

    # ---------------------------------------------------------------- JSON
    def to_dict(self) -> dict[str, Any]:
        doc: dict[str, Any] = {
            "format": JSON_FORMAT,
            "version": JSON_VERSION,
            "rules": [{"antecedent": r.antecedent, "prediction": r.prediction} for r in self.rules],
            "default": self.default,
            "labels": list(self.labels),
        }
        if self.feature_names is not None:
            doc["feature_names"] = list(self.feature_names)
        return doc

    def to_json(self, path: str | Path | None = None, **dump_kwargs: Any) -> str:
        """The versioned JSON document; also written to ``path`` when given."""
        text = json.dumps(self.to_dict(), indent=dump_kwargs.pop("indent", 2), **dump_kwargs)
        if path is not None:
            write_text(path, text + "\n")
        return text

    @classmethod
    def from_dict(cls, doc: Any, *, source: str | Path | None = None) -> RuleList:
        """The rule list of a :meth:`to_dict` document, checked against the rule-list schema
        (:func:`fairlist.model_file.check_rule_list`; ``source`` names the file in messages).

        Raises
        ------
        RuleListFormatError
            Naming the file and the JSON path of the first field that breaks the schema.
        """
        checked = check_rule_list(doc, source, error=RuleListFormatError)
        rules = [Rule(antecedent, prediction) for antecedent, prediction in checked["rules"]]
        labels = checked["labels"] or ("0", "1")
        return cls(rules, checked["default"], labels, checked["feature_names"])

    @classmethod
    def from_json(cls, source: str | Path) -> RuleList:
        """Load from a JSON string or a path to a JSON file."""
        text, path = str(source), None
        if isinstance(source, Path) or not text.lstrip().startswith(("{", "[")):
            path = Path(source)
            if not path.exists():
                raise FileNotFoundError(f"no rule-list file at {path}")
            text = path.read_text(encoding="utf-8")
        try:
            doc = json.loads(text)
        except json.JSONDecodeError as exc:
            raise RuleListFormatError(invalid_json(path or "the rule-list text", exc)) from None
        return cls.from_dict(doc, source=path)


def _resolve_column(frame: Any, name: str) -> np.ndarray:
    """A column by name; a conjunction ``a && b`` or a negation ``not a`` is composed from its
    parts when the frame has no column of that exact name."""
    if name in frame.columns:
        return as_binary(f"column {name!r}", frame[name].to_numpy(), 1).astype(bool)
    if CONJUNCTION in name:
        parts = [p.strip() for p in name.split(CONJUNCTION.strip())]
        out = np.ones(len(frame), dtype=bool)
        for p in parts:
            out &= _resolve_column(frame, p)
        return out
    if name.startswith(NEGATION):
        return ~_resolve_column(frame, name[len(NEGATION) :])
    raise MissingColumnError(f"the data has no column {name!r} needed by the rule list")
