"""Pareto-front plots in the paper's style: unfairness across, error up; bottom-left is better.

Several methods share one axes (for example fairlist against fairlearn's
ExponentiatedGradient). The functions draw on a matplotlib ``Axes`` you pass, or create a
:class:`~matplotlib.figure.Figure` without pyplot, so they work under any backend (and in
headless jobs) and never open a window.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from .errors import DataError, InvalidParameterError
from .metrics import Metric
from .pareto import ParetoResult, non_dominated

__all__ = ["plot_pareto", "plot_fronts", "save_figure"]

_MARKERS = ("o", "s", "^", "D", "v", "P", "X", "*")

FrontLike = ParetoResult | pd.DataFrame | tuple[Sequence[float], Sequence[float]]


def _xy(front: FrontLike) -> tuple[np.ndarray, np.ndarray]:
    """Unfairness and error of a front given as a result, a DataFrame or an (x, y) pair."""
    if isinstance(front, ParetoResult):
        table = front.front
        return table[front.x].to_numpy(float), table[front.y].to_numpy(float)
    if isinstance(front, pd.DataFrame):
        for x, y in (("test_unfairness", "test_error"), ("unfairness", "error")):
            if x in front and y in front:
                return front[x].to_numpy(float), front[y].to_numpy(float)
        raise DataError(
            "a front DataFrame needs columns (test_unfairness, test_error) or (unfairness, error); "
            f"got {list(front.columns)}"
        )
    x, y = front
    x, y = np.asarray(x, float), np.asarray(y, float)
    if x.shape != y.shape:
        raise DataError(f"unfairness has {x.size} values, error has {y.size}")
    return x, y


def plot_pareto(
    front: FrontLike,
    ax: Any = None,
    *,
    label: str | None = None,
    only_front: bool = True,
    staircase: bool = True,
    marker: str = "o",
    **style: Any,
):
    """Draw one front; returns the axes.

    Parameters
    ----------
    front : ParetoResult, DataFrame or (unfairness, error) pair
    ax : matplotlib Axes, optional
        Created (on a pyplot-free Figure) when omitted.
    label : str, optional
        Legend entry.
    only_front : bool
        Keep only the non-dominated points (those of a ParetoResult already are).
    staircase : bool
        Join the points with a step line, as a Pareto front is read (each point's error holds
        until a fairer point is reached).
    marker, **style
        Passed to matplotlib.
    """
    if ax is None:
        from matplotlib.figure import Figure

        ax = Figure(figsize=(5.0, 3.8), layout="constrained").subplots()
    x, y = _xy(front)
    if only_front and len(x):
        keep = non_dominated(x, y)
        x, y = x[keep], y[keep]
    order = np.argsort(x, kind="stable")
    x, y = x[order], y[order]
    (points,) = ax.plot(x, y, marker=marker, linestyle="none", label=label, **style)
    if staircase and len(x) > 1:
        ax.step(x, y, where="post", color=points.get_color(), alpha=0.6, linewidth=1.2)
    return ax


def plot_fronts(
    fronts: Mapping[str, FrontLike],
    ax: Any = None,
    *,
    metric: Metric | str | None = None,
    title: str | None = None,
    only_front: bool = True,
):
    """Several methods' fronts on one axes, with the paper's axis labels; returns the axes.

    Parameters
    ----------
    fronts : mapping of method name to front
        For example ``{"fairlist": result, "ExponentiatedGradient": (unf, err)}``.
    metric : Metric or str, optional
        Named on the x axis (``Unfairness (SP)``).
    title : str, optional
    """
    if ax is None:
        from matplotlib.figure import Figure

        ax = Figure(figsize=(5.0, 3.8), layout="constrained").subplots()
    if not fronts:
        raise InvalidParameterError("fronts is empty: give at least one method's front")
    for k, (name, front) in enumerate(fronts.items()):
        plot_pareto(front, ax, label=name, marker=_MARKERS[k % len(_MARKERS)],
                    only_front=only_front)  # fmt: skip
    short = Metric.parse(metric).short_name if metric is not None else None
    ax.set_xlabel(f"Unfairness ({short})" if short else "Unfairness")
    ax.set_ylabel("Error")
    if title:
        ax.set_title(title)
    ax.grid(True, alpha=0.3)
    ax.legend(frameon=False)
    ax.annotate(
        "better", xy=(0.02, 0.03), xytext=(0.10, 0.13), xycoords="axes fraction",
        textcoords="axes fraction", fontsize=8, color="0.4",
        arrowprops={"arrowstyle": "->", "color": "0.5"},
    )  # fmt: skip
    return ax


def save_figure(ax: Any, path: str | Path, dpi: int = 150) -> Path:
    """Save the figure holding ``ax``; the format follows the suffix (.png, .svg, .pdf)."""
    path = Path(path)
    if path.suffix.lower() not in (".png", ".svg", ".pdf"):
        raise InvalidParameterError(f"plot path must end in .png, .svg or .pdf, got {path.name!r}")
    ax.figure.savefig(path, dpi=dpi)
    return path
