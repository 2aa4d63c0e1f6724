"""The solver layer: one :class:`Problem`, one :class:`Result`, several engines.

:data:`ENGINES` is the registry: an engine's name, where its class lives (imported on first use,
so ``import fairlist`` stays cheap) and which of its options take the generic search policy and
random seed. Everything that lists engines (the estimator's parameter table, the command line's
``--engine``) reads it; :func:`solve` is the one entry point.
"""

from __future__ import annotations

import inspect
from dataclasses import dataclass
from importlib import import_module
from typing import Any

from .._params import Options, validate_params
from .base import (
    Evaluation,
    Limits,
    Problem,
    Result,
    Solver,
    Status,
    StopReason,
    check_problem,
)

__all__ = [
    "Evaluation",
    "Limits",
    "Problem",
    "Result",
    "Solver",
    "Status",
    "StopReason",
    "ENGINES",
    "ENGINE_NAMES",
    "EngineSpec",
    "SOLVERS",
    "get_solver",
    "solve",
]


@dataclass(frozen=True)
class EngineSpec:
    """An engine of the registry."""

    module: str  # module of the class, relative to fairlist.solvers
    cls: str  # class name
    policy: str | None  # constructor keyword of the search policy (None: no policies)
    seed: str | None  # constructor keyword of the random seed (None: no seed)
    threads: str | None = None  # constructor keyword of the threads of one solve (None: one)

    def load(self) -> type:
        """The engine's class."""
        return getattr(import_module(self.module, __name__), self.cls)

    def options(self) -> set[str]:
        """The keyword options of the engine's constructor."""
        params = inspect.signature(self.load().__init__).parameters.values()
        return {p.name for p in params if p.kind is inspect.Parameter.KEYWORD_ONLY}


#: Engine registry: adding an engine is adding an entry.
ENGINES: dict[str, EngineSpec] = {
    "bnb": EngineSpec(".bnb", "BnBSolver", policy="policy", seed="seed", threads="n_jobs"),
    "cpsat": EngineSpec(".cpsat", "CPSatSolver", policy=None, seed="seed", threads="num_workers"),
}

#: The engine names as a parameter constraint.
ENGINE_NAMES = Options(ENGINES)


def __getattr__(name: str) -> Any:
    if name == "SOLVERS":
        return {engine: spec.load() for engine, spec in ENGINES.items()}
    raise AttributeError(name)


def get_solver(engine: str = "bnb", **options: Any) -> Solver:
    """An engine instance by name (``"bnb"`` or ``"cpsat"``), configured with ``options``."""
    validate_params("solve", {"engine": [ENGINE_NAMES]}, {"engine": engine})
    return ENGINES[engine].load()(**options)


def solve(problem: Problem, engine: str = "bnb", **options: Any) -> Result:
    """Solve ``problem`` with the named engine; ``options`` configure the engine."""
    return get_solver(engine, **options).solve(check_problem(problem))
