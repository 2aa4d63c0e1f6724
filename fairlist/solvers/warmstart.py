"""Warm start: a short CP-SAT run hands its best rule list to the branch-and-bound
(docs/design.md §4, the CP-SAT engine's second job).

The branch-and-bound prunes every prefix whose lower bound reaches the incumbent's objective,
so a good first incumbent shrinks its trie from the start. CP-SAT's large-neighbourhood search
often finds a near-optimal fair rule list within seconds, which is what this module provides.

A user asks for it with ``FairRuleListClassifier(warm_start_engine="cpsat",
warm_start_seconds=5)``, ``BnBSolver(warm_start_engine="cpsat")`` or ``fairlist fit --warm-start
cpsat``: :meth:`BnBSolver.solve <fairlist.solvers.bnb.BnBSolver.solve>` then calls
:func:`warm_started`, which runs CP-SAT (:func:`cpsat_handover`), hands its list over as the
search's ``initial`` incumbent and reports what the search did with it
(``Result.stats["warm_start_cpsat"]``, :func:`outcome`).

Exactness. The handed list is only an incumbent: the branch-and-bound checks that it is fair
and in the searched space (else it is ignored, with a warning) and prunes with its objective, a
valid upper bound on the optimum, so every certificate is the one the search gives without it
(``tests/test_warmstart.py`` checks the certified objective against brute force). Time. The
CP-SAT run is part of the solve: it gets ``seconds``, but at most :data:`WARM_START_SHARE` of
the time limit left when the solve starts, and the branch-and-bound gets what is then left. A
CP-SAT run that finds no list in its time, or fails, hands nothing over (the error is reported
in the stats, with a :class:`WarmStartWarning`), and the search starts as it would without.

The CP-SAT run searches lists of at most ``max_length`` rules: the argument if given, else
``problem.max_length``, else the model's exact bound (see :mod:`fairlist.solvers.cpsat`) capped
at :data:`WARM_START_MAX_LENGTH` — any fair list is a valid incumbent, so the cap only trades
incumbent quality against model size. It uses CP-SAT's default number of workers
(:data:`~fairlist.solvers.cpsat.DEFAULT_NUM_WORKERS`, one) unless told otherwise; on a machine
with many cores, more workers (CP-SAT's parallel portfolio) may find a better incumbent in the
same time.

Any problem CP-SAT solves has an incumbent here: two or more groups, sample weights (with
weights CP-SAT cannot read exactly its list is still fair, see :mod:`fairlist.solvers.cpsat`).
:func:`solve_with_warm_start` also needs the branch-and-bound to accept the problem.
"""

from __future__ import annotations

import copy
import dataclasses
import math
import time
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ..errors import InvalidParameterError
from ..rulelist import RuleList
from .base import (
    DEFAULT_WARM_START_SECONDS,
    MIN_TIME_LEFT,
    Limits,
    Problem,
    Result,
    StopReason,
    check_problem,
    deprecated_option,
)
from .cpsat import DEFAULT_NUM_WORKERS, CPSatSolver, resolve_max_length

__all__ = [
    "DEFAULT_WARM_START_SECONDS",
    "WARM_START_MAX_LENGTH",
    "WARM_START_SHARE",
    "Handover",
    "WarmStartWarning",
    "cpsat_handover",
    "cpsat_incumbent",
    "outcome",
    "solve_with_warm_start",
    "warm_start_seconds",
    "warm_started",
]

#: Longest rule list the warm-start run considers when neither the caller nor the problem says.
WARM_START_MAX_LENGTH = 4

#: The most of the time left that the warm start takes: the certificate search keeps the rest.
WARM_START_SHARE = 0.5

#: Two objectives are the same when they differ by at most this much (verification's tolerance).
_SAME = 1e-9


class WarmStartWarning(UserWarning):
    """The CP-SAT warm start failed; the branch-and-bound ran without it."""


def _cpsat_run(problem: Problem, seconds: float, max_length: int | None, **options: Any) -> Result:
    """CP-SAT alone on ``problem`` for ``seconds`` (``options`` go to :class:`CPSatSolver`)."""
    if not seconds > 0:
        raise InvalidParameterError(f"seconds must be a positive number, got {seconds!r}")
    if max_length is None:
        max_length = problem.max_length
    if max_length is None:
        max_length = min(resolve_max_length(problem, None)[0], WARM_START_MAX_LENGTH)
    # the problem's other limits are the branch-and-bound's
    limited = problem.replace(max_length=max_length, limits=Limits(time_limit=float(seconds)))
    return CPSatSolver(**options).solve(limited)


