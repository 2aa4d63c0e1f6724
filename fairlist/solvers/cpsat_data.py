"""The CP-SAT model's data and variables (sections 1 and 2 of :mod:`fairlist.solvers.cpsat_model`):
samples aggregated into weighted patterns, integer weights, and the variables of a rule list.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np
from ortools.sat.python import cp_model

from ..metric_table import METRICS
from .base import (
    Problem,
)
from .runtime import NO_DEADLINE, Deadline
from .weights import WEIGHT_LIMIT, IntegerWeights, exact_weights, rounded_weights

#: The total of rounded weights: smaller for PP and CUAE, whose products of counts grow fast.
_ROUNDED_TOTAL = {"linear": WEIGHT_LIMIT, "ratio": 2**24}


# ---------------------------------------------------------------------------- 1. data
def integer_weights(problem: Problem) -> IntegerWeights:
    """``problem``'s sample weights as integers: read exactly if they fit, else rounded."""
    if problem.sample_weight is None:
        return IntegerWeights(np.ones(problem.n_samples, np.int64), Fraction(1), True, Fraction(0))
    w = problem.sample_weight
    kind = "linear" if METRICS[problem.metric].linear else "ratio"
    return exact_weights(w) or rounded_weights(w, _ROUNDED_TOTAL[kind])


def aggregate(
    problem: Problem, weights: IntegerWeights | None = None, deadline: Deadline = NO_DEADLINE
) -> tuple[np.ndarray, np.ndarray]:
    """Distinct antecedent rows and, per row, the summed integer weights per (group, label).

    Samples of weight 0 are left out: they change no count (a rule that captures only such
    samples is dropped by the dominance cuts, which is safe: it changes nothing but the length).
    ``deadline`` is checked between the steps (each a vectorised pass: about 0.2 s for
    300,000 rows, the slowest the sort).
    """
    weights = integer_weights(problem) if weights is None else weights
    deadline.check("data")
    keep = weights.values > 0
    X = problem.X[keep]
    # Rows compared as their packed bytes (one opaque item each): np.unique(axis=0) sorts
    # structured rows and took seconds on a million samples. Packed big-endian, zero-padded
    # bytes sort as the rows themselves do, so the patterns come in the same order.
    packed = np.ascontiguousarray(np.packbits(X, axis=1))
    keys = packed.view(np.dtype((np.void, packed.shape[1]))).reshape(-1)
    deadline.check("data")
    _, first, inverse = np.unique(keys, return_index=True, return_inverse=True)
    deadline.check("data")
    patterns = X[first]
    inverse = np.asarray(inverse).reshape(-1)
    counts = np.zeros((len(patterns), problem.n_groups, 2), dtype=np.int64)
    np.add.at(
        counts,
        (inverse, problem.groups[keep], problem.y[keep].astype(np.int64)),
        weights.values[keep],
    )
    return patterns, counts


def satisfied_sets(patterns: np.ndarray, deadline: Deadline = NO_DEADLINE) -> list[list[int]]:
    """``S[p]``: the antecedents pattern ``p`` satisfies, in increasing order.

    One ``np.nonzero`` over the whole table, then a list slice per pattern: a
    ``np.flatnonzero`` per pattern took 4.2 s for 300,000 patterns of 40 antecedents, with no
    deadline check (the time limit of 0.001 s was overrun by seconds); this takes about 0.3 s
    and checks ``deadline`` every :attr:`Deadline.CHECK_EVERY` patterns.

    >>> satisfied_sets(np.array([[1, 0, 1], [0, 0, 0], [0, 1, 1]], np.uint8))
    [[0, 2], [], [1, 2]]
    """
    rows, columns = np.nonzero(patterns)
    ends = np.cumsum(np.bincount(rows, minlength=patterns.shape[0])).tolist()
    deadline.check("data")
    flat = columns.tolist()
    sets: list[list[int]] = []
    start = 0
    for p, end in enumerate(ends):
        deadline.check("data", p)
        sets.append(flat[start:end])
        start = end
    return sets


