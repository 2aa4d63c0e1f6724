"""A user's table as the commands read it: a CSV file or a built-in data set, its columns in
their roles (label, sensitive groups, weight, antecedents), binarized when its antecedents are
not 0/1 already.

:func:`read_csv` reads a CSV exactly as written (pandas would rename a repeated column, and the
label could leak into the model); :func:`read_table` gives every column one role and returns a
:class:`Table`. The command line reads every ``DATA`` argument through :func:`read_table`.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from ._validation import is_binary_table, stray_binary_cell
from .errors import DataError, MissingColumnError

__all__ = ["Table", "read_csv", "read_rows", "read_table", "to_antecedents"]


@dataclass
class Table:
    """What a command needs from ``DATA``."""

    X: Any  # DataFrame: antecedents, or raw columns (with the sensitive ones) when not binarized
    y: Any  # Series of labels (names), or None
    sensitive: Any  # Series (or DataFrame of several columns): the group of each row
    protected: Any  # the protected value (None: every value is a group, or a 0/1 mask)
    source: str  # what was read, for people
    sensitive_columns: list[str] | None = None  # the columns of X holding the groups (raw)
    weight: Any = None  # Series of sample weights, or None
    binarizer_params: dict[str, Any] = field(default_factory=dict)  # handle_missing, cuts

    @property
    def groups(self) -> Any:
        """What fit takes as sensitive_features: the column names of a raw table, else groups."""
        return self.sensitive_columns or self.sensitive


def to_antecedents(
    binarizer: Any, X: Any, y: Any = None, *, deadline: float | None = None
) -> tuple[Any, np.ndarray, list[str]]:
    """The one route from raw columns to antecedents (the estimator's fit, and every command
    through :func:`read_table`): ``binarizer`` fitted on ``X`` (and ``y``), ``X``'s antecedents
    as one C-contiguous ``uint8`` matrix, and their names.

    The matrix is the fit's one conversion of the table: it goes to the search as it is, with
    no DataFrame around it (pandas' constructor alone took 6 s on 200,000 rows x 2,500
    antecedents). :meth:`~fairlist.binarize.Binarizer.fit_transform` reads the columns once and
    writes the antecedents a block at a time with a look at the clock between two: ``deadline``
    (a ``time.perf_counter()`` time) bounds the fit and the writing; past it, a
    :class:`~fairlist.errors.TimeLimitError` says how far it got.

    Examples
    --------
    >>> import pandas as pd
    >>> from fairlist.binarize import Binarizer
    >>> raw = pd.DataFrame({"age": [19, 35, 50, 23], "sex": list("FMFM")})
    >>> fitted, X, names = to_antecedents(Binarizer(numeric="quantile", n_bins=2), raw)
    >>> X.dtype, X.shape[0], len(names) == X.shape[1]
    (dtype('uint8'), 4, True)
    """
    out = binarizer.fit_transform(X, y, deadline=deadline, as_array=True)
    names = [str(c) for c in binarizer.get_feature_names_out()]
    return binarizer, np.ascontiguousarray(out, dtype=np.uint8), names


def _dataset_names() -> list[str]:
    from .datasets import DATASETS

    return sorted(DATASETS)


def _typed_value(column: Any, text: str | None) -> Any:
    """``--protected`` read as the sensitive column's type (``1`` is an int on an int column)."""
    if text is None or column.ndim != 1 or column.dtype.kind not in "iufb":
        return text
    try:
        return type(column.iloc[0].item())(float(text))
    except (TypeError, ValueError):
        return text


