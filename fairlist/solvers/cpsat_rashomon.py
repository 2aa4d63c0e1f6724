"""The Rashomon set by CP-SAT: a cross-check of the branch-and-bound's on small problems.

Two solves of the model of :mod:`fairlist.solvers.cpsat_model`, built with ``every_list=True``
(no cut that drops a list for an equivalent or shorter one; each rule still captures a pattern,
as the set's definition asks):

1. minimise the objective: the optimum ``opt`` in the model's integer units
   (``err_coef * errors + len_coef * length``, which is ``scale`` times the objective);
2. drop the objective, add ``err_coef * errors + len_coef * length <= opt + floor((delta +
   1e-9) * scale)`` and enumerate every solution (``enumerate_all_solutions``, one worker).

Auxiliary variables of the fairness cap (the gaps of PP and CUAE, bounded from below only) can
take several values for one list, so the lists read from the solutions are deduplicated. The
model must be the problem itself (exact weights, exact cap, exact objective): otherwise a
ValueError. Exponential in the worst case: for tests and small problems.

Limits: ``time_limit`` covers both solves together; ``max_bytes`` bounds the lists collected
(estimated at :data:`LIST_BYTES` each plus 8 a rule, as Python holds them): the enumeration
stops there, incomplete (``memory_cut``).
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass

from ortools.sat.python import cp_model

from ..errors import DataError
from .base import Problem
from .cpsat_model import build_model, guard_presolve

__all__ = ["CpSatRashomon", "enumerate_rashomon", "LIST_BYTES"]

#: Python's bytes for one collected list besides its rules (three tuples, the set's slot).
LIST_BYTES = 320


@dataclass(frozen=True)
class CpSatRashomon:
    """The lists found (antecedent indices, predictions, default), whether they are all."""

    lists: list[tuple[tuple[int, ...], tuple[int, ...], int]]
    complete: bool
    optimal: bool  # the optimum of step 1 was certified
    memory_cut: bool = False  # max_bytes stopped the enumeration


class _Collect(cp_model.CpSolverSolutionCallback):
    def __init__(self, built, max_lists: int | None, max_bytes: float | None = None) -> None:
        super().__init__()
        self.built, self.max_lists, self.max_bytes = built, max_lists, max_bytes
        self.seen: set[tuple] = set()
        self.cut = self.memory_cut = False
        self.bytes = 0

    def on_solution_callback(self) -> None:
        antecedents, predictions, default = self.built.read(self)
        key = (tuple(antecedents), tuple(predictions), default)
        if key not in self.seen:
            self.seen.add(key)
            self.bytes += LIST_BYTES + 16 * len(antecedents)
        if self.max_lists is not None and len(self.seen) > self.max_lists:
            self.cut = True
            self.stop_search()
        if self.max_bytes is not None and self.bytes > self.max_bytes:
            self.cut = self.memory_cut = True
            self.stop_search()


def enumerate_rashomon(
    problem: Problem,
    max_length: int,
    delta: float,
    max_lists: int | None = None,
    time_limit: float | None = None,
    max_bytes: float | None = None,
) -> CpSatRashomon:
    """Every fair list of at most ``max_length`` rules within ``delta`` of the optimum."""
    deadline = None if time_limit is None else time.perf_counter() + float(time_limit)
    built = build_model(problem, max_length, every_list=True)
    if not (built.exact and built.objective.exact):
        raise DataError(
            "engine='cpsat' enumerates the Rashomon set only where its model is the problem "
            "itself (exact sample weights, cap and length penalty)"
        )
    solver = cp_model.CpSolver()
    solver.parameters.num_workers = 1
    guard_presolve(solver.parameters)
    if time_limit is not None:
        solver.parameters.max_time_in_seconds = float(time_limit)
    status = solver.solve(built.model)
    optimal = status == cp_model.OPTIMAL
    if status == cp_model.INFEASIBLE:
        return CpSatRashomon([], True, True)
    if status not in (cp_model.OPTIMAL, cp_model.FEASIBLE):
        return CpSatRashomon([], False, False)
    optimum = round(solver.objective_value)
    obj, x = built.objective, built.variables
    length = built.max_length - sum(x.unused.values())
    built.model.clear_objective()
    slack = math.floor((delta + 1e-9) * obj.scale)
    built.model.add(obj.err_coef * obj.errors + obj.len_coef * length <= optimum + slack)
    solver = cp_model.CpSolver()
    solver.parameters.enumerate_all_solutions = True
    solver.parameters.num_workers = 1
    guard_presolve(solver.parameters)
    if deadline is not None:  # what the first solve left
        solver.parameters.max_time_in_seconds = max(deadline - time.perf_counter(), 1e-3)
    collect = _Collect(built, max_lists, max_bytes)
    status = solver.solve(built.model, collect)
    # OPTIMAL: every solution was enumerated
    complete = optimal and status == cp_model.OPTIMAL and not collect.cut
    return CpSatRashomon(sorted(collect.seen), complete, optimal, collect.memory_cut)
