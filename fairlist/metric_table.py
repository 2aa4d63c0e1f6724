"""The unfairness measures, declared once: each one's rates, how its gaps add up, its names.

Everything else that depends on the list of metrics derives from :data:`METRICS` and
:data:`RATES`: the metric functions and :class:`~fairlist.metrics.ConfusionCounts` (which rates
to compare), the CP-SAT model (linear or ratio constraint), the small-group warning (which
counts a rate divides by), the plots (rate labels) and the CLI's ``--metric`` choices. Adding a
metric is adding a :class:`Metric` value (the C++ core's value too) and one :data:`METRICS` row;
``tests/test_metric_table.py`` names a metric that lacks one.

A metric compares one or two per-group rates. Each rate's gap is its largest minus its smallest
value over the groups; a metric of two rates (EOdds, CUAE) is the **sum** of the two gaps, as in
the FairCORELS paper, so it ranges over [0, 2]. fairlearn's ``equalized_odds_difference`` takes
the **maximum** of the two gaps instead: the names ``equalized_odds`` here and there do not give
the same number.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Any

import numpy as np

from .errors import InvalidParameterError

__all__ = ["Metric", "Rate", "MetricInfo", "RATES", "METRICS", "SHORT_NAMES"]


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
        """The paper's abbreviation (SP, PP, PE, EOpp, EOdds, CUAE)."""
        return METRICS[self].short_name

    @property
    def info(self) -> MetricInfo:
        """This metric's row of :data:`METRICS`."""
        return METRICS[self]

    @classmethod
    def parse(cls, value: Any) -> Metric:
        """Accept a Metric, its integer, its long name, its short name (SP, PP, PE, EOpp,
        EOdds, CUAE) or an alias (fairlearn's names among them), case-insensitively."""
        if isinstance(value, Metric):
            return value
        if isinstance(value, (int, np.integer)) and not isinstance(value, bool):
            try:
                return cls(int(value))
            except ValueError:
                pass
        if isinstance(value, str):
            key = value.strip().lower().replace("-", "_").replace(" ", "_")
            if key in _BY_NAME:
                return _BY_NAME[key]
        allowed = ", ".join(
            sorted({m.name.lower() for m in cls} | {i.short_name for i in METRICS.values()})
        )
        raise InvalidParameterError(
            f"metric={value!r} is not a known unfairness measure; use one of {allowed} (or an "
            f"alias: {', '.join(sorted(a for i in METRICS.values() for a in i.aliases))}). "
            "EOdds and CUAE are the sum of their two gaps, not fairlearn's maximum"
        )


@dataclass(frozen=True)
class Rate:
    """A per-group rate: ``sum(numerator cells) / sum(denominator cells)``, 0 when the
    denominator is 0. Cells are the confusion counts ``tp``, ``fp``, ``tn``, ``fn``."""

    #: attribute of :class:`~fairlist.metrics.GroupCounts`
    name: str
    #: label in plots and tables
    label: str
    numerator: tuple[str, ...]
    denominator: tuple[str, ...]
    #: one line, in the words of probability
    description: str

    @property
    def needs(self) -> str | None:
        """The samples the denominator counts when it does not depend on the predictions
        (``"positive"``, ``"negative"``, ``"any"``), else None."""
        return _FIXED.get(frozenset(self.denominator))

    @property
    def fixed_denominator(self) -> bool:
        """Whether the denominator is a constant of the data (a linear constraint in CP-SAT)."""
        return self.needs is not None


_FIXED = {
    frozenset(("tp", "fn")): "positive",
    frozenset(("fp", "tn")): "negative",
    frozenset(("tp", "fp", "tn", "fn")): "any",
}

#: The per-group rates, by name.
RATES: dict[str, Rate] = {
    r.name: r
    for r in (
        Rate(
            "positive_rate",
            "positive rate",
            ("tp", "fp"),
            ("tp", "fp", "tn", "fn"),
            "P(y_pred = 1)",
        ),
        Rate("tpr", "TPR", ("tp",), ("tp", "fn"), "true positive rate P(y_pred = 1 | y = 1)"),
        Rate("fpr", "FPR", ("fp",), ("fp", "tn"), "false positive rate P(y_pred = 1 | y = 0)"),
        Rate(
            "ppv", "PPV", ("tp",), ("tp", "fp"), "positive predictive value P(y = 1 | y_pred = 1)"
        ),
        Rate(
            "npv", "NPV", ("tn",), ("tn", "fn"), "negative predictive value P(y = 0 | y_pred = 0)"
        ),
    )
}


@dataclass(frozen=True)
class MetricInfo:
    """One metric: its rates (one gap, or the sum of two gaps) and its names."""

    metric: Metric
    #: the paper's abbreviation
    short_name: str
    #: names of :data:`RATES` whose gaps over the groups add up to the unfairness
    rates: tuple[str, ...]
    #: other accepted names (fairlearn's among them)
    aliases: tuple[str, ...] = ()

    @property
    def name(self) -> str:
        return self.metric.name.lower()

    @property
    def gap(self) -> str:
        """``"one gap"`` or ``"sum of two gaps"``."""
        return "one gap" if len(self.rates) == 1 else "sum of two gaps"

    @property
    def linear(self) -> bool:
        """Whether every rate's denominator is a constant of the data (CP-SAT: linear cap)."""
        return all(RATES[r].fixed_denominator for r in self.rates)


#: The metric table: the one place where each metric is defined.
METRICS: dict[Metric, MetricInfo] = {
    i.metric: i
    for i in (
        MetricInfo(
            Metric.STATISTICAL_PARITY,
            "SP",
            ("positive_rate",),
            ("demographic_parity", "demographic_parity_difference"),
        ),
        MetricInfo(Metric.PREDICTIVE_PARITY, "PP", ("ppv",)),
        MetricInfo(
            Metric.PREDICTIVE_EQUALITY,
            "PE",
            ("fpr",),
            ("false_positive_rate_parity", "false_positive_rate_difference"),
        ),
        MetricInfo(
            Metric.EQUAL_OPPORTUNITY,
            "EOpp",
            ("tpr",),
            ("true_positive_rate_parity", "true_positive_rate_difference"),
        ),
        MetricInfo(Metric.EQUALIZED_ODDS, "EOdds", ("tpr", "fpr")),
        MetricInfo(Metric.CONDITIONAL_USE_ACCURACY_EQUALITY, "CUAE", ("ppv", "npv")),
    )
}

_BY_NAME: dict[str, Metric] = {
    name.lower(): i.metric for i in METRICS.values() for name in (i.name, i.short_name, *i.aliases)
}

#: The short names, in the paper's order (SP, PP, PE, EOpp, EOdds, CUAE).
SHORT_NAMES: tuple[str, ...] = tuple(i.short_name for i in METRICS.values())
