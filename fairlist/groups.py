"""The sensitive groups: from the user's column(s) to integer codes, and the small-group check.

Fairness compares groups of samples. A user names them the way fairlearn does,
``sensitive_features``:

* one column of group labels with any number ``k >= 2`` of values (``race`` with six values);
* several columns (a DataFrame or a 2-D array): the groups are the observed combinations of their
  values, the intersections (``race`` x ``sex``), named ``"African-American & Male"``;
* a boolean (or 0/1) mask: two groups, True (1) the protected one — the paper's setting;
* with ``protected=value``: that value (a tuple of values for several columns) against all the
  others together, two groups.

:func:`encode_groups` turns any of these into :class:`Groups`, integer codes ``0 .. k-1`` and
their names (code 0 is the protected group of a mask or of ``protected=``; otherwise the groups
are in sorted order). Each rate of a metric is then computed per group, and its gap is the
largest minus the smallest rate over the groups (see :mod:`fairlist.metrics`).

Small groups. A group's rate moves in steps of one over its size, and a rate whose denominator
is zero is 0 whatever the rule list (the project's convention): a group with no positive sample
has a true positive rate of 0 for every list, so capping equal opportunity at ``epsilon`` forces
every other group's rate below ``epsilon`` — a constraint the user never asked for.
:func:`check_group_sizes` warns (:class:`SmallGroupWarning`) naming such groups, and those with
fewer than :data:`SMALL_GROUP` samples when there are more than two groups;
:func:`merge_small_groups` is the remedy it points to.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from ._validation import named
from .errors import DataError, InvalidParameterError
from .metric_table import RATES, Metric

__all__ = [
    "Groups",
    "SmallGroupWarning",
    "SensitiveColumnWarning",
    "SMALL_GROUP",
    "encode_groups",
    "merge_small_groups",
    "check_group_sizes",
    "group_rates",
]

#: With more than two groups, a group with fewer samples than this is reported as small.
SMALL_GROUP = 30

#: Separator of the column values in the name of an intersection.
INTERSECTION = " & "


class SmallGroupWarning(UserWarning):
    """A group is so small, or lacks the samples a rate needs, that the cap constrains it in a
    way the user may not expect; the message names the groups and the remedy."""


class SensitiveColumnWarning(UserWarning):
    """A column of X holds a sensitive feature given by its values (the fairlearn way,
    ``fit(X, y, sensitive_features=X["gender"])``): the estimator leaves it out of the
    antecedents, and the message names it (``allow_sensitive_antecedents=True`` keeps it)."""


@dataclass(frozen=True)
class Groups:
    """Integer group codes (``0 .. k-1``, every code present) and the name of each group."""

    codes: np.ndarray  # int32, shape (n,)
    names: tuple[str, ...]

    @property
    def k(self) -> int:
        return len(self.names)


def _as_table(sensitive_features: Any, n_samples: int | None) -> pd.DataFrame:
    """The sensitive feature(s) as a DataFrame of one or more columns, checked."""
    if sensitive_features is None:
        raise DataError(
            "sensitive_features is required: pass the group of each sample to fit "
            "(fit(X, y, sensitive_features=s, protected=value))"
        )
    s = sensitive_features
    name = named("sensitive_features", s)
    if isinstance(s, pd.Series):
        table = s.to_frame()
    elif isinstance(s, pd.DataFrame):
        table = s
    else:
        arr = np.asarray(s)
        if arr.ndim == 0 or arr.ndim > 2:
            raise DataError(
                f"sensitive_features must be one column of groups (or several columns for "
                f"intersections), got shape {arr.shape}"
            )
        table = pd.DataFrame(arr if arr.ndim == 2 else arr[:, None])
    if table.shape[1] == 0:
        raise DataError(f"{name} has no column")
    if table.shape[0] == 0:
        raise DataError(f"{name} has no rows")
    if n_samples is not None and len(table) != n_samples:
        raise DataError(f"{name} has {len(table)} rows, X has {n_samples}")
    missing = table.isna().to_numpy().any(axis=1)
    if missing.any():
        raise DataError(
            f"{name} has {int(missing.sum())} missing value(s) (NaN/None), first "
            f"at row {int(np.flatnonzero(missing)[0])}; every sample needs a group"
        )
    return table


def _is_mask(column: pd.Series) -> bool:
    """A boolean column, or one of 0/1 numbers: the two-group mask (True = protected)."""
    if column.dtype == bool:
        return True
    return column.dtype.kind in "iuf" and set(pd.unique(column).tolist()) <= {0, 1}


def _sorted_values(values: Sequence[Any]) -> list[Any]:
    try:
        return sorted(values)
    except TypeError:  # mixed types: by type name, then value
        return sorted(values, key=lambda v: (type(v).__name__, str(v)))


def encode_groups(
    sensitive_features: Any, protected: Any = None, n_samples: int | None = None
) -> Groups:
    """The groups of ``sensitive_features`` as integer codes and names (see the module docs).

    Parameters
    ----------
    sensitive_features : array-like of shape (n,) or (n, c), Series or DataFrame
    protected : scalar or tuple, optional
        The protected value (a tuple of values with several columns): that group against all
        others. When omitted, a boolean or 0/1 column is the two-group mask (True = protected)
        and any other column(s) give one group per value (per combination).
    n_samples : int, optional
        Rows expected (for a message that gives both numbers).

    Raises
    ------
    DataError
        Missing values, a wrong number of rows, a single group, or a ``protected`` value that
        does not occur (or covers every sample).
    InvalidParameterError
        ``protected`` is not one group (several values for one column, or a tuple whose length
        is not the number of columns).
    """
    table = _as_table(sensitive_features, n_samples)
    if table.shape[1] == 1:
        keys = table.iloc[:, 0]
    else:
        keys = pd.Series(list(table.itertuples(index=False, name=None)), index=table.index)
    values = _sorted_values(pd.unique(keys).tolist())
    shown = ", ".join(repr(v) for v in values[:5]) + (", …" if len(values) > 5 else "")
    if len(values) < 2:
        raise DataError(
            f"{named('sensitive_features', sensitive_features)} has a single group "
            f"({values[0]!r} for every sample); fairness compares groups, so at least two must "
            "occur in the training data"
        )
    if protected is not None:
        _check_protected(protected, table.shape[1])
        key = (
            tuple(protected)
            if table.shape[1] > 1 and not isinstance(protected, tuple)
            else (protected)
        )
        mask = (
            (keys == key).to_numpy()
            if table.shape[1] == 1
            else np.array([k == key for k in keys], dtype=bool)
        )
        if not mask.any():
            raise DataError(
                f"protected={protected!r} does not occur in sensitive_features ({shown})"
            )
        if mask.all():
            raise DataError(
                f"every sample has sensitive_features == protected ({protected!r}); the other "
                "group is empty"
            )
        others = [v for v in values if v != key]
        other = _name(others[0]) if len(others) == 1 else f"not {_name(key)}"
        if len(others) == 1:
            _distinct_names([key, others[0]])
        return Groups(np.where(mask, 0, 1).astype(np.int32), (_name(key), other))
    if table.shape[1] == 1 and _is_mask(keys):
        return Groups(
            np.where(keys.to_numpy().astype(bool), 0, 1).astype(np.int32),
            ("protected", "unprotected"),
        )
    names = _distinct_names(values)
    codes = np.full(len(keys), -1, dtype=np.int32)
    index = pd.Index(values, dtype=object)
    if table.shape[1] == 1 and index.is_unique:  # a hash lookup, not a Python loop over rows
        codes[:] = index.get_indexer(keys.to_numpy(dtype=object))
    if (codes < 0).any():  # tuples of several columns (or a value the index would not match)
        code = {v: i for i, v in enumerate(values)}
        codes = np.fromiter((code[v] for v in keys), dtype=np.int32, count=len(keys))
    return Groups(codes, names)


def _distinct_names(values: Sequence[Any]) -> tuple[str, ...]:
    """The names of distinct group values, refused when two values share a name.

    A group is known by its name in the model file, ``group_rates_`` and every message, so two
    groups must not print alike: ``1`` and ``'1'`` both read ``1``, and the intersections
    ``('a & b', 'c')`` and ``('a', 'b & c')`` both read ``a & b & c``.

    Examples
    --------
    >>> _distinct_names([1, "1"])  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    fairlist.errors.DataError: sensitive_features holds 1 and '1', two groups that would both ...
    """
    seen: dict[str, Any] = {}
    for v in values:
        name = _name(v)
        if name in seen:
            first = seen[name]
            fix = (
                "a value holds the separator ' & ' of intersection names; replace it in the "
                "column's values"
                if isinstance(v, tuple)
                else "make the values distinct as text (e.g. convert the column with .astype(str))"
            )
            raise DataError(
                f"sensitive_features holds {_show(first)} and {_show(v)}, two groups that would "
                f"both be named {name!r}; {fix}"
            )
        seen[name] = v
    return tuple(seen)


def _show(value: Any) -> str:
    """A group value as the user wrote it (``1``, ``'1'``, ``('a & b', 'c')``)."""
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, tuple):
        return "(" + ", ".join(_show(v) for v in value) + ")"
    return repr(value)


def _check_protected(protected: Any, n_columns: int) -> None:
    """``protected`` is one group: a scalar for one column, one value per column for several."""
    several = isinstance(protected, (list, tuple, np.ndarray, pd.Series, set, frozenset, dict))
    if n_columns == 1 and several:
        raise InvalidParameterError(
            f"protected={protected!r} must be a single value of sensitive_features (the one "
            "group compared with all the others); omit it to compare every group"
        )
    if n_columns > 1 and (not several or len(protected) != n_columns):
        raise InvalidParameterError(
            f"protected={protected!r} must be a tuple of {n_columns} values, one per sensitive "
            "column (the intersection compared with all the others)"
        )


def _name(value: Any) -> str:
    """A group's name: the value, or its values joined by `` & `` for an intersection."""
    if isinstance(value, tuple):
        return INTERSECTION.join(_name(v) for v in value)
    return str(value.item() if isinstance(value, np.generic) else value)


