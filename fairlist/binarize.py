"""From a table to binary antecedents: discretise, one-hot, negate and mine conjunctions.

The branch-and-bound and CP-SAT engines read a bit-matrix of *antecedents*: boolean tests such as
``age:18-20``, ``not priors:0`` or ``age:21-22 && gender:Male``. :class:`Binarizer` builds that
matrix from a pandas DataFrame the way the FairCORELS paper does (its section "Experimental
setup"):

1. **Single antecedents** ``R``. Categorical, string and boolean columns are one-hot encoded
   (``workclass:private``). Numeric columns are cut into intervals, either at cut points given
   by the user, or learned by the MDLP criterion of Fayyad & Irani (1993, supervised, the paper's
   choice for Adult), or at quantiles (unsupervised). Intervals are half-open, ``[c_i, c_{i+1})``.
2. **Negations** ``R̄``: ``not X`` for every single antecedent ``X``.
3. **Two-clause conjunctions** ``T = {r_i ∧ r_j : r_i ≠ r_j ∈ R, supp(r_i ∧ r_j) ≥ σ}``
   (``σ`` is ``min_support``). Two antecedents from the same column are never paired: the
   intervals or categories of one column are disjoint, so their conjunction is empty.

The sensitive column is never an antecedent: name it with ``sensitive=`` and the transformer
leaves it out (and checks that it splits the rows into at least two groups).

Wide tables
-----------
A column whose distinct values are nearly one per row (names, ids, case numbers, timestamps, an
integer row id) is left out with an :class:`IdLikeColumnWarning` naming it (``keep_id_columns``
keeps it). When more antecedents are made than ``max_antecedents`` (300 by default), the most
informative about the label are kept (:func:`information_gain`), conjunctions being mined among
the best single antecedents only and within ``max_pair_memory_mb`` (estimated by
:func:`pair_memory` before pairing); an :class:`AntecedentCapWarning` gives the numbers made and
kept. A certified list is then optimal over the kept antecedents (docs/large-tables.md).

Antecedent names
----------------
``column:value`` for a category; for an interval of a numeric column ``column:<c1``,
``column:c_i-c_j`` and ``column:>=c_k``. On an integer-valued column the middle intervals are
written inclusively (``age:21-22`` is ``21 <= age <= 22``, ``priors:1`` is ``priors == 1``) and
cut points are integers. A separator ``..`` replaces ``-`` when a bound is negative. Negations
read ``not X`` and conjunctions ``X && Y``.

Missing values
--------------
``handle_missing="error"`` (the default) refuses a column with missing values and names it and
the number of missing rows: the paper drops such rows, and a silent choice would change the
meaning of every antecedent. ``handle_missing="category"`` makes "missing" its own antecedent,
``column:missing``. At ``transform`` time a category (or a missing value) that was not seen at
``fit`` time sets none of the column's antecedents (so every negation of that column is true),
with a :class:`UnseenCategoryWarning` (``handle_unknown="error"`` refuses it); only the columns
read are checked: ``transform(X, terms=[...])`` reads only those the named antecedents need.

Infinite values are refused, at ``fit`` and at ``transform`` time, naming the column and the
first row: an interval with an infinite bound (``a:>=inf``) is an antecedent no finite value sets.
When no column yields an antecedent, ``fit`` raises one error giving each column's reason (a
single value, or no cut point) instead of one warning a column; when the table is 0/1 but for
a few cells (one 0.5, say: it makes its column numeric), the error names the first such cell.

Performance
-----------
Everything is vectorised with numpy: MDLP works on the per-value class counts with cumulative
sums (one pass per accepted cut), and the supports of all pairs of single antecedents come from
the single antecedents packed into 64-bit words (an AND and a popcount per word and pair).
"""

from __future__ import annotations

import math
import numbers
import os
import time
import warnings
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd
from sklearn.base import BaseEstimator, TransformerMixin
from sklearn.utils.validation import check_is_fitted

from ._json import jsonable
from ._params import BOOLEAN, Interval, Options, Satisfies, validate_params
from ._validation import as_table, encode_labels, not_a_mapping, stray_binary_cell
from .errors import DataError, MissingColumnError, TimeLimitError

__all__ = [
    "Binarizer",
    "UnseenCategoryWarning",
    "ConstantColumnWarning",
    "AntecedentCapWarning",
    "IdLikeColumnWarning",
    "DEFAULT_MAX_ANTECEDENTS",
    "information_gain",
    "pair_memory",
    "mdlp_cut_points",
    "quantile_cut_points",
    "pair_counts",
]

BINARIZER_FORMAT = "fairlist.binarizer"
BINARIZER_VERSION = 1

MISSING = "missing"
"""Category name of a missing value under ``handle_missing="category"``."""


NO_CUT = "has no cut point"
"""Why a numeric column yields no antecedent when MDLP finds no cut worth making."""

QUANTILE_ADVICE = (
    "MDLP cuts only where the labels justify a cut; to cut it at quantiles pass cuts='quantile' "
    "to the estimator, numeric='quantile' to a Binarizer, or --cuts quantile on the command line"
)


class UnseenCategoryWarning(UserWarning):
    """A value met at ``transform`` time was not seen at ``fit`` time; it sets no antecedent."""


class ConstantColumnWarning(UserWarning):
    """A column is always in one category or interval at ``fit`` time (a single value, or no
    cut point); it yields no antecedent."""


class AntecedentCapWarning(UserWarning):
    """``max_antecedents`` removed some antecedents, or ``max_pair_memory_mb`` kept some single
    antecedents out of the conjunctions; the message gives the numbers."""


class IdLikeColumnWarning(UserWarning):
    """Columns with nearly one distinct value per row (names, ids, timestamps) were left out;
    ``keep_id_columns=True`` keeps them."""


# --------------------------------------------------------------------------------------------
# Cut points
# --------------------------------------------------------------------------------------------


def _entropy_rows(counts: np.ndarray) -> np.ndarray:
    """Class entropy (bits) of each row of a (m, k) count matrix; an empty row has entropy 0."""
    totals = counts.sum(axis=1, keepdims=True)
    with np.errstate(divide="ignore", invalid="ignore"):
        p = np.where(totals > 0, counts / np.where(totals > 0, totals, 1), 0.0)
        logs = np.where(p > 0, np.log2(np.where(p > 0, p, 1.0)), 0.0)
    return -(p * logs).sum(axis=1)


