"""What fit learns about one input column: its kind (numeric cut into intervals, or
categorical), its single antecedents, whether it looks like an identifier; and its codes."""

from __future__ import annotations

import warnings
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from .._validation import as_table, not_a_mapping
from ..errors import DataError
from .cuts import interval_names, mdlp_cut_points, quantile_cut_points
from .deadline import check_deadline
from .messages import NO_CUT, UnseenCategoryWarning

MISSING = "missing"
"""Category name of a missing value under ``handle_missing="category"``."""

ID_MIN_DISTINCT = 50
"""A column with fewer distinct values is never taken for an identifier."""

ID_TEXT_SHARE = 0.5
"""A text (or date, or category) column whose distinct values number at least this share of its
non-missing rows is ID-like: names, case numbers, timestamps."""

ID_INTEGER_SHARE = 0.95
"""An integer column whose distinct values number at least this share of its non-missing rows
is ID-like: a row id. (A float column is never: measured quantities are often all distinct, and
cutting them makes a few intervals, not one antecedent per row.)"""


@dataclass
class Column:
    """How one input column becomes single antecedents."""

    name: Hashable
    kind: str  # "categorical" or "numeric"
    names: list[str]  # antecedent names, in output order
    categories: list[Any] = field(default_factory=list)  # categorical: values, output order
    cut_points: np.ndarray | None = None  # numeric: sorted cut points
    integer: bool = False  # numeric: integer-valued at fit time
    missing: bool = False  # "column:missing" is one of the antecedents (the last one)
    unused: str = ""  # why the column yields no antecedent (then ``names`` is empty)


def is_numeric(series: pd.Series) -> bool:
    return pd.api.types.is_numeric_dtype(series.dtype) and not pd.api.types.is_bool_dtype(
        series.dtype
    )