@dataclass(frozen=True)
class ModelData:
    """Section 1: the aggregated data the model is written on (see the module docstring)."""

    patterns: np.ndarray  # (P, M) uint8: the distinct antecedent rows (of positive weight)
    weights: np.ndarray  # (P, G, 2) int64: summed integer weights per (pattern, group, label)
    sat_sets: list[list[int]]  # S[p]: the antecedents pattern p satisfies
    max_length: int  # K
    sample_weights: IntegerWeights  # how the sample weights became integers

    @classmethod
    def of(cls, problem: Problem, max_length: int, deadline: Deadline = NO_DEADLINE) -> ModelData:
        """``problem`` aggregated, for lists of at most ``max_length`` rules (capped at M);
        raises :class:`~fairlist.solvers.runtime.ModelBuildTimeout` (section ``data``) once
        ``deadline`` has passed, checked between steps and every few hundred patterns."""
        sample_weights = integer_weights(problem)
        deadline.check("data")
        patterns, weights = aggregate(problem, sample_weights, deadline)
        sat_sets = satisfied_sets(patterns, deadline)
        K = min(int(max_length), problem.n_antecedents)
        return cls(patterns, weights, sat_sets, K, sample_weights)

    @property
    def n_patterns(self) -> int:
        return self.patterns.shape[0]

    @property
    def n_antecedents(self) -> int:
        return self.patterns.shape[1]

    @property
    def n_groups(self) -> int:
        return self.weights.shape[1]

    @property
    def total_weight(self) -> int:
        """W: the summed integer weights (N without sample weights)."""
        return int(self.weights.sum())

    @property
    def group_sizes(self) -> np.ndarray:
        """Summed weights per group."""
        return self.weights.sum(axis=(0, 2))

    @property
    def positives(self) -> np.ndarray:
        """Summed weights of the samples with label 1, per group."""
        return self.weights[:, :, 1].sum(axis=0)

    @property
    def negatives(self) -> np.ndarray:
        """Summed weights of the samples with label 0, per group."""
        return self.weights[:, :, 0].sum(axis=0)

    def reaches_rules(self, p: int) -> bool:
        """Whether pattern ``p`` can be captured by a rule (else it always reaches the default)."""
        return bool(self.sat_sets[p]) and self.max_length > 0


# ---------------------------------------------------------------------------- 2. variables
@dataclass(frozen=True)
class ModelVariables:
    """Section 2: the variables of the model, keyed by their indices."""

    use: dict[tuple[int, int], cp_model.IntVar]  # use[k, j]: position k holds antecedent j
    unused: dict[int, cp_model.IntVar]  # unused[k]: position k holds no rule
    pred: dict[int, cp_model.IntVar]  # pred[k]: the rule at position k predicts 1
    default: cp_model.IntVar  # the default predicts 1
    cap: dict[tuple[int, int], cp_model.IntVar]  # cap[p, k]: position k (K: default) captures p
    pos: dict[int, Any]  # pos[p]: pattern p is predicted 1


def new_variables(
    model: cp_model.CpModel, data: ModelData, deadline: Deadline = NO_DEADLINE
) -> ModelVariables:
    K, m = data.max_length, data.n_antecedents
    # use[k, j]: position k holds antecedent j
    use = {(k, j): model.new_bool_var(f"use[{k},{j}]") for k in range(K) for j in range(m)}
    # unused[k]: position k holds no rule
    unused = {k: model.new_bool_var(f"unused[{k}]") for k in range(K)}
    # pred[k]: the rule at position k predicts 1
    pred = {k: model.new_bool_var(f"pred[{k}]") for k in range(K)}
    # default: the default predicts 1
    default = model.new_bool_var("default")
    # cap[p, k]: pattern p is captured by position k (k = K: by the default)
    cap: dict[tuple[int, int], Any] = {}
    # pos[p]: pattern p is predicted 1
    pos: dict[int, Any] = {}
    for p in range(data.n_patterns):
        deadline.check("variables", p)
        if not data.reaches_rules(p):
            pos[p] = default  # satisfies no antecedent: always reaches the default
            continue
        for k in range(K + 1):
            cap[p, k] = model.new_bool_var(f"cap[{p},{k}]")
        pos[p] = model.new_bool_var(f"pos[{p}]")
    return ModelVariables(use, unused, pred, default, cap, pos)
