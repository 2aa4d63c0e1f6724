"""The solver layer: one :class:`Problem`, one :class:`Result`, several engines.

``SOLVERS`` maps an engine name to its class; :func:`solve` is the one entry point.
"""

from __future__ import annotations

from typing import Any

from .base import Evaluation, Limits, Problem, Result, Solver, Status, StopReason

__all__ = [
    "Evaluation", "Limits", "Problem", "Result", "Solver", "Status", "StopReason",
    "SOLVERS", "get_solver", "solve",
]


_ENGINES = {"bnb": (".bnb", "BnBSolver"), "cpsat": (".cpsat", "CPSatSolver")}


def _registry() -> dict[str, type]:
    """Engine name -> class, imported lazily so that ``import fairlist`` stays cheap."""
    from importlib import import_module

    return {
        name: getattr(import_module(module, __name__), cls)
        for name, (module, cls) in _ENGINES.items()
    }


def __getattr__(name: str) -> Any:
    if name == "SOLVERS":
        return _registry()
    raise AttributeError(name)


def get_solver(engine: str = "bnb", **options: Any) -> Solver:
    """An engine instance by name (``"bnb"`` or ``"cpsat"``), configured with ``options``."""
    registry = _registry()
    if engine not in registry:
        known = ", ".join(sorted(registry))
        raise ValueError(f"engine={engine!r} is not known; use one of {known}")
    return registry[engine](**options)


def solve(problem: Problem, engine: str = "bnb", **options: Any) -> Result:
    """Solve ``problem`` with the named engine; ``options`` configure the engine."""
    if not isinstance(problem, Problem):
        raise TypeError(f"problem must be a fairlist Problem, got {type(problem).__name__}")
    return get_solver(engine, **options).solve(problem)
