"""Plots: the paper's axes with the split named, titles that say what is shown, legends that
cover nothing, per-group rate bars, files that open."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from fairlist.metrics import ConfusionCounts, GroupCounts, Metric, confusion_counts
from fairlist.pareto import ParetoResult
from fairlist.plotting import (
    front_title,
    plot_fronts,
    plot_group_rates,
    plot_pareto,
    save_figure,
)


def result(kind: str = "cross_validation") -> ParetoResult:
    if kind == "cross_validation":
        front = pd.DataFrame({"test_unfairness": [0.01, 0.05, 0.2], "test_error": [0.4, 0.35, 0.3]})
    else:
        front = pd.DataFrame({"unfairness": [0.01, 0.05, 0.2], "error": [0.4, 0.35, 0.3]})
    settings = {
        "max_nodes": 4_000_000,
        "lam": 0.001,
        "max_length": 2 if kind != "cross_validation" else None,
    }
    return ParetoResult(front, front, kind, Metric.EQUALIZED_ODDS, settings)


def test_several_methods_share_one_axes_with_the_split_in_the_labels():
    ax = plot_fronts(
        {"fairlist": result(), "baseline": ([0.02, 0.1, 0.15], [0.45, 0.33, 0.36])},
        metric="EOdds",
        title="COMPAS",
    )
    assert ax.get_xlabel() == "Test unfairness (EOdds)"
    assert ax.get_ylabel() == "Test error"
    title = ax.get_title()
    # data set, metric, split and budget, all read from the result
    assert title.splitlines()[0] == "COMPAS"
    for word in ("EOdds", "test folds", "4,000,000 nodes", "λ=0.001"):
        assert word in title
    labels = [t.get_text() for t in ax.get_legend().get_texts()]
    assert labels == ["fairlist", "baseline"]
    markers = [line for line in ax.lines if line.get_linestyle() == "None"]
    # the baseline's dominated point (0.15, 0.36) is left out
    assert [len(line.get_xdata()) for line in markers] == [3, 2]


def test_a_training_front_says_training_and_its_length_cap():
    ax = plot_fronts({"exact": result("training")}, metric="EOdds", title="Adult")
    assert ax.get_xlabel() == "Training unfairness (EOdds)"
    assert ax.get_ylabel() == "Training error"
    assert "training data" in ax.get_title() and "at most 2 rules" in ax.get_title()
    with pytest.raises(ValueError, match="split must be"):
        plot_fronts({"x": result()}, split="validation")


def _inside(inner, outer) -> bool:
    return (
        inner.x0 >= outer.x0 - 1
        and inner.x1 <= outer.x1 + 1
        and inner.y0 >= outer.y0 - 1
        and inner.y1 <= outer.y1 + 1
    )


def _overlap(a, b) -> bool:
    return a.x0 < b.x1 and b.x0 < a.x1 and a.y0 < b.y1 and b.y0 < a.y1


@pytest.mark.parametrize("where", ["below", "right"])
def test_the_legend_covers_neither_the_data_nor_the_arrow(where):
    # many methods with long names: the case that used to put the legend over the points
    fronts = {f"method number {k}, a long name": ([0.0, 0.1 * k], [0.3, 0.2]) for k in range(5)}
    ax = plot_fronts(fronts, metric="SP", title="Adult", legend=where)
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    figure = ax.figure
    renderer = FigureCanvasAgg(figure).get_renderer()
    figure.draw(renderer)
    legend = ax.get_legend().get_window_extent(renderer)
    axes_box = ax.get_window_extent(renderer)
    assert not _overlap(legend, axes_box)  # outside the axes: no point, no arrow beneath it
    assert _inside(legend, figure.bbox)  # and still on the figure (not cut off)
    arrow = next(t for t in ax.texts if t.get_text() == "better").get_window_extent(renderer)
    assert _inside(arrow, axes_box)


def test_front_title_composes_its_parts():
    assert front_title("COMPAS", "EOdds", "test", "4,000,000 nodes") == (
        "COMPAS\nEOdds · test folds (cross-validation) · 4,000,000 nodes"
    )
    assert front_title(None, None, "training", None) == "training data"


def test_plot_pareto_accepts_a_training_front_frame():
    ax = plot_pareto(pd.DataFrame({"unfairness": [0.3, 0.0], "error": [0.1, 0.2]}), label="x")
    xs = ax.lines[0].get_xdata()
    assert list(xs) == [0.0, 0.3]  # sorted by unfairness
    with pytest.raises(ValueError, match="needs columns"):
        plot_pareto(pd.DataFrame({"a": [1]}))


def test_group_rates_show_what_the_metric_compares(tmp_path):
    y = np.array([1, 1, 0, 0, 1, 0, 1, 0, 0, 0])
    pred = np.array([1, 0, 1, 0, 1, 0, 0, 0, 1, 0])
    g = np.array([1, 1, 1, 1, 1, 0, 0, 0, 0, 0], dtype=bool)
    counts = confusion_counts(y, pred, g)
    ax = plot_group_rates(counts, metric="EOdds", title="toy")
    # two rates (TPR, FPR) x two groups, with the values of fairlist.metrics
    assert [t.get_text() for t in ax.get_xticklabels()] == ["TPR", "FPR"]
    heights = [p.get_height() for p in ax.patches]
    p, u = counts.protected, counts.unprotected
    assert heights == pytest.approx([p.tpr, p.fpr, u.tpr, u.fpr])
    assert f"EOdds = {counts.unfairness('EOdds'):.3f}" in ax.get_title()
    # the same chart from the labels, predictions and groups
    again = plot_group_rates(y, pred, g, metric="EOdds")
    assert [p.get_height() for p in again.patches] == pytest.approx(heights)
    every = plot_group_rates(counts)
    assert len(every.get_xticklabels()) == 5
    assert save_figure(ax, tmp_path / "rates.png").read_bytes().startswith(b"\x89PNG")


def test_group_rates_bad_input():
    counts = ConfusionCounts(GroupCounts(1, 1, 1, 1), GroupCounts(1, 0, 2, 1))
    with pytest.raises(ValueError, match="either ConfusionCounts"):
        plot_group_rates(counts, [1, 0])
    with pytest.raises(ValueError, match="y_true, y_pred and groups"):
        plot_group_rates([1, 0, 1])
    with pytest.raises(ValueError, match="must end in"):
        save_figure(plot_group_rates(counts), "rates.jpg")
