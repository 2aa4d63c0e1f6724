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
with a :class:`UnseenCategoryWarning`.

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
from ._validation import as_table, encode_labels, stray_binary_cell
from .errors import DataError, MissingColumnError, TimeLimitError

__all__ = [
    "Binarizer",
    "UnseenCategoryWarning",
    "ConstantColumnWarning",
    "AntecedentCapWarning",
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
    """``max_antecedents`` removed some antecedents."""


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


def mdlp_cut_points(x: np.ndarray, y: np.ndarray) -> np.ndarray:
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

    Cuts equal to the minimum are dropped: they would open an empty first interval.

    Examples
    --------
    >>> quantile_cut_points(np.arange(8.0), 4)
    array([1.75, 3.5 , 5.25])
    """
    x = np.asarray(x, dtype=float)
    if x.size == 0:
        return np.empty(0)
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
    "handle_missing": [Options(("error", "category"))],
    "handle_unknown": [Options(("error", "ignore"))],
}


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
        Number of quantile intervals (``numeric="quantile"`` only); fewer when values repeat.
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
    max_antecedents : int or None, default=None
        Keep at most this many antecedents: single ones first, then negations, then the
        conjunctions of largest support. Dropping any raises an :class:`AntecedentCapWarning`.
    handle_missing : {"error", "category"}, default="error"
        Refuse missing values (the error names the column and the row count), or make
        ``column:missing`` an antecedent of its own.
    handle_unknown : {"error", "ignore"}, default="error"
        What ``transform`` does with a category (or a missing value) not seen at ``fit`` time:
        raise an error naming the column and the values, or set none of the column's
        antecedents (so every negation of that column holds), with an
        :class:`UnseenCategoryWarning`. A model that predicts new rows must not guess
        silently, hence the default; ``"ignore"`` sends such a row down the rule list as if its
        column matched no known value.

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
    n_dropped_ : int
        Antecedents removed by ``max_antecedents``.

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
        max_antecedents: int | None = None,
        handle_missing: str = "error",
        handle_unknown: str = "error",
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

    def _fit_column(self, name: Hashable, series: pd.Series, codes: np.ndarray | None) -> _Column:
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
                cuts = mdlp_cut_points(values, codes[~missing])
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
        """Learn the single antecedents, and mine the conjunctions, on ``X``.

        Parameters
        ----------
        X : DataFrame of shape (n_samples, n_columns)
            The table (arrays are accepted; their columns are named ``x0, x1, …``).
        y : array-like of shape (n_samples,), optional
            Binary label; needed by ``numeric="mdlp"`` when there is a numeric column to cut.
        deadline : float, optional
            A ``time.perf_counter()`` time (the estimator's ``time_limit`` counted from the
            start of its ``fit``): checked between columns and while mining conjunctions.

        Returns
        -------
        self

        Raises
        ------
        TimeLimitError
            When ``deadline`` passes before the binarizer is fitted; the message says how far
            it got (columns cut, or antecedents paired).
        """
        validate_params(type(self).__name__, PARAMETER_CONSTRAINTS, self.get_params(deep=False))
        frame = self._validate_frame(X)
        self._check_sensitive(frame)
        codes = None if y is None else encode_labels(y, n_rows=frame.shape[0], require_two=False)[1]
        self._check_named_columns(frame)
        self.feature_names_in_ = np.asarray([str(c) for c in frame.columns], dtype=object)
        self.n_features_in_ = frame.shape[1]
        self._fit_columns(frame, codes, deadline)

        singles = self._singles(frame, warn=False)  # (n, r) bool
        single_support = singles.mean(axis=0)
        neg = np.arange(singles.shape[1]) if self.negations else np.empty(0, dtype=np.intp)
        pairs, pair_support = self._mine_pairs(singles, deadline)
        single_keep, neg, pairs, pair_support = self._cap(
            singles.shape[1], neg, pairs, pair_support
        )
        self._single_keep = single_keep
        self._negated = neg
        self._pairs = pairs
        self._names_out = self._output_names()
        self.supports_ = np.concatenate(
            [single_support[single_keep], 1.0 - single_support[neg], pair_support]
        )
        return self

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

    def _fit_columns(
        self, frame: pd.DataFrame, codes: np.ndarray | None, deadline: float | None = None
    ) -> None:
        """Each column's single antecedents (``columns_``, ``cut_points_``, ``categories_``,
        ``single_names_``); a column that yields none is warned about. ``deadline``: see
        :meth:`fit`."""
        names = [c for c in frame.columns if c not in self._sensitive_columns()]
        columns = []
        for done, name in enumerate(names):
            _check_deadline(deadline, done, len(names), "columns cut")
            columns.append(self._fit_column(name, frame[name], codes))
        if not any(c.names for c in columns):
            raise DataError(self._no_antecedent(frame, columns))
        for col in columns:
            if not col.names:
                advice = f" ({QUANTILE_ADVICE})" if col.unused == NO_CUT else ""
                warnings.warn(
                    f"column {col.name!r} {col.unused} at fit time; it yields no "
                    f"antecedent{advice}",
                    ConstantColumnWarning,
                    stacklevel=3,  # the caller of fit
                )
        self.columns_ = [c for c in columns if c.names]
        self.cut_points_ = {c.name: c.cut_points for c in self.columns_ if c.kind == "numeric"}
        self.categories_ = {c.name: c.categories for c in self.columns_ if c.kind == "categorical"}
        self.single_names_ = [n for c in self.columns_ for n in c.names]

    def _mine_pairs(
        self, singles: np.ndarray, deadline: float | None = None
    ) -> tuple[np.ndarray, np.ndarray]:
        """The conjunctions of two single antecedents of different columns whose support is at
        least ``min_support`` (index pairs and supports; none without ``conjunctions``).
        ``deadline``: see :meth:`fit`."""
        if not self.conjunctions:
            return np.empty((0, 2), dtype=np.intp), np.empty(0)
        n, r = singles.shape
        source = np.repeat(np.arange(len(self.columns_)), [len(c.names) for c in self.columns_])
        counts = pair_counts(singles, deadline)
        i, j = np.triu_indices(r, k=1)
        keep = (source[i] != source[j]) & (counts[i, j] >= self.min_support * n - 1e-9)
        keep &= counts[i, j] > 0
        return np.stack([i[keep], j[keep]], axis=1), counts[i[keep], j[keep]] / n

    def _cap(
        self, r: int, neg: np.ndarray, pairs: np.ndarray, pair_support: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """``max_antecedents`` applied: singles, then negations, then the conjunctions of
        largest support are kept (``n_dropped_`` counts the others, with a warning)."""
        self.n_dropped_ = 0
        total = r + neg.size + pairs.shape[0]
        cap = self.max_antecedents
        if cap is None or total <= cap:
            return np.arange(r), neg, pairs, pair_support
        self.n_dropped_ = total - cap
        warnings.warn(
            f"max_antecedents={cap} drops {self.n_dropped_} of {total} antecedents "
            "(kept: single antecedents, then negations, then the conjunctions of largest "
            "support)",
            AntecedentCapWarning,
            stacklevel=3,  # the caller of fit
        )
        order = np.argsort(-pair_support, kind="stable")
        room = cap
        single_keep = np.arange(min(r, room))
        room -= single_keep.size
        neg = neg[:room]
        room -= neg.size
        order = np.sort(order[:room])
        return single_keep, neg, pairs[order], pair_support[order]

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

    def _singles(self, frame: pd.DataFrame, warn: bool) -> np.ndarray:
        """The (n, r) boolean matrix of single antecedents."""
        n = frame.shape[0]
        out = np.zeros((n, len(self.single_names_)), dtype=bool)
        pos = 0
        for col in self.columns_:
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
                rows = np.flatnonzero(~missing)
                out[rows, pos + bins[rows]] = True
            else:
                index = pd.Index(col.categories)
                codes = index.get_indexer(series.astype(object).where(~missing, None))
                unseen = (codes < 0) & ~missing
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
                rows = np.flatnonzero(codes >= 0)
                out[rows, pos + codes[rows]] = True
            if col.missing:
                out[missing, pos + n_values] = True
            pos += width
        return out

    def transform(self, X: Any, *, as_array: bool = False) -> np.ndarray | pd.DataFrame:
        """The antecedents of ``X``: ``uint8`` of shape (n_samples, n_antecedents).

        A DataFrame in gives a DataFrame out, its columns named by the antecedents and its index
        kept; an array gives a C-contiguous array, and so does any ``X`` with ``as_array=True``
        (a fit's one conversion: pandas' DataFrame of 200,000 x 2,500 antecedents costs 6 s).
        Columns are found by name; the sensitive columns and unknown extra columns are ignored.
        """
        check_is_fitted(self, "_names_out")
        frame = _as_frame(X)
        if frame.shape[0] == 0:
            raise DataError("X has no rows")
        absent = [c.name for c in self.columns_ if c.name not in frame.columns]
        if absent:
            raise MissingColumnError(f"X lacks the columns seen at fit time: {absent}")
        singles = self._singles(frame, warn=True)
        parts = [
            singles[:, self._single_keep],
            ~singles[:, self._negated],
            singles[:, self._pairs[:, 0]] & singles[:, self._pairs[:, 1]],
        ]
        out = np.ascontiguousarray(np.concatenate(parts, axis=1), dtype=np.uint8)
        if isinstance(X, pd.DataFrame) and not as_array:
            return pd.DataFrame(out, columns=list(self._names_out), index=X.index)
        return out

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
            }
        )

    @classmethod
    def from_dict(cls, doc: Mapping[str, Any]) -> Binarizer:
        """A fitted binarizer from :meth:`to_dict`'s document."""
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
        b._names_out = b._output_names()
        return b

    def get_feature_names_out(self, input_features: Any = None) -> np.ndarray:
        """Antecedent names, in the column order of :meth:`transform`."""
        check_is_fitted(self, "_names_out")
        return self._names_out.copy()
