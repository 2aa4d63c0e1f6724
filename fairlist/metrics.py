"""Per-group confusion counts and the six unfairness measures of FairCORELS.

Every measure compares groups of samples through rates computed from their confusion counts:
the paper's two groups (protected and unprotected), or any number of groups and their
intersections (:mod:`fairlist.groups`). Each rate's gap is its largest minus its smallest value
over the groups (fairlearn's ``difference(method="between_groups")``); with two groups it is
``|a - b|``, the paper's definition. Conventions, shared with both engines:

* A rate whose denominator is zero is **0** (the reference implementation does the same). For
  example, predictive parity on a group with no positive prediction uses PPV = 0 for that group.
* Equalized odds and conditional use accuracy equality are **sums** of two absolute gaps, as in
  the paper (so they range over [0, 2]); fairlearn's ``equalized_odds_difference`` takes the
  maximum instead.
* With sample weights every count is a sum of weights (integer weights give exactly what
  duplicated rows give).
* A rule list meets a cap ``epsilon`` when ``unfairness <= epsilon + FEASIBILITY_TOL``. The tiny
  tolerance makes ties (an unfairness exactly equal to the cap, such as 1/20 <= 0.05) decided the
  same way by every engine whatever the floating-point rounding; it is far below the gap between
  two attainable unfairness values on data sets of realistic size.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from ._validation import as_binary, named
from .errors import DataError
from .groups import encode_groups
from .metric_table import METRICS, RATES, Metric

__all__ = [
    "FEASIBILITY_TOL",
    "Metric",
    "GroupCounts",
    "ConfusionCounts",
    "confusion_counts",
    "counts_by_group",
    "check_sample_weight",
    "METRIC_RATES",
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


@dataclass(frozen=True)
class GroupCounts:
    """Confusion counts of one group: true/false positives and negatives (sums of sample
    weights when the samples are weighted)."""

    tp: float
    fp: float
    tn: float
    fn: float

    @property
    def n(self) -> float:
        return self.tp + self.fp + self.tn + self.fn

    def rate(self, name: str) -> float:
        """The rate ``name`` of :data:`fairlist.metric_table.RATES` (0 for a zero
        denominator)."""
        r = RATES[name]
        den = sum(getattr(self, c) for c in r.denominator)
        return sum(getattr(self, c) for c in r.numerator) / den if den else 0.0

    @property
    def positive_rate(self) -> float:
        """P(y_pred = 1)."""
        return self.rate("positive_rate")

    @property
    def tpr(self) -> float:
        """True positive rate P(y_pred = 1 | y = 1)."""
        return self.rate("tpr")

    @property
    def fpr(self) -> float:
        """False positive rate P(y_pred = 1 | y = 0)."""
        return self.rate("fpr")

    @property
    def ppv(self) -> float:
        """Positive predictive value P(y = 1 | y_pred = 1)."""
        return self.rate("ppv")

    @property
    def npv(self) -> float:
        """Negative predictive value P(y = 0 | y_pred = 0)."""
        return self.rate("npv")


#: The rates each metric compares across groups (EOdds and CUAE: the sum of two gaps), from
#: :data:`fairlist.metric_table.METRICS`.
METRIC_RATES: dict[Metric, tuple[str, ...]] = {m: info.rates for m, info in METRICS.items()}


class ConfusionCounts:
    """Confusion counts of each group, in group order (code 0 first).

    ``ConfusionCounts(protected, unprotected)`` is the paper's two-group case; ``protected`` and
    ``unprotected`` name its two groups.
    """

    __slots__ = ("groups", "names")

    def __init__(self, *groups: GroupCounts, names: Sequence[str] | None = None) -> None:
        if len(groups) < 2:
            raise DataError(f"confusion counts need at least two groups, got {len(groups)}")
        if names is None:
            names = [f"group {i}" for i in range(len(groups))]
        names = tuple(names)
        if len(names) != len(groups):
            raise DataError(f"{len(names)} group names for {len(groups)} groups")
        object.__setattr__(self, "groups", tuple(groups))
        object.__setattr__(self, "names", names)

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError("ConfusionCounts is immutable")

    def __eq__(self, other: object) -> bool:
        return isinstance(other, ConfusionCounts) and self.groups == other.groups

    def __hash__(self) -> int:
        return hash(self.groups)

    def __repr__(self) -> str:
        inner = ", ".join(f"{n!r}: {g}" for n, g in zip(self.names, self.groups, strict=True))
        return f"ConfusionCounts({inner})"

    @property
    def protected(self) -> GroupCounts:
        """The first group (the protected one of a two-group problem)."""
        return self.groups[0]

    @property
    def unprotected(self) -> GroupCounts:
        """The second group of a two-group problem."""
        if len(self.groups) != 2:
            raise DataError(f"'unprotected' is defined for two groups, not {len(self.groups)}")
        return self.groups[1]

    def rates(self, metric: Metric | str) -> pd.DataFrame:
        """Each group's rates that ``metric`` compares (one column per rate, one row a group)."""
        columns = METRIC_RATES[Metric.parse(metric)]
        return pd.DataFrame(
            {c: [getattr(g, c) for g in self.groups] for c in columns}, index=list(self.names)
        )

    def unfairness(self, metric: Metric | str) -> float:
        return unfairness_from_counts(self, metric)


