"""The dual certificate (issue 36, step 2; docs/design.md §10.2): with a multiplier ``nu`` and an
incumbent, every fair list cheaper than the incumbent has relaxed (costed) value below the
incumbent plus the penalty (:mod:`fairlist.dual.bound`), so enumerating the costed problem's
lists under that threshold, one spelling per class of confusion counts, and checking each
against the true cap certifies the fair optimum (Handler and Zang's method). Here: the costed
problem (:func:`costed_problem`), the enumeration (:func:`certify_by_dual`) and the engine's
path through it (:func:`solve_by_dual`, ``BnBSolver(dual=...)``).
"""

from __future__ import annotations

import dataclasses
import math
import numbers
import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..errors import InvalidParameterError
from ..metrics import FEASIBILITY_TOL, METRIC_RATES
from ..solvers import Problem, Result, Status, StopReason
from ..solvers.base import check_problem
from .bound import (
    FLOAT_SLACK,
    RATE_CELL,
    LagrangianBound,
    check_metric,
    dual_bound,
    lagrangian_bound,
    rate_multipliers,
    relaxed_costs,
)

__all__ = [
    "CostedProblem",
    "costed_problem",
    "DualCertificate",
    "certify_by_dual",
    "DUAL_MODES",
    "dual_path_refusal",
    "solve_by_dual",
]


@dataclass(frozen=True)
class CostedProblem:
    """The relaxed problem ``min_s objective(s) + sum nu r(s)`` in the engine's terms, its costs
    in integers (:func:`costed_problem`).

    ``problem`` is the relabelled problem (labels ``y'``, integer weights ``v_i``, length
    penalty ``lam / scale``); a list's relaxed value, with the rounded costs, is ``constant +
    scale * problem's objective``, within ``error`` (+ ``slack``, the float arithmetic) of the
    true relaxed value. The problem carries the true groups and a cap no list breaks (metric
    EOdds on ``y'``, epsilon 2); ``keyed``: its permutation map's key counts are then the
    original problem's counts of predicted 1 per (group, label) cell, and one list per key
    class may be enumerated (see :func:`costed_problem`)."""

    problem: Problem
    constant: float
    scale: float
    error: float
    slack: float
    keyed: bool

    def relaxed_objective(self, value: float) -> float:
        """The relabelled problem's objective of a list whose rounded relaxed value is
        ``value``."""
        return (value - self.constant) / self.scale


#: The integer weights' total in :func:`costed_problem` (exact for the engine).
_CERTIFY_UNITS = 2**30

#: A cap no list breaks on the keyed costed problem (EOdds: the sum of two gaps of rates).
_VACUOUS_EPSILON = 2.0


def _separated(v1: int, v2: int, n1: int, n2: int) -> bool:
    """Whether ``v1 p1 + v2 p2`` determines ``p1 in [0, n1]`` and ``p2 in [0, n2]``: two
    solutions differ by ``(a, b) != 0`` with ``v1 a = -v2 b``, whose least is ``a = v2 / g``,
    ``b = v1 / g`` (``g = gcd``); none fits when ``v2 / g > n1`` or ``v1 / g > n2``."""
    g = math.gcd(v1, v2)
    return v2 // g > n1 or v1 // g > n2


