"""The estimator's ``verbose`` lines: fit's phases and the search's progress, on stderr.

``FairRuleListClassifier(verbose=1)`` says when binarizing starts, when the search is built,
how the search goes every :data:`VERBOSE_INTERVAL` seconds (:class:`ProgressLog`, the engine's
progress callback) and how the fit ended. The command line has its own live displays; these are
the plain lines a script or a notebook shows.

>>> progress_text({"seconds": 2.0, "nodes_expanded": 1500, "best_objective": 0.3,
...                "lower_bound": 0.25})
'2.0 s, 1,500 nodes, best 0.300000, bound 0.250000, gap 0.050000'
>>> phase_text({"phase": "binarizing", "seconds": 0.5, "rows": 300, "columns": 2})
'binarizing 300 rows x 2 columns (0.5 s into fit)'
"""

from __future__ import annotations

import math
import sys
import time
from collections.abc import Mapping
from typing import Any

from .solvers import Result

__all__ = [
    "VERBOSE_INTERVAL",
    "ProgressLog",
    "phase_text",
    "progress_text",
    "result_info",
    "say",
    "warm_start_text",
]


#: Seconds between two progress lines of ``verbose`` (the engines call back more often).
VERBOSE_INTERVAL = 5.0


def say(line: str) -> None:
    """One line of ``verbose`` output, on stderr (a notebook shows it under the cell)."""
    print(line, file=sys.stderr, flush=True)


def result_info(result: Result) -> dict[str, Any]:
    """A result's numbers under the keys of the engines' progress dicts."""
    best = result.objective if result.rule_list is not None else math.inf
    return {"best_objective": best, "lower_bound": result.lower_bound}


def progress_text(info: Mapping[str, Any]) -> str:
    """The numbers of a progress dict (either engine's keys) as one line."""
    parts = [f"{float(info.get('seconds', 0.0)):.1f} s"]
    if "nodes_expanded" in info:
        parts.append(f"{int(info['nodes_expanded']):,} nodes")
    best, lower = info.get("best_objective"), info.get("lower_bound")
    if isinstance(best, (int, float)) and math.isfinite(best):
        parts.append(f"best {best:.6f}")
        if isinstance(lower, (int, float)) and math.isfinite(lower):
            parts.append(f"bound {lower:.6f}, gap {max(0.0, best - lower):.6f}")
    else:
        parts.append("no fair list yet")
    warm = info.get("warm_start_cpsat")  # a result's stats: what the search did with it
    if isinstance(warm, Mapping) and warm.get("outcome"):
        parts.append(f"CP-SAT warm start {warm['outcome']}")
    return ", ".join(parts)


def warm_start_text(info: Mapping[str, Any]) -> str:
    """A CP-SAT warm start's dict (the ``warm_start`` phase, or ``stats["warm_start_cpsat"]``;
    see :func:`fairlist.solvers.warmstart.warm_started`) as one line.

    >>> warm_start_text({"phase": "warm_start", "budget_seconds": 5.0})
    'CP-SAT warm start: up to 5.0 s'
    >>> warm_start_text({"objective": 0.31, "length": 2, "status": "feasible", "seconds": 5.0,
    ...                  "outcome": "improved"})
    'CP-SAT warm start: objective 0.310000, 2 rules (feasible, 5.0 s); the search improved on it'
    """
    if "status" not in info:
        return f"CP-SAT warm start: up to {float(info.get('budget_seconds', 0.0)):.1f} s"
    took = f"{info.get('status')}, {float(info.get('seconds', 0.0)):.1f} s"
    objective = info.get("objective")
    if objective is None:
        text = f"CP-SAT warm start: no list ({took})"
        if info.get("message"):
            text += f": {info['message']}"
    else:
        text = (
            f"CP-SAT warm start: objective {float(objective):.6f}, {info.get('length')} rules "
            f"({took})"
        )
    said = {
        "kept": "the search kept it",
        "improved": "the search improved on it",
        "beaten": "the beam search started from a better list",
        "ignored": "the search ignored it",
    }
    if info.get("outcome") in said:
        text += f"; {said[info['outcome']]}"
    return text


def phase_text(info: Mapping[str, Any]) -> str:
    """A phase dict of ``fit`` (see ``FairRuleListClassifier._report_phase``) as one line."""
    phase, seconds = info.get("phase"), float(info.get("seconds", 0.0))
    if phase == "warm_start":
        return warm_start_text(info)
    if phase == "binarizing":
        what = f"binarizing {info.get('rows', 0):,} rows x {info.get('columns', 0):,} columns"
    elif phase == "building":
        what = f"{info.get('rows', 0):,} rows, {info.get('antecedents', 0):,} antecedents"
        if "made" in info:
            what += f" (kept of {info['made']:,} made)"
        if "raw_columns" in info:
            what += f" from {info['raw_columns']:,} raw columns"
        what += ", building the search"
    else:
        what = f"{phase}"
    return f"{what} ({seconds:.1f} s into fit)"


class ProgressLog:
    """The engine's progress callback under ``verbose``: a line on stderr at the first call and
    then at most every :data:`VERBOSE_INTERVAL` seconds; a callback of ``engine_options`` is
    called too, every time."""

    def __init__(self, chained: Any = None) -> None:
        self.chained, self.last = chained, -math.inf

    def __call__(self, info: dict[str, Any]) -> None:
        if self.chained is not None:
            self.chained(info)
        if "phase" in info:  # the engine's own phases (the CP-SAT warm start): each one said
            say(f"fit: {phase_text(info)}")
            return
        now = time.monotonic()
        if now - self.last >= VERBOSE_INTERVAL:
            self.last = now
            say(f"searching: {progress_text(info)}")
