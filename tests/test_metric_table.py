"""The metric table is complete, agrees with the C++ core, and everything derives from it."""

from __future__ import annotations

import pytest

from fairlist import _core
from fairlist.errors import InvalidParameterError
from fairlist.metric_table import METRICS, RATES, Metric
from fairlist.metrics import ConfusionCounts, GroupCounts, unfairness_from_counts


def test_every_metric_has_a_row():
    missing = [m.name for m in Metric if m not in METRICS]
    assert not missing, f"metrics without a row in fairlist.metric_table.METRICS: {missing}"
    for m, info in METRICS.items():
        assert info.metric is m
        unknown = [r for r in info.rates if r not in RATES]
        assert not unknown, f"{m.name} names unknown rates {unknown}"
        assert 1 <= len(info.rates) <= 2, f"{m.name}: one gap or the sum of two"


def test_table_matches_the_native_table():
    """The C++ core declares its metrics once (native/include/fairlist/metric.hpp, exposed as
    _core.METRIC_TABLE: id, short name, rates, gaps summed); the Python table must say the same
    of every metric, and name the one that differs."""
    native = {row[0]: (row[1], tuple(row[2]), row[3]) for row in _core.METRIC_TABLE}
    python = {
        int(m): (info.short_name, tuple(info.rates), len(info.rates)) for m, info in METRICS.items()
    }
    for key in sorted(set(native) | set(python)):
        assert native.get(key) == python.get(key), (
            f"metric {key}: the C++ table says {native.get(key)}, the Python table "
            f"{python.get(key)}"
        )
    members = {int(v): k for k, v in _core.Metric.__members__.items()}
    assert members == {int(m): info.short_name.upper() for m, info in METRICS.items()}


@pytest.mark.parametrize(
    ("alias", "metric"),
    [
        ("demographic_parity", Metric.STATISTICAL_PARITY),
        ("statistical_parity", Metric.STATISTICAL_PARITY),
        ("equal_opportunity", Metric.EQUAL_OPPORTUNITY),
        ("predictive_equality", Metric.PREDICTIVE_EQUALITY),
        ("false_positive_rate_parity", Metric.PREDICTIVE_EQUALITY),
        ("false positive rate parity", Metric.PREDICTIVE_EQUALITY),
        ("equalized_odds", Metric.EQUALIZED_ODDS),
        ("EOdds", Metric.EQUALIZED_ODDS),
    ],
)
def test_names_and_fairlearn_aliases(alias, metric):
    assert Metric.parse(alias) is metric


def test_unknown_metric_names_the_sum_convention():
    with pytest.raises(InvalidParameterError, match="sum of their two gaps"):
        Metric.parse("accuracy_parity")


def test_gap_rule_follows_the_table():
    a = GroupCounts(tp=3, fp=1, tn=4, fn=2)
    b = GroupCounts(tp=1, fp=2, tn=5, fn=2)
    counts = ConfusionCounts(a, b)
    for m, info in METRICS.items():
        gaps = [abs(a.rate(r) - b.rate(r)) for r in info.rates]
        assert unfairness_from_counts(counts, m) == pytest.approx(sum(gaps))
        assert info.gap == ("one gap" if len(gaps) == 1 else "sum of two gaps")


def test_linear_metrics_are_those_with_fixed_denominators():
    linear = {i.short_name for i in METRICS.values() if i.linear}
    assert linear == {"SP", "PE", "EOpp", "EOdds"}
