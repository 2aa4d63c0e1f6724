"""A Pareto front as ``fairlist pareto`` writes it (its CSV, its JSON, or the
:class:`~fairlist.pareto.ParetoResult` itself) and where a model stands against it.

The front's points are read on the axes the report plots, unfairness across and error up, with
whether each point is certified: a point of the exact training front is when its solve was
(``status`` optimal); a point of a cross-validated sweep when every fold was
(``optimal_folds == n_folds``).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from ..errors import DataError

__all__ = ["Front", "read_front", "position"]


@dataclass
class Front:
    """The points of a front: ``unfairness``, ``error``, ``certified`` (one row a point)."""

    points: pd.DataFrame
    #: "training" (the exact front, on the training data) or "test" (a cross-validated sweep)
    split: str
    source: str


def _from_frame(frame: pd.DataFrame, source: str) -> Front:
    if {"test_unfairness", "test_error"} <= set(frame.columns):
        x, y, split = "test_unfairness", "test_error", "test"
        if {"optimal_folds", "n_folds"} <= set(frame.columns):
            certified = frame["optimal_folds"].to_numpy() == frame["n_folds"].to_numpy()
        else:
            certified = np.zeros(len(frame), dtype=bool)
    elif {"unfairness", "error"} <= set(frame.columns):
        x, y, split = "unfairness", "error", "training"
        status = frame["status"] if "status" in frame else pd.Series([""] * len(frame))
        certified = (status.astype(str) == "optimal").to_numpy()
    else:
        raise DataError(
            f"front {source}: no (unfairness, error) or (test_unfairness, test_error) columns; "
            "give the CSV or JSON that `fairlist pareto` writes"
        )
    points = pd.DataFrame(
        {
            "unfairness": pd.to_numeric(frame[x], errors="coerce"),
            "error": pd.to_numeric(frame[y], errors="coerce"),
            "certified": certified.astype(bool),
        }
    ).dropna(subset=["unfairness", "error"])
    return Front(points.sort_values("unfairness").reset_index(drop=True), split, source)


def read_front(front: Any) -> Front:
    """A front from a path (``.csv`` or ``.json``, as ``fairlist pareto`` writes them), a
    :class:`~fairlist.pareto.ParetoResult` or a DataFrame of its columns."""
    from ..pareto import ParetoResult

    if isinstance(front, ParetoResult):
        return _from_frame(front.front, "a traced front")
    if isinstance(front, pd.DataFrame):
        return _from_frame(front, "a DataFrame")
    path = Path(front)
    if not path.is_file():
        raise DataError(f"front {path}: no such file")
    if path.suffix.lower() == ".json":
        try:
            doc = json.loads(path.read_text(encoding="utf-8"))
        except (ValueError, UnicodeDecodeError) as exc:
            raise DataError(f"front {path.name} is not JSON: {exc}") from None
        if not isinstance(doc, dict) or doc.get("format") != "fairlist.pareto":
            raise DataError(f"front {path.name} is not a `fairlist pareto` JSON document")
        return _from_frame(pd.DataFrame.from_records(doc.get("front", [])), path.name)
    from ..table import read_csv

    return _from_frame(read_csv(path), path.name)


def position(front: Front, unfairness: float, error: float) -> str:
    """Where a model of this ``unfairness`` and ``error`` stands against the front, in words.

    >>> f = Front(pd.DataFrame({"unfairness": [0.0, 0.05], "error": [0.4, 0.3],
    ...                         "certified": [True, False]}), "training", "x")
    >>> position(f, 0.05, 0.3)
    'The model is on the front: a point of the front has its unfairness and error.'
    """
    p = front.points
    if p.empty:
        return "The front has no point."
    tol = 1e-9
    same = (np.abs(p["unfairness"] - unfairness) <= tol) & (np.abs(p["error"] - error) <= tol)
    if same.any():
        return "The model is on the front: a point of the front has its unfairness and error."
    fairer = p[p["unfairness"] <= unfairness + tol]
    if fairer.empty:
        return (
            f"The model ({unfairness:.3f} unfairness) is fairer than every point of the front; "
            "the front was traced with other settings or data."
        )
    best = fairer.loc[fairer["error"].idxmin()]
    kind = "certified" if bool(best["certified"]) else "not certified"
    if best["error"] < error - tol:
        return (
            f"The front holds a list at least as fair ({best['unfairness']:.3f}) with less "
            f"error ({best['error']:.3f} against the model's {error:.3f}; that point is {kind})."
        )
    return (
        f"No point of the front at least as fair as the model ({unfairness:.3f}) has less error "
        f"than its {error:.3f}: the model is not dominated."
    )
