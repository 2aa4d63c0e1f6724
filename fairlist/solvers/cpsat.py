"""The CP-SAT engine: an exact OR-Tools model of fair rule lists of bounded length.

Model (see ``DESIGN.md`` §4; :func:`build_model` builds it in the numbered sections below)
----------------------------------------------------------------------------------------------
1. Data
    Samples with the same antecedent bits are captured by the same rule and predicted alike, so
    they are aggregated first into *patterns* ``p`` (distinct rows of ``X``) with integer weights
    ``w[p, g, y]`` = the summed (integer) sample weight of the samples of pattern ``p``, group
    ``g`` (``0 .. G-1``; with two groups 0 is the protected one) and label ``y`` — their number
    without sample weights. ``S[p]`` = the antecedents pattern ``p`` satisfies. ``K`` = the
    maximum length (positions ``k = 0 .. K-1``), ``M`` = number of antecedents, ``W`` = the
    total weight (``N``, the number of samples, without sample weights).

    Sample weights become integers (:func:`integer_weights`) in one of two ways:

    * *exact*: each weight is read as the fraction of denominator <= 10**6 nearest to it, when
      that fraction lies within 2**-50 (relative) of the float: integers, the decimal the user
      wrote (``0.3``, also when computed as ``3 * 0.1``), simple ratios (``1/3``). All are
      multiplied by the lcm of their denominators and divided by the gcd of the results; this
      is used when the total stays <= 2**31. The model is then the weighted problem for these
      fractions, exactly (integer weights are duplicated rows, a weight of 0 a dropped row).
      :meth:`Problem.evaluate` uses the floats, which differ by at most 2**-50 (relative): the
      objectives agree to ~1e-15, and a fairness decision could differ only for a list whose
      unfairness lies within ~1e-14 of ``epsilon + FEASIBILITY_TOL`` — the order of the float
      rounding ``Problem.evaluate`` makes anyway. Statuses are as without weights.
    * *rounded* (any other weights, or a total beyond 2**31): weights are rounded to
      multiples of ``2**-j``, ``j`` the largest that keeps the integer total <= 2**31 (2**24
      for PP and CUAE, whose products of counts grow fast); ``rho`` = the largest relative
      rounding error of a positive weight. Every weighted count then moves by a factor in
      ``[1 - rho, 1 + rho]``, every rate ``num / den`` (``num`` a part of ``den``) by at most
      ``2 rho / (1 - rho)`` and every gap by twice that, so the cap is lowered by
      ``4 rho / (1 - rho)`` per rate (section 5): every list the model accepts is fair for the
      true weights. The model is not the problem any more, so the status is never better than
      ``feasible`` (``unknown`` instead of ``infeasible``) and the lower bound is 0;
      ``stats["weights_exact"]`` is False. (With ``epsilon = 0`` the lowered cap is negative:
      status ``unknown``.) Integer or decimal weights avoid this.

    The model's size and numbers grow with ``W`` as the unweighted model's grow with ``N``.

2. Variables
    ``use[k, j]``  position ``k`` holds antecedent ``j``;
    ``unused[k]``  position ``k`` holds no rule (the list is shorter than ``k + 1``);
    ``pred[k]``    prediction of the rule at position ``k``; ``default`` the default prediction;
    ``cap[p, k]``  pattern ``p`` is captured by position ``k`` (its first satisfied rule);
    ``cap[p, K]``  pattern ``p`` falls through to the default;
    ``pos[p]``     pattern ``p`` is predicted positive.
    A pattern that satisfies no antecedent (or any pattern when ``K = 0``) always reaches the
    default: it has no ``cap`` variables and ``pos[p]`` is ``default`` itself.

3. Constraints: rule-list structure
    exactly one of ``use[k, :]`` and ``unused[k]``; ``unused[k] => unused[k+1]`` (used positions
    are contiguous); each antecedent used at most once; ``unused[k] => not pred[k]``.

4. Constraints: capture and predictions
    ``sum_k cap[p, k] = 1`` (``k = 0 .. K``); ``cap[p, k] <= sat[p, k]`` and
    ``sat[p, k] <= sum_{k' <= k} cap[p, k']``, where ``sat[p, k] = sum_{j in S[p]} use[k, j]``
    is 0/1 (one antecedent per position). Together: the first satisfied position captures.
    ``cap[p, k] => pos[p] == pred[k]``, ``cap[p, K] => pos[p] == default``.
    Dominance cuts (each removes only lists that a shorter list with the same predictions,
    hence the same fairness and no larger objective, replaces): a used position captures at
    least one pattern (samples of weight 0 are no pattern: they change no count); the last
    rule predicts unlike the default.
    The searched space:

    * full (default): symmetry cut — adjacent rules with the same prediction can swap without
      changing any prediction, so they are kept in increasing antecedent order
      (``index[k]`` = the antecedent at position ``k``, ``M`` when unused; ``same[k]`` =
      positions ``k`` and ``k + 1`` predict alike);
    * majority (``majority_only``): each prediction is a majority label (by weight) of the
      samples its rule (or the default) classifies; ties allow both.

5. Constraints: fairness
    On the per-group confusion counts ``TP[g] = sum_p w[p, g, 1] pos[p]``,
    ``FP[g] = sum_p w[p, g, 0] pos[p]`` (``FN``, ``TN`` follow). The cap ``E = epsilon +
    FEASIBILITY_TOL`` (added in floating point, exactly as :func:`fairlist.metrics.is_fair`
    does, then read as an exact fraction; at most the number of rates, since each gap is at
    most 1; lowered for rounded weights, section 1). A rate with a zero denominator is 0.
    Each rate's gap is its largest minus its smallest value over the groups, which is the
    largest difference of a pair of groups: ``gap <= c`` is ``rate_g - rate_h <= c`` for every
    pair, and a sum of two gaps ``<= E`` is the same for every pair of pairs (one per rate).
    Every pair is multiplied out by its own denominators: an lcm over all ``G`` groups
    overflows 64 bits quickly (COMPAS's six races: the lcm of their label counts is ~7e17).
    With two groups there is one pair, and the constraints are the paper's.

    * Linear caps — SP, PE, EOpp, EOdds: every rate is ``num / den`` with a *constant*
      denominator (group weight, label weight per group). For a pair ``g < h`` with ``D`` the
      lcm of their non-zero denominators, ``D (rate_g - rate_h) = num_g D/den_g - num_h
      D/den_h`` is linear and integral (a zero denominator gives coefficient 0, i.e. rate 0).
      SP, PE, EOpp: ``-floor(E D) <= D (rate_g - rate_h) <= floor(E D)`` — exact. With more
      than two groups each numerator is first a variable ``count[i, g]`` (it enters ``G - 1``
      pairs). EOdds: ``gap[i, g, h] >= |D (rate_g - rate_h)|`` for both rates, in units of
      the lcm of *all* the denominators when it fits in 2**61 (then ``gap_T + gap_F <=
      floor(E D)``), else each in its own pair's units, and for every TPR pair and FPR pair
      ``(L/D_T) gap_T + (L/D_F) gap_F <= floor(E L)``, ``L = lcm(D_T, D_F)`` — exact, unless
      ``L`` exceeds 2**61 (then the coefficients are rounded up: conservative, see below).
    * Ratio caps — PP, CUAE: the denominators are variables. ``zero[i, g] <=> den[i, g] = 0``
      and ``dden[i, g] = den[i, g] + zero[i, g] >= 1``, so that ``num / dden`` is the rate under
      the zero-denominator convention (the numerator is 0 then). Products by
      ``add_multiplication_equality``, for each pair ``g < h``: ``gap[i, g, h] >= |num[i,g]
      dden[i,h] - num[i,h] dden[i,g]|`` with ``prod[i, g, h] = dden[i,g] dden[i,h]``; PP: ``q
      gap <= p prod`` for every pair; CUAE, for every PPV pair ``a`` and NPV pair ``b``: ``q
      (gap_a prod_b + gap_b prod_a) <= p prod_a prod_b`` — where ``p / q`` is the largest
      fraction ``<= E`` whose denominator is at most the largest possible reduced denominator
      ``B`` of an attainable value of the left-hand side over the right. No attainable value
      lies in ``(p/q, E]``, so this is exact. When ``q B`` would overflow 64-bit integers
      (two-group CUAE beyond about 800 samples) ``q`` is capped instead; when a CUAE product
      itself would, each of the two gaps is capped at ``E / 2`` instead.

    A capped ``q``, rounded-up coefficients or ``E / 2`` make the model *conservative* (every
    list it accepts is fair, a few fair ones may be cut): ``stats["epsilon_exact"]`` is False
    and the status is never better than ``feasible``.

6. Objective
    ``errors / W + lam * length`` (``errors`` = the integer weight of the misclassified
    samples) with ``lam = a / b`` read exactly from its shortest decimal representation
    (``0.01`` is ``1/100``; a value with more than 9 significant decimals is approximated with
    denominator <= 10**9): minimise the integer ``b * errors + a * W * length`` (divided by
    their gcd), which orders rule lists exactly as the true objective does, ties included. When
    those coefficients would pass 2**61 (lam 1e-12 or 1e300, or many digits on many samples),
    ``W lam`` is replaced by a small ``c`` that orders every pair of lists alike, ties included
    (:func:`length_cost`: ``W + 1`` when ``lam > 1``, else the mediant of the Farey neighbours
    of ``W lam`` of order ``K``); lower bounds are then corrected by at most ``|c - W lam| K /
    W`` (``stats["lam_model"]`` is ``c / W``). The reported objective is always recomputed by
    :meth:`Problem.evaluate`.

7. Hint (optional)
    :meth:`CPSatModel.add_hint` sets every variable from a rule list put in the canonical form
    the cuts of section 4 keep.

Maximum length
    CP-SAT needs a bound ``K``: ``problem.max_length`` if set, else the ``max_length`` option,
    else the exact bound implied by the best fair constant rule list (objective ``U``, in the
    model's integer weights; a list of ``K`` rules costs at least ``lam K``, so ``K <= U /
    lam``), else ``M`` (antecedents are distinct). ``stats["max_length_source"]`` says which
    one applied.

Solving
    :class:`CPSatSolver` sets ``num_workers`` (default :data:`DEFAULT_NUM_WORKERS`, one worker:
    a solve that is not cut short by a limit returns the same rule list on every machine) and
    ``random_seed`` explicitly. Every rule list returned is re-evaluated with
    :meth:`Problem.evaluate`; a disagreement with the model (unfair list, different errors)
    raises ``RuntimeError``, since it would be a bug (with sample weights the errors are
    compared up to the floats' rounding, and not at all when the weights were rounded). The
    stop reason is read from CP-SAT's status, the Ctrl-C this module catches, and the limits
    and wall time (see :func:`stop_reason`).

Limits
    The time limit covers the whole solve: :func:`build_model` checks the deadline between its
    sections and every 512 patterns, and a build that does not fit returns status unknown, stop
    reason time_limit, no list and ``stats["message"]``; CP-SAT gets what is left. CP-SAT does
    not honour its ``max_memory_in_mb``, so a memory limit is watched here (:class:`MemoryWatch`:
    the process's growth since the solve began, during the build and the search).
"""

