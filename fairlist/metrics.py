"""Per-group confusion counts and the six unfairness measures of FairCORELS.

Every measure compares the *protected* group with the *unprotected* group through rates
computed from their confusion counts. Conventions, shared with both engines:

* A rate whose denominator is zero is **0** (the reference implementation does the same). For
  example, predictive parity on a group with no positive prediction uses PPV = 0 for that group.
* Equalized odds and conditional use accuracy equality are **sums** of two absolute gaps, as in
  the paper (so they range over [0, 2]); fairlearn's ``equalized_odds_difference`` takes the
  maximum instead.
* A rule list meets a cap ``epsilon`` when ``unfairness <= epsilon + FEASIBILITY_TOL``. The tiny
  tolerance makes ties (an unfairness exactly equal to the cap, such as 1/20 <= 0.05) decided the
  same way by every engine whatever the floating-point rounding; it is far below the gap between
  two attainable unfairness values on data sets of realistic size.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from ._validation import as_binary
from .errors import DataError, InvalidParameterError

__all__ = [
    "FEASIBILITY_TOL",
    "Metric",
    "GroupCounts",
    "ConfusionCounts",
    "confusion_counts",
    "group_counts",
    "unfairness",
    "unfairness_from_counts",
    "statistical_parity",
    "predictive_parity",
    "predictive_equality",
    "equal_opportunity",
    "equalized_odds",
    "conditional_use_accuracy_equality",
    "is_fair",
    "protected_mask",
]

FEASIBILITY_TOL = 1e-9


class Metric(enum.IntEnum):
    """The six unfairness measures. The integer values are shared with the C++ core."""

    STATISTICAL_PARITY = 1
    PREDICTIVE_PARITY = 2
    PREDICTIVE_EQUALITY = 3
    EQUAL_OPPORTUNITY = 4
    EQUALIZED_ODDS = 5
    CONDITIONAL_USE_ACCURACY_EQUALITY = 6

    @property
    def short_name(self) -> str:
        return _SHORT[self]

    @classmethod
    def parse(cls, value: Any) -> Metric:
        """Accept a Metric, its integer, its long name or its short name (SP, PP, PE, EOpp,
        EOdds, CUAE), case-insensitively."""
        if isinstance(value, Metric):
            return value
        if isinstance(value, (int, np.integer)) and not isinstance(value, bool):
            try:
                return cls(int(value))
            except ValueError:
                pass
        if isinstance(value, str):
            key = value.strip().lower().replace("-", "_").replace(" ", "_")
            if key in _ALIASES:
                return _ALIASES[key]
        allowed = ", ".join(sorted({m.name.lower() for m in cls} | set(_SHORT.values())))
        raise InvalidParameterError(
            f"metric={value!r} is not a known unfairness measure; use one of {allowed}"
        )


_SHORT = {
    Metric.STATISTICAL_PARITY: "SP",
    Metric.PREDICTIVE_PARITY: "PP",
    Metric.PREDICTIVE_EQUALITY: "PE",
    Metric.EQUAL_OPPORTUNITY: "EOpp",
    Metric.EQUALIZED_ODDS: "EOdds",
    Metric.CONDITIONAL_USE_ACCURACY_EQUALITY: "CUAE",
}
_ALIASES = {m.name.lower(): m for m in Metric} | {s.lower(): m for m, s in _SHORT.items()}


@dataclass(frozen=True)
class GroupCounts:
    """Confusion counts of one group: true/false positives and negatives."""

    tp: int
    fp: int
    tn: int
    fn: int

    @property
    def n(self) -> int:
        return self.tp + self.fp + self.tn + self.fn

    @staticmethod
    def _rate(num: int, den: int) -> float:
        return num / den if den else 0.0

    @property
    def positive_rate(self) -> float:
        """P(y_pred = 1)."""
        return self._rate(self.tp + self.fp, self.n)

    @property
    def tpr(self) -> float:
        """True positive rate P(y_pred = 1 | y = 1)."""
        return self._rate(self.tp, self.tp + self.fn)

    @property
    def fpr(self) -> float:
        """False positive rate P(y_pred = 1 | y = 0)."""
        return self._rate(self.fp, self.fp + self.tn)

    @property
    def ppv(self) -> float:
        """Positive predictive value P(y = 1 | y_pred = 1)."""
        return self._rate(self.tp, self.tp + self.fp)

    @property
    def npv(self) -> float:
        """Negative predictive value P(y = 0 | y_pred = 0)."""
        return self._rate(self.tn, self.tn + self.fn)


@dataclass(frozen=True)
class ConfusionCounts:
    """Confusion counts of the protected and the unprotected group."""

    protected: GroupCounts
    unprotected: GroupCounts

    def unfairness(self, metric: Metric | str) -> float:
        return unfairness_from_counts(self, metric)


def _gap(a: float, b: float) -> float:
    return abs(a - b)


def unfairness_from_counts(counts: ConfusionCounts, metric: Metric | str) -> float:
    """The unfairness of ``metric`` for the given per-group confusion counts.

    The arithmetic (which rates, in which order) is the same as in the C++ core so that both
    return bit-identical values.
    """
    m = Metric.parse(metric)
    p, u = counts.protected, counts.unprotected
    if m is Metric.STATISTICAL_PARITY:
        return _gap(p.positive_rate, u.positive_rate)
    if m is Metric.PREDICTIVE_PARITY:
        return _gap(p.ppv, u.ppv)
    if m is Metric.PREDICTIVE_EQUALITY:
        return _gap(p.fpr, u.fpr)
    if m is Metric.EQUAL_OPPORTUNITY:
        return _gap(p.tpr, u.tpr)
    if m is Metric.EQUALIZED_ODDS:
        return _gap(p.tpr, u.tpr) + _gap(p.fpr, u.fpr)
    return _gap(p.ppv, u.ppv) + _gap(p.npv, u.npv)


def protected_mask(sensitive_features: Any, protected: Any = None, n_samples: int | None = None):
    """Boolean mask of the protected group, with errors that say what is wrong.

    Parameters
    ----------
    sensitive_features : array-like of shape (n,) or (n, 1)
        The group of each sample.
    protected : scalar, optional
        The value of ``sensitive_features`` that marks the protected group. When omitted,
        ``sensitive_features`` must be boolean or 0/1 with True/1 meaning protected.
    n_samples : int, optional
        Number of rows expected (checked, for a message that gives both numbers).

    Returns
    -------
    ndarray of bool, shape (n,)
    """
    if sensitive_features is None:
        raise DataError(
            "sensitive_features is required: pass the group of each sample to fit "
            "(fit(X, y, sensitive_features=s, protected=value))"
        )
    s = sensitive_features
    if isinstance(s, pd.DataFrame):
        if s.shape[1] != 1:
            raise DataError(
                f"sensitive_features must be a single column; got {s.shape[1]} columns"
            )
        s = s.iloc[:, 0]
    s = np.asarray(s)
    if s.ndim == 2 and s.shape[1] == 1:
        s = s[:, 0]
    if s.ndim != 1:
        raise DataError(f"sensitive_features must be one-dimensional, got shape {s.shape}")
    if n_samples is not None and len(s) != n_samples:
        raise DataError(f"sensitive_features has {len(s)} rows, X has {n_samples}")
    missing = pd.isna(s)
    if np.any(missing):
        raise DataError(
            f"sensitive_features has {int(np.sum(missing))} missing value(s) (NaN/None), first "
            f"at row {int(np.flatnonzero(missing)[0])}; every sample needs a group"
        )
    values = pd.unique(s)
    if len(values) < 2:
        raise DataError(
            f"sensitive_features has a single group ({values[0]!r} for every sample); fairness "
            "compares two groups, so both must occur in the training data"
        )
    if protected is None:
        if s.dtype == bool or set(values.tolist()) <= {0, 1}:
            return s.astype(bool)
        shown = ", ".join(repr(v) for v in sorted(values.tolist(), key=str)[:5])
        raise DataError(
            f"sensitive_features holds the values {shown}; pass protected=<value> to say which "
            "one is the protected group (or pass a boolean mask, True = protected)"
        )
    mask = s == protected
    if not np.any(mask):
        shown = ", ".join(repr(v) for v in sorted(values.tolist(), key=str)[:5])
        raise DataError(f"protected={protected!r} does not occur in sensitive_features ({shown})")
    if np.all(mask):
        raise DataError(
            f"every sample has sensitive_features == protected ({protected!r}); the unprotected "
            "group is empty"
        )
    return np.asarray(mask, dtype=bool)


def confusion_counts(y_true: Any, y_pred: Any, sensitive_features: Any, protected: Any = None):
    """Per-group confusion counts.

    Parameters
    ----------
    y_true, y_pred : array-like of 0/1 or bool, shape (n,)
    sensitive_features : array-like, shape (n,)
        Group of each sample. With ``protected=None`` it must be a boolean or 0/1 mask where
        True means protected; otherwise ``protected`` is the value of the protected group.
    protected : scalar, optional

    Returns
    -------
    ConfusionCounts
    """
    yt = as_binary("y_true", y_true, 1).astype(bool)
    yp = as_binary("y_pred", y_pred, 1).astype(bool)
    g = protected_mask(sensitive_features, protected)
    if not (len(yt) == len(yp) == len(g)):
        raise DataError(
            f"y_true has {len(yt)} rows, y_pred has {len(yp)}, "
            f"sensitive_features has {len(g)}; they must match"
        )
    return ConfusionCounts(protected=group_counts(yt, yp, g), unprotected=group_counts(yt, yp, ~g))


def group_counts(y_true: np.ndarray, y_pred: np.ndarray, mask: np.ndarray) -> GroupCounts:
    """Confusion counts of the samples of ``mask`` (boolean arrays of the same length)."""
    t, p = y_true[mask], y_pred[mask]
    return GroupCounts(
        tp=int(np.count_nonzero(t & p)),
        fp=int(np.count_nonzero(~t & p)),
        tn=int(np.count_nonzero(~t & ~p)),
        fn=int(np.count_nonzero(t & ~p)),
    )


def unfairness(y_true, y_pred, sensitive_features, metric="statistical_parity", protected=None):
    """Unfairness of predictions ``y_pred`` under ``metric`` (see the module docstring)."""
    return confusion_counts(y_true, y_pred, sensitive_features, protected).unfairness(metric)


def _metric_function(metric: Metric):
    def fn(y_true, y_pred, sensitive_features, protected=None) -> float:
        return unfairness(y_true, y_pred, sensitive_features, metric, protected)

    fn.__name__ = metric.name.lower()
    fn.__doc__ = f"{metric.name.replace('_', ' ').capitalize()} ({metric.short_name}) unfairness."
    return fn


statistical_parity = _metric_function(Metric.STATISTICAL_PARITY)
predictive_parity = _metric_function(Metric.PREDICTIVE_PARITY)
predictive_equality = _metric_function(Metric.PREDICTIVE_EQUALITY)
equal_opportunity = _metric_function(Metric.EQUAL_OPPORTUNITY)
equalized_odds = _metric_function(Metric.EQUALIZED_ODDS)
conditional_use_accuracy_equality = _metric_function(Metric.CONDITIONAL_USE_ACCURACY_EQUALITY)


def is_fair(value: float, epsilon: float | None) -> bool:
    """Whether an unfairness ``value`` meets the cap ``epsilon`` (None: no cap)."""
    return epsilon is None or value <= epsilon + FEASIBILITY_TOL
