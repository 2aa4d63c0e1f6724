"""The paper's experiments, reproduced: one deterministic, resumable, parallel study.

FairCORELS' evidence (its section "Experiments") is a set of Pareto fronts: for Adult and COMPAS,
for the six unfairness measures, 60 caps ``epsilon`` in [0, 1], 5-fold cross-validation, four
search policies pooled, lambda 1e-3 and a trie of at most 4,000,000 nodes (Figure 2); and, for
statistical parity, equal opportunity and equalized odds, the same fronts beside an interpretable
fair method and a non-interpretable one (Figures 3 and 4). :func:`run_study` runs that protocol,
or any sub-grid of it (:class:`StudyGrid`, :data:`PRESETS`), and writes the tables and figures;
``examples/reproduce_paper.py`` is its command line.

What makes it a reproduction rather than a demo:

* **Deterministic.** Every budget is a count (trie nodes, and bytes of search structures that the
  engine counts itself), never seconds; folds and baselines are seeded. The same grid gives the
  same CSV files, bit for bit, on a quiet machine or a loaded one, with 1 worker or 16.
* **Resumable.** Every finished fit is stored at once as one small JSON record in the results
  folder, named by a hash of its parameters (data fingerprint, metric, cap, policy, fold, budget,
  ...). A rerun loads what is there and computes only what is missing, so an interrupted study
  restarts where it stopped, and a larger grid reuses a smaller one's fits. Ctrl-C stops the run
  cleanly: the fits done are kept, the fits cut short are never stored. A folder written by another
  fairlist or study-format version is refused (:class:`ResultsFolderError`) instead of being mixed,
  and so is a folder that is not a study's (not empty, no ``study.json``): nothing in it is
  overwritten. Each record carries the SHA-256 of its content; a record whose content no longer
  matches it (edited numbers) is refused, naming the file, never used nor silently recomputed.
* **Parallel.** Fits run through :func:`fairlist.parallel.run_tasks` (joblib): process workers
  locally, or the workers of a Dask cluster given its scheduler address — the same code path. The
  data go to the workers once (memory-mapped, or scattered to the cluster), the longest fits start
  first, and the run prints its progress (fits done / total, elapsed, time left) and its parallel
  efficiency.

Baselines (:data:`BASELINES`, from fairlearn and scikit-learn, the ``study`` extra): fairlearn's
:class:`~fairlearn.reductions.ExponentiatedGradient` around a logistic regression (interpretable,
in the place of Zafar et al.'s constrained logistic regression) and around a gradient-boosted
model (non-interpretable, in the place of LAFTR, whose code is unmaintained). Like LAFTR and
unlike a post-processing method such as fairlearn's ThresholdOptimizer, it does not read the
sensitive attribute at prediction time — the paper's setting for every method — and its
constraint bound traces a trade-off. The unconstrained rule list, logistic regression and
boosted model are reference points. Every method is measured on the same folds by the same code
(:func:`fairlist.metrics.unfairness`; equalized odds is the paper's sum of the two gaps).

Beyond the paper: the exact training front of lists of at most ``training_max_length`` rules
(:func:`fairlist.pareto.training_front`), each point with its optimality status and gap.
"""

from __future__ import annotations

import hashlib
import json
import math
import numbers
import os
import re
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, TextIO

import numpy as np
import pandas as pd

from ._params import InstanceOf, Interval, Options, Satisfies, validate_params
from ._version import __version__
from .errors import FairlistError, InvalidParameterError
from .metrics import Metric, unfairness
from .pareto import (
    INTERRUPTED,
    PAPER_POLICIES,
    FitSettings,
    RunReport,
    SweepData,
    fit_fold,
    fold_assignment,
    non_dominated,
    rule_list_text,
    run_tasks,
    training_front,
)
from .solvers import Problem
from .solvers.bnb import POLICIES

__all__ = [
    "FORMAT",
    "FORMAT_VERSION",
    "METRICS",
    "BASELINES",
    "PAPER_EXAMPLES",
    "PRESETS",
    "StudyGrid",
    "StudyOutcome",
    "ResultsFolderError",
    "SchedulerError",
    "run_study",
    "study_tables",
]

FORMAT = "fairlist.study"
#: Version of the results folder's layout and records; a folder of another version is refused.
FORMAT_VERSION = 2  # 2: each record carries the checksum of its content

#: The six measures, by their short names, in the paper's order.
METRICS = ("SP", "PP", "PE", "EOpp", "EOdds", "CUAE")

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


class ResultsFolderError(FairlistError, ValueError):
    """The results folder cannot be used: written by another fairlist or study-format version,
    not a study's folder (a file, or a folder holding other things), or a record in it whose
    content does not match its checksum."""


class SchedulerError(FairlistError, ConnectionError):
    """No Dask scheduler answers at the address given."""


# --------------------------------------------------------------------------- baselines
#: fairlearn's reduction constraint for each measure it implements (PP and CUAE have none).
FAIRLEARN_CONSTRAINTS = {
    "SP": "DemographicParity",
    "PE": "FalsePositiveRateParity",
    "EOpp": "TruePositiveRateParity",
    "EOdds": "EqualizedOdds",
}


def _logistic_regression(seed: int):
    from sklearn.linear_model import LogisticRegression

    # lbfgs: 2.3 s on Adult's 24,000 x 212 training folds where liblinear takes 13 s.
    return LogisticRegression(solver="lbfgs", max_iter=1000, random_state=seed)


def _boosted_trees(seed: int):
    from sklearn.ensemble import HistGradientBoostingClassifier

    # A small model: ExponentiatedGradient refits it once per iteration.
    return HistGradientBoostingClassifier(
        max_iter=20, max_leaf_nodes=15, early_stopping=False, random_state=seed
    )


@dataclass(frozen=True)
class Baseline:
    """A comparison method: how to build its model, and whether a bound constrains it."""

    label: str  # legend text
    model: Callable[[int], Any]  # seed -> unfitted scikit-learn classifier
    constrained: bool  # ExponentiatedGradient around the model, one point per bound
    options: str  # the model's hyperparameters, part of every record's key


#: Comparison methods by name (adding one is adding an entry).
BASELINES: dict[str, Baseline] = {
    "expgrad_lr": Baseline("ExpGrad(logistic regression)", _logistic_regression, True, "lbfgs"),
    "expgrad_gbm": Baseline("ExpGrad(boosted trees)", _boosted_trees, True, "hgb20x15"),
    "lr": Baseline("logistic regression", _logistic_regression, False, "lbfgs"),
    "gbm": Baseline("boosted trees", _boosted_trees, False, "hgb20x15"),
}


