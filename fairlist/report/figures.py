"""The report's figures, drawn with matplotlib without pyplot (any backend, no window) and
returned as ``data:`` URIs of PNG images, so that the HTML file holds them.

Readable by construction: the legends sit below the axes, never over a bar or a point; the
rates' axis stops at 1.05 so that no interval is clipped; each figure comes with a text
alternative (the HTML's ``alt``) that says what it shows, the numbers being in the tables.
"""

from __future__ import annotations

import base64
import io
from typing import Any

import numpy as np

from ..metric_table import RATES
from ..pareto import non_dominated
from .audit import SplitAudit
from .front import Front

__all__ = ["group_rates_figure", "front_figure", "to_data_uri"]

_GROUP_COLOURS = ("#c44e52", "#4c72b0", "#55a868", "#8172b2", "#ccb974", "#64b5cd", "#8c8c8c")


def to_data_uri(figure: Any, dpi: int = 110) -> str:
    """The figure as a ``data:image/png;base64,...`` URI (no metadata: the same figure gives
    the same bytes)."""
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=dpi, metadata={"Software": None})
    return "data:image/png;base64," + base64.b64encode(buffer.getvalue()).decode("ascii")


def _legend_below(figure: Any, ax: Any, n: int) -> None:
    handles, labels = ax.get_legend_handles_labels()
    if handles:
        figure.legend(
            handles, labels, loc="outside lower center", ncol=min(n, 4), frameon=False, fontsize=8
        )


def group_rates_figure(splits: list[SplitAudit], compared: tuple[str, ...]) -> tuple[str, str]:
    """Each group's five rates with their intervals, one panel per split; the rates the metric
    compares are named in bold. Returns the data URI and the text alternative."""
    from matplotlib.figure import Figure

    names = list(RATES)
    labels = [RATES[r].label for r in names]
    figure = Figure(figsize=(4.4 * len(splits) + 0.6, 3.6), layout="constrained")
    axes = figure.subplots(1, len(splits), sharey=True, squeeze=False)[0]
    for ax, split in zip(axes, splits, strict=True):
        k = len(split.groups)
        width = 0.8 / k
        xs = np.arange(len(names))
        for g, group in enumerate(split.groups):
            values = np.array([group.rates[r].value for r in names])
            low = np.array([group.rates[r].low for r in names])
            high = np.array([group.rates[r].high for r in names])
            err = np.vstack([np.nan_to_num(values - low), np.nan_to_num(high - values)])
            ax.bar(
                xs + (g - (k - 1) / 2) * width,
                values,
                width,
                yerr=err,
                capsize=2,
                error_kw={"elinewidth": 0.8, "ecolor": "0.25"},
                color=_GROUP_COLOURS[g % len(_GROUP_COLOURS)],
                label=f"{group.name}",
            )
        ax.set_xticks(xs, labels, fontsize=8)
        for tick, r in zip(ax.get_xticklabels(), names, strict=True):
            if r in compared:
                tick.set_fontweight("bold")
        ax.set_ylim(0, 1.05)
        ax.set_title(f"{split.split.capitalize()} data ({split.n_rows:,} rows)", fontsize=9)
        ax.grid(True, axis="y", alpha=0.3)
    axes[0].set_ylabel("rate in the group")
    _legend_below(figure, axes[0], len(splits[0].groups))
    level = f"{splits[0].level:.0%}"
    alt = (
        f"Bar chart of each group's positive rate, TPR, FPR, PPV and NPV with {level} "
        f"confidence intervals, on the {' and '.join(s.split for s in splits)} data; the rates "
        f"the metric compares ({', '.join(RATES[r].label for r in compared)}) are in bold. "
        "The numbers are in the tables."
    )
    return to_data_uri(figure), alt


def front_figure(
    front: Front, model: tuple[float, float], metric: str, model_split: str
) -> tuple[str, str]:
    """The front's points (certified ones filled, others hollow) and the model's point."""
    from matplotlib.figure import Figure

    figure = Figure(figsize=(5.6, 4.2), layout="constrained")
    ax = figure.subplots()
    p = front.points
    line = p[non_dominated(p["unfairness"], p["error"])] if len(p) else p
    if len(line) > 1:  # the staircase of the points non-dominated in error (an exact front is
        # non-dominated in the objective, which adds lambda per rule)
        ax.step(line["unfairness"], line["error"], where="post", color="#4c72b0", alpha=0.5, lw=1)
    done, rest = p[p["certified"]], p[~p["certified"]]
    ax.plot(done["unfairness"], done["error"], "o", color="#4c72b0", label="certified point")
    ax.plot(
        rest["unfairness"],
        rest["error"],
        "o",
        mfc="white",
        color="#4c72b0",
        label="point not certified",
    )
    ax.plot(*model, "*", color="#c44e52", markersize=14, label=f"this model ({model_split})")
    ax.set_xlabel(f"{front.split.capitalize()} unfairness ({metric})")
    ax.set_ylabel(f"{front.split.capitalize()} error")
    ax.grid(True, alpha=0.3)
    _legend_below(figure, ax, 3)
    alt = (
        f"Scatter plot of the {front.split} front ({len(p)} points, {len(done)} certified, drawn "
        f"filled; the others hollow), unfairness across and error up, with this model's point "
        f"as a red star at unfairness {model[0]:.3f} and error {model[1]:.3f}."
    )
    return to_data_uri(figure), alt
