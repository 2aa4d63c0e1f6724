"""The study's figures: fronts per policy, beside the baselines, training fronts, and group rates
of the rule lists (:func:`study_figures`).
"""

from __future__ import annotations

import math
import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from ..errors import DataError, InvalidParameterError
from ..sweep import SweepData
from .baselines import BASELINES
from .grid import PAPER_EXAMPLES, StudyGrid

# --------------------------------------------------------------------------- figures
_POLICY_LABELS = {
    "bfs": "BFS original",
    "bfs_objective_aware": "BFS obj.-aware (higher first, the text)",
    "bfs_objective_aware_lowest": "BFS obj.-aware (lower first, the code)",
    "curiosity": "Curious",
    "lower_bound": "Lower bound",
    "dfs": "DFS",
    "objective": "Objective",
}
_DATASET_LABELS = {"compas": "COMPAS", "adult": "Adult"}
#: The (protected, unprotected) groups of the built-in data sets, for legends.
_GROUPS = {"compas": ("African-American", "Caucasian"), "adult": ("Female", "Male")}


def _title(dataset: str) -> str:
    return _DATASET_LABELS.get(dataset, dataset)


def _panels(n: int, rows: int = 1, width: float = 3.4, height: float = 3.0):
    """A pyplot-free figure of ``rows`` x ``n`` axes."""
    from matplotlib.figure import Figure

    figure = Figure(figsize=(width * n, height * rows + 0.9), layout="constrained")
    axes = np.asarray(figure.subplots(rows, n, squeeze=False))
    return figure, axes


def _figure_legend(figure: Any, axes: Any) -> None:
    """One legend for all panels, below them (it covers no panel)."""
    handles, labels = {}, {}
    for ax in np.ravel(axes):
        for handle, label in zip(*ax.get_legend_handles_labels(), strict=True):
            if label not in labels:
                handles[label], labels[label] = handle, label
    if handles:
        figure.legend(
            list(handles.values()),
            list(handles),
            loc="outside lower center",
            ncol=min(len(handles), 3),
            frameon=False,
            fontsize=8,
        )


def _front_frame(frame: pd.DataFrame) -> pd.DataFrame:
    return frame[["test_unfairness", "test_error"]].reset_index(drop=True)


def figure_policies(grid: StudyGrid, points: pd.DataFrame, dataset: str):
    """Figure 2: the test front of every pooled policy, one panel per metric."""
    from ..plotting import plot_fronts

    columns = min(len(grid.metrics), 3)
    figure, axes = _panels(columns, rows=math.ceil(len(grid.metrics) / columns), width=3.8)
    for ax in np.ravel(axes)[len(grid.metrics) :]:
        ax.set_visible(False)
    for ax, metric in zip(np.ravel(axes), grid.metrics, strict=False):
        mine = points[
            (points["dataset"] == dataset)
            & (points["metric"] == metric)
            & (points["method"] == "fairlist")
        ]
        fronts = {
            _POLICY_LABELS.get(p, p): _front_frame(mine[mine["policy"] == p]) for p in grid.pooled
        }
        plot_fronts(fronts, ax, metric=metric, split="test", legend="none")
    figure.suptitle(
        f"{_title(dataset)}: test fronts of each search policy "
        f"({grid.cv}-fold CV, {grid.budget()})",
        fontsize=10,
    )
    _figure_legend(figure, axes)
    return figure


def figure_comparison(grid: StudyGrid, points: pd.DataFrame, dataset: str, metric: str):
    """Figures 3-4: fairlist's pooled front beside the baselines', with reference points."""
    from ..plotting import new_axes, place_legend, plot_fronts

    mine = points[(points["dataset"] == dataset) & (points["metric"] == metric)]
    pooled = f"{len(grid.pooled)} policies pooled" if len(grid.pooled) > 1 else grid.pooled[0]
    fronts: dict[str, Any] = {
        f"fairlist ({pooled})": _front_frame(mine[(mine["method"] == "fairlist") & mine["front"]]),
    }
    for name in grid.baselines:
        rows = mine[mine["method"] == name]
        if len(rows):
            fronts[BASELINES[name].label] = _front_frame(rows)
    free = mine[(mine["method"] == "rule_list") & mine["policy"].isin(grid.pooled)]
    if len(free):
        best = free.loc[[free["test_error"].idxmin()]]
        fronts["rule list, unconstrained"] = _front_frame(best)
    ax = new_axes((5.6, 5.0))
    plot_fronts(
        fronts,
        ax,
        metric=metric,
        title=_title(dataset),
        split="test",
        budget=f"{grid.cv}-fold CV, {grid.budget()}",
    )
    accuracy, cap = PAPER_EXAMPLES.get((dataset, metric), (None, None))
    if cap is not None:
        ax.plot([cap], [1 - accuracy], "k*", markersize=11, label="the paper's example")
        place_legend(ax, "below")
    return ax.figure


