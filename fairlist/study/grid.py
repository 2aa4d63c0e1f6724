"""The study's grid: which data sets, metrics, caps, policies, folds and budgets a study runs
(:class:`StudyGrid`), and the named grids (:data:`PRESETS`).
"""

from __future__ import annotations

import numbers
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from .._params import Interval, Options, Satisfies, validate_params
from ..errors import InvalidParameterError
from ..metric_table import SHORT_NAMES
from ..metrics import Metric
from ..pareto import PAPER_POLICIES
from ..solvers.bnb import POLICIES
from ..sweep import FitSettings
from .baselines import BASELINES, FAIRLEARN_CONSTRAINTS

#: The six measures, by their short names, in the paper's order.
METRICS = SHORT_NAMES

#: The paper's appendix examples: (data set, metric) -> (accuracy, unfairness); metric None is
#: the unconstrained list (its accuracy only).
PAPER_EXAMPLES: dict[tuple[str, str | None], tuple[float, float | None]] = {
    ("adult", None): (0.829, None),
    ("adult", "SP"): (0.801, 0.019),
    ("adult", "PP"): (0.819, 0.036),
    ("adult", "PE"): (0.828, 0.001),
    ("adult", "EOpp"): (0.823, 0.008),
    ("adult", "EOdds"): (0.823, 0.006),
    ("adult", "CUAE"): (0.823, 0.056),
    ("compas", None): (0.681, None),
    ("compas", "SP"): (0.581, 0.040),
    ("compas", "PP"): (0.642, 0.005),
    ("compas", "PE"): (0.597, 0.056),
    ("compas", "EOpp"): (0.585, 0.072),
    ("compas", "EOdds"): (0.591, 0.048),
    ("compas", "CUAE"): (0.645, 0.009),
}


# --------------------------------------------------------------------------- the grid
def _names_in(allowed: Sequence[str], what: str) -> Satisfies:
    allowed = tuple(allowed)
    return Satisfies(
        lambda v: all(x in allowed for x in v), f"a sequence of {what} among {list(allowed)}"
    )


INTEGRAL = numbers.Integral
REAL = numbers.Real
_GRID_CONSTRAINTS: dict[str, list] = {
    "metrics": [_names_in(METRICS, "metric short names")],
    "epsilons": [Satisfies(lambda v: all(0 <= e <= 2 for e in v), "a sequence of caps in [0, 2]")],
    "policies": [_names_in(POLICIES, "branch-and-bound policies")],
    "pooled": [_names_in(POLICIES, "branch-and-bound policies")],
    "baselines": [_names_in(BASELINES, "baselines")],
    "bounds": [Satisfies(lambda v: all(b > 0 for b in v), "a sequence of bounds > 0")],
    "baseline_metrics": [_names_in(FAIRLEARN_CONSTRAINTS, "metrics fairlearn constrains")],
    "training_policy": [Options(POLICIES)],
    "cv": [Interval(INTEGRAL, 2, None, closed="left")],
    "seed": [Interval(INTEGRAL, 0, None, closed="left")],
    "lam": [Interval(REAL, 0, None, closed="left")],
    "max_nodes": [Interval(INTEGRAL, 1, None, closed="left")],
    "memory_limit_mb": [None, Interval(REAL, 0, None, closed="neither")],
    "training_max_length": [None, Interval(INTEGRAL, 1, None, closed="left")],
    "training_max_points": [None, Interval(INTEGRAL, 1, None, closed="left")],
    "training_max_nodes": [Interval(INTEGRAL, 1, None, closed="left")],
    "expgrad_iterations": [Interval(INTEGRAL, 1, None, closed="left")],
}
_SEQUENCES = (
    "datasets",
    "metrics",
    "epsilons",
    "policies",
    "pooled",
    "baselines",
    "bounds",
    "baseline_metrics",
)