def _fit_baseline(
    data: SweepData,
    name: str,
    metric: str | None,
    bound: float | None,
    fold: int,
    seed: int,
    iterations: int,
) -> dict[str, Any]:
    """One baseline fit on a training fold, measured on its test fold under every metric."""
    import warnings

    from threadpoolctl import threadpool_limits

    baseline = BASELINES[name]
    train, test = data.fold != fold, data.fold == fold
    X = data.X.astype(np.float64)
    model = baseline.model(seed)
    # One thread: results that do not depend on the machine's core count, and no
    # oversubscription when several fits run side by side.
    with threadpool_limits(1), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if baseline.constrained:
            from fairlearn import reductions

            constraint = getattr(reductions, FAIRLEARN_CONSTRAINTS[metric])(difference_bound=bound)
            model = reductions.ExponentiatedGradient(
                model, constraints=constraint, max_iter=iterations
            )
            model.fit(X[train], data.y[train], sensitive_features=data.protected[train])
            predict = lambda rows: model.predict(X[rows], random_state=seed)  # noqa: E731
        else:
            model.fit(X[train], data.y[train])
            predict = lambda rows: model.predict(X[rows])  # noqa: E731
        return _scores(data, predict(train), predict(test), train, test)


def _scores(data: SweepData, pred_train, pred_test, train, test) -> dict[str, Any]:
    """Error and every measure's unfairness, on the training and the test fold."""
    out: dict[str, Any] = {"status": "done"}
    for split, rows, pred in (("train", train, pred_train), ("test", test, pred_test)):
        pred = np.asarray(pred).astype(np.uint8)
        y, g = data.y[rows], data.protected[rows]
        out[f"{split}_error"] = float(np.mean(pred != y))
        out[f"{split}_unfairness"] = {m: unfairness(y, pred, g, m) for m in METRICS}
    return out


# --------------------------------------------------------------------------- rule-list tasks
def _fit_rule_list(
    data: SweepData, settings: FitSettings, epsilon: float | None, policy: str, fold: int
) -> dict[str, Any]:
    """One fairlist fit (:func:`fairlist.pareto.fit_fold`), as a small record.

    An unconstrained fit (``epsilon`` None) is measured under every metric, so that one fit
    serves as the reference point of all six fronts.
    """
    row = fit_fold(data, settings, epsilon, policy, fold)
    rule_list = row.pop("rule_list")
    row["rule_list"] = rule_list_text(rule_list)
    if epsilon is None and rule_list is not None:
        from .rulelist import RuleList

        rl = RuleList.from_dict(rule_list)
        train, test = data.fold != fold, data.fold == fold
        scores = _scores(data, rl.predict(data.X[train]), rl.predict(data.X[test]), train, test)
        row["train_unfairness"] = scores["train_unfairness"]
        row["test_unfairness"] = scores["test_unfairness"]
    return row


def _training_front(
    data: SweepData, settings: FitSettings, policy: str, max_points: int | None
) -> dict[str, Any]:
    """The exact training front on all rows of ``data`` (one study task), as a record."""
    X = pd.DataFrame(data.X, columns=list(data.feature_names))
    result = training_front(
        X, data.y, data.protected, metric=settings.metric, lam=settings.lam,
        max_length=settings.max_length, policy=policy, max_nodes=settings.max_nodes,
        memory_limit_mb=settings.memory_limit_mb, max_points=max_points,
    )  # fmt: skip
    points = result.points.drop(columns=["seconds"])
    kept = {json.dumps(r, sort_keys=True) for r in result.front["rule_list"]}
    points["on_front"] = [
        r is not None and json.dumps(r, sort_keys=True) in kept for r in points["rule_list"]
    ]
    points["rule_list"] = [rule_list_text(r, data.labels) for r in points["rule_list"]]
    return {
        "status": INTERRUPTED if result.partial else "done",
        "complete": bool(result.settings["complete"]),
        "exact_steps": bool(result.settings["exact_steps"]),
        "points": json.loads(points.to_json(orient="records", double_precision=15)),
    }


#: The study's task functions by kind (the first argument of every task).
_TASKS: dict[str, Callable[..., dict[str, Any]]] = {
    "rule_list": _fit_rule_list,
    "baseline": _fit_baseline,
    "training_front": _training_front,
}


def _run_task(bundle: Mapping[str, SweepData], kind: str, dataset: str, *args: Any):
    """A worker's entry point: the task of ``kind`` on the shared data of ``dataset``."""
    return _TASKS[kind](bundle[dataset], *args)


# --------------------------------------------------------------------------- the grid
def _names_in(allowed: Sequence[str], what: str) -> Satisfies:
    allowed = tuple(allowed)
    return Satisfies(
        lambda v: all(x in allowed for x in v), f"a sequence of {what} among {list(allowed)}"
    )


_INT = numbers.Integral
_REAL = numbers.Real
_GRID_CONSTRAINTS: dict[str, list] = {
    "metrics": [_names_in(METRICS, "metric short names")],
    "epsilons": [Satisfies(lambda v: all(0 <= e <= 2 for e in v), "a sequence of caps in [0, 2]")],
    "policies": [_names_in(POLICIES, "branch-and-bound policies")],
    "pooled": [_names_in(POLICIES, "branch-and-bound policies")],
    "baselines": [_names_in(BASELINES, "baselines")],
    "bounds": [Satisfies(lambda v: all(b > 0 for b in v), "a sequence of bounds > 0")],
    "baseline_metrics": [_names_in(FAIRLEARN_CONSTRAINTS, "metrics fairlearn constrains")],
    "training_policy": [Options(POLICIES)],
    "cv": [Interval(_INT, 2, None, closed="left")],
    "seed": [Interval(_INT, 0, None, closed="left")],
    "lam": [Interval(_REAL, 0, None, closed="left")],
    "max_nodes": [Interval(_INT, 1, None, closed="left")],
    "memory_limit_mb": [None, Interval(_REAL, 0, None, closed="neither")],
    "training_max_length": [None, Interval(_INT, 1, None, closed="left")],
    "training_max_points": [None, Interval(_INT, 1, None, closed="left")],
    "training_max_nodes": [Interval(_INT, 1, None, closed="left")],
    "expgrad_iterations": [Interval(_INT, 1, None, closed="left")],
}
_SEQUENCES = ("datasets", "metrics", "epsilons", "policies", "pooled", "baselines", "bounds",
              "baseline_metrics")  # fmt: skip


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
        empty = [n for n in ("datasets", "metrics", "epsilons", "policies", "pooled")
                 if not getattr(self, n)]  # fmt: skip
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
            Metric.parse(metric or "SP"), float(self.lam),
            self.training_max_length if training else None, "bnb", nodes, None,
            self.memory(nodes),
        )  # fmt: skip

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
        pooled=("bfs", "bfs_objective_aware_lowest", "lower_bound"), max_nodes=200_000,
        bounds=(0.01, 0.05), expgrad_iterations=10, training_max_length=2,
        training_max_points=60,
    ),  # fmt: skip
    "quick": StudyGrid(
        epsilons=_squares(8), policies=("bfs", "lower_bound"), pooled=("bfs", "lower_bound"),
        cv=3, max_nodes=20_000, bounds=(0.01, 0.05), expgrad_iterations=5,
        training_max_length=1, training_max_nodes=20_000,
    ),  # fmt: skip
    "smoke": StudyGrid(
        datasets=("compas",), metrics=("SP", "EOdds"), epsilons=(0.02, 0.1),
        policies=("bfs", "bfs_objective_aware_lowest"), pooled=("bfs",), cv=2, max_nodes=2_000,
        baselines=("expgrad_lr", "lr"), bounds=(0.05,), expgrad_iterations=5,
        baseline_metrics=("SP",), training_max_length=1, training_max_nodes=2_000,
        training_max_points=5,
    ),  # fmt: skip
}


