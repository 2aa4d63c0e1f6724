"""The fits of a cross-validated sweep and how they run: the data shipped once, the settings
every fit shares, the task a worker runs, and the runner that orders, threads and counts them.

:func:`fairlist.pareto.cross_validated_front` is the protocol (which fits, what a point is);
this module is its machinery. Every fit is an independent task (:func:`fit_fold`); the data go
to the workers once (:class:`SweepData`) — a read-only memory map shared by joblib's process
workers (``loky``), or scattered to every worker of a Dask cluster (``backend="dask"``) — and
each task carries only its few parameters (:func:`fairlist.parallel.run_tasks`). Completions
are reported as they come (unordered), and the run measures its parallel efficiency: the
workers' busy time over ``workers × wall time``. With ``tail_threads`` an engine whose threaded
search is canonical (the registry's ``canonical_threads``) gets the cores the workers leave idle
(:class:`Runner`); each fit's memory cap is the engine's default shared among the workers
(:func:`memory_share`).

This module is what a sweep's worker processes import (the task function lives here), so it
imports neither scikit-learn nor the estimator: a fresh worker starts in about a third of the
time (fairlist with pandas, not scikit-learn on top).

>>> import numpy as np
>>> fold_assignment(np.array([0, 1] * 4), np.array([0, 0, 1, 1] * 2), cv=2, seed=0).tolist()
[1, 0, 0, 1, 0, 1, 1, 0]
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from .errors import InvalidParameterError
from .metrics import FEASIBILITY_TOL, Metric, unfairness
from .parallel import run_tasks, share_cores, usable_cores, worker_count
from .solvers import ENGINES, Limits, Problem, Result, Status, StopReason, get_solver

__all__ = [
    "INTERRUPTED",
    "NOT_RUN",
    "FitSettings",
    "Runner",
    "SweepData",
    "cv_points",
    "fit_counts",
    "fit_fold",
    "fit_settings",
    "fit_status",
    "fold_assignment",
    "memory_share",
    "run_sweep",
    "sweep_data",
]

#: Status of a fit that Ctrl-C cut short (never a point of a front).
INTERRUPTED = "interrupted"
#: Status of a fit that an interrupted sweep never started.
NOT_RUN = "not_run"

Progress = Callable[[int, int], None]  # (done, total)


@dataclass(frozen=True)
class SweepData:
    """The data of a sweep, shipped to the workers once (see :func:`run_tasks`).

    Attributes
    ----------
    X : ndarray of uint8, shape (n, m)
    y : ndarray of uint8, shape (n,)
    groups : ndarray of int, shape (n,)
        The group code of each sample (0 .. k-1; of two groups, 0 is the protected one).
    fold : ndarray of int8, shape (n,)
        The test fold of each sample (:func:`fold_assignment`).
    feature_names, labels : tuple of str
    group_names : tuple of str
    """

    X: np.ndarray
    y: np.ndarray
    groups: np.ndarray
    fold: np.ndarray
    feature_names: tuple[str, ...]
    labels: tuple[str, str]
    group_names: tuple[str, ...] = ()

    @property
    def protected(self) -> np.ndarray:
        """The mask of group 0 (the protected group of two; ``groups`` itself when a mask)."""
        return self.groups if self.groups.dtype == bool else self.groups == 0

    def group_arg(self, rows: np.ndarray) -> np.ndarray:
        """The groups of ``rows`` as :class:`Problem` takes them: the mask of group 0 for two
        groups (0/1 codes would read as a mask with 1 protected), else the codes."""
        codes = self.groups[rows]
        return codes == 0 if len(self.group_names) == 2 else codes


def fold_assignment(y: np.ndarray, groups: np.ndarray, cv: int, seed: int) -> np.ndarray:
    """The test fold of each sample: k folds stratified on (label, group), shuffled by ``seed``.

    Stratifying on the pair keeps every group and both labels in every fold in the proportions
    of the whole data, so that every fold's unfairness is measured on comparable groups.
    ``groups``: a protected mask or the group code of each sample.
    """
    from sklearn.model_selection import StratifiedKFold

    codes = np.asarray(groups).astype(np.int64)
    strata = np.asarray(y).astype(np.int64) * (int(codes.max()) + 1) + codes
    if cv > len(strata):
        raise InvalidParameterError(
            f"cv={cv} folds for {len(strata)} samples: give at most {len(strata)} folds"
        )
    fold = np.empty(len(strata), dtype=np.int8)
    splitter = StratifiedKFold(cv, shuffle=True, random_state=seed)
    for k, (_, test) in enumerate(splitter.split(np.zeros((len(strata), 1)), strata)):
        fold[test] = k
    return fold


def sweep_data(X, y, sensitive_features, protected, cv: int, seed: int):
    """The user's data as a problem (one route from user data) and as :class:`SweepData`."""
    problem = Problem.from_data(X, y, sensitive_features, protected)
    # two groups: stratified on the protected mask, as before k groups were taken (same folds)
    fold = fold_assignment(
        problem.y, problem.protected if problem.n_groups == 2 else problem.groups, cv, seed
    )
    data = SweepData(
        problem.X,
        problem.y,
        problem.groups,
        fold,
        problem.feature_names,
        problem.labels,
        problem.group_names,
    )
    return problem, data


