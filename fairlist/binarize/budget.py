"""The antecedent budget: rank the antecedents by what they say about the label and keep the
best ``max_antecedents``, identical columns once."""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np

from .columns import Column, single_index
from .cuts import entropy_rows
from .deadline import check_deadline
from .messages import AntecedentCapWarning
from .pairs import mine_pairs


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
    h_all = float(entropy_rows(np.array([[n - pos, pos]], dtype=float))[0])
    h_cond = (n_in * entropy_rows(inside) + (n - n_in) * entropy_rows(outside)) / max(n, 1)
    return np.maximum(h_all - h_cond, 0.0)


def balance(n_in: np.ndarray, n: int) -> np.ndarray:
    """Entropy (bits) of an antecedent's split of the rows: the ranking without a label (the
    antecedents closest to splitting the table in half first)."""
    n_in = np.asarray(n_in, dtype=float)
    return entropy_rows(np.stack([n_in, n - n_in], axis=1))


@dataclass(frozen=True)
class Chosen:
    """The antecedents :func:`choose` keeps (indices into the single antecedents) and the
    numbers made and kept."""

    single_keep: np.ndarray  # the kept single antecedents
    negated: np.ndarray  # the single antecedents whose negation is kept
    pairs: np.ndarray  # (k, 2): the kept conjunctions
    supports: np.ndarray  # the support of each kept antecedent, in output order
    n_made: int
    n_kept: int

    @property
    def n_dropped(self) -> int:
        return self.n_made - self.n_kept


def choose(
    columns: list[Column],
    codes: dict[int, np.ndarray],
    labels: np.ndarray | None,
    n: int,
    deadline: float | None,
    *,
    max_antecedents: int | None,
    negations: bool,
    conjunctions: bool,
    min_support: float,
    max_pair_memory_mb: float,
) -> Chosen:
    """Mine the conjunctions and keep the budget (the parameters are the
    :class:`~fairlist.binarize.Binarizer`'s; ``columns``, ``codes``: the fitted columns and
    their codes).

    Every single antecedent and negation is a candidate, and every conjunction of two
    single antecedents of different columns with support >= ``min_support``, mined among
    the ``max_antecedents`` best-ranked single antecedents (all of them without a budget)
    and as many as ``max_pair_memory_mb`` allows. With a budget and more candidates than
    it, the best-ranked are kept, identical columns (and ones that hold on every row or
    none) skipped. Ranking: :func:`information_gain` with labels, :func:`balance` without.
    """
    column, local = single_index(columns)
    r = column.size
    count = np.empty(r, dtype=np.int64)
    pos = np.zeros(r, dtype=np.int64)
    for c, col in enumerate(columns):
        check_deadline(deadline, c, len(columns), "columns counted")
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
        single_score = balance(count, n)
    order = np.argsort(-single_score, kind="stable")
    budget = max_antecedents
    pool = order if budget is None else order[:budget]
    pairs, pair_count, pair_pos = mine_pairs(
        columns,
        codes,
        labels,
        n,
        pool,
        deadline,
        conjunctions=conjunctions,
        min_support=min_support,
        max_pair_memory_mb=max_pair_memory_mb,
    )
    neg = np.arange(r) if negations else np.empty(0, dtype=np.intp)
    made = r + neg.size + pairs.shape[0]
    if budget is None or made <= budget:
        keep, neg_keep, pair_keep = np.arange(r), neg, np.arange(pairs.shape[0])
    else:
        if labels is not None:
            pair_score = information_gain(pair_count, pair_pos, n, n_pos)
        else:
            pair_score = balance(pair_count, n)
        keep, neg_keep, pair_keep = keep_best(
            columns, codes, single_score, neg, pairs, pair_score, budget, deadline
        )
    chosen = Chosen(
        single_keep=keep,
        negated=neg_keep,
        pairs=pairs[pair_keep],
        supports=np.concatenate(
            [count[keep] / n, 1.0 - count[neg_keep] / n, pair_count[pair_keep] / n]
        ),
        n_made=made,
        n_kept=keep.size + neg_keep.size + pair_keep.size,
    )
    if chosen.n_dropped:
        kind = "information gain about the label" if labels is not None else "balance"
        warnings.warn(
            f"kept {chosen.n_kept} of the {made} antecedents made "
            f"({r} single, {neg.size} negations, {pairs.shape[0]} conjunctions): "
            f"max_antecedents={budget} keeps the best by {kind}, identical ones once; "
            "a certified list is optimal over the kept ones (raise max_antecedents, or "
            "None to keep all; see docs/large-tables.md)",
            AntecedentCapWarning,
            stacklevel=4,  # the caller of fit
        )
    return chosen


def keep_best(
    columns: list[Column],
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
    column, local = single_index(columns)

    def single(k: int) -> np.ndarray:
        return codes[int(column[k])] == local[k]

    seen: set[bytes] = set()
    kept: list[int] = []
    for done, t in enumerate(order):
        if done % 64 == 0:
            check_deadline(deadline, len(kept), budget, "antecedents kept")
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
