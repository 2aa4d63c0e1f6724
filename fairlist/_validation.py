"""Data checks shared by every entry point: 0/1 arrays and binary labels.

Each check is written once and raises :class:`~fairlist.errors.DataError` naming the argument and
the offending value (and, for a table, its row and column), so that the problem, the estimator,
the metrics, the rule list and the command line report the same mistake the same way.
"""

from __future__ import annotations

import numbers
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
from sklearn.utils.multiclass import check_classification_targets, type_of_target

try:  # scikit-learn >= 1.6
    from sklearn.utils.validation import validate_data
except ImportError:  # pragma: no cover - older scikit-learn

    def validate_data(estimator, X, y="no_validation", **kwargs):
        """scikit-learn's ``validate_data`` before 1.6: the estimator's own method."""
        return estimator._validate_data(X, y, **kwargs)


from .errors import DataError

__all__ = [
    "named",
    "as_table",
    "not_a_mapping",
    "check_fit_rows",
    "as_binary",
    "is_binary_table",
    "stray_binary_cell",
    "check_labels",
    "Target",
    "encode_labels",
    "encode_target",
    "check_is_table",
]


def named(name: str, values: Any) -> str:
    """``name``, with the column's own name when ``values`` is a named column (a Series), so
    that ``--target label`` on the command line reads ``y (column 'label')``."""
    column = values.name if isinstance(values, pd.Series) else None
    return name if column is None else f"{name} (column {column!r})"


def as_table(name: str, values: Any) -> Any:
    """``values`` unchanged, once checked to be a table: no two columns of a DataFrame share a
    name, and the rows of a list have one length.

    numpy's own message for a list of rows of different lengths names neither the argument nor
    the row, and pandas would accept a table whose columns share a name (a label column given
    twice becomes an antecedent); both are errors here, named.
    """
    if isinstance(values, pd.DataFrame):
        repeated = values.columns[values.columns.duplicated()].unique().tolist()
        if repeated:
            raise DataError(
                f"{name} has duplicate column names: {repeated}; every column needs its own name"
            )
        return values
    if hasattr(values, "tocsr") or hasattr(values, "to_pandas"):  # sparse, polars, pyarrow
        return values
    try:
        np.asarray(values)
    except ValueError:  # rows of different lengths
        lengths = [len(row) if hasattr(row, "__len__") else 1 for row in values]
        bad = next((i for i, n in enumerate(lengths) if n != lengths[0]), 0)
        raise DataError(
            f"{name} is ragged: row {bad} has {lengths[bad]} values, row 0 has {lengths[0]}; "
            "every row needs one value per column"
        ) from None
    return values


def not_a_mapping(name: str, values: Any) -> None:
    """A :class:`DataError` when ``values`` is a dict (or another mapping): a dict of columns is
    what a DataFrame is built from, not a table; numpy reads it as a single object, and the
    errors that follow ("y has 4 rows, X has 1") are about a table nobody gave.

    >>> not_a_mapping("X", {"a": [1, 0]})
    Traceback (most recent call last):
    ...
    fairlist.errors.DataError: X is a dict (columns by name), not a table: give \
pandas.DataFrame(X) for a dict of columns
    """
    if isinstance(values, Mapping) and not hasattr(values, "tocsr"):  # scipy's dok: a dict
        raise DataError(
            f"{name} is a {type(values).__name__} (columns by name), not a table: give "
            f"pandas.DataFrame({name}) for a dict of columns"
        )


