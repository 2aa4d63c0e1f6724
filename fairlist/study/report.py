"""The study's report in Markdown (:func:`study_report`): the grid, the tables and the figures,
with the paper's numbers beside.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

from .grid import StudyGrid


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
    lines = ["| " + " | ".join(columns.values()) + " |", "|" + "---|" * len(columns)]
    for _, row in frame.iterrows():
        lines.append("| " + " | ".join(_cell(row.get(c)) for c in columns) + " |")
    return "\n".join(lines)


def study_report(grid: StudyGrid, tables: Mapping[str, pd.DataFrame]) -> str:
    """The study's tables as markdown: against the paper, the policies, the training fronts."""
    parts = _paper_section(grid, tables["paper"]) + _policies_section(tables["policies"])
    parts += _orders_section(tables.get("orders", pd.DataFrame()))
    parts += _training_section(grid, tables["training_fronts"])
    return "\n".join(parts) + "\n"


def _paper_section(grid: StudyGrid, paper: pd.DataFrame) -> list[str]:
    """The section comparing the study's results with the paper's examples."""
    paper = paper.copy()
    if len(paper):
        paper["paper"] = [
            f"{a:.3f} @ {u:.3f}" if not pd.isna(u) else f"{a:.3f}"
            for a, u in zip(paper["paper_accuracy"], paper["paper_unfairness"], strict=True)
        ]
        paper["training"] = [_at(r, "train") for _, r in paper.iterrows()]
        paper["cv"] = [_at(r, "cv") for _, r in paper.iterrows()]
    return [
        "### Against the paper's examples (accuracy @ unfairness)\n",
        _markdown(
            paper,
            {
                "dataset": "data",
                "metric": "metric",
                "paper": "paper",
                "training": f"ours, training (exact, ≤{grid.training_max_length} rules)",
                "train_status": "status",
                "cv": "ours, cross-validated (test)",
                "cv_policy": "policy",
                "cv_epsilon": "cap",
            },
        ),
    ]


def _policies_section(policies: pd.DataFrame) -> list[str]:
    """The section comparing the search policies' training objectives."""
    return [
        "\n### Search policies (training objective on the fits every policy solved)\n",
        _markdown(
            _digits(policies, "mean_objective"),
            {
                "dataset": "data",
                "metric": "metric",
                "policy": "policy",
                "mean_objective": "mean objective",
                "best_fits": "best on",
                "common_fits": "of fits",
                "front_points": "points on the all-policy front",
            },
        ),
    ]


def _orders_section(orders: pd.DataFrame) -> list[str]:
    """The section comparing the two BFS objective-aware orders (empty without that table)."""
    if not len(orders):
        return []
    return [
        "\n### BFS objective-aware: the paper's text (higher objective first) against its "
        "code (lower first)\n",
        _markdown(
            _digits(orders, "mean_objective_text", "mean_objective_code"),
            {
                "dataset": "data",
                "metric": "metric",
                "fits": "fits",
                "text_better": "text better",
                "code_better": "code better",
                "ties": "ties",
                "mean_objective_text": "mean objective, text",
                "mean_objective_code": "mean objective, code",
            },
        ),
    ]


def _training_section(grid: StudyGrid, training: pd.DataFrame) -> list[str]:
    """The section summarising the exact training fronts (empty without fronts)."""
    if not len(training):
        return []
    summary = (
        training.groupby(["dataset", "metric"], sort=False)
        .agg(
            solves=("solve", "size"),
            points=("on_front", "sum"),
            optimal=("status", lambda s: int((s == "optimal").sum())),
            complete=("front_complete", "first"),
            max_gap=("gap", "max"),
        )
        .reset_index()
    )
    return [
        f"\n### Exact training fronts (lists of at most {grid.training_max_length} rules)\n",
        _markdown(
            summary,
            {
                "dataset": "data",
                "metric": "metric",
                "solves": "solves",
                "points": "front points",
                "optimal": "certified optimal",
                "complete": "complete",
                "max_gap": "largest gap",
            },
        ),
    ]


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
