"""The solver layer: one :class:`Problem`, one :class:`Result`, several engines.

:data:`ENGINES` is the registry: an engine's name, where its class lives (imported on first use,
so ``import fairlist`` stays cheap) and which of its options take the generic search policy and
random seed. Everything that lists engines (the estimator's parameter table, the command line's
``--engine``) reads it; :func:`solve` is the one entry point.

What an engine can do is asked of the registry, never of its name: each engine class declares
the :data:`CAPABILITIES` it has as class attributes (``BnBSolver.canonical_threads = True``),
and :meth:`EngineSpec.supports` / :func:`require_capability` read them (an attribute left out
reads False). A new engine that declares nothing is run the plain way: no policies, one thread
a fit, no memory cap of its own.

>>> ENGINES["bnb"].supports("canonical_threads"), ENGINES["cpsat"].supports("supports_policies")
(True, False)
"""

from __future__ import annotations

import inspect
from dataclasses import dataclass
from importlib import import_module
from typing import Any

from .._params import Options, validate_params
from ..errors import InvalidParameterError
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
    "CAPABILITIES",
    "require_capability",
    "SOLVERS",
    "get_solver",
    "solve",
]


#: What an engine class may declare it can do (class attributes, True or False; absent: False).
CAPABILITIES: dict[str, str] = {
    "supports_policies": "takes a search policy (its constructor keyword: EngineSpec.policy)",
    "canonical_threads": (
        "one solve runs over many threads (EngineSpec.threads) and a certified result is the "
        "same list for every thread count, so a sweep may give a fit the cores left idle"
    ),
    "default_memory_cap": (
        "with memory_limit_mb=None it caps its own memory (the class's "
        "default_memory_limit_mb(), in MiB), which a parallel sweep divides among its workers"
    ),
    "accepts_warm_start": (
        "takes warm_start_engine='cpsat' and warm_start_seconds: a CP-SAT run hands it its first "
        "incumbent (fairlist.solvers.warmstart)"
    ),
}


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

    def supports(self, capability: str) -> bool:
        """Whether the engine's class declares ``capability`` (one of :data:`CAPABILITIES`)."""
        if capability not in CAPABILITIES:
            known = ", ".join(CAPABILITIES)
            raise ValueError(f"unknown engine capability {capability!r}; one of {known}")
        return bool(getattr(self.load(), capability, False))


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


def require_capability(engine: str, capability: str, asked: str) -> None:
    """An :class:`~fairlist.errors.InvalidParameterError` naming the engine and what was
    ``asked`` (e.g. ``"policy='curious'"``) when ``engine`` lacks ``capability``."""
    if not ENGINES[engine].supports(capability):
        raise InvalidParameterError(
            f"{asked}: engine={engine!r} does not support it ({CAPABILITIES[capability]})"
        )


def get_solver(engine: str = "bnb", **options: Any) -> Solver:
    """An engine instance by name (``"bnb"`` or ``"cpsat"``), configured with ``options``."""
    validate_params("solve", {"engine": [ENGINE_NAMES]}, {"engine": engine})
    return ENGINES[engine].load()(**options)


def solve(problem: Problem, engine: str = "bnb", **options: Any) -> Result:
    """Solve ``problem`` with the named engine; ``options`` configure the engine."""
    return get_solver(engine, **options).solve(check_problem(problem))