def costed_problem(problem: Problem, nu: Any, *, one_spelling: bool = True) -> CostedProblem:
    """The relaxed problem of multipliers ``nu`` with its costs rounded to integers (units of
    ``1 / S``, their total about 2**30), for an enumeration of its lists
    (:func:`certify_by_dual`).

    With ``one_spelling`` (and when every (group, label) cell of ``problem`` has one weight,
    as without sample weights) the problem is *keyed*: it keeps the true groups, metric EOdds
    over the relabelled ``y'`` and a cap no list breaks. The engine's permutation map then keys
    a prefix by, per group, the weighted counts of predicted 1 among samples of ``y' = 1`` and
    of ``y' = 0``. A cell ``(g, y)`` has one cost ``v_c`` and one label ``y'_c``, so each key
    count is ``sum v_c p_c`` over the cells of a group and label ``y'`` (one or two cells),
    ``p_c`` the cell's captured samples predicted 1. When two cells share a group and ``y'``
    their costs are moved by a unit until :func:`_separated` holds, so that the key gives every
    ``p_c``: two prefixes with the same captured samples and equal keys then have, for every
    completion, the same predicted 1 per cell, hence the same confusion counts per group of
    ``problem`` (the same fairness and errors) and the same relaxed value up to their lengths.
    Keeping the shorter (the map's rule) keeps a list at least as good on every count: enough
    for a certificate, which needs one list per such class (``Config::rashomon_keep_map``).
    Otherwise (``one_spelling=False``, or weights varying within a cell) every spelling is
    enumerated (the same problem, the map off).

    The rounding moves a list's relaxed value by at most ``error = sum_i |v_i / S - |d_i||``
    (moved costs included; a cost of 0 becomes 1 unit, so that its cell counts in the key).
    """
    problem = check_problem(problem)
    check_metric(problem)
    mult = rate_multipliers(problem, nu)
    c0, c1 = relaxed_costs(problem, mult)
    d = c1 - c0
    weight = np.abs(d)
    label = (d < 0).astype(np.uint8)
    constant = math.fsum(np.minimum(c0, c1).tolist())
    top = float(weight.sum())
    units = _CERTIFY_UNITS / top if top > 0 else 1.0
    values = np.rint(weight * units).astype(np.int64)
    y = problem.y.astype(bool)
    cells = [
        (g, c, (problem.groups == g) & (y == bool(c)))
        for g in range(problem.n_groups)
        for c in (0, 1)
    ]
    keyed = bool(one_spelling) and all(
        len(np.unique(problem.weights[m])) <= 1 for _, _, m in cells if m.any()
    )
    if keyed:
        for g in range(problem.n_groups):
            here = [m for gg, _, m in cells if gg == g and m.any()]
            for m in here:
                values[m] = max(int(values[m][0]), 1)
            if len(here) == 2 and label[here[0]][0] == label[here[1]][0]:
                a, b = here
                n1, n2 = int(a.sum()), int(b.sum())
                while not _separated(int(values[a][0]), int(values[b][0]), n1, n2):
                    values[b] += 1
    error = math.fsum(np.abs(values / units - weight).tolist()) * (1 + 2.0**-40)
    scale = math.fsum(values.tolist()) / units
    slack = FLOAT_SLACK * (math.fsum((c0 + np.abs(c1)).tolist()) + abs(constant) + top)
    common = dict(
        lam=problem.lam / scale,
        max_length=problem.max_length,
        feature_names=problem.feature_names,
        limits=problem.limits,
        sample_weight=values.astype(float),
    )
    # the same form keyed or not (the vacuous cap costs nothing with its bounds off, and takes
    # relabelled problems of one class, which the unconstrained Rashomon mode refuses)
    relaxed = Problem(
        problem.X, label, problem.groups, metric="EOdds", epsilon=_VACUOUS_EPSILON, **common
    )
    return CostedProblem(relaxed, constant, scale, error, slack, keyed)


@dataclass(frozen=True)
class DualCertificate:
    """What :func:`certify_by_dual` proved: ``rule_list`` (fair, objective ``objective``) is the
    best fair list when ``certified``; ``threshold`` the relaxed value below which every list
    was enumerated, ``n_checked`` how many were checked against the cap, ``improved`` whether
    one of them beat the incumbent; ``relaxed_optimum`` the least relaxed value enumerated (so
    ``relaxed_optimum - penalty`` is ``L(nu)`` when the set is complete and not empty);
    ``one_spelling`` whether one list per key class was enumerated (:func:`costed_problem`);
    ``stats`` the enumeration's; ``lower_bound`` :func:`lagrangian_bound` at ``nu`` when
    asked for; ``enumerated_below`` the rounded relaxed value below which every list was
    enumerated (``inf`` when the set is complete; below ``threshold`` when a limit cut it: how
    far a cut enumeration got, docs/performance.md), ``n_held`` the lists it held;
    ``proved_bound`` a lower bound on the fair optimum the enumeration proved (``objective``
    when certified; from a cut one, see :func:`certify_by_dual`; ``-inf``: none)."""

    rule_list: Any
    objective: float
    certified: bool
    threshold: float
    n_checked: int
    improved: bool
    penalty: float = 0.0
    relaxed_optimum: float = math.inf
    one_spelling: bool = False
    cpu_seconds: float = 0.0
    stats: dict = field(default_factory=dict, repr=False)
    lower_bound: LagrangianBound | None = None
    enumerated_below: float = math.inf
    n_held: int = 0
    proved_bound: float = -math.inf