from __future__ import annotations

import functools
import itertools
import math
import numbers
import operator
import os
import sys
import threading
import time
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, ClassVar

import numpy as np
from ortools.sat.python import cp_model

from .._params import BOOLEAN, INT32_MAX, InstanceOf, Interval, Satisfies, validate_params
from ..errors import InvalidParameterError
from ..metric_table import METRICS, RATES, Metric
from ..metrics import FEASIBILITY_TOL, METRIC_RATES
from ..rulelist import RuleList
from .base import (
    MAX_LENGTH,
    PROGRESS_INTERVAL,
    Limits,
    Problem,
    Result,
    Status,
    StopReason,
    check_problem,
    deprecated_option,
)
from .weights import WEIGHT_LIMIT, IntegerWeights, exact_weights, rounded_weights

__all__ = [
    "CPSatSolver", "CPSatModel", "DEFAULT_NUM_WORKERS", "LongModelWarning", "build_model",
    "floor_fraction", "lambda_fraction", "stop_reason",
]

#: CP-SAT search workers when the caller does not say: one, so that a solve that completes
#: returns the same rule list on every machine and every run (see :class:`CPSatSolver`).
DEFAULT_NUM_WORKERS = 1

_INT_LIMIT = 2**61  # keep every product and linear bound well inside int64
_LAM_MAX_DENOMINATOR = 10**9
_LAM_READ_TOL = Fraction(2) ** -50
#: The total of rounded weights: smaller for PP and CUAE, whose products of counts grow fast.
_ROUNDED_TOTAL = {"linear": WEIGHT_LIMIT, "ratio": 2**24}


# ---------------------------------------------------------------------------- time limit
class ModelBuildTimeout(Exception):
    """Building the model passed the solve's deadline or memory limit (``limit``: "time" or
    "memory"; raised by :meth:`Deadline.check`)."""

    def __init__(self, section: str, limit: str = "time") -> None:
        super().__init__(section)
        self.section, self.limit = section, limit


def resident_mb() -> float:
    """This process's resident memory in MiB (Linux's /proc/self/statm; elsewhere the peak
    that getrusage reports, or 0 where neither is available)."""
    try:
        with open("/proc/self/statm") as statm:
            return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20
    except (OSError, ValueError, IndexError, AttributeError):
        pass
    try:
        import resource
    except ImportError:  # Windows
        return 0.0
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak / 2**20 if sys.platform == "darwin" else peak / 1024


class MemoryWatch:
    """Whether the process has grown by more than ``limit_mb`` MiB since the watch began.

    CP-SAT does not honour its ``max_memory_in_mb`` (its documentation: only the pure SAT
    solver does), so the engine watches the memory itself: the model build checks it with
    the deadline, and the search is stopped (``stop_search``) once it is exceeded.
    """

    def __init__(self, limit_mb: float) -> None:
        self.limit_mb = float(limit_mb)
        self.base_mb = resident_mb()
        self.exceeded = False

    def __call__(self) -> bool:
        if not self.exceeded and resident_mb() - self.base_mb > self.limit_mb:
            self.exceeded = True
        return self.exceeded


@dataclass(frozen=True)
class Deadline:
    """When the solve's time limit runs out (``time.perf_counter()`` seconds; None: never),
    and the memory it may take (None: no watch).

    :func:`build_model` checks it between its sections and every :data:`CHECK_EVERY` patterns
    inside its loops over patterns, so that building a model that does not fit in the time
    limit stops within a fraction of a second of the limit.
    """

    at: float | None = None
    memory: MemoryWatch | None = None

    CHECK_EVERY: ClassVar[int] = 512

    def remaining(self) -> float:
        return math.inf if self.at is None else self.at - time.perf_counter()

    def check(self, section: str, p: int = 0) -> None:
        """Raise :class:`ModelBuildTimeout` naming ``section`` once the deadline has passed
        or the memory limit is exceeded (inside a loop: only when ``p`` is a multiple of
        CHECK_EVERY, a cheap test)."""
        if p % self.CHECK_EVERY:
            return
        if self.at is not None and time.perf_counter() > self.at:
            raise ModelBuildTimeout(section, "time")
        if self.memory is not None and self.memory():
            raise ModelBuildTimeout(section, "memory")


NO_DEADLINE = Deadline()


# ---------------------------------------------------------------------------- exact arithmetic
def floor_fraction(x: Fraction, bound: int) -> Fraction:
    """The largest fraction ``p / q <= x`` with ``1 <= q <= bound`` (Stern–Brocot descent).

    Parameters
    ----------
    x : Fraction
        A non-negative number.
    bound : int
        Largest denominator allowed (>= 1).
    """
    if bound < 1:
        raise ValueError(f"bound must be >= 1, got {bound}")
    if x < 0:
        raise ValueError(f"x must be >= 0, got {x}")
    if x.denominator <= bound:
        return x
    return farey_neighbours(x, bound)[0]