def mdlp_cut_points(x: np.ndarray, y: np.ndarray, deadline: float | None = None) -> np.ndarray:
    """Cut points of ``x`` chosen by the MDLP criterion (Fayyad & Irani, 1993).

    Recursive entropy minimisation: the cut ``T`` of a set ``S`` minimising the class entropy
    ``E(T; S) = |S1|/|S| Ent(S1) + |S2|/|S| Ent(S2)`` is kept if and only if

        Gain(T; S) > log2(N - 1) / N + Δ(T; S) / N,
        Δ(T; S) = log2(3^k - 2) - [k Ent(S) - k1 Ent(S1) - k2 Ent(S2)],

    with ``N = |S|`` and ``k``, ``k1``, ``k2`` the numbers of classes present in ``S``, ``S1``
    and ``S2``; then both halves are cut again. A cut lies midway between two consecutive
    distinct values. Only cuts between distinct values are candidates; the minimum over them is
    the minimum over boundary points (Fayyad & Irani's Theorem 1), so nothing is lost.

    Parameters
    ----------
    x : ndarray of shape (n,)
        Numeric values without NaN.
    y : ndarray of shape (n,)
        Class codes ``0 .. k-1``.
    deadline : float, optional
        A ``time.perf_counter()`` time: a :class:`~fairlist.errors.TimeLimitError` once it is
        past (checked before each candidate range is cut).

    Returns
    -------
    ndarray of float
        Sorted cut points (possibly empty).

    Examples
    --------
    >>> mdlp_cut_points(np.array([1, 2, 3, 10, 11, 12] * 5), np.array([0, 0, 0, 1, 1, 1] * 5))
    array([6.5])
    """
    x = np.asarray(x, dtype=float)
    y = np.asarray(y, dtype=np.intp)
    if x.shape != y.shape or x.ndim != 1:
        raise DataError(f"x and y must be 1-D of the same length, got {x.shape} and {y.shape}")
    if x.size == 0:
        return np.empty(0)
    values, inverse = np.unique(x, return_inverse=True)
    k = int(y.max()) + 1
    counts = np.bincount(inverse * k + y, minlength=values.size * k).reshape(values.size, k)
    counts = counts.astype(float)
    cuts: list[float] = []
    stack = [(0, values.size)]  # half-open ranges of distinct values still to be cut
    while stack:
        _check_deadline(deadline, len(cuts), len(cuts) + len(stack), "MDLP ranges cut")
        lo, hi = stack.pop()
        if hi - lo < 2:
            continue
        block = counts[lo:hi]
        total = block.sum(axis=0)
        n = total.sum()
        left = np.cumsum(block, axis=0)[:-1]  # left[t]: classes of values lo..lo+t
        right = total - left
        n_left = left.sum(axis=1)
        ent_left = _entropy_rows(left)
        ent_right = _entropy_rows(right)
        weighted = (n_left * ent_left + (n - n_left) * ent_right) / n
        t = int(np.argmin(weighted))
        ent_all = float(_entropy_rows(total[None, :])[0])
        gain = ent_all - weighted[t]
        k_all = int((total > 0).sum())
        k_left = int((left[t] > 0).sum())
        k_right = int((right[t] > 0).sum())
        delta = math.log2(3.0**k_all - 2.0) - (
            k_all * ent_all - k_left * ent_left[t] - k_right * ent_right[t]
        )
        if gain > (math.log2(n - 1.0) + delta) / n:
            cuts.append(0.5 * (values[lo + t] + values[lo + t + 1]))
            stack.append((lo, lo + t + 1))
            stack.append((lo + t + 1, hi))
    return np.array(sorted(cuts), dtype=float)


def quantile_cut_points(x: np.ndarray, n_bins: int) -> np.ndarray:
    """Cut points at the ``1/n_bins, 2/n_bins, …`` quantiles of ``x`` (duplicates merged).

    Cuts equal to the minimum are dropped: they would open an empty first interval. With at
    least as many bins as values, every gap between two consecutive distinct values holds a
    quantile, so the cuts split the values as the distinct values do: those are the cuts then
    (all but the smallest), without the interpolated cuts that would open empty intervals
    between them (``n_bins=10**6`` on 200 rows gives at most 199 cuts, not a million).

    Examples
    --------
    >>> quantile_cut_points(np.arange(8.0), 4)
    array([1.75, 3.5 , 5.25])
    >>> quantile_cut_points(np.array([1.0, 2.0, 2.0, 5.0]), 10**6)
    array([2., 5.])
    """
    x = np.asarray(x, dtype=float)
    if x.size == 0:
        return np.empty(0)
    if n_bins >= x.size:
        return np.unique(x)[1:]
    cuts = np.unique(np.quantile(x, np.linspace(0.0, 1.0, n_bins + 1)[1:-1]))
    return cuts[cuts > x.min()]


# --------------------------------------------------------------------------------------------
# Supports of pairs, on bit-packed columns
# --------------------------------------------------------------------------------------------

_POPCOUNT8 = np.array([bin(v).count("1") for v in range(256)], dtype=np.uint8)


def _popcount_sum(words: np.ndarray) -> np.ndarray:
    """Number of set bits of each row of a 2-D uint64 array."""
    if hasattr(np, "bitwise_count"):  # numpy >= 2.0
        return np.bitwise_count(words).sum(axis=-1, dtype=np.int64)
    as_bytes = words.view(np.uint8)
    return _POPCOUNT8[as_bytes].sum(axis=-1, dtype=np.int64)


def _check_deadline(deadline: float | None, done: int, total: int, what: str) -> None:
    """A :class:`TimeLimitError` when ``deadline`` (a ``time.perf_counter()`` time) is past."""
    if deadline is not None and time.perf_counter() >= deadline:
        raise TimeLimitError(
            f"binarizing did not finish within the time limit ({done} of {total} {what}); "
            "raise the time limit, or make fewer antecedents (max_antecedents, a higher "
            "min_support, conjunctions=False, or fewer columns)"
        )


