"""Cut points of a numeric column (MDLP, quantiles) and the names of the intervals they make."""

from __future__ import annotations

import math

import numpy as np

from ..errors import DataError
from .deadline import check_deadline


def entropy_rows(counts: np.ndarray) -> np.ndarray:
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
        check_deadline(deadline, len(cuts), len(cuts) + len(stack), "MDLP ranges cut")
        lo, hi = stack.pop()
        if hi - lo < 2:
            continue
        block = counts[lo:hi]
        total = block.sum(axis=0)
        n = total.sum()
        left = np.cumsum(block, axis=0)[:-1]  # left[t]: classes of values lo..lo+t
        right = total - left
        n_left = left.sum(axis=1)
        ent_left = entropy_rows(left)
        ent_right = entropy_rows(right)
        weighted = (n_left * ent_left + (n - n_left) * ent_right) / n
        t = int(np.argmin(weighted))
        ent_all = float(entropy_rows(total[None, :])[0])
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


def interval_names(cuts: np.ndarray, integer: bool, digits: int | None = None) -> list[str]:
    """Names of the intervals ``(-inf, c1), [c1, c2), …, [ck, inf)`` (see :mod:`fairlist.binarize`).

    Cut points are printed with as many digits as keep them apart (:func:`_digits`; ``digits``
    forces a number, 6 being what fairlist 0.1 printed).

    Examples
    --------
    >>> interval_names(np.array([2.5, 7.0]), integer=False)
    ['<2.5', '2.5-7', '>=7']
    >>> interval_names(np.array([1.0000001, 1.0000002]), integer=False)
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
