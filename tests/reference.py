"""A plain-Python reference solver: enumerate every rule list up to a given length.

Deliberately simple and independent of both engines, so that it can serve as the oracle in the
exactness tests. Exponential: use it only on a handful of antecedents.

It solves the generalised problem of ``docs/design.md`` §1 from its definition, recomputing
everything by hand from each candidate's predictions: any number of groups (each rate's gap is
its largest minus its smallest value over the groups; EOdds and CUAE add two gaps; a rate with a
zero denominator is 0) and sample weights (every count a sum of weights; the objective is the
weighted errors over the total weight plus lambda times the length). It shares nothing with the
engines but the :class:`Problem` it reads and the tolerance ``FEASIBILITY_TOL`` of the cap.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass

import numpy as np

from fairlist.groups import SmallGroupWarning
from fairlist.metrics import FEASIBILITY_TOL
from fairlist.rulelist import RuleList
from fairlist.solvers import Problem, Result, Status
from fairlist.solvers.bnb import BnBSolver

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


def _rate(num: np.ndarray, den: np.ndarray) -> np.ndarray:
    safe = np.where(den > 0, den, 1.0)
    return np.where(den > 0, num / safe, 0.0)  # a zero denominator gives rate 0


_RATE_OF = {  # rate name -> (numerator, denominator) from the counts (tn, fp, fn, tp)
    "selection": lambda tn, fp, fn, tp: (tp + fp, tn + fp + fn + tp),
    "tpr": lambda tn, fp, fn, tp: (tp, tp + fn),
    "fpr": lambda tn, fp, fn, tp: (fp, fp + tn),
    "ppv": lambda tn, fp, fn, tp: (tp, tp + fp),
    "npv": lambda tn, fp, fn, tp: (tn, tn + fn),
}


def rates_of_counts(tn, fp, fn, tp, names=tuple(_RATE_OF)) -> dict:
    """Each group's rates (by default selection, tpr, fpr, ppv, npv) from confusion counts."""
    return {r: _rate(*_RATE_OF[r](tn, fp, fn, tp)) for r in names}


def _gaps(rates: dict, metric_name: str) -> float:
    return float(sum(rates[r].max() - rates[r].min() for r in _RATES[metric_name]))


def group_rates(y: np.ndarray, pred: np.ndarray, groups: np.ndarray, k: int, w: np.ndarray):
    """Each group's rates (selection, tpr, fpr, ppv, npv) from weighted confusion counts."""
    # cell (group, label, prediction) -> summed weight
    cells = np.bincount(groups * 4 + y * 2 + pred, weights=w, minlength=4 * k).reshape(k, 4)
    return rates_of_counts(*cells.T)


def reference_unfairness(problem: Problem, pred: np.ndarray) -> float:
    """The unfairness of predictions ``pred`` (0/1) on ``problem``'s training data."""
    rates = group_rates(
        problem.y.astype(np.int64),
        np.asarray(pred, dtype=np.int64),
        problem.groups.astype(np.int64),
        problem.n_groups,
        problem.weights,
    )
    return _gaps(rates, problem.metric.name)


def _allowed_labels(ones: np.ndarray, zeros: np.ndarray, majority_only: bool) -> np.ndarray:
    """Which predictions (last axis: 0, 1) are allowed for sets with these weights of each
    label: both, or a weighted majority label (ties, up to float rounding, allow both)."""
    if not majority_only:
        return np.ones((*np.shape(ones), 2), dtype=bool)
    tie = np.abs(ones - zeros) <= 1e-9 * np.maximum(1.0, ones + zeros)
    return np.stack([tie | (zeros > ones), tie | (ones > zeros)], axis=-1)


