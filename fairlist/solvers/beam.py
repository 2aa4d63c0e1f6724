"""A beam search for good fair rule lists: a fast incumbent for the branch-and-bound.

The branch-and-bound prunes with the best fair objective known, and under a node budget the
quality of what it returns depends on finding good lists early. Breadth-first search reaches
long lists late; this beam search builds lists rule by rule, keeping the ``width`` most
promising prefixes at each length, so it finds fair lists of 4–8 rules in about a second.
It proves nothing: its list is handed to :class:`~fairlist.solvers.bnb.BnBSolver` as a warm
start, which then certifies or improves it.

A prefix is scored by its best fair completion with a default alone (the objective of
``prefix + default``); prefixes with no fair such completion are ranked after, by objective plus
their excess unfairness.
"""

from __future__ import annotations

import numpy as np

from ..metrics import FEASIBILITY_TOL, Metric
from ..rulelist import RuleList
from .base import Problem

__all__ = ["beam_search"]


def _rates(tp, fp, tn, fn, metric: Metric) -> np.ndarray:
    """Unfairness of arrays of per-group confusion counts (axis -1: protected, unprotected),
    with the shared conventions (zero denominator: rate 0; EOdds and CUAE are sums)."""

    def rate(num, den):
        return np.divide(num, den, out=np.zeros(np.broadcast(num, den).shape), where=den > 0)

    def gap(r):
        return np.abs(r[..., 0] - r[..., 1])

    if metric is Metric.STATISTICAL_PARITY:
        return gap(rate(tp + fp, tp + fp + tn + fn))
    if metric is Metric.PREDICTIVE_PARITY:
        return gap(rate(tp, tp + fp))
    if metric is Metric.PREDICTIVE_EQUALITY:
        return gap(rate(fp, fp + tn))
    if metric is Metric.EQUAL_OPPORTUNITY:
        return gap(rate(tp, tp + fn))
    if metric is Metric.EQUALIZED_ODDS:
        return gap(rate(tp, tp + fn)) + gap(rate(fp, fp + tn))
    return gap(rate(tp, tp + fp)) + gap(rate(tn, tn + fn))


def beam_search(problem: Problem, width: int = 32, max_length: int | None = 8) -> RuleList | None:
    """The best fair rule list found by a beam search of the given width (None if none is fair).

    Every list it meets is checked with the same feasibility rule as the engines; the result is
    re-evaluated with :meth:`Problem.evaluate` by the caller.
    """
    if width < 1:
        raise ValueError(f"width must be >= 1, got {width}")
    X = problem.X.astype(bool)
    y = problem.y.astype(bool)
    g = problem.protected
    n, m = X.shape
    cap = np.inf if problem.epsilon is None else problem.epsilon + FEASIBILITY_TOL
    limit = m if max_length is None else min(max_length, m)
    if problem.max_length is not None:
        limit = min(limit, problem.max_length)
    # Per-sample indicator of (label, group): columns pos&prot, pos&unprot, neg&prot, neg&unprot.
    kinds = np.stack([y & g, y & ~g, ~y & g, ~y & ~g], axis=1).astype(np.int64)
    total = kinds.sum(axis=0)  # (4,)
    # Captured counts by a floating-point product (BLAS): exact, as every count is below 2^53,
    # and an order of magnitude faster than an integer one.
    XT = np.ascontiguousarray(X.T, dtype=np.float64)
    kinds_f = kinds.astype(np.float64)

    def leaves(fixed_pos, fixed_err, free_counts, length):
        """Objective and unfairness of prefix + default d, for d = 0, 1 (arrays (..., 2))."""
        # fixed_pos: (..., 4) positives predicted among captured samples of each kind.
        objs, unfs = [], []
        for d in (0, 1):
            pos = fixed_pos + free_counts * d
            err = fixed_err + (free_counts[..., 2:].sum(-1) if d else free_counts[..., :2].sum(-1))
            tp, fp = pos[..., 0:2], pos[..., 2:4]
            fn, tn = total[0:2] - tp, total[2:4] - fp
            unfs.append(_rates(tp, fp, tn, fn, problem.metric))
            objs.append(err / n + problem.lam * length)
        return np.stack(objs, -1), np.stack(unfs, -1)

    best_obj, best = np.inf, None
    # A beam entry: (rules, free mask, positives per kind among captured, captured errors).
    beam = [((), np.ones(n, dtype=bool), np.zeros(4, dtype=np.int64), 0)]
    root_obj, root_unf = leaves(np.zeros(4, np.int64), 0, total, 0)
    for d in (0, 1):
        if root_unf[d] <= cap and root_obj[d] < best_obj:
            best_obj, best = root_obj[d], ((), d)
    for length in range(1, limit + 1):
        candidates = []
        for rules, free, fixed_pos, fixed_err in beam:
            captured = np.rint(XT @ (kinds_f * free[:, None])).astype(np.int64)  # (m, 4)
            free_counts = kinds[free].sum(axis=0)
            used = [j for j, _ in rules]
            for q in (0, 1):
                # Rule (j, q): captured samples predicted q.
                pos = fixed_pos + captured * q
                err = fixed_err + (captured[:, 2:] if q else captured[:, :2]).sum(1)
                objs, unfs = leaves(pos, err, free_counts - captured, length)
                fair = unfs <= cap
                best_fair = np.where(fair, objs, np.inf).min(axis=1)
                score = np.where(
                    np.isfinite(best_fair), best_fair, 10.0 + (objs + unfs - cap).min(axis=1)
                )
                score[captured.sum(1) == 0] = np.inf
                score[used] = np.inf
                # A longer list has one more rule and these captured errors at least.
                score[err / n + problem.lam * (length + 1) >= best_obj] = np.inf
                for j in np.flatnonzero(np.isfinite(score)):
                    candidates.append((score[j], rules + ((int(j), q),), pos[j], int(err[j])))
                    if best_fair[j] < best_obj:
                        d = int(np.argmin(np.where(fair[j], objs[j], np.inf)))
                        best_obj, best = best_fair[j], (rules + ((int(j), q),), d)
            # free mask of each kept candidate is rebuilt below
        if not candidates:
            break
        candidates.sort(key=lambda c: (c[0], c[1]))
        beam = []
        for _, rules, pos, err in candidates[:width]:
            free = np.ones(n, dtype=bool)
            for j, _ in rules:
                free &= ~X[:, j]
            beam.append((rules, free, pos, err))
        if best_obj <= problem.lam * (length + 1):  # no longer list can do better
            break
    if best is None:
        return None
    rules, default = best
    return problem.rule_list([j for j, _ in rules], [q for _, q in rules], default)
