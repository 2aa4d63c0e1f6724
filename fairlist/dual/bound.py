"""A Lagrangian lower bound on the fair optimum (issue 36, step 1; docs/design.md §10.2).

For SP, PE and EOpp the cap is linear in the groups' rates once their constant denominators are
multiplied out, and so for EOdds rate by rate. Relax it with multipliers: for each rate ``t`` of
the metric, one multiplier ``nu[t, g]`` per group ``g``, the multipliers of a rate summing to 0
(two groups: ``nu`` and ``-nu``). Every list ``s`` whose gaps meet the cap has

    sum_g nu[t, g] r[t, g](s) = sum_g nu[t, g] (r[t, g](s) - m_t) <= |nu[t]|_1 / 2 * gap_t(s)

for the midpoint ``m_t`` of the rate's largest and smallest value (the multipliers sum to 0, and
every rate lies within ``gap_t / 2`` of the midpoint), so with ``c = max_t |nu[t]|_1 / 2`` and
the metric's unfairness the sum of its gaps, at most ``epsilon``::

    objective(s) >= objective(s) + sum_t sum_g nu[t, g] r[t, g](s) - c * epsilon

and the fair optimum is at least ``L(nu) = min over all lists of the first two terms - c *
epsilon`` (``epsilon`` taken as the cap plus :data:`fairlist.metrics.FEASIBILITY_TOL`, the cap
as :func:`fairlist.metrics.is_fair` reads it). With two groups and one rate, ``c = |nu|``.

The inner minimum is an *unconstrained* rule list problem. A rate is a sum over its cell (the
group's samples; its positives for TPR, its negatives for FPR) of ``w_i pred_i / den``, so each
sample costs ``C1_i = w_i [y_i = 0] / T + sum nu[t, g_i] w_i / den[t, g_i]`` (over the rates
whose cell holds it) when predicted 1 and ``C0_i = w_i [y_i = 1] / T`` when predicted 0. With
``d_i = C1_i - C0_i``::

    objective(s) + sum nu r(s) = sum_i min(C0_i, C1_i) + sum_i |d_i| [pred_i != y'_i] + lam K

where ``y'_i = [d_i < 0]`` is the cheaper prediction. That is ``const + D * (errors' / D +
(lam / D) K)``, ``D = sum |d_i|``: the engine's objective on the relabelled samples ``y'`` with
weights ``|d_i|`` and length penalty ``lam / D`` (the length cap unchanged), scaled by ``D`` and
shifted by ``const``. So ``L(nu) = const + D * B - c * epsilon`` for any proved lower bound
``B`` of that relabelled problem: its optimum when certified, its ``Result.lower_bound``
otherwise (always valid, only weaker).

The weights ``|d_i|`` are real numbers, so the engine rounds them to integers
(:mod:`fairlist.solvers.weights`). Without a cap its ``Result.lower_bound`` is still a proved
bound *for the true weights*: ``objective - certified_tolerance`` when it reports ``optimal``
(the rounded optimum minus the objectives' rounding ``eta``), the rounded bound shrunk by the
largest relative rounding error otherwise. What is left is the float arithmetic of ``d``,
``const`` and ``D`` (each sample's costs take under 40 roundings of 2**-53 relative, the
group sums' included, and ``const`` and ``D`` are summed exactly by ``math.fsum``), the engine's
reading of exact weights as fractions within 2**-50 and its float objective: :data:`FLOAT_SLACK`
times ``sum_i (C0_i + |C1_i|) + |const| + D`` is subtracted for it.

Predictive parity and CUAE compare ratios whose denominators depend on the list, and are
refused (issue 36 keeps today's search for them).
"""

from __future__ import annotations

import math
import numbers
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..errors import InvalidParameterError
from ..metrics import FEASIBILITY_TOL, METRIC_RATES
from ..solvers import Problem, Result, Status, solve
from ..solvers.base import check_problem

__all__ = [
    "LagrangianBound",
    "DualBound",
    "lagrangian_bound",
    "dual_bound",
    "relaxed_costs",
    "FLOAT_SLACK",
    "RATE_CELL",
    "check_metric",
    "rate_multipliers",
]

#: Relative allowance for the float arithmetic that builds the relabelled problem and reads its
#: bound (see the module docstring): 2**-44, eight times what those roundings can add up to.
FLOAT_SLACK = 2.0**-44

#: The cells a rate's denominator sums within a group (None: all of the group's samples).
RATE_CELL = {"positive_rate": None, "tpr": 1, "fpr": 0}