def read_csv(path: Path) -> Any:
    """The CSV file ``path`` as a DataFrame, exactly as written, or a :class:`DataError` saying
    what is wrong with the file.

    pandas would quietly change some tables: it renames a repeated column name (a second ``y``
    becomes ``y.1``, an antecedent, and the label leaks into the model), names an empty one
    ``Unnamed: 1``, and turns the first field into the index when the rows have one more field
    than the header. So the header is read here (the csv module, first non-blank line) and each
    of those is an error, as are a file without rows and one that is not UTF-8 text.
    """
    import csv

    import pandas as pd

    try:
        with open(path, newline="", encoding="utf-8-sig") as lines:
            header = next((row for row in csv.reader(lines) if row), None)
        if header is None:
            raise DataError(f"{path.name} is empty: no header line")
        frame = pd.read_csv(path, encoding="utf-8-sig")
    except UnicodeDecodeError as exc:
        raise DataError(
            f"{path.name} is not UTF-8 text ({exc.reason} at byte {exc.start})"
        ) from None
    except (csv.Error, pd.errors.ParserError, pd.errors.EmptyDataError) as exc:
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise DataError(f"{path.name} is not a readable CSV file: {first}") from None
    counts: dict[str, int] = {}
    for name in header:
        counts[name] = counts.get(name, 0) + 1
    repeated = [name for name, count in counts.items() if count > 1]
    if repeated:
        raise DataError(
            f"{path.name} has duplicate column names: {repeated}; every column needs its own name"
        )
    if "" in counts:
        raise DataError(
            f"{path.name}: column {header.index('') + 1} of the header has no name; name every "
            "column (a CSV written by pandas with its index has one: write it with index=False)"
        )
    if not frame.index.equals(pd.RangeIndex(len(frame))) or len(frame.columns) != len(header):
        raise DataError(
            f"{path.name}: the data rows have more fields than the header ({len(header)} names)"
        )
    if len(frame) == 0:
        raise DataError(f"{path.name} has no rows (only a header)")
    _check_no_nul(path, header, frame)
    return frame


def _check_no_nul(path: Path, header: list[str], frame: Any) -> None:
    """A :class:`DataError` naming the column and the row of a NUL byte: pandas keeps it in the
    cell (``'1\x00'`` is a third label, a new category), and the errors that follow, if any,
    never say why. A CSV holds text; a NUL is a binary file or a broken export. The file's
    bytes are scanned first (memchr speed), the cells only when one is there."""
    offset, where = 0, ""  # where: the byte, unless a cell or the header holds it
    with open(path, "rb") as data:
        for chunk in iter(lambda: data.read(1 << 24), b""):
            if (at := chunk.find(b"\0")) >= 0:
                where = f"byte {offset + at}"
                break
            offset += len(chunk)
        else:
            return
    where = next((f"the header, column {i + 1}" for i, n in enumerate(header) if "\0" in n), where)
    for column in frame.columns if where.startswith("byte") else ():
        values = frame[column]
        if values.dtype.kind not in "biufcmM":  # text: object or a string dtype (pandas 3)
            held = values.map(lambda v: isinstance(v, str) and "\0" in v).to_numpy(bool)
            if held.any():
                where = f"row {int(held.argmax())}, column {column!r}"
                break
    raise DataError(
        f"{path.name} holds a NUL byte (\\x00) at {where}: a CSV "
        "file holds text; is it a binary file, or an export that went wrong?"
    )


def _check_roles(named: list[tuple[str, str | None]]) -> None:
    """Each column in one role only: a label that is also a group, a weight or dropped, or a
    group given twice, would be learned from (or counted) twice."""
    seen: dict[str, str] = {}
    for option, column in named:
        if column is None:
            continue
        if column in seen:
            first = seen[column]
            same = f"twice as {option}" if first == option else f"as {first} and {option}"
            raise DataError(f"column {column!r} is given {same}; each column has one role")
        seen[column] = option