# --------------------------------------------------------------------------- results folder
def _digest(key: Mapping[str, Any]) -> str:
    """A record's name: a hash of its key's canonical JSON."""
    return hashlib.sha256(json.dumps(key, sort_keys=True).encode()).hexdigest()[:24]


class ResultsFolder:
    """A study's folder: ``study.json`` (the versions that wrote it) and one record per fit.

    The study claims a folder that is new or empty, or that holds its marker, ``study.json`` of
    this format and version; any other folder (or a file) is refused, never written into.
    Records live in ``records/<kind>/<hash>.json``; each holds its key, its result, how long
    the fit took and ``sha256``, the checksum of those three fields' canonical JSON. They are
    written atomically (a temporary file renamed), so an interrupted write leaves no half
    record; a record that does not read back whole (not JSON, another key, a checksum that
    does not match) is refused (:class:`ResultsFolderError`, naming the file: delete it and
    the fit is computed again).
    """

    MANIFEST = "study.json"

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = Path(path)

    def manifest(self) -> dict[str, Any]:
        return {"format": FORMAT, "format_version": FORMAT_VERSION, "fairlist": __version__}

    def open(self) -> None:
        """Create the folder, or check that this version of the study wrote it."""
        file = self.path / self.MANIFEST
        if self.path.exists() and not self.path.is_dir():
            raise ResultsFolderError(
                f"the results folder {self.path} is a file, not a folder: give a new or empty "
                "folder, or one a study wrote"
            )
        if file.exists():
            try:
                found = json.loads(file.read_text(encoding="utf-8"))
            except (OSError, ValueError) as exc:
                raise ResultsFolderError(f"{file} is not a study manifest ({exc})") from None
            if not isinstance(found, dict):
                raise ResultsFolderError(
                    f"{file} is not a study manifest (a JSON {type(found).__name__}, expected an "
                    f"object with format {FORMAT!r}): {self.path} is not a study's folder; give "
                    "a new or empty folder"
                )
            if any(found.get(k) != v for k, v in self.manifest().items()):
                raise ResultsFolderError(
                    f"{self.path} holds results of another version (format "
                    f"{found.get('format')!r} {found.get('format_version')!r}, fairlist "
                    f"{found.get('fairlist')!r}); this is fairlist {__version__}, study format "
                    f"{FORMAT_VERSION}. Results of different versions are not mixed: give "
                    f"another folder, or delete this one to start afresh."
                )
            return
        if self.path.exists():
            entries = sorted(e.name for e in self.path.iterdir())
            if entries:
                shown = ", ".join(entries[:5]) + (", ..." if len(entries) > 5 else "")
                raise ResultsFolderError(
                    f"the results folder {self.path} is not empty and holds no {self.MANIFEST} "
                    f"(found {len(entries)} entries: {shown}): it is not a study's folder and "
                    "nothing in it is overwritten; give a new or empty folder"
                )
        self.path.mkdir(parents=True, exist_ok=True)
        _write_atomic(file, json.dumps(self.manifest(), indent=2) + "\n")

    def _file(self, key: Mapping[str, Any]) -> Path:
        return self.path / "records" / str(key["kind"]) / f"{_digest(key)}.json"

    def load(self, key: Mapping[str, Any]) -> dict[str, Any] | None:
        """The stored result of ``key``, or None when there is none.

        Raises
        ------
        ResultsFolderError
            The record is there but does not read back whole: not JSON, another key, no
            checksum or one that does not match its content.
        """
        file = self._file(key)
        if not file.exists():
            return None
        try:
            doc = json.loads(file.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise self._refused(file, f"it cannot be read as JSON ({exc})") from None
        if not isinstance(doc, dict) or set(doc) != {"key", "result", "seconds", "sha256"}:
            raise self._refused(file, "it is not a record (expected key, result, seconds, sha256)")
        if doc["sha256"] != _checksum(doc):
            raise self._refused(file, "its content does not match its checksum (edited?)")
        if doc["key"] != key or not isinstance(doc["result"], dict):
            raise self._refused(file, "it holds another fit's key")
        return doc["result"]

    def _refused(self, file: Path, why: str) -> ResultsFolderError:
        return ResultsFolderError(
            f"record {file} is refused: {why}. Its numbers are not used; delete the file and "
            "the fit is computed again"
        )

    def save(self, key: Mapping[str, Any], result: dict[str, Any], seconds: float) -> None:
        """Store one finished fit, with the checksum of its content."""
        doc: dict[str, Any] = {"key": key, "result": result, "seconds": round(seconds, 3)}
        doc = json.loads(json.dumps(doc, allow_nan=True))  # as load reads it back
        doc["sha256"] = _checksum(doc)
        _write_atomic(self._file(key), json.dumps(doc, allow_nan=True))


def _checksum(doc: Mapping[str, Any]) -> str:
    """SHA-256 of a record's key, result and seconds, as canonical JSON (sorted keys, no
    spaces): the same text after a JSON round trip, so a stored record checks exactly."""
    content = {k: doc[k] for k in ("key", "result", "seconds")}
    text = json.dumps(content, sort_keys=True, separators=(",", ":"), allow_nan=True)
    return hashlib.sha256(text.encode()).hexdigest()


def _write_atomic(file: Path, text: str) -> None:
    file.parent.mkdir(parents=True, exist_ok=True)
    tmp = file.with_name(f".{file.name}.{os.getpid()}.tmp")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, file)


# --------------------------------------------------------------------------- data and tasks
def _fingerprint(data: SweepData) -> str:
    """A short hash of the data a study fits (a changed binarization gives new records)."""
    h = hashlib.sha256()
    for array in (data.X, data.y, data.protected):
        h.update(np.ascontiguousarray(array).tobytes())
        h.update(str(array.shape).encode())
    h.update(json.dumps([list(data.feature_names), list(data.labels)]).encode())
    return h.hexdigest()[:16]


DataLike = tuple[Any, Any, Any]  # (X of antecedents, y, protected mask)


def _load_data(
    grid: StudyGrid, data: Mapping[str, DataLike] | None, data_home: str | os.PathLike | None
) -> dict[str, SweepData]:
    """Every data set of the grid as :class:`SweepData` with its folds."""
    from .datasets import DATASETS, load_dataset

    given = dict(data or {})
    unknown = [d for d in grid.datasets if d not in given and d not in DATASETS]
    if unknown:
        raise InvalidParameterError(
            f"unknown data set {unknown[0]!r}: use one of {sorted(set(DATASETS) | set(given))}"
        )
    bundle = {}
    for name in grid.datasets:
        if name in given:
            X, y, protected = given[name]
            labels = None
        else:
            ds = load_dataset(name, data_home=data_home)
            X, y, protected, labels = ds.X, ds.y, ds.protected_mask, ds.labels
        problem = Problem.from_data(X, y, protected, labels=labels)
        fold = fold_assignment(problem.y, problem.protected, grid.cv, grid.seed)
        bundle[name] = SweepData(
            problem.X, problem.y, problem.protected, fold, problem.feature_names, problem.labels
        )
    return bundle


