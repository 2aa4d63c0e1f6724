"""The cursor the model-file schemas are written with: one value of a JSON document and its
path, with the checks a schema is made of, and the messages they give.

:mod:`fairlist.model_file` (the model and the rule list), :mod:`fairlist.model_file_binarizer`
(a fitted binarizer's document) and :mod:`fairlist.model_file_agreement` (the figures that must
agree) check a document by walking it with an :class:`At`: ``at.child("rules").items()`` steps
in, ``at.integer(0)`` or ``at.choice(...)`` checks a value and returns it, and a failed check
raises the document's error class (:class:`~fairlist.errors.ModelFileError`) with one line that
names the file and the JSON path, e.g. ``model.json: 'rule_list.rules[2].prediction' is a string
('yes'), expected 0 or 1``.

>>> from fairlist.errors import ModelFileError
>>> at = At({"counts": [3, -1]}, "", Doc("model.json", "model document", ModelFileError))
>>> [e.integer(0) for e in at.child("counts").items()]
Traceback (most recent call last):
...
fairlist.errors.ModelFileError: model.json: 'counts[1]' is -1, expected an integer >= 0
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, NoReturn

from .errors import ModelFileError

__all__ = [
    "MAX_INT",
    "RTOL",
    "At",
    "Doc",
    "check_distinct",
    "describe_value",
    "format_and_version",
    "n_entries",
    "nearly_equal",
    "shorten",
]

#: The largest count a file may hold as an integer (numpy's int64).
MAX_INT = 2**63 - 1
#: Relative tolerance when sums of (possibly weighted) counts are compared.
RTOL = 1e-7


class Doc:
    """What a message needs beyond the path: the file (or what the document is) and the
    error class to raise."""

    def __init__(self, source: str | Path | None, what: str, error: type[ModelFileError]) -> None:
        self.prefix = f"{source}: " if source is not None else f"{what}: "
        self.error = error


class At:
    """One value of the document and its JSON path, with the checks a schema is made of."""

    __slots__ = ("value", "path", "doc")

    def __init__(self, value: Any, path: str, doc: Doc) -> None:
        self.value, self.path, self.doc = value, path, doc

    @property
    def name(self) -> str:
        """The value as a message names it: its JSON path quoted, or "the document"."""
        return f"{self.path!r}" if self.path else "the document"

    def fail(self, what: str) -> NoReturn:
        """Raise the document's error: the file, this value's name, then ``what``."""
        raise self.doc.error(f"{self.doc.prefix}{self.name} {what}")

    def wrong(self, expected: str) -> NoReturn:
        """Fail with the value's JSON type (and the value, short) against ``expected``."""
        self.fail(f"is {describe_value(self.value)}, expected {expected}")

    # ------------------------------------------------------------ objects
    def obj(self, required: Sequence[str], optional: Sequence[str] = ()) -> At:
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

    def child(self, key: Any) -> At:
        value = self.value.get(key) if isinstance(self.value, Mapping) else None
        path = f"{self.path}.{key}" if self.path else str(key)
        return At(value, path, self.doc)

    def has(self, key: str) -> bool:
        return key in self.value

    # ------------------------------------------------------------ lists
    def items(self, expected: str = "a list", length: int | None = None, why: str = "") -> list:
        """The entries (each an ``At``) of a list; ``length`` checks their number."""
        if not isinstance(self.value, (list, tuple)):
            self.wrong(expected)
        n = len(self.value)
        if length is not None and n != length:
            self.fail(f"has {n_entries(n)}, expected {length}{f' ({why})' if why else ''}")
        return [At(v, f"{self.path}[{k}]", self.doc) for k, v in enumerate(self.value)]

    def names(self, distinct: bool = True, **kw: Any) -> list[str]:
        """A list of non-empty strings, distinct unless told otherwise."""
        names = [item.string() for item in self.items("a list of names", **kw)]
        if distinct:
            check_distinct(self, names)
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
            if abs(value) > MAX_INT:
                self.fail(f"is {shorten(value)}, too large for a count")
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

    # ------------------------------------------------------------ declared values
    def free(self) -> Mapping:
        """An object whose content is free (engine statistics, the user's metadata)."""
        if not isinstance(self.value, Mapping):
            self.wrong("a JSON object")
        return self.value

    def declared(self, allowed: Sequence[Any]) -> Any:
        """A parameter's value, accepted by one of its declared constraints (an owner's table
        of :mod:`fairlist._params`; ``None`` in ``allowed`` accepts null)."""
        value = self.value
        if isinstance(value, float) and not math.isfinite(value):
            self.fail(f"is {value}, expected a finite number")
        if isinstance(value, numbers.Integral) and abs(value) > MAX_INT:
            self.fail(f"is {shorten(value)}, too large")
        if any(value is None if c is None else c.accepts(value) for c in allowed):
            return value
        described = " or ".join("None" if c is None else str(c) for c in allowed)
        self.fail(f"is {describe_value(value)}, expected {described}")

    def column_name(self) -> str | int:
        """A column name: a string, or an integer for an array's columns."""
        if isinstance(self.value, numbers.Integral) and not isinstance(self.value, bool):
            return self.integer()
        return self.string()

    def column_names(self) -> list[Any]:
        """Distinct column names."""
        names = [e.column_name() for e in self.items("a list of column names")]
        check_distinct(self, names)
        return names


def describe_value(value: Any) -> str:
    """A value as a message names it: its JSON type, and the value when it is short."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return f"a boolean ({'true' if value else 'false'})"
    if isinstance(value, str):
        return f"a string ({shorten(value)})"
    if isinstance(value, numbers.Real):
        return f"a number ({shorten(value)})"
    if isinstance(value, Mapping):
        return "an object"
    if isinstance(value, (list, tuple)):
        return f"a list of {n_entries(len(value))}"
    return f"a {type(value).__name__}"


def shorten(value: Any, width: int = 40) -> str:
    """``repr(value)``, cut to ``width`` characters (a huge integer by its order of magnitude)."""
    if isinstance(value, int) and abs(value) >= 10**30:
        return f"{'-' if value < 0 else ''}1e{len(str(abs(value))) - 1}"
    text = repr(value)
    return text if len(text) <= width else text[: width - 1] + "…"


def n_entries(n: int) -> str:
    """``"1 entry"``, ``"3 entries"``."""
    return f"{n} entr{'y' if n == 1 else 'ies'}"


def check_distinct(at: At, values: list) -> None:
    """Fail at ``at`` when ``values`` (read from it) holds a value twice (``1`` and ``True``, or
    ``1`` and ``1.0``, are different values: a JSON document keeps their types)."""
    seen: set = set()
    for v in values:
        key = (type(v).__name__, v)
        if key in seen:
            at.fail(f"holds {shorten(v)} twice, expected distinct values")
        seen.add(key)


def nearly_equal(a: float, b: float) -> bool:
    """Whether two sums of (possibly weighted) counts agree, within :data:`RTOL`."""
    return abs(a - b) <= RTOL * max(1.0, abs(a), abs(b))


def format_and_version(at: At, fmt: str, versions: Sequence[int], what: str) -> int:
    """``format`` is ``fmt`` and ``version`` one of ``versions`` (a newer one: upgrade fairlist)."""
    if not isinstance(at.value, Mapping):
        at.wrong(f"a JSON object (a fairlist {what})")
    fmt_at, version_at = at.child("format"), at.child("version")
    if fmt_at.value != fmt:
        found = f"is {shorten(fmt_at.value)}" if at.has("format") else "is missing"
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