def read_table(
    data: str,
    target: str | None,
    sensitive: list[str] | None,
    protected: str | None,
    drop: list[str] | None = None,
    min_support: float | None = None,
    need_target: bool = True,
    antecedents: bool = True,
    weight: str | None = None,
    groups: str = "paper",
    handle_missing: str | None = None,
    cuts: str | None = None,
    *,
    columns: str | None = None,
    max_antecedents: int | None = None,
    keep_id_columns: bool = False,
) -> Table:
    """Read ``data``: a built-in data set name or a CSV file (every command reads it here).

    The arguments are the command line's options (``--target``, ``--sensitive``,
    ``--protected``, ``--drop``, ``--min-support``, ``--weight``, ``--groups``,
    ``--handle-missing``, ``--cuts``, ``--columns``, ``--max-antecedents``,
    ``--keep-id-columns``); the messages name them. ``columns`` (comma-separated) keeps those
    columns of a CSV and the ones given a role, as if every other were in ``drop``.
    ``handle_missing`` and ``cuts`` (None: the :class:`~fairlist.binarize.Binarizer`'s defaults,
    ``"error"`` and MDLP with a target) are how raw columns are binarized here, and with
    ``antecedents=False`` the estimator's settings of the same names
    (:attr:`Table.binarizer_params`). ``max_antecedents`` (None: the binarizer's default budget,
    or a built-in data set's, every antecedent; 0: every antecedent) and ``keep_id_columns`` are
    the binarizer's settings of the same names for the columns binarized here (the estimator
    takes them itself with ``antecedents=False``).

    A built-in data set comes as the paper's antecedents, with ``groups`` (its sensitive
    groups). A CSV's columns other than the target, the sensitive ones, the weight and ``drop``
    are antecedents when they are all 0/1; otherwise, with ``antecedents=True``, they are
    binarized here (:class:`~fairlist.binarize.Binarizer`, MDLP cuts when there is a target),
    and with ``antecedents=False`` they are returned raw, the sensitive columns included, for
    the estimator to binarize (so that its model keeps the binarizer and predicts raw rows).
    """
    import pandas as pd

    path = Path(data)
    if not path.exists() and data in _dataset_names():
        from .datasets import load_dataset

        kwargs = {} if min_support is None else {"min_support": min_support}
        if max_antecedents is not None:
            kwargs["max_antecedents"] = max_antecedents or None
        if columns is not None:
            raise DataError(f"--columns applies to a CSV file; {data!r} is a built-in data set")
        ds = load_dataset(data, groups=groups, **kwargs)
        y = pd.Series(np.asarray(ds.labels)[ds.y.to_numpy()], name=ds.y.name, index=ds.y.index)
        return Table(ds.X, y, ds.sensitive, ds.protected, f"{data} (built-in, {groups} groups)")
    if not path.exists():
        known = ", ".join(_dataset_names())
        raise FileNotFoundError(f"no file {data!r} and no built-in data set of that name ({known})")
    named = [("--target", target), *(("--sensitive", c) for c in sensitive or ())]
    named += [("--weight", weight)]
    _check_roles([*named, *(("--drop", c) for c in drop or ())])
    frame = read_csv(path)
    if columns is not None:
        drop = _drop_all_but(frame, path, columns, [target, weight, *(sensitive or ())], drop)
    if not sensitive:
        raise DataError(f"--sensitive is required with a CSV file (a column of {path.name})")
    if target is None and need_target:
        raise DataError(f"--target is required with a CSV file (a column of {path.name})")
    for name, col in [*named, *(("--drop", c) for c in drop or ())]:
        if col is not None and col not in frame.columns:
            shown = ", ".join(map(str, frame.columns[:8]))
            raise MissingColumnError(
                f"{name} {col!r} is not a column of {path.name} ({shown}, ...)"
            )
    y = frame[target] if target is not None else None
    if y is not None:
        _check_two_classes(y, target)
    groups_of = frame[sensitive[0]] if len(sensitive) == 1 else frame[list(sensitive)]
    prot = _typed_value(groups_of, protected)
    weights = frame[weight] if weight is not None else None
    features = frame.drop(columns=[c for c in (target, weight, *sensitive, *(drop or ())) if c])
    if features.shape[1] and is_binary_table(features):  # (no column: the estimator says so)
        return Table(features.astype("uint8"), y, groups_of, prot, str(path), weight=weights)
    stray = stray_binary_cell(features, alone=True)
    # (a missing or infinite value: the binarizer's error names it)
    named_later = stray is not None and (
        stray[2] is None or (isinstance(stray[2], float) and not np.isfinite(stray[2]))
    )
    if stray is not None and not named_later:
        warnings.warn(
            f"column {stray[0]!r} is 0/1 but for {stray[2]!r} at row {stray[1]}: the table is "
            "read as raw columns and binarized (if it holds antecedents, fix that cell)",
            stacklevel=2,
        )
    settings = {"handle_missing": handle_missing, "cuts": cuts}
    settings = {k: v for k, v in settings.items() if v is not None}
    if not antecedents:
        raw = frame.drop(columns=[c for c in (target, weight, *(drop or ())) if c])
        return Table(
            raw, y, groups_of, prot, f"{path} (raw columns)", list(sensitive), weights, settings
        )
    from .binarize import Binarizer

    kwargs: dict[str, Any] = {} if min_support is None else {"min_support": min_support}
    if handle_missing is not None:
        kwargs["handle_missing"] = handle_missing
    if max_antecedents is not None:
        kwargs["max_antecedents"] = max_antecedents or None
    if keep_id_columns:
        kwargs["keep_id_columns"] = True
    numeric = cuts or ("mdlp" if y is not None else "quantile")
    _, matrix, names = to_antecedents(Binarizer(numeric=numeric, **kwargs), features, y)
    X = pd.DataFrame(matrix, columns=names, index=features.index)
    return Table(
        X, y, groups_of, prot, f"{path} (binarized: {X.shape[1]} antecedents)", weight=weights
    )