def unfairness_from_counts(counts: ConfusionCounts, metric: Metric | str) -> float:
    """The unfairness of ``metric`` for the given per-group confusion counts.

    Each rate's gap is its largest minus its smallest value over the groups (with two groups,
    ``|a - b|`` exactly); EOdds and CUAE add their two gaps, in the same order as the C++ core,
    so that both return bit-identical values.
    """
    total = 0.0
    for rate in METRIC_RATES[Metric.parse(metric)]:
        values = [getattr(g, rate) for g in counts.groups]
        total += max(values) - min(values)
    return total


def protected_mask(sensitive_features: Any, protected: Any = None, n_samples: int | None = None):
    """Boolean mask of the protected group of a two-group split, with errors that say what is
    wrong.

    Parameters
    ----------
    sensitive_features : array-like of shape (n,) or (n, 1)
        The group of each sample.
    protected : scalar, optional
        The value of ``sensitive_features`` that marks the protected group (compared with all
        the others together). When omitted, ``sensitive_features`` must be boolean or 0/1 with
        True/1 meaning protected, or hold exactly two values.
    n_samples : int, optional
        Number of rows expected (checked, for a message that gives both numbers).

    Returns
    -------
    ndarray of bool, shape (n,)
    """
    groups = encode_groups(sensitive_features, protected, n_samples)
    if groups.k != 2:
        shown = ", ".join(repr(n) for n in groups.names[:5])
        raise DataError(
            f"sensitive_features holds {groups.k} groups ({shown}); pass protected=<value> to "
            "compare one group with all the others (or use the groups themselves)"
        )
    return groups.codes == 0


def confusion_counts(
    y_true: Any,
    y_pred: Any,
    sensitive_features: Any,
    protected: Any = None,
    sample_weight: Any = None,
) -> ConfusionCounts:
    """Per-group confusion counts.

    Parameters
    ----------
    y_true, y_pred : array-like of 0/1 or bool, shape (n,)
    sensitive_features : array-like of shape (n,) or (n, c)
        The group of each sample (see :func:`fairlist.groups.encode_groups`: a mask, one
        column of any number of groups, or several columns for their intersections).
    protected : scalar, optional
        Compare this group with all the others together.
    sample_weight : array-like of shape (n,), optional
        Non-negative weights: every count is then a sum of weights.

    Returns
    -------
    ConfusionCounts
    """
    yt = as_binary("y_true", y_true, 1).astype(bool)
    yp = as_binary("y_pred", y_pred, 1).astype(bool)
    groups = encode_groups(sensitive_features, protected)
    if not (len(yt) == len(yp) == len(groups.codes)):
        raise DataError(
            f"y_true has {len(yt)} rows, y_pred has {len(yp)}, "
            f"sensitive_features has {len(groups.codes)}; they must match"
        )
    weights = check_sample_weight(sample_weight, len(yt))
    return counts_by_group(yt, yp, groups.codes, groups.names, weights)


