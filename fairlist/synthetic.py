"""A seeded synthetic table shaped like the tables practitioners bring: wide, mixed, imbalanced.

:func:`make_wide_table` makes a census-like table of ``n_rows`` rows: numeric columns (ages,
hours, heavy-zero amounts, floats), categorical columns with long tails (a few frequent values
and hundreds of rare ones), ID-like columns (a row id, a name drawn from a large vocabulary, a
timestamp: nearly one distinct value per row), missing values, a binary sensitive attribute and
a label of about ``positive_rate`` positives. The label follows a short rule list over a few of
the columns plus noise, so a useful fair list exists and the constant list is not the answer.

It is the table the scale tests and ``benchmarks/bench_scale.py`` run on: 200,000 rows take
about a second to make, and the same ``seed`` gives the same table on every platform.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

__all__ = ["WideTable", "make_wide_table"]


@dataclass(frozen=True)
class WideTable:
    """A table from :func:`make_wide_table`.

    Attributes
    ----------
    X : DataFrame
        The raw columns (numeric, categorical, ID-like), with missing values; the sensitive
        column is not among them.
    y : ndarray of int8
        The 0/1 label.
    sensitive : Series
        The sensitive attribute (``"sex"``: ``"Female"``/``"Male"``).
    id_like : tuple of str
        The columns that hold nearly one distinct value per row.
    """

    X: pd.DataFrame
    y: np.ndarray
    sensitive: pd.Series
    id_like: tuple[str, ...]


def _long_tail(rng: np.random.Generator, n: int, levels: int, prefix: str) -> np.ndarray:
    """``n`` draws from ``levels`` categories with Zipf-like frequencies (a long tail)."""
    weights = 1.0 / np.arange(1, levels + 1) ** 1.1
    codes = rng.choice(levels, size=n, p=weights / weights.sum())
    names = np.asarray([f"{prefix}_{k:03d}" for k in range(levels)], dtype=object)
    return names[codes]


def make_wide_table(
    n_rows: int = 200_000,
    *,
    n_numeric: int = 14,
    n_categorical: int = 20,
    n_id_like: int = 3,
    positive_rate: float = 0.06,
    missing: float = 0.02,
    seed: int = 0,
) -> WideTable:
    """A seeded census-like table: ``n_numeric + n_categorical + n_id_like`` raw columns.

    Parameters
    ----------
    n_rows : int
        Rows (at least 10).
    n_numeric, n_categorical : int
        Numeric and categorical columns (at least 3 each: the label reads the first three).
    n_id_like : int
        ID-like columns (0 to 3): ``row_id`` (unique integers), ``name`` (a vocabulary of
        ``n_rows`` names, so most appear once or twice) and ``timestamp`` (seconds, as text).
    positive_rate : float
        The share of positive labels, about (in (0, 0.5]).
    missing : float
        The share of missing cells in each non-ID column after the first three of each kind.
    seed : int
        The random seed.

    Examples
    --------
    >>> table = make_wide_table(1_000, seed=1)
    >>> table.X.shape, sorted(table.id_like)
    ((1000, 37), ['name', 'row_id', 'timestamp'])
    >>> bool(0.03 < table.y.mean() < 0.09)
    True
    """
    if n_rows < 10:
        raise ValueError(f"n_rows must be at least 10, got {n_rows}")
    if n_numeric < 3 or n_categorical < 3:
        raise ValueError("n_numeric and n_categorical must be at least 3 (the label reads them)")
    if not 0 <= n_id_like <= 3:
        raise ValueError(f"n_id_like must be 0 to 3, got {n_id_like}")
    if not 0 < positive_rate <= 0.5:
        raise ValueError(f"positive_rate must be in (0, 0.5], got {positive_rate}")
    if not 0 <= missing < 1:
        raise ValueError(f"missing must be in [0, 1), got {missing}")
    rng = np.random.default_rng(seed)
    n = n_rows
    female = rng.random(n) < 0.52
    columns: dict[str, np.ndarray] = {}

    # Numeric: an age, weekly hours, a heavy-zero amount, then a mix of integer and float columns.
    columns["age"] = rng.integers(17, 91, size=n)
    columns["hours_per_week"] = np.clip(rng.normal(40 - 4 * female, 12), 1, 99).round().astype(int)
    gains = rng.lognormal(8, 1.2, size=n) * (rng.random(n) < 0.08)
    columns["capital_gains"] = gains.round().astype(int)
    for k in range(3, n_numeric):
        if k % 2:
            columns[f"num_{k:02d}"] = rng.integers(0, 10 + 7 * k, size=n)
        else:
            columns[f"num_{k:02d}"] = rng.normal(k, 1 + k / 3, size=n).round(3)

    # Categorical: education-like, occupation-like with a long tail, marital-like, then others.
    education = rng.choice(8, size=n, p=[0.05, 0.1, 0.3, 0.2, 0.15, 0.12, 0.05, 0.03])
    columns["education"] = np.asarray([f"edu_{k}" for k in range(8)], dtype=object)[education]
    columns["occupation"] = _long_tail(rng, n, 300, "occ")
    married = rng.random(n) < 0.45
    columns["marital"] = np.where(married, "married", rng.choice(["single", "divorced"], size=n))
    for k in range(3, n_categorical):
        levels = int(rng.integers(3, 12)) if k % 3 else int(rng.integers(40, 600))
        columns[f"cat_{k:02d}"] = _long_tail(rng, n, levels, f"c{k:02d}")

    # The label: a short rule list over the first columns, plus noise, tuned to positive_rate.
    score = (
        1.6 * (education >= 5)
        + 1.2 * married
        + 1.5 * (columns["capital_gains"] > 5000)
        + 0.8 * (columns["hours_per_week"] > 45)
        + 0.6 * (columns["age"] > 40)
        - 0.5 * female
        + rng.normal(0, 0.7, size=n)
    )
    y = (score > np.quantile(score, 1 - positive_rate)).astype(np.int8)

    # Missing cells, after the columns the label reads.
    protected_names = {"age", "hours_per_week", "capital_gains", "education", "occupation"}
    frame = pd.DataFrame(columns)
    for name in frame.columns:
        if name in protected_names or name == "marital" or missing == 0:
            continue
        holes = rng.random(n) < missing
        if frame[name].dtype.kind in "iu":
            frame[name] = frame[name].astype("float64")
        frame.loc[holes, name] = np.nan

    # ID-like columns: one distinct value (or nearly) per row.
    id_like = ("row_id", "name", "timestamp")[:n_id_like]
    if "row_id" in id_like:
        frame["row_id"] = rng.permutation(n) + 100_000
    if "name" in id_like:
        drawn = rng.integers(0, n, size=n).astype(str)
        frame["name"] = np.char.add("person_", drawn).astype(object)
    if "timestamp" in id_like:
        seconds = rng.integers(1_500_000_000, 1_700_000_000, size=n)
        frame["timestamp"] = np.datetime_as_string(seconds.astype("datetime64[s]")).astype(object)
    sensitive = pd.Series(np.where(female, "Female", "Male"), name="sex")
    return WideTable(X=frame, y=y, sensitive=sensitive, id_like=id_like)
