"""The units of work of a study: one fit (a rule list on one fold, a training front, a baseline) as
a picklable task, and the task list of a grid, longest first.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import pandas as pd

from ..pareto import rule_list_text, training_front
from ..sweep import INTERRUPTED, FitSettings, SweepData, fit_fold
from .baselines import BASELINES, fit_baseline, split_scores
from .grid import StudyGrid
from .records import fingerprint


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
        from ..rulelist import RuleList

        rl = RuleList.from_dict(rule_list)
        train, test = data.fold != fold, data.fold == fold
        pred_train, pred_test = rl.predict(data.X[train]), rl.predict(data.X[test])
        scores = split_scores(data, pred_train, pred_test, train, test)
        row["train_unfairness"] = scores["train_unfairness"]
        row["test_unfairness"] = scores["test_unfairness"]
    return row


def _training_front(
    data: SweepData, settings: FitSettings, policy: str, max_points: int | None
) -> dict[str, Any]:
    """The exact training front on all rows of ``data`` (one study task), as a record."""
    X = pd.DataFrame(data.X, columns=list(data.feature_names))
    result = training_front(
        X,
        data.y,
        data.protected,
        metric=settings.metric,
        lam=settings.lam,
        max_length=settings.max_length,
        policy=policy,
        max_nodes=settings.max_nodes,
        memory_limit_mb=settings.memory_limit_mb,
        max_points=max_points,
    )
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
TASKS: dict[str, Callable[..., dict[str, Any]]] = {
    "rule_list": _fit_rule_list,
    "baseline": fit_baseline,
    "training_front": _training_front,
}


def run_task(bundle: Mapping[str, SweepData], kind: str, dataset: str, *args: Any):
    """A worker's entry point: the task of ``kind`` on the shared data of ``dataset``."""
    return TASKS[kind](bundle[dataset], *args)


@dataclass(frozen=True)
class Task:
    key: dict[str, Any]  # the record's key
    args: tuple  # (kind, dataset, *arguments of the task function)
    cost: float  # relative duration estimate: the longest start first


#: Rough cost of a task per million (rows x antecedents), in units of about 10 CPU seconds,
#: from one fold of COMPAS and Adult (benchmarks/bench_study_cost.py): a rule-list fit at
#: 4,000,000 nodes (scaled by max_nodes; lower bound and curiosity relative to breadth-first),
#: a baseline fit, a whole training front. Only the order of the tasks depends on them.
_COSTS = {
    "rule_list": 1.0,
    "lower_bound": 0.4,
    "curiosity": 36.0,
    "expgrad_gbm": 1.2,
    "expgrad_lr": 0.9,
    "lr": 0.05,
    "gbm": 0.1,
    "training_front": 0.1,
}


def study_tasks(grid: StudyGrid, bundle: Mapping[str, SweepData]) -> list[Task]:
    """Every fit of the grid, with its key."""
    tasks: list[Task] = []
    for name, data in bundle.items():
        rows_by_columns = data.X.shape[0] * data.X.shape[1] / 1e6
        size = rows_by_columns * grid.max_nodes / 4e6
        common = {"dataset": name, "data": fingerprint(data), "cv": grid.cv, "seed": grid.seed}
        budget = {"lam": grid.lam, "max_nodes": grid.max_nodes, "memory_limit_mb": grid.memory_mb}
        for metric in (None, *grid.metrics):
            for epsilon in (None,) if metric is None else grid.epsilons:
                for policy in grid.policies:
                    for fold in range(grid.cv):
                        key = {
                            "kind": "rule_list",
                            **common,
                            **budget,
                            "metric": metric,
                            "epsilon": epsilon,
                            "policy": policy,
                            "fold": fold,
                        }
                        settings = grid.settings(metric)
                        cost = size * _COSTS.get(policy, _COSTS["rule_list"])
                        tasks.append(
                            Task(key, ("rule_list", name, settings, epsilon, policy, fold), cost)
                        )
        tasks += _baseline_tasks(grid, name, common, rows_by_columns)
        if grid.training_max_length is not None:
            for metric in grid.metrics:
                settings = grid.settings(metric, training=True)
                key = {
                    "kind": "training_front",
                    "dataset": name,
                    "data": common["data"],
                    "lam": grid.lam,
                    "max_nodes": settings.max_nodes,
                    "memory_limit_mb": settings.memory_limit_mb,
                    "metric": metric,
                    "max_length": grid.training_max_length,
                    "policy": grid.training_policy,
                    "max_points": grid.training_max_points,
                }
                args = (
                    "training_front",
                    name,
                    settings,
                    grid.training_policy,
                    grid.training_max_points,
                )
                tasks.append(Task(key, args, _COSTS["training_front"] * rows_by_columns))
    return tasks


def _baseline_tasks(grid: StudyGrid, name: str, common: dict, size: float) -> list[Task]:
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
                key = {
                    "kind": "baseline",
                    **common,
                    "method": method,
                    "options": baseline.options,
                    "metric": metric,
                    "bound": bound,
                    "iterations": grid.expgrad_iterations if bound else None,
                    "fold": fold,
                }
                args = (
                    "baseline",
                    name,
                    method,
                    metric,
                    bound,
                    fold,
                    grid.seed,
                    grid.expgrad_iterations,
                )
                tasks.append(Task(key, args, size * _COSTS[method]))
    return tasks
