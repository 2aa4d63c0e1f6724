"""The six unfairness measures: hand-computed cases, conventions, and fairlearn's group rates."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fairlist import metrics
from fairlist.metrics import GroupCounts, Metric, confusion_counts, unfairness

# Protected group: 6 samples, unprotected: 4.
Y_TRUE = np.array([1, 1, 1, 0, 0, 0, 1, 1, 0, 0])
Y_PRED = np.array([1, 1, 0, 1, 0, 0, 1, 0, 0, 0])
GROUP = np.array(["a"] * 6 + ["b"] * 4)


def test_confusion_counts_by_hand():
    c = confusion_counts(Y_TRUE, Y_PRED, GROUP, protected="a")
    assert c.protected == GroupCounts(tp=2, fp=1, tn=2, fn=1)
    assert c.unprotected == GroupCounts(tp=1, fp=0, tn=2, fn=1)


@pytest.mark.parametrize(
    ("metric", "expected"),
    [
        ("statistical_parity", abs(3 / 6 - 1 / 4)),
        ("predictive_parity", abs(2 / 3 - 1 / 1)),
        ("predictive_equality", abs(1 / 3 - 0 / 2)),
        ("equal_opportunity", abs(2 / 3 - 1 / 2)),
        ("equalized_odds", abs(2 / 3 - 1 / 2) + abs(1 / 3 - 0 / 2)),
        ("conditional_use_accuracy_equality", abs(2 / 3 - 1) + abs(2 / 3 - 2 / 3)),
    ],
)
def test_each_metric_matches_a_hand_computed_value(metric, expected):
    assert unfairness(Y_TRUE, Y_PRED, GROUP, metric, protected="a") == pytest.approx(expected)


@pytest.mark.parametrize("short", ["SP", "PP", "PE", "EOpp", "EOdds", "CUAE", "sp", "eodds"])
def test_short_names_are_accepted(short):
    assert Metric.parse(short).short_name.lower() == short.lower()


def test_unknown_metric_is_rejected_with_the_allowed_names():
    with pytest.raises(ValueError, match="metric='fairness'.*statistical_parity"):
        Metric.parse("fairness")


def test_zero_denominator_rate_is_zero():
    # The unprotected group has no positive prediction: its PPV is 0 by convention, so the
    # predictive-parity gap is the protected group's PPV.
    y_true = [1, 0, 1, 1]
    y_pred = [1, 1, 0, 0]
    group = [1, 1, 0, 0]
    assert unfairness(y_true, y_pred, group, "PP") == pytest.approx(0.5)
    # No negative label in either group: both FPRs are 0.
    assert unfairness([1, 1, 1, 1], [1, 0, 1, 1], [1, 1, 0, 0], "PE") == 0.0


def test_boolean_mask_means_protected():
    c = confusion_counts(Y_TRUE, Y_PRED, GROUP == "a")
    assert c == confusion_counts(Y_TRUE, Y_PRED, GROUP, protected="a")


def test_pandas_series_are_accepted():
    c = confusion_counts(pd.Series(Y_TRUE), pd.Series(Y_PRED), pd.Series(GROUP), protected="a")
    assert c.protected.tp == 2


def test_length_mismatch_names_every_argument():
    with pytest.raises(ValueError, match="y_true has 3 rows, y_pred has 2, sensitive_features"):
        confusion_counts([1, 0, 1], [1, 0], [1, 0, 1])


def test_non_binary_labels_are_rejected():
    with pytest.raises(ValueError, match="y_pred must hold only 0/1.*2"):
        confusion_counts([1, 0], [2, 0], [1, 0])


def test_a_protected_value_is_compared_with_all_other_groups_together():
    counts = confusion_counts([1, 0, 1, 1], [1, 0, 0, 1], ["a", "b", "c", "a"], protected="a")
    assert (counts.protected.tp, counts.protected.n) == (2, 2)
    assert (counts.unprotected.tp, counts.unprotected.fn, counts.unprotected.tn) == (0, 1, 1)


def test_missing_protected_value_is_named():
    with pytest.raises(ValueError, match="protected='z' does not occur"):
        confusion_counts([1, 0], [1, 0], ["a", "b"], protected="z")


def test_nan_in_sensitive_features_is_rejected():
    with pytest.raises(ValueError, match="NaN"):
        confusion_counts([1, 0], [1, 0], [1.0, np.nan])


def test_sums_not_max_for_equalized_odds_and_cuae():
    # TPR gap 0.5 and FPR gap 0.5: the paper's EOdds is 1.0 where fairlearn's max gives 0.5.
    y_true = [1, 1, 0, 0, 1, 1, 0, 0]
    y_pred = [1, 1, 1, 1, 1, 0, 1, 0]
    group = [1, 1, 1, 1, 0, 0, 0, 0]
    assert unfairness(y_true, y_pred, group, "EOdds") == pytest.approx(1.0)
    fairlearn = pytest.importorskip("fairlearn.metrics")
    assert fairlearn.equalized_odds_difference(
        y_true, y_pred, sensitive_features=group
    ) == pytest.approx(0.5)


def test_is_fair_uses_the_shared_tolerance():
    assert metrics.is_fair(0.05 + 1e-12, 0.05)
    assert not metrics.is_fair(0.0501, 0.05)
    assert metrics.is_fair(5.0, None)


@settings(max_examples=60, deadline=None)
@given(
    n=st.integers(min_value=4, max_value=200),
    seed=st.integers(min_value=0, max_value=2**32 - 1),
)
def test_group_rates_match_fairlearn_metricframe(n, seed):
    fl = pytest.importorskip("fairlearn.metrics")
    rng = np.random.default_rng(seed)
    y_true = rng.integers(0, 2, n)
    y_pred = rng.integers(0, 2, n)
    group = np.where(rng.random(n) < 0.4, "prot", "unprot")
    group[:2] = ["prot", "unprot"]

    def ppv(t, p):
        return float(np.sum((t == 1) & (p == 1)) / np.sum(p == 1)) if np.any(p == 1) else 0.0

    def npv(t, p):
        return float(np.sum((t == 0) & (p == 0)) / np.sum(p == 0)) if np.any(p == 0) else 0.0

    def tpr(t, p):
        return fl.true_positive_rate(t, p, pos_label=1) if np.any(t == 1) else 0.0

    def fpr(t, p):
        return fl.false_positive_rate(t, p, pos_label=1) if np.any(t == 0) else 0.0

    frame = fl.MetricFrame(
        metrics={
            "sel": fl.selection_rate,
            "tpr": tpr,
            "fpr": fpr,
            "ppv": ppv,
            "npv": npv,
        },
        y_true=y_true,
        y_pred=y_pred,
        sensitive_features=group,
    ).by_group
    c = confusion_counts(y_true, y_pred, group, protected="prot")
    for name, counts in (("prot", c.protected), ("unprot", c.unprotected)):
        row = frame.loc[name]
        assert counts.positive_rate == pytest.approx(row["sel"])
        assert counts.tpr == pytest.approx(row["tpr"])
        assert counts.fpr == pytest.approx(row["fpr"])
        assert counts.ppv == pytest.approx(row["ppv"])
        assert counts.npv == pytest.approx(row["npv"])
    gap = lambda k: abs(frame.loc["prot", k] - frame.loc["unprot", k])  # noqa: E731
    assert unfairness(y_true, y_pred, group, "SP", "prot") == pytest.approx(gap("sel"))
    assert unfairness(y_true, y_pred, group, "EOpp", "prot") == pytest.approx(gap("tpr"))
    assert unfairness(y_true, y_pred, group, "PE", "prot") == pytest.approx(gap("fpr"))
    assert unfairness(y_true, y_pred, group, "PP", "prot") == pytest.approx(gap("ppv"))
    assert unfairness(y_true, y_pred, group, "EOdds", "prot") == pytest.approx(
        gap("tpr") + gap("fpr")
    )
    assert unfairness(y_true, y_pred, group, "CUAE", "prot") == pytest.approx(
        gap("ppv") + gap("npv")
    )
    # fairlearn's own SP difference agrees too.
    assert unfairness(y_true, y_pred, group, "SP", "prot") == pytest.approx(
        fl.demographic_parity_difference(y_true, y_pred, sensitive_features=group)
    )


@pytest.mark.parametrize("fn", [metrics.statistical_parity, metrics.equalized_odds])
def test_named_metric_functions(fn):
    assert fn(Y_TRUE, Y_PRED, GROUP, protected="a") == unfairness(
        Y_TRUE, Y_PRED, GROUP, fn.__name__, protected="a"
    )
