"""A plain-Python reference solver: enumerate every rule list up to a given length.

Deliberately simple and independent of both engines, so that it can serve as the oracle in the
exactness tests. Exponential: use it only on a handful of antecedents.

It solves the generalised problem of ``DESIGN.md`` §1 from its definition, recomputing
everything by hand from each candidate's predictions: any number of groups (each rate's gap is
its largest minus its smallest value over the groups; EOdds and CUAE add two gaps; a rate with a
zero denominator is 0) and sample weights (every count a sum of weights; the objective is the
weighted errors over the total weight plus lambda times the length). It shares nothing with the
engines but the :class:`Problem` it reads and the tolerance ``FEASIBILITY_TOL`` of the cap.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np

from fairlist.groups import SmallGroupWarning
from fairlist.metrics import FEASIBILITY_TOL
from fairlist.rulelist import RuleList
from fairlist.solvers import Problem

# The rates each metric compares, written out again (not fairlist.metrics.METRIC_RATES).
_RATES = {
    "STATISTICAL_PARITY": ("selection",),
    "PREDICTIVE_PARITY": ("ppv",),
    "PREDICTIVE_EQUALITY": ("fpr",),
    "EQUAL_OPPORTUNITY": ("tpr",),
    "EQUALIZED_ODDS": ("tpr", "fpr"),
    "CONDITIONAL_USE_ACCURACY_EQUALITY": ("ppv", "npv"),
}


@dataclass(frozen=True)
class ReferenceResult:
    objective: float  # inf when no rule list meets the constraint
    rule_list: RuleList | None
    n_candidates: int  # rule lists enumerated


def group_rates(y: np.ndarray, pred: np.ndarray, groups: np.ndarray, k: int, w: np.ndarray):
    """Each group's rates (selection, tpr, fpr, ppv, npv) from weighted confusion counts."""
    # cell (group, label, prediction) -> summed weight
    cells = np.bincount(groups * 4 + y * 2 + pred, weights=w, minlength=4 * k).reshape(k, 4)
    tn, fp, fn, tp = cells.T

    def rate(num: np.ndarray, den: np.ndarray) -> np.ndarray:
        safe = np.where(den > 0, den, 1.0)
        return np.where(den > 0, num / safe, 0.0)  # a zero denominator gives rate 0

    return {
        "selection": rate(tp + fp, tn + fp + fn + tp),
        "tpr": rate(tp, tp + fn),
        "fpr": rate(fp, fp + tn),
        "ppv": rate(tp, tp + fp),
        "npv": rate(tn, tn + fn),
    }


def reference_unfairness(problem: Problem, pred: np.ndarray) -> float:
    """The unfairness of predictions ``pred`` (0/1) on ``problem``'s training data."""
    rates = group_rates(
        problem.y.astype(np.int64), np.asarray(pred, dtype=np.int64), problem.groups.astype(
            np.int64), problem.n_groups, problem.weights,
    )
    return float(sum(rates[r].max() - rates[r].min() for r in _RATES[problem.metric.name]))


def _allowed(labels: np.ndarray, weights: np.ndarray, majority_only: bool) -> tuple[int, ...]:
    """Predictions allowed for a rule capturing samples with these labels and weights: both,
    or a weighted majority label (ties, up to float rounding, allow both)."""
    if not majority_only:
        return (0, 1)
    ones = float(weights[labels].sum())
    zeros = float(weights[~labels].sum())
    tie = abs(ones - zeros) <= 1e-9 * max(1.0, ones + zeros)
    return tuple(q for q, ok in ((0, tie or zeros > ones), (1, tie or ones > zeros)) if ok)


