"""The outcome of a solve: its :class:`Status` and the :class:`StopReason` that ended it.

Both engines report them in :class:`~fairlist.solvers.Result`, and a model file records them
(:mod:`fairlist.model_file` reads them from here, below the solvers).
"""

from __future__ import annotations

import enum

__all__ = ["Status", "StopReason"]


class Status(str, enum.Enum):
    """Outcome of a solve, mirroring CP-SAT's statuses."""

    OPTIMAL = "optimal"  # search finished: the rule list is optimal (in the searched space)
    FEASIBLE = "feasible"  # a limit stopped the search: best fair rule list found so far
    INFEASIBLE = "infeasible"  # proved: no rule list (in the searched space) meets epsilon
    UNKNOWN = "unknown"  # a limit stopped the search before any fair rule list was found

    def __str__(self) -> str:
        return self.value


class StopReason(str, enum.Enum):
    """Why a search stopped."""

    COMPLETED = "completed"
    NODE_LIMIT = "node_limit"
    TIME_LIMIT = "time_limit"
    MEMORY_LIMIT = "memory_limit"
    INTERRUPTED = "interrupted"
    GAP_LIMIT = "gap_limit"  # the best list is within the requested gap of the lower bound
    MAX_LISTS = "max_lists"  # max_lists cut a Rashomon set (the search itself completed)

    def __str__(self) -> str:
        return self.value