def check_fit_rows(name: str, values: Any, minimum: int = 2) -> None:
    """A :class:`DataError` when the table ``values`` has fewer than ``minimum`` rows (samples),
    before anything looks at its columns: a fit needs samples of two classes, and with fewer
    rows than that every column is constant, so the later errors would be about columns.

    >>> check_fit_rows("X", np.zeros((1, 3)))
    Traceback (most recent call last):
    ...
    fairlist.errors.DataError: X has 1 sample (row); a fit needs at least 2, of two classes
    """
    shape = getattr(values, "shape", None)
    try:
        n_rows = int(shape[0]) if shape is not None and len(shape) else len(values)
    except TypeError:  # no length: the table checks that follow name it
        return
    if n_rows < minimum:
        what = "no samples (rows)" if n_rows == 0 else f"{n_rows} sample (row)"
        raise DataError(f"{name} has {what}; a fit needs at least {minimum}, of two classes")


def _not_binary(arr: np.ndarray) -> np.ndarray:
    """Mask of the entries of a numeric array that are neither 0 nor 1 (NaN included)."""
    return (arr != 0) & (arr != 1)


def as_binary(
    name: str,
    values: Any,
    ndim: int,
    *,
    columns: Sequence[str] | None = None,
    hint: str = "",
) -> np.ndarray:
    """``values`` as a C-contiguous ``uint8`` array of 0/1 with ``ndim`` dimensions.

    Booleans and numbers equal to 0 or 1 are accepted. The error names ``name``, the first bad
    value and where it is (``columns`` names the columns of a 2-D array); ``hint`` is appended.
    """
    not_a_mapping(name, values)
    arr = np.asarray(values)
    if arr.ndim == 0 and arr.dtype == object:  # a caller's np.asarray of a dict
        not_a_mapping(name, arr.item())
    if arr.ndim != ndim:
        raise DataError(f"{name} must be {ndim}-dimensional, got shape {arr.shape}")
    if arr.dtype != bool:
        if arr.dtype.kind not in "iuf":
            raise DataError(f"{name} must hold 0/1 or booleans, got dtype {arr.dtype}{hint}")
        # Integers: one pass of min and max, no temporary (a 0/1 table of 200,000 x 2,500 is
        # checked in 0.02 s, where the masks took 2 s); the masks below only find the bad cell.
        if arr.dtype.kind in "iu" and (arr.size == 0 or (arr.min() >= 0 and arr.max() <= 1)):
            return np.ascontiguousarray(arr, dtype=np.uint8)
        missing = np.isnan(arr) if arr.dtype.kind == "f" else None
        bad = missing if missing is not None and missing.any() else _not_binary(arr)
        if bad.any():
            where = tuple(int(i) for i in np.argwhere(bad)[0])
            place = f"index {where}"
            if columns is not None and ndim == 2:
                place = f"row {where[0]}, column {columns[where[1]]!r}"
            if bad is missing:
                raise DataError(f"{name} contains NaN (at {place}){hint}")
            raise DataError(
                f"{name} must hold only 0/1 (or booleans); found {arr[where].item()!r} at "
                f"{place}{hint}"
            )
    return np.ascontiguousarray(arr, dtype=np.uint8)


def is_binary_table(frame: pd.DataFrame) -> bool:
    """Whether every column of ``frame`` holds only 0/1 or booleans (no missing value)."""
    for col in frame.columns:
        values = frame[col]
        if values.dtype == bool:
            continue
        if values.dtype.kind not in "iuf" or _not_binary(values.to_numpy()).any():
            return False
    return True


