"""Export a rule list as Python source, as an SQL ``CASE`` expression, or as plain text.

A rule list is short enough to be deployed without fairlist: pasted into a service as a Python
function, or into a query as one SQL expression. :func:`export_python`, :func:`export_sql` and
:func:`export_text` take a :class:`~fairlist.rulelist.RuleList` or a fitted
:class:`~fairlist.estimator.FairRuleListClassifier` (``fairlist export MODEL --format ...`` on the
command line).

What a rule tests depends on what the model knows about its antecedents:

* a model fitted on a raw table has its fitted :class:`~fairlist.binarize.Binarizer`, which
  defines each antecedent on the raw columns (an interval, a category, a missing value, a
  negation ``not X``, a conjunction ``X && Y``). The export tests those columns, exactly as
  ``transform`` does: ``age:18-20`` is ``"age" >= 18 AND "age" < 21``, an interval is never met
  by a missing value, and ``not X`` is met by anything that does not meet ``X``, missing values
  and categories unseen at fit time included;
* a bare rule list, or a model fitted on antecedents, tests each antecedent as a 0/1 column of
  that name (``"priors:>3" = 1``). A model fitted on an array names its columns ``x0, x1, …``.

Names are never pasted into code: Python reads ``row["a name"]`` (``repr`` of the name), SQL
quotes identifiers in double quotes (a ``"`` inside is doubled) and strings in single quotes.

The function and the expression return the prediction 0 or 1, as :meth:`RuleList.predict`
does; ``labels=True`` returns the class (the estimator's ``classes_``, a rule list's
``labels``) instead.

Examples
--------
>>> from fairlist.rulelist import Rule, RuleList
>>> rl = RuleList([Rule("priors:>3", 1), Rule('say "hi" now', 0)], default=1, labels=("no", "yes"))
>>> print(export_sql(rl))
CASE
  WHEN "priors:>3" = 1 THEN 1
  WHEN "say ""hi"" now" = 1 THEN 0
  ELSE 1
END
>>> print(export_python(rl), end='')
def predict(row):
    \"\"\"The rule list's prediction (0 or 1) for a row (column name -> value).\"\"\"
    if row['priors:>3'] == 1:  # priors:>3
        return 1
    if row['say "hi" now'] == 1:  # say "hi" now
        return 0
    return 1
>>> namespace = {}
>>> exec(export_python(rl), namespace)
>>> namespace["predict"]({"priors:>3": 0, 'say "hi" now': 1})
0
>>> print(export_text(rl))
if [priors:>3] then [yes]
else if [say "hi" now] then [no]
else [yes]
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from .errors import DataError, InvalidParameterError
from .rulelist import RuleList

__all__ = ["export", "export_python", "export_sql", "export_text", "read_model", "FORMATS"]


# --------------------------------------------------------------------------- antecedent trees
@dataclass(frozen=True)
class _Column01:
    """An antecedent read as a 0/1 column of its own name."""

    name: Any


@dataclass(frozen=True)
class _Interval:
    """``lo <= column < hi`` (a missing bound is open), never met by a missing value."""

    column: Any
    lo: float | None
    hi: float | None


@dataclass(frozen=True)
class _Category:
    """``column == value``, never met by a missing value."""

    column: Any
    value: Any


@dataclass(frozen=True)
class _Missing:
    """The column's value is missing (``column:missing``)."""

    column: Any


@dataclass(frozen=True)
class _Not:
    term: _Term


@dataclass(frozen=True)
class _And:
    left: _Term
    right: _Term


_Term = _Column01 | _Interval | _Category | _Missing | _Not | _And


def _binarizer_terms(binarizer: Any) -> dict[str, _Term]:
    """Each output antecedent of a fitted binarizer as a test of the raw columns (the meaning
    ``Binarizer.transform`` gives it)."""
    singles: list[_Term] = []
    for col in binarizer.columns_:
        if col.kind == "numeric":
            cuts = [float(c) for c in col.cut_points]
            bounds = [None, *cuts, None]
            singles += [_Interval(col.name, bounds[k], bounds[k + 1]) for k in range(len(cuts) + 1)]
        else:
            singles += [_Category(col.name, v) for v in col.categories]
        if col.missing:
            singles.append(_Missing(col.name))
    if len(singles) != len(binarizer.single_names_):  # pragma: no cover - a corrupt binarizer
        raise DataError("the binarizer's antecedents do not match its columns")
    make = {
        "single": lambda k: singles[k],
        "not": lambda k: _Not(singles[k]),
        "and": lambda a, b: _And(singles[a], singles[b]),
    }
    terms = [make[kind](*parts) for kind, parts in binarizer.terms_]
    return dict(zip((str(n) for n in binarizer.get_feature_names_out()), terms, strict=True))


@dataclass(frozen=True)
class _Plan:
    """What an export writes: each rule's test and output, the default's output."""

    tests: list[tuple[str, _Term]]  # (antecedent name, its test), one per rule
    outputs: list[Any]  # one per rule, then the default: 0/1 or the class
    default: Any


