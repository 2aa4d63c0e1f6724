"""The less discriminatory alternative, certified: the least unfair rule list within ``delta`` of
the optimum, found without enumerating the whole Rashomon set.

:func:`fairest_within` answers "is there a rule list about as good as the optimal one (objective
within ``delta``) that is less unfair, and how much less?" with a certificate: *no rule list of
at most K rules within delta of the optimum has unfairness below u*. It is the least unfair
member of the Rashomon set (:meth:`fairlist.RashomonSet.fairest`), but it searches for it
instead of listing the set, whose size grows fast with ``delta``.

Write ``T = opt + delta + SLACK`` (the set's membership threshold,
:data:`fairlist.rashomon.SLACK`) and ``u*`` the least unfairness of a fair list of objective at
most ``T``; the answer is the list of least (unfairness, objective). Three methods
(``method=``), each exact; the first is the default with the branch-and-bound:

* ``"front"``: **one search** (the core's Rashomon mode with ``rashomon_front``): the optimum is
  certified as in the Rashomon enumeration, but instead of the set the core keeps only its
  Pareto front in (objective, unfairness), a handful of lists: a member dominated by another
  (no more objective, no more unfairness) is never the answer when the other is within ``T``
  too, which it is. The permutation map and the terminal solver's shortcuts stay on (the
  enumeration of every spelling turns them off): each skips a list only for one of the same
  unfairness and no more objective. The answer is the least unfair front list of objective at
  most ``T`` (ties: the least objective), exact when the search completes (a search stopped by a
  limit has not certified the optimum: status ``unknown``).
* ``"ceiling"``: two searches: the optimum (certified), then the core's fairest mode
  (``Config::fairest_ceiling = T``), which minimises unfairness among the fair lists of
  objective at most ``T`` directly: subtrees whose objective bound exceeds ``T`` are pruned, and
  the fairness bounds run with a falling cap, the incumbent's unfairness (native/src/context.cpp
  ``set_fairest`` argues each pruning). Its answer is exact when the second search completes;
  stopped, its list is a witness (no bound on the unfairness is proved).
* ``"caps"`` (the first method, kept for comparison, and the one of the CP-SAT engine), below.

On COMPAS (<= 4 rules) ``front`` takes 0.54-0.58 times the CPU time of enumerating the set at
delta 0.01-0.02; at wide deltas, where the fairest list lies far from the optimum's neighbours,
``ceiling`` is faster (delta 0.05: 2.2 s against 9.9 s; docs/rashomon.md).

The caps' argument. For a cap ``c`` write ``opt(c)`` the optimum among
lists of unfairness at most ``c`` (the engine's cap: ``<= c`` up to
:data:`~fairlist.metrics.FEASIBILITY_TOL`, as everywhere). ``opt(c)`` does not increase with
``c``, and:

1. **Refute.** A certified solve under cap ``c`` whose proved lower bound exceeds ``T`` shows
   that no list of unfairness at most ``c`` is within delta: ``u* > c``.
2. **Witness.** A list found under cap ``c`` with objective at most ``T`` is within delta: ``u*
   <= its unfairness <= c``.
3. **Exact.** The Rashomon set under cap ``c`` holds every list of unfairness at most ``c`` and
   objective at most its own optimum ``opt(c)`` plus its width. With the width ``T - opt(c)``
   (``opt(c) <= T``, a witness exists), or any width when ``opt(c) >= opt`` makes the
   threshold at least ``T``, every list within delta of unfairness at most ``c`` is in it,
   provided it is complete up to ``T`` (``complete_below > T``). Then ``u*`` is the least
   unfairness of its members of objective at most ``T``: a list left out has unfairness above
   ``c + FEASIBILITY_TOL``, so above that of the witness, so above ``u*``. No tolerance enters
   the answer: it is a minimum over a complete enumeration.

The caps: first the Rashomon set under the problem's own cap, at most ``max_lists`` lists
(it certifies ``opt`` and, when the set is small, is step 3 at once: the same work as
enumerating it). Otherwise it tries the least witness unfairness as the cap (an optimum-only
solve for ``opt(c)``, then step 3 with the narrow width ``T - opt(c)``), and when that set is
cut by ``max_lists`` too (it gives witnesses only), bisects between the largest refuted cap and
the least witness unfairness with optimum-only solves (steps 1 and 2), each new witness tried as
a cap in the same way. Each step is a certified search of the chosen engine, so the
answer is as exact as the engines (the tests compare it with the brute force, the Rashomon
enumeration and CP-SAT). Limits: the time limit covers every step; one that stops a step ends
the search with status ``feasible`` (the best witness, and the largest refuted cap below which
nothing within delta lies), or ``unknown`` when even the optimum is not certified.
"""