def stray_binary_cell(frame: pd.DataFrame, *, alone: bool = False) -> tuple[Any, int, Any] | None:
    """``(column, row, value)`` of the first cell that keeps a column of ``frame`` from being
    0/1, in the first column that is 0/1 in more than half of its cells; else None. With
    ``alone``, only when that column is the one column of ``frame`` that is not 0/1.

    One 0.5 or ``inf`` typed into a table of antecedents makes its column numeric, and one
    ``?``, a NUL byte or any other text makes it a column of strings (``"0"``, ``"1"``,
    ``"?"``): either way the table is then binarized as raw columns, and this names the cell
    that did it (a missing value too).
    """
    for col in frame.columns:
        if alone and not is_binary_table(frame.drop(columns=[col])):
            continue
        values = frame[col]
        if values.dtype == bool:
            continue
        if values.dtype.kind in "iuf":
            stray = ~values.isin([0, 1]).to_numpy()
        else:  # text (a CSV's "0", "1" and one "?"), or objects
            as_text = values.map(lambda v: v if isinstance(v, str) else repr(v))
            stray = ~(values.isin([0, 1]) | as_text.str.strip().isin(["0", "1"])).to_numpy()
            stray &= ~values.map(lambda v: isinstance(v, bool)).to_numpy()
        if 0 < stray.sum() < stray.size / 2:
            row = int(np.flatnonzero(stray)[0])
            value = values.iloc[row]
            return col, row, value.item() if isinstance(value, np.generic) else value
    return None


def check_labels(y: Any, *, name: str = "y", n_rows: int | None = None) -> np.ndarray:
    """``y`` as a 1-D array of ``n_rows`` labels, none missing (NaN or None, named by row).

    The check scikit-learn's target checks lack: they call a None "Unknown label type" and a
    NaN "Input y contains NaN", without the row.
    """
    name = named(name, y)
    try:
        arr = np.asarray(y)
    except ValueError:  # ragged
        arr = np.asarray(y, dtype=object)
    if arr.dtype.kind in "US" and not isinstance(y, np.ndarray):
        arr = np.asarray(y, dtype=object)  # numpy would turn a None or NaN, or a 0, into text
    if arr.ndim != 1:
        raise DataError(f"{name} must be one-dimensional, got shape {arr.shape}")
    if n_rows is not None and arr.shape[0] != n_rows:
        raise DataError(f"{name} has {arr.shape[0]} rows, X has {n_rows}")
    if arr.shape[0] == 0:
        raise DataError(f"{name} has no rows")
    missing = pd.isna(arr)
    if missing.any():
        raise DataError(
            f"{name} has {int(missing.sum())} missing label(s) (NaN/None), first at row "
            f"{int(np.flatnonzero(missing)[0])}; every sample needs a label"
        )
    if arr.dtype == object:  # text and numbers: "1" and 1 would be two classes, or one
        text = np.fromiter((isinstance(v, (str, bytes)) for v in arr), bool, arr.shape[0])
        if 0 < text.sum() < text.size:
            first = int(np.flatnonzero(~text)[0] if text[0] else np.flatnonzero(text)[0])
            kinds = sorted({type(v).__name__ for v in arr.tolist()})
            raise DataError(
                f"{name} mixes labels of types {', '.join(kinds)} ({arr[0]!r} at row 0, "
                f"{arr[first]!r} at row {first}); give every label the same type"
            )
    return arr


@dataclass(frozen=True)
class Target:
    """Labels checked and encoded once (:func:`encode_target`): ``classes[codes]`` are the
    labels. Handed on in place of the labels (to the binarizer, to
    :meth:`~fairlist.solvers.Problem.from_data`), it is not checked nor encoded again:
    :func:`encode_labels` returns its two arrays as they are."""

    classes: np.ndarray  # sorted: classes[1] is the positive class
    codes: np.ndarray  # uint8, one 0/1 code a row

    def __len__(self) -> int:
        return self.codes.shape[0]


def encode_labels(
    y: Any, *, name: str = "y", n_rows: int | None = None, require_two: bool = True
) -> tuple[np.ndarray, np.ndarray]:
    """The classes of a binary target and its codes: ``classes[codes] == y``.

    Classes are in sorted order, so ``classes[1]`` (the larger) is the positive class, as in
    scikit-learn. ``require_two=False`` accepts a target with a single class (code 0). A
    :class:`Target` (labels encoded before) gives its classes and codes, its length checked.

    Returns
    -------
    classes : ndarray of shape (2,) (or (1,))
    codes : ndarray of uint8, shape (n,)
    """
    if isinstance(y, Target):
        if n_rows is not None and len(y) != n_rows:
            raise DataError(f"{name} has {len(y)} rows, X has {n_rows}")
        return y.classes, y.codes
    return _encode(check_labels(y, name=name, n_rows=n_rows), name, require_two)