@dataclass(frozen=True)
class _Task:
    key: dict[str, Any]  # the record's key
    args: tuple  # (kind, dataset, *arguments of the task function)
    cost: float  # relative duration estimate: the longest start first


#: Rough cost of a task per million (rows x antecedents), in units of about 10 CPU seconds,
#: from one fold of COMPAS and Adult (benchmarks/bench_study_cost.py): a rule-list fit at
#: 4,000,000 nodes (scaled by max_nodes; lower bound and curiosity relative to breadth-first),
#: a baseline fit, a whole training front. Only the order of the tasks depends on them.
_COSTS = {"rule_list": 1.0, "lower_bound": 0.4, "curiosity": 36.0, "expgrad_gbm": 1.2,
          "expgrad_lr": 0.9, "lr": 0.05, "gbm": 0.1, "training_front": 0.1}  # fmt: skip


def _tasks(grid: StudyGrid, bundle: Mapping[str, SweepData]) -> list[_Task]:
    """Every fit of the grid, with its key."""
    tasks: list[_Task] = []
    for name, data in bundle.items():
        rows_by_columns = data.X.shape[0] * data.X.shape[1] / 1e6
        size = rows_by_columns * grid.max_nodes / 4e6
        common = {"dataset": name, "data": _fingerprint(data), "cv": grid.cv, "seed": grid.seed}
        budget = {"lam": grid.lam, "max_nodes": grid.max_nodes,
                  "memory_limit_mb": grid.memory_mb}  # fmt: skip
        for metric in (None, *grid.metrics):
            for epsilon in (None,) if metric is None else grid.epsilons:
                for policy in grid.policies:
                    for fold in range(grid.cv):
                        key = {"kind": "rule_list", **common, **budget, "metric": metric,
                               "epsilon": epsilon, "policy": policy, "fold": fold}  # fmt: skip
                        settings = grid.settings(metric)
                        cost = size * _COSTS.get(policy, _COSTS["rule_list"])
                        tasks.append(_Task(key, ("rule_list", name, settings, epsilon, policy,
                                                 fold), cost))  # fmt: skip
        tasks += _baseline_tasks(grid, name, common, rows_by_columns)
        if grid.training_max_length is not None:
            for metric in grid.metrics:
                settings = grid.settings(metric, training=True)
                key = {"kind": "training_front", "dataset": name, "data": common["data"],
                       "lam": grid.lam, "max_nodes": settings.max_nodes,
                       "memory_limit_mb": settings.memory_limit_mb, "metric": metric,
                       "max_length": grid.training_max_length, "policy": grid.training_policy,
                       "max_points": grid.training_max_points}  # fmt: skip
                args = ("training_front", name, settings, grid.training_policy,
                        grid.training_max_points)  # fmt: skip
                tasks.append(_Task(key, args, _COSTS["training_front"] * rows_by_columns))
    return tasks


def _baseline_tasks(grid: StudyGrid, name: str, common: dict, size: float) -> list[_Task]:
    tasks = []
    for method in grid.baselines:
        baseline = BASELINES[method]
        cases = (
            [(m, b) for m in grid.baseline_metrics if m in grid.metrics for b in grid.bounds]
            if baseline.constrained
            else [(None, None)]
        )
        for metric, bound in cases:
            for fold in range(grid.cv):
                key = {"kind": "baseline", **common, "method": method,
                       "options": baseline.options, "metric": metric, "bound": bound,
                       "iterations": grid.expgrad_iterations if bound else None,
                       "fold": fold}  # fmt: skip
                args = ("baseline", name, method, metric, bound, fold, grid.seed,
                        grid.expgrad_iterations)  # fmt: skip
                tasks.append(_Task(key, args, size * _COSTS[method]))
    return tasks


# --------------------------------------------------------------------------- progress
class _Progress:
    """Prints fits done / total, elapsed time and the time left, at most every ``interval`` s.

    The time left is the elapsed time scaled by the estimated cost of the fits left over the
    cost of the fits done (the longest start first, so a count of fits would mislead).
    """

    def __init__(
        self, total: int, stored: int, cost: float, stream: TextIO | None, interval: float
    ) -> None:
        self.total, self.stored, self.stream, self.interval = total, stored, stream, interval
        self.cost_left = cost
        self.cost_done = 0.0
        self.start = time.perf_counter()
        self.last = -math.inf
        self.computed = 0

    def line(self) -> str:
        done = self.stored + self.computed
        elapsed = time.perf_counter() - self.start
        eta = elapsed * self.cost_left / self.cost_done if self.cost_done > 0 else math.nan
        when = "?" if math.isnan(eta) else _clock(eta)
        before = f" ({self.stored} stored before)" if self.stored else ""
        return (
            f"study: {done}/{self.total} fits{before}, {_clock(elapsed)} elapsed, about "
            f"{when} left"
        )

    def update(self, cost: float = 0.0, force: bool = False) -> None:
        if not force:
            self.computed += 1
            self.cost_done += cost
            self.cost_left = max(0.0, self.cost_left - cost)
        now = time.perf_counter()
        if self.stream is not None and (force or now - self.last >= self.interval):
            self.last = now
            print(self.line(), file=self.stream, flush=True)


def _clock(seconds: float) -> str:
    seconds = int(round(seconds))
    return f"{seconds // 3600}:{seconds // 60 % 60:02d}:{seconds % 60:02d}"


# --------------------------------------------------------------------------- running
@dataclass
class StudyOutcome:
    """What :func:`run_study` did.

    Attributes
    ----------
    total, stored, computed : int
        Fits in the grid, fits found in the folder, fits computed by this run.
    complete : bool
        Every fit is done: the tables were written.
    report : RunReport
        The parallel run (wall time, busy time, workers, efficiency).
    tables : dict of DataFrame
        The tables written (empty when incomplete).
    files : list of Path
    data : dict of SweepData
        The data sets fitted, with their folds (for :func:`study_figures`).
    """

    total: int
    stored: int
    computed: int
    complete: bool
    report: RunReport
    tables: dict[str, pd.DataFrame] = field(default_factory=dict)
    files: list[Path] = field(default_factory=list)
    data: dict[str, SweepData] = field(default_factory=dict, repr=False)


def _connect(address: str, timeout: float):
    """A Dask client of the scheduler at ``address``; a clear error within ``timeout`` s."""
    try:
        from dask.distributed import Client
    except ImportError:  # pragma: no cover - the study extra installs it
        raise InvalidParameterError(
            "a scheduler address needs dask.distributed: pip install 'fairlist[study]'"
        ) from None
    try:
        return Client(address, timeout=timeout)
    except (OSError, TimeoutError, ValueError) as exc:
        raise SchedulerError(
            f"no Dask scheduler answers at {address!r} within {timeout:g} s ({exc})"
        ) from None


