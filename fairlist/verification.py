"""Certify an optimum twice: run both exact engines on one problem and compare.

The branch-and-bound and the CP-SAT model share nothing but the :class:`Problem`, so when both
finish and report the same optimal objective (within 1e-9), or both prove infeasibility, the
answer is very likely right. Both search the same space: rule lists of at most ``max_length``
rules, each rule and the default free to predict either label (or both restricted to the
majority label with ``majority_only=True``).

Examples
--------
>>> import numpy as np
>>> from fairlist.solvers import Problem
>>> X = np.array([[1, 0], [1, 1], [0, 1], [0, 0]], dtype=np.uint8)
>>> p = Problem(X, [1, 1, 0, 0], [True, False, True, False], lam=0.01)
>>> verify(p, max_length=2).agree
True
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass
from typing import Any

from ._params import validate_params
from .errors import InvalidParameterError
from .solvers import ENGINES
from .solvers.base import (
    MAX_LENGTH,
    Limits,
    Problem,
    Result,
    Status,
    StopReason,
    check_problem,
)
from .solvers.cpsat import resolve_max_length

__all__ = ["VerifyReport", "verify", "OBJECTIVE_TOL"]

#: Two objectives agree when they differ by at most this much (the project-wide convention).
OBJECTIVE_TOL = 1e-9


@dataclass(frozen=True)
class VerifyReport:
    """What :func:`verify` found.

    Attributes
    ----------
    agree : bool
        Both engines finished and agree: the same optimal objective (within 1e-9), or both
        proved that no rule list meets epsilon.
    conclusive : bool
        Both engines finished (statuses optimal or infeasible); when False, ``agree`` is False
        and ``message`` says which engine stopped on a limit.
    disagree : bool
        The engines contradict each other: both finished with different answers, or one
        engine's proof (its optimum, or infeasibility) is beaten by a fair list the other found
        before a limit stopped it. Not ``agree`` and not ``disagree`` (and not ``interrupted``):
        inconclusive, a limit stopped an engine before either was shown (``fairlist verify``
        exits 6 then, 4 on a disagreement).
    bnb, cpsat : Result or None
        Each engine's result, with its rule list; None for an engine that Ctrl-C kept from
        running (or stopped before it had a result).
    max_length : int
        The length bound both engines searched.
    message : str
        One line for people.
    interrupted : bool
        Ctrl-C (or SIGTERM under :class:`~fairlist.interrupts.InterruptSignals`) stopped the
        verification: the engine running then returned its best so far (stop reason
        ``interrupted``) and the one not yet started did not run.
    """

    agree: bool
    conclusive: bool
    bnb: Result | None
    cpsat: Result | None
    max_length: int
    message: str
    interrupted: bool = False
    disagree: bool = False

    def summary(self) -> str:
        """A multi-line report: the verdict, then each engine's result."""
        lines = [self.message]
        for name, result in (("bnb", self.bnb), ("cpsat", self.cpsat)):
            lines += ["", f"[{name}]", result.summary() if result is not None else NOT_RUN_TEXT]
        return "\n".join(lines)


#: What the report says of an engine that an interrupt kept from running.
NOT_RUN_TEXT = "not run (interrupted before it had a result)"