def farey_neighbours(x: Fraction, bound: int) -> tuple[Fraction, Fraction]:
    """``lo <= x < hi``: the fractions nearest ``x`` from below and from above among those of
    denominator at most ``bound`` (``x >= 0`` whose denominator exceeds ``bound``; then
    ``lo < x``, and no fraction of denominator <= ``bound`` lies strictly between them)."""
    a, b = math.floor(x), 1  # lower end a/b <= x
    c, d = a + 1, 1  # upper end c/d > x
    while b + d <= bound:
        if Fraction(a + c, b + d) <= x:
            # Raise the lower end as far as possible: (a + k c) / (b + k d) <= x.
            k = min(math.floor((x * b - a) / (c - x * d)), (bound - b) // d)
            a, b = a + k * c, b + k * d
        else:
            # Lower the upper end: (c + k a) / (d + k b) > x (x != a/b since its denominator
            # exceeds the bound).
            k = min(math.ceil((c - x * d) / (x * b - a)) - 1, (bound - d) // b)
            c, d = c + k * a, d + k * b
    return Fraction(a, b), Fraction(c, d)


def lambda_fraction(lam: float) -> Fraction:
    """``lam`` as an exact fraction: its shortest decimal form (``0.01`` is 1/100), or the
    fraction of denominator at most 10**9 nearest to it when that lies within 2**-50 of it
    (relative; ``1/3`` is 1/3). Never 0 for a positive ``lam``."""
    f = Fraction(repr(float(lam)))
    if f.denominator > _LAM_MAX_DENOMINATOR:
        near = f.limit_denominator(_LAM_MAX_DENOMINATOR)
        if abs(near - f) <= _LAM_READ_TOL * f:
            f = near
    return f


def length_cost(x: Fraction, total: int, max_length: int) -> Fraction:
    """A simple ``c`` such that ``errors + c * length`` orders every pair of lists (errors in
    ``0 .. total``, lengths in ``0 .. max_length``) exactly as ``errors + x * length`` does,
    ties included; ``x`` itself when its denominator is at most ``max_length``.

    Two lists compare by the sign of ``de + x dl`` (``de`` an integer in ``[-total, total]``,
    ``dl`` in ``1 .. max_length``). For ``x > total`` any ``c > total`` gives the same signs
    (length decides): ``total + 1``. Otherwise ``x dl`` is never an integer when x's
    denominator exceeds ``max_length``, and any ``c`` strictly between the Farey neighbours of
    ``x`` of order ``max_length`` has ``floor(c dl) = floor(x dl)`` and no integer ``c dl``
    either: the signs agree. Their mediant is the simplest such ``c`` (denominator at most
    ``2 max_length``).
    """
    if max_length == 0:
        return Fraction(0)  # every list has length 0
    if x > total:
        return Fraction(total + 1)
    if x.denominator <= max_length:
        return x
    lo, hi = farey_neighbours(x, max_length)
    return Fraction(lo.numerator + hi.numerator, lo.denominator + hi.denominator)


# ---------------------------------------------------------------------------- 1. data
def integer_weights(problem: Problem) -> IntegerWeights:
    """``problem``'s sample weights as integers: read exactly if they fit, else rounded."""
    if problem.sample_weight is None:
        return IntegerWeights(np.ones(problem.n_samples, np.int64), Fraction(1), True, Fraction(0))
    w = problem.sample_weight
    kind = "linear" if METRICS[problem.metric].linear else "ratio"
    return exact_weights(w) or rounded_weights(w, _ROUNDED_TOTAL[kind])


def aggregate(
    problem: Problem, weights: IntegerWeights | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """Distinct antecedent rows and, per row, the summed integer weights per (group, label).

    Samples of weight 0 are left out: they change no count (a rule that captures only such
    samples is dropped by the dominance cuts, which is safe: it changes nothing but the length).
    """
    weights = integer_weights(problem) if weights is None else weights
    keep = weights.values > 0
    X = problem.X[keep]
    # Rows compared as their packed bytes (one opaque item each): np.unique(axis=0) sorts
    # structured rows and took seconds on a million samples. Packed big-endian, zero-padded
    # bytes sort as the rows themselves do, so the patterns come in the same order.
    packed = np.ascontiguousarray(np.packbits(X, axis=1))
    keys = packed.view(np.dtype((np.void, packed.shape[1]))).reshape(-1)
    _, first, inverse = np.unique(keys, return_index=True, return_inverse=True)
    patterns = X[first]
    inverse = np.asarray(inverse).reshape(-1)
    counts = np.zeros((len(patterns), problem.n_groups, 2), dtype=np.int64)
    np.add.at(
        counts,
        (inverse, problem.groups[keep], problem.y[keep].astype(np.int64)),
        weights.values[keep],
    )
    return patterns, counts


@dataclass(frozen=True)
class ModelData:
    """Section 1: the aggregated data the model is written on (see the module docstring)."""

    patterns: np.ndarray  # (P, M) uint8: the distinct antecedent rows (of positive weight)
    weights: np.ndarray  # (P, G, 2) int64: summed integer weights per (pattern, group, label)
    sat_sets: list[list[int]]  # S[p]: the antecedents pattern p satisfies
    max_length: int  # K
    sample_weights: IntegerWeights  # how the sample weights became integers

    @classmethod
    def of(cls, problem: Problem, max_length: int) -> ModelData:
        """``problem`` aggregated, for lists of at most ``max_length`` rules (capped at M)."""
        sample_weights = integer_weights(problem)
        patterns, weights = aggregate(problem, sample_weights)
        sat_sets = [np.flatnonzero(row).tolist() for row in patterns]
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


def _new_variables(
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


# ---------------------------------------------------------------------------- 3. structure
def _add_structure(model: cp_model.CpModel, data: ModelData, x: ModelVariables) -> None:
    K, m = data.max_length, data.n_antecedents
    for k in range(K):
        model.add_exactly_one([x.use[k, j] for j in range(m)] + [x.unused[k]])
        model.add_implication(x.unused[k], ~x.pred[k])  # symmetry: unused positions predict 0
        if k + 1 < K:
            model.add_implication(x.unused[k], x.unused[k + 1])  # used positions are contiguous
    for j in range(m):
        model.add_at_most_one([x.use[k, j] for k in range(K)])  # no antecedent twice


# ---------------------------------------------------------------------------- 4. capture
def _add_capture(
    model: cp_model.CpModel, data: ModelData, x: ModelVariables, deadline: Deadline = NO_DEADLINE
) -> None:
    K = data.max_length
    for p in range(data.n_patterns):
        deadline.check("capture constraints", p)
        if not data.reaches_rules(p):
            continue
        model.add_exactly_one([x.cap[p, k] for k in range(K + 1)])
        for k in range(K):
            sat = cp_model.LinearExpr.sum([x.use[k, j] for j in data.sat_sets[p]])
            model.add(x.cap[p, k] <= sat)  # captured only where satisfied
            # the first satisfied position captures
            model.add(sat <= sum(x.cap[p, kk] for kk in range(k + 1)))
            model.add(x.pos[p] == x.pred[k]).only_enforce_if(x.cap[p, k])
        model.add(x.pos[p] == x.default).only_enforce_if(x.cap[p, K])


def _add_dominance_cuts(model: cp_model.CpModel, data: ModelData, x: ModelVariables) -> None:
    K = data.max_length
    for k in range(K):
        # a used rule captures something
        captures = [x.cap[p, k] for p in range(data.n_patterns) if data.reaches_rules(p)]
        model.add(cp_model.LinearExpr.sum(captures) >= 1).only_enforce_if(~x.unused[k])
        # the last rule predicts unlike the default (else drop it)
        last = [~x.unused[k]] + ([x.unused[k + 1]] if k + 1 < K else [])
        model.add(x.pred[k] != x.default).only_enforce_if(last)


def _add_majority_labels(model: cp_model.CpModel, data: ModelData, x: ModelVariables) -> None:
    """Majority space: the captured samples' label balance decides the allowed predictions."""
    K, n_patterns = data.max_length, data.n_patterns
    balance = [int(data.weights[p, :, 1].sum() - data.weights[p, :, 0].sum())
               for p in range(n_patterns)]
    for k in range(K + 1):
        caught = [p for p in range(n_patterns) if (p, k) in x.cap]
        margin = cp_model.LinearExpr.weighted_sum(
            [x.cap[p, k] for p in caught], [balance[p] for p in caught]
        )
        if k == K:  # the default also classifies the patterns that satisfy nothing
            margin += sum(balance[p] for p in range(n_patterns) if not data.reaches_rules(p))
        label = x.default if k == K else x.pred[k]
        model.add(margin >= 0).only_enforce_if(label)
        model.add(margin <= 0).only_enforce_if(~label)


def _add_order_symmetry(model: cp_model.CpModel, data: ModelData, x: ModelVariables) -> None:
    """Full space: adjacent rules with the same prediction come in increasing antecedent order.

    They can swap without changing any prediction. (Not valid in the majority space: a swap
    changes which samples each rule captures.)
    """
    K, m = data.max_length, data.n_antecedents
    # index[k]: the antecedent at position k (m when unused)
    index = {k: model.new_int_var(0, m, f"index[{k}]") for k in range(K)}
    for k in range(K):
        model.add(index[k] == sum(j * x.use[k, j] for j in range(m)) + m * x.unused[k])
    for k in range(K - 1):
        # same[k]: positions k and k + 1 predict alike
        same = model.new_bool_var(f"same[{k}]")
        model.add(x.pred[k] == x.pred[k + 1]).only_enforce_if(same)
        model.add(x.pred[k] != x.pred[k + 1]).only_enforce_if(~same)
        model.add(index[k] < index[k + 1]).only_enforce_if([same, ~x.unused[k + 1]])


# ---------------------------------------------------------------------------- 5. fairness
def fairness_cap(problem: Problem, weights: IntegerWeights) -> Fraction | None:
    """The cap ``E`` the model puts on the unfairness of its integer-weighted counts.

    ``epsilon + FEASIBILITY_TOL`` (the float sum :func:`fairlist.metrics.is_fair` compares to,
    read as an exact fraction), at most the number of rates (each gap is at most 1). With
    rounded weights it is lowered by the largest change the rounding can make to the
    unfairness, so that every list the model accepts is fair for the true weights.
    """
    if problem.epsilon is None:
        return None
    n_rates = len(METRIC_RATES[problem.metric])
    cap = min(Fraction(problem.epsilon + FEASIBILITY_TOL), Fraction(n_rates))
    if not weights.exact:
        rho = weights.rho
        if rho >= 1:
            return Fraction(-1)  # a positive weight rounded to 0: nothing can be certified
        # each weighted sum moves by a factor within [1 - rho, 1 + rho], so each rate
        # num / den (num a part of den) by at most 2 rho / (1 - rho), each gap by twice that
        cap -= n_rates * 4 * rho / (1 - rho)
    return cap


def _add_fairness_cap(
    model: cp_model.CpModel, data: ModelData, x: ModelVariables, metric: Metric,
    cap_e: Fraction | None,
) -> bool:
    """Unfairness <= cap_e; False when the cap had to be made conservative (not exact)."""
    if cap_e is None:
        return True
    if cap_e < 0:
        model.add_bool_or([])  # no rule list has a negative unfairness
        return True
    groups = range(data.n_groups)

    def count(g: int, y: int) -> cp_model.LinearExpr:
        """Weight of the samples of group g and label y predicted positive."""
        w = data.weights[:, g, y]
        present = np.flatnonzero(w)
        return cp_model.LinearExpr.weighted_sum(
            [x.pos[p] for p in present.tolist()], w[present].tolist()
        )

    tp = [count(g, 1) for g in groups]
    fp = [count(g, 0) for g in groups]
    n_group = data.group_sizes
    info = METRICS[metric]
    if info.linear:
        # rates num[g] / den[g] with constant denominators (the samples the rate divides by)
        cells = {"tp": tp, "fp": fp}
        sizes = {"any": n_group, "positive": data.positives, "negative": data.negatives}
        terms = [
            (
                [functools.reduce(operator.add, (cells[c][g] for c in RATES[r].numerator))
                 for g in groups],
                sizes[RATES[r].needs],
            )
            for r in info.rates
        ]
        return _add_linear_cap(model, terms, cap_e)
    # rates num / den with variable denominators: PPV and NPV
    ratio = {
        "ppv": lambda: (tp, [tp[g] + fp[g] for g in groups]),
        "npv": lambda: (
            [int(data.negatives[g]) - fp[g] for g in groups],
            [int(n_group[g]) - tp[g] - fp[g] for g in groups],
        ),
    }
    return _add_ratio_cap(model, [ratio[r]() for r in info.rates], n_group, cap_e)


# -- linear caps
def _add_linear_cap(model: cp_model.CpModel, terms: list, cap_e: Fraction) -> bool:
    """SP, PE, EOpp, EOdds: the sum over ``terms`` (rates num[g] / den[g]) of the largest minus
    the smallest rate over the groups <= cap_e; False if inexact.

    Largest minus smallest is the largest difference of a pair, so each pair is written out,
    multiplied by the lcm of its two denominators (an lcm over all the groups can overflow 64
    bits with many groups or with weights). EOdds adds a TPR gap to an FPR gap: both in units
    of the lcm of all the denominators when it fits, else each in its pair's units.
    """
    k = len(terms[0][1])
    if k > 2:  # each count enters k - 1 pairs: written once, as a variable
        terms = [(_count_vars(model, i, num, den), den) for i, (num, den) in enumerate(terms)]
    if len(terms) == 1:
        num, den = terms[0]
        for g, h in itertools.combinations(range(k), 2):
            diff, scale = _pair_difference(num, den, g, h)  # scale * (rate_g - rate_h)
            limit = math.floor(cap_e * scale)
            model.add(diff <= limit)  # rate_g - rate_h <= E
            model.add(-diff <= limit)  # rate_h - rate_g <= E
        return True
    # EOdds: gap_T + gap_F <= cap_e for every pair of TPR groups and every pair of FPR groups
    dens = [int(d) for _, den in terms for d in den if d > 0]
    common = math.lcm(*dens) if dens else 1
    unit = common if common <= _INT_LIMIT else None
    exact = True
    gaps = [_pair_gaps(model, i, num, den, unit) for i, (num, den) in enumerate(terms)]
    for (gap_t, unit_t), (gap_f, unit_f) in itertools.product(gaps[0], gaps[1]):
        # TPR gap of one pair + FPR gap of another <= E
        exact &= _add_gap_sum(model, (gap_t, gap_f), (unit_t, unit_f), cap_e)
    return exact


def _count_vars(model: cp_model.CpModel, i: int, num: list, den: Any) -> list[cp_model.IntVar]:
    """Each numerator ``num[g]`` as a variable ``count[i, g]`` (domain ``0 .. den[g]``)."""
    counts = []
    for g, expr in enumerate(num):
        # count[i, g]: the numerator of rate i in group g
        var = model.new_int_var(0, int(den[g]), f"count[{i},{g}]")
        model.add(var == expr)  # its definition
        counts.append(var)
    return counts


def _pair_difference(
    num: list, den: Any, g: int, h: int, scale: int | None = None
) -> tuple[Any, int]:
    """``(D * (rate_g - rate_h), D)``; D is ``scale`` (a multiple of the denominators) or the
    lcm of the non-zero ``den[g]``, ``den[h]``.

    A zero denominator gets coefficient 0: its rate is 0.
    """
    if scale is None:
        dens = [int(den[u]) for u in (g, h) if den[u] > 0]
        scale = math.lcm(*dens) if dens else 1
    coef = [scale // int(den[u]) if den[u] > 0 else 0 for u in (g, h)]
    return coef[0] * num[g] - coef[1] * num[h], scale


def _pair_gaps(
    model: cp_model.CpModel, i: int, num: list, den: Any, unit: int | None
) -> list[tuple[cp_model.IntVar, int]]:
    """For every pair g < h: ``gap[i, g, h] >= D |rate_g - rate_h|`` and its unit ``D``
    (``unit``, else the pair's lcm)."""
    gaps = []
    for g, h in itertools.combinations(range(len(num)), 2):
        diff, scale = _pair_difference(num, den, g, h, unit)
        # gap[i, g, h]: |rate_g - rate_h| of rate i, in units of 1 / scale
        gap = model.new_int_var(0, scale, f"gap[{i},{g},{h}]")
        model.add(gap >= diff)  # gap >= |diff|
        model.add(gap >= -diff)
        gaps.append((gap, scale))
    return gaps


def _add_gap_sum(
    model: cp_model.CpModel, gaps: tuple, units: tuple[int, int], cap_e: Fraction
) -> bool:
    """``gaps[0] / units[0] + gaps[1] / units[1] <= cap_e``; False if made conservative."""
    scale = math.lcm(*units)
    if scale <= _INT_LIMIT:  # exact: both in units of 1 / lcm
        coef = [scale // u for u in units]
        model.add(coef[0] * gaps[0] + coef[1] * gaps[1] <= math.floor(cap_e * scale))
        return True
    # conservative: coefficients rounded up (units are <= 2**60, so no term exceeds 2**61)
    scale = _INT_LIMIT // 2
    coef = [-(-scale // u) for u in units]
    model.add(coef[0] * gaps[0] + coef[1] * gaps[1] <= math.floor(cap_e * scale))
    return False


# -- ratio caps
def _add_ratio_cap(
    model: cp_model.CpModel, ratios: list, n_group: np.ndarray, cap_e: Fraction
) -> bool:
    """PP (one ratio), CUAE (two): for every pair of groups (CUAE: every pair of PPV groups
    and every pair of NPV groups) the rate gaps, cross-multiplied, <= cap_e; False if inexact."""
    top = [max(1, int(t)) for t in n_group]  # largest denominator per group
    gaps = [_ratio_gaps(model, i, num, den, top) for i, (num, den) in enumerate(ratios)]
    exact = True
    if len(ratios) == 1:
        for (g, h), (gap, prod) in gaps[0].items():
            reach = top[g] * top[h]  # largest reduced denominator of gap / prod
            exact &= _add_fraction_cap(model, gap, prod, reach, reach, cap_e)
        return exact
    halves: set = set()  # pairs already capped at cap_e / 2 (the conservative fallback)
    for pair_p, pair_n in itertools.product(gaps[0], gaps[1]):
        exact &= _add_two_ratio_cap(model, (pair_p, pair_n), gaps, top, cap_e, halves)
    return exact


def _ratio_gaps(
    model: cp_model.CpModel, i: int, num: list, den: list, top: list[int]
) -> dict[tuple[int, int], tuple[cp_model.IntVar, cp_model.IntVar]]:
    """For the rate ``num / den`` and each pair ``g < h``: ``gap[i, g, h] >= |rate_g - rate_h|
    * prod[i, g, h]`` and ``prod[i, g, h] = dden[i, g] * dden[i, h]``."""
    k = len(top)
    pairs = list(itertools.combinations(range(k), 2))
    # num_v[i, g]: numerator of rate i in group g
    num_v = [model.new_int_var(0, top[g], f"num[{i},{g}]") for g in range(k)]
    # zero[i, g]: the denominator of rate i in group g is 0 (the rate is 0)
    zero = [model.new_bool_var(f"zero[{i},{g}]") for g in range(k)]
    # dden[i, g]: that denominator, or 1 when it is 0
    dden = [model.new_int_var(1, top[g], f"dden[{i},{g}]") for g in range(k)]
    # cross[i, g, h]: num[i, g] * dden[i, h]
    cross = {}
    for g, h in pairs:
        for a, b in ((g, h), (h, g)):
            cross[a, b] = model.new_int_var(0, top[g] * top[h], f"cross[{i},{a},{b}]")
    for g in range(k):
        model.add(num_v[g] == num[g])  # definitions of num, zero, dden
        model.add(den[g] == 0).only_enforce_if(zero[g])
        model.add(den[g] >= 1).only_enforce_if(~zero[g])
        model.add(dden[g] == den[g] + zero[g])
        for h in range(k):
            if h != g:  # definition of cross[i, g, h]
                model.add_multiplication_equality(cross[g, h], [num_v[g], dden[h]])
    gaps = {}
    for g, h in pairs:
        # prod[i, g, h]: dden[i, g] * dden[i, h]
        prod = model.new_int_var(1, top[g] * top[h], f"prod[{i},{g},{h}]")
        model.add_multiplication_equality(prod, [dden[g], dden[h]])
        # gap[i, g, h]: |rate_g - rate_h| * prod[i, g, h]
        gap = model.new_int_var(0, top[g] * top[h], f"gap[{i},{g},{h}]")
        model.add(gap >= cross[g, h] - cross[h, g])  # gap >= |cross difference|
        model.add(gap >= cross[h, g] - cross[g, h])
        gaps[g, h] = gap, prod
    return gaps


def _add_two_ratio_cap(
    model: cp_model.CpModel, pairs: tuple, gaps: list, top: list[int], cap_e: Fraction,
    halves: set,
) -> bool:
    """CUAE for PPV groups ``pairs[0]`` and NPV groups ``pairs[1]``: ``gap[0] / prod[0] +
    gap[1] / prod[1] <= cap_e``, cross-multiplied; False if inexact."""
    (gap_p, prod_p), (gap_n, prod_n) = gaps[0][pairs[0]], gaps[1][pairs[1]]
    # prod_p * prod_n <= reach: a group in both pairs has dden_P + dden_N <= its size + 1
    reach = 1
    for u in set(pairs[0]) | set(pairs[1]):
        t = top[u]
        reach *= max(t, (t // 2) * ((t + 1) // 2)) if u in pairs[0] and u in pairs[1] else t
    if 4 * 2 * reach > _INT_LIMIT:
        # the products would overflow: conservative, each gap <= cap_e / 2
        for i, (pair, gap, prod) in enumerate(((pairs[0], gap_p, prod_p),
                                               (pairs[1], gap_n, prod_n))):
            if (i, pair) not in halves:
                halves.add((i, pair))
                _add_fraction_cap(model, gap, prod, top[pair[0]] * top[pair[1]],
                                  top[pair[0]] * top[pair[1]], cap_e / 2)
        return False
    name = f"{pairs[0][0]},{pairs[0][1]},{pairs[1][0]},{pairs[1][1]}"
    # weighted[i, ...]: gap of rate i times the other rate's prod; both[...]: prod_p * prod_n
    weighted = [model.new_int_var(0, reach, f"weighted[{i},{name}]") for i in (0, 1)]
    model.add_multiplication_equality(weighted[0], [gap_p, prod_n])
    model.add_multiplication_equality(weighted[1], [gap_n, prod_p])
    both = model.new_int_var(1, reach, f"both[{name}]")
    model.add_multiplication_equality(both, [prod_p, prod_n])
    # (weighted[0] + weighted[1]) / both = gap_P + gap_N <= E
    return _add_fraction_cap(model, weighted[0] + weighted[1], both, reach, 2 * reach, cap_e)


def _add_fraction_cap(
    model: cp_model.CpModel, lhs: Any, rhs: Any, reach: int, magnitude: int, cap_e: Fraction
) -> bool:
    """``lhs / rhs <= cap_e`` as ``q lhs <= p rhs``; False if inexact (see the docstring, 5).

    ``p / q`` is the largest fraction <= cap_e with ``q <= reach``, the largest reduced
    denominator of an attainable ``lhs / rhs`` (``magnitude`` bounds lhs and rhs), so that the
    constraint is exact; ``q`` is capped when ``q * magnitude`` would overflow.
    """
    q_max = max(1, _INT_LIMIT // (4 * magnitude))
    bound = floor_fraction(cap_e, min(reach, q_max))
    model.add(bound.denominator * lhs <= bound.numerator * rhs)  # lhs / rhs <= p / q
    return q_max >= reach


# ---------------------------------------------------------------------------- 6. objective
@dataclass(frozen=True)
class Objective:
    """Section 6: the model minimises ``err_coef * errors + len_coef * length``."""

    errors: cp_model.LinearExpr  # integer weight of the misclassified samples
    err_coef: int
    len_coef: int
    scale: int  # objective / scale = errors / W + lam * length (lam_model * length if scaled)
    lam: Fraction  # the length penalty as read by lambda_fraction
    # lam_model - lam (0: the model's objective is the problem's, scaled): see length_cost
    lam_shift: Fraction = Fraction(0)
    max_length: int = 0

    @property
    def exact(self) -> bool:
        """Whether objective / scale is the problem's objective (else only its order is)."""
        return self.lam_shift == 0

    def lower_bound(self, model_bound: float) -> float:
        """A lower bound on the problem's objective from one on the model's."""
        return model_bound / self.scale - float(max(self.lam_shift, 0) * self.max_length)

    def slack(self) -> float:
        """The most ``objective / scale`` can differ from the problem's objective."""
        slack = abs(self.lam_shift) * self.max_length
        return float(slack) if slack < 2**1000 else math.inf  # lam near 1e308: no float


def _add_objective(
    model: cp_model.CpModel, data: ModelData, x: ModelVariables, lam_value: float
) -> Objective:
    lam = lambda_fraction(lam_value)
    n = data.total_weight
    n_err = data.weights[:, :, :].sum(axis=1)  # (P, 2): weight per pattern and label
    # sum_p n1[p] (1 - pos[p]) + n0[p] pos[p]; patterns sharing a pos variable (the default)
    # are merged by CP-SAT
    errors = cp_model.LinearExpr.weighted_sum(
        [x.pos[p] for p in range(data.n_patterns)], (n_err[:, 0] - n_err[:, 1]).tolist()
    ) + int(n_err[:, 1].sum())
    length = data.max_length - sum(x.unused.values())
    K = data.max_length
    cost = lam * n  # errors + cost * length is n times the objective
    if cost.denominator * n + cost.numerator * K > _INT_LIMIT:
        # too many digits (lam 1e-12, 0.1234567890123) or too large (1e300) for 64 bits: an
        # equivalent cost, exact in its order of the lists (see length_cost)
        cost = length_cost(cost, n, K)
    err_coef, len_coef = cost.denominator, cost.numerator
    if err_coef * n + len_coef * K > _INT_LIMIT:
        raise InvalidParameterError(
            f"max_length {K} with a total weight of {n} overflows CP-SAT's 64-bit objective "
            f"(lam={lam_value!r}); lower max_length"
        )
    model.minimize(err_coef * errors + len_coef * length)
    return Objective(errors, err_coef, len_coef, n * err_coef, lam, cost / n - lam, K)


# ---------------------------------------------------------------------------- the model
@dataclass
class CPSatModel:
    """A built model: the CP-SAT model, its data and variables; adds a hint, reads a solution."""

    model: cp_model.CpModel
    data: ModelData
    variables: ModelVariables
    objective: Objective
    epsilon_exact: bool  # False when the fairness cap had to be made conservative
    majority_only: bool
    feature_names: list[str]  # the problem's, to map a hint's antecedents to columns
    stats: dict[str, Any] = field(default_factory=dict)

    @property
    def max_length(self) -> int:
        return self.data.max_length

    @property
    def exact(self) -> bool:
        """Whether the model is the problem itself: exact cap and exact sample weights, so that
        its optimum (or infeasibility) is the problem's."""
        return self.epsilon_exact and self.data.sample_weights.exact

    def add_hint(self, rule_list: RuleList) -> bool:
        """Hint every variable from ``rule_list`` (a complete assignment); True if it fits.

        The list is first put in the canonical form the model's cuts keep (see
        :func:`canonical_rules`): the same predictions, never a longer list. A list that names
        an antecedent the problem lacks, or that is still longer than K, is not hinted and the
        model is left as it was; otherwise this hint replaces any earlier one.
        """
        try:
            idx = rule_list.antecedent_indices(self.feature_names)
        except ValueError:
            return False
        preds = [r.prediction for r in rule_list.rules]
        rules = canonical_rules(
            list(zip(idx, preds, strict=True)), rule_list.default, self.data.patterns,
            self.majority_only,
        )
        if len(rules) > self.max_length:
            return False
        self.model.clear_hints()
        self._hint([j for j, _ in rules], [q for _, q in rules], rule_list.default)
        self.stats["hinted"] = True
        return True

    def _hint(self, idx: list[int], preds: list[int], dflt: int) -> None:
        data, x, K = self.data, self.variables, self.max_length
        for k in range(K):
            for j in range(data.n_antecedents):
                self.model.add_hint(x.use[k, j], k < len(idx) and idx[k] == j)
            self.model.add_hint(x.unused[k], k >= len(idx))
            self.model.add_hint(x.pred[k], k < len(idx) and bool(preds[k]))
        self.model.add_hint(x.default, bool(dflt))
        for p in range(data.n_patterns):
            if not data.reaches_rules(p):
                continue
            first = next((k for k, j in enumerate(idx) if data.patterns[p, j]), K)
            for k in range(K + 1):
                self.model.add_hint(x.cap[p, k], k == first)
            self.model.add_hint(x.pos[p], bool(preds[first]) if first < len(idx) else bool(dflt))

    def read(self, solver: cp_model.CpSolver) -> tuple[list[int], list[int], int]:
        """Antecedent indices, predictions and default of the solver's current solution."""
        antecedents, predictions = [], []
        for k in range(self.max_length):
            if solver.boolean_value(self.variables.unused[k]):
                break
            j = next(j for j in range(self.data.n_antecedents)
                     if solver.boolean_value(self.variables.use[k, j]))
            antecedents.append(j)
            predictions.append(int(solver.boolean_value(self.variables.pred[k])))
        return antecedents, predictions, int(solver.boolean_value(self.variables.default))


def canonical_rules(
    rules: list[tuple[int, int]], default: int, patterns: np.ndarray, majority_only: bool
) -> list[tuple[int, int]]:
    """``rules`` ((antecedent, prediction) pairs) in the form the model's cuts keep.

    Repeated until nothing changes: in the full space, runs of rules with the same prediction
    are sorted by antecedent; rules that capture no pattern are dropped, and so are last rules
    that predict like ``default``. The predictions are unchanged and the list never grows.
    """
    while True:
        before = list(rules)
        if not majority_only:
            runs: list[list[tuple[int, int]]] = []
            for rule in rules:
                if runs and runs[-1][-1][1] == rule[1]:
                    runs[-1].append(rule)
                else:
                    runs.append([rule])
            rules = [r for run in runs for r in sorted(run)]
        free = np.ones(len(patterns), dtype=bool)
        kept = []
        for j, q in rules:
            hit = free & (patterns[:, j] == 1)
            if hit.any():
                kept.append((j, q))
            free &= ~hit
        while kept and kept[-1][1] == default:
            kept.pop()
        rules = kept
        if rules == before:
            return rules


def build_model(
    problem: Problem,
    max_length: int,
    hint: RuleList | None = None,
    majority_only: bool = False,
    deadline: Deadline = NO_DEADLINE,
) -> CPSatModel:
    """The CP-SAT model of ``problem`` restricted to rule lists of length <= ``max_length``.

    ``majority_only`` restricts every prediction to a majority label of the samples it
    classifies (ties allow both), as the branch-and-bound's ``majority_only`` does. The
    sections are those of the module docstring. Raises :class:`ModelBuildTimeout` once
    ``deadline`` has passed (checked between sections and inside the loops over patterns).
    """
    # 1. Data
    data = ModelData.of(problem, max_length)
    deadline.check("data")
    model = cp_model.CpModel()
    # 2. Variables
    x = _new_variables(model, data, deadline)
    # 3. Constraints: rule-list structure
    _add_structure(model, data, x)
    # 4. Constraints: capture and predictions, dominance cuts, the searched space
    _add_capture(model, data, x, deadline)
    deadline.check("dominance cuts")
    _add_dominance_cuts(model, data, x)
    deadline.check("search space")
    if majority_only:
        _add_majority_labels(model, data, x)
    else:
        _add_order_symmetry(model, data, x)
    # 5. Constraints: fairness
    deadline.check("fairness")
    cap_e = fairness_cap(problem, data.sample_weights)
    epsilon_exact = _add_fairness_cap(model, data, x, problem.metric, cap_e)
    # 6. Objective
    deadline.check("objective")
    objective = _add_objective(model, data, x, problem.lam)
    deadline.check("objective")

    proto = model.proto
    stats = {
        "n_groups": data.n_groups,
        "n_patterns": data.n_patterns,
        "n_points": int(np.count_nonzero(data.weights)),
        "n_variables": len(proto.variables),
        "n_constraints": len(proto.constraints),
        "hinted": False,
        "weights_exact": data.sample_weights.exact,
        "weight_scale": str(data.sample_weights.scale),
        "weight_rounding": str(data.sample_weights.rho),
        "epsilon_model": None if cap_e is None else str(cap_e),
    }
    built = CPSatModel(
        model, data, x, objective, epsilon_exact, bool(majority_only),
        list(problem.feature_names), stats,
    )
    # 7. Hint
    if hint is not None:
        built.add_hint(hint)
    return built


def _best_constant_objective(problem: Problem) -> Fraction | None:
    """errors / W of the best fair constant rule list (no rules), None if neither is fair.

    Errors and W are the model's integer weights (:func:`integer_weights`).
    """
    weights = integer_weights(problem)
    positive = int(weights.values[problem.y == 1].sum())
    errors = {0: positive, 1: weights.total - positive}  # predict 0: the positives are wrong
    fair = [
        q for q in (0, 1)
        if problem.evaluate(RuleList((), q, problem.labels, problem.feature_names)).fair
    ]
    return min((Fraction(errors[q], weights.total) for q in fair), default=None)


def resolve_max_length(problem: Problem, max_length: int | None) -> tuple[int, str]:
    """The length bound K of the model and where it came from (see the module docstring)."""
    m = problem.n_antecedents
    if problem.max_length is not None:
        return min(problem.max_length, m), "problem"
    if max_length is not None:
        return min(int(max_length), m), "option"
    if problem.lam > 0:
        upper = _best_constant_objective(problem)
        if upper is not None:
            return min(m, math.floor(upper / lambda_fraction(problem.lam))), "lambda_bound"
    return m, "n_antecedents"


# ---------------------------------------------------------------------------- solving
def _errors_agree(problem: Problem, built: CPSatModel, errors: float, model_errors: int) -> bool:
    """Whether Problem.evaluate's errors are the model's: equal without sample weights, equal
    up to the floats' rounding with exact weights (rounded weights: not compared)."""
    weights = built.data.sample_weights
    if problem.sample_weight is None:
        return errors == model_errors
    if not weights.exact:
        return True
    return math.isclose(
        errors, float(model_errors / weights.scale), rel_tol=1e-9,
        abs_tol=1e-12 * problem.total_weight,
    )


_STATUS = {
    cp_model.OPTIMAL: Status.OPTIMAL,
    cp_model.FEASIBLE: Status.FEASIBLE,
    cp_model.INFEASIBLE: Status.INFEASIBLE,
    cp_model.UNKNOWN: Status.UNKNOWN,
}
# CP-SAT's time limit is conservative: it stops when its next check would likely overrun the
# limit, which was seen to end a solve at 0.8 of the limit. A limited solve that ends before
# this fraction of its time limit is put down to the memory limit, if one was given.
_TIME_LIMIT_FRACTION = 0.5


def solve_interruptibly(
    solver: cp_model.CpSolver,
    model: cp_model.CpModel,
    callback: cp_model.CpSolverSolutionCallback | None = None,
    watch: Callable[[], bool] | None = None,
) -> tuple[Any, bool]:
    """CP-SAT's status on ``model`` and whether Ctrl-C stopped the search.

    In the main thread the solve runs in a helper thread while the main thread waits, so that
    a ``KeyboardInterrupt`` reaches it: the search is then stopped (``stop_search``) and its
    best solution kept. Elsewhere the solve runs in place (signals only reach the main thread)
    unless there is a ``watch``: called every 0.1 s while the search runs, it stops the search
    when it returns True (a :class:`MemoryWatch`).
    ``solver.parameters.catch_sigint_signal`` should be False, or CP-SAT takes Ctrl-C itself.
    """
    if threading.current_thread() is not threading.main_thread() and watch is None:
        return solver.solve(model, callback), False
    outcome: dict[str, Any] = {}
    done = threading.Event()

    def run() -> None:
        try:
            outcome["status"] = solver.solve(model, callback)
        except BaseException as exc:  # handed to the caller below
            outcome["error"] = exc
        finally:
            done.set()

    thread = threading.Thread(target=run, name="fairlist-cpsat", daemon=True)
    thread.start()
    interrupted = False
    try:
        while not done.is_set():
            try:
                done.wait(0.1)  # with a timeout: not every platform interrupts the wait
            except KeyboardInterrupt:
                interrupted = True
            if watch is not None and not done.is_set() and watch():
                solver.stop_search()
            if interrupted:
                # CP-SAT then returns its best solution so far; repeated, since a stop that
                # comes before CP-SAT has started its search is lost
                solver.stop_search()
    finally:
        while not done.is_set():  # a second Ctrl-C left the loop: end the search all the same
            solver.stop_search()
            done.wait(0.1)
    thread.join()
    if "error" in outcome:
        raise outcome["error"]
    return outcome["status"], interrupted


def stop_reason(
    status: Any,
    interrupted: bool,
    wall_time: float,
    time_limit: float | None,
    memory_limit_mb: float | None,
) -> StopReason:
    """Why a CP-SAT solve stopped, from its status (``solver.status_name``) and the limits.

    CP-SAT's response names no stop reason (``solution_info`` names the worker that found the
    last solution). So: COMPLETED when CP-SAT's own status is OPTIMAL or INFEASIBLE (even when
    a conservative fairness cap makes the result only ``feasible``); INTERRUPTED when Ctrl-C
    stopped it (:func:`solve_interruptibly`); otherwise a limit did — the time limit, unless
    none was given or a memory limit was given and the search ended before half of the time
    limit; then the memory limit. (:meth:`CPSatSolver.solve` reads the memory limit from its
    :class:`MemoryWatch` instead, which stopped the search.)
    """
    if status in (cp_model.OPTIMAL, cp_model.INFEASIBLE):
        return StopReason.COMPLETED
    if interrupted:
        return StopReason.INTERRUPTED
    if time_limit is None or (
        memory_limit_mb is not None and wall_time < _TIME_LIMIT_FRACTION * time_limit
    ):
        return StopReason.MEMORY_LIMIT
    return StopReason.TIME_LIMIT


#: A model of at least this many constraints gets a lighter presolve (:func:`light_presolve`).
LIGHT_PRESOLVE_CONSTRAINTS = 50_000


def light_presolve(params: Any) -> None:
    """Switch off CP-SAT's presolve steps that overrun a time limit on large models.

    CP-SAT bounds its presolve steps in deterministic time, not in seconds, and checks the
    time limit between them: on a model of 10,000 distinct rows (140,000 constraints) turning
    clauses into exactly-one constraints took 8.5 s and probing 2 s of a 6 s limit, so that
    the solve returned 9 s late. Without them it stops on time. Used on large models only,
    with or without a time limit: the parameters then never depend on the limit, so that a
    solve that completes returns the same list whatever its time limit (CP-SAT's single
    worker searches alike for any limit it does not reach).
    """
    params.find_clauses_that_are_exactly_one = False
    params.cp_model_probing_level = 0
    params.merge_at_most_one_work_limit = 1e6


#: Without a max_length, a bound above this many rules gets a LongModelWarning.
LONG_MODEL = 6


class LongModelWarning(UserWarning):
    """CP-SAT was left to model long lists (no max_length): the model is large and slow."""


class _ProgressReporter(cp_model.CpSolverSolutionCallback):
    """Hands the search's progress to a callback, as the branch-and-bound's progress does:
    ``{"best_objective", "lower_bound", "solutions", "seconds"}`` in the problem's units, at
    every better solution and every better bound (at most every ``interval`` seconds for the
    bounds)."""

    def __init__(self, progress: Any, scale: int, interval: float) -> None:
        super().__init__()
        self.progress, self.scale, self.interval = progress, scale, interval
        self.best, self.bound, self.solutions = math.inf, -math.inf, 0
        self.start = time.perf_counter()
        self.last = -math.inf

    def report(self) -> None:
        self.last = time.perf_counter()
        self.progress({
            "best_objective": self.best, "lower_bound": self.bound,
            "solutions": self.solutions, "seconds": self.last - self.start,
        })  # fmt: skip

    def on_solution_callback(self) -> None:
        self.solutions += 1
        self.best = self.objective_value / self.scale
        self.bound = max(self.bound, self.best_objective_bound / self.scale)
        self.report()

    def on_bound(self, bound: float) -> None:
        self.bound = max(self.bound, bound / self.scale)
        if time.perf_counter() - self.last >= self.interval:
            self.report()


class CPSatSolver:
    """Exact fair rule lists with OR-Tools CP-SAT (``engine="cpsat"``).

    Searches the full space (each rule and the default may predict either label) of rule lists
    of length <= K; see the module docstring for the model and how K is chosen.

    Parameters
    ----------
    num_workers : int or None, default=DEFAULT_NUM_WORKERS (1)
        CP-SAT search workers. With one worker a solve that completes returns the same rule
        list every time, on every machine, for a given ``seed``. More workers run
        CP-SAT's parallel portfolio (its documentation recommends 8 or more for hard
        instances): often much faster, but not reproducible — among equally good rule lists
        the one returned may change from run to run. None leaves the choice to CP-SAT (one
        worker per core, so the search depends on the machine).
    seed : int
        CP-SAT's ``random_seed``.
    log_progress : bool
        Print CP-SAT's search log.
    initial : RuleList, optional
        A warm start: a rule list to start from (:meth:`CPSatModel.add_hint`); ignored when
        longer than K.
    majority_only : bool
        Search CORELS' majority-label space (``search_space="majority"``), the space of the
        branch-and-bound's ``majority_only=True``; the default is the full space.
    progress : callable or None
        Called with a dict (best_objective, lower_bound, solutions, seconds) at every better
        solution and, at most every ``progress_interval`` seconds, at every better bound (as
        the branch-and-bound's progress; the command line shows it).
    progress_interval : float
    max_length, time_limit, hint, random_seed
        Deprecated (FutureWarning): the length bound is ``Problem.max_length``, the time limit
        ``Limits.time_limit`` (``max_nodes`` has no CP-SAT counterpart and is ignored;
        ``memory_limit_mb`` is passed on), the warm start ``initial`` and the seed ``seed``,
        as in every engine.

    Notes
    -----
    Ctrl-C (a ``KeyboardInterrupt`` in the main thread) stops the search and returns the best
    rule list found so far with ``stop_reason`` interrupted; see :func:`stop_reason` for the
    other stop reasons.

    Examples
    --------
    >>> import numpy as np
    >>> from fairlist.solvers import Problem
    >>> X = np.array([[1, 0], [1, 1], [0, 1], [0, 0]], dtype=np.uint8)
    >>> p = Problem(X, [1, 1, 0, 0], [True, False, True, False], lam=0.01, max_length=2)
    >>> CPSatSolver().solve(p).objective
    0.01
    """

    name = "cpsat"

    def __init__(
        self,
        *,
        num_workers: int | None = DEFAULT_NUM_WORKERS,
        seed: int = 0,
        log_progress: bool = False,
        initial: RuleList | None = None,
        majority_only: bool = False,
        progress: Callable[[dict[str, Any]], None] | None = None,
        progress_interval: float = 0.5,
        max_length: int | None = None,
        time_limit: float | None = None,
        hint: RuleList | None = None,
        random_seed: int | None = None,
    ) -> None:
        # deprecated: each setting has one owner and one name
        if max_length is not None:
            deprecated_option("CPSatSolver", "max_length", "Problem(max_length=...)")
        if time_limit is not None:
            deprecated_option("CPSatSolver", "time_limit", "Limits(time_limit=...)")
        if hint is not None:
            deprecated_option("CPSatSolver", "hint", "initial=..., as in BnBSolver")
            initial = hint if initial is None else initial
        if random_seed is not None:
            deprecated_option("CPSatSolver", "random_seed", "seed=..., as in BnBSolver")
            seed = random_seed
        self.num_workers = num_workers
        self.seed = seed
        self.log_progress = log_progress
        self.initial = initial
        self.majority_only = majority_only
        self.progress = progress
        self.progress_interval = progress_interval
        self.max_length = max_length
        self.time_limit = time_limit

    PARAMETER_CONSTRAINTS: ClassVar[dict[str, list]] = {
        "max_length": MAX_LENGTH,
        "time_limit": Limits.PARAMETER_CONSTRAINTS["time_limit"],
        # int32 fields of CP-SAT's SatParameters
        "num_workers": [None, Interval(numbers.Integral, 1, INT32_MAX)],
        "seed": [Interval(numbers.Integral, -INT32_MAX - 1, INT32_MAX)],
        "log_progress": [BOOLEAN],
        "initial": [None, InstanceOf(RuleList)],
        "majority_only": [BOOLEAN],
        "progress": [None, Satisfies(callable, "a callable")],
        "progress_interval": [PROGRESS_INTERVAL],
    }

    def _validate(self) -> None:
        validate_params(type(self).__name__, self.PARAMETER_CONSTRAINTS, vars(self))

    def solve(self, problem: Problem) -> Result:
        """Solve ``problem``; see :class:`fairlist.solvers.Result`."""
        check_problem(problem)
        self._validate()
        start = time.perf_counter()
        # The time limit covers the whole solve: building the model, then CP-SAT's search.
        time_limit = self._time_limit(problem)
        memory_limit = problem.limits.memory_limit_mb
        watch = None if memory_limit is None else MemoryWatch(memory_limit)
        deadline = Deadline(None if time_limit is None else start + float(time_limit), watch)
        K, source = resolve_max_length(problem, self.max_length)
        if source in ("lambda_bound", "n_antecedents") and K > LONG_MODEL:
            warnings.warn(
                f"CP-SAT models lists of up to {K} rules (the bound {source} implies) over "
                f"{problem.n_antecedents} antecedents: a large model that may find no list "
                "within the time limit; give max_length (2-4 is typical) for a fast one",
                LongModelWarning,
                stacklevel=2,
            )
        try:
            built = build_model(problem, K, self.initial, bool(self.majority_only), deadline)
            deadline.check("model")  # built, but no time left to search
        except ModelBuildTimeout as exc:
            return self._out_of_time(problem, K, source, exc, time_limit, start)
        build_seconds = time.perf_counter() - start

        # CP-SAT gets what is left of the time limit
        search_limit = None if time_limit is None else max(deadline.remaining(), 1e-3)
        solver = self._new_solver(
            problem, built.objective.scale, search_limit, built.objective.slack()
        )
        if built.stats["n_constraints"] >= LIGHT_PRESOLVE_CONSTRAINTS:
            light_presolve(solver.parameters)
        reporter = None
        if self.progress is not None:
            reporter = _ProgressReporter(
                self.progress, built.objective.scale, float(self.progress_interval)
            )
            solver.best_bound_callback = reporter.on_bound
        code, interrupted = solve_interruptibly(solver, built.model, reporter, watch)
        if code == cp_model.MODEL_INVALID:
            # validate() explains a bad model; a bad parameter is explained in solution_info
            reason = built.model.validate() or solver.solution_info() or "no reason given"
            raise RuntimeError(f"CP-SAT rejected the model: {reason}")
        # the watch, not the wall time, says whether the memory limit stopped the search
        stop = stop_reason(code, interrupted, solver.wall_time, search_limit, None)
        if watch is not None and watch.exceeded and stop is StopReason.TIME_LIMIT:
            stop = StopReason.MEMORY_LIMIT
        stats = dict(built.stats)
        stats.update(
            max_length=K,
            max_length_source=source,
            epsilon_exact=built.epsilon_exact,
            lam_fraction=str(built.objective.lam),
            objective_scale=built.objective.scale,
            lam_model=str(built.objective.lam + built.objective.lam_shift),
            cpsat_status=solver.status_name(code),
            num_workers=self.num_workers,
            conflicts=solver.num_conflicts,
            branches=solver.num_branches,
            build_seconds=build_seconds,
            solve_seconds=solver.wall_time,
            seconds=time.perf_counter() - start,
        )
        status = _STATUS[code]
        if code == cp_model.OPTIMAL and solver.objective_value - solver.best_objective_bound >= 0.5:
            # CP-SAT calls a solve stopped by absolute_gap_limit OPTIMAL; the objective is an
            # integer in the model's units, so a difference of 1 is an open gap.
            status, stop = Status.FEASIBLE, StopReason.GAP_LIMIT
        if not built.exact:
            # The model's cap is conservative, or its weights rounded: its optimum and its
            # infeasibility prove nothing about the problem.
            status = {Status.OPTIMAL: Status.FEASIBLE, Status.INFEASIBLE: Status.UNKNOWN}.get(
                status, status
            )
        return self._result(problem, built, solver, status, stop, stats)

    def _time_limit(self, problem: Problem) -> float | None:
        return self.time_limit if self.time_limit is not None else problem.limits.time_limit

    def _out_of_time(
        self, problem: Problem, K: int, source: str, stopped: ModelBuildTimeout,
        time_limit: float | None, start: float,
    ) -> Result:
        """The result when building the model alone used up the time (or memory) limit: no
        list, status unknown, stop reason time_limit (memory_limit), and ``stats["message"]``
        saying so."""
        seconds = time.perf_counter() - start
        section = stopped.section
        reason = StopReason.TIME_LIMIT if stopped.limit == "time" else StopReason.MEMORY_LIMIT
        limit = (
            f"the time limit of {time_limit:.3g} s" if stopped.limit == "time"
            else f"the memory limit of {problem.limits.memory_limit_mb:.6g} MB"
        )  # fmt: skip
        message = (
            f"the CP-SAT model build did not fit in {limit} (stopped in its {section} after "
            f"{seconds:.1f} s, {problem.n_samples} samples, {problem.n_antecedents} "
            f"antecedents, max_length {K}); raise the {stopped.limit} limit, lower max_length, "
            "or use engine='bnb'"
        )
        stats = {
            "message": message, "build_seconds": seconds, "solve_seconds": 0.0,
            "seconds": seconds, "max_length": K, "max_length_source": source,
            "num_workers": self.num_workers, "build_stopped_in": section,
        }  # fmt: skip
        return Result(
            status=Status.UNKNOWN, rule_list=None, objective=math.inf, accuracy=math.nan,
            unfairness=math.nan, lower_bound=0.0, stop_reason=reason, engine=self.name,
            search_space="majority" if self.majority_only else "full", stats=stats,
        )  # fmt: skip

    def _new_solver(
        self, problem: Problem, scale: int, time_limit: float | None = None,
        gap_slack: float = 0.0,
    ) -> cp_model.CpSolver:
        """A CP-SAT solver with this engine's parameters and ``problem``'s limits (``scale``:
        the model's objective units per unit of the problem's objective; ``time_limit``: the
        seconds left for the search; ``gap_slack``: how far the model's objective may be from
        the problem's, taken off the gap tolerance)."""
        solver = cp_model.CpSolver()
        params = solver.parameters
        gap = float(problem.limits.gap_tolerance or 0.0) - gap_slack
        if gap > 0:
            # any gap beyond the objective's range stops at the first list; CP-SAT rejects inf
            params.absolute_gap_limit = min(gap * scale, 2.0**62)
        if time_limit is not None:
            params.max_time_in_seconds = float(time_limit)
        if problem.limits.memory_limit_mb is not None:
            params.max_memory_in_mb = int(math.ceil(problem.limits.memory_limit_mb))
        if self.num_workers is not None:
            params.num_workers = int(self.num_workers)
        params.random_seed = int(self.seed)
        params.log_search_progress = bool(self.log_progress)
        params.catch_sigint_signal = False  # Ctrl-C is caught by solve_interruptibly
        return solver

    def _result(
        self,
        problem: Problem,
        built: CPSatModel,
        solver: cp_model.CpSolver,
        status: Status,
        stop: StopReason,
        stats: dict[str, Any],
    ) -> Result:
        """The result of a finished solve; its rule list checked against Problem.evaluate."""
        space = "majority" if built.majority_only else "full"
        if status in (Status.INFEASIBLE, Status.UNKNOWN):
            bound = math.inf
            if status is Status.UNKNOWN:
                bound = built.objective.lower_bound(solver.best_objective_bound)
                bound = bound if built.exact else 0.0
            return Result(
                status=status, rule_list=None, objective=math.inf, accuracy=math.nan,
                unfairness=math.nan, lower_bound=bound, stop_reason=stop, engine=self.name,
                search_space=space, stats=stats,
            )

        antecedents, predictions, dflt = built.read(solver)
        rule_list = problem.rule_list(antecedents, predictions, dflt)
        ev = problem.evaluate(rule_list)
        model_errors = int(round(solver.value(built.objective.errors)))
        if not ev.fair or not _errors_agree(problem, built, ev.errors, model_errors) or (
            ev.length != len(antecedents)
        ):
            raise RuntimeError(
                f"CP-SAT model disagrees with Problem.evaluate on {rule_list!r}: fair={ev.fair} "
                f"(unfairness {ev.unfairness!r}, epsilon {problem.epsilon!r}), errors "
                f"{ev.errors} vs model {model_errors} (in units of 1/"
                f"{built.data.sample_weights.scale}); this is a bug in fairlist.solvers.cpsat"
            )
        if status is Status.OPTIMAL:
            lower = ev.objective
        elif built.exact:
            lower = min(ev.objective, built.objective.lower_bound(solver.best_objective_bound))
        else:
            lower = 0.0
        return Result(
            status=status, rule_list=rule_list, objective=ev.objective, accuracy=ev.accuracy,
            unfairness=ev.unfairness, lower_bound=lower, stop_reason=stop, engine=self.name,
            search_space=space, stats=stats,
        )
