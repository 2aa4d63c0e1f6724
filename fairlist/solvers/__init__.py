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


def _engine_class(engine: str) -> type:
    """The class of a named engine, imported on first use so ``import fairlist`` stays cheap."""
    from importlib import import_module

    if engine not in _ENGINES:
        known = ", ".join(sorted(_ENGINES))
        raise ValueError(f"engine={engine!r} is not known; use one of {known}")
    module, cls = _ENGINES[engine]
    return getattr(import_module(module, __name__), cls)


def __getattr__(name: str) -> Any:
    if name == "SOLVERS":
        return {engine: _engine_class(engine) for engine in _ENGINES}
    raise AttributeError(name)


def get_solver(engine: str = "bnb", **options: Any) -> Solver:
    """An engine instance by name (``"bnb"`` or ``"cpsat"``), configured with ``options``."""
    return _engine_class(engine)(**options)


def solve(problem: Problem, engine: str = "bnb", **options: Any) -> Result:
    """Solve ``problem`` with the named engine; ``options`` configure the engine."""
    if not isinstance(problem, Problem):
        raise TypeError(f"problem must be a fairlist Problem, got {type(problem).__name__}")
    return get_solver(engine, **options).solve(problem)