@dataclass(frozen=True)
class LagrangianBound:
    """``L(nu)``: a proved lower bound on the objective of every list that meets the cap.

    ``relaxed`` is the engine's result on the relabelled problem (objective and bound in its own
    scale: multiply by ``scale`` and add ``constant``); ``relaxed_value`` is ``constant + scale *
    relaxed.lower_bound``, a lower bound on ``min_s objective(s) + sum nu r(s)``; ``penalty`` is
    ``c * epsilon``; ``certified`` says the relaxed solve proved its optimum (else the bound
    uses its weaker proved lower bound); ``subgradient`` is, per rate and group, the rates of
    the relaxed problem's best list (a supergradient of ``L`` when certified, up to the
    penalty's); ``cpu_seconds`` the process CPU time of the inner solve.
    """

    bound: float
    nu: np.ndarray
    relaxed_value: float
    penalty: float
    constant: float
    scale: float
    certified: bool
    cpu_seconds: float
    rates: np.ndarray | None = None
    relaxed: Result | None = field(default=None, repr=False)


def rate_multipliers(problem: Problem, nu: Any) -> np.ndarray:
    """``nu`` as an array (rates, groups), checked: a number (two groups, one rate: ``(nu,
    -nu)``), or per rate a row of one multiplier per group summing to 0."""
    rates = METRIC_RATES[problem.metric]
    k = problem.n_groups
    if isinstance(nu, numbers.Real) and not isinstance(nu, bool):
        if k != 2 or len(rates) != 1:
            raise InvalidParameterError(
                f"nu: a single number relaxes one rate of two groups; this problem has "
                f"{k} groups and {len(rates)} rate(s): pass an array of shape ({len(rates)}, {k})"
            )
        out = np.array([[float(nu), -float(nu)]])
    else:
        try:
            out = np.array(nu, dtype=float)
        except (TypeError, ValueError):
            raise InvalidParameterError(f"nu must be a number or an array, got {nu!r}") from None
        if out.ndim == 1 and len(rates) == 1:
            out = out[None, :]
        if out.shape != (len(rates), k):
            raise InvalidParameterError(
                f"nu has shape {out.shape}; this problem needs ({len(rates)}, {k}): one "
                "multiplier per rate of the metric and group"
            )
    if not np.all(np.isfinite(out)):
        raise InvalidParameterError(f"nu must be finite, got {nu!r}")
    sums = out.sum(axis=1)
    if np.any(np.abs(sums) > 1e-12 * np.maximum(1.0, np.abs(out).sum(axis=1))):
        raise InvalidParameterError(
            f"nu: each rate's multipliers must sum to 0 (over the groups); they sum to {sums}"
        )
    return out


def check_metric(problem: Problem) -> None:
    rates = METRIC_RATES[problem.metric]
    if any(r not in RATE_CELL for r in rates):
        raise InvalidParameterError(
            f"metric {problem.metric.name}: its rates ({', '.join(rates)}) divide by counts "
            "that depend on the list, so the cap is not linear and has no Lagrangian bound "
            "here (issue 36 keeps today's search for PP and CUAE)"
        )


