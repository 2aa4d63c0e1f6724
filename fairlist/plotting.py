"""Plots in the paper's style: Pareto fronts (unfairness across, error up; bottom-left is better)
and, for an auditor, a chosen rule list's rates per group.

Several methods share one axes (for example fairlist against fairlearn's
ExponentiatedGradient). The functions draw on a matplotlib ``Axes`` you pass, or create a
:class:`~matplotlib.figure.Figure` without pyplot, so they work under any backend (and in
headless jobs) and never open a window.

A front plot says what it shows: its title names the data set, the metric, the split (training
data, or the test folds of a cross-validation) and the budget; its axes say "Training error" or
"Test error"; its legend sits outside the axes (below them by default), so that it covers neither
a point nor the "better" arrow in the bottom-left corner.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from .errors import DataError, InvalidParameterError
from .metric_table import METRICS
from .metric_table import RATES as _RATE_TABLE
from .metrics import ConfusionCounts, GroupCounts, Metric, confusion_counts
from .pareto import ParetoResult, non_dominated

__all__ = [
    "plot_pareto",
    "plot_fronts",
    "plot_group_rates",
    "plot_rashomon_unfairness",
    "plot_antecedent_usage",
    "front_title",
    "save_figure",
    "new_axes",
    "place_legend",
    "SPLITS",
    "RATES",
]

_MARKERS = ("o", "s", "^", "D", "v", "P", "X", "*")

#: The two splits a front is measured on, as the axis labels name them.
SPLITS = {"training": "Training", "test": "Test"}

#: Per-group rates (label -> GroupCounts attribute) and the ones each metric compares, from
#: :mod:`fairlist.metric_table`.
RATES = {r.label: r.name for r in _RATE_TABLE.values()}
_METRIC_RATES = {m: tuple(_RATE_TABLE[r].label for r in i.rates) for m, i in METRICS.items()}

FrontLike = ParetoResult | pd.DataFrame | tuple[Sequence[float], Sequence[float]]


def new_axes(figsize: tuple[float, float] = (5.2, 4.4)):
    """A new axes on its own figure, made without pyplot (no window, any backend), laid out
    so that a legend outside the axes stays in the figure: what every plot here draws on when
    it is given no ``ax``.

    >>> new_axes((4.0, 3.0)).figure.get_size_inches().tolist()
    [4.0, 3.0]
    """
    from matplotlib.figure import Figure

    return Figure(figsize=figsize, layout="constrained").subplots()


def _xy(front: FrontLike) -> tuple[np.ndarray, np.ndarray]:
    """Unfairness and error of a front given as a result, a DataFrame or an (x, y) pair."""
    if isinstance(front, ParetoResult):
        table = front.plotted  # non-dominated on the plotted axes (see ParetoResult.plotted)
        if table.empty:
            return np.empty(0), np.empty(0)
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


def _split_of(front: FrontLike) -> str | None:
    """The split a front was measured on, when the front says so."""
    if isinstance(front, ParetoResult):
        return "test" if front.kind == "cross_validation" else "training"
    if isinstance(front, pd.DataFrame):
        if "test_error" in front:
            return "test"
        if "error" in front:
            return "training"
    return None


def _budget_of(result: ParetoResult) -> str:
    """The budget of a traced front in words, from its settings."""
    s = result.settings
    parts = []
    if s.get("max_length") is not None:
        parts.append(f"at most {s['max_length']} rules")
    if s.get("max_nodes"):
        parts.append(f"{int(s['max_nodes']):,} nodes")
    if s.get("time_limit"):
        parts.append(f"{s['time_limit']:g} s")
    if s.get("lam") is not None:
        parts.append(f"λ={s['lam']:g}")
    return ", ".join(parts) if parts else "no limit"


def front_title(
    dataset: str | None, metric: Metric | str | None, split: str | None, budget: str | None
) -> str:
    """The title of a front plot: data set on the first line; metric, split, budget below.

    >>> front_title("COMPAS", "EOdds", "test", "4,000,000 nodes")
    'COMPAS\\nEOdds · test folds (cross-validation) · 4,000,000 nodes'
    """
    where = {"test": "test folds (cross-validation)", "training": "training data"}.get(
        split or "", split
    )
    details = [
        Metric.parse(metric).short_name if metric is not None else None,
        where,
        budget,
    ]
    second = " · ".join(d for d in details if d)
    return "\n".join(t for t in (dataset, second) if t)


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
        ax = new_axes()
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


def place_legend(ax: Any, where: str | None) -> None:
    """Place the legend of ``ax`` where it covers nothing: ``"below"`` the axes (the plots'
    default) or ``"right"`` of them; another matplotlib location (``"upper right"``) inside
    them; None or ``"none"``: no legend. Axes without a labelled artist get none."""
    if where is None or where == "none" or not ax.get_legend_handles_labels()[0]:
        return
    if where == "below":
        n = len(ax.get_legend_handles_labels()[0])
        ax.legend(
            loc="upper center",
            bbox_to_anchor=(0.5, -0.16),
            ncol=min(n, 2),
            frameon=False,
            fontsize=8,
        )
    elif where == "right":
        ax.legend(loc="upper left", bbox_to_anchor=(1.02, 1.0), frameon=False, fontsize=8)
    else:
        ax.legend(loc=where, frameon=False, fontsize=8)


def _better_arrow(ax: Any) -> None:
    ax.annotate(
        "better",
        xy=(0.02, 0.03),
        xytext=(0.10, 0.13),
        xycoords="axes fraction",
        textcoords="axes fraction",
        fontsize=8,
        color="0.4",
        arrowprops={"arrowstyle": "->", "color": "0.5"},
    )


def plot_fronts(
    fronts: Mapping[str, FrontLike],
    ax: Any = None,
    *,
    metric: Metric | str | None = None,
    title: str | None = None,
    split: str | None = None,
    budget: str | None = None,
    only_front: bool = True,
    legend: str | None = "below",
    styles: Mapping[str, Mapping[str, Any]] | None = None,
):
    """Several methods' fronts on one axes, titled and labelled; returns the axes.

    Parameters
    ----------
    fronts : mapping of method name to front
        For example ``{"fairlist": result, "ExponentiatedGradient": (unf, err)}``.
    metric : Metric or str, optional
        Named on the x axis (``Test unfairness (SP)``) and in the title.
    title : str, optional
        First line of the title, usually the data set (``"COMPAS"``). The second line names
        the metric, the split and the budget.
    split : {"training", "test"}, optional
        What the errors and unfairness were measured on; by default read from the first front
        that says (a cross-validated :class:`ParetoResult` is ``test``, a training front
        ``training``).
    budget : str, optional
        The search budget in words; by default read from the first :class:`ParetoResult`.
    legend : {"below", "right", "none"} or a matplotlib location
        Where the legend goes; outside the axes by default, so it hides no point nor the
        "better" arrow.
    styles : mapping of method name to matplotlib keywords, optional
        A method's marker, colour, fill (``{"fillstyle": "none"}``), ...
    """
    if ax is None:
        ax = new_axes()
    if not fronts:
        raise InvalidParameterError("fronts is empty: give at least one method's front")
    if split is not None and split not in SPLITS:
        raise InvalidParameterError(f"split must be 'training' or 'test', got {split!r}")
    for k, (name, front) in enumerate(fronts.items()):
        style = {"marker": _MARKERS[k % len(_MARKERS)], **(styles or {}).get(name, {})}
        plot_pareto(front, ax, label=name, only_front=only_front, **style)
    if split is None:
        split = next((s for s in map(_split_of, fronts.values()) if s is not None), None)
    if budget is None:
        budget = next((_budget_of(f) for f in fronts.values() if isinstance(f, ParetoResult)), None)
    _label_axes(ax, metric, split)
    ax.set_title(front_title(title, metric, split, budget), fontsize=9)
    ax.grid(True, alpha=0.3)
    _better_arrow(ax)
    place_legend(ax, legend)
    return ax


def _label_axes(ax: Any, metric: Metric | str | None, split: str | None) -> None:
    short = Metric.parse(metric).short_name if metric is not None else None
    prefix = SPLITS.get(split or "", "")
    unfair = f"{prefix} unfairness".strip().capitalize()
    ax.set_xlabel(f"{unfair} ({short})" if short else unfair)
    ax.set_ylabel(f"{prefix} error".strip().capitalize())


def _counts(counts_or_y_true: Any, y_pred: Any, groups: Any, protected: Any) -> ConfusionCounts:
    if isinstance(counts_or_y_true, ConfusionCounts):
        if y_pred is not None or groups is not None:
            raise InvalidParameterError("give either ConfusionCounts or (y_true, y_pred, groups)")
        return counts_or_y_true
    if y_pred is None or groups is None:
        raise InvalidParameterError(
            "give the per-group ConfusionCounts, or y_true, y_pred and groups"
        )
    return confusion_counts(counts_or_y_true, y_pred, groups, protected)


def plot_group_rates(
    counts_or_y_true: ConfusionCounts | Any,
    y_pred: Any = None,
    groups: Any = None,
    *,
    protected: Any = None,
    metric: Metric | str | None = None,
    ax: Any = None,
    group_names: tuple[str, str] = ("protected", "unprotected"),
    title: str | None = None,
):
    """A bar chart of each group's rates: what an auditor checks for a chosen rule list.

    Parameters
    ----------
    counts_or_y_true : ConfusionCounts or array-like
        The per-group confusion counts (:func:`fairlist.metrics.confusion_counts`), or the
        true labels (0/1), with ``y_pred`` and ``groups``.
    y_pred, groups, protected : array-like, optional
        Predictions (0/1), each sample's group and the protected value (as in
        :func:`fairlist.metrics.confusion_counts`).
    metric : Metric or str, optional
        Show the rates this metric compares (SP: positive rate; PP: PPV; PE: FPR; EOpp: TPR;
        EOdds: TPR and FPR; CUAE: PPV and NPV), with its value in the title; None: all five.
    ax : matplotlib Axes, optional
    group_names : pair of str
        Legend names of the protected and the unprotected group.
    title : str, optional
        First line of the title (e.g. the data set and the rule list's name).

    Returns
    -------
    Axes
    """
    counts = _counts(counts_or_y_true, y_pred, groups, protected)
    m = Metric.parse(metric) if metric is not None else None
    names = _METRIC_RATES[m] if m is not None else tuple(RATES)
    if ax is None:
        ax = new_axes((1.6 + 1.3 * len(names), 3.6))
    width = 0.38
    xs = np.arange(len(names))
    for k, (group, gc) in enumerate(
        zip(group_names, (counts.protected, counts.unprotected), strict=True)
    ):
        values = [_rate(gc, RATES[n]) for n in names]
        bars = ax.bar(
            xs + (k - 0.5) * width,
            values,
            width,
            label=f"{group} (n={gc.n})",
            color=("C3", "C0")[k],
        )
        ax.bar_label(bars, fmt="%.3f", fontsize=7, padding=2)
    ax.set_xticks(xs, names)
    ax.set_ylim(0, 1.12)
    ax.set_ylabel("rate in the group")
    second = f"{m.short_name} = {counts.unfairness(m):.3f}" if m is not None else "rates per group"
    ax.set_title("\n".join(t for t in (title, second) if t), fontsize=9)
    ax.grid(True, axis="y", alpha=0.3)
    place_legend(ax, "below")
    return ax


def _rate(counts: GroupCounts, attribute: str) -> float:
    return float(getattr(counts, attribute))


def save_figure(ax: Any, path: str | Path, dpi: int = 150) -> Path:
    """Save the figure holding ``ax`` (or a Figure); the format follows the suffix."""
    path = Path(path)
    if path.suffix.lower() not in (".png", ".svg", ".pdf"):
        raise InvalidParameterError(f"plot path must end in .png, .svg or .pdf, got {path.name!r}")
    figure = getattr(ax, "figure", None) or ax
    metadata = {"Software": None} if path.suffix.lower() == ".png" else None
    figure.savefig(path, dpi=dpi, metadata=metadata)
    return path


def plot_rashomon_unfairness(
    rashomon: Any,
    metric: Metric | str | None = None,
    *,
    ax: Any = None,
    bins: int = 30,
    by: str = "classifiers",
):
    """A histogram of the unfairness of the classifiers of a Rashomon set
    (:func:`fairlist.rashomon_set`) under ``metric`` (default: the set's), with the fairest
    marked: the less discriminatory alternative within delta of the optimum. Each classifier
    (the lists that predict alike, all of one unfairness) counts once, by its shortest
    spelling; ``by="lists"``: every list counted (a classifier spelled many ways weighs more).

    >>> import numpy as np
    >>> from fairlist import rashomon_set
    >>> X = np.array([[1, 0], [1, 1], [0, 1], [0, 0]], dtype=np.uint8)
    >>> rs = rashomon_set(X, [1, 1, 0, 0], [1, 0, 1, 0], lam=0.01, delta=0.3)
    >>> plot_rashomon_unfairness(rs).get_title()
    '4 classifiers within 0.3 of the optimum'
    >>> plot_rashomon_unfairness(rs, by="lists").get_title()
    '6 rule lists within 0.3 of the optimum'

    Returns
    -------
    Axes
    """
    from .rashomon_result import BY

    if by not in BY:
        raise InvalidParameterError(f"by: {by!r} is not one of {BY}")
    m = rashomon.problem.metric if metric is None else Metric.parse(metric)
    name = METRICS[m].short_name
    source = rashomon._subset(rashomon.representatives) if by == "classifiers" else rashomon
    frame = source.to_frame(columns=["objective", name])  # numbers only: no text per list
    if ax is None:
        ax = new_axes((5.2, 3.6))
    ax.hist(frame[name], bins=bins, color="#4c72b0")
    if len(frame):
        best = source.fairest(m, frame=frame)
        ax.axvline(
            frame[name][best],
            color="#c44e52",
            linestyle="--",
            label=f"fairest: {frame[name][best]:.4f} (objective {frame['objective'][best]:.4f})",
        )
        ax.legend(loc="upper right")
    what = "classifiers" if by == "classifiers" else "rule lists"
    ax.set_xlabel(f"{name} unfairness (training)")
    ax.set_ylabel(what)
    ax.set_title(f"{len(frame)} {what} within {rashomon.delta:g} of the optimum")
    return ax


def plot_antecedent_usage(rashomon: Any, top: int = 15, *, ax: Any = None):
    """A bar chart of how many classifiers of a Rashomon set use each antecedent in their
    shortest spelling (the ``top`` most used): feature reliance across the set.

    Returns
    -------
    Axes
    """
    usage = rashomon.antecedent_usage()  # classifiers (their shortest spellings)
    total = rashomon.n_classifiers if usage.name == "classifiers" else len(rashomon)
    usage = usage.head(top)[::-1]
    if ax is None:
        ax = new_axes((5.2, 1.2 + 0.28 * max(len(usage), 1)))
    ax.barh([str(i) for i in usage.index], usage.to_numpy(), color="#4c72b0")
    ax.set_xlabel(f"{usage.name} using it (of {total})")
    return ax