def certify_by_dual(
    problem: Problem,
    incumbent: Any,
    nu: Any,
    *,
    max_lists: int | None = 1_000_000,
    one_spelling: bool = True,
    with_bound: bool = False,
    **options: Any,
) -> DualCertificate:
    """Certify (or improve) a fair ``incumbent`` rule list by enumerating the relaxed problem's
    lists under a threshold (Handler and Zang's method; issue 36 step 2).

    Why it is exact: for every list ``s`` that meets the cap, ``g(s) = objective(s) + sum nu
    r(s) <= objective(s) + penalty`` (module docstring), so every fair list better than the
    incumbent has ``g(s) < objective(incumbent) + penalty``. The costs are rounded to integers
    (:func:`costed_problem`), which moves ``g`` of any list by at most ``error``, so every such
    list has rounded value below the threshold ``objective(incumbent) + penalty + error`` (plus
    a float slack). The engine's Rashomon mode, given that threshold as an absolute ceiling
    (``Config::rashomon_ceiling``), enumerates every list of the rounded relaxed problem under
    it, or with ``one_spelling`` one list of each class of lists alike in every (group, label)
    cell's predictions and no longer than the others (:func:`costed_problem`: such a list is
    as fair, no worse, and its relaxed value no larger). Lists of identical columns are merged
    (they predict alike). Each is checked on ``problem`` (the true cap and objective); when the
    set is complete, the best fair list among them and the incumbent is optimal. ``max_lists``
    bounds the set (an incomplete set certifies nothing); the problem's time limit bounds the
    enumeration. The threshold is fixed at the start: a better incumbent found on the way does
    not lower it (the engine enumerates in one call). ``with_bound`` also computes
    :func:`lagrangian_bound` (an inner solve; reported, not needed for the certificate).
    ``options``: :class:`~fairlist.solvers.bnb.BnBSolver` settings of the enumeration (its
    policy; ``n_jobs`` is 1: the Rashomon mode is serial).

    Examples
    --------
    >>> import numpy as np
    >>> from fairlist import Problem, solve
    >>> rng = np.random.default_rng(3)
    >>> X = rng.integers(0, 2, size=(60, 4)).astype(np.uint8)
    >>> groups = rng.integers(0, 2, size=60) == 1
    >>> y = (X[:, 0] | groups).astype(np.uint8)
    >>> p = Problem(X, y, groups, metric="SP", epsilon=0.1, lam=0.01, max_length=2)
    >>> c = certify_by_dual(p, p.rule_list([], [], 0), -0.3)    # from a constant list
    >>> c.certified, abs(c.objective - solve(p).objective) < 1e-12
    (True, True)
    >>> from fairlist.solvers import Limits                     # a node budget cuts it short
    >>> cut = certify_by_dual(p.with_limits(Limits(max_nodes=2)), p.rule_list([], [], 0), -0.3,
    ...                       use_terminal_solver=False)
    >>> cut.certified, cut.enumerated_below < cut.threshold, c.enumerated_below
    (False, True, inf)
    """
    from ..rulelist import RuleList
    from ..solvers import get_solver

    problem = check_problem(problem)
    check_metric(problem)
    if not isinstance(incumbent, RuleList):
        raise InvalidParameterError(f"incumbent must be a RuleList, got {type(incumbent).__name__}")
    if max_lists is not None and not (isinstance(max_lists, numbers.Integral) and max_lists >= 0):
        raise InvalidParameterError(f"max_lists must be an integer >= 0 or None, got {max_lists!r}")
    start = problem.evaluate(incumbent)
    if not start.fair:
        raise InvalidParameterError(
            f"incumbent is not fair (unfairness {start.unfairness:.6g} > epsilon {problem.epsilon})"
        )
    cpu = time.process_time()
    mult = rate_multipliers(problem, nu)
    bound = lagrangian_bound(problem, mult, **options) if with_bound else None
    eps = 0.0 if problem.epsilon is None else float(problem.epsilon) + FEASIBILITY_TOL
    penalty = float(np.abs(mult).sum(axis=1).max()) / 2 * eps
    costed = costed_problem(problem, mult, one_spelling=one_spelling)
    threshold = _threshold(start.objective, penalty, costed)
    best, best_objective, checked = incumbent, start.objective, 0

    reach = {"enumerated_below": math.inf, "n_held": 0, "proved_bound": -math.inf}

    def answer(certified: bool, relaxed_optimum: float = math.inf, stats=None):
        return DualCertificate(
            best,
            best_objective,
            certified,
            threshold,
            checked,
            best is not incumbent,
            penalty,
            relaxed_optimum,
            costed.keyed,
            time.process_time() - cpu,
            stats or {},
            bound,
            **reach,
        )

    relaxed = costed.problem
    # a list's rounded relaxed objective is (g~ - constant) / D~: the ceiling, a little above
    # (more lists, each checked)
    ceiling = costed.relaxed_objective(threshold)
    ceiling += 1e-12 * max(1.0, abs(ceiling))
    if ceiling < 0:
        return answer(True)  # no list (objective >= 0) lies under the threshold
    solver_options = {"n_jobs": 1, **options}
    # the cap is vacuous: its bounds cannot prune
    solver_options.update(use_fairness_bound=False, use_class_bound=False)
    solver = get_solver("bnb", **solver_options)
    raw, kept, _ = solver.solve_rashomon(
        relaxed, ceiling + 1.0, max_lists, keep_map=costed.keyed, ceiling=ceiling
    )
    stats = dict(raw["stats"])
    below = float(raw["rashomon_complete_below"])
    complete = raw["stop_reason"].name == "COMPLETED" and math.isinf(below)
    reach["n_held"] = len(raw["rashomon_defaults"])
    if not complete:
        reach["enumerated_below"] = costed.constant + costed.scale * below
        if reach["n_held"] > CUT_CHECKS:
            return answer(False, stats=stats)
    # The lists come sorted by relaxed objective. A fair list s has objective(s) >= g~(s) -
    # error - slack - penalty, so once that reaches the best fair objective found, no later
    # list can beat it: the check stops there (the threshold falling with the incumbent).
    # The checks are Python's: the time limit bounds them too (cut, nothing is certified).
    # A cut enumeration's lists are checked too (at most CUT_CHECKS), for the bound below.
    objectives = np.asarray(raw["rashomon_objectives"], dtype=float)
    floor = costed.constant + costed.scale * objectives - costed.error - costed.slack - penalty
    limit = problem.limits.time_limit
    started = time.perf_counter()
    checks_cpu = time.process_time()
    for i, rule_list in enumerate(_lists(problem, raw, kept)):
        if floor[i] >= best_objective:
            break
        if limit is not None and i % 256 == 255 and time.perf_counter() - started > limit:
            return answer(False, stats=stats | {"checks_cut": True})
        checked += 1
        ev = problem.evaluate(rule_list)
        if ev.fair and ev.objective < best_objective:
            best, best_objective = rule_list, ev.objective
    stats["checks_cpu_seconds"] = time.process_time() - checks_cpu
    if not complete:
        # What a cut enumeration proves. Let s* be a fair optimum. If g~(s*) < enumerated_below,
        # s* (or a list of its key class, as fair and no worse) was held and checked, unless the
        # checks stopped at a list whose floor reached the best fair objective found, past
        # which none beats it: either way best_objective <= objective(s*). Otherwise
        # objective(s*) >= g~(s*) - error - slack - penalty >= the second term below.
        reached = _cut_bound(reach["enumerated_below"], penalty, costed)
        reach["proved_bound"] = min(best_objective, reached)
        return answer(False, stats=stats)
    reach["proved_bound"] = best_objective
    optimum = math.inf
    if len(objectives):
        optimum = costed.constant + costed.scale * float(min(objectives)) - costed.error
        optimum -= costed.slack
    return answer(True, optimum, stats)