def reference_solve(problem: Problem, max_length: int, majority_only: bool = False):
    """The optimal rule list of length <= ``max_length`` (and <= problem.max_length if set).

    Every list is enumerated, length by length. A rule fixes the prediction of the samples it
    captures, so a list's confusion counts are sums, over its rules and its default, of the
    captured samples' weights by (group, label), in the predicted-positive or the
    predicted-negative column. The prefixes of one length are kept together in arrays (their
    rules, those sums, their uncaptured samples) and every list "prefix + default" is weighed;
    the one shortcut drops the prefixes whose errors so far already lose to the best list.
    """
    if problem.max_length is not None:
        max_length = min(max_length, problem.max_length)
    X = problem.X.astype(bool)
    n, m = X.shape
    k = problem.n_groups
    # onehot[i, g, y]: sample i's weight in its (group, label) cell
    onehot = np.zeros((n, k, 2))
    onehot[np.arange(n), problem.groups, problem.y] = problem.weights
    total = float(problem.weights.sum())
    names = _RATES[problem.metric.name]
    best: list = [np.inf, None]
    count = 0

    # The prefixes of the current length (P of them): rules[p] = [(antecedent, prediction)],
    # positive / negative[p, g, y] the weights their rules predict 1 / 0, free[p, i] uncaptured.
    rules = np.zeros((1, 0, 2), dtype=np.int64)
    positive = np.zeros((1, k, 2))
    negative = np.zeros((1, k, 2))
    free = np.ones((1, n), dtype=bool)
    for length in range(max_length + 1):
        # The lists "prefix + default", every allowed default.
        rest = np.einsum("pn,ngy->pgy", free.astype(float), onehot)
        allowed = _allowed_labels(rest[..., 1].sum(-1), rest[..., 0].sum(-1), majority_only)
        for d in (0, 1):
            p = np.flatnonzero(allowed[:, d])
            pos = positive[p] + (rest[p] if d else 0.0)
            neg = negative[p] + (0.0 if d else rest[p])
            count += len(p)
            errors = pos[..., 0].sum(-1) + neg[..., 1].sum(-1)
            objective = errors / total + problem.lam * length
            keep = objective < best[0]
            if problem.epsilon is not None and keep.any():
                rates = rates_of_counts(neg[..., 0], pos[..., 0], neg[..., 1], pos[..., 1], names)
                unfair = sum(rates[r].max(-1) - rates[r].min(-1) for r in names)
                keep &= unfair <= problem.epsilon + FEASIBILITY_TOL
            if keep.any():
                b = np.flatnonzero(keep)[np.argmin(objective[keep])]
                best[0] = float(objective[b])
                best[1] = (rules[p[b]], d)
        if length == max_length:
            break
        # The prefixes of one more rule: every unused antecedent, every allowed prediction.
        captured = free[:, None, :] & X.T[None, :, :]  # (P, m, n)
        got = np.einsum("pmn,ngy->pmgy", captured.astype(float), onehot)
        unused = np.ones((len(rules), m), dtype=bool)
        for step in range(length):
            unused[np.arange(len(rules)), rules[:, step, 0]] = False
        ok = _allowed_labels(got[..., 1].sum(-1), got[..., 0].sum(-1), majority_only)
        ok &= unused[..., None]
        p, j, q = np.nonzero(ok)
        q1 = q[:, None, None].astype(bool)
        positive = positive[p] + np.where(q1, got[p, j], 0.0)
        negative = negative[p] + np.where(q1, 0.0, got[p, j])
        rules = np.concatenate([rules[p], np.stack([j, q], axis=1)[:, None, :]], axis=1)
        free = free[p] & ~captured[p, j]
        # Every list below keeps these predictions and has one more rule: drop the prefixes
        # whose errors already lose to the best list (only saves time).
        errors = positive[..., 0].sum(-1) + negative[..., 1].sum(-1)
        alive = errors / total + problem.lam * (length + 1) < best[0]
        rules, positive, negative = rules[alive], positive[alive], negative[alive]
        free = free[alive]
    rule_list = None
    if best[1] is not None:
        chosen, default = best[1]
        rule_list = problem.rule_list(chosen[:, 0].tolist(), chosen[:, 1].tolist(), int(default))
    return ReferenceResult(objective=best[0], rule_list=rule_list, n_candidates=count)


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
        return Problem.from_data(X.astype(np.uint8), y, sensitive, sample_weight=w, **kwargs)


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


def assert_certifies(problem: Problem, ref: ReferenceResult, result: Result, context) -> None:
    """``result`` is the certificate brute force ``ref`` gives: infeasible when no list meets
    the cap, else optimal with the same objective, a lower bound equal to it, and a fair list
    of at most ``problem.max_length`` rules whose evaluation agrees."""
    if math.isinf(ref.objective):
        assert result.status is Status.INFEASIBLE, context
        assert result.rule_list is None, context
        return
    assert result.status is Status.OPTIMAL, context
    assert abs(result.objective - ref.objective) <= 1e-9, (context, result.objective, ref.objective)
    assert result.lower_bound == result.objective, context
    ev = problem.evaluate(result.rule_list)
    assert ev.fair, context
    assert abs(ev.objective - result.objective) <= 1e-9, context
    assert result.rule_list.length <= problem.max_length, context


def reference_rashomon(problem: Problem, max_length: int, delta: float) -> list:
    """The Rashomon set by its definition: every list of at most ``max_length`` rules (and
    ``problem.max_length``) over distinct antecedents, each rule capturing at least one sample of
    positive weight that no earlier rule captured, either prediction per rule and for the default,
    that meets the cap with an objective at most the optimum + ``delta`` + 1e-9.

    Returns ``(objective, rules, default)`` tuples (``rules``: ``((antecedent, prediction),
    ...)``), in no particular order. Recursive and unvectorised on purpose: it shares nothing
    with the engine or with :func:`reference_solve`.
    """
    if problem.max_length is not None:
        max_length = min(max_length, problem.max_length)
    X = problem.X.astype(bool)
    w = problem.weights
    y = problem.y.astype(np.int64)
    total = float(w.sum())
    lists = []

    def visit(rules: tuple, pred: np.ndarray, free: np.ndarray) -> None:
        for d in (0, 1):
            full = pred.copy()
            full[free] = d
            errors = float(w[full != y].sum())
            objective = errors / total + problem.lam * len(rules)
            fair = problem.epsilon is None or (
                reference_unfairness(problem, full) <= problem.epsilon + FEASIBILITY_TOL
            )
            if fair:
                lists.append((objective, rules, d))
        if len(rules) == max_length:
            return
        used = {j for j, _ in rules}
        for j in range(X.shape[1]):
            hit = free & X[:, j]
            if j in used or not w[hit].sum() > 0:
                continue
            for q in (0, 1):
                child = pred.copy()
                child[hit] = q
                visit((*rules, (j, q)), child, free & ~hit)

    visit((), np.zeros(len(y), dtype=np.int64), np.ones(len(y), dtype=bool))
    if not lists:
        return []
    optimum = min(o for o, _, _ in lists)
    return [item for item in lists if item[0] <= optimum + delta + 1e-9]


class CanonicalSerial(BnBSolver):
    """The serial search with canonical ties (the core's Config::canonical_ties): its certified
    list is the one every ``n_jobs > 1`` must return."""

    def _config(self, limits, max_length):
        return {**super()._config(limits, max_length), "canonical_ties": True}