@dataclass(frozen=True)
class StudyGrid:
    """What a study fits: data sets, metrics, caps, policies, folds, budgets, baselines.

    The defaults are the paper's protocol (:data:`PRESETS` ``"paper"``). Every value is checked
    when the grid is made; an empty grid is an error.

    Parameters
    ----------
    datasets : tuple of str
        ``"compas"``, ``"adult"`` (:func:`fairlist.datasets.load_dataset`), or names of data
        handed to :func:`run_study`.
    metrics : tuple of str
        Short names (:data:`METRICS`).
    epsilons : tuple of float
        The caps of every fairlist front (the paper: 60 values evenly spaced in [0, 1]).
    policies : tuple of str
        The branch-and-bound policies fitted.
    pooled : tuple of str
        The policies pooled into each front (a subset of ``policies``; the paper's four, BFS
        objective-aware in its code's order, :data:`fairlist.pareto.PAPER_POLICIES`).
    cv, seed : int
        Folds (stratified on label and group) and their seed; the seed also seeds the baselines.
    lam : float
        Length penalty (the paper: 1e-3).
    max_nodes : int
        Trie budget of every fit (the paper: 4,000,000).
    memory_limit_mb : float or None
        Cap on the search structures, in MiB of bytes the engine counts itself (so as
        deterministic as ``max_nodes``). It bounds the curiosity policy: its bounds prune almost
        every child, expanded prefixes leave the trie, and the trie stays near 2,000 nodes, so
        ``max_nodes`` never stops it (on COMPAS: 617,000 expansions in 60 s, trie peak 2,137),
        while its permutation map grows by 35-55 bytes a node created. None: 80 bytes per node
        of ``max_nodes``, above what the other policies reach at ``max_nodes`` (49-65 bytes a
        node measured), so that the cap binds curiosity only, after about 1.5-2.2
        ``max_nodes`` nodes created (measured on COMPAS and Adult).
    baselines : tuple of str
        Methods of :data:`BASELINES`.
    bounds : tuple of float
        The constrained baselines' ``difference_bound`` values.
    expgrad_iterations : int
        ``max_iter`` of ExponentiatedGradient (each iteration refits the model).
    baseline_metrics : tuple of str
        Metrics the constrained baselines run for (among :data:`FAIRLEARN_CONSTRAINTS`; the
        paper's Figures 3-4: SP, EOpp, EOdds).
    training_max_length : int or None
        Length cap of the exact training fronts (None: no training front).
    training_max_nodes : int
        Trie budget of each solve of a training front (the paper's 4,000,000: with a length
        cap the searches end, certified, long before).
    training_max_points : int or None
        Stop a training front after this many solves.
    training_policy : str
        Policy of the training fronts' solves.
    """

    datasets: tuple[str, ...] = ("compas", "adult")
    metrics: tuple[str, ...] = METRICS
    epsilons: tuple[float, ...] = tuple(float(e) for e in np.linspace(0.0, 1.0, 60))
    policies: tuple[str, ...] = (*PAPER_POLICIES, "bfs_objective_aware")
    pooled: tuple[str, ...] = PAPER_POLICIES
    cv: int = 5
    seed: int = 0
    lam: float = 0.001
    max_nodes: int = 4_000_000
    memory_limit_mb: float | None = None
    baselines: tuple[str, ...] = tuple(BASELINES)
    bounds: tuple[float, ...] = (0.001, 0.0025, 0.005, 0.01, 0.02, 0.03, 0.05, 0.075, 0.1, 0.15)
    expgrad_iterations: int = 50
    baseline_metrics: tuple[str, ...] = ("SP", "EOpp", "EOdds")
    training_max_length: int | None = 2
    training_max_nodes: int = 4_000_000
    training_max_points: int | None = 200
    training_policy: str = "bfs"

    def __post_init__(self) -> None:
        for name in _SEQUENCES:
            value = getattr(self, name)
            if isinstance(value, (str, bytes)) or not isinstance(value, Sequence | np.ndarray):
                raise InvalidParameterError(
                    f"The {name!r} parameter of StudyGrid must be a sequence; got {value!r}."
                )
            convert = float if name in ("epsilons", "bounds") else str
            object.__setattr__(self, name, tuple(convert(v) for v in value))
        values = {name: getattr(self, name) for name in _GRID_CONSTRAINTS}
        validate_params("StudyGrid", _GRID_CONSTRAINTS, values)
        empty = [
            n
            for n in ("datasets", "metrics", "epsilons", "policies", "pooled")
            if not getattr(self, n)
        ]
        if empty:
            raise InvalidParameterError(
                f"the study grid is empty: no {', no '.join(empty)} (give at least one of each)"
            )
        if not set(self.pooled) <= set(self.policies):
            extra = sorted(set(self.pooled) - set(self.policies))
            raise InvalidParameterError(
                f"pooled policies {extra} are not among the fitted policies {list(self.policies)}"
            )

    def to_dict(self) -> dict[str, Any]:
        """The grid as JSON-ready values."""
        return {k: list(v) if isinstance(v, tuple) else v for k, v in asdict(self).items()}

    def settings(self, metric: str | None, training: bool = False) -> FitSettings:
        """The fit settings of ``metric`` (None: an unconstrained fit, measured under all);
        ``training``: those of the training fronts' solves."""
        nodes = self.training_max_nodes if training else self.max_nodes
        return FitSettings(
            Metric.parse(metric or "SP"),
            float(self.lam),
            self.training_max_length if training else None,
            "bnb",
            nodes,
            None,
            self.memory(nodes),
        )

    def memory(self, max_nodes: int) -> float:
        """The cap on the search structures (``memory_limit_mb``, or its default)."""
        if self.memory_limit_mb is not None:
            return float(self.memory_limit_mb)
        return round(80.0 * max_nodes / 2**20, 3)

    @property
    def memory_mb(self) -> float:
        """The cap on the search structures of the grid's fits."""
        return self.memory(self.max_nodes)

    def budget(self) -> str:
        """The budget in words, for titles: ``4,000,000 nodes, lambda 0.001``."""
        return f"{self.max_nodes:,} nodes, λ={self.lam:g}"