def counts_by_group(
    y_true: np.ndarray,
    y_pred: np.ndarray,
    codes: np.ndarray,
    names: Sequence[str],
    sample_weight: np.ndarray | None = None,
) -> ConfusionCounts:
    """Confusion counts of each group code ``0 .. len(names)-1`` (boolean labels; counts are
    integers without weights, sums of weights with them)."""
    k = len(names)
    cell = codes * 4 + y_true * 2 + y_pred  # (group, label, prediction) as one index
    if sample_weight is None:
        table = np.bincount(cell, minlength=4 * k).reshape(k, 4).tolist()
    else:
        table = np.bincount(cell, weights=sample_weight, minlength=4 * k).reshape(k, 4).tolist()
    # columns: (y=0, pred=0) tn, (0, 1) fp, (1, 0) fn, (1, 1) tp
    return ConfusionCounts(
        *(GroupCounts(tp=r[3], fp=r[1], tn=r[0], fn=r[2]) for r in table), names=names
    )


def check_sample_weight(sample_weight: Any, n_samples: int) -> np.ndarray | None:
    """``sample_weight`` as float64, or None for unit weights (None or every weight 1).

    Raises a :class:`~fairlist.errors.DataError` naming the argument for a wrong length and for
    negative, NaN or infinite weights, when every weight is 0, and when their sum overflows.
    """
    if sample_weight is None:
        return None
    name = named("sample_weight", sample_weight)
    w = np.asarray(sample_weight)
    if w.ndim != 1:
        raise DataError(f"{name} must be one-dimensional, got shape {w.shape}")
    if len(w) != n_samples:
        raise DataError(f"{name} has {len(w)} values, X has {n_samples} rows")
    if w.dtype == bool or w.dtype.kind not in "iuf":
        text = pd.to_numeric(pd.Series(w), errors="coerce").isna().to_numpy() & ~pd.isna(w)
        where = f"; row {int(np.flatnonzero(text)[0])} holds {w[text][0]!r}" if text.any() else ""
        raise DataError(f"{name} must hold numbers, got dtype {w.dtype}{where}")
    w = w.astype(np.float64)
    for bad, what in ((np.isnan(w), "NaN"), (np.isinf(w), "infinite"), (w < 0, "negative")):
        if bad.any():
            raise DataError(
                f"{name} has {int(bad.sum())} {what} values (first at row "
                f"{int(np.flatnonzero(bad)[0])}); weights must be finite and >= 0"
            )
    if not w.any():
        raise DataError("sample_weight is zero for every sample; at least one must be positive")
    with np.errstate(over="ignore"):
        total = w.sum()
    if not np.isfinite(total):
        raise DataError("sample_weight sums to more than the largest float; scale the weights down")
    return None if np.all(w == 1.0) else w


def unfairness(
    y_true,
    y_pred,
    sensitive_features,
    metric="statistical_parity",
    protected=None,
    sample_weight=None,
):
    """Unfairness of predictions ``y_pred`` under ``metric`` (see the module docstring)."""
    counts = confusion_counts(y_true, y_pred, sensitive_features, protected, sample_weight)
    return counts.unfairness(metric)


def _metric_function(metric: Metric):
    def fn(y_true, y_pred, sensitive_features, protected=None, sample_weight=None) -> float:
        return unfairness(y_true, y_pred, sensitive_features, metric, protected, sample_weight)

    fn.__name__ = metric.name.lower()
    info = metric.info
    fn.__doc__ = (
        f"{metric.name.replace('_', ' ').capitalize()} ({metric.short_name}) unfairness: the "
        + (
            f"gap of {info.rates[0]}"
            if len(info.rates) == 1
            else f"sum of the gaps of {' and '.join(info.rates)} (fairlearn takes their maximum)"
        )
        + " over the groups."
    )
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