def _plan(model: Any, labels: bool) -> _Plan:
    """The rule list of ``model`` (a RuleList or a fitted classifier) and its antecedents'
    definitions."""
    if isinstance(model, RuleList):
        rule_list, binarizer, classes = model, None, list(model.labels)
    elif hasattr(model, "rule_list_"):
        rule_list, binarizer = model.rule_list_, getattr(model, "binarizer_", None)
        classes = [v.item() if isinstance(v, np.generic) else v for v in model.classes_]
    else:
        raise InvalidParameterError(
            f"expected a RuleList or a fitted FairRuleListClassifier, got {type(model).__name__}"
        )
    defined = _binarizer_terms(binarizer) if binarizer is not None else {}
    tests = [
        (r.antecedent, defined.get(r.antecedent, _Column01(r.antecedent))) for r in rule_list.rules
    ]
    out = (lambda q: classes[q]) if labels else (lambda q: q)
    return _Plan(tests, [out(r.prediction) for r in rule_list.rules], out(rule_list.default))


# --------------------------------------------------------------------------- Python
_PY_HELPER = '''def _present(value):
    """Whether a value is there (neither None nor NaN)."""
    return value is not None and value == value


'''


def _py_number(value: float) -> str:
    return str(int(value)) if float(value).is_integer() and abs(value) < 2**53 else repr(value)


def _py_literal(value: Any) -> str:
    if isinstance(value, (bool, str)) or value is None:
        return repr(value)
    if isinstance(value, numbers.Integral):
        return str(int(value))
    if isinstance(value, numbers.Real):
        return repr(float(value))
    return repr(value)


def _py(term: _Term) -> tuple[str, bool]:
    """A Python condition over ``row`` and whether it needs the ``_present`` helper."""
    if isinstance(term, _Column01):
        return f"row[{term.name!r}] == 1", False
    if isinstance(term, _Missing):
        return f"not _present(row[{term.column!r}])", True
    if isinstance(term, _Category):
        v = f"row[{term.column!r}]"
        return f"(_present({v}) and {v} == {_py_literal(term.value)})", True
    if isinstance(term, _Interval):
        v = f"row[{term.column!r}]"
        parts = [f"_present({v})"]
        if term.lo is not None:
            parts.append(f"{v} >= {_py_number(term.lo)}")
        if term.hi is not None:
            parts.append(f"{v} < {_py_number(term.hi)}")
        return f"({' and '.join(parts)})", True
    if isinstance(term, _Not):
        inner, helper = _py(term.term)
        return f"not {inner}", helper
    left, h1 = _py(term.left)
    right, h2 = _py(term.right)
    return f"({left} and {right})", h1 or h2


def export_python(model: Any, *, function_name: str = "predict", labels: bool = False) -> str:
    """Python source of a function ``predict(row)`` that applies the rule list to one row.

    Parameters
    ----------
    model : RuleList or fitted FairRuleListClassifier
    function_name : str, default="predict"
        The name of the function defined.
    labels : bool, default=False
        Return the class (``classes_``; a rule list's ``labels``) rather than 0 or 1.

    Returns
    -------
    str
        Self-contained source (no import): ``row`` is any mapping from column names to values
        (a ``dict``, a pandas row ``df.iloc[i]``, a ``csv.DictReader`` row once numbers are
        numbers). Raw columns are read when the model has a fitted binarizer, antecedent
        columns (0/1) otherwise; see the module docstring.

    Examples
    --------
    >>> from fairlist.rulelist import Rule, RuleList
    >>> rl = RuleList([Rule("a", 1)], default=0, labels=("no", "yes"))
    >>> namespace = {}
    >>> exec(export_python(rl, labels=True), namespace)
    >>> namespace["predict"]({"a": 1}), namespace["predict"]({"a": 0})
    ('yes', 'no')
    """
    if not function_name.isidentifier():
        raise InvalidParameterError(f"function_name={function_name!r} is not a Python name")
    plan = _plan(model, labels)
    what = "class" if labels else "prediction (0 or 1)"
    lines = [
        f"def {function_name}(row):",
        f'    """The rule list\'s {what} for a row (column name -> value)."""',
    ]
    helper = False
    for (name, term), output in zip(plan.tests, plan.outputs, strict=False):
        condition, needs = _py(term)
        helper = helper or needs
        comment = " ".join(str(name).split())  # one line, whatever the name holds
        lines.append(f"    if {condition}:  # {comment}")
        lines.append(f"        return {_py_literal(output)}")
    lines.append(f"    return {_py_literal(plan.default)}")
    return (_PY_HELPER if helper else "") + "\n".join(lines) + "\n"


# --------------------------------------------------------------------------- SQL
def quote_identifier(name: Any) -> str:
    """An SQL identifier in double quotes, a ``"`` inside doubled (standard SQL).

    >>> print(quote_identifier('a "b" c'))
    "a ""b"" c"
    """
    return '"' + str(name).replace('"', '""') + '"'


