"""The errors fairlist raises on purpose.

Every error that a user's input can cause derives from :class:`FairlistError`, so an application
(the ``fairlist`` command among them) catches exactly those and lets a bug surface as one. Each
also derives from the built-in exception a Python or scikit-learn user would expect
(``ValueError``, ``TypeError``, ``KeyError``), so ``except ValueError`` keeps working.
"""

from __future__ import annotations

from typing import Any

__all__ = [
    "FairlistError",
    "InvalidParameterError",
    "DataError",
    "MissingColumnError",
    "ModelFileError",
    "InfeasibleError",
    "LengthPenaltyWarning",
    "TimeLimitError",
]


class FairlistError(Exception):
    """Base class of the errors a user's input can cause (bad data, bad parameter, no fair list)."""


class InvalidParameterError(FairlistError, ValueError, TypeError):
    """A parameter has a value its constraints do not allow (the message names it).

    Like scikit-learn's error of the same name it is both a ``ValueError`` and a ``TypeError``:
    a value of the wrong type and a value out of range are the same mistake to the caller.
    """


class DataError(FairlistError, ValueError):
    """The data cannot be used as given (shape, values, missing groups; the message says which)."""


class MissingColumnError(DataError, KeyError):
    """A column the model or the command needs is not in the table."""

    def __str__(self) -> str:  # KeyError would print the message in quotes
        return str(self.args[0]) if self.args else ""


class ModelFileError(DataError):
    """A saved model or rule list cannot be read: not JSON, another format, a newer version, or
    a field that breaks the schema (the message names the file and the field's JSON path; see
    :mod:`fairlist.model_file`)."""


class InfeasibleError(FairlistError, ValueError):
    """No rule list meets the fairness constraint (proved, or none found before a limit).

    ``result`` holds the engine's :class:`~fairlist.solvers.Result` (its ``status`` says whether
    infeasibility was proved, ``infeasible``, or a limit stopped the search first, ``unknown``).
    """

    def __init__(self, message: str, result: Any = None) -> None:
        super().__init__(message)
        self.result = result


class LengthPenaltyWarning(UserWarning):
    """The length penalty ``lam`` decided the answer: the rule list found is the constant one,
    although a longer fair list is more accurate on the training data. A smaller ``lam``
    (the message suggests one) lets the longer list win (see
    :func:`fairlist.length_penalty.check_length_penalty`)."""


class TimeLimitError(InfeasibleError):
    """The time limit ran out before the search began: binarizing the table took it all (the
    message says how far it got). Like a search stopped before any fair list (status
    ``unknown``), there is no rule list; ``fairlist fit`` exits with the same code, 3."""
