"""What a fitted rule list does to each group of a data split: the confusion counts, the five
rates with their confidence intervals, the unfairness of the model's metric with its interval,
and, on a held-out split, whether the cap holds within that interval.

The counts are the estimator's own (the model predicts, the groups are encoded as ``fit``
encodes them, :func:`fairlist.groups.encode_groups`), so the training unfairness printed here is
the ``unfairness_`` the search certified. The intervals are :mod:`fairlist.report.intervals`'.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from ..errors import DataError
from ..groups import encode_groups
from ..metric_table import METRICS, RATES
from ..metrics import FEASIBILITY_TOL, ConfusionCounts, GroupCounts, check_sample_weight
from ..sensitive import split_sensitive
from .intervals import gap_interval, wilson

__all__ = ["Estimate", "GroupAudit", "SplitAudit", "audit_split", "CELLS"]

#: The confusion cells, in the order the tables show them.
CELLS = ("tp", "fp", "tn", "fn")


@dataclass(frozen=True)
class Estimate:
    """A rate (or a gap) and its confidence interval (NaN ends: no row to estimate it from)."""

    value: float
    low: float
    high: float

    @property
    def known(self) -> bool:
        return not math.isnan(self.low)

    def text(self, digits: int = 3) -> str:
        """``0.410 [0.393, 0.427]``, or the value alone when there is no interval."""
        if not self.known:
            return f"{self.value:.{digits}f} (no rows)"
        return f"{self.value:.{digits}f} [{self.low:.{digits}f}, {self.high:.{digits}f}]"


@dataclass
class GroupAudit:
    """One group on one split: its size, confusion counts and rates."""

    name: str
    n: float
    counts: dict[str, float]
    rates: dict[str, Estimate]
    #: the sample size of each rate's denominator (rows, or Kish's effective size when weighted)
    sizes: dict[str, float]


@dataclass
class SplitAudit:
    """One data split (training or test) audited under the model's metric and cap."""

    split: str
    source: str
    n_rows: int
    weighted: bool
    accuracy: float
    groups: list[GroupAudit]
    #: each compared rate's gap over the groups, with its interval
    gaps: dict[str, Estimate]
    unfairness: Estimate
    metric: str
    epsilon: float | None
    level: float
    #: True: the whole interval is at or under the cap; False: the whole interval is above
    #: it; None: the interval holds the cap (or there is no cap)
    holds: bool | None = None
    verdict: str = ""
    notes: list[str] = field(default_factory=list)


def _labels(clf: Any, y: Any, split: str) -> np.ndarray:
    """``y`` as booleans (True: ``classes_[1]``), refusing labels the model does not know."""
    values = np.asarray(y.to_numpy() if isinstance(y, pd.Series) else y)
    if values.ndim != 1:
        raise DataError(f"y of the {split} data must be one column, got shape {values.shape}")
    classes = np.asarray(clf.classes_)
    known = np.isin(values, classes)
    if not known.all():
        odd = pd.unique(values[~known])[:3].tolist()
        raise DataError(
            f"y of the {split} data holds {odd} (first of {int((~known).sum())} rows), which are "
            f"not the model's classes {classes.tolist()}"
        )
    return values == classes[1]


def _cell_sums(
    truth: np.ndarray, pred: np.ndarray, codes: np.ndarray, k: int, w: np.ndarray | None
) -> tuple[np.ndarray, np.ndarray]:
    """Per group and cell (tn, fp, fn, tp), the sum of weights and of squared weights."""
    cell = codes * 4 + truth.astype(np.int64) * 2 + pred.astype(np.int64)
    if w is None:
        sums = np.bincount(cell, minlength=4 * k).astype(float).reshape(k, 4)
        return sums, sums
    sums = np.bincount(cell, weights=w, minlength=4 * k).reshape(k, 4)
    squares = np.bincount(cell, weights=w * w, minlength=4 * k).reshape(k, 4)
    return sums, squares


_CELL_COLUMN = {"tn": 0, "fp": 1, "fn": 2, "tp": 3}


def _rate(
    sums: np.ndarray, squares: np.ndarray, name: str, level: float
) -> tuple[Estimate, float, float]:
    """One group's rate ``name``, its interval, and the (k, n) its interval was made of."""
    r = RATES[name]
    num = sum(sums[_CELL_COLUMN[c]] for c in r.numerator)
    den = sum(sums[_CELL_COLUMN[c]] for c in r.denominator)
    den2 = sum(squares[_CELL_COLUMN[c]] for c in r.denominator)
    if den <= 0:
        return Estimate(0.0, math.nan, math.nan), 0.0, 0.0
    p = num / den
    n_eff = den * den / den2 if den2 > 0 else 0.0
    low, high = wilson(p * n_eff, n_eff, level)
    return Estimate(p, low, high), p * n_eff, n_eff


def _model_columns(clf: Any, X: Any) -> Any:
    """The columns of the DataFrame ``X`` the model reads, by name, when it has them all: the
    table audited may hold others beside them (the sensitive columns, a sample weight, a column
    the fit dropped), which ``predict`` would refuse as columns it was not fitted on. Otherwise
    ``X`` as it is (``predict`` names what is missing)."""
    fitted = getattr(clf, "feature_names_in_", None)
    if fitted is None or not isinstance(X, pd.DataFrame):
        return X
    names = [str(c) for c in fitted]
    return X[names] if set(names) <= set(X.columns) else X