def pair_counts(matrix: np.ndarray, deadline: float | None = None) -> np.ndarray:
    """``C[a, b]`` = number of rows where columns ``a`` and ``b`` of a boolean matrix are both set.

    The columns are packed into 64-bit words (one bit per row) and each pair costs an AND and
    a popcount per word: ``n/64`` word operations, with no floating point and no BLAS (whose
    threads stall on a busy machine). ``deadline`` (a ``time.perf_counter()`` time): a
    :class:`~fairlist.errors.TimeLimitError` once it is past.

    Examples
    --------
    >>> pair_counts(np.array([[1, 1], [1, 0], [0, 1]], dtype=bool))
    array([[2, 1],
           [1, 2]])
    """
    matrix = np.asarray(matrix, dtype=bool)
    n, r = matrix.shape
    n_words = (n + 63) // 64
    packed = np.zeros((r, n_words * 8), dtype=np.uint8)
    packed[:, : (n + 7) // 8] = np.packbits(matrix.T, axis=1)
    words = packed.view(np.uint64)  # (r, n_words); padding bits are zero
    counts = np.empty((r, r), dtype=np.int64)
    for a in range(r):
        _check_deadline(deadline, a, r, "antecedents paired into conjunctions")
        counts[a, a:] = _popcount_sum(words[a] & words[a:])
        counts[a:, a] = counts[a, a:]
    return counts


def pair_memory(n_rows: int, r: int, labels: bool = True) -> int:
    """Bytes that mining the conjunctions of ``r`` single antecedents on ``n_rows`` rows takes
    at its peak, estimated before anything is allocated: the (r, r) count matrices (a second
    one for the positive rows when there are ``labels``), the boolean (n_rows, r) matrix, its
    packed words and one row's AND temporary, and the upper-triangle index arrays.

    Examples
    --------
    >>> pair_memory(200_000, 300) / 2**20 < 80
    True
    """
    words = 8 * ((n_rows + 63) // 64)
    return 8 * r * r * (2 if labels else 1) + n_rows * r + 2 * r * words + 17 * (r * (r - 1) // 2)


def information_gain(n_in: np.ndarray, pos_in: np.ndarray, n: int, pos: int) -> np.ndarray:
    """Information (bits per row) an antecedent gives about the label: ``H(y) - H(y | a)``.

    ``n_in`` and ``pos_in`` are the rows the antecedent covers and the positives among them;
    ``n`` and ``pos`` the table's. It is the mutual information of the antecedent and the
    label: 0 for an antecedent independent of the label and for one that covers every row or
    none, ``H(y)`` for one that is the label. It weighs support and purity together: a rule on
    a rare antecedent, however pure, can change few predictions, and so can a rule on a common
    one whose rows have the table's label mix; an antecedent and its negation score the same.

    Examples
    --------
    >>> information_gain(np.array([50, 50, 0]), np.array([50, 25, 0]), 100, 50).round(3)
    array([1., 0., 0.])
    """
    n_in = np.asarray(n_in, dtype=float)
    pos_in = np.asarray(pos_in, dtype=float)
    inside = np.stack([n_in - pos_in, pos_in], axis=1)
    outside = np.array([n - pos, pos], dtype=float) - inside
    h_all = float(_entropy_rows(np.array([[n - pos, pos]], dtype=float))[0])
    h_cond = (n_in * _entropy_rows(inside) + (n - n_in) * _entropy_rows(outside)) / max(n, 1)
    return np.maximum(h_all - h_cond, 0.0)


def _balance(n_in: np.ndarray, n: int) -> np.ndarray:
    """Entropy (bits) of an antecedent's split of the rows: the ranking without a label (the
    antecedents closest to splitting the table in half first)."""
    n_in = np.asarray(n_in, dtype=float)
    return _entropy_rows(np.stack([n_in, n - n_in], axis=1))


# --------------------------------------------------------------------------------------------
# Names
# --------------------------------------------------------------------------------------------


def _fmt(value: float, digits: int = 6) -> str:
    """Compact text of a cut point: ``5119`` rather than ``5119.0``; ``digits`` significant
    digits otherwise."""
    if float(value).is_integer():
        return str(int(value))
    return f"{value:.{digits}g}"


def _digits(cuts: np.ndarray) -> int:
    """The fewest significant digits, at least 6, that print the cut points as distinct texts.

    Two MDLP cuts may differ beyond the sixth digit (``1.0000001`` and ``1.0000002``): printed
    alike, distinct intervals would read as one (``x:1-1``) or share a name. 17 digits tell any
    two distinct floats apart.
    """
    for digits in range(6, 18):
        if len({_fmt(c, digits) for c in cuts}) == len(cuts):
            return digits
    return 17  # pragma: no cover - 17 digits always round-trip a float


def _interval_names(cuts: np.ndarray, integer: bool, digits: int | None = None) -> list[str]:
    """Names of the intervals ``(-inf, c1), [c1, c2), …, [ck, inf)`` (see module docstring).

    Cut points are printed with as many digits as keep them apart (:func:`_digits`; ``digits``
    forces a number, 6 being what fairlist 0.1 printed).

    Examples
    --------
    >>> _interval_names(np.array([2.5, 7.0]), integer=False)
    ['<2.5', '2.5-7', '>=7']
    >>> _interval_names(np.array([1.0000001, 1.0000002]), integer=False)
    ['<1.0000001', '1.0000001-1.0000002', '>=1.0000002']
    """
    if cuts.size == 0:
        return []
    digits = _digits(cuts) if digits is None else digits
    fmt = lambda v: _fmt(v, digits)  # noqa: E731
    names = [f"<{fmt(cuts[0])}"]
    for lo, hi in zip(cuts[:-1], cuts[1:], strict=True):
        upper = hi - 1 if integer else hi
        if integer and upper == lo:
            names.append(fmt(lo))
            continue
        sep = ".." if (lo < 0 or upper < 0) else "-"
        names.append(f"{fmt(lo)}{sep}{fmt(upper)}")
    names.append(f">={fmt(cuts[-1])}")
    return names


# --------------------------------------------------------------------------------------------
# Column specifications (what fit learned about one input column)
# --------------------------------------------------------------------------------------------


@dataclass
class _Column:
    """How one input column becomes single antecedents."""

    name: Hashable
    kind: str  # "categorical" or "numeric"
    names: list[str]  # antecedent names, in output order
    categories: list[Any] = field(default_factory=list)  # categorical: values, output order
    cut_points: np.ndarray | None = None  # numeric: sorted cut points
    integer: bool = False  # numeric: integer-valued at fit time
    missing: bool = False  # "column:missing" is one of the antecedents (the last one)
    unused: str = ""  # why the column yields no antecedent (then ``names`` is empty)


def _is_numeric(series: pd.Series) -> bool:
    return pd.api.types.is_numeric_dtype(series.dtype) and not pd.api.types.is_bool_dtype(
        series.dtype
    )


def _finite(name: Hashable, values: np.ndarray, rows: np.ndarray) -> np.ndarray:
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


def _as_frame(X: Any) -> pd.DataFrame:
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


# --------------------------------------------------------------------------------------------
# The transformer
# --------------------------------------------------------------------------------------------


def _increasing_cuts(mapping: Any) -> bool:
    """Whether every value of ``mapping`` is a strictly increasing sequence of finite numbers."""
    for cuts in mapping.values():
        arr = np.asarray(cuts, dtype=float)
        if arr.ndim != 1 or not np.all(np.isfinite(arr)) or np.any(np.diff(arr) <= 0):
            return False
    return True


DEFAULT_MAX_ANTECEDENTS = 300
"""The default antecedent budget (see :class:`Binarizer`'s ``max_antecedents`` and
docs/large-tables.md for the measurement behind it)."""

DEFAULT_MAX_PAIR_MEMORY_MB = 512.0
"""The default memory cap of mining conjunctions (:func:`pair_memory`)."""

_BLOCK = 64
"""Output antecedents computed together by ``transform`` (a bool row each) before they are
copied into the (rows, antecedents) output: a deadline check per block."""

ID_MIN_DISTINCT = 50
"""A column with fewer distinct values is never taken for an identifier."""

ID_TEXT_SHARE = 0.5
"""A text (or date, or category) column whose distinct values number at least this share of its
non-missing rows is ID-like: names, case numbers, timestamps."""

ID_INTEGER_SHARE = 0.95
"""An integer column whose distinct values number at least this share of its non-missing rows
is ID-like: a row id. (A float column is never: measured quantities are often all distinct, and
cutting them makes a few intervals, not one antecedent per row.)"""


def _memory_bytes() -> int:
    """The physical memory of this machine (bytes; 64 GiB when it cannot be read)."""
    try:
        return int(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES"))
    except (AttributeError, ValueError, OSError):  # pragma: no cover - not POSIX
        return 64 * 2**30


def _id_like(series: pd.Series) -> str:
    """Why ``series`` looks like an identifier (nearly one distinct value per row), or ``""``.

    Text, dates and categories: at least ``ID_TEXT_SHARE`` of the non-missing rows distinct;
    integers: at least ``ID_INTEGER_SHARE``; never under ``ID_MIN_DISTINCT`` distinct values
    (on a small table every column is "nearly one value per row", and costs little).

    Examples
    --------
    >>> _id_like(pd.Series(range(1000)))
    '1000 distinct integers in 1000 rows'
    >>> _id_like(pd.Series([1.5, 2.5] * 500)), _id_like(pd.Series(["a", "b"] * 500))
    ('', '')
    """
    present = series.dropna()
    m = len(present)
    if m < ID_MIN_DISTINCT:
        return ""
    if _is_numeric(series):
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


#: What each parameter of :class:`Binarizer` may be.
PARAMETER_CONSTRAINTS: dict[str, list] = {
    "numeric": [Options(("mdlp", "quantile"))],
    "n_bins": [Interval(numbers.Integral, 2, None, closed="left")],
    "cut_points": [
        None,
        Satisfies(
            lambda v: isinstance(v, Mapping) and _increasing_cuts(v),
            "a mapping column -> strictly increasing sequence of finite numbers",
        ),
    ],
    "categorical": [
        None,
        Satisfies(lambda v: not isinstance(v, (str, bytes)), "a sequence of column names"),
    ],
    "negations": [BOOLEAN],
    "conjunctions": [BOOLEAN],
    "min_support": [Interval(numbers.Real, 0, 1, closed="both")],
    "max_antecedents": [None, Interval(numbers.Integral, 1, None, closed="left")],
    "max_pair_memory_mb": [Interval(numbers.Real, 0, None, closed="neither")],
    "keep_id_columns": [BOOLEAN],
    "handle_missing": [Options(("error", "category"))],
    "handle_unknown": [Options(("error", "ignore"))],
}

#: The parameters a fitted binarizer's document may lack (it was written before they existed);
#: the model-file checker reads this.
LATER_PARAMETERS = ("max_pair_memory_mb", "keep_id_columns")


class Binarizer(TransformerMixin, BaseEstimator):
    """Turn a DataFrame into binary antecedents, as the FairCORELS paper prepares its data.

    Parameters
    ----------
    sensitive : column name, list of column names, or None, default=None
        The sensitive column(s). They are never antecedents; ``fit`` checks that they exist and
        hold at least two groups. ``transform`` ignores them (they may be absent there).
    numeric : {"mdlp", "quantile"}, default="mdlp"
        How numeric columns without explicit ``cut_points`` are cut. ``"mdlp"`` (supervised,
        needs ``y``) is the paper's choice; ``"quantile"`` uses ``n_bins`` quantiles. MDLP
        finds no cut in a column whose values do not separate the labels enough to pay for the
        cut; that column then yields no antecedent, with a :class:`ConstantColumnWarning` that
        says so. There is no silent fallback to quantiles: the antecedents would then depend on
        which columns MDLP happened to reject, and the paper's discretisation would not be
        reproduced; ask for ``"quantile"`` when every numeric column should be cut.
    n_bins : int, default=4
        Number of quantile intervals (``numeric="quantile"`` only); fewer when values repeat,
        and never more than the column's distinct values (with at least as many bins as rows,
        each distinct value is its own interval).
    cut_points : mapping of column name to sequence of float, or None, default=None
        Explicit cut points per numeric column (they win over ``numeric``). The intervals are
        ``(-inf, c1), [c1, c2), …, [ck, inf)``. Use it to apply the cut points learned on one
        part of the data to another part (``cut_points=other.cut_points_``).
    categorical : sequence of column names or None, default=None
        Numeric columns to one-hot encode as categories instead of cutting them.
    negations : bool, default=True
        Add ``not X`` for every single antecedent ``X``.
    conjunctions : bool, default=True
        Add ``X && Y`` for single antecedents of different columns with support >= min_support.
    min_support : float in [0, 1], default=0.1
        Minimal fraction of the fitted rows that a conjunction must cover.
    max_antecedents : int or None, default=300
        The antecedent budget. When more antecedents are made, the ``max_antecedents`` most
        informative about the label are kept (:func:`information_gain`, the mutual information
        of the antecedent and the label; without ``y``, the most balanced splits), identical
        columns counted once (``not sex:F`` is ``sex:M``), with an
        :class:`AntecedentCapWarning` giving the numbers made and kept
        (``n_antecedents_made_``, ``n_antecedents_kept_``). Conjunctions are then mined among
        the ``max_antecedents`` most informative single antecedents only. None keeps every
        antecedent made (as fairlist 0.1 did). A certified list is optimal over the kept
        antecedents (see docs/large-tables.md).
    max_pair_memory_mb : float, default=512
        Memory that mining conjunctions may take (MiB), estimated before pairing
        (:func:`pair_memory`): when pairing every candidate would take more, conjunctions are
        mined among the most informative single antecedents that fit, with an
        :class:`AntecedentCapWarning` giving the estimate.
    keep_id_columns : bool, default=False
        False: a column whose distinct values are nearly one per row (names, ids, case numbers,
        timestamps; an integer row id) is left out, with an :class:`IdLikeColumnWarning`
        naming it (``id_columns_``): its antecedents each describe a row or two, and at
        predict time its values are new. True: every column is used. Columns named in
        ``cut_points`` or ``categorical`` are always used.
    handle_missing : {"error", "category"}, default="error"
        Refuse missing values (the error names the column and the row count), or make
        ``column:missing`` an antecedent of its own.
    handle_unknown : {"ignore", "error"}, default="ignore"
        What ``transform`` does with a category (or a missing value) not seen at ``fit`` time:
        set none of the column's antecedents (so every negation of that column holds), with an
        :class:`UnseenCategoryWarning` naming the column and the values, as the exported
        Python and SQL of a model do (:mod:`fairlist.export`); or raise an error naming them.
        Only the columns ``transform`` reads are checked (see ``terms``).

    The output of ``transform`` is a DataFrame of ``uint8`` named by the antecedents (with the
    input's index) when the input is a DataFrame, else an array; :meth:`to_dict` and
    :meth:`from_dict` save and restore a fitted binarizer as JSON.

    Attributes
    ----------
    feature_names_in_ : ndarray of str
        Columns seen in ``fit`` (including the sensitive one).
    n_features_in_ : int
    columns_ : list
        Per used column, how it becomes antecedents (internal, read-only).
    cut_points_ : dict
        Cut points of every numeric column that was cut.
    categories_ : dict
        Categories (in output order) of every one-hot encoded column.
    single_names_ : list of str
        Names of the single antecedents ``R``.
    supports_ : ndarray of float
        Support (fraction of the fitted rows) of each output antecedent.
    n_antecedents_made_ : int
        Antecedents made: single ones, negations and mined conjunctions.
    n_antecedents_kept_ : int
        Antecedents kept (the output's width).
    n_dropped_ : int
        ``n_antecedents_made_ - n_antecedents_kept_``: removed by ``max_antecedents``.
    id_columns_ : list
        Columns left out as ID-like (see ``keep_id_columns``).

    Examples
    --------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"age": [19, 35, 50, 23, 41, 60], "sex": list("FMFMFM"),
    ...                    "job": ["a", "b", "a", "b", "b", "a"]})
    >>> b = Binarizer(sensitive="sex", cut_points={"age": [21, 46]}, min_support=0.3)
    >>> b.fit_transform(df).shape
    (6, 12)
    >>> list(b.get_feature_names_out()[:5])
    ['age:<21', 'age:21-45', 'age:>=46', 'job:a', 'job:b']
    >>> b.transform(df, terms=["job:a", "not age:<21"]).to_numpy().T
    array([[1, 0, 1, 0, 0, 1],
           [0, 1, 1, 1, 1, 1]], dtype=uint8)
    """

    def __init__(
        self,
        *,
        sensitive: Hashable | None = None,
        numeric: str = "mdlp",
        n_bins: int = 4,
        cut_points: Mapping[Hashable, Sequence[float]] | None = None,
        categorical: Sequence[Hashable] | None = None,
        negations: bool = True,
        conjunctions: bool = True,
        min_support: float = 0.1,
        max_antecedents: int | None = DEFAULT_MAX_ANTECEDENTS,
        max_pair_memory_mb: float = DEFAULT_MAX_PAIR_MEMORY_MB,
        keep_id_columns: bool = False,
        handle_missing: str = "error",
        handle_unknown: str = "ignore",
    ) -> None:
        self.sensitive = sensitive
        self.numeric = numeric
        self.n_bins = n_bins
        self.cut_points = cut_points
        self.categorical = categorical
        self.negations = negations
        self.conjunctions = conjunctions
        self.min_support = min_support
        self.max_antecedents = max_antecedents
        self.max_pair_memory_mb = max_pair_memory_mb
        self.keep_id_columns = keep_id_columns
        self.handle_missing = handle_missing
        self.handle_unknown = handle_unknown

    # ---------------------------------------------------------------- validation

    def _validate_frame(self, X: Any) -> pd.DataFrame:
        frame = _as_frame(X)
        if frame.shape[0] == 0:
            raise DataError("X has no rows")
        if frame.shape[1] == 0:
            raise DataError("X has no columns")
        return frame

    def _sensitive_columns(self) -> list[Hashable]:
        """The sensitive column names as a list (empty when there is none)."""
        if self.sensitive is None:
            return []
        if isinstance(self.sensitive, (list, tuple)):
            return list(self.sensitive)
        return [self.sensitive]

    def _check_sensitive(self, frame: pd.DataFrame) -> None:
        for name in self._sensitive_columns():
            if name not in frame.columns:
                raise MissingColumnError(
                    f"sensitive column {name!r} is not in X (columns: "
                    f"{list(frame.columns)[:10]}{' …' if frame.shape[1] > 10 else ''})"
                )
            groups = frame[name]
            n_missing = int(groups.isna().sum())
            if n_missing:
                raise DataError(f"sensitive column {name!r} has {n_missing} missing values")
            n_groups = groups.nunique()
            if n_groups < 2:
                raise DataError(
                    f"sensitive column {name!r} has {n_groups} group; at least 2 are needed"
                )

    # ---------------------------------------------------------------- fit

    def _fit_column(
        self,
        name: Hashable,
        series: pd.Series,
        codes: np.ndarray | None,
        deadline: float | None = None,
    ) -> _Column:
        missing = series.isna().to_numpy()
        n_missing = int(missing.sum())
        if n_missing and self.handle_missing == "error":
            raise DataError(
                f"column {name!r} has {n_missing} missing values (NaN or None, of {series.size} "
                f"rows; first at row {int(np.flatnonzero(missing)[0])}); drop "
                "or impute them, or pass handle_missing='category' (to the estimator or the "
                "Binarizer; --handle-missing category on the command line)"
            )
        present = series[~missing]
        explicit = self.cut_points is not None and name in self.cut_points
        force_categorical = self.categorical is not None and name in self.categorical
        if explicit and not _is_numeric(series):
            raise DataError(f"cut_points given for column {name!r}, which is not numeric")
        if (explicit or _is_numeric(series)) and not force_categorical:
            values = _finite(name, present.to_numpy(dtype=float), np.flatnonzero(~missing))
            integer = bool(values.size) and bool(np.all(np.floor(values) == values))
            if explicit:
                cuts = np.asarray(self.cut_points[name], dtype=float)
            elif values.size == 0 or np.unique(values).size < 2:
                cuts = np.empty(0)
            elif self.numeric == "quantile":
                cuts = quantile_cut_points(values, int(self.n_bins))
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
            col = _Column(
                name, "numeric", _interval_names(cuts, integer), cut_points=cuts, integer=integer
            )
        else:
            if isinstance(series.dtype, pd.CategoricalDtype):
                observed = set(present.unique().tolist())
                categories = [c for c in series.cat.categories if c in observed]
            else:
                categories = sorted(present.unique().tolist(), key=lambda v: (str(type(v)), v))
            col = _Column(
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

    def fit(self, X: Any, y: Any = None, *, deadline: float | None = None) -> Binarizer:
        """Learn the single antecedents, mine the conjunctions and keep the budget, on ``X``.

        Parameters
        ----------
        X : DataFrame of shape (n_samples, n_columns)
            The table (arrays are accepted; their columns are named ``x0, x1, …``).
        y : array-like of shape (n_samples,), optional
            Binary label; needed by ``numeric="mdlp"`` when there is a numeric column to cut,
            and used to rank the antecedents under ``max_antecedents``.
        deadline : float, optional
            A ``time.perf_counter()`` time (the estimator's ``time_limit`` counted from the
            start of its ``fit``): checked between columns, inside MDLP, while ranking, mining
            conjunctions and choosing the kept antecedents.

        Returns
        -------
        self

        Raises
        ------
        TimeLimitError
            When ``deadline`` passes before the binarizer is fitted; the message says how far
            it got (columns cut, or antecedents paired).
        """
        self._fit(X, y, deadline)
        return self

    def fit_transform(
        self,
        X: Any,
        y: Any = None,
        *,
        deadline: float | None = None,
        as_array: bool = False,
        **fit_params: Any,
    ) -> np.ndarray | pd.DataFrame:
        """:meth:`fit` then :meth:`transform` of the same ``X``, reading its columns once."""
        frame, codes = self._fit(X, y, deadline)
        out = self._assemble(codes, np.arange(len(self._names_out)), frame.shape[0], deadline)
        return self._wrap(X, out, list(self._names_out), as_array)

    def _fit(
        self, X: Any, y: Any, deadline: float | None
    ) -> tuple[pd.DataFrame, dict[int, np.ndarray]]:
        """Fit (see :meth:`fit`); the frame read and each used column's codes."""
        validate_params(type(self).__name__, PARAMETER_CONSTRAINTS, self.get_params(deep=False))
        frame = self._validate_frame(X)
        self._check_sensitive(frame)
        labels = None
        if y is not None:
            labels = encode_labels(y, n_rows=frame.shape[0], require_two=False)[1]
        self._check_named_columns(frame)
        self.feature_names_in_ = np.asarray([str(c) for c in frame.columns], dtype=object)
        self.n_features_in_ = frame.shape[1]
        self._fit_columns(frame, labels, deadline)
        codes = self._codes(frame, range(len(self.columns_)), False, deadline)
        self._choose(codes, labels, frame.shape[0], deadline)
        self._names_out = self._output_names()
        return frame, codes

    def _check_named_columns(self, frame: pd.DataFrame) -> None:
        """The columns named in ``cut_points`` and ``categorical`` exist and are not sensitive."""
        for name in list(self.cut_points or {}) + list(self.categorical or []):
            if name not in frame.columns:
                raise MissingColumnError(
                    f"column {name!r} named in cut_points/categorical is not in X"
                )
            if name in self._sensitive_columns():
                raise DataError(
                    f"column {name!r} is the sensitive column: it is never an antecedent, so "
                    "it cannot be named in cut_points/categorical"
                )

    def _id_columns(
        self, frame: pd.DataFrame, names: list[Hashable], deadline: float | None
    ) -> dict[Hashable, str]:
        """The ID-like columns among ``names`` and why (see ``keep_id_columns``)."""
        if self.keep_id_columns:
            return {}
        named = set(self.cut_points or {}) | set(self.categorical or [])
        found = {}
        for done, name in enumerate(names):
            _check_deadline(deadline, done, len(names), "columns checked for identifiers")
            if name not in named:
                why = _id_like(frame[name])
                if why:
                    found[name] = why
        return found

    def _fit_columns(
        self, frame: pd.DataFrame, codes: np.ndarray | None, deadline: float | None = None
    ) -> None:
        """Each column's single antecedents (``columns_``, ``cut_points_``, ``categories_``,
        ``single_names_``); a column that yields none is warned about, and so are the ID-like
        columns left out. ``deadline``: see :meth:`fit`."""
        names = [c for c in frame.columns if c not in self._sensitive_columns()]
        ids = self._id_columns(frame, names, deadline)
        self.id_columns_ = list(ids)
        if ids:
            shown = "; ".join(f"{name!r} ({why})" for name, why in ids.items())
            warnings.warn(
                f"{len(ids)} column(s) look like identifiers (nearly one distinct value per "
                f"row) and are left out: {shown}; pass keep_id_columns=True (to the estimator "
                "or the Binarizer; --keep-id-columns on the command line) to use them",
                IdLikeColumnWarning,
                stacklevel=4,  # the caller of fit
            )
        columns = []
        for done, name in enumerate(names):
            _check_deadline(deadline, done, len(names), "columns cut")
            if name in ids:
                col = _Column(name, "categorical", [])
                col.unused = f"looks like an identifier ({ids[name]})"
                columns.append(col)
                continue
            columns.append(self._fit_column(name, frame[name], codes, deadline))
        if not any(c.names for c in columns):
            raise DataError(self._no_antecedent(frame, columns))
        for col in columns:
            if not col.names and col.name not in ids:
                advice = f" ({QUANTILE_ADVICE})" if col.unused == NO_CUT else ""
                warnings.warn(
                    f"column {col.name!r} {col.unused} at fit time; it yields no "
                    f"antecedent{advice}",
                    ConstantColumnWarning,
                    stacklevel=4,  # the caller of fit
                )
        self.columns_ = [c for c in columns if c.names]
        self.cut_points_ = {c.name: c.cut_points for c in self.columns_ if c.kind == "numeric"}
        self.categories_ = {c.name: c.categories for c in self.columns_ if c.kind == "categorical"}
        self.single_names_ = [n for c in self.columns_ for n in c.names]

    # ---------------------------------------------------------------- choosing the antecedents

    def _single_index(self) -> tuple[np.ndarray, np.ndarray]:
        """For each single antecedent, its column (index into ``columns_``) and its code in
        that column."""
        widths = [len(c.names) for c in self.columns_]
        column = np.repeat(np.arange(len(widths)), widths)
        starts = np.concatenate([[0], np.cumsum(widths)[:-1]]).astype(np.intp)
        return column, np.arange(column.size) - starts[column]

    def _single_matrix(self, codes: dict[int, np.ndarray], singles: np.ndarray) -> np.ndarray:
        """The (n, len(singles)) boolean matrix of the single antecedents ``singles``."""
        column, local = self._single_index()
        n = next(iter(codes.values())).size if codes else 0
        out = np.empty((len(singles), n), dtype=bool)  # row per antecedent: contiguous writes
        for j, k in enumerate(singles):
            np.equal(codes[int(column[k])], local[k], out=out[j])
        return out.T

    def _choose(
        self,
        codes: dict[int, np.ndarray],
        labels: np.ndarray | None,
        n: int,
        deadline: float | None,
    ) -> None:
        """Mine the conjunctions and keep the budget: sets ``_single_keep``, ``_negated``,
        ``_pairs``, ``supports_`` and the counts made and kept.

        Every single antecedent and negation is a candidate, and every conjunction of two
        single antecedents of different columns with support >= ``min_support``, mined among
        the ``max_antecedents`` best-ranked single antecedents (all of them without a budget)
        and as many as ``max_pair_memory_mb`` allows. With a budget and more candidates than
        it, the best-ranked are kept, identical columns (and ones that hold on every row or
        none) skipped. Ranking: :func:`information_gain` with labels, :func:`_balance` without.
        """
        column, local = self._single_index()
        r = column.size
        count = np.empty(r, dtype=np.int64)
        pos = np.zeros(r, dtype=np.int64)
        for c, col in enumerate(self.columns_):
            _check_deadline(deadline, c, len(self.columns_), "columns counted")
            width = len(col.names)
            found = codes[c] >= 0
            count[column == c] = np.bincount(codes[c][found], minlength=width)
            if labels is not None:
                hit = found & (labels == 1)
                pos[column == c] = np.bincount(codes[c][hit], minlength=width)
        n_pos = 0 if labels is None else int((labels == 1).sum())
        if labels is not None:
            single_score = information_gain(count, pos, n, n_pos)
        else:
            single_score = _balance(count, n)
        order = np.argsort(-single_score, kind="stable")
        budget = self.max_antecedents
        pool = order if budget is None else order[:budget]
        pairs, pair_count, pair_pos = self._mine_pairs(codes, labels, n, pool, deadline)
        neg = np.arange(r) if self.negations else np.empty(0, dtype=np.intp)
        made = r + neg.size + pairs.shape[0]
        self.n_antecedents_made_ = made
        if budget is None or made <= budget:
            keep, neg_keep, pair_keep = np.arange(r), neg, np.arange(pairs.shape[0])
        else:
            if labels is not None:
                pair_score = information_gain(pair_count, pair_pos, n, n_pos)
            else:
                pair_score = _balance(pair_count, n)
            keep, neg_keep, pair_keep = self._keep_best(
                codes, single_score, neg, pairs, pair_score, budget, deadline
            )
        self._single_keep = keep
        self._negated = neg_keep
        self._pairs = pairs[pair_keep]
        self.n_antecedents_kept_ = keep.size + neg_keep.size + pair_keep.size
        self.n_dropped_ = made - self.n_antecedents_kept_
        self.supports_ = np.concatenate(
            [count[keep] / n, 1.0 - count[neg_keep] / n, pair_count[pair_keep] / n]
        )
        if self.n_dropped_:
            kind = "information gain about the label" if labels is not None else "balance"
            warnings.warn(
                f"kept {self.n_antecedents_kept_} of the {made} antecedents made "
                f"({r} single, {neg.size} negations, {pairs.shape[0]} conjunctions): "
                f"max_antecedents={budget} keeps the best by {kind}, identical ones once; "
                "a certified list is optimal over the kept ones (raise max_antecedents, or "
                "None to keep all; see docs/large-tables.md)",
                AntecedentCapWarning,
                stacklevel=4,  # the caller of fit
            )

    def _mine_pairs(
        self,
        codes: dict[int, np.ndarray],
        labels: np.ndarray | None,
        n: int,
        pool: np.ndarray,
        deadline: float | None,
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The conjunctions of two single antecedents of ``pool`` (best first) from different
        columns whose support is at least ``min_support``: index pairs (into the single
        antecedents, smaller first), row counts and positive counts. The memory is estimated
        first (:func:`pair_memory`): over ``max_pair_memory_mb`` the pool is cut to the best
        that fit, with a warning."""
        empty = np.empty((0, 2), dtype=np.intp), np.empty(0, np.int64), np.empty(0, np.int64)
        if not self.conjunctions or pool.size < 2:
            return empty
        column, _ = self._single_index()
        cap = float(self.max_pair_memory_mb) * 2**20
        has_labels = labels is not None
        need = pair_memory(n, pool.size, has_labels)
        if need > cap:
            fit = pool.size
            while fit > 2 and pair_memory(n, fit, has_labels) > cap:
                fit = int(fit * 0.9)
            warnings.warn(
                f"pairing {pool.size} single antecedents into conjunctions would take about "
                f"{need / 2**20:,.0f} MiB (max_pair_memory_mb={self.max_pair_memory_mb:g}); "
                f"conjunctions are mined among the {fit} best-ranked ones only",
                AntecedentCapWarning,
                stacklevel=5,  # the caller of fit
            )
            pool = pool[:fit]
        pool = np.sort(pool)  # pairs (a, b) with a < b, in the order of the single antecedents
        matrix = self._single_matrix(codes, pool)
        counts = pair_counts(matrix, deadline)
        i, j = np.triu_indices(pool.size, k=1)
        keep = (column[pool[i]] != column[pool[j]]) & (counts[i, j] >= self.min_support * n - 1e-9)
        keep &= counts[i, j] > 0
        i, j = i[keep], j[keep]
        pair_count = counts[i, j]
        del counts
        if has_labels:
            positives = pair_counts(matrix[labels == 1], deadline)
            pair_pos = positives[i, j]
        else:
            pair_pos = np.zeros_like(pair_count)
        return np.stack([pool[i], pool[j]], axis=1), pair_count, pair_pos

    def _keep_best(
        self,
        codes: dict[int, np.ndarray],
        single_score: np.ndarray,
        neg: np.ndarray,
        pairs: np.ndarray,
        pair_score: np.ndarray,
        budget: int,
        deadline: float | None,
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The ``budget`` best candidates by score (ties: single antecedents, then negations,
        then conjunctions, each in output order), skipping a column identical to one kept or
        constant on the fitted rows; the kept single antecedents, negations and pairs (indices,
        sorted)."""
        r = single_score.size
        scores = np.concatenate([single_score, single_score[neg], pair_score])
        order = np.argsort(-scores, kind="stable")
        column, local = self._single_index()

        def single(k: int) -> np.ndarray:
            return codes[int(column[k])] == local[k]

        seen: set[bytes] = set()
        kept: list[int] = []
        for done, t in enumerate(order):
            if done % 64 == 0:
                _check_deadline(deadline, len(kept), budget, "antecedents kept")
            if t < r:
                bits = single(int(t))
            elif t < r + neg.size:
                bits = ~single(int(neg[t - r]))
            else:
                a, b = pairs[t - r - neg.size]
                bits = single(int(a)) & single(int(b))
            key = np.packbits(bits).tobytes()
            if key in seen or not bits.any() or bits.all():
                continue
            seen.add(key)
            kept.append(int(t))
            if len(kept) == budget:
                break
        kept_arr = np.sort(np.asarray(kept, dtype=np.intp))
        singles = kept_arr[kept_arr < r]
        negs = neg[kept_arr[(kept_arr >= r) & (kept_arr < r + neg.size)] - r]
        pair_keep = kept_arr[kept_arr >= r + neg.size] - r - neg.size
        return singles, np.sort(negs), pair_keep

    def _no_antecedent(self, frame: pd.DataFrame, columns: list[_Column]) -> str:
        """Why fit built no antecedent: each column's reason, and the cell that kept a table of
        0/1 columns from being read as antecedents (one 0.5 makes its column numeric, and MDLP
        may find no cut worth making in any column)."""
        if not columns:
            return "no antecedent could be built: every column of X is a sensitive one"
        reasons = ", ".join(f"column {c.name!r} {c.unused}" for c in columns)
        message = f"no antecedent could be built: {reasons}"
        if any(c.unused == NO_CUT for c in columns):
            message += f" ({QUANTILE_ADVICE})"
        if any(c.name in self.id_columns_ for c in columns):
            message += " (keep_id_columns=True uses the ID-like ones)"
        stray = stray_binary_cell(frame[[c.name for c in columns]])
        if stray is not None:
            message += (
                f"; column {stray[0]!r} is 0/1 but for {stray[2]!r} at row {stray[1]}: if the "
                "table holds antecedents, fix that cell"
            )
        return message

    def _output_names(self) -> np.ndarray:
        """Names of the output antecedents: kept singles, negations, conjunctions."""
        singles = self.single_names_
        names = [singles[k] for k in self._single_keep]
        names += [f"not {singles[k]}" for k in self._negated]
        names += [f"{singles[a]} && {singles[b]}" for a, b in self._pairs]
        return np.asarray(names, dtype=object)

    # ---------------------------------------------------------------- transform

    def _codes(
        self, frame: pd.DataFrame, which: Any, warn: bool, deadline: float | None = None
    ) -> dict[int, np.ndarray]:
        """Each column ``c`` of ``which`` (indices into ``columns_``) as codes: ``k`` for its
        ``k``-th single antecedent, -1 for none (an unseen value, see ``handle_unknown``)."""
        n = frame.shape[0]
        which = list(which)
        out: dict[int, np.ndarray] = {}
        for done, c in enumerate(which):
            _check_deadline(deadline, done, len(which), "columns read")
            col = self.columns_[c]
            series = frame[col.name]
            missing = series.isna().to_numpy()
            width = len(col.names)
            if missing.any() and not col.missing:
                if self.handle_missing == "error":
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
                    if self.handle_unknown == "error":
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
                _finite(col.name, values[~missing], np.flatnonzero(~missing))
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
                    if self.handle_unknown == "error":
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

    def _term_indices(self, terms: Any) -> np.ndarray:
        """Output indices of ``terms`` (antecedent names, or output indices)."""
        position = {str(name): k for k, name in enumerate(self._names_out)}
        out = []
        for term in terms:
            if isinstance(term, numbers.Integral) and not isinstance(term, bool):
                if not 0 <= int(term) < len(self._names_out):
                    raise DataError(
                        f"terms: index {term} is not one of the {len(self._names_out)} antecedents"
                    )
                out.append(int(term))
            elif str(term) in position:
                out.append(position[str(term)])
            else:
                raise DataError(f"terms: {term!r} is not an antecedent of this binarizer")
        return np.asarray(out, dtype=np.intp)

    def _parts(self, j: int) -> tuple[str, tuple[int, ...]]:
        """Output antecedent ``j`` as ("single" | "not" | "and", its single antecedents)."""
        s, g = self._single_keep.size, self._negated.size
        if j < s:
            return "single", (int(self._single_keep[j]),)
        if j < s + g:
            return "not", (int(self._negated[j - s]),)
        a, b = self._pairs[j - s - g]
        return "and", (int(a), int(b))

    def _assemble(
        self, codes: dict[int, np.ndarray], outputs: np.ndarray, n: int, deadline: float | None
    ) -> np.ndarray:
        """The (n, len(outputs)) ``uint8`` matrix of the output antecedents ``outputs``; a
        :class:`~fairlist.errors.DataError` with the estimate, before allocating, when it
        exceeds half the memory. Antecedents are computed a block of ``_BLOCK`` at a time (one
        contiguous row each), then copied into their columns, the deadline checked per block."""
        need = n * len(outputs) + min(_BLOCK, len(outputs)) * n
        if need > _memory_bytes() // 2:
            raise DataError(
                f"the antecedents of {n} rows x {len(outputs)} antecedents would take about "
                f"{need / 2**30:,.1f} GiB, over half of this machine's memory; keep fewer "
                "antecedents (max_antecedents), transform fewer rows at a time, or ask for "
                "the terms needed only (transform(X, terms=...))"
            )
        column, local = self._single_index()
        out = np.empty((n, len(outputs)), dtype=np.uint8)
        buf = np.empty((min(_BLOCK, len(outputs)), n), dtype=bool)
        for lo in range(0, len(outputs), _BLOCK):
            _check_deadline(deadline, lo, len(outputs), "antecedents written")
            block = outputs[lo : lo + _BLOCK]
            for row, j in enumerate(block):
                kind, parts = self._parts(int(j))
                k = parts[0]
                np.equal(codes[int(column[k])], local[k], out=buf[row])
                if kind == "not":
                    np.logical_not(buf[row], out=buf[row])
                elif kind == "and":
                    b = parts[1]
                    buf[row] &= codes[int(column[b])] == local[b]
            out[:, lo : lo + len(block)] = buf[: len(block)].T.view(np.uint8)
        return out

    @staticmethod
    def _wrap(
        X: Any, out: np.ndarray, names: list[str], as_array: bool = False
    ) -> np.ndarray | pd.DataFrame:
        if isinstance(X, pd.DataFrame) and not as_array:
            return pd.DataFrame(out, columns=names, index=X.index, copy=False)
        return out

    def transform(
        self,
        X: Any,
        terms: Sequence[Any] | None = None,
        *,
        deadline: float | None = None,
        as_array: bool = False,
    ) -> np.ndarray | pd.DataFrame:
        """The antecedents of ``X``: ``uint8`` of shape (n_samples, n_antecedents).

        A DataFrame in gives a DataFrame out, its columns named by the antecedents and its index
        kept; an array gives a C-contiguous array, and so does any ``X`` with ``as_array=True``
        (a fit's one conversion: pandas' DataFrame of 200,000 x 2,500 antecedents costs 6 s).
        Columns are found by name; the sensitive columns and unknown extra columns are ignored.

        Parameters
        ----------
        X : DataFrame or array-like
        terms : sequence of antecedent names (or output indices), optional
            Only these antecedents, in this order: only the columns they read are read (a
            column read by none may be absent, or hold values not seen at fit time), which is
            how a model predicts from the few antecedents its rules use.
        deadline : float, optional
            A ``time.perf_counter()`` time: a :class:`~fairlist.errors.TimeLimitError` once it
            is past (checked between columns and antecedents).
        """
        check_is_fitted(self, "_names_out")
        frame = _as_frame(X)
        if frame.shape[0] == 0:
            raise DataError("X has no rows")
        outputs = np.arange(len(self._names_out)) if terms is None else self._term_indices(terms)
        column, _ = self._single_index()
        if terms is None:
            needed = list(range(len(self.columns_)))
        else:
            singles = {k for j in outputs for k in self._parts(int(j))[1]}
            needed = sorted({int(column[k]) for k in singles})
        absent = [self.columns_[c].name for c in needed if self.columns_[c].name not in frame]
        if absent:
            raise MissingColumnError(f"X lacks the columns seen at fit time: {absent}")
        codes = self._codes(frame, needed, True, deadline)
        out = self._assemble(codes, outputs, frame.shape[0], deadline)
        return self._wrap(X, out, [str(self._names_out[j]) for j in outputs], as_array)

    # ---------------------------------------------------------------- JSON

    def to_dict(self) -> dict[str, Any]:
        """The fitted binarizer as a JSON-ready document (parameters and what ``fit`` learned).

        Column names must be strings or integers and categories JSON scalars (str, int, float,
        bool), as they are in a table read from CSV.
        """
        check_is_fitted(self, "_names_out")
        params = self.get_params(deep=False)
        if params["cut_points"] is not None:
            params["cut_points"] = [[k, list(v)] for k, v in params["cut_points"].items()]
        if params["categorical"] is not None:
            params["categorical"] = list(params["categorical"])
        columns = [
            {
                "name": c.name,
                "kind": c.kind,
                "names": list(c.names),
                "categories": list(c.categories),
                "cut_points": None if c.cut_points is None else [float(v) for v in c.cut_points],
                "integer": c.integer,
                "missing": c.missing,
            }
            for c in self.columns_
        ]
        return jsonable(
            {
                "format": BINARIZER_FORMAT,
                "version": BINARIZER_VERSION,
                "params": params,
                "feature_names_in": list(self.feature_names_in_),
                "columns": columns,
                "single_keep": self._single_keep,
                "negated": self._negated,
                "pairs": self._pairs,
                "supports": self.supports_,
                "n_dropped": self.n_dropped_,
                "id_columns": list(self.id_columns_),
            }
        )

    @classmethod
    def from_dict(cls, doc: Mapping[str, Any]) -> Binarizer:
        """A fitted binarizer from :meth:`to_dict`'s document (one written before
        ``id_columns`` and the later parameters existed reads too)."""
        if not isinstance(doc, Mapping) or doc.get("format") != BINARIZER_FORMAT:
            found = doc.get("format") if isinstance(doc, Mapping) else type(doc).__name__
            raise DataError(f"not a fairlist binarizer: 'format' is {found!r}")
        if doc.get("version") != BINARIZER_VERSION:
            raise DataError(
                f"binarizer document version {doc.get('version')!r} is not supported (this "
                f"fairlist reads version {BINARIZER_VERSION})"
            )
        params = dict(doc["params"])
        if params.get("cut_points") is not None:
            params["cut_points"] = {k: v for k, v in params["cut_points"]}
        if isinstance(params.get("sensitive"), list):
            params["sensitive"] = list(params["sensitive"])
        b = cls(**params)
        b.feature_names_in_ = np.asarray(doc["feature_names_in"], dtype=object)
        b.n_features_in_ = len(b.feature_names_in_)
        b.columns_ = [
            _Column(
                c["name"],
                c["kind"],
                list(c["names"]),
                list(c["categories"]),
                None if c["cut_points"] is None else np.asarray(c["cut_points"], dtype=float),
                bool(c["integer"]),
                bool(c["missing"]),
            )
            for c in doc["columns"]
        ]
        b.cut_points_ = {c.name: c.cut_points for c in b.columns_ if c.kind == "numeric"}
        b.categories_ = {c.name: c.categories for c in b.columns_ if c.kind == "categorical"}
        b.single_names_ = [n for c in b.columns_ for n in c.names]
        b._single_keep = np.asarray(doc["single_keep"], dtype=np.intp)
        b._negated = np.asarray(doc["negated"], dtype=np.intp)
        b._pairs = np.asarray(doc["pairs"], dtype=np.intp).reshape(-1, 2)
        b.supports_ = np.asarray(doc["supports"], dtype=float)
        b.n_dropped_ = int(doc["n_dropped"])
        b.id_columns_ = list(doc.get("id_columns", []))
        b._names_out = b._output_names()
        b.n_antecedents_kept_ = len(b._names_out)
        b.n_antecedents_made_ = b.n_antecedents_kept_ + b.n_dropped_
        return b

    def get_feature_names_out(self, input_features: Any = None) -> np.ndarray:
        """Antecedent names, in the column order of :meth:`transform`."""
        check_is_fitted(self, "_names_out")
        return self._names_out.copy()

    @property
    def terms_(self) -> tuple[tuple[str, tuple[int, ...]], ...]:
        """What each output antecedent is, in :meth:`transform`'s column order: ``("single",
        (k,))``, ``("not", (k,))`` or ``("and", (a, b))``, indices into ``single_names_``."""
        check_is_fitted(self, "_names_out")
        return tuple(self._parts(j) for j in range(len(self._names_out)))