def cpsat_incumbent(
    problem: Problem,
    seconds: float = 5.0,
    max_length: int | None = None,
    *,
    majority_only: bool = False,
    num_workers: int | None = DEFAULT_NUM_WORKERS,
    seed: int = 0,
    random_seed: int | None = None,
) -> RuleList | None:
    """The best fair rule list CP-SAT finds within ``seconds`` (None if it finds none).

    Parameters
    ----------
    problem : Problem
    seconds : float
        CP-SAT time limit.
    max_length : int, optional
        Longest list searched (see the module docstring for the default).
    majority_only : bool
        Search the majority-label space (use it when the branch-and-bound does, or its warm
        start would be ignored).
    num_workers, seed
        Passed to :class:`~fairlist.solvers.cpsat.CPSatSolver`.
    random_seed
        Deprecated name of ``seed``.
    """
    if random_seed is not None:
        deprecated_option("cpsat_incumbent", "random_seed", "seed=...")
        seed = random_seed
    run = _cpsat_run(
        problem,
        seconds,
        max_length,
        majority_only=majority_only,
        num_workers=num_workers,
        seed=seed,
    )
    return run.rule_list


def solve_with_warm_start(
    problem: Problem,
    seconds: float = 5.0,
    *,
    max_length: int | None = None,
    num_workers: int | None = DEFAULT_NUM_WORKERS,
    seed: int = 0,
    random_seed: int | None = None,
    **bnb_options: Any,
) -> Result:
    """Run CP-SAT for ``seconds``, then the branch-and-bound from its best rule list.

    ``bnb_options`` configure :class:`~fairlist.solvers.bnb.BnBSolver` (``initial`` is set
    here; ``majority_only`` is passed to both engines so that the incumbent lies in the searched
    space). The branch-and-bound obeys ``problem.limits`` and ``problem.max_length``. The
    returned :class:`Result` is the branch-and-bound's, with ``stats["warm_start_cpsat"]``
    (status, stop reason, objective, length bound and seconds of the CP-SAT run) and
    ``stats["total_seconds"]`` added.
    """
    from . import get_solver  # (the registry: bnb.py imports this module)

    if random_seed is not None:
        deprecated_option("solve_with_warm_start", "random_seed", "seed=...")
        seed = random_seed
    if "initial" in bnb_options:
        raise InvalidParameterError(
            "initial is set by solve_with_warm_start; call BnBSolver directly"
        )
    start = time.perf_counter()
    majority_only = bool(bnb_options.get("majority_only", False))
    run = _cpsat_run(
        problem,
        seconds,
        max_length,
        majority_only=majority_only,
        num_workers=num_workers,
        seed=seed,
    )
    cpsat_seconds = time.perf_counter() - start
    result = get_solver("bnb", initial=run.rule_list, **bnb_options).solve(problem)
    stats = dict(result.stats)
    stats["warm_start_cpsat"] = {
        "status": str(run.status),
        "stop_reason": str(run.stop_reason),
        "objective": run.objective,
        "max_length": run.stats["max_length"],
        "seconds": cpsat_seconds,
    }
    stats["total_seconds"] = time.perf_counter() - start
    return dataclasses.replace(result, stats=stats)


# --------------------------------------------------------------------------- the user's warm start
def warm_start_seconds(seconds: float, time_limit: float | None) -> float:
    """The seconds the warm start gets: ``seconds``, but at most :data:`WARM_START_SHARE` of
    ``time_limit`` (the solve's time left; None: no limit), so that the certificate search keeps
    the rest.

    >>> warm_start_seconds(5.0, None), warm_start_seconds(5.0, 60.0), warm_start_seconds(5.0, 4.0)
    (5.0, 5.0, 2.0)
    """
    if time_limit is None:
        return float(seconds)
    return max(min(float(seconds), WARM_START_SHARE * float(time_limit)), MIN_TIME_LEFT)


@dataclass(frozen=True)
class Handover:
    """What a CP-SAT warm start found and hands to the branch-and-bound.

    ``rule_list`` is None when CP-SAT found no fair list in its time (``status`` unknown), proved
    that none of at most ``max_length`` rules exists (infeasible), or failed (``message``).
    """

    rule_list: RuleList | None
    objective: float  # inf without a list
    status: str
    stop_reason: str
    max_length: int | None  # the longest list CP-SAT searched
    seconds: float  # what the run took (building the model included)
    budget: float  # the seconds it was given
    message: str = ""  # why it failed, when it did

    @property
    def length(self) -> int | None:
        return None if self.rule_list is None else self.rule_list.length

    def stats(self) -> dict[str, Any]:
        """The handover as ``Result.stats["warm_start_cpsat"]`` holds it (JSON-ready)."""
        out: dict[str, Any] = {
            "status": self.status,
            "stop_reason": self.stop_reason,
            "objective": self.objective if math.isfinite(self.objective) else None,
            "length": self.length,
            "max_length": self.max_length,
            "seconds": self.seconds,
            "budget_seconds": self.budget,
        }
        if self.message:
            out["message"] = self.message
        return out