def _sql_literal(value: Any) -> str:
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    if isinstance(value, numbers.Integral):
        return str(int(value))
    if isinstance(value, numbers.Real):
        if not math.isfinite(value):
            raise DataError(f"{value!r} has no SQL literal")
        return _py_number(float(value))
    return "'" + str(value).replace("'", "''") + "'"


def _sql(term: _Term) -> str:
    """An SQL condition that is TRUE or FALSE, never NULL (so that NOT negates it)."""
    if isinstance(term, _Column01):
        return f"{quote_identifier(term.name)} = 1"
    if isinstance(term, _Missing):
        return f"{quote_identifier(term.column)} IS NULL"
    column = quote_identifier(getattr(term, "column", ""))
    if isinstance(term, _Category):
        return f"({column} IS NOT NULL AND {column} = {_sql_literal(term.value)})"
    if isinstance(term, _Interval):
        parts = [f"{column} IS NOT NULL"]
        if term.lo is not None:
            parts.append(f"{column} >= {_sql_literal(term.lo)}")
        if term.hi is not None:
            parts.append(f"{column} < {_sql_literal(term.hi)}")
        return f"({' AND '.join(parts)})"
    if isinstance(term, _Not):
        inner = _sql(term.term)
        if isinstance(term.term, _Column01):  # a 0/1 column: NULL is not 1, so it is "not"
            return f"COALESCE({quote_identifier(term.term.name)}, 0) <> 1"
        return f"NOT {inner}"
    return f"({_sql(term.left)} AND {_sql(term.right)})"


def export_sql(model: Any, *, labels: bool = False) -> str:
    """The rule list as one SQL ``CASE WHEN ... THEN ... ELSE ... END`` expression.

    Parameters
    ----------
    model : RuleList or fitted FairRuleListClassifier
    labels : bool, default=False
        Give the class (``classes_``; a rule list's ``labels``) rather than 0 or 1.

    Returns
    -------
    str
        Standard SQL (tested with SQLite): ``SELECT <expression> AS prediction FROM t``. A
        missing value is ``NULL``: it meets no interval or category, it meets
        ``column:missing``, and every negation of its column.

    Examples
    --------
    >>> from fairlist.rulelist import Rule, RuleList
    >>> print(export_sql(RuleList([Rule("it's", 1)], default=0, labels=("no", "yes")), labels=True))
    CASE
      WHEN "it's" = 1 THEN 'yes'
      ELSE 'no'
    END
    """
    plan = _plan(model, labels)
    lines = ["CASE"]
    lines += [
        f"  WHEN {_sql(term)} THEN {_sql_literal(output)}"
        for (_, term), output in zip(plan.tests, plan.outputs, strict=False)
    ]
    lines += [f"  ELSE {_sql_literal(plan.default)}", "END"]
    return "\n".join(lines)


# --------------------------------------------------------------------------- text
def export_text(model: Any) -> str:
    """The rule list printed as the FairCORELS paper prints it (``str(rule_list)``).

    >>> from fairlist.rulelist import Rule, RuleList
    >>> print(export_text(RuleList([Rule("priors:>3", 1)], default=0, labels=("no", "yes"))))
    if [priors:>3] then [yes]
    else [no]
    """
    if isinstance(model, RuleList):
        return str(model)
    if hasattr(model, "rule_list_"):
        return str(model.rule_list_)
    raise InvalidParameterError(
        f"expected a RuleList or a fitted FairRuleListClassifier, got {type(model).__name__}"
    )


#: The export formats, by name (``fairlist export --format``).
FORMATS: dict[str, Callable[..., str]] = {
    "python": export_python,
    "sql": export_sql,
    "text": export_text,
}


def export(model: Any, format: str = "text", **options: Any) -> str:
    """The rule list of ``model`` in ``format`` (a key of :data:`FORMATS`), with its options.

    >>> from fairlist.rulelist import Rule, RuleList
    >>> print(export(RuleList([Rule("a", 1)]), "sql"))
    CASE
      WHEN "a" = 1 THEN 1
      ELSE 0
    END
    """
    if format not in FORMATS:
        raise InvalidParameterError(
            f"format={format!r} is not an export format; expected one of {', '.join(FORMATS)}"
        )
    if format == "text":
        options.pop("labels", None)  # the text always names the classes
    return FORMATS[format](model, **options)


def read_model(path: str | Path) -> Any:
    """A saved rule list (a :class:`RuleList`) or model (a fitted classifier), checked as
    ``fairlist show`` checks it."""
    from .model_file import RULE_LIST_FORMAT, read_document

    doc = read_document(path)
    if isinstance(doc, Mapping) and doc.get("format") == RULE_LIST_FORMAT:
        return RuleList.from_dict(doc, source=path)
    from .estimator import FairRuleListClassifier

    return FairRuleListClassifier.from_dict(doc, source=path)
