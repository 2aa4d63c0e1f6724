"""Parameter constraints, declared once per owner and checked at its edge (scikit-learn's style).

An owner (:class:`~fairlist.solvers.Problem`, :class:`~fairlist.solvers.Limits`, each engine,
the estimator, the :class:`~fairlist.binarize.Binarizer`) declares a table ``{name: [constraint,
...]}``; a value is valid when any constraint of its list accepts it, ``None`` in a list accepting
``None``. :func:`validate_params` raises :class:`~fairlist.errors.InvalidParameterError` naming the
first bad parameter, its value and what is allowed::

    The 'lam' parameter of Problem must be a real number in [0, inf); got -1.

A parameter that several owners share (``lam`` in the estimator and in the problem, say) is
declared once and the other tables refer to that declaration.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

import numpy as np

from .errors import InvalidParameterError

__all__ = [
    "Constraint",
    "Interval",
    "Options",
    "InstanceOf",
    "Satisfies",
    "BOOLEAN",
    "WARM_START_ENGINE",
    "WARM_START_SECONDS",
    "INT32_MAX",
    "INT64_MAX",
    "validate_params",
]

#: The largest values of the C++ and CP-SAT integer types a parameter crosses into: an integer
#: parameter declares the bound of the type it ends up in, so that a value beyond it is an
#: InvalidParameterError naming the parameter, not an OverflowError from the binding.
INT64_MAX = 2**63 - 1
INT32_MAX = 2**31 - 1


class Constraint:
    """One kind of allowed value: :meth:`accepts` and a description for the error message."""

    def accepts(self, value: Any) -> bool:
        raise NotImplementedError

    def __str__(self) -> str:
        raise NotImplementedError


class Interval(Constraint):
    """A number of a kind in a range.

    Parameters
    ----------
    kind : numbers.Integral or numbers.Real
        Integral accepts Python and numpy integers; Real also floats (not NaN). Neither accepts
        a bool.
    left, right : float or None
        The bounds (None: unbounded on that side; an unbounded side admits infinity).
    closed : {"left", "right", "both", "neither"}
        Which bounds belong to the interval.
    """

    def __init__(
        self, kind: type, left: float | None, right: float | None, *, closed: str = "both"
    ) -> None:
        if kind not in (numbers.Integral, numbers.Real):
            raise TypeError(f"kind must be numbers.Integral or numbers.Real, got {kind!r}")
        if closed not in ("left", "right", "both", "neither"):
            raise ValueError(f"closed must be left, right, both or neither, got {closed!r}")
        self.kind, self.left, self.right, self.closed = kind, left, right, closed

    def accepts(self, value: Any) -> bool:
        if isinstance(value, (bool, np.bool_)) or not isinstance(value, self.kind):
            return False
        if math.isnan(value):
            return False
        if self.left is not None:
            if value < self.left or (value == self.left and self.closed in ("right", "neither")):
                return False
        if self.right is not None:
            if value > self.right or (value == self.right and self.closed in ("left", "neither")):
                return False
        return True

    def __str__(self) -> str:
        what = "an integer" if self.kind is numbers.Integral else "a real number"
        low = self.closed in ("left", "both")
        high = self.closed in ("right", "both")
        left, right = _bound_text(self.left), _bound_text(self.right)
        if self.right is None:
            return f"{what} {'>=' if low else '>'} {left}" if self.left is not None else what
        if self.left is None:
            return f"{what} {'<=' if high else '<'} {right}"
        return f"{what} in {'[' if low else '('}{left}, {right}{']' if high else ')'}"


def _bound_text(value: float | None) -> str:
    """An interval's bound for a message: integers in full (2**63 - 1 is 9223372036854775807,
    not 9.22337e+18), reals in short form."""
    if isinstance(value, numbers.Integral):
        return str(value)
    return f"{value:g}" if value is not None else ""


class Options(Constraint):
    """One of a fixed set of names (strings, compared exactly)."""

    def __init__(self, values: Iterable[str]) -> None:
        self.values = tuple(values)

    def accepts(self, value: Any) -> bool:
        return isinstance(value, str) and value in self.values

    def __str__(self) -> str:
        shown = [repr(v) for v in self.values]
        return shown[0] if len(shown) == 1 else f"one of {', '.join(shown)}"


class InstanceOf(Constraint):
    """An instance of a type (or of one of several types)."""

    def __init__(self, kind: type | tuple[type, ...], description: str | None = None) -> None:
        self.kind = kind
        kinds = kind if isinstance(kind, tuple) else (kind,)
        self.description = description or " or ".join(f"a {k.__name__}" for k in kinds)

    def accepts(self, value: Any) -> bool:
        return isinstance(value, self.kind)

    def __str__(self) -> str:
        return self.description


class Satisfies(Constraint):
    """Any value for which ``predicate(value)`` is true (for kinds the other constraints miss)."""

    def __init__(self, predicate: Callable[[Any], bool], description: str) -> None:
        self.predicate, self.description = predicate, description

    def accepts(self, value: Any) -> bool:
        try:
            return bool(self.predicate(value))
        except (TypeError, ValueError):
            return False

    def __str__(self) -> str:
        return self.description


#: True or False (numpy's bool too).
BOOLEAN = InstanceOf((bool, np.bool_), "True or False")

#: A count of threads or workers, joblib's way: 1 .. 1024, or -1 for every core, -2 for all but
#: one, and so on (never 0). Declared once: the estimator's and BnBSolver's ``n_jobs``, a
#: sweep's workers (``cross_validated_front(n_jobs=)``) and the Rashomon set (through the
#: estimator's table) refer to this list.
N_JOBS = [Interval(numbers.Integral, -1024, -1), Interval(numbers.Integral, 1, 1024)]

#: Which engine finds the branch-and-bound's first incumbent: None (its own beam search only)
#: or ``"cpsat"`` (a short CP-SAT run, :mod:`fairlist.solvers.warmstart`). Declared once: the
#: estimator's ``warm_start_engine`` and :class:`~fairlist.solvers.bnb.BnBSolver`'s refer to
#: this list.
WARM_START_ENGINE = [None, Options(("cpsat",))]

#: Seconds the warm start may take (taken out of the solve's time limit; finite: a warm start
#: that never ends would never start the certificate). Declared once, as ``WARM_START_ENGINE``.
WARM_START_SECONDS = [Interval(numbers.Real, 0, 1e7, closed="right")]


def _describe(constraint: Constraint | None) -> str:
    return "None" if constraint is None else str(constraint)


def validate_params(
    owner: str,
    constraints: Mapping[str, Sequence[Constraint | None]],
    params: Mapping[str, Any],
) -> None:
    """Check every parameter of ``params`` that ``constraints`` declares.

    Raises
    ------
    InvalidParameterError
        Naming the first parameter no constraint of its list accepts.
    """
    for name, allowed in constraints.items():
        if name not in params:
            continue
        value = params[name]
        if any(value is None if c is None else c.accepts(value) for c in allowed):
            continue
        described = [_describe(c) for c in allowed]
        text = (
            described[0]
            if len(described) == 1
            else (f"{', '.join(described[:-1])} or {described[-1]}")
        )
        raise InvalidParameterError(
            f"The {name!r} parameter of {owner} must be {text}; got {value!r}."
        )