def run_study(
    grid: StudyGrid,
    out: str | os.PathLike[str],
    *,
    n_jobs: int | None = None,
    scheduler: str | None = None,
    connect_timeout: float = 10.0,
    backend: str | None = None,
    data: Mapping[str, DataLike] | None = None,
    data_home: str | os.PathLike[str] | None = None,
    max_fits: int | None = None,
    progress: TextIO | None = sys.stderr,
    progress_interval: float = 10.0,
) -> StudyOutcome:
    """Run every fit of ``grid`` not yet stored in ``out``; write the tables when all are done.

    Parameters
    ----------
    grid : StudyGrid
    out : path
        The results folder: new, empty, or one a study of this version wrote (created;
        ``records/`` holds one JSON record per finished fit, the tables are written beside it).
    n_jobs : int, optional
        Local worker processes (joblib; None: one, -1: one per core). Ignored with a
        scheduler: the fits then use every worker thread of the cluster.
    scheduler : str, optional
        Address of a Dask scheduler (``tcp://host:8786``): the fits run on its cluster, through
        the same code path (joblib's Dask backend), the data scattered once to every worker.
    connect_timeout : float
        Seconds to wait for the scheduler before :class:`SchedulerError`.
    backend : str, optional
        Another joblib backend for local runs (``"threading"`` in tests).
    data : mapping of name to (X, y, protected), optional
        Data sets of your own, by name (X: binary antecedents; protected: a boolean mask).
    data_home : path, optional
        Where the built-in data sets' files are (:func:`fairlist.datasets.data_home`).
    max_fits : int, optional
        Stop after computing this many fits (the rest on a later run).
    progress : text stream or None
        Where progress lines go (default standard error).
    progress_interval : float
        Seconds between two progress lines.

    Returns
    -------
    StudyOutcome

    Raises
    ------
    InvalidParameterError
        An unknown data set, a bad parameter.
    ResultsFolderError
        ``out`` was written by another version, is not a study's folder (a file, or a folder
        that is not empty and holds no ``study.json``), or holds a record whose content does
        not match its checksum.
    SchedulerError
        No scheduler answers at ``scheduler``.
    """
    if not isinstance(grid, StudyGrid):
        raise InvalidParameterError(f"grid must be a StudyGrid, got {type(grid).__name__}")
    validate_params("run_study", _RUN_CONSTRAINTS, {
        "n_jobs": n_jobs, "connect_timeout": connect_timeout, "max_fits": max_fits,
        "scheduler": scheduler,
    })  # fmt: skip
    folder = ResultsFolder(out)
    bundle = _load_data(grid, data, data_home)
    folder.open()
    tasks = _tasks(grid, bundle)
    results: dict[int, dict[str, Any]] = {}
    for i, task in enumerate(tasks):
        found = folder.load(task.key)
        if found is not None:
            results[i] = found
    todo = sorted((i for i in range(len(tasks)) if i not in results), key=lambda i: -tasks[i].cost)
    meter = _Progress(len(tasks), len(results), sum(tasks[i].cost for i in todo), progress,
                      progress_interval)  # fmt: skip
    meter.update(force=True)

    def on_result(j: int, result: dict[str, Any], seconds: float) -> bool:
        if result.get("status") == INTERRUPTED:
            return False  # cut short by Ctrl-C in a worker: never stored
        i = todo[j]
        folder.save(tasks[i].key, result, seconds)
        results[i] = result
        meter.update(tasks[i].cost)
        return max_fits is None or meter.computed < max_fits

    client = _connect(scheduler, connect_timeout) if scheduler else None
    try:
        report = run_tasks(
            _run_task, [tasks[i].args for i in todo], (bundle,),
            n_jobs=-1 if client is not None else n_jobs,  # a cluster: all its worker threads
            backend="dask" if client is not None else backend, on_result=on_result,
        )  # fmt: skip
    finally:
        if client is not None:
            client.close()
    meter.update(force=True)
    outcome = StudyOutcome(len(tasks), meter.stored, meter.computed, len(results) == len(tasks),
                           report, data=bundle)  # fmt: skip
    if outcome.complete:
        outcome.tables = study_tables(grid, tasks, [results[i] for i in range(len(tasks))],
                                      bundle)  # fmt: skip
        outcome.files = write_tables(outcome.tables, folder.path)
    return outcome


_RUN_CONSTRAINTS: dict[str, list] = {
    "n_jobs": [None, Satisfies(
        lambda v: isinstance(v, _INT) and not isinstance(v, bool) and v != 0,
        "a nonzero integer (-1: one worker per core)",
    )],
    "connect_timeout": [Interval(_REAL, 0, None, closed="neither")],
    "max_fits": [None, Interval(_INT, 1, None, closed="left")],
    "scheduler": [None, InstanceOf(str, "a scheduler address (str)")],
}


# --------------------------------------------------------------------------- tables
_FIT_COLUMNS = [
    "dataset", "metric", "method", "policy", "setting", "fold", "status", "stop_reason",
    "objective", "lower_bound", "length", "train_error", "train_unfairness", "test_error",
    "test_unfairness",
]  # fmt: skip


def _fit_rows(grid: StudyGrid, task: _Task, result: dict[str, Any]) -> list[dict[str, Any]]:
    """The rows of one fit in the ``fits`` table: one per metric it is measured under."""
    key = task.key
    if key["kind"] == "training_front":
        return []
    if key["kind"] == "rule_list":
        method = "fairlist" if key["metric"] is not None else "rule_list"
        policy, setting = key["policy"], key["epsilon"]
    else:
        method, policy, setting = key["method"], "", key["bound"]
    rows = []
    for metric in (key["metric"],) if key["metric"] is not None else grid.metrics:
        def pick(value: Any, metric: str = metric) -> Any:
            return value.get(metric, math.nan) if isinstance(value, dict) else value

        rows.append({
            "dataset": key["dataset"], "metric": metric, "method": method, "policy": policy,
            "setting": math.nan if setting is None else setting, "fold": key["fold"],
            "status": result.get("status", ""), "stop_reason": result.get("stop_reason", ""),
            "objective": result.get("objective", math.nan),
            "lower_bound": result.get("lower_bound", math.nan),
            "length": result.get("length", -1),
            "train_error": result.get("train_error", math.nan),
            "train_unfairness": pick(result.get("train_unfairness", math.nan)),
            "test_error": result.get("test_error", math.nan),
            "test_unfairness": pick(result.get("test_unfairness", math.nan)),
            "rule_list": result.get("rule_list", ""),
        })  # fmt: skip
    return rows


def _order(frame: pd.DataFrame, grid: StudyGrid) -> pd.DataFrame:
    """Rows in the grid's order of data sets and metrics, then by the other keys."""
    frame = frame.copy()
    frame["_d"] = frame["dataset"].map({d: i for i, d in enumerate(grid.datasets)})
    frame["_m"] = frame["metric"].map({m: i for i, m in enumerate(grid.metrics)})
    rest = [c for c in ("method", "policy", "setting", "fold", "solve") if c in frame]
    frame = frame.sort_values(["_d", "_m", *rest], kind="stable", na_position="first")
    return frame.drop(columns=["_d", "_m"]).reset_index(drop=True)