def _split_options(options: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """Route each engine option to the engine(s) that accept it."""
    bnb_names, cpsat_names = ENGINES["bnb"].options(), ENGINES["cpsat"].options()
    reserved = {"max_length", "time_limit", "initial", "hint"}
    bnb_opts, cpsat_opts = {}, {}
    for name, value in options.items():
        if name in reserved:
            raise InvalidParameterError(f"{name} cannot be passed to verify as an engine option")
        if name not in bnb_names | cpsat_names:
            known = ", ".join(sorted((bnb_names | cpsat_names) - reserved))
            raise InvalidParameterError(
                f"{name}={value!r} is not an option of either engine; known: {known}"
            )
        if name in bnb_names:
            bnb_opts[name] = value
        if name in cpsat_names:
            cpsat_opts[name] = value
    return bnb_opts, cpsat_opts


def _verdict(bnb: Result, cpsat: Result) -> tuple[bool, bool, bool, str]:
    """(agree, conclusive, disagree, message): see :class:`VerifyReport`."""
    done = (Status.OPTIMAL, Status.INFEASIBLE)
    if bnb.status not in done or cpsat.status not in done:
        waiting = [r.engine for r in (bnb, cpsat) if r.status not in done]
        # A finished engine's optimum must still not beat the other's fair list.
        for opt, other in ((bnb, cpsat), (cpsat, bnb)):
            if opt.status is Status.OPTIMAL and other.rule_list is not None:
                if other.objective < opt.objective - OBJECTIVE_TOL:
                    return (
                        False,
                        False,
                        True,
                        (
                            f"DISAGREE: {other.engine} found objective {other.objective!r} below "
                            f"{opt.engine}'s 'optimal' {opt.objective!r}"
                        ),
                    )
            if opt.status is Status.INFEASIBLE and other.rule_list is not None:
                return (
                    False,
                    False,
                    True,
                    (
                        f"DISAGREE: {opt.engine} proved infeasibility but {other.engine} found a "
                        f"fair rule list"
                    ),
                )
        return (
            False,
            False,
            False,
            (
                f"inconclusive: {' and '.join(waiting)} stopped before finishing "
                f"({', '.join(f'{r.engine} {r.status}, {r.stop_reason}' for r in (bnb, cpsat))})"
            ),
        )
    if bnb.status is Status.INFEASIBLE and cpsat.status is Status.INFEASIBLE:
        return True, True, False, "agree: both engines prove that no rule list meets epsilon"
    if bnb.status is not cpsat.status:
        return False, True, True, f"DISAGREE: bnb is {bnb.status}, cpsat is {cpsat.status}"
    diff = abs(bnb.objective - cpsat.objective)
    if diff <= OBJECTIVE_TOL:
        message = f"agree: both engines prove the optimal objective {bnb.objective!r}"
        return True, True, False, message
    return (
        False,
        True,
        True,
        (
            f"DISAGREE: optimal objectives differ by {diff:.3g} "
            f"(bnb {bnb.objective!r}, cpsat {cpsat.objective!r})"
        ),
    )


def verify(
    problem: Problem,
    max_length: int | None = None,
    time_limit: float | None = None,
    **engine_options: Any,
) -> VerifyReport:
    """Solve ``problem`` with both exact engines and report whether they agree.

    Parameters
    ----------
    problem : Problem
    max_length : int, optional
        Length bound for both engines. Default: ``problem.max_length``, else the CP-SAT model's
        exact bound (from lambda and the best fair constant rule list, else the number of
        antecedents; see :mod:`fairlist.solvers.cpsat`).
    time_limit : float, optional
        Seconds per engine (default: ``problem.limits.time_limit``).
    **engine_options
        Options of :class:`~fairlist.solvers.bnb.BnBSolver` and/or
        :class:`~fairlist.solvers.cpsat.CPSatSolver`, each routed to the engine that accepts it
        (``majority_only`` goes to both; ``policy`` to bnb; ``num_workers`` to cpsat).

    Returns
    -------
    VerifyReport
    """
    from .solvers.bnb import BnBSolver
    from .solvers.cpsat import CPSatSolver

    check_problem(problem)
    validate_params(
        "verify",
        {"max_length": MAX_LENGTH, "time_limit": Limits.PARAMETER_CONSTRAINTS["time_limit"]},
        {"max_length": max_length, "time_limit": time_limit},
    )
    bnb_opts, cpsat_opts = _split_options(engine_options)
    if max_length is not None:
        K = min(int(max_length), problem.n_antecedents)
    else:
        K, _source = resolve_max_length(problem, None)
    limits = problem.limits
    if time_limit is not None:
        limits = dataclasses.replace(limits, time_limit=float(time_limit))  # the rest kept
    same = problem.replace(max_length=K, limits=limits)
    # One Ctrl-C stops the verification: the engine it reaches returns its best so far (or,
    # caught here, had none yet), and CP-SAT does not start after an interrupted bnb.
    bnb: Result | None = None
    cpsat: Result | None = None
    try:
        bnb = BnBSolver(**bnb_opts).solve(same)
        if bnb.stop_reason is not StopReason.INTERRUPTED:
            cpsat = CPSatSolver(**cpsat_opts).solve(same)
    except KeyboardInterrupt:
        pass
    results = [r for r in (bnb, cpsat) if r is not None]
    interrupted = any(r.stop_reason is StopReason.INTERRUPTED for r in results)
    if bnb is None or cpsat is None:
        had = "; ".join(
            f"{name} {r.status} ({r.stop_reason})" if r is not None else f"{name} not run"
            for name, r in (("bnb", bnb), ("cpsat", cpsat))
        )
        return VerifyReport(False, False, bnb, cpsat, K, f"interrupted: {had}", True)
    agree, conclusive, disagree, message = _verdict(bnb, cpsat)
    if not math.isfinite(bnb.objective) and not math.isfinite(cpsat.objective) and not agree:
        message += " (neither engine found a fair rule list)"
    return VerifyReport(
        agree=agree,
        conclusive=conclusive,
        bnb=bnb,
        cpsat=cpsat,
        max_length=K,
        message=message,
        interrupted=interrupted,
        disagree=disagree,
    )