def _lists(problem: Problem, raw: dict, kept: np.ndarray):
    """The rule lists of the core's Rashomon result ``raw`` (rules coded ``antecedent << 1 |
    prediction`` over the ``kept`` columns), as lists of ``problem``."""
    rules = np.asarray(raw["rashomon_rules"], dtype=np.int64)
    starts = np.asarray(raw["rashomon_starts"]).view(np.int64)
    defaults = raw["rashomon_defaults"]
    for i in range(len(defaults)):
        codes = rules[starts[i] : starts[i + 1]]
        antecedents = [int(kept[c >> 1]) for c in codes]
        yield problem.rule_list(antecedents, [int(c & 1) for c in codes], int(defaults[i]))


def _threshold(objective: float, penalty: float, costed: CostedProblem) -> float:
    """The rounded relaxed value under which every fair list better than ``objective`` lies
    (see :func:`certify_by_dual`): a test replaces it by a lower one to show the suite fails."""
    return objective + penalty + costed.error + costed.slack


def _cut_bound(enumerated_below: float, penalty: float, costed: CostedProblem) -> float:
    """The least objective of a fair list of rounded relaxed value at least
    ``enumerated_below`` (see :func:`certify_by_dual`): a test drops the penalty to show the
    suite fails."""
    return enumerated_below - costed.error - costed.slack - penalty