def audit_split(
    clf: Any,
    X: Any,
    y: Any,
    sensitive_features: Any,
    protected: Any = None,
    sample_weight: Any = None,
    *,
    split: str = "training",
    source: str = "",
    level: float = 0.95,
) -> SplitAudit:
    """Audit the fitted ``clf`` on one split (``X``, ``y``, ``sensitive_features`` as ``fit``
    takes them: values, or names of columns of ``X``).

    >>> import numpy as np
    >>> from fairlist import FairRuleListClassifier
    >>> X = np.array([[1, 0], [1, 1], [0, 1], [0, 0], [1, 0], [0, 1]])
    >>> y, s = [1, 1, 0, 0, 1, 0], [1, 1, 1, 0, 0, 0]
    >>> clf = FairRuleListClassifier(lam=0.01).fit(X, y, sensitive_features=s)
    >>> a = audit_split(clf, X, y, s)
    >>> [g.name for g in a.groups], a.unfairness.value == clf.unfairness_
    (['protected', 'unprotected'], True)
    """
    _, groups, _ = split_sensitive(X, sensitive_features, allow=True)
    n = len(X)
    encoded = encode_groups(groups, protected, n)
    truth = _labels(clf, y, split)
    if len(truth) != n:
        raise DataError(f"the {split} data: X has {n} rows, y has {len(truth)}")
    pred = clf.predict(_model_columns(clf, X)) == np.asarray(clf.classes_)[1]
    weights = check_sample_weight(sample_weight, n)
    k = len(encoded.names)
    sums, squares = _cell_sums(truth, pred, encoded.codes, k, weights)
    info = METRICS[clf.metric_]
    # a metric of two gaps: each at 1 - alpha/2, so that their sum holds at 1 - alpha
    gap_level = level if len(info.rates) == 1 else 1 - (1 - level) / 2
    audits, pairs = [], {r: [] for r in RATES}
    for g, name in enumerate(encoded.names):
        rates, sizes = {}, {}
        for r in RATES:
            rates[r], _, sizes[r] = _rate(sums[g], squares[g], r, level)
            _, k_gap, n_gap = _rate(sums[g], squares[g], r, gap_level)
            pairs[r].append((k_gap, n_gap))
        counts = {c: float(sums[g][_CELL_COLUMN[c]]) for c in CELLS}
        audits.append(GroupAudit(str(name), float(sums[g].sum()), counts, rates, sizes))
    confusion = ConfusionCounts(
        *(GroupCounts(**a.counts) for a in audits), names=[a.name for a in audits]
    )
    gaps = {}
    for r in info.rates:
        values = [a.rates[r].value for a in audits]
        gaps[r] = Estimate(max(values) - min(values), *gap_interval(pairs[r], gap_level))
    value = confusion.unfairness(clf.metric_)
    ends = [(g.low, g.high) for g in gaps.values()]
    unfair = Estimate(value, sum(e[0] for e in ends), sum(e[1] for e in ends))
    total = float(sums.sum())
    correct = float(sums[:, 0].sum() + sums[:, 3].sum())
    audit = SplitAudit(
        split=split,
        source=source,
        n_rows=n,
        weighted=weights is not None,
        accuracy=correct / total if total else math.nan,
        groups=audits,
        gaps=gaps,
        unfairness=unfair,
        metric=info.short_name,
        epsilon=clf.epsilon,
        level=level,
    )
    audit.holds, audit.verdict = cap_verdict(audit)
    if k > 2:
        audit.notes.append(
            f"With {k} groups the gap's interval is the Bonferroni bound from each group's "
            "interval (conservative)."
        )
    if weights is not None:
        audit.notes.append(
            "Weighted rows: each interval uses Kish's effective sample size in place of the "
            "row count."
        )
    names = {a.name for a in audits}
    fitted = {str(g) for g in getattr(clf, "group_names_", ())}
    if fitted and names != fitted:
        audit.notes.append(
            f"The groups here ({', '.join(sorted(names))}) are not the training groups "
            f"({', '.join(sorted(fitted))})."
        )
    return audit


def cap_verdict(audit: SplitAudit) -> tuple[bool | None, str]:
    """Whether the cap holds on the split within the unfairness interval, in words."""
    eps, u = audit.epsilon, audit.unfairness
    pct = f"{audit.level:.0%}"
    if eps is None:
        return None, f"No cap was set: the {audit.metric} unfairness is {u.text()}."
    if not u.known:
        return None, "There are too few rows to tell."
    if u.high <= eps + FEASIBILITY_TOL:
        return True, (
            f"The cap holds: the whole {pct} interval of the {audit.metric} unfairness, "
            f"{u.text()}, is at or under the cap {eps:g}."
        )
    if u.low > eps + FEASIBILITY_TOL:
        return False, (
            f"The cap is broken: even the {pct} interval's lower end ({u.low:.3f}) is above the "
            f"cap {eps:g} (unfairness {u.text()})."
        )
    side = "under" if u.value <= eps + FEASIBILITY_TOL else "above"
    return None, (
        f"Undecided: the unfairness {u.value:.3f} is {side} the cap {eps:g}, but its {pct} "
        f"interval [{u.low:.3f}, {u.high:.3f}] holds the cap; this data cannot tell."
    )