from __future__ import annotations

import math
import numbers
import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ._params import INT64_MAX, Interval, Options, validate_params
from .errors import DataError, InvalidParameterError
from .prepare import prepare_problem
from .rashomon import ENGINES, SLACK, cpsat_rashomon, search_rashomon, useful_delta
from .rulelist import RuleList
from .solvers import Problem, Status, solve
from .solvers.base import DEFAULT_LAM, DEFAULT_TIME_LIMIT
from .solvers.bnb import BnBSolver, engine_weights

__all__ = ["fairest_within", "search_fairest", "FairestResult"]

#: The bisection stops when the interval between the largest refuted cap and the best witness
#: is narrower (then status ``feasible``, with that gap): it comes to that only when the sets
#: under the caps tried stay larger than ``max_lists``.
RESOLUTION = 1e-6

#: The most lists one step enumerates by default: about 40 MB of arrays (the set's lists, 4 bytes
#: a rule and 21 a list, handed over), so that a set of this size is searched once, as the
#: enumeration would; a larger one is bisected.
MAX_LISTS = 1_000_000

#: The most steps one search takes (a bisection over a float interval ends long before: each
#: refutation halves it; a cap is never tried twice).
MAX_STEPS = 64

#: The methods of the search (the module docstring): ``auto`` is ``front`` with the
#: branch-and-bound and ``caps`` with CP-SAT (which has neither core mode).
METHODS = ("auto", "front", "ceiling", "caps")

PARAMETER_CONSTRAINTS: dict[str, list] = {
    "delta": [Interval(numbers.Real, 0, None, closed="left")],
    "max_lists": [Interval(numbers.Integral, 1, INT64_MAX)],
    "engine": [Options(ENGINES)],
    "method": [Options(METHODS)],
}


@dataclass(frozen=True)
class FairestResult:
    """The least unfair rule list within ``delta`` of the optimum (:func:`fairest_within`).

    Attributes
    ----------
    rule_list : RuleList or None
        The list found (None when no fair list exists, or none was certified within delta).
    unfairness, objective : float
        Its unfairness (under the problem's metric) and objective.
    status : str
        ``"optimal"``: certified, no list within delta is less unfair (and, when a step
        enumerated the lists of that unfairness, the least objective among them: the Rashomon
        set's :meth:`~fairlist.RashomonSet.fairest`); ``"feasible"``: a limit stopped the
        search, or the sets under the caps left stayed larger than ``max_lists``: the list is
        within delta and :attr:`gap` bounds what may be left;
        ``"infeasible"``: no list meets the cap; ``"unknown"``: a limit stopped the search
        before the optimum was certified.
    unfairness_bound : float
        Proved: every list within delta has unfairness at least this (equal to
        :attr:`unfairness` when optimal); ``refuted`` says more when set.
    refuted : float or None
        The largest cap proved empty: every list within delta has unfairness above it.
    optimum, delta, max_length, metric : float, float, int or None, str
        The problem: the certified optimum, the width, the length cap, the metric's short name.
    steps : tuple of dict
        Each search made: ``kind`` (``front``, ``fairest``: the core's modes; ``rashomon`` or
        ``optimum``), ``cap``, ``outcome`` (``refuted``, ``witness``, ``exact``, ``cut``,
        ``stopped``), ``lists`` and ``seconds`` (CPU seconds).
    stats : dict
        ``seconds`` (the whole search), ``searches``.
    """

    rule_list: RuleList | None
    unfairness: float
    objective: float
    status: str
    unfairness_bound: float
    refuted: float | None
    optimum: float
    delta: float
    max_length: int | None
    metric: str
    steps: tuple[dict[str, Any], ...] = field(repr=False, default=())
    stats: dict[str, Any] = field(repr=False, default_factory=dict)

    @property
    def gap(self) -> float:
        """``unfairness - unfairness_bound``: 0 when optimal."""
        return self.unfairness - self.unfairness_bound

    @property
    def certificate(self) -> str:
        """The certificate in words."""
        rules = "rules" if self.max_length is None else f"at most {self.max_length} rules"
        within = f"within delta {self.delta:g} of the optimum {self.optimum:.6g}"
        m = self.metric
        if self.status == "infeasible":
            return f"no rule list of {rules} meets the cap"
        if self.status == "unknown":
            return "the optimum was not certified within the limits: nothing is proved"
        if self.status == "optimal":
            return (
                f"no rule list of {rules} {within} has {m} below {self.unfairness:.6g} "
                f"(this one: {m} {self.unfairness:.6g}, objective {self.objective:.6g})"
            )
        proved = (
            f"no rule list of {rules} {within} has {m} at or below {self.refuted:.6g}"
            if self.refuted is not None
            else "no lower bound above 0 was proved"
        )
        return (
            f"{proved}; the best found has {m} {self.unfairness:.6g} (objective "
            f"{self.objective:.6g}), a gap of {self.gap:.6g} (a limit stopped the search)"
        )

    def __str__(self) -> str:
        head = f"{self.status}: {self.certificate}"
        return head if self.rule_list is None else f"{head}\n{self.rule_list}"