@dataclass(frozen=True)
class FitSettings:
    """What every fit of a sweep shares: the problem's parameters, the engine and its limits."""

    metric: Metric
    lam: float | str
    max_length: int | None
    engine: str
    max_nodes: int | None
    time_limit: float | None
    memory_limit_mb: float | None = None
    engine_options: tuple[tuple[str, Any], ...] = ()

    def solver(self, policy: str | None, n_threads: int = 1):
        """The engine, configured (``policy`` is the branch-and-bound's search order;
        ``n_threads`` its threads when its threaded search is canonical, unless
        ``engine_options`` name them)."""
        options = dict(self.engine_options)
        spec = ENGINES[self.engine]
        if policy is not None and spec.policy is not None:
            options[spec.policy] = policy
        if n_threads > 1 and spec.supports("canonical_threads"):
            options.setdefault(spec.threads, n_threads)
        return get_solver(self.engine, **options)

    def problem(self, data: SweepData, rows: np.ndarray, epsilon: float | None) -> Problem:
        """The training problem on ``rows`` (a boolean mask) with cap ``epsilon``."""
        return Problem(
            data.X[rows],
            data.y[rows],
            data.group_arg(rows),
            metric=self.metric,
            epsilon=epsilon,
            lam=self.lam,
            max_length=self.max_length,
            feature_names=data.feature_names,
            labels=data.labels,
            group_names=data.group_names,
            limits=Limits(
                max_nodes=self.max_nodes,
                time_limit=self.time_limit,
                memory_limit_mb=self.memory_limit_mb,
            ),
        )


def fit_status(result: Result) -> str:
    """A fit's status as the sweeps report it: Ctrl-C's fits read ``interrupted``."""
    if result.stop_reason is StopReason.INTERRUPTED:
        return INTERRUPTED
    return str(result.status)


def fit_fold(
    data: SweepData,
    settings: FitSettings,
    epsilon: float | None,
    policy: str | None,
    fold: int,
    n_threads: int = 1,
) -> dict[str, Any]:
    """One fit on the training part of ``fold``, measured on its test part (a sweep's task),
    on ``n_threads`` threads of the branch-and-bound (``tail_threads``)."""
    train = data.fold != fold
    test = ~train
    result = settings.solver(policy, n_threads).solve(settings.problem(data, train, epsilon))
    row: dict[str, Any] = {
        "status": fit_status(result),
        "stop_reason": str(result.stop_reason),
        "train_error": math.nan,
        "train_unfairness": math.nan,
        "test_error": math.nan,
        "test_unfairness": math.nan,
        "objective": math.nan,
        "lower_bound": result.lower_bound,
        "length": -1,
        "rule_list": None,
        "threads": n_threads,
    }
    if result.rule_list is None:
        return row
    pred = result.rule_list.predict(data.X[test])
    y_test, g_test = data.y[test], data.groups[test]
    row.update(
        train_error=1.0 - result.accuracy,
        train_unfairness=result.unfairness,
        test_error=float(np.mean(pred != y_test)),
        test_unfairness=unfairness(y_test, pred, g_test, settings.metric),
        objective=result.objective,
        length=result.rule_list.length,
        rule_list=result.rule_list.to_dict(),
    )
    return row


def _not_run() -> dict[str, Any]:
    return {"status": NOT_RUN, "stop_reason": "", "length": -1, "rule_list": None}


def fit_settings(
    metric: Metric,
    lam: float,
    max_length: int | None,
    engine: str,
    max_nodes: int | None,
    time_limit: float | None,
    memory_limit_mb: float | None,
    engine_options: dict[str, Any] | None,
) -> FitSettings:
    """The :class:`FitSettings` of a sweep from its public parameters."""
    return FitSettings(
        metric,
        lam if isinstance(lam, str) else float(lam),  # "auto": resolved by each fit's Problem
        max_length,
        engine,
        max_nodes,
        time_limit,
        memory_limit_mb,
        tuple(sorted((engine_options or {}).items())),
    )


@dataclass(frozen=True)
class Runner:
    """How a sweep runs its fits: joblib's workers, the threads of each fit (``tail_threads``),
    and the callbacks."""

    n_jobs: int | None
    backend: str | None
    tail_threads: bool
    progress: Progress | None
    on_fit: Callable[[dict[str, Any]], None] | None

    def tasks(self, keys: list) -> tuple[list, list]:
        """The keys in the order they start, and each one's task (key + threads): with tail
        threads the fits at epsilon 0, the slowest, first, and threads by :func:`share_cores`."""
        if not self.tail_threads:
            return keys, [(*key, 1) for key in keys]
        slow = [k for k in keys if k[0] == 0.0]
        ordered = slow + [k for k in keys if k[0] != 0.0]
        workers = worker_count(self.n_jobs, self.backend)
        threads = share_cores(len(ordered), workers, usable_cores(), slow=len(slow))
        return ordered, [(*key, t) for key, t in zip(ordered, threads, strict=True)]


