"""Pareto plots: the paper's axes, several methods on one axes, files that open."""

from __future__ import annotations

import pandas as pd
import pytest

from fairlist.metrics import Metric
from fairlist.pareto import ParetoResult
from fairlist.plotting import plot_fronts, plot_pareto, save_figure


def result() -> ParetoResult:
    front = pd.DataFrame({"test_unfairness": [0.01, 0.05, 0.2], "test_error": [0.4, 0.35, 0.3]})
    return ParetoResult(front, front, "cross_validation", Metric.EQUALIZED_ODDS)


def test_several_methods_share_one_axes_with_the_papers_labels():
    ax = plot_fronts(
        {"fairlist": result(), "baseline": ([0.02, 0.1, 0.15], [0.45, 0.33, 0.36])},
        metric="EOdds",
        title="COMPAS",
    )
    assert ax.get_xlabel() == "Unfairness (EOdds)"
    assert ax.get_ylabel() == "Error"
    assert ax.get_title() == "COMPAS"
    labels = [t.get_text() for t in ax.get_legend().get_texts()]
    assert labels == ["fairlist", "baseline"]
    markers = [line for line in ax.lines if line.get_linestyle() == "None"]
    # the baseline's dominated point (0.15, 0.36) is left out
    assert [len(line.get_xdata()) for line in markers] == [3, 2]


def test_plot_pareto_accepts_a_training_front_frame():
    ax = plot_pareto(pd.DataFrame({"unfairness": [0.3, 0.0], "error": [0.1, 0.2]}), label="x")
    xs = ax.lines[0].get_xdata()
    assert list(xs) == [0.0, 0.3]  # sorted by unfairness
    with pytest.raises(ValueError, match="needs columns"):
        plot_pareto(pd.DataFrame({"a": [1]}))
    with pytest.raises(ValueError, match="unfairness has 2 values, error has 1"):
        plot_pareto(([0.1, 0.2], [0.3]))


@pytest.mark.parametrize("suffix", [".png", ".svg"])
def test_save_figure_writes_the_format_of_the_suffix(tmp_path, suffix):
    ax = plot_fronts({"fairlist": result()}, metric="SP")
    path = save_figure(ax, tmp_path / f"front{suffix}")
    head = path.read_bytes()[:200]
    assert head.startswith(b"\x89PNG") if suffix == ".png" else b"<svg" in head or b"<?xml" in head
    with pytest.raises(ValueError, match="must end in"):
        save_figure(ax, tmp_path / "front.txt")


def test_an_empty_mapping_is_refused():
    with pytest.raises(ValueError, match="fronts is empty"):
        plot_fronts({})


def test_no_pyplot_state_is_touched():
    import sys

    plot_fronts({"a": ([0.1], [0.2])})
    plt = sys.modules.get("matplotlib.pyplot")
    assert plt is None or not plt.get_fignums()