def fairest_within(
    X: Any,
    y: Any,
    sensitive_features: Any = None,
    *,
    metric: Any = "statistical_parity",
    epsilon: float | None = None,
    lam: float = DEFAULT_LAM,
    max_length: int | None = None,
    delta: float,
    engine: str = "bnb",
    method: str = "auto",
    max_lists: int = MAX_LISTS,
    protected: Any = None,
    sample_weight: Any = None,
    binarizer: Any = "auto",
    max_nodes: int | None = None,
    time_limit: float | None = DEFAULT_TIME_LIMIT,
    memory_limit_mb: float | None = None,
) -> FairestResult:
    """The least unfair rule list whose objective is within ``delta`` of the optimum, certified.

    Answers the less-discriminatory-alternative question ("is there a list about as good as
    the optimal one that is less unfair?") without enumerating the Rashomon set: see
    :mod:`fairlist.fairest` for the search and its argument.

    Parameters
    ----------
    X, y, sensitive_features, protected, sample_weight, binarizer
        As :func:`fairlist.rashomon_set` takes them (the estimator's route: 0/1 antecedents,
        or a raw table that the binarizer turns into antecedents).
    metric, epsilon, lam, max_length
        The problem (``epsilon=None``: no cap); unfairness is measured under ``metric``.
    delta : float
        The width (>= 0): the lists of objective at most ``optimum + delta`` (+1e-9), as the
        Rashomon set's members.
    engine : {"bnb", "cpsat"}
        The engine of every step (``cpsat``: small problems, a cross-check; it needs
        ``max_length``).
    method : {"auto", "front", "ceiling", "caps"}
        How (:mod:`fairlist.fairest`): ``front``, one search keeping the Pareto front of
        (objective, unfairness) (``auto`` with ``bnb``); ``ceiling``, the optimum then a search
        minimising unfairness under the objective ceiling; ``caps``, the Rashomon set and a
        bisection of caps (``auto`` with ``cpsat``, the only method it has).
    max_lists : int
        ``caps`` only: the most lists one step enumerates (1,000,000 by default, about 40 MB;
        the first step's is the set itself when it is that small); a set cut by it gives
        witnesses only and the search goes on under lower caps.
    max_nodes, time_limit, memory_limit_mb
        Limits: ``time_limit`` (60 s by default) covers every step; ``max_nodes`` and
        ``memory_limit_mb`` bound each. A limit returns status ``feasible`` with its gap.

    Returns
    -------
    FairestResult

    Examples
    --------
    >>> import numpy as np
    >>> from fairlist import fairest_within
    >>> rng = np.random.default_rng(0)
    >>> X = (rng.random((200, 6)) < 0.4).astype(np.uint8)
    >>> y = ((X[:, 0] | X[:, 1]) ^ (rng.random(200) < 0.15)).astype(int)
    >>> s = rng.random(200) < 0.5
    >>> y = np.where(s & (rng.random(200) < 0.2), 1, y)
    >>> found = fairest_within(X, y, s, epsilon=0.05, lam=0.01, max_length=3, delta=0.02)
    >>> found.status, round(found.unfairness, 4), round(found.objective, 4)
    ('optimal', 0.0001, 0.29)
    >>> print(found.certificate)
    no rule list of at most 3 rules within delta 0.02 of the optimum 0.285 has SP below 0.000100...
    """
    start = time.perf_counter()
    validate_params(
        "fairest_within",
        PARAMETER_CONSTRAINTS,
        {"delta": delta, "max_lists": max_lists, "engine": engine, "method": method},
    )
    problem = prepare_problem(
        "fairest_within",
        X,
        y,
        sensitive_features,
        protected=protected,
        sample_weight=sample_weight,
        binarizer=binarizer,
        metric=metric,
        epsilon=epsilon,
        lam=lam,
        max_length=max_length,
        max_nodes=max_nodes,
        time_limit=time_limit,
        memory_limit_mb=memory_limit_mb,
        start=start,
    )
    return search_fairest(
        problem, float(delta), max_lists=max_lists, engine=engine, method=method, start=start
    )