# --------------------------------------------------------------------- the engine's dual path

#: ``BnBSolver(dual=...)``: "off" (the plain search), "on" (always through the dual certificate
#: where it applies: the plain search only finds a first incumbent), "auto" (the plain search
#: with a share of the budget first, the dual certificate when that did not certify).
DUAL_MODES = ("off", "on", "auto")
#: "auto": the share of the time limit the first plain search may use, and its node budget
#: (without a time limit the node budget alone bounds it).
FIRST_SHARE = 0.25
FIRST_NODES = 1_000_000
#: The multiplier is searched on the problem capped at this many rules (its inner solves take
#: well under a second on COMPAS); any multiplier is valid, a poor one enumerates more lists.
NU_LENGTH = 3
#: The enumeration's cap on the lists under the threshold; past it the search falls back (each
#: list is checked in Python: about a millisecond on COMPAS).
DUAL_MAX_LISTS = 200_000
#: A cut enumeration's lists are checked (for the lower bound it proves,
#: ``DualCertificate.proved_bound``) when it holds at most this many (about 1 ms each: a
#: second at most past the enumeration's time limit); more, and it proves none.
CUT_CHECKS = 1_000
#: The fallback's result keeps the larger of its lower bound and those the first search and a
#: cut enumeration proved (:func:`solve_by_dual`); False: its own only (a test switch).
USE_EARLIER_BOUNDS = True
#: "auto" without a time limit: the enumeration may take this many times the first search's
#: seconds (at least 10 s) before the plain search takes over.
ENUMERATION_FACTOR = 3.0


def dual_path_refusal(problem: Problem, mode: str, *, majority_only: bool = False) -> str | None:
    """Why the dual certificate does not apply to ``problem`` in ``mode`` (None: it applies).

    "auto" takes SP, PE and EOpp with two groups (one multiplier, searched) under a length cap;
    "on" every metric with linear rates (EOdds and more groups: multipliers by a short
    supergradient ascent, :func:`_subgradient_multipliers`) and no length cap too. PP and
    CUAE compare ratios whose denominators depend on the list: their search stays the plain one.
    """
    if mode == "off":
        return "dual='off'"
    if not problem.constrained:
        return "no cap (epsilon None): nothing to relax"
    if any(r not in RATE_CELL for r in METRIC_RATES[problem.metric]):
        return f"metric {problem.metric.name}: ratio rates, no Lagrangian bound (plain search)"
    if majority_only:
        return "majority_only: the enumeration covers the full space"
    if mode == "auto":
        if len(METRIC_RATES[problem.metric]) != 1 or problem.n_groups != 2:
            return "auto: one multiplier (SP, PE or EOpp, two groups) only"
        if problem.max_length is None:
            return "auto: the relaxed problem without a length cap is as hard (no cap set)"
    return None


def _multiplier(problem: Problem, limits) -> tuple[Any, float]:
    """A multiplier for ``problem`` (and the CPU seconds it took), searched on the problem
    capped at :data:`NU_LENGTH` rules: :func:`dual_bound` for one multiplier, else
    :func:`_subgradient_multipliers` (EOdds, more groups). Any multiplier is valid."""
    short = problem.max_length if problem.max_length is not None else NU_LENGTH
    short_problem = problem.replace(max_length=min(short, NU_LENGTH)).with_limits(limits)
    cpu = time.process_time()
    if len(METRIC_RATES[problem.metric]) == 1 and problem.n_groups == 2:
        nu = dual_bound(short_problem, max_evaluations=8).nu
    else:
        nu = _subgradient_multipliers(short_problem)
    return nu, time.process_time() - cpu


