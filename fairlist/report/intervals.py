"""Confidence intervals for the rates a report shows: Wilson's score interval for one group's
rate, Newcombe's hybrid score interval for the difference of two groups' rates, and from them
an interval for a metric's unfairness (the gap, or the sum of two gaps, over any number of
groups).

Why these. A group's rate is a proportion ``k / n`` of rows; Wilson's interval keeps its
coverage near the nominal level for small ``n`` and for rates near 0 or 1, where the textbook
``p ± z sqrt(p(1-p)/n)`` collapses to a point (Brown, Cai and DasGupta 2001). Newcombe's
method 10 (1998) combines the two groups' Wilson intervals into one for ``p1 - p2`` and is the
usual companion. The standard library's :class:`statistics.NormalDist` gives the quantile: no
SciPy needed.

How the unfairness interval is made (:func:`gap_interval`):

* two groups, one rate: the unfairness is ``|p1 - p2|``; Newcombe's interval ``[l, u]`` for
  ``p1 - p2`` becomes ``[l, u]`` when ``l >= 0``, ``[-u, -l]`` when ``u <= 0``, else
  ``[0, max(-l, u)]`` (the image of the interval under the absolute value);
* ``k > 2`` groups: the gap is ``max_i p_i - min_j p_j``. Each group's Wilson interval at level
  ``1 - alpha / k`` (Bonferroni: all ``k`` hold together with probability ``>= 1 - alpha``)
  gives ``[max(0, max_i l_i - min_j u_j), max_i u_i - min_j l_j]``, which holds whenever the
  ``k`` intervals do: conservative, and said so in the report;
* a metric of two gaps (EOdds, CUAE): each gap's interval at level ``1 - alpha / 2``, and the
  sum of the ends (Bonferroni again).

Weighted rows. A rate of weighted rows is a ratio of sums of weights; its interval uses Kish's
effective sample size ``(sum w)^2 / sum w^2`` in place of ``n`` (equal to ``n`` for unit
weights, smaller when a few rows weigh much).

>>> lo, hi = wilson(8, 10)
>>> round(lo, 4), round(hi, 4)
(0.4902, 0.9433)
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from statistics import NormalDist

__all__ = ["wilson", "newcombe", "gap_interval", "z_value"]


def z_value(level: float) -> float:
    """The two-sided normal quantile of ``level`` (1.959... for 0.95)."""
    if not 0.0 < level < 1.0:
        raise ValueError(f"level must be in (0, 1), got {level!r}")
    return NormalDist().inv_cdf(0.5 + level / 2.0)


def wilson(k: float, n: float, level: float = 0.95) -> tuple[float, float]:
    """Wilson's score interval for a proportion of ``k`` successes in ``n`` trials (``n`` may
    be an effective sample size; ``(nan, nan)`` when ``n`` is 0: no row, no rate).

    >>> [round(v, 4) for v in wilson(0, 20)]
    [0.0, 0.1611]
    """
    if n <= 0:
        return math.nan, math.nan
    z = z_value(level)
    p = min(max(k / n, 0.0), 1.0)
    z2 = z * z
    centre = (p + z2 / (2 * n)) / (1 + z2 / n)
    half = z / (1 + z2 / n) * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n))
    # at p = 0 (p = 1) the lower (upper) end is 0 (1) exactly; the formula leaves a rounding
    low = 0.0 if p <= 0.0 else max(0.0, centre - half)
    high = 1.0 if p >= 1.0 else min(1.0, centre + half)
    return low, high


def newcombe(
    k1: float, n1: float, k2: float, n2: float, level: float = 0.95
) -> tuple[float, float]:
    """Newcombe's hybrid score interval (his method 10) for ``k1/n1 - k2/n2``.

    The example of Newcombe (1998), 56/70 against 48/80:

    >>> [round(v, 4) for v in newcombe(56, 70, 48, 80)]
    [0.0524, 0.3339]
    """
    if n1 <= 0 or n2 <= 0:
        return math.nan, math.nan
    p1, p2 = k1 / n1, k2 / n2
    l1, u1 = wilson(k1, n1, level)
    l2, u2 = wilson(k2, n2, level)
    d = p1 - p2
    lower = d - math.sqrt((p1 - l1) ** 2 + (u2 - p2) ** 2)
    upper = d + math.sqrt((u1 - p1) ** 2 + (p2 - l2) ** 2)
    return max(-1.0, lower), min(1.0, upper)


def _absolute(lo: float, hi: float) -> tuple[float, float]:
    """The image of ``[lo, hi]`` under ``abs``."""
    if lo >= 0:
        return lo, hi
    if hi <= 0:
        return -hi, -lo
    return 0.0, max(-lo, hi)


def gap_interval(rates: Sequence[tuple[float, float]], level: float = 0.95) -> tuple[float, float]:
    """An interval for ``max_i p_i - min_j p_j`` from each group's ``(k, n)`` (``n`` the
    effective sample size): Newcombe's for two groups, the Bonferroni bound for more (see the
    module docstring). A group with ``n == 0`` has rate 0, as the metric counts it
    (:meth:`fairlist.metrics.GroupCounts.rate`), with no uncertainty.

    >>> [round(v, 4) for v in gap_interval([(56, 70), (48, 80)])]
    [0.0524, 0.3339]
    >>> lo, hi = gap_interval([(30, 100), (30, 100), (30, 100)])
    >>> lo, round(hi, 3)
    (0.0, 0.214)
    """
    if len(rates) < 2 or all(n <= 0 for _, n in rates):
        return math.nan, math.nan
    if len(rates) == 2 and all(n > 0 for _, n in rates):
        (k1, n1), (k2, n2) = rates
        return _absolute(*newcombe(k1, n1, k2, n2, level))
    each = 1 - (1 - level) / sum(1 for _, n in rates if n > 0)
    bounds = [wilson(k, n, each) if n > 0 else (0.0, 0.0) for k, n in rates]
    lows, highs = [b[0] for b in bounds], [b[1] for b in bounds]
    return max(0.0, max(lows) - min(highs)), max(highs) - min(lows)