def _cv_points(grid: StudyGrid, fits: pd.DataFrame) -> pd.DataFrame:
    """Mean over the folds of every (data set, metric, method, policy, setting)."""
    keys = ["dataset", "metric", "method", "policy", "setting"]
    records = []
    for values, grp in fits.groupby(keys, dropna=False, sort=False):
        if len(grp) < grid.cv or grp["test_error"].isna().any():
            continue  # an infeasible fold: no mean to report (as in the paper's protocol)
        row = dict(zip(keys, values, strict=True))
        row.update(
            n_folds=len(grp), optimal_folds=int((grp["status"] == "optimal").sum()),
            mean_length=float(grp["length"].mean()),
            train_error=float(grp["train_error"].mean()),
            train_unfairness=float(grp["train_unfairness"].mean()),
            test_error=float(grp["test_error"].mean()),
            test_unfairness=float(grp["test_unfairness"].mean()),
            test_error_std=float(grp["test_error"].std(ddof=0)),
            test_unfairness_std=float(grp["test_unfairness"].std(ddof=0)),
        )  # fmt: skip
        records.append(row)
    if not records:
        return pd.DataFrame(columns=[*keys, "n_folds", "front", "policy_front"])
    points = pd.DataFrame.from_records(records)
    points["front"] = False
    points["policy_front"] = False
    for _, grp in points.groupby(["dataset", "metric", "method"], sort=False):
        pooled = grp[(grp["method"] != "fairlist") | grp["policy"].isin(grid.pooled)]
        if pooled["method"].iloc[0] != "rule_list":
            mask = non_dominated(pooled["test_unfairness"], pooled["test_error"])
            points.loc[pooled.index[mask], "front"] = True
        for _, own in grp.groupby("policy", sort=False):
            mask = non_dominated(own["test_unfairness"], own["test_error"])
            points.loc[own.index[mask], "policy_front"] = True
    return points


def _fronts(points: pd.DataFrame, fits: pd.DataFrame) -> pd.DataFrame:
    """The points of every method's front, fairlist's with its per-fold rule lists."""
    front = points[points["front"]].copy()
    lists = []
    for _, row in front.iterrows():
        same = fits[(fits["dataset"] == row["dataset"]) & (fits["metric"] == row["metric"])
                    & (fits["method"] == row["method"]) & (fits["policy"] == row["policy"])
                    & _same(fits["setting"], row["setting"])]  # fmt: skip
        texts = list(same.sort_values("fold")["rule_list"]) if row["method"] == "fairlist" else []
        lists.append(json.dumps(texts) if texts else "")
    front["rule_lists"] = lists
    return front.drop(columns=["front", "policy_front"]).reset_index(drop=True)


def _same(column: pd.Series, value: float) -> pd.Series:
    return column.isna() if isinstance(value, float) and math.isnan(value) else column == value


def _training_fronts(grid: StudyGrid, tasks, results) -> pd.DataFrame:
    """Every solve of every exact training front, with status, gap and whether it is on it."""
    records = []
    for task, result in zip(tasks, results, strict=True):
        if task.key["kind"] != "training_front":
            continue
        for k, point in enumerate(result["points"]):
            records.append({
                "dataset": task.key["dataset"], "metric": task.key["metric"],
                "max_length": task.key["max_length"], "solve": k,
                "front_complete": result["complete"], **point,
            })  # fmt: skip
    return pd.DataFrame.from_records(records)


def _best_under(frame: pd.DataFrame, x: str, y: str, cap: float | None) -> pd.Series | None:
    """The most accurate row whose ``x`` is at most ``cap`` (all rows when None)."""
    ok = frame if cap is None else frame[frame[x] <= cap + 1e-12]
    ok = ok[ok[y].notna()]
    if ok.empty:
        return None
    return ok.loc[ok[y].idxmin()]


def _paper_table(grid: StudyGrid, points: pd.DataFrame, training: pd.DataFrame) -> pd.DataFrame:
    """Our most accurate point at no more unfairness than each of the paper's examples."""
    records = []
    for (dataset, metric), (accuracy, cap) in PAPER_EXAMPLES.items():
        if dataset not in grid.datasets or (metric is not None and metric not in grid.metrics):
            continue
        shown = metric or grid.metrics[0]
        row: dict[str, Any] = {"dataset": dataset, "metric": metric or "unconstrained",
                               "paper_accuracy": accuracy, "paper_unfairness": cap}  # fmt: skip
        tr = training[(training["dataset"] == dataset) & (training["metric"] == shown)] \
            if len(training) else training  # fmt: skip
        if metric is None and len(tr):
            tr = tr[tr["epsilon"].isna()]
        elif len(tr):
            tr = tr[tr["on_front"]]
        best = _best_under(tr, "unfairness", "error", cap) if len(tr) else None
        if best is not None:
            row.update(train_accuracy=1 - best["error"], train_unfairness=best["unfairness"],
                       train_status=best["status"], train_gap=best["gap"],
                       train_length=int(best["length"]))  # fmt: skip
        mine = points[(points["dataset"] == dataset) & (points["metric"] == shown)]
        if metric is None:
            mine = mine[(mine["method"] == "rule_list") & mine["policy"].isin(grid.pooled)]
        else:
            mine = mine[(mine["method"] == "fairlist") & mine["front"]]
        best = _best_under(mine, "test_unfairness", "test_error", cap)
        if best is not None:
            row.update(cv_accuracy=1 - best["test_error"], cv_unfairness=best["test_unfairness"],
                       cv_policy=best["policy"], cv_epsilon=best["setting"],
                       cv_optimal_folds=int(best["optimal_folds"]))  # fmt: skip
        records.append(row)
    table = pd.DataFrame.from_records(records)
    for col in ("train", "cv"):
        if f"{col}_accuracy" in table:
            ours = table[f"{col}_accuracy"]
            behind = (ours < table["paper_accuracy"]).astype(object)
            table[f"{col}_behind"] = behind.where(ours.notna(), None)
    return table


def _policy_table(grid: StudyGrid, fits: pd.DataFrame, points: pd.DataFrame) -> pd.DataFrame:
    """Each policy's search quality on the grid: training objective on common fits, front share.

    ``mean_objective`` averages each policy's training objective over the (cap, fold) fits
    where every policy found a rule list, so the policies are compared on the same problems;
    ``best_fits`` counts the fits where the policy's objective is the lowest (ties count for
    each); ``front_points`` the points it contributes to the front pooled over all policies.
    """
    own = fits[fits["method"] == "fairlist"]
    records = []
    for (dataset, metric), grp in own.groupby(["dataset", "metric"], sort=False):
        wide = grp.pivot_table(index=["setting", "fold"], columns="policy", values="objective")
        wide = wide.dropna()
        best = wide.min(axis=1)
        pts = points[(points["dataset"] == dataset) & (points["metric"] == metric)
                     & (points["method"] == "fairlist")]  # fmt: skip
        pooled = non_dominated(pts["test_unfairness"], pts["test_error"])
        for policy in grid.policies:
            if policy not in wide:
                continue
            records.append({
                "dataset": dataset, "metric": metric, "policy": policy,
                "fits": int((grp["policy"] == policy).sum()),
                "optimal_fits": int(((grp["policy"] == policy)
                                     & (grp["status"] == "optimal")).sum()),
                "common_fits": len(wide), "mean_objective": float(wide[policy].mean()),
                "best_fits": int((wide[policy] <= best + 1e-12).sum()),
                "front_points": int((pts["policy"][pooled] == policy).sum()),
            })  # fmt: skip
    return pd.DataFrame.from_records(records)