def reference_solve(problem: Problem, max_length: int, majority_only: bool = False):
    """The optimal rule list of length <= ``max_length`` (and <= problem.max_length if set)."""
    if problem.max_length is not None:
        max_length = min(max_length, problem.max_length)
    X = problem.X.astype(bool)
    y = problem.y.astype(bool)
    w = problem.weights
    total = float(w.sum())
    m = X.shape[1]
    best = [np.inf, None]
    count = [0]

    def consider(pred: np.ndarray, prefix: list[tuple[int, int]], default: int) -> None:
        count[0] += 1
        errors = float(w[pred != y].sum())
        objective = errors / total + problem.lam * len(prefix)
        if objective >= best[0]:
            return
        if problem.epsilon is not None:
            if reference_unfairness(problem, pred) > problem.epsilon + FEASIBILITY_TOL:
                return
        best[0] = objective
        best[1] = problem.rule_list([j for j, _ in prefix], [q for _, q in prefix], default)

    def extend(prefix: list[tuple[int, int]], pred: np.ndarray, free: np.ndarray) -> None:
        for default in _allowed(y[free], w[free], majority_only):
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
            for q in _allowed(y[captured], w[captured], majority_only):
                nxt = pred.copy()
                nxt[captured] = bool(q)
                extend(prefix + [(j, q)], nxt, free & ~captured)

    extend([], np.zeros(len(y), dtype=bool), np.ones(len(y), dtype=bool))
    return ReferenceResult(objective=best[0], rule_list=best[1], n_candidates=count[0])


def random_problem(rng: np.random.Generator, n: int = 40, m: int = 5, **kwargs) -> Problem:
    """A random small problem with correlated antecedents, labels and groups."""
    X = rng.random((n, m)) < rng.uniform(0.15, 0.6, size=m)
    protected = rng.random(n) < 0.45
    protected[0], protected[1] = True, False
    logits = X @ rng.normal(0, 1.5, size=m) + 0.8 * protected - 0.5
    y = rng.random(n) < 1 / (1 + np.exp(-logits))
    return Problem(X.astype(np.uint8), y.astype(np.uint8), protected, **kwargs)


#: Kinds of sample weights random_group_problem draws.
WEIGHT_KINDS = (None, "integer", "decimal", "real")


def random_weights(rng: np.random.Generator, n: int, kind: str | None) -> np.ndarray | None:
    """Sample weights: None; integers 0..4 (duplicated and dropped rows); quarter and tenth
    decimals (read exactly by CP-SAT); or arbitrary reals (rounded by CP-SAT)."""
    if kind is None:
        return None
    if kind == "integer":
        return rng.integers(0, 5, size=n).astype(np.float64)
    if kind == "decimal":
        step = (0.25, 0.1)[int(rng.integers(2))]
        return rng.integers(1, 12, size=n) * step
    if kind == "real":
        return rng.uniform(0.05, 3.0, size=n)
    raise ValueError(f"unknown weight kind {kind!r}")


def random_group_problem(
    rng: np.random.Generator,
    n: int = 30,
    m: int = 4,
    k: int = 3,
    intersections: bool = False,
    weights: str | None = None,
    **kwargs,
) -> Problem:
    """A random small problem with ``k`` groups (one column with ``k`` values), or with the
    intersections of two columns (a two-valued and a ``max(2, k - 1)``-valued one: the
    combinations that occur are the groups), and sample weights of the given kind (see
    random_weights).

    Every group has samples of positive total weight; labels depend on the antecedents and the
    group. ``kwargs`` are Problem fields (metric, epsilon, lam, max_length).
    """
    X = rng.random((n, m)) < rng.uniform(0.15, 0.6, size=m)
    if intersections:
        first = rng.integers(0, 2, size=n)
        second = rng.integers(0, max(2, k - 1), size=n)
        sensitive = np.column_stack([np.array(["F", "M"])[first], second])
        codes = first * max(2, k - 1) + second
    else:
        codes = rng.integers(0, k, size=n)
        codes[:k] = np.arange(k)  # every group occurs
        sensitive = np.array([f"g{c}" for c in codes])
    logits = X @ rng.normal(0, 1.5, size=m) + rng.normal(0, 1, size=codes.max() + 1)[codes]
    y = (rng.random(n) < 1 / (1 + np.exp(-logits))).astype(np.uint8)
    y[0], y[1] = 0, 1
    w = random_weights(rng, n, weights)
    if w is not None:
        for c in np.unique(codes):  # every group keeps a positive total weight
            w[np.flatnonzero(codes == c)[0]] = max(1.0, w[np.flatnonzero(codes == c)[0]])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SmallGroupWarning)
        return Problem.from_data(
            X.astype(np.uint8), y, sensitive, sample_weight=w, **kwargs
        )


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