def relaxed_costs(problem: Problem, nu: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per sample, the costs ``(C0, C1)`` of predicting 0 and 1 in ``objective + sum nu r``
    (without the length penalty): see the module docstring."""
    w = problem.weights
    y = problem.y.astype(bool)
    total = problem.total_weight
    c0 = np.where(y, w, 0.0) / total
    c1 = np.where(y, 0.0, w) / total
    for t, rate in enumerate(METRIC_RATES[problem.metric]):
        cell = RATE_CELL[rate]
        in_cell = np.ones(len(y), bool) if cell is None else (y == bool(cell))
        for g in range(problem.n_groups):
            members = in_cell & (problem.groups == g)
            den = float(w[members].sum())
            if den > 0 and nu[t, g] != 0:  # an empty cell's rate is the constant 0
                c1[members] += nu[t, g] * w[members] / den
    return c0, c1


def lagrangian_bound(
    problem: Problem, nu: Any, *, engine: str = "bnb", **options: Any
) -> LagrangianBound:
    """``L(nu)``, a proved lower bound on ``problem``'s fair optimum (see the module docstring).

    Parameters
    ----------
    problem : Problem
        Metric SP, PE, EOpp or EOdds, any number of groups, any sample weights; its length
        penalty, length cap and limits are those of the relaxed solve.
    nu : float or array of shape (rates, groups)
        The multipliers: a number for two groups and one rate (``+nu`` on group 0's rate,
        ``-nu`` on group 1's), else one per rate and group, each rate's summing to 0. Any value
        gives a valid bound; a poor one a weak bound.
    engine, options
        The engine that solves the relaxed, unconstrained problem, and its options (threads,
        policy, limits' switches; not ``majority_only``, refused: see the error).

    Examples
    --------
    >>> import numpy as np
    >>> from fairlist import Problem, solve
    >>> rng = np.random.default_rng(3)
    >>> X = rng.integers(0, 2, size=(60, 4)).astype(np.uint8)
    >>> groups = rng.integers(0, 2, size=60) == 1
    >>> y = (X[:, 0] | groups).astype(np.uint8)
    >>> p = Problem(X, y, groups, metric="SP", epsilon=0.1, lam=0.01, max_length=2)
    >>> fair = solve(p).objective
    >>> free = solve(p.replace(epsilon=None)).objective
    >>> L = lagrangian_bound(p, -0.3)
    >>> L.certified, free - 1e-9 <= fair, L.bound <= fair
    (True, True, True)
    >>> abs(lagrangian_bound(p, 0.0).bound - free) < 1e-9    # nu = 0: the unconstrained optimum
    True
    """
    problem = check_problem(problem)
    check_metric(problem)
    if options.get("majority_only"):
        raise InvalidParameterError(
            "majority_only: the relabelled problem's majority labels are not the fair "
            "problem's, so its lists are another space; the bound is over every list (leave it "
            "False: a bound on the full space bounds the majority space's optimum too)"
        )
    mult = rate_multipliers(problem, nu)
    if problem.epsilon is None and np.any(mult != 0):
        raise InvalidParameterError(
            "nu must be 0 for a problem without a cap (epsilon None): its bound is then the "
            "unconstrained optimum"
        )
    eps = 0.0 if problem.epsilon is None else float(problem.epsilon) + FEASIBILITY_TOL
    penalty = float(np.abs(mult).sum(axis=1).max()) / 2 * eps
    c0, c1 = relaxed_costs(problem, mult)
    d = c1 - c0
    constant = math.fsum(np.minimum(c0, c1).tolist())
    weight = np.abs(d)
    scale = math.fsum(weight.tolist())
    label = (d < 0).astype(np.uint8)
    slack = FLOAT_SLACK * (math.fsum((c0 + np.abs(c1)).tolist()) + abs(constant) + scale)
    cpu = time.process_time()
    positive = weight > 0
    relaxed: Result | None = None
    rates = None
    if positive.sum() < 2 or len(np.unique(label[positive])) < 2:
        # one cheaper label for every sample that matters: the constant list predicting it
        # costs `constant` and nothing does better (lam * K >= 0)
        value, certified = constant, True
    else:
        first = int(np.argmax(weight))  # groups do not matter without a cap: two non-empty
        relaxed_problem = Problem(
            problem.X,
            label,
            np.arange(problem.n_samples) == first,
            epsilon=None,
            lam=problem.lam / scale,
            max_length=problem.max_length,
            feature_names=problem.feature_names,
            limits=problem.limits,
            sample_weight=weight,
        )
        relaxed = solve(relaxed_problem, engine, **options)
        value = constant + scale * float(relaxed.lower_bound)
        certified = relaxed.status is Status.OPTIMAL
        if relaxed.rule_list is not None:
            rates = _rates(problem, relaxed.rule_list)
    cpu = time.process_time() - cpu
    return LagrangianBound(
        bound=value - penalty - slack,
        nu=mult,
        relaxed_value=value - slack,
        penalty=penalty,
        constant=constant,
        scale=scale,
        certified=certified,
        cpu_seconds=cpu,
        rates=rates,
        relaxed=relaxed,
    )


def _rates(problem: Problem, rule_list) -> np.ndarray:
    """The metric's rates (rates, groups) of ``rule_list`` on ``problem``."""
    counts = problem.evaluate(rule_list).counts
    return np.array(
        [[getattr(g, rate) for g in counts.groups] for rate in METRIC_RATES[problem.metric]]
    )


@dataclass(frozen=True)
class DualBound:
    """The best ``L(nu)`` a search found: ``bound`` at ``nu``; ``points`` every ``(nu, L(nu))``
    evaluated, in order; ``best`` the :class:`LagrangianBound` at ``nu``; ``cpu_seconds`` the
    inner solves' CPU time together."""

    bound: float
    nu: float
    points: tuple[tuple[float, float], ...]
    best: LagrangianBound
    cpu_seconds: float


def dual_bound(
    problem: Problem,
    *,
    nus: Sequence[float] | None = None,
    start: float = 0.25,
    max_evaluations: int = 12,
    tolerance: float = 1e-3,
    engine: str = "bnb",
    **options: Any,
) -> DualBound:
    """The best Lagrangian bound ``L(nu)`` over one multiplier ``nu`` (two groups; SP, PE or
    EOpp): every ``L(nu)`` is a proved lower bound on the fair optimum, so the best of them is.

    With ``nus`` the bound is evaluated at those values only. Otherwise ``L`` is concave in
    ``nu`` (a minimum of functions affine in ``nu``, minus ``|nu| epsilon``), and the search
    walks from 0 in the direction the relaxed optimum's rate gap points (steps ``start``,
    doubled while ``L`` rises), then narrows the bracket by golden sections to a width of
    ``tolerance``, using at most ``max_evaluations`` inner solves in all. When the relaxed
    optimum at ``nu = 0`` is fair, ``L(0)`` is the fair optimum and the search stops there.

    Examples
    --------
    >>> import numpy as np
    >>> from fairlist import Problem, solve
    >>> rng = np.random.default_rng(3)
    >>> X = rng.integers(0, 2, size=(60, 4)).astype(np.uint8)
    >>> groups = rng.integers(0, 2, size=60) == 1
    >>> y = (X[:, 0] | groups).astype(np.uint8)
    >>> p = Problem(X, y, groups, metric="SP", epsilon=0.1, lam=0.01, max_length=2)
    >>> d = dual_bound(p, max_evaluations=8)
    >>> d.bound <= solve(p).objective, len(d.points) <= 8
    (True, True)
    """
    problem = check_problem(problem)
    check_metric(problem)
    rates = METRIC_RATES[problem.metric]
    if len(rates) != 1 or problem.n_groups != 2:
        raise InvalidParameterError(
            f"dual_bound searches one multiplier (two groups, metric SP, PE or EOpp); this "
            f"problem has {problem.n_groups} groups and metric {problem.metric.name}. Give "
            "lagrangian_bound the multipliers (one per rate and group) instead; the search over "
            "several (EOdds: two gaps, a small grid or subgradient search) is issue 36's step 1, "
            "not built"
        )
    if problem.epsilon is None:
        raise InvalidParameterError("problem has no cap (epsilon None): nothing to relax")
    if not (isinstance(max_evaluations, numbers.Integral) and max_evaluations >= 1):
        raise InvalidParameterError(
            f"max_evaluations must be an integer >= 1, got {max_evaluations!r}"
        )
    if not (isinstance(start, numbers.Real) and start > 0 and math.isfinite(start)):
        raise InvalidParameterError(f"start must be a positive number, got {start!r}")
    seen: dict[float, LagrangianBound] = {}

    def at(v: float) -> float:
        if v not in seen:
            seen[v] = lagrangian_bound(problem, v, engine=engine, **options)
        return seen[v].bound

    if nus is not None:
        for v in nus:
            at(float(v))
    else:
        _search(problem, at, seen, float(start), int(max_evaluations), float(tolerance))
    best_nu = max(seen, key=lambda v: seen[v].bound)
    return DualBound(
        bound=seen[best_nu].bound,
        nu=best_nu,
        points=tuple((v, b.bound) for v, b in seen.items()),
        best=seen[best_nu],
        cpu_seconds=sum(b.cpu_seconds for b in seen.values()),
    )


def _search(problem: Problem, at, seen: dict, step: float, budget: int, tol: float) -> None:
    """Maximise the concave ``at`` over the line from 0 (see :func:`dual_bound`)."""
    at(0.0)
    zero = seen[0.0]
    eps = float(problem.epsilon) + FEASIBILITY_TOL
    if zero.rates is not None:
        gap = float(zero.rates[0, 0] - zero.rates[0, 1])
        if abs(gap) <= eps and zero.certified:
            return  # the unconstrained optimum is fair: L(0) is the fair optimum
        sign = 1.0 if gap > 0 else -1.0
    else:
        sign = 1.0
    # bracket: walk while L rises
    lo, mid = 0.0, sign * step
    if len(seen) >= budget:
        return
    at(mid)
    if seen[mid].bound <= seen[lo].bound:  # no rise: the maximum lies in [-|step|, |step|]
        hi = mid
        lo = -mid
        if len(seen) >= budget:
            return
        at(lo)
        if seen[lo].bound <= seen[0.0].bound:
            lo, mid = -mid, 0.0
        else:  # the other direction rises after all: walk it
            lo, mid, hi = 0.0, lo, 2 * lo
            while len(seen) < budget:
                at(hi)
                if seen[hi].bound <= seen[mid].bound:
                    break
                lo, mid, hi = mid, hi, 2 * hi
    else:
        hi = 2 * mid
        while len(seen) < budget:
            at(hi)
            if seen[hi].bound <= seen[mid].bound:
                break
            lo, mid, hi = mid, hi, 2 * hi
    # golden sections on [lo, hi] (in either order) around mid
    a, b = min(lo, hi), max(lo, hi)
    ratio = (math.sqrt(5) - 1) / 2
    while len(seen) < budget and b - a > tol:
        # probe the larger side of the bracket
        x = mid + (1 - ratio) * (b - mid) if b - mid > mid - a else mid - (1 - ratio) * (mid - a)
        at(x)
        if seen[x].bound > seen[mid].bound:
            if x > mid:
                a, mid = mid, x
            else:
                b, mid = mid, x
        elif x > mid:
            b = x
        else:
            a = x