def _subgradient_multipliers(problem: Problem, steps: int = 8) -> np.ndarray:
    """The best ``nu`` (rates, groups) met by a projected supergradient ascent of ``L`` from 0:
    at ``nu`` the relaxed optimum's rates less their mean over the groups (a supergradient of
    the concave inner minimum, projected on the multipliers summing to 0), less the penalty's,
    with steps 0.5 / (1 + i) of its largest entry's scale."""
    rates = METRIC_RATES[problem.metric]
    nu = np.zeros((len(rates), problem.n_groups))
    eps = float(problem.epsilon) + FEASIBILITY_TOL
    best, best_value = nu.copy(), -math.inf
    for i in range(steps):
        b = lagrangian_bound(problem, nu)
        if b.bound > best_value:
            best, best_value = nu.copy(), b.bound
        if b.rates is None:
            break
        grad = b.rates - b.rates.mean(axis=1, keepdims=True)
        top = int(np.argmax(np.abs(nu).sum(axis=1)))
        grad[top] -= np.sign(nu[top]) / 2 * eps  # the penalty c(nu) eps's supergradient
        grad -= grad.mean(axis=1, keepdims=True)
        size = float(np.abs(grad).max())
        if size < 1e-12:
            break  # the relaxed optimum's rates are equal: L(nu) is the fair optimum here
        nu = nu + 0.5 / (1 + i) * grad / size
    return best