def _encode(arr: np.ndarray, name: str, require_two: bool) -> tuple[np.ndarray, np.ndarray]:
    """:func:`encode_labels` of labels :func:`check_labels` accepted."""
    try:
        classes, codes = np.unique(arr, return_inverse=True)
    except TypeError:  # values of types that do not compare (1 and "a")
        kinds = sorted({type(v).__name__ for v in arr.tolist()})
        raise DataError(
            f"{name} mixes labels of types {', '.join(kinds)}; give every label the same type"
        ) from None
    if classes.size > 2:
        shown = ", ".join(repr(v) for v in classes[:5].tolist())
        raise DataError(
            f"{name} must be binary; it has {classes.size} distinct values ({shown}"
            f"{', …' if classes.size > 5 else ''})"
        )
    if require_two and classes.size < 2:
        raise DataError(
            f"{name} has 1 class ({classes.tolist()[0]!r}) only; a classifier needs samples of two "
            "classes"
        )
    return classes, np.asarray(codes, dtype=np.uint8).reshape(-1)


def check_is_table(X: Any) -> None:
    """A :class:`DataError` naming X when it is None or a scalar (scikit-learn's message for it
    is about reshaping an array)."""
    not_a_mapping("X", X)  # a dict of columns: say so, not "y has 4 rows, X has 1"
    scalar = isinstance(X, (str, bytes, numbers.Number, np.generic))
    if X is None or scalar or (isinstance(X, np.ndarray) and X.ndim == 0):
        got = "None" if X is None else f"{type(X).__name__} {X!r}"
        raise DataError(
            "X must be a table of samples (a DataFrame, or an array of shape (n_samples, "
            f"n_columns)); got {got}"
        )


def encode_target(y: Any, n_rows: int, name: str = "y", *, checked: bool = False) -> Target:
    """The binary classification target ``y`` of ``n_rows`` labels, checked and encoded once;
    errors worded as scikit-learn's (its checks match them), then ours (which labels).

    ``checked``: ``y`` holds the labels :func:`check_labels` accepted (in ``prepare``, before
    scikit-learn's own checks could word a missing label without its row), so they are not
    scanned again. Labels of a kind scikit-learn calls ``binary`` whenever they hold two values
    (integers, booleans, text) are then encoded at once, and its checks run only to word an
    error; any other kind (floats, which it may call ``continuous``; objects other than text,
    which it calls ``unknown``) goes through its checks first.

    >>> t = encode_target(["no", "yes", "yes"], 3)
    >>> t.classes.tolist(), t.codes.tolist()
    (['no', 'yes'], [0, 1, 1])
    """
    arr = np.asarray(y) if checked else None
    plain = arr is not None and arr.ndim == 1 and arr.shape[0] == n_rows > 0
    plain = plain and (
        arr.dtype.kind in "biuUS" or (arr.dtype == object and isinstance(arr.flat[0], str))
    )
    if plain:  # (a mix of types that do not compare: checked and refused, never here)
        classes, codes = np.unique(arr, return_inverse=True)
        if classes.size == 2:
            return Target(classes, np.asarray(codes, dtype=np.uint8).reshape(-1))
    check_classification_targets(y)
    y_type = type_of_target(y, input_name="y")
    if y_type != "binary":
        try:  # which values (scikit-learn's words first: its checks match them)
            encode_labels(y, name=name, n_rows=n_rows)
            detail = ""
        except DataError as exc:
            detail = f": {exc}"
        raise DataError(
            f"Only binary classification is supported. The type of the target is {y_type}{detail}"
        )
    return Target(*encode_labels(y, name=name, n_rows=n_rows))
