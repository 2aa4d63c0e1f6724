"""Conjunctions of two single antecedents: their supports on bit-packed columns, the memory
that takes, and the mining under ``min_support`` and ``max_pair_memory_mb``."""

from __future__ import annotations

import warnings

import numpy as np

from ..bits import popcount_rows
from .columns import Column, single_index, single_matrix
from .deadline import check_deadline
from .messages import AntecedentCapWarning


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
        check_deadline(deadline, a, r, "antecedents paired into conjunctions")
        counts[a, a:] = popcount_rows(words[a] & words[a:])
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


def mine_pairs(
    columns: list[Column],
    codes: dict[int, np.ndarray],
    labels: np.ndarray | None,
    n: int,
    pool: np.ndarray,
    deadline: float | None,
    *,
    conjunctions: bool,
    min_support: float,
    max_pair_memory_mb: float,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The conjunctions of two single antecedents of ``pool`` (best first) from different
    columns whose support is at least ``min_support``: index pairs (into the single
    antecedents, smaller first), row counts and positive counts. The memory is estimated
    first (:func:`pair_memory`): over ``max_pair_memory_mb`` the pool is cut to the best
    that fit, with a warning. ``columns``, ``codes``: the fitted columns and their codes
    (:func:`~fairlist.binarize.columns.column_codes`); ``conjunctions=False``: none."""
    empty = np.empty((0, 2), dtype=np.intp), np.empty(0, np.int64), np.empty(0, np.int64)
    if not conjunctions or pool.size < 2:
        return empty
    column, _ = single_index(columns)
    cap = float(max_pair_memory_mb) * 2**20
    has_labels = labels is not None
    need = pair_memory(n, pool.size, has_labels)
    if need > cap:
        fit = pool.size
        while fit > 2 and pair_memory(n, fit, has_labels) > cap:
            fit = int(fit * 0.9)
        warnings.warn(
            f"pairing {pool.size} single antecedents into conjunctions would take about "
            f"{need / 2**20:,.0f} MiB (max_pair_memory_mb={max_pair_memory_mb:g}); "
            f"conjunctions are mined among the {fit} best-ranked ones only",
            AntecedentCapWarning,
            stacklevel=5,  # the caller of fit
        )
        pool = pool[:fit]
    pool = np.sort(pool)  # pairs (a, b) with a < b, in the order of the single antecedents
    matrix = single_matrix(columns, codes, pool)
    counts = pair_counts(matrix, deadline)
    i, j = np.triu_indices(pool.size, k=1)
    keep = (column[pool[i]] != column[pool[j]]) & (counts[i, j] >= min_support * n - 1e-9)
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