def cpsat_handover(
    problem: Problem,
    seconds: float,
    *,
    majority_only: bool = False,
    seed: int = 0,
    num_workers: int | None = DEFAULT_NUM_WORKERS,
    max_length: int | None = None,
) -> Handover:
    """Run CP-SAT on ``problem`` for ``seconds`` and return what it found, never raising for a
    failure of its own: an error of the CP-SAT engine (a model too large for memory, a problem
    it refuses) becomes a handover without a list, its message kept, and a
    :class:`WarmStartWarning`. Ctrl-C is not a failure: CP-SAT returns its best so far with stop
    reason ``interrupted``, which :func:`warm_started` reads."""
    start = time.perf_counter()
    try:
        run = _cpsat_run(
            problem,
            seconds,
            max_length,
            majority_only=majority_only,
            num_workers=num_workers,
            seed=seed,
        )
    except Exception as exc:  # noqa: BLE001 - any failure of the optional first step
        message = f"{type(exc).__name__}: {exc}"
        warnings.warn(
            f"the CP-SAT warm start failed ({message}); the branch-and-bound runs without it",
            WarmStartWarning,
            stacklevel=3,
        )
        return Handover(
            None,
            math.inf,
            "error",
            "error",
            max_length,
            time.perf_counter() - start,
            seconds,
            message,
        )
    return Handover(
        run.rule_list,
        run.objective if run.rule_list is not None else math.inf,
        str(run.status),
        str(run.stop_reason),
        run.stats.get("max_length"),
        time.perf_counter() - start,
        float(seconds),
    )


def outcome(handover: Handover, result: Result) -> str:
    """What the branch-and-bound did with the handed list, in one word:

    ``none`` (CP-SAT handed nothing over), ``ignored`` (the search refused it: unfair or outside
    its space, see ``BnBSolver.initial``), ``beaten`` (its own beam search or a constant list
    started from a better one, ``stats["beam_objective"]``), ``improved`` (the search found a
    better list) or ``kept`` (the search's best is the handed list's objective: certified
    optimal when the status is ``optimal``)."""
    if handover.rule_list is None:
        return "none"
    if result.stats.get("warm_start") == "ignored":
        return "ignored"
    beam = result.stats.get("beam_objective")
    if isinstance(beam, float) and beam < handover.objective - _SAME:
        return "beaten"
    if result.rule_list is not None and result.objective < handover.objective - _SAME:
        return "improved"
    return "kept"


def warm_started(
    solver: Any,
    problem: Problem,
    start: float,
    solve: Callable[[Any, Problem], Result],
) -> Result:
    """``solver`` (a :class:`~fairlist.solvers.bnb.BnBSolver` with ``warm_start_engine="cpsat"``) on
    ``problem``: CP-SAT for its share of the time (:func:`warm_start_seconds`), then
    ``solve(searcher, rest)``, ``searcher`` a copy of ``solver`` whose ``initial`` is CP-SAT's
    list, ``rest`` the problem with the time CP-SAT took taken out of its limit. ``start`` is
    the ``time.perf_counter()`` at which the solve began.

    The progress callback of ``solver`` hears ``{"phase": "warm_start", ...}`` before the run
    (``budget_seconds``) and after it (the handover's ``objective``, ``length``, ``seconds``).
    After a Ctrl-C during the CP-SAT run the branch-and-bound only takes its list (no search),
    and the result's stop reason is ``interrupted``.
    """
    check_problem(problem)
    if solver.initial is not None:
        raise InvalidParameterError(
            "initial and warm_start_engine are two first incumbents; give one (initial=None, or "
            "warm_start_engine=None)"
        )
    budget = warm_start_seconds(solver.warm_start_seconds, _time_left(problem, start))
    progress = solver.progress
    if progress is not None:
        progress({"phase": "warm_start", "engine": "cpsat", "budget_seconds": budget})
    handover = cpsat_handover(
        problem, budget, majority_only=bool(solver.majority_only), seed=int(solver.seed or 0)
    )
    if progress is not None:
        progress({"phase": "warm_start", "engine": "cpsat", "done": True, **handover.stats()})
    interrupted = handover.stop_reason == str(StopReason.INTERRUPTED)
    limits = problem.limits.minus(time.perf_counter() - start)
    if interrupted:  # take the list, search nothing: the user asked to stop
        limits = dataclasses.replace(limits, time_limit=MIN_TIME_LEFT, max_nodes=1)
    searcher = copy.copy(solver)
    searcher.initial, searcher.warm_start_engine = handover.rule_list, None
    result = solve(searcher, problem.with_limits(limits))
    if interrupted:
        result = dataclasses.replace(result, stop_reason=StopReason.INTERRUPTED)
    stats = dict(result.stats)
    stats["warm_start_cpsat"] = {**handover.stats(), "outcome": outcome(handover, result)}
    stats["total_seconds"] = time.perf_counter() - start
    return dataclasses.replace(result, stats=stats)


def _time_left(problem: Problem, start: float) -> float | None:
    """Seconds of ``problem``'s time limit left since ``start`` (None: no limit)."""
    if problem.limits.time_limit is None:
        return None
    return float(problem.limits.time_limit) - (time.perf_counter() - start)