def _drop_all_but(
    frame: Any, path: Path, columns: str, roles: list[str | None], drop: list[str] | None
) -> list[str]:
    """``--drop`` extended by ``--columns``: every column of ``frame`` (read from ``path``)
    that is neither named by ``columns`` (comma-separated) nor given a role (target,
    sensitive, weight)."""
    keep = [c.strip() for c in columns.split(",") if c.strip()]
    if not keep:
        raise DataError("--columns names no column (give them comma-separated: a,b,c)")
    header = [str(c) for c in frame.columns]
    unknown = [c for c in keep if c not in header]
    if unknown:
        shown = ", ".join(header[:8])
        raise MissingColumnError(
            f"--columns {unknown[0]!r} is not a column of {path.name} ({shown}, ...)"
        )
    kept = set(keep) | {c for c in roles if c}
    return [*(drop or ()), *(c for c in header if c not in kept and c not in (drop or ()))]


def _check_two_classes(y: Any, target: str) -> None:
    """A rule list predicts one of two classes: a continuous target (a float column of more
    than two values), which scikit-learn refuses with a traceback, is refused here, naming the
    column."""
    import pandas as pd

    if not pd.api.types.is_float_dtype(y):
        return  # a discrete target of one or three classes: the estimator names them
    values = y.dropna().unique()
    if len(values) <= 2:
        return
    plain = [v.item() if hasattr(v, "item") else v for v in values[:3]]
    shown = ", ".join(f"{v:g}" if isinstance(v, float) else repr(v) for v in plain)
    raise DataError(
        f"--target {target!r} is a continuous column of {len(values)} distinct values ({shown}, "
        "...); a rule list needs two classes: make a two-valued column (e.g. value > cut)"
    )


def read_rows(data: str) -> Any:
    """The rows of ``data`` as they are, for a model to predict: a CSV file (:func:`read_csv`)
    or a built-in data set's antecedents."""
    if Path(data).exists():
        return read_csv(Path(data))
    if data in _dataset_names():
        return read_table(data, None, None, None).X
    raise FileNotFoundError(f"no file {data!r}")
