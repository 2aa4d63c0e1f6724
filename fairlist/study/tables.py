"""The study's tables: fits, cross-validated fronts, training fronts, and the paper's comparisons,
from the stored fits (:func:`study_tables`, :func:`write_tables`).
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pandas as pd

from ..pareto import non_dominated
from ..sweep import SweepData
from .grid import PAPER_EXAMPLES, StudyGrid
from .tasks import Task

# --------------------------------------------------------------------------- tables
_FIT_COLUMNS = [
    "dataset",
    "metric",
    "method",
    "policy",
    "setting",
    "fold",
    "status",
    "stop_reason",
    "objective",
    "lower_bound",
    "length",
    "train_error",
    "train_unfairness",
    "test_error",
    "test_unfairness",
]


def _fit_rows(grid: StudyGrid, task: Task, result: dict[str, Any]) -> list[dict[str, Any]]:
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

        rows.append(
            {
                "dataset": key["dataset"],
                "metric": metric,
                "method": method,
                "policy": policy,
                "setting": math.nan if setting is None else setting,
                "fold": key["fold"],
                "status": result.get("status", ""),
                "stop_reason": result.get("stop_reason", ""),
                "objective": result.get("objective", math.nan),
                "lower_bound": result.get("lower_bound", math.nan),
                "length": result.get("length", -1),
                "train_error": result.get("train_error", math.nan),
                "train_unfairness": pick(result.get("train_unfairness", math.nan)),
                "test_error": result.get("test_error", math.nan),
                "test_unfairness": pick(result.get("test_unfairness", math.nan)),
                "rule_list": result.get("rule_list", ""),
            }
        )
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
            n_folds=len(grp),
            optimal_folds=int((grp["status"] == "optimal").sum()),
            mean_length=float(grp["length"].mean()),
            train_error=float(grp["train_error"].mean()),
            train_unfairness=float(grp["train_unfairness"].mean()),
            test_error=float(grp["test_error"].mean()),
            test_unfairness=float(grp["test_unfairness"].mean()),
            test_error_std=float(grp["test_error"].std(ddof=0)),
            test_unfairness_std=float(grp["test_unfairness"].std(ddof=0)),
        )
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
        same = fits[
            (fits["dataset"] == row["dataset"])
            & (fits["metric"] == row["metric"])
            & (fits["method"] == row["method"])
            & (fits["policy"] == row["policy"])
            & _same(fits["setting"], row["setting"])
        ]
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
            records.append(
                {
                    "dataset": task.key["dataset"],
                    "metric": task.key["metric"],
                    "max_length": task.key["max_length"],
                    "solve": k,
                    "front_complete": result["complete"],
                    **point,
                }
            )
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
        row: dict[str, Any] = {
            "dataset": dataset,
            "metric": metric or "unconstrained",
            "paper_accuracy": accuracy,
            "paper_unfairness": cap,
        }
        tr = (
            training[(training["dataset"] == dataset) & (training["metric"] == shown)]
            if len(training)
            else training
        )
        if metric is None and len(tr):
            tr = tr[tr["epsilon"].isna()]
        elif len(tr):
            tr = tr[tr["on_front"]]
        best = _best_under(tr, "unfairness", "error", cap) if len(tr) else None
        if best is not None:
            row.update(
                train_accuracy=1 - best["error"],
                train_unfairness=best["unfairness"],
                train_status=best["status"],
                train_gap=best["gap"],
                train_length=int(best["length"]),
            )
        mine = points[(points["dataset"] == dataset) & (points["metric"] == shown)]
        if metric is None:
            mine = mine[(mine["method"] == "rule_list") & mine["policy"].isin(grid.pooled)]
        else:
            mine = mine[(mine["method"] == "fairlist") & mine["front"]]
        best = _best_under(mine, "test_unfairness", "test_error", cap)
        if best is not None:
            row.update(
                cv_accuracy=1 - best["test_error"],
                cv_unfairness=best["test_unfairness"],
                cv_policy=best["policy"],
                cv_epsilon=best["setting"],
                cv_optimal_folds=int(best["optimal_folds"]),
            )
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
        pts = points[
            (points["dataset"] == dataset)
            & (points["metric"] == metric)
            & (points["method"] == "fairlist")
        ]
        pooled = non_dominated(pts["test_unfairness"], pts["test_error"])
        for policy in grid.policies:
            if policy not in wide:
                continue
            records.append(
                {
                    "dataset": dataset,
                    "metric": metric,
                    "policy": policy,
                    "fits": int((grp["policy"] == policy).sum()),
                    "optimal_fits": int(
                        ((grp["policy"] == policy) & (grp["status"] == "optimal")).sum()
                    ),
                    "common_fits": len(wide),
                    "mean_objective": float(wide[policy].mean()),
                    "best_fits": int((wide[policy] <= best + 1e-12).sum()),
                    "front_points": int((pts["policy"][pooled] == policy).sum()),
                }
            )
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
        records.append(
            {
                "dataset": dataset,
                "metric": metric,
                "fits": len(wide),
                "text_better": int((diff < -1e-12).sum()),
                "code_better": int((diff > 1e-12).sum()),
                "ties": int((diff.abs() <= 1e-12).sum()),
                "mean_objective_text": float(wide[text].mean()),
                "mean_objective_code": float(wide[code].mean()),
            }
        )
    return pd.DataFrame.from_records(records)


def study_tables(
    grid: StudyGrid,
    tasks: Sequence[Task],
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