def run_sweep(
    first: list, grid: list, shared: tuple, total: int, runner: Runner
) -> tuple[dict[tuple[float | None, str | None, int], dict[str, Any]], bool]:
    """Fit ``first`` (the unconstrained fits), then the grid fits they do not settle; the rows
    and whether the sweep finished (False after an interrupt)."""
    rows: dict[tuple[float | None, str | None, int], dict[str, Any]] = {}
    tally = {"done": 0}
    progress = runner.progress
    if progress is not None:
        progress(0, total)

    def run(keys: list) -> bool:
        """Fit ``keys``; store each row; False when an interrupt stopped the sweep."""
        return _run_fits(keys, rows, shared, tally, total, runner)

    finished = run(first)
    todo = _reuse_unconstrained(grid, rows, tally)
    if finished:
        if progress is not None and tally["done"]:
            progress(tally["done"], total)
        finished = run(todo)
    return rows, finished


def memory_share(
    memory_limit_mb: float | None, engine: str, n_jobs: int | None, backend: str | None
) -> float | None:
    """The memory cap of each fit of a parallel sweep: the one given, else the engine's default
    (an engine with the registry's ``default_memory_cap``, bnb: three quarters of the physical
    memory: its class's ``default_memory_limit_mb()``) divided among the workers of this
    machine, so that the workers together stay under it (not each of them)."""
    if memory_limit_mb is not None or not ENGINES[engine].supports("default_memory_cap"):
        return memory_limit_mb
    workers = worker_count(n_jobs, backend)
    total = ENGINES[engine].load().default_memory_limit_mb()
    if workers <= 1 or total <= 0:
        return None
    return total / workers


def fit_counts(rows: dict, total: int) -> dict[str, int]:
    """How many fits a sweep had: in all (the unconstrained ones included), solved, reused (an
    unconstrained optimum that meets the cap), interrupted, and never run (cancelled)."""
    solved = sum(1 for r in rows.values() if not r.get("reused") and r["status"] != INTERRUPTED)
    reused = sum(1 for r in rows.values() if r.get("reused"))
    interrupted = sum(1 for r in rows.values() if r["status"] == INTERRUPTED)
    return {
        "total": total,
        "solved": solved,
        "reused": reused,
        "interrupted": interrupted,
        "not_run": total - solved - reused - interrupted,
    }


def _run_fits(
    keys: list, rows: dict, shared: tuple, tally: dict[str, int], total: int, runner: Runner
) -> bool:
    """Fit ``keys`` in parallel; store each row as it comes, with the progress; False when an
    interrupt stopped the sweep."""
    keys, tasks = runner.tasks(keys)
    progress, on_fit = runner.progress, runner.on_fit

    def on_result(i: int, row: dict[str, Any], seconds: float) -> bool:
        rows[keys[i]] = {**row, "seconds": seconds}
        tally["done"] += 1
        if on_fit is not None:
            e, pol, k = keys[i]
            on_fit({"epsilon": e, "policy": pol, "fold": k, **rows[keys[i]]})
        if progress is not None:
            progress(tally["done"], total)
        return row["status"] != INTERRUPTED

    report = run_tasks(
        fit_fold, tasks, shared, n_jobs=runner.n_jobs, backend=runner.backend, on_result=on_result
    )
    return not report.interrupted


def _reuse_unconstrained(grid: list, rows: dict, tally: dict[str, int]) -> list:
    """A grid fit whose unconstrained fit (same policy and fold) is optimal and already meets
    its cap is that fit (``reused``); returns the grid fits left to run."""
    todo = []
    for e, pol, k in grid:
        free = rows.get((None, pol, k))
        if (
            free is not None
            and free["status"] == str(Status.OPTIMAL)
            and free["train_unfairness"] <= e + FEASIBILITY_TOL
        ):
            rows[(e, pol, k)] = {**free, "reused": True}
            tally["done"] += 1
        else:
            todo.append((e, pol, k))
    return todo


def cv_points(grid: list, rows: dict, first: list = ()) -> pd.DataFrame:
    """One row per grid fit, in grid order (unrun fits read ``not_run``), after the fits of
    ``first`` (the unconstrained ones, epsilon NaN) that were done."""
    records = [
        {"epsilon": math.nan, "policy": pol, "fold": k, "reused": False, **rows[(None, pol, k)]}
        for _, pol, k in first
        if (None, pol, k) in rows
    ]
    for e, pol, k in grid:
        row = rows.get((e, pol, k)) or _not_run()
        records.append({"epsilon": e, "policy": pol, "fold": k, "reused": False, **row})
    points = pd.DataFrame.from_records(records)
    points["length"] = points["length"].astype(int)
    points["reused"] = points["reused"].astype(bool)
    return points.sort_values(["epsilon", "policy", "fold"], na_position="first").reset_index(
        drop=True
    )
