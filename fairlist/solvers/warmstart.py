"""Warm start: a short CP-SAT run hands its best rule list to the branch-and-bound.

The branch-and-bound prunes every prefix whose lower bound reaches the incumbent's objective,
so a good first incumbent shrinks its trie from the start. CP-SAT's large-neighbourhood search
often finds a near-optimal fair rule list within seconds, which is what this module provides.

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

import dataclasses
import time
from typing import Any

from ..errors import InvalidParameterError
from ..rulelist import RuleList
from .base import Limits, Problem, Result, deprecated_option
from .cpsat import DEFAULT_NUM_WORKERS, CPSatSolver, resolve_max_length

__all__ = ["WARM_START_MAX_LENGTH", "cpsat_incumbent", "solve_with_warm_start"]

#: Longest rule list the warm-start run considers when neither the caller nor the problem says.
WARM_START_MAX_LENGTH = 4


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
    from .bnb import BnBSolver

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
    result = BnBSolver(initial=run.rule_list, **bnb_options).solve(problem)
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