def _order_table(fits: pd.DataFrame) -> pd.DataFrame:
    """The two breadth-first objective-aware orders head to head, fit by fit.

    For every (data set, metric, cap, fold) that both orders solved: which one ends with the
    lower training objective under the same budget (the paper's text expands the higher
    objective first, its code the lower).
    """
    text, code = "bfs_objective_aware", "bfs_objective_aware_lowest"
    own = fits[(fits["method"] == "fairlist") & fits["policy"].isin((text, code))]
    records = []
    for (dataset, metric), grp in own.groupby(["dataset", "metric"], sort=False):
        wide = grp.pivot_table(index=["setting", "fold"], columns="policy", values="objective")
        if text not in wide or code not in wide:
            continue
        wide = wide.dropna()
        diff = wide[text] - wide[code]
        records.append({
            "dataset": dataset, "metric": metric, "fits": len(wide),
            "text_better": int((diff < -1e-12).sum()), "code_better": int((diff > 1e-12).sum()),
            "ties": int((diff.abs() <= 1e-12).sum()),
            "mean_objective_text": float(wide[text].mean()),
            "mean_objective_code": float(wide[code].mean()),
        })  # fmt: skip
    return pd.DataFrame.from_records(records)


def study_tables(
    grid: StudyGrid,
    tasks: Sequence[_Task],
    results: Sequence[dict[str, Any]],
    bundle: Mapping[str, SweepData] | None = None,
) -> dict[str, pd.DataFrame]:
    """The study's tables from its fits (pure: same fits, same tables).

    ``fits``: every fit, one row per metric it is measured under; ``points``: means over the
    folds, with ``front`` (on its method's front; fairlist's pools ``grid.pooled``) and
    ``policy_front``; ``fronts``: the front points, fairlist's with their per-fold rule lists;
    ``training_fronts``: every solve of the exact training fronts; ``paper``: against the
    paper's examples; ``policies``: each policy's search quality; ``orders``: the two
    breadth-first objective-aware orders head to head.
    """
    rows = [r for t, res in zip(tasks, results, strict=True) for r in _fit_rows(grid, t, res)]
    fits = _order(pd.DataFrame.from_records(rows, columns=[*_FIT_COLUMNS, "rule_list"]), grid)
    points = _order(_cv_points(grid, fits), grid)
    training = _training_fronts(grid, tasks, results)
    if len(training):
        training = _order(training, grid)
    return {
        "fits": fits.drop(columns=["rule_list"]),
        "points": points,
        "fronts": _fronts(points, fits),
        "training_fronts": training,
        "paper": _paper_table(grid, points, training),
        "policies": _policy_table(grid, fits, points),
        "orders": _order_table(fits),
    }


def write_tables(tables: Mapping[str, pd.DataFrame], folder: str | os.PathLike[str]) -> list[Path]:
    """Write every table as ``<name>.csv`` (floats with 10 significant digits)."""
    files = []
    for name, frame in tables.items():
        file = Path(folder) / f"{name}.csv"
        frame.to_csv(file, index=False, float_format="%.10g", lineterminator="\n")
        files.append(file)
    return files


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
        figure.legend(list(handles.values()), list(handles), loc="outside lower center",
                      ncol=min(len(handles), 3), frameon=False, fontsize=8)  # fmt: skip


def _front_frame(frame: pd.DataFrame) -> pd.DataFrame:
    return frame[["test_unfairness", "test_error"]].reset_index(drop=True)


def figure_policies(grid: StudyGrid, points: pd.DataFrame, dataset: str):
    """Figure 2: the test front of every pooled policy, one panel per metric."""
    from .plotting import plot_fronts

    columns = min(len(grid.metrics), 3)
    figure, axes = _panels(columns, rows=math.ceil(len(grid.metrics) / columns), width=3.8)
    for ax in np.ravel(axes)[len(grid.metrics):]:
        ax.set_visible(False)
    for ax, metric in zip(np.ravel(axes), grid.metrics, strict=False):
        mine = points[(points["dataset"] == dataset) & (points["metric"] == metric)
                      & (points["method"] == "fairlist")]  # fmt: skip
        fronts = {
            _POLICY_LABELS.get(p, p): _front_frame(mine[mine["policy"] == p])
            for p in grid.pooled
        }
        plot_fronts(fronts, ax, metric=metric, split="test", legend="none")
    figure.suptitle(f"{_title(dataset)}: test fronts of each search policy "
                    f"({grid.cv}-fold CV, {grid.budget()})", fontsize=10)  # fmt: skip
    _figure_legend(figure, axes)
    return figure


def figure_comparison(grid: StudyGrid, points: pd.DataFrame, dataset: str, metric: str):
    """Figures 3-4: fairlist's pooled front beside the baselines', with reference points."""
    from .plotting import _new_axes, plot_fronts

    mine = points[(points["dataset"] == dataset) & (points["metric"] == metric)]
    pooled = f"{len(grid.pooled)} policies pooled" if len(grid.pooled) > 1 else grid.pooled[0]
    fronts: dict[str, Any] = {
        f"fairlist ({pooled})":
            _front_frame(mine[(mine["method"] == "fairlist") & mine["front"]]),
    }  # fmt: skip
    for name in grid.baselines:
        rows = mine[mine["method"] == name]
        if len(rows):
            fronts[BASELINES[name].label] = _front_frame(rows)
    free = mine[(mine["method"] == "rule_list") & mine["policy"].isin(grid.pooled)]
    if len(free):
        best = free.loc[[free["test_error"].idxmin()]]
        fronts["rule list, unconstrained"] = _front_frame(best)
    ax = _new_axes((5.6, 5.0))
    plot_fronts(fronts, ax, metric=metric, title=_title(dataset), split="test",
                budget=f"{grid.cv}-fold CV, {grid.budget()}")  # fmt: skip
    accuracy, cap = PAPER_EXAMPLES.get((dataset, metric), (None, None))
    if cap is not None:
        ax.plot([cap], [1 - accuracy], "k*", markersize=11, label="the paper's example")
        from .plotting import _legend

        _legend(ax, "below")
    return ax.figure


def figure_training(grid: StudyGrid, tables: Mapping[str, pd.DataFrame], dataset: str):
    """The exact training fronts (top) beside the cross-validated ones (bottom)."""
    from .plotting import plot_fronts

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
        plot_fronts(fronts, axes[0, k], metric=metric, split="training",
                    budget=f"≤{grid.training_max_length} rules", legend="none",
                    styles={"training point, not certified": {"fillstyle": "none"}})
        mine = points[(points["dataset"] == dataset) & (points["metric"] == metric)
                      & (points["method"] == "fairlist") & points["front"]]  # fmt: skip
        plot_fronts({"cross-validated front (policies pooled)": _front_frame(mine)}, axes[1, k],
                    metric=metric, split="test", legend="none",
                    styles={"cross-validated front (policies pooled)": {"color": "C1"}})
    figure.suptitle(f"{_title(dataset)}. Top: exact training fronts, lists of at most "
                    f"{grid.training_max_length} rules (full data, λ={grid.lam:g}).\n"
                    f"Bottom: {grid.cv}-fold cross-validated fronts, {grid.budget()}.",
                    fontsize=10)  # fmt: skip
    _figure_legend(figure, axes)
    return figure