def merge_small_groups(sensitive_features: Any, min_count: int, other: str = "other") -> pd.Series:
    """The groups with the ones of fewer than ``min_count`` samples merged into ``other``.

    Use it when :class:`SmallGroupWarning` reports groups too small to compare. Several columns
    are first combined into their intersections (named as :func:`encode_groups` names them).
    Raises when fewer than two groups remain.

    Examples
    --------
    >>> merge_small_groups(["a"] * 40 + ["b"] * 35 + ["c"] * 3, min_count=30).value_counts()
    a        40
    b        35
    other     3
    Name: count, dtype: int64
    """
    groups = encode_groups(sensitive_features)
    sizes = np.bincount(groups.codes, minlength=groups.k)
    names = np.array([n if sizes[i] >= min_count else other for i, n in enumerate(groups.names)])
    merged = pd.Series(names[groups.codes], dtype=object)
    if merged.nunique() < 2:
        raise DataError(
            f"merging the groups of fewer than {min_count} samples leaves a single group; "
            "lower min_count"
        )
    return merged


def check_group_sizes(
    groups: Groups, y: np.ndarray, metric: Any, sample_weight: np.ndarray | None = None
) -> None:
    """Warn (:class:`SmallGroupWarning`) about the groups a cap on ``metric`` treats badly.

    A group lacking the samples a rate of the metric divides by (no positive sample for equal
    opportunity, say) has that rate fixed at 0; with more than two groups, a group of fewer than
    :data:`SMALL_GROUP` samples has coarse rates. The message names them and the remedy.
    """
    m = Metric.parse(metric)
    w = np.ones(len(y)) if sample_weight is None else np.asarray(sample_weight, dtype=float)
    y = np.asarray(y).astype(bool)
    size = np.bincount(groups.codes, weights=w, minlength=groups.k)
    positives = np.bincount(groups.codes, weights=w * y, minlength=groups.k)
    negatives = size - positives
    count_of = {"positive": positives, "negative": negatives}
    needs = [(RATES[r].needs, count_of.get(RATES[r].needs)) for r in m.info.rates]
    needs = [(what, count) for what, count in needs if count is not None]
    lacking = [
        f"{groups.names[g]!r} (no {what} sample)"
        for what, count in needs
        for g in np.flatnonzero(count <= 0)
    ]
    if lacking:
        warnings.warn(
            f"{', '.join(lacking)}: a rate of {m.short_name} divides by that count, so it is 0 "
            "for every rule list and the cap forces the other groups' rates down to epsilon; "
            "merge or drop these groups (fairlist.groups.merge_small_groups)",
            SmallGroupWarning,
            stacklevel=3,
        )
    counts = np.bincount(groups.codes, minlength=groups.k)
    small = np.flatnonzero(counts < SMALL_GROUP)
    if groups.k > 2 and small.size:
        named = ", ".join(f"{groups.names[g]!r} ({counts[g]} samples)" for g in small)
        warnings.warn(
            f"small groups: {named}; their rates move in steps of 1/size, so the cap may admit "
            f"only very constrained lists. Merge them, e.g. fairlist.groups.merge_small_groups("
            f"sensitive_features, min_count={SMALL_GROUP})",
            SmallGroupWarning,
            stacklevel=3,
        )


def group_rates(counts: Any) -> pd.DataFrame:
    """Each group's size and rates under a rule list (one row a group), from the counts of
    :meth:`fairlist.solvers.Problem.evaluate` (``evaluation.counts``)."""
    rates = tuple(RATES)
    return pd.DataFrame(
        {"n_samples": [g.n for g in counts.groups]}
        | {r: [getattr(g, r) for g in counts.groups] for r in rates},
        index=pd.Index(counts.names, name="group"),
    )
