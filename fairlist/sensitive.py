"""The sensitive columns of a table: which columns of ``X`` hold the groups, to leave them out.

The groups reach ``fit`` as ``sensitive_features``: the name(s) of columns of ``X``, or the
groups themselves (fairlearn's way, ``sensitive_features=X["gender"]``). Either way the sensitive
attribute must never be an antecedent: :func:`split_sensitive` returns ``X`` without the named
columns, and without the columns that hold the same groups as values given
(:func:`sensitive_copies`: the same values up to a renaming, or a sensitive feature's name),
warning with a :class:`~fairlist.groups.SensitiveColumnWarning`. The groups' codes are
:mod:`fairlist.groups`' business; this module only finds the columns.

>>> import pandas as pd
>>> X = pd.DataFrame({"age": [20, 30, 40, 50], "sex": ["f", "m", "f", "m"]})
>>> split_sensitive(X, "sex")[2]
['sex']
>>> sensitive_copies(X, pd.Series([0, 1, 0, 1]))
['sex']
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import pandas as pd

from .errors import DataError, MissingColumnError
from .groups import SensitiveColumnWarning

__all__ = ["split_sensitive", "drop_copies", "sensitive_copies", "grouping"]


def split_sensitive(
    X: Any, sensitive_features: Any, allow: bool = False
) -> tuple[Any, Any, list[str]]:
    """(X without the sensitive columns, the groups, those columns' names).

    ``sensitive_features`` names columns of X when it is a string, or a list of strings that
    are all columns of X (fewer than its rows); otherwise it holds the groups, and the columns
    of a DataFrame X that hold a sensitive feature (:func:`sensitive_copies`) are left out with
    a :class:`SensitiveColumnWarning`. ``allow`` (``allow_sensitive_antecedents``): X is
    returned whole, the named columns included.
    """
    s = sensitive_features
    names: list[str] = []
    if isinstance(s, str):
        if not isinstance(X, pd.DataFrame):
            raise DataError(
                f"sensitive_features={s!r} names a column, but X is not a DataFrame; pass the "
                "groups themselves or a DataFrame that has that column"
            )
        names = [s]
    elif (
        isinstance(X, pd.DataFrame)
        and isinstance(s, (list, tuple))
        and 0 < len(s) < len(X)
        and all(isinstance(v, str) and v in X.columns for v in s)
    ):
        names = list(s)
    if not names:
        return (X, s, []) if allow else drop_copies(X, s)
    repeated = sorted({c for c in names if names.count(c) > 1})
    if repeated:
        raise DataError(f"sensitive_features names {repeated[0]!r} twice; name each column once")
    absent = [c for c in names if c not in X.columns]
    if absent:
        shown = ", ".join(map(repr, list(X.columns)[:10]))
        raise MissingColumnError(
            f"sensitive_features names {absent[0]!r}, which is not a column of X ({shown}"
            f"{', …' if X.shape[1] > 10 else ''})"
        )
    groups = X[names[0]] if len(names) == 1 else X[names]
    if allow:
        return X, groups, []
    return X.drop(columns=names), groups, names


def drop_copies(X: Any, s: Any) -> tuple[Any, Any, list[str]]:
    """``split_sensitive`` for groups given as values: X without its copies of them."""
    copies = sensitive_copies(X, s) if isinstance(X, pd.DataFrame) else []
    if not copies:
        return X, s, []
    shown = ", ".join(repr(c) for c in copies)
    warnings.warn(
        f"column(s) {shown} of X hold the sensitive feature(s) given as sensitive_features: "
        "they are left out of the antecedents (as sensitive_features=<column name> does) and "
        "ignored by predict; allow_sensitive_antecedents=True keeps them",
        SensitiveColumnWarning,
        stacklevel=6,  # drop_copies, split_sensitive, prepare.prepare, prepare, fit, the caller
    )
    return X.drop(columns=copies), s, copies


def sensitive_copies(X: Any, s: Any) -> list[Any]:
    """The columns of the DataFrame X that hold a sensitive feature given as values.

    A column is a copy when it has a string name that is the name of ``s`` (a Series) or of one
    of its columns (a DataFrame), or when it splits the rows into the same groups as one
    sensitive feature: the same values up to a renaming, whatever the dtypes (``gender`` as
    strings or categories, ``gender == "male"``, its 0/1 code). Rows are compared by position.
    A column merely correlated with the groups is not a copy.
    """
    frame = X
    if s is None or frame.shape[1] == 0:
        return []
    if isinstance(s, pd.Series):
        table = s.to_frame()
    elif isinstance(s, pd.DataFrame):
        table = s
    else:
        try:
            values = np.asarray(s)
        except (TypeError, ValueError):
            return []
        if values.ndim not in (1, 2):
            return []
        table = pd.DataFrame(values if values.ndim == 2 else values[:, None])
    if len(table) != len(frame):  # the row counts' error comes later, with both numbers
        return []
    names = {c for c in table.columns if isinstance(c, str)}
    if isinstance(s, pd.Series) and not isinstance(s.name, str):
        names = set()
    groupings = [grouping(table.iloc[:, j]) for j in range(table.shape[1])]
    # Codes numbered by first appearance agree on the first rows when they agree on all, so a
    # column is factorized whole only when its first _PREFIX_ROWS rows split like a feature's
    # (on 200,000 rows x 2,500 antecedents, factorizing every column took seconds).
    head = frame.iloc[:_PREFIX_ROWS]
    heads = [g[:_PREFIX_ROWS] for g in groupings]
    copies = []
    for j, column in enumerate(frame.columns):
        if isinstance(column, str) and column in names:
            copies.append(column)
            continue
        if not any(np.array_equal(grouping(head.iloc[:, j]), g) for g in heads):
            continue
        codes = grouping(frame.iloc[:, j])
        if any(np.array_equal(codes, g) for g in groupings):
            copies.append(column)
    return copies


#: Rows a column's first look covers in :func:`sensitive_copies`.
_PREFIX_ROWS = 64


def grouping(column: pd.Series) -> np.ndarray:
    """Group codes numbered by first appearance (missing values: -1): two columns split the
    rows into the same groups exactly when their codes are equal."""
    try:
        codes, _ = pd.factorize(column.to_numpy(), use_na_sentinel=True)
    except TypeError:  # unhashable cells: by their text
        codes, _ = pd.factorize(column.astype(str).to_numpy(), use_na_sentinel=True)
    return codes