_RULE = re.compile(r"(?:^|else )if \[(.+?)\] then \[(.+?)\] ")


def parse_rule_list(text: str, labels: Sequence[str]):
    """The :class:`~fairlist.rulelist.RuleList` of a one-line text (:func:`rule_list_text`)."""
    from .rulelist import Rule, RuleList

    label = {name: k for k, name in enumerate(labels)}
    rules = [Rule(a, label[q]) for a, q in _RULE.findall(text)]
    default = re.search(r"\[([^\[\]]+)\]$", text)
    if default is None or default.group(1) not in label:
        raise InvalidParameterError(f"not a rule list in the paper's format: {text!r}")
    return RuleList(rules, label[default.group(1)], tuple(labels))


def figure_group_rates(
    grid: StudyGrid, tables: Mapping[str, pd.DataFrame], data: SweepData, dataset: str,
    metric: str,
):
    """Per-group rates of the exact training point the paper table picks for ``metric``."""
    from .metrics import confusion_counts
    from .plotting import plot_group_rates

    paper = tables["paper"]
    row = paper[(paper["dataset"] == dataset) & (paper["metric"] == metric)]
    training = tables["training_fronts"]
    if row.empty or "train_accuracy" not in row or pd.isna(row["train_accuracy"].iloc[0]):
        return None
    pick = training[(training["dataset"] == dataset) & (training["metric"] == metric)
                    & training["on_front"].astype(bool)
                    & (abs(training["unfairness"] - row["train_unfairness"].iloc[0]) < 1e-12)]
    if pick.empty:
        return None
    text = pick["rule_list"].iloc[0]
    rule_list = parse_rule_list(text, data.labels)
    X = pd.DataFrame(data.X, columns=list(data.feature_names))
    counts = confusion_counts(data.y, rule_list.predict(X), data.protected)
    groups = _GROUPS.get(dataset, ("protected", "unprotected"))
    ax = plot_group_rates(counts, metric=metric, group_names=groups,
                          title=f"{_title(dataset)}, training data: {text}")  # fmt: skip
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
    from .plotting import save_figure

    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    points, files = tables["points"], []
    for dataset in grid.datasets:
        files.append(save_figure(figure_policies(grid, points, dataset),
                                 folder / f"policies_{dataset}.png", dpi=110))  # fmt: skip
        for metric in grid.baseline_metrics:
            if metric in grid.metrics:
                figure = figure_comparison(grid, points, dataset, metric)
                files.append(save_figure(figure, folder / f"comparison_{dataset}_{metric}.png"))
        if len(tables["training_fronts"]):
            files.append(save_figure(figure_training(grid, tables, dataset),
                                     folder / f"training_{dataset}.png", dpi=100))  # fmt: skip
        for metric in grid.metrics if data is not None else ():
            figure = figure_group_rates(grid, tables, data[dataset], dataset, metric)
            if figure is not None:
                files.append(save_figure(figure, folder / f"groups_{dataset}_{metric}.png"))
    return files


# --------------------------------------------------------------------------- report
def _cell(value: Any, digits: int = 3) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "–"
    if isinstance(value, (bool, np.bool_)):
        return "yes" if value else "no"
    if isinstance(value, (float, np.floating)):
        return f"{value:.{digits}f}"
    return str(value)


def _markdown(frame: pd.DataFrame, columns: Mapping[str, str]) -> str:
    """A markdown table of ``frame``'s ``columns`` (name -> header)."""
    lines = ["| " + " | ".join(columns.values()) + " |",
             "|" + "---|" * len(columns)]  # fmt: skip
    for _, row in frame.iterrows():
        lines.append("| " + " | ".join(_cell(row.get(c)) for c in columns) + " |")
    return "\n".join(lines)


def study_report(grid: StudyGrid, tables: Mapping[str, pd.DataFrame]) -> str:
    """The study's tables as markdown: against the paper, the policies, the training fronts."""
    paper = tables["paper"].copy()
    if len(paper):
        paper["paper"] = [f"{a:.3f} @ {u:.3f}" if not pd.isna(u) else f"{a:.3f}"
                          for a, u in zip(paper["paper_accuracy"], paper["paper_unfairness"],
                                          strict=True)]  # fmt: skip
        paper["training"] = [_at(r, "train") for _, r in paper.iterrows()]
        paper["cv"] = [_at(r, "cv") for _, r in paper.iterrows()]
    parts = [
        "### Against the paper's examples (accuracy @ unfairness)\n",
        _markdown(paper, {"dataset": "data", "metric": "metric", "paper": "paper",
                          "training": f"ours, training (exact, ≤{grid.training_max_length} rules)",
                          "train_status": "status", "cv": "ours, cross-validated (test)",
                          "cv_policy": "policy", "cv_epsilon": "cap"}),
        "\n### Search policies (training objective on the fits every policy solved)\n",
        _markdown(_digits(tables["policies"], "mean_objective"), {"dataset": "data",
                                       "metric": "metric",
                                       "policy": "policy", "mean_objective": "mean objective",
                                       "best_fits": "best on", "common_fits": "of fits",
                                       "front_points": "points on the all-policy front"}),
    ]  # fmt: skip
    orders = tables.get("orders", pd.DataFrame())
    if len(orders):
        parts += [
            "\n### BFS objective-aware: the paper's text (higher objective first) against its "
            "code (lower first)\n",
            _markdown(_digits(orders, "mean_objective_text", "mean_objective_code"),
                      {"dataset": "data", "metric": "metric", "fits": "fits",
                       "text_better": "text better", "code_better": "code better",
                       "ties": "ties", "mean_objective_text": "mean objective, text",
                       "mean_objective_code": "mean objective, code"}),
        ]  # fmt: skip
    training = tables["training_fronts"]
    if len(training):
        summary = training.groupby(["dataset", "metric"], sort=False).agg(
            solves=("solve", "size"), points=("on_front", "sum"),
            optimal=("status", lambda s: int((s == "optimal").sum())),
            complete=("front_complete", "first"), max_gap=("gap", "max"),
        ).reset_index()  # fmt: skip
        parts += [
            f"\n### Exact training fronts (lists of at most {grid.training_max_length} rules)\n",
            _markdown(summary, {"dataset": "data", "metric": "metric", "solves": "solves",
                                "points": "front points", "optimal": "certified optimal",
                                "complete": "complete", "max_gap": "largest gap"}),
        ]  # fmt: skip
    return "\n".join(parts) + "\n"


def _digits(frame: pd.DataFrame, *columns: str, digits: int = 5) -> pd.DataFrame:
    """``frame`` with ``columns`` as text of ``digits`` decimals (objectives differ by less)."""
    frame = frame.copy()
    for column in columns:
        frame[column] = [f"{v:.{digits}f}" for v in frame[column]]
    return frame


def _at(row: pd.Series, prefix: str) -> str:
    accuracy = row.get(f"{prefix}_accuracy")
    if accuracy is None or pd.isna(accuracy):
        return "none at or below the paper's unfairness"
    unfair = row.get(f"{prefix}_unfairness")
    return f"{accuracy:.3f} @ {unfair:.3f}"
