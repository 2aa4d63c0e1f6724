"""The CP-SAT engine: :class:`CPSatSolver` solves the exact OR-Tools model of fair rule lists
of bounded length that :mod:`fairlist.solvers.cpsat_model` builds (its docstring states the
model).

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

import math
import numbers
import threading
import time
import warnings
from collections.abc import Callable
from typing import Any, ClassVar

import numpy as np
from ortools.sat.python import cp_model

from .._params import BOOLEAN, INT32_MAX, InstanceOf, Interval, Satisfies, validate_params
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
from .cpsat_data import aggregate, integer_weights
from .cpsat_fairness import fairness_cap
from .cpsat_model import (
    CPSatModel,
    build_model,
    canonical_rules,
    guard_presolve,
    resolve_max_length,
)
from .exact import floor_fraction, lambda_fraction, length_cost
from .runtime import Deadline, MemoryWatch, ModelBuildTimeout, run_interruptibly
from .weights import bound_from_above, with_fair_constant

__all__ = [
    "CPSatSolver",
    "DEFAULT_NUM_WORKERS",
    "LongModelWarning",
    "stop_reason",
    # the model's names, where they were before the model had its own modules
    "CPSatModel",
    "MemoryWatch",
    "aggregate",
    "build_model",
    "canonical_rules",
    "fairness_cap",
    "floor_fraction",
    "integer_weights",
    "lambda_fraction",
    "length_cost",
    "resolve_max_length",
]

#: CP-SAT search workers when the caller does not say: one, so that a solve that completes
#: returns the same rule list on every machine and every run (see :class:`CPSatSolver`).
DEFAULT_NUM_WORKERS = 1


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
        errors,
        float(model_errors / weights.scale),
        rel_tol=1e-9,
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

    def tick() -> None:
        if watch is not None and watch():
            solver.stop_search()

    return run_interruptibly(
        lambda: solver.solve(model, callback), solver.stop_search, tick=tick, name="fairlist-cpsat"
    )


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
#: ... or of at least this many capture literals (``K`` times the antecedents the patterns
#: satisfy, ``K * sum |S[p]|``): few patterns, each satisfying many antecedents. Adult with
#: ``max_length=3`` (4,125 patterns satisfying 72 of 212 antecedents on average: 45,612
#: constraints, 886,000 capture literals, 1.8 million terms) spent 8.5 s of a 6.9 s search limit
#: in presolve (probing, max-clique, clauses to exactly-one) and returned 4 s late; with the
#: lighter presolve, 0.4 s late (a machine shared by several jobs).
LIGHT_PRESOLVE_LITERALS = 250_000


def wants_light_presolve(built: Any) -> bool:
    """Whether the built model is large enough for :func:`light_presolve` (its size only, never
    the time limit: see there)."""
    literals = built.data.max_length * int(np.count_nonzero(built.data.patterns))
    return (
        built.stats["n_constraints"] >= LIGHT_PRESOLVE_CONSTRAINTS
        or literals >= LIGHT_PRESOLVE_LITERALS
    )


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


def _warn_if_long(problem: Problem, K: int, source: str) -> None:
    """A :class:`LongModelWarning` when no max_length was given and the bound is long."""
    if source in ("lambda_bound", "n_antecedents") and K > LONG_MODEL:
        warnings.warn(
            f"CP-SAT models lists of up to {K} rules (the bound {source} implies) over "
            f"{problem.n_antecedents} antecedents: a large model that may find no list "
            "within the time limit; give max_length (2-4 is typical) for a fast one",
            LongModelWarning,
            stacklevel=3,  # the caller of solve, as when _solve warned itself
        )


def _rounded_lower_bound(
    problem: Problem,
    built: CPSatModel,
    solver: cp_model.CpSolver,
    code: Any,
    K: int,
    source: str,
) -> float:
    """The rounded model's own certificate (an objective in the rounded weights); a list
    longer than a lambda bound K has objective >= lam (K + 1) (see resolve_max_length)."""
    rounded = math.inf
    if code != cp_model.INFEASIBLE:
        rounded = built.objective.lower_bound(solver.best_objective_bound)
    if source == "lambda_bound":
        rounded = min(rounded, problem.lam * (K + 1))
    return rounded


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
        self.progress(
            {
                "best_objective": self.best,
                "lower_bound": self.bound,
                "solutions": self.solutions,
                "seconds": self.last - self.start,
            }
        )

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
    #: Capabilities the engine registry reads (fairlist.solvers.CAPABILITIES): no policies,
    #: its workers are not reproducible, no memory cap of its own.
    supports_policies = canonical_threads = default_memory_cap = False

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
        start = time.perf_counter()
        result = self._solve(problem)
        # rounded weights under a cap: a second solve with the cap raised by the margin bounds
        # the true optimum from below (fairlist.solvers.weights.bound_from_above)
        return bound_from_above(problem, result, self._solve, start)

    def _solve(self, problem: Problem) -> Result:
        """One solve of ``problem`` (see :meth:`solve`)."""
        check_problem(problem)
        self._validate()
        start = time.perf_counter()
        # The time limit covers the whole solve: building the model, then CP-SAT's search.
        time_limit = self._time_limit(problem)
        memory_limit = problem.limits.memory_limit_mb
        watch = None if memory_limit is None else MemoryWatch(memory_limit)
        deadline = Deadline(None if time_limit is None else start + float(time_limit), watch)
        K, source = resolve_max_length(problem, self.max_length)
        _warn_if_long(problem, K, source)
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
        if wants_light_presolve(built):
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
        if not built.data.sample_weights.exact and built.epsilon_exact:
            stats["rounded_lower_bound"] = _rounded_lower_bound(
                problem, built, solver, code, K, source
            )
        if not built.exact:
            # The model's cap is conservative, or its weights rounded: its optimum and its
            # infeasibility prove nothing about the problem.
            status = {Status.OPTIMAL: Status.FEASIBLE, Status.INFEASIBLE: Status.UNKNOWN}.get(
                status, status
            )
        result = self._result(problem, built, solver, status, stop, stats)
        if not built.data.sample_weights.exact:  # a fair constant list beats "no list"
            result = with_fair_constant(problem, result)
        return result

    def _time_limit(self, problem: Problem) -> float | None:
        return self.time_limit if self.time_limit is not None else problem.limits.time_limit

    def _out_of_time(
        self,
        problem: Problem,
        K: int,
        source: str,
        stopped: ModelBuildTimeout,
        time_limit: float | None,
        start: float,
    ) -> Result:
        """The result when building the model alone used up the time (or memory) limit: no
        list, status unknown, stop reason time_limit (memory_limit), and ``stats["message"]``
        saying so."""
        seconds = time.perf_counter() - start
        section = stopped.section
        reason = StopReason.TIME_LIMIT if stopped.limit == "time" else StopReason.MEMORY_LIMIT
        limit = (
            f"the time limit of {time_limit:.3g} s"
            if stopped.limit == "time"
            else f"the memory limit of {problem.limits.memory_limit_mb:.6g} MB"
        )
        message = (
            f"the CP-SAT model build did not fit in {limit} (stopped in its {section} after "
            f"{seconds:.1f} s, {problem.n_samples} samples, {problem.n_antecedents} "
            f"antecedents, max_length {K}); raise the {stopped.limit} limit, lower max_length, "
            "or use engine='bnb'"
        )
        stats = {
            "message": message,
            "build_seconds": seconds,
            "solve_seconds": 0.0,
            "seconds": seconds,
            "max_length": K,
            "max_length_source": source,
            "num_workers": self.num_workers,
            "build_stopped_in": section,
        }
        space = "majority" if self.majority_only else "full"
        return Result.no_list(Status.UNKNOWN, reason, self.name, space, 0.0, stats)

    def _new_solver(
        self,
        problem: Problem,
        scale: int,
        time_limit: float | None = None,
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
        guard_presolve(params)  # a CP-SAT presolve step drops lists (see guard_presolve)
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
            return Result.no_list(status, stop, self.name, space, bound, stats)

        antecedents, predictions, dflt = built.read(solver)
        rule_list = problem.rule_list(antecedents, predictions, dflt)
        ev = problem.evaluate(rule_list)
        model_errors = int(round(solver.value(built.objective.errors)))
        if (
            not ev.fair
            or not _errors_agree(problem, built, ev.errors, model_errors)
            or (ev.length != len(antecedents))
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
            status=status,
            rule_list=rule_list,
            objective=ev.objective,
            accuracy=ev.accuracy,
            unfairness=ev.unfairness,
            lower_bound=lower,
            stop_reason=stop,
            engine=self.name,
            search_space=space,
            stats=stats,
        )