def figure_training(grid: StudyGrid, tables: Mapping[str, pd.DataFrame], dataset: str):
    """The exact training fronts (top) beside the cross-validated ones (bottom)."""
    from ..plotting import plot_fronts

    training, points = tables["training_fronts"], tables["points"]
    figure, axes = _panels(len(grid.metrics), rows=2)
    for k, metric in enumerate(grid.metrics):
        tr = training[(training["dataset"] == dataset) & (training["metric"] == metric)]
        tr = tr[tr["on_front"].astype(bool)] if len(tr) else tr
        certified = tr[tr["status"] == "optimal"] if len(tr) else tr
        other = tr[tr["status"] != "optimal"] if len(tr) else tr
        fronts = {"exact training front (certified optimal)": certified[["unfairness", "error"]]}
        if len(other):
            fronts["training point, not certified"] = other[["unfairness", "error"]]
        plot_fronts(
            fronts,
            axes[0, k],
            metric=metric,
            split="training",
            budget=f"≤{grid.training_max_length} rules",
            legend="none",
            styles={"training point, not certified": {"fillstyle": "none"}},
        )
        mine = points[
            (points["dataset"] == dataset)
            & (points["metric"] == metric)
            & (points["method"] == "fairlist")
            & points["front"]
        ]
        plot_fronts(
            {"cross-validated front (policies pooled)": _front_frame(mine)},
            axes[1, k],
            metric=metric,
            split="test",
            legend="none",
            styles={"cross-validated front (policies pooled)": {"color": "C1"}},
        )
    figure.suptitle(
        f"{_title(dataset)}. Top: exact training fronts, lists of at most "
        f"{grid.training_max_length} rules (full data, λ={grid.lam:g}).\n"
        f"Bottom: {grid.cv}-fold cross-validated fronts, {grid.budget()}.",
        fontsize=10,
    )
    _figure_legend(figure, axes)
    return figure


def parse_rule_list(text: str, labels: Sequence[str]):
    """The :class:`~fairlist.rulelist.RuleList` of a one-line text: :meth:`RuleList.from_text
    <fairlist.rulelist.RuleList.from_text>`, the inverse of
    :meth:`~fairlist.rulelist.RuleList.to_text` that the tables hold."""
    from ..rulelist import RuleList

    try:
        return RuleList.from_text(text, labels)
    except DataError as exc:
        raise InvalidParameterError(str(exc)) from None


def figure_group_rates(
    grid: StudyGrid,
    tables: Mapping[str, pd.DataFrame],
    data: SweepData,
    dataset: str,
    metric: str,
):
    """Per-group rates of the exact training point the paper table picks for ``metric``."""
    from ..metrics import confusion_counts
    from ..plotting import plot_group_rates

    paper = tables["paper"]
    row = paper[(paper["dataset"] == dataset) & (paper["metric"] == metric)]
    training = tables["training_fronts"]
    if row.empty or "train_accuracy" not in row or pd.isna(row["train_accuracy"].iloc[0]):
        return None
    pick = training[
        (training["dataset"] == dataset)
        & (training["metric"] == metric)
        & training["on_front"].astype(bool)
        & (abs(training["unfairness"] - row["train_unfairness"].iloc[0]) < 1e-12)
    ]
    if pick.empty:
        return None
    text = pick["rule_list"].iloc[0]
    rule_list = parse_rule_list(text, data.labels)
    X = pd.DataFrame(data.X, columns=list(data.feature_names))
    counts = confusion_counts(data.y, rule_list.predict(X), data.protected)
    groups = _GROUPS.get(dataset, ("protected", "unprotected"))
    ax = plot_group_rates(
        counts, metric=metric, group_names=groups, title=f"{_title(dataset)}, training data: {text}"
    )
    ax.title.set_wrap(True)
    return ax.figure


def study_figures(
    grid: StudyGrid,
    tables: Mapping[str, pd.DataFrame],
    folder: str | os.PathLike[str],
    data: Mapping[str, SweepData] | None = None,
) -> list[Path]:
    """Draw the study's figures into ``folder`` (PNG) and return their paths.

    ``policies_<data>.png`` (the paper's Figure 2: each pooled policy's test front, six
    metrics), ``comparison_<data>_<metric>.png`` (Figures 3-4: fairlist against the baselines),
    ``training_<data>.png`` (exact training fronts beside the cross-validated ones) and, given
    the ``data``, ``groups_<data>_<metric>.png`` (the per-group rates of the rule list the paper
    table picks on the training data).
    """
    from ..plotting import save_figure

    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    points, files = tables["points"], []
    for dataset in grid.datasets:
        files.append(
            save_figure(
                figure_policies(grid, points, dataset), folder / f"policies_{dataset}.png", dpi=110
            )
        )
        for metric in grid.baseline_metrics:
            if metric in grid.metrics:
                figure = figure_comparison(grid, points, dataset, metric)
                files.append(save_figure(figure, folder / f"comparison_{dataset}_{metric}.png"))
        if len(tables["training_fronts"]):
            files.append(
                save_figure(
                    figure_training(grid, tables, dataset),
                    folder / f"training_{dataset}.png",
                    dpi=100,
                )
            )
        for metric in grid.metrics if data is not None else ():
            figure = figure_group_rates(grid, tables, data[dataset], dataset, metric)
            if figure is not None:
                files.append(save_figure(figure, folder / f"groups_{dataset}_{metric}.png"))
    return files