def solve_by_dual(solver: Any, problem: Problem) -> Result:
    """``solver.solve(problem)`` through the dual certificate (``BnBSolver(dual="on"|"auto")``;
    see :data:`DUAL_MODES`): a plain search for a first incumbent (a share of the budget;
    certified there, its result is returned), a multiplier (:func:`_multiplier`), then
    :func:`certify_by_dual` from the best fair list known (the plain search's, or the constant
    list predicting 0, fair for these metrics: every rate 0). A complete enumeration proves the
    best fair list met optimal: the result has status ``optimal`` and ``stats["dual"]`` says
    how. Otherwise (the set over :data:`DUAL_MAX_LISTS`, or the time limit), the plain search
    runs with the time left, warm-started from that list (``stats["dual"]["fallback"]``).
    Where the dual path does not apply (:func:`dual_path_refusal`) the plain search runs and
    ``stats["dual"]`` gives the reason. The fallback's lower bound is the largest of its own,
    the first search's and the cut enumeration's (``DualCertificate.proved_bound``;
    ``stats["dual"]["fallback_lower_bound"]`` keeps its own when that was less). "auto" bounds
    the enumeration (half the time left; without a time limit :data:`ENUMERATION_FACTOR` times
    the first search's seconds) so that the fallback keeps a share; it is still slower than
    "off" where the enumeration does not finish (the fallback starts afresh, warm-started only
    by the list).

    Examples
    --------
    >>> import numpy as np
    >>> from fairlist import Problem
    >>> from fairlist.solvers.bnb import BnBSolver
    >>> rng = np.random.default_rng(3)
    >>> X = rng.integers(0, 2, size=(60, 4)).astype(np.uint8)
    >>> groups = rng.integers(0, 2, size=60) == 1
    >>> y = (X[:, 0] | groups).astype(np.uint8)
    >>> p = Problem(X, y, groups, metric="SP", epsilon=0.1, lam=0.01, max_length=2)
    >>> r = BnBSolver(dual="on").solve(p)
    >>> r.status.value, r.stats["dual"]["certified"], r.objective == BnBSolver().solve(p).objective
    ('optimal', True, True)
    """
    import copy

    from ..solvers.base import Limits

    plain = copy.copy(solver)
    plain.dual = "off"
    mode = solver.dual
    refusal = dual_path_refusal(problem, mode, majority_only=solver.majority_only)
    if refusal is not None:
        result = plain.solve(problem)
        result.stats["dual"] = {"applied": False, "reason": refusal}
        return result
    wall = time.perf_counter()
    cpu = time.process_time()
    limits = problem.limits
    total = limits.time_limit

    def left() -> float | None:
        return None if total is None else max(total - (time.perf_counter() - wall), 1e-3)

    info: dict[str, Any] = {"applied": True, "mode": mode}
    # 1. a first incumbent (and, for "auto", maybe the certificate itself)
    if mode == "on":
        first_limits = dataclasses.replace(limits, max_nodes=1)
    else:
        nodes = FIRST_NODES if limits.max_nodes is None else min(limits.max_nodes, FIRST_NODES)
        first_limits = dataclasses.replace(
            limits, max_nodes=nodes, time_limit=None if total is None else FIRST_SHARE * total
        )
    first = plain.solve(problem.with_limits(first_limits))
    first_seconds = time.perf_counter() - wall
    info["first_status"] = first.status.value
    info["first_objective"] = first.objective
    if first.status in (Status.OPTIMAL, Status.INFEASIBLE) and mode == "auto":
        info["certified"] = False
        info["reason"] = "the plain search certified within its share"
        first.stats["dual"] = info
        return first
    incumbent = first.rule_list if first.rule_list is not None else problem.rule_list([], [], 0)
    if not problem.evaluate(incumbent).fair:  # (rounded weights' lists are checked, but safe)
        incumbent = problem.rule_list([], [], 0)
    # 2. the multiplier
    short_limits = Limits(time_limit=left(), memory_limit_mb=limits.memory_limit_mb)
    nu, nu_cpu = _multiplier(problem, short_limits)
    info["nu"] = np.asarray(nu, dtype=float).tolist()
    info["nu_cpu_seconds"] = nu_cpu
    # 3. the enumeration ("auto": at most half the time left, or without a time limit
    # ENUMERATION_FACTOR times the first search's, so that the fallback keeps its share)
    enum_time = left()
    if mode == "auto":
        enum_time = (
            enum_time / 2 if total is not None else max(10.0, ENUMERATION_FACTOR * first_seconds)
        )
    enum_limits = Limits(time_limit=enum_time, memory_limit_mb=limits.memory_limit_mb)
    cert = certify_by_dual(
        problem.with_limits(enum_limits), incumbent, nu, max_lists=DUAL_MAX_LISTS
    )
    info.update(
        certified=cert.certified,
        n_checked=cert.n_checked,
        threshold=cert.threshold,
        one_spelling=cert.one_spelling,
        enumeration_cpu_seconds=cert.cpu_seconds,
        enumeration_nodes=cert.stats.get("nodes_expanded"),
    )
    if not math.isinf(cert.enumerated_below):  # how far a cut enumeration got
        info["enumerated_below"] = cert.enumerated_below
    if cert.certified:
        ev = problem.evaluate(cert.rule_list)
        info["cpu_seconds"] = time.process_time() - cpu
        stats = {"dual": info, "seconds": time.perf_counter() - wall}
        for key in ("nodes_expanded", "children_evaluated", "nodes_created"):
            stats[key] = int(first.stats.get(key, 0)) + int(cert.stats.get(key, 0))
        for key in ("peak_trie_size", "peak_memory_bytes"):
            stats[key] = max(int(first.stats.get(key, 0)), int(cert.stats.get(key, 0)))
        return Result(
            status=Status.OPTIMAL,
            rule_list=cert.rule_list,
            objective=ev.objective,
            accuracy=ev.accuracy,
            unfairness=ev.unfairness,
            lower_bound=ev.objective,
            stop_reason=StopReason.COMPLETED,
            engine=solver.name,
            search_space="full",
            stats=stats,
        )
    # 4. the fallback: the plain search with the time left, from the best list known
    info["fallback"] = True
    best = cert.rule_list
    known = first.rule_list
    if known is not None and problem.evaluate(known).objective <= cert.objective:
        best = known
    plain.initial = best
    result = plain.solve(problem.with_limits(dataclasses.replace(limits, time_limit=left())))
    info["cpu_seconds"] = time.process_time() - cpu
    result.stats["dual"] = info
    # The fallback starts afresh: the bounds the first search and a cut enumeration proved
    # (both on the fair optimum of this problem) still hold, and may be higher (never above
    # the objective of a fair list). USE_EARLIER_BOUNDS switches it off.
    proved = max(first.lower_bound, cert.proved_bound)
    if USE_EARLIER_BOUNDS and result.rule_list is not None and proved > result.lower_bound:
        info["fallback_lower_bound"] = result.lower_bound
        result = dataclasses.replace(result, lower_bound=min(proved, result.objective))
    return result