def finite(name: Hashable, values: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """``values`` (no NaN; ``rows`` are their row numbers) or an error naming the column and
    the first row when one is infinite: an interval with an infinite bound (``a:>=inf``) would
    be an antecedent no finite value sets."""
    infinite = np.isinf(values)
    if infinite.any():
        first = int(np.flatnonzero(infinite)[0])
        raise DataError(
            f"column {name!r} has {int(infinite.sum())} infinite value(s), first "
            f"{float(values[first])!r} at row {int(rows[first])}; an interval needs finite values "
            "(drop those rows or replace the values)"
        )
    return values


def as_frame(X: Any) -> pd.DataFrame:
    """A DataFrame view of X (arrays get columns ``x0, x1, …`` as scikit-learn does)."""
    not_a_mapping("X", X)
    if isinstance(X, pd.DataFrame):
        return as_table("X", X)  # no two columns of one name
    if hasattr(X, "to_pandas"):  # polars, pyarrow
        return X.to_pandas()
    arr = np.asarray(as_table("X", X))
    if arr.ndim != 2:
        raise DataError(f"X must be two-dimensional, got shape {arr.shape}")
    return pd.DataFrame(arr, columns=[f"x{i}" for i in range(arr.shape[1])])


def id_like(series: pd.Series) -> str:
    """Why ``series`` looks like an identifier (nearly one distinct value per row), or ``""``.

    Text, dates and categories: at least ``ID_TEXT_SHARE`` of the non-missing rows distinct;
    integers: at least ``ID_INTEGER_SHARE``; never under ``ID_MIN_DISTINCT`` distinct values
    (on a small table every column is "nearly one value per row", and costs little).

    Examples
    --------
    >>> id_like(pd.Series(range(1000)))
    '1000 distinct integers in 1000 rows'
    >>> id_like(pd.Series([1.5, 2.5] * 500)), id_like(pd.Series(["a", "b"] * 500))
    ('', '')
    """
    present = series.dropna()
    m = len(present)
    if m < ID_MIN_DISTINCT:
        return ""
    if is_numeric(series):
        values = present.to_numpy(dtype=float)
        if not np.all(np.isfinite(values)) or not np.all(np.floor(values) == values):
            return ""
        d = int(np.unique(values).size)
        share, what = ID_INTEGER_SHARE, "integers"
    else:
        try:
            d = int(present.nunique())
        except TypeError:  # unhashable cells: the one-hot encoding will say so
            return ""
        share, what = ID_TEXT_SHARE, "values"
    if d >= ID_MIN_DISTINCT and d >= share * m:
        return f"{d} distinct {what} in {m} rows"
    return ""


def fit_column(
    name: Hashable,
    series: pd.Series,
    codes: np.ndarray | None,
    deadline: float | None = None,
    *,
    numeric: str,
    n_bins: int,
    cut_points: Mapping[Hashable, Sequence[float]] | None,
    categorical: Sequence[Hashable] | None,
    handle_missing: str,
) -> Column:
    """How column ``name`` (its values ``series``; ``codes``: the label codes, None without a
    label) becomes single antecedents, under the :class:`~fairlist.binarize.Binarizer`'s
    parameters; a column that yields none has its reason in ``unused``. ``deadline``: MDLP's."""
    missing = series.isna().to_numpy()
    n_missing = int(missing.sum())
    if n_missing and handle_missing == "error":
        raise DataError(
            f"column {name!r} has {n_missing} missing values (NaN or None, of {series.size} "
            f"rows; first at row {int(np.flatnonzero(missing)[0])}); drop "
            "or impute them, or pass handle_missing='category' (to the estimator or the "
            "Binarizer; --handle-missing category on the command line)"
        )
    present = series[~missing]
    explicit = cut_points is not None and name in cut_points
    force_categorical = categorical is not None and name in categorical
    if explicit and not is_numeric(series):
        raise DataError(f"cut_points given for column {name!r}, which is not numeric")
    if (explicit or is_numeric(series)) and not force_categorical:
        values = finite(name, present.to_numpy(dtype=float), np.flatnonzero(~missing))
        integer = bool(values.size) and bool(np.all(np.floor(values) == values))
        if explicit:
            cuts = np.asarray(cut_points[name], dtype=float)
        elif values.size == 0 or np.unique(values).size < 2:
            cuts = np.empty(0)
        elif numeric == "quantile":
            cuts = quantile_cut_points(values, int(n_bins))
        else:
            if codes is None:
                raise DataError(
                    f"numeric='mdlp' needs y to cut column {name!r}; pass y to fit, or use "
                    "numeric='quantile' or explicit cut_points"
                )
            cuts = mdlp_cut_points(values, codes[~missing], deadline)
        if integer and not explicit:
            cuts = np.unique(np.ceil(cuts))  # x >= ceil(c) iff x >= c on integers
        integer = integer and bool(np.all(np.floor(cuts) == cuts))
        col = Column(
            name, "numeric", interval_names(cuts, integer), cut_points=cuts, integer=integer
        )
    else:
        if isinstance(series.dtype, pd.CategoricalDtype):
            observed = set(present.unique().tolist())
            categories = [c for c in series.cat.categories if c in observed]
        else:
            categories = sorted(present.unique().tolist(), key=lambda v: (str(type(v)), v))
        col = Column(
            name, "categorical", [f"{name}:{c}" for c in categories], categories=categories
        )
    if col.kind == "numeric":
        col.names = [f"{name}:{label}" for label in col.names]
    if n_missing:
        col.missing = True
        col.names.append(f"{name}:{MISSING}")
    if len(col.names) < 2:  # a single value, or a single interval: always true
        constant = series.nunique(dropna=False) < 2
        col.unused = "takes a single value" if constant else NO_CUT
        col.names = []
    if len(set(col.names)) != len(col.names):
        raise DataError(f"column {name!r} gives duplicate antecedent names: {col.names}")
    return col


def single_index(columns: list[Column]) -> tuple[np.ndarray, np.ndarray]:
    """For each single antecedent of ``columns``, its column (index into ``columns``) and its
    code in that column."""
    widths = [len(c.names) for c in columns]
    column = np.repeat(np.arange(len(widths)), widths)
    starts = np.concatenate([[0], np.cumsum(widths)[:-1]]).astype(np.intp)
    return column, np.arange(column.size) - starts[column]


def single_matrix(
    columns: list[Column], codes: dict[int, np.ndarray], singles: np.ndarray
) -> np.ndarray:
    """The (n, len(singles)) boolean matrix of the single antecedents ``singles`` of
    ``columns`` (``codes``: :func:`column_codes`)."""
    column, local = single_index(columns)
    n = next(iter(codes.values())).size if codes else 0
    out = np.empty((len(singles), n), dtype=bool)  # row per antecedent: contiguous writes
    for j, k in enumerate(singles):
        np.equal(codes[int(column[k])], local[k], out=out[j])
    return out.T


def column_codes(
    columns: list[Column],
    frame: pd.DataFrame,
    which: Any,
    warn: bool,
    deadline: float | None = None,
    *,
    handle_missing: str,
    handle_unknown: str,
) -> dict[int, np.ndarray]:
    """Each column ``c`` of ``which`` (indices into ``columns``) as codes: ``k`` for its
    ``k``-th single antecedent, -1 for none (an unseen value, see the
    :class:`~fairlist.binarize.Binarizer`'s ``handle_unknown``); ``warn``: check the values
    not seen at fit time (and warn or raise, as ``handle_unknown`` says)."""
    n = frame.shape[0]
    which = list(which)
    out: dict[int, np.ndarray] = {}
    for done, c in enumerate(which):
        check_deadline(deadline, done, len(which), "columns read")
        col = columns[c]
        series = frame[col.name]
        missing = series.isna().to_numpy()
        width = len(col.names)
        if missing.any() and not col.missing:
            if handle_missing == "error":
                raise DataError(
                    f"column {col.name!r} has {int(missing.sum())} missing values (NaN or "
                    f"None, of {n} "
                    "rows); drop or impute them, or fit with handle_missing='category'"
                )
            if warn:
                what = (
                    f"column {col.name!r}: {int(missing.sum())} missing values were not "
                    "seen at fit time"
                )
                if handle_unknown == "error":
                    raise DataError(
                        f"{what} (fit with handle_unknown='ignore' to let such rows match "
                        "none of the column's antecedents)"
                    )
                warnings.warn(
                    f"{what}; they set no antecedent of this column",
                    UnseenCategoryWarning,
                    stacklevel=4,
                )
        n_values = width - int(col.missing)
        codes = np.full(n, -1, dtype=np.int32)
        if col.kind == "numeric":
            numbers = pd.to_numeric(series, errors="coerce")
            text = numbers.isna().to_numpy() & ~missing
            if text.any():
                row = int(np.flatnonzero(text)[0])
                raise DataError(
                    f"column {col.name!r} held numbers at fit time; row {row} holds "
                    f"{series.iloc[row]!r}"
                )
            values = numbers.to_numpy(dtype=float)
            finite(col.name, values[~missing], np.flatnonzero(~missing))
            bins = np.searchsorted(col.cut_points, np.where(missing, 0.0, values), "right")
            codes[~missing] = bins[~missing]
        else:
            index = pd.Index(col.categories)
            found = index.get_indexer(series.astype(object).where(~missing, None))
            unseen = (found < 0) & ~missing
            if unseen.any() and warn:
                examples = pd.unique(series[unseen].astype(object))[:5].tolist()
                what = (
                    f"column {col.name!r}: {int(unseen.sum())} rows hold categories not "
                    f"seen at fit time (e.g. {examples})"
                )
                if handle_unknown == "error":
                    raise DataError(
                        f"{what}; the known ones are {list(col.categories)[:10]} (fit with "
                        "handle_unknown='ignore' to let such rows match none of them)"
                    )
                warnings.warn(
                    f"{what}; they set no antecedent of this column",
                    UnseenCategoryWarning,
                    stacklevel=4,
                )
            codes[:] = np.where(missing, -1, found)
        if col.missing:
            codes[missing] = n_values
        out[c] = codes
    return out
