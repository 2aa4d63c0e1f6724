"""A plain-Python reference solver: enumerate every rule list up to a given length.

Deliberately simple and independent of both engines, so that it can serve as the oracle in the
exactness tests. Exponential: use it only on a handful of antecedents.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from fairlist.metrics import ConfusionCounts, GroupCounts, is_fair, unfairness_from_counts
from fairlist.rulelist import RuleList
from fairlist.solvers import Problem


@dataclass(frozen=True)
class ReferenceResult:
    objective: float  # inf when no rule list meets the constraint
    rule_list: RuleList | None
    n_candidates: int  # rule lists enumerated


def _allowed(labels: np.ndarray, majority_only: bool) -> tuple[int, ...]:
    """Predictions allowed for a rule capturing samples with these labels."""
    if not majority_only:
        return (0, 1)
    ones = int(labels.sum())
    zeros = len(labels) - ones
    return tuple(q for q, ok in ((0, zeros >= ones), (1, ones >= zeros)) if ok)


def reference_solve(problem: Problem, max_length: int, majority_only: bool = False):
    """The optimal rule list of length <= ``max_length`` (and <= problem.max_length if set)."""
    if problem.max_length is not None:
        max_length = min(max_length, problem.max_length)
    X = problem.X.astype(bool)
    y = problem.y.astype(bool)
    g = problem.protected
    n, m = X.shape
    best = [np.inf, None]
    count = [0]

    def group_counts(pred: np.ndarray, mask: np.ndarray) -> GroupCounts:
        t, p = y[mask], pred[mask]
        return GroupCounts(
            tp=int(np.sum(t & p)), fp=int(np.sum(~t & p)),
            tn=int(np.sum(~t & ~p)), fn=int(np.sum(t & ~p)),
        )

    def consider(pred: np.ndarray, prefix: list[tuple[int, int]], default: int) -> None:
        count[0] += 1
        errors = int(np.sum(pred != y))
        objective = errors / n + problem.lam * len(prefix)
        if objective >= best[0]:
            return
        counts = ConfusionCounts(group_counts(pred, g), group_counts(pred, ~g))
        if not is_fair(unfairness_from_counts(counts, problem.metric), problem.epsilon):
            return
        best[0] = objective
        best[1] = problem.rule_list([j for j, _ in prefix], [q for _, q in prefix], default)

    def extend(prefix: list[tuple[int, int]], pred: np.ndarray, free: np.ndarray) -> None:
        for default in _allowed(y[free], majority_only):
            full = pred.copy()
            full[free] = bool(default)
            consider(full, prefix, default)
        if len(prefix) == max_length:
            return
        used = {j for j, _ in prefix}
        for j in range(m):
            if j in used:
                continue
            captured = free & X[:, j]
            for q in _allowed(y[captured], majority_only):
                nxt = pred.copy()
                nxt[captured] = bool(q)
                extend(prefix + [(j, q)], nxt, free & ~captured)

    extend([], np.zeros(n, dtype=bool), np.ones(n, dtype=bool))
    return ReferenceResult(objective=best[0], rule_list=best[1], n_candidates=count[0])


def random_problem(rng: np.random.Generator, n: int = 40, m: int = 5, **kwargs) -> Problem:
    """A random small problem with correlated antecedents, labels and groups."""
    X = rng.random((n, m)) < rng.uniform(0.15, 0.6, size=m)
    protected = rng.random(n) < 0.45
    protected[0], protected[1] = True, False
    logits = X @ rng.normal(0, 1.5, size=m) + 0.8 * protected - 0.5
    y = rng.random(n) < 1 / (1 + np.exp(-logits))
    return Problem(X.astype(np.uint8), y.astype(np.uint8), protected, **kwargs)


def published_problem(source, rows=None, antecedents=None, **kwargs) -> Problem:
    """A Problem from a file (a path or its DataFrame) in the paper's published layout: column 0
    the protected group, column 1 the unprotected group, the last column the label, the rest
    antecedents. ``rows`` and ``antecedents`` (positions among the antecedent columns) select a
    subsample."""
    import pandas as pd

    data = source if isinstance(source, pd.DataFrame) else pd.read_csv(source)
    rows = np.arange(len(data)) if rows is None else np.asarray(rows)
    n_antecedents = data.shape[1] - 3
    cols = 2 + (np.arange(n_antecedents) if antecedents is None else np.asarray(antecedents))
    return Problem(
        data.iloc[rows, cols].to_numpy(np.uint8),
        data.iloc[rows, -1].to_numpy(np.uint8),
        data.iloc[rows, 0].to_numpy(bool),
        feature_names=list(data.columns[cols]),
        **kwargs,
    )