def search_fairest(
    problem: Problem,
    delta: float,
    *,
    max_lists: int = MAX_LISTS,
    engine: str = "bnb",
    method: str = "auto",
    start: float | None = None,
) -> FairestResult:
    """:func:`fairest_within` on a :class:`~fairlist.solvers.Problem` (after the data are
    prepared); its limits bound the search (``time_limit``: all the steps together)."""
    start = time.perf_counter() if start is None else start
    validate_params("search_fairest", {"method": [Options(METHODS)]}, {"method": method})
    if method == "auto":
        method = "front" if engine == "bnb" else "caps"
    if engine != "bnb" and method != "caps":
        raise InvalidParameterError(
            f"method={method!r} runs a mode of the branch-and-bound core: engine='cpsat' has "
            "method='caps' only"
        )
    if not engine_weights(problem).exact:
        raise DataError(
            "sample_weight: fairest_within needs weights the engine reads exactly (decimals, "
            "simple fractions, integers, totalling at most 2**31 units); these are rounded"
        )
    search = _Search(problem, delta, max_lists, engine, start)
    return {"front": search.run_front, "ceiling": search.run_ceiling}.get(method, search.run)()


class _Search:
    """The steps of :func:`search_fairest` (the module docstring gives the argument)."""

    def __init__(
        self, problem: Problem, delta: float, max_lists: int, engine: str, start: float
    ) -> None:
        self.problem, self.delta, self.max_lists, self.engine = problem, delta, max_lists, engine
        self.start = start
        self.steps: list[dict[str, Any]] = []
        self.best: RuleList | None = None
        self.best_unfairness = math.inf
        self.best_objective = math.inf
        self.refuted: float | None = None  # the largest cap shown empty within delta
        self.tried: set[float] = set()

    # ------------------------------------------------------------------ steps
    def _limited(self, cap: float | None) -> Problem | None:
        """The problem under cap ``cap`` (None: the problem's own) with the time left (None:
        none left)."""
        limits = self.problem.limits
        if limits.time_limit is not None:
            left = float(limits.time_limit) - (time.perf_counter() - self.start)
            if left <= 0:
                return None
            limits = limits.minus(time.perf_counter() - self.start)
        p = self.problem.with_limits(limits)
        if cap is not None:  # a copy with another cap: the data are not validated again
            object.__setattr__(p, "epsilon", float(cap))
        return p

    def _rashomon(self, p: Problem, width: float):
        if self.engine == "cpsat":
            return cpsat_rashomon(p, width, self.max_lists)
        return search_rashomon(p, width, self.max_lists)

    def _record(self, kind: str, cap: float | None, outcome: str, lists: int, t0: float) -> None:
        self.steps.append(
            {
                "kind": kind,
                "cap": cap,
                "outcome": outcome,
                "lists": lists,
                "seconds": time.process_time() - t0,
            }
        )

    def _offer(self, rule_list: RuleList, threshold: float) -> None:
        """A list that may be a witness (step 2): kept when within ``threshold`` and less
        unfair (ties: the lower objective) than the best so far."""
        ev = self.problem.evaluate(rule_list)
        if ev.objective > threshold or not ev.fair:
            return
        if (ev.unfairness, ev.objective) < (self.best_unfairness, self.best_objective):
            self.best, self.best_unfairness, self.best_objective = (
                rule_list,
                ev.unfairness,
                ev.objective,
            )

    def _from_set(self, rs, threshold: float) -> bool:
        """Witnesses from a Rashomon set (its fairest member within ``threshold``); True when
        the set is complete up to the threshold (step 3: the answer is exact)."""
        if len(rs):
            within = int(np.searchsorted(rs.objectives, threshold, side="right"))
            if within:  # every list scored in one pass (no grouping needed for this)
                head = rs.head(within)
                metric = self.problem.metric.short_name
                frame = head.to_frame(columns=["objective", metric])
                self._offer(rs[head.fairest(frame=frame)], threshold)
        return rs.complete_below > threshold

    # ------------------------------------------------------------------ the search
    def run(self) -> FairestResult:
        t0 = time.process_time()
        p = self._limited(None)
        rs = self._rashomon(p, self.delta) if p is not None else None
        if rs is None or not rs.optimum_lower_bound >= rs.optimum:  # not certified
            if rs is not None and math.isinf(rs.optimum) and rs.complete:
                return self._result("infeasible", math.inf)
            self._record("rashomon", self.problem.epsilon, "stopped", len(rs or ()), t0)
            return self._result("unknown", math.inf)
        if math.isinf(rs.optimum):  # certified: no fair list
            return self._result("infeasible", math.inf)
        optimum = rs.optimum
        threshold = optimum + self.delta + SLACK  # the set's membership (fairlist.rashomon)
        self.optimum = optimum
        exact = self._from_set(rs, threshold)
        self._record("rashomon", self.problem.epsilon, "exact" if exact else "cut", len(rs), t0)
        if exact:
            return self._result("optimal", optimum)
        for _ in range(MAX_STEPS):
            cap = self._next_cap()
            if cap is None:
                break
            self.tried.add(cap)
            t0 = time.process_time()
            p = self._limited(cap)
            if p is None:
                break
            res = solve(p, self.engine)
            if res.status is Status.INFEASIBLE or res.lower_bound > threshold:  # step 1
                self.refuted = cap if self.refuted is None else max(self.refuted, cap)
                self._record("optimum", cap, "refuted", 0, t0)
                continue
            if res.rule_list is None or res.objective > threshold:  # not certified either way
                self._record("optimum", cap, "stopped", 0, t0)
                break
            self._offer(res.rule_list, threshold)  # step 2
            if res.status is not Status.OPTIMAL:
                self._record("optimum", cap, "stopped", 1, t0)
                break
            self._record("optimum", cap, "witness", 1, t0)
            # step 3 under this cap, the width T - opt(cap) (a hair more: the members are
            # filtered by T itself, so rounding cannot lose one)
            t0 = time.process_time()
            p = self._limited(cap)
            if p is None:
                break
            rs = self._rashomon(p, max(0.0, threshold - res.objective) + 1e-12)
            certified = rs.optimum_lower_bound >= rs.optimum
            exact = certified and self._from_set(rs, threshold)
            if not certified:
                self._from_set(rs, threshold)
            self._record("rashomon", cap, "exact" if exact else "cut", len(rs), t0)
            if exact:
                return self._result("optimal", optimum)
            if not certified:
                break
        # no list is less unfair than 0: a witness of unfairness 0 is certified as such (the
        # least objective among such lists only when a set reached step 3)
        return self._result("optimal" if self.best_unfairness <= 0 else "feasible", optimum)

    # ------------------------------------------------------------------ the core's modes
    def _list(self, kept, rules, default: int) -> RuleList:
        """A list of the core's codes (antecedent << 1 | prediction, over the kept columns)."""
        return self.problem.rule_list(
            [int(kept[int(r) >> 1]) for r in rules], [int(r) & 1 for r in rules], int(default)
        )

    def _certified(self, raw) -> FairestResult | None:
        """The result when the core's optimum is not certified (or no fair list exists), else
        None, with ``self.optimum`` set."""
        status = raw["status"].name
        if status == "INFEASIBLE":  # completed: no fair list at all
            return self._result("infeasible", math.inf)
        if status != "OPTIMAL":
            return self._result("unknown", math.inf)
        self.optimum = float(raw["objective"])
        return None

    def run_front(self) -> FairestResult:
        """Method ``front``: one search keeping the Pareto front of (objective, unfairness) of
        the Rashomon set (the module docstring; rashomon.hpp gives the argument)."""
        t0 = time.process_time()
        p = self._limited(None)
        if p is None:
            return self._result("unknown", math.inf)
        width = useful_delta(p, self.delta)  # finite (the core's Rashomon mode needs it)
        raw, kept, _ = BnBSolver().solve_rashomon(p, width, None, keep_map=True, front=True)
        n_front = len(raw["rashomon_objectives"])
        outcome = self._certified(raw)
        if outcome is not None:
            self._record("front", self.problem.epsilon, "stopped", n_front, t0)
            return outcome
        threshold = self.optimum + self.delta + SLACK
        starts = raw["rashomon_starts"]
        for i in range(n_front):
            rules = raw["rashomon_rules"][starts[i] : starts[i + 1]]
            self._offer(self._list(kept, rules, raw["rashomon_defaults"][i]), threshold)
        # every list within the threshold was evaluated: the search completed and the store
        # dropped nothing for memory or time (a complete set, as RashomonSet.complete)
        exact = raw["stop_reason"].name == "COMPLETED" and math.isinf(
            float(raw["rashomon_complete_below"])
        )
        self._record("front", self.problem.epsilon, "exact" if exact else "cut", n_front, t0)
        return self._result("optimal" if exact else "feasible", self.optimum)

    def run_ceiling(self) -> FairestResult:
        """Method ``ceiling``: the optimum, then the core's fairest mode under the objective
        ceiling ``T`` (the module docstring; native/src/context.cpp set_fairest)."""
        t0 = time.process_time()
        p = self._limited(None)
        res = solve(p, self.engine) if p is not None else None
        if res is None or res.status not in (Status.OPTIMAL, Status.INFEASIBLE):
            self._record("optimum", self.problem.epsilon, "stopped", 0, t0)
            return self._result("unknown", math.inf)
        if res.status is Status.INFEASIBLE:
            return self._result("infeasible", math.inf)
        self.optimum = res.objective
        self._record("optimum", self.problem.epsilon, "witness", 1, t0)
        threshold = self.optimum + self.delta + SLACK
        self._offer(res.rule_list, threshold)  # the optimum: a first witness
        t0 = time.process_time()
        p = self._limited(None)
        if p is None:
            return self._result("feasible", self.optimum)
        raw, kept = BnBSolver().solve_fairest(p, threshold, initial=res.rule_list)
        if raw["has_solution"]:
            self._offer(self._list(kept, self._rules(raw), raw["default_prediction"]), threshold)
        exact = raw["status"].name == "OPTIMAL"
        self._record("fairest", self.problem.epsilon, "exact" if exact else "stopped", 1, t0)
        return self._result("optimal" if exact else "feasible", self.optimum)

    @staticmethod
    def _rules(raw) -> list[int]:
        pairs = zip(raw["antecedents"], raw["predictions"], strict=True)
        return [int(j) << 1 | int(q) for j, q in pairs]

    def _next_cap(self) -> float | None:
        """The next cap: the best witness's own unfairness when not tried yet (its step 3
        settles the search when that set is small), else the middle of the interval left
        between the largest refuted cap and the best witness; None when nothing is left."""
        hi = self.best_unfairness
        low = 0.0 if self.refuted is None else self.refuted
        if hi not in self.tried:
            return hi
        if hi - low <= RESOLUTION:  # the bisection ends: status feasible with this gap
            return None
        cap = low + (hi - low) / 2
        if (self.refuted is not None and cap <= self.refuted) or cap in self.tried or cap >= hi:
            cap = hi  # the interval is exhausted (floating point)
        return None if cap in self.tried else cap

    def _result(self, status: str, optimum: float) -> FairestResult:
        metric = self.problem.metric.short_name
        if status == "optimal":
            bound = self.best_unfairness
        else:
            bound = 0.0 if self.refuted is None else self.refuted
        if self.best is None:
            bound = math.inf if status == "infeasible" else bound
        stats = {"seconds": time.perf_counter() - self.start, "searches": len(self.steps)}
        return FairestResult(
            rule_list=self.best,
            unfairness=self.best_unfairness if self.best is not None else math.nan,
            objective=self.best_objective if self.best is not None else math.nan,
            status=status,
            unfairness_bound=bound,
            refuted=self.refuted,
            optimum=optimum,
            delta=self.delta,
            max_length=self.problem.max_length,
            metric=metric,
            steps=tuple(self.steps),
            stats=stats,
        )