def _squares(n: int, top: float = 1.0) -> tuple[float, ...]:
    """``n`` caps in [0, top] spaced as squares: dense near 0, where the trade-off happens."""
    return tuple(round(top * (k / (n - 1)) ** 2, 6) for k in range(n))


#: Named grids. ``paper``: the paper's protocol, in full. ``subgrid``: the grid committed in
#: ``docs/reproduction.md`` (what 2 shared cores run in a few hours). ``quick``: minutes.
#: ``smoke``: seconds, for tests (COMPAS only).
PRESETS: dict[str, StudyGrid] = {
    "paper": StudyGrid(),
    "subgrid": StudyGrid(
        epsilons=(0.005, 0.02, 0.05),
        policies=("bfs", "bfs_objective_aware", "bfs_objective_aware_lowest", "lower_bound"),
        pooled=("bfs", "bfs_objective_aware_lowest", "lower_bound"),
        max_nodes=200_000,
        bounds=(0.01, 0.05),
        expgrad_iterations=10,
        training_max_length=2,
        training_max_points=60,
    ),
    "quick": StudyGrid(
        epsilons=_squares(8),
        policies=("bfs", "lower_bound"),
        pooled=("bfs", "lower_bound"),
        cv=3,
        max_nodes=20_000,
        bounds=(0.01, 0.05),
        expgrad_iterations=5,
        training_max_length=1,
        training_max_nodes=20_000,
    ),
    "smoke": StudyGrid(
        datasets=("compas",),
        metrics=("SP", "EOdds"),
        epsilons=(0.02, 0.1),
        policies=("bfs", "bfs_objective_aware_lowest"),
        pooled=("bfs",),
        cv=2,
        max_nodes=2_000,
        baselines=("expgrad_lr", "lr"),
        bounds=(0.05,),
        expgrad_iterations=5,
        baseline_metrics=("SP",),
        training_max_length=1,
        training_max_nodes=2_000,
        training_max_points=5,
    ),
}
