"""The :class:`Binarizer`: the transformer that turns a table into antecedents (see
:mod:`fairlist.binarize`): fit (the columns, then the budget), transform (all antecedents or the
named ``terms``) and its JSON document; the work is done by the package's other modules."""

from __future__ import annotations

import numbers
import os
import warnings
from collections.abc import Hashable, Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd
from sklearn.base import BaseEstimator, TransformerMixin
from sklearn.utils.validation import check_is_fitted

from .._json import jsonable
from .._params import BOOLEAN, Interval, Options, Satisfies, validate_params
from .._validation import encode_labels, stray_binary_cell
from ..errors import DataError, MissingColumnError
from .budget import choose
from .columns import (
    Column,
    as_frame,
    column_codes,
    fit_column,
    id_like,
    single_index,
)
from .deadline import check_deadline
from .messages import (
    NO_CUT,
    QUANTILE_ADVICE,
    ConstantColumnWarning,
    IdLikeColumnWarning,
)

BINARIZER_FORMAT = "fairlist.binarizer"
BINARIZER_VERSION = 1


def _increasing_cuts(mapping: Any) -> bool:
    """Whether every value of ``mapping`` is a strictly increasing sequence of finite numbers."""
    for cuts in mapping.values():
        arr = np.asarray(cuts, dtype=float)
        if arr.ndim != 1 or not np.all(np.isfinite(arr)) or np.any(np.diff(arr) <= 0):
            return False
    return True


DEFAULT_MAX_ANTECEDENTS = 300
"""The default antecedent budget (see :class:`Binarizer`'s ``max_antecedents`` and
docs/large-tables.md for the measurement behind it)."""

DEFAULT_MAX_PAIR_MEMORY_MB = 512.0
"""The default memory cap of mining conjunctions (:func:`~fairlist.binarize.pair_memory`)."""

_BLOCK = 64
"""Output antecedents computed together by ``transform`` (a bool row each) before they are
copied into the (rows, antecedents) output: a deadline check per block."""


def _memory_bytes() -> int:
    """The physical memory of this machine (bytes; 64 GiB when it cannot be read)."""
    try:
        return int(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES"))
    except (AttributeError, ValueError, OSError):  # pragma: no cover - not POSIX
        return 64 * 2**30


#: What each parameter of :class:`Binarizer` may be.
PARAMETER_CONSTRAINTS: dict[str, list] = {
    "numeric": [Options(("mdlp", "quantile"))],
    "n_bins": [Interval(numbers.Integral, 2, None, closed="left")],
    "cut_points": [
        None,
        Satisfies(
            lambda v: isinstance(v, Mapping) and _increasing_cuts(v),
            "a mapping column -> strictly increasing sequence of finite numbers",
        ),
    ],
    "categorical": [
        None,
        Satisfies(lambda v: not isinstance(v, (str, bytes)), "a sequence of column names"),
    ],
    "negations": [BOOLEAN],
    "conjunctions": [BOOLEAN],
    "min_support": [Interval(numbers.Real, 0, 1, closed="both")],
    "max_antecedents": [None, Interval(numbers.Integral, 1, None, closed="left")],
    "max_pair_memory_mb": [Interval(numbers.Real, 0, None, closed="neither")],
    "keep_id_columns": [BOOLEAN],
    "handle_missing": [Options(("error", "category"))],
    "handle_unknown": [Options(("error", "ignore"))],
}

#: The parameters a fitted binarizer's document may lack (it was written before they existed);
#: the model-file checker reads this.
LATER_PARAMETERS = ("max_pair_memory_mb", "keep_id_columns")


class Binarizer(TransformerMixin, BaseEstimator):
    """Turn a DataFrame into binary antecedents, as the FairCORELS paper prepares its data.

    Parameters
    ----------
    sensitive : column name, list of column names, or None, default=None
        The sensitive column(s). They are never antecedents; ``fit`` checks that they exist and
        hold at least two groups. ``transform`` ignores them (they may be absent there).
    numeric : {"mdlp", "quantile"}, default="mdlp"
        How numeric columns without explicit ``cut_points`` are cut. ``"mdlp"`` (supervised,
        needs ``y``) is the paper's choice; ``"quantile"`` uses ``n_bins`` quantiles. MDLP
        finds no cut in a column whose values do not separate the labels enough to pay for the
        cut; that column then yields no antecedent, with a :class:`ConstantColumnWarning` that
        says so. There is no silent fallback to quantiles: the antecedents would then depend on
        which columns MDLP happened to reject, and the paper's discretisation would not be
        reproduced; ask for ``"quantile"`` when every numeric column should be cut.
    n_bins : int, default=4
        Number of quantile intervals (``numeric="quantile"`` only); fewer when values repeat,
        and never more than the column's distinct values (with at least as many bins as rows,
        each distinct value is its own interval).
    cut_points : mapping of column name to sequence of float, or None, default=None
        Explicit cut points per numeric column (they win over ``numeric``). The intervals are
        ``(-inf, c1), [c1, c2), …, [ck, inf)``. Use it to apply the cut points learned on one
        part of the data to another part (``cut_points=other.cut_points_``).
    categorical : sequence of column names or None, default=None
        Numeric columns to one-hot encode as categories instead of cutting them.
    negations : bool, default=True
        Add ``not X`` for every single antecedent ``X``.
    conjunctions : bool, default=True
        Add ``X && Y`` for single antecedents of different columns with support >= min_support.
    min_support : float in [0, 1], default=0.1
        Minimal fraction of the fitted rows that a conjunction must cover.
    max_antecedents : int or None, default=300
        The antecedent budget. When more antecedents are made, the ``max_antecedents`` most
        informative about the label are kept (:func:`information_gain`, the mutual information
        of the antecedent and the label; without ``y``, the most balanced splits), identical
        columns counted once (``not sex:F`` is ``sex:M``), with an
        :class:`AntecedentCapWarning` giving the numbers made and kept
        (``n_antecedents_made_``, ``n_antecedents_kept_``). Conjunctions are then mined among
        the ``max_antecedents`` most informative single antecedents only. None keeps every
        antecedent made (as fairlist 0.1 did). A certified list is optimal over the kept
        antecedents (see docs/large-tables.md).
    max_pair_memory_mb : float, default=512
        Memory that mining conjunctions may take (MiB), estimated before pairing
        (:func:`pair_memory`): when pairing every candidate would take more, conjunctions are
        mined among the most informative single antecedents that fit, with an
        :class:`AntecedentCapWarning` giving the estimate.
    keep_id_columns : bool, default=False
        False: a column whose distinct values are nearly one per row (names, ids, case numbers,
        timestamps; an integer row id) is left out, with an :class:`IdLikeColumnWarning`
        naming it (``id_columns_``): its antecedents each describe a row or two, and at
        predict time its values are new. True: every column is used. Columns named in
        ``cut_points`` or ``categorical`` are always used.
    handle_missing : {"error", "category"}, default="error"
        Refuse missing values (the error names the column and the row count), or make
        ``column:missing`` an antecedent of its own.
    handle_unknown : {"ignore", "error"}, default="ignore"
        What ``transform`` does with a category (or a missing value) not seen at ``fit`` time:
        set none of the column's antecedents (so every negation of that column holds), with an
        :class:`UnseenCategoryWarning` naming the column and the values, as the exported
        Python and SQL of a model do (:mod:`fairlist.export`); or raise an error naming them.
        Only the columns ``transform`` reads are checked (see ``terms``).

    The output of ``transform`` is a DataFrame of ``uint8`` named by the antecedents (with the
    input's index) when the input is a DataFrame, else an array; :meth:`to_dict` and
    :meth:`from_dict` save and restore a fitted binarizer as JSON.

    Attributes
    ----------
    feature_names_in_ : ndarray of str
        Columns seen in ``fit`` (including the sensitive one).
    n_features_in_ : int
    columns_ : list
        Per used column, how it becomes antecedents (internal, read-only).
    cut_points_ : dict
        Cut points of every numeric column that was cut.
    categories_ : dict
        Categories (in output order) of every one-hot encoded column.
    single_names_ : list of str
        Names of the single antecedents ``R``.
    supports_ : ndarray of float
        Support (fraction of the fitted rows) of each output antecedent.
    n_antecedents_made_ : int
        Antecedents made: single ones, negations and mined conjunctions.
    n_antecedents_kept_ : int
        Antecedents kept (the output's width).
    n_dropped_ : int
        ``n_antecedents_made_ - n_antecedents_kept_``: removed by ``max_antecedents``.
    id_columns_ : list
        Columns left out as ID-like (see ``keep_id_columns``).

    Examples
    --------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"age": [19, 35, 50, 23, 41, 60], "sex": list("FMFMFM"),
    ...                    "job": ["a", "b", "a", "b", "b", "a"]})
    >>> b = Binarizer(sensitive="sex", cut_points={"age": [21, 46]}, min_support=0.3)
    >>> b.fit_transform(df).shape
    (6, 12)
    >>> list(b.get_feature_names_out()[:5])
    ['age:<21', 'age:21-45', 'age:>=46', 'job:a', 'job:b']
    >>> b.transform(df, terms=["job:a", "not age:<21"]).to_numpy().T
    array([[1, 0, 1, 0, 0, 1],
           [0, 1, 1, 1, 1, 1]], dtype=uint8)
    """

    def __init__(
        self,
        *,
        sensitive: Hashable | None = None,
        numeric: str = "mdlp",
        n_bins: int = 4,
        cut_points: Mapping[Hashable, Sequence[float]] | None = None,
        categorical: Sequence[Hashable] | None = None,
        negations: bool = True,
        conjunctions: bool = True,
        min_support: float = 0.1,
        max_antecedents: int | None = DEFAULT_MAX_ANTECEDENTS,
        max_pair_memory_mb: float = DEFAULT_MAX_PAIR_MEMORY_MB,
        keep_id_columns: bool = False,
        handle_missing: str = "error",
        handle_unknown: str = "ignore",
    ) -> None:
        self.sensitive = sensitive
        self.numeric = numeric
        self.n_bins = n_bins
        self.cut_points = cut_points
        self.categorical = categorical
        self.negations = negations
        self.conjunctions = conjunctions
        self.min_support = min_support
        self.max_antecedents = max_antecedents
        self.max_pair_memory_mb = max_pair_memory_mb
        self.keep_id_columns = keep_id_columns
        self.handle_missing = handle_missing
        self.handle_unknown = handle_unknown

    # ---------------------------------------------------------------- validation

    def _validate_frame(self, X: Any) -> pd.DataFrame:
        frame = as_frame(X)
        if frame.shape[0] == 0:
            raise DataError("X has no rows")
        if frame.shape[1] == 0:
            raise DataError("X has no columns")
        return frame

    def _sensitive_columns(self) -> list[Hashable]:
        """The sensitive column names as a list (empty when there is none)."""
        if self.sensitive is None:
            return []
        if isinstance(self.sensitive, (list, tuple)):
            return list(self.sensitive)
        return [self.sensitive]

    def _check_sensitive(self, frame: pd.DataFrame) -> None:
        for name in self._sensitive_columns():
            if name not in frame.columns:
                raise MissingColumnError(
                    f"sensitive column {name!r} is not in X (columns: "
                    f"{list(frame.columns)[:10]}{' …' if frame.shape[1] > 10 else ''})"
                )
            groups = frame[name]
            n_missing = int(groups.isna().sum())
            if n_missing:
                raise DataError(f"sensitive column {name!r} has {n_missing} missing values")
            n_groups = groups.nunique()
            if n_groups < 2:
                raise DataError(
                    f"sensitive column {name!r} has {n_groups} group; at least 2 are needed"
                )

    # ---------------------------------------------------------------- fit

    def fit(self, X: Any, y: Any = None, *, deadline: float | None = None) -> Binarizer:
        """Learn the single antecedents, mine the conjunctions and keep the budget, on ``X``.

        Parameters
        ----------
        X : DataFrame of shape (n_samples, n_columns)
            The table (arrays are accepted; their columns are named ``x0, x1, …``).
        y : array-like of shape (n_samples,), optional
            Binary label; needed by ``numeric="mdlp"`` when there is a numeric column to cut,
            and used to rank the antecedents under ``max_antecedents``.
        deadline : float, optional
            A ``time.perf_counter()`` time (the estimator's ``time_limit`` counted from the
            start of its ``fit``): checked between columns, inside MDLP, while ranking, mining
            conjunctions and choosing the kept antecedents.

        Returns
        -------
        self

        Raises
        ------
        TimeLimitError
            When ``deadline`` passes before the binarizer is fitted; the message says how far
            it got (columns cut, or antecedents paired).
        """
        self._fit(X, y, deadline)
        return self

    def fit_transform(
        self,
        X: Any,
        y: Any = None,
        *,
        deadline: float | None = None,
        as_array: bool = False,
        **fit_params: Any,
    ) -> np.ndarray | pd.DataFrame:
        """:meth:`fit` then :meth:`transform` of the same ``X``, reading its columns once."""
        frame, codes = self._fit(X, y, deadline)
        out = self._assemble(codes, np.arange(len(self._names_out)), frame.shape[0], deadline)
        return self._wrap(X, out, list(self._names_out), as_array)

    def _fit(
        self, X: Any, y: Any, deadline: float | None
    ) -> tuple[pd.DataFrame, dict[int, np.ndarray]]:
        """Fit (see :meth:`fit`); the frame read and each used column's codes."""
        validate_params(type(self).__name__, PARAMETER_CONSTRAINTS, self.get_params(deep=False))
        frame = self._validate_frame(X)
        self._check_sensitive(frame)
        labels = None
        if y is not None:
            labels = encode_labels(y, n_rows=frame.shape[0], require_two=False)[1]
        self._check_named_columns(frame)
        self.feature_names_in_ = np.asarray([str(c) for c in frame.columns], dtype=object)
        self.n_features_in_ = frame.shape[1]
        self._fit_columns(frame, labels, deadline)
        codes = column_codes(
            self.columns_,
            frame,
            range(len(self.columns_)),
            False,
            deadline,
            handle_missing=self.handle_missing,
            handle_unknown=self.handle_unknown,
        )
        chosen = choose(
            self.columns_,
            codes,
            labels,
            frame.shape[0],
            deadline,
            max_antecedents=self.max_antecedents,
            negations=self.negations,
            conjunctions=self.conjunctions,
            min_support=self.min_support,
            max_pair_memory_mb=self.max_pair_memory_mb,
        )
        self._single_keep = chosen.single_keep
        self._negated = chosen.negated
        self._pairs = chosen.pairs
        self.supports_ = chosen.supports
        self.n_antecedents_made_ = chosen.n_made
        self.n_antecedents_kept_ = chosen.n_kept
        self.n_dropped_ = chosen.n_dropped
        self._names_out = self._output_names()
        return frame, codes

    def _check_named_columns(self, frame: pd.DataFrame) -> None:
        """The columns named in ``cut_points`` and ``categorical`` exist and are not sensitive."""
        for name in list(self.cut_points or {}) + list(self.categorical or []):
            if name not in frame.columns:
                raise MissingColumnError(
                    f"column {name!r} named in cut_points/categorical is not in X"
                )
            if name in self._sensitive_columns():
                raise DataError(
                    f"column {name!r} is the sensitive column: it is never an antecedent, so "
                    "it cannot be named in cut_points/categorical"
                )

    def _id_columns(
        self, frame: pd.DataFrame, names: list[Hashable], deadline: float | None
    ) -> dict[Hashable, str]:
        """The ID-like columns among ``names`` and why (see ``keep_id_columns``)."""
        if self.keep_id_columns:
            return {}
        named = set(self.cut_points or {}) | set(self.categorical or [])
        found = {}
        for done, name in enumerate(names):
            check_deadline(deadline, done, len(names), "columns checked for identifiers")
            if name not in named:
                why = id_like(frame[name])
                if why:
                    found[name] = why
        return found

    def _fit_columns(
        self, frame: pd.DataFrame, codes: np.ndarray | None, deadline: float | None = None
    ) -> None:
        """Each column's single antecedents (``columns_``, ``cut_points_``, ``categories_``,
        ``single_names_``); a column that yields none is warned about, and so are the ID-like
        columns left out. ``deadline``: see :meth:`fit`."""
        names = [c for c in frame.columns if c not in self._sensitive_columns()]
        ids = self._id_columns(frame, names, deadline)
        self.id_columns_ = list(ids)
        if ids:
            shown = "; ".join(f"{name!r} ({why})" for name, why in ids.items())
            warnings.warn(
                f"{len(ids)} column(s) look like identifiers (nearly one distinct value per "
                f"row) and are left out: {shown}; pass keep_id_columns=True (to the estimator "
                "or the Binarizer; --keep-id-columns on the command line) to use them",
                IdLikeColumnWarning,
                stacklevel=4,  # the caller of fit
            )
        columns = []
        for done, name in enumerate(names):
            check_deadline(deadline, done, len(names), "columns cut")
            if name in ids:
                col = Column(name, "categorical", [])
                col.unused = f"looks like an identifier ({ids[name]})"
                columns.append(col)
                continue
            columns.append(
                fit_column(
                    name,
                    frame[name],
                    codes,
                    deadline,
                    numeric=self.numeric,
                    n_bins=self.n_bins,
                    cut_points=self.cut_points,
                    categorical=self.categorical,
                    handle_missing=self.handle_missing,
                )
            )
        if not any(c.names for c in columns):
            raise DataError(self._no_antecedent(frame, columns))
        for col in columns:
            if not col.names and col.name not in ids:
                advice = f" ({QUANTILE_ADVICE})" if col.unused == NO_CUT else ""
                warnings.warn(
                    f"column {col.name!r} {col.unused} at fit time; it yields no "
                    f"antecedent{advice}",
                    ConstantColumnWarning,
                    stacklevel=4,  # the caller of fit
                )
        self.columns_ = [c for c in columns if c.names]
        self.cut_points_ = {c.name: c.cut_points for c in self.columns_ if c.kind == "numeric"}
        self.categories_ = {c.name: c.categories for c in self.columns_ if c.kind == "categorical"}
        self.single_names_ = [n for c in self.columns_ for n in c.names]

    # ---------------------------------------------------------------- choosing the antecedents

    def _single_index(self) -> tuple[np.ndarray, np.ndarray]:
        """For each single antecedent, its column (index into ``columns_``) and its code in
        that column."""
        return single_index(self.columns_)

    def _no_antecedent(self, frame: pd.DataFrame, columns: list[Column]) -> str:
        """Why fit built no antecedent: each column's reason, and the cell that kept a table of
        0/1 columns from being read as antecedents (one 0.5 makes its column numeric, and MDLP
        may find no cut worth making in any column)."""
        if not columns:
            return "no antecedent could be built: every column of X is a sensitive one"
        reasons = ", ".join(f"column {c.name!r} {c.unused}" for c in columns)
        message = f"no antecedent could be built: {reasons}"
        if any(c.unused == NO_CUT for c in columns):
            message += f" ({QUANTILE_ADVICE})"
        if any(c.name in self.id_columns_ for c in columns):
            message += " (keep_id_columns=True uses the ID-like ones)"
        stray = stray_binary_cell(frame[[c.name for c in columns]])
        if stray is not None:
            message += (
                f"; column {stray[0]!r} is 0/1 but for {stray[2]!r} at row {stray[1]}: if the "
                "table holds antecedents, fix that cell"
            )
        return message

    def _output_names(self) -> np.ndarray:
        """Names of the output antecedents: kept singles, negations, conjunctions."""
        singles = self.single_names_
        names = [singles[k] for k in self._single_keep]
        names += [f"not {singles[k]}" for k in self._negated]
        names += [f"{singles[a]} && {singles[b]}" for a, b in self._pairs]
        return np.asarray(names, dtype=object)

    # ---------------------------------------------------------------- transform

    def _term_indices(self, terms: Any) -> np.ndarray:
        """Output indices of ``terms`` (antecedent names, or output indices)."""
        position = {str(name): k for k, name in enumerate(self._names_out)}
        out = []
        for term in terms:
            if isinstance(term, numbers.Integral) and not isinstance(term, bool):
                if not 0 <= int(term) < len(self._names_out):
                    raise DataError(
                        f"terms: index {term} is not one of the {len(self._names_out)} antecedents"
                    )
                out.append(int(term))
            elif str(term) in position:
                out.append(position[str(term)])
            else:
                raise DataError(f"terms: {term!r} is not an antecedent of this binarizer")
        return np.asarray(out, dtype=np.intp)

    def _parts(self, j: int) -> tuple[str, tuple[int, ...]]:
        """Output antecedent ``j`` as ("single" | "not" | "and", its single antecedents)."""
        s, g = self._single_keep.size, self._negated.size
        if j < s:
            return "single", (int(self._single_keep[j]),)
        if j < s + g:
            return "not", (int(self._negated[j - s]),)
        a, b = self._pairs[j - s - g]
        return "and", (int(a), int(b))

    def _assemble(
        self, codes: dict[int, np.ndarray], outputs: np.ndarray, n: int, deadline: float | None
    ) -> np.ndarray:
        """The (n, len(outputs)) ``uint8`` matrix of the output antecedents ``outputs``; a
        :class:`~fairlist.errors.DataError` with the estimate, before allocating, when it
        exceeds half the memory. Antecedents are computed a block of ``_BLOCK`` at a time (one
        contiguous row each), then copied into their columns, the deadline checked per block."""
        need = n * len(outputs) + min(_BLOCK, len(outputs)) * n
        if need > _memory_bytes() // 2:
            raise DataError(
                f"the antecedents of {n} rows x {len(outputs)} antecedents would take about "
                f"{need / 2**30:,.1f} GiB, over half of this machine's memory; keep fewer "
                "antecedents (max_antecedents), transform fewer rows at a time, or ask for "
                "the terms needed only (transform(X, terms=...))"
            )
        column, local = self._single_index()
        out = np.empty((n, len(outputs)), dtype=np.uint8)
        buf = np.empty((min(_BLOCK, len(outputs)), n), dtype=bool)
        for lo in range(0, len(outputs), _BLOCK):
            check_deadline(deadline, lo, len(outputs), "antecedents written")
            block = outputs[lo : lo + _BLOCK]
            for row, j in enumerate(block):
                kind, parts = self._parts(int(j))
                k = parts[0]
                np.equal(codes[int(column[k])], local[k], out=buf[row])
                if kind == "not":
                    np.logical_not(buf[row], out=buf[row])
                elif kind == "and":
                    b = parts[1]
                    buf[row] &= codes[int(column[b])] == local[b]
            out[:, lo : lo + len(block)] = buf[: len(block)].T.view(np.uint8)
        return out

    @staticmethod
    def _wrap(
        X: Any, out: np.ndarray, names: list[str], as_array: bool = False
    ) -> np.ndarray | pd.DataFrame:
        if isinstance(X, pd.DataFrame) and not as_array:
            return pd.DataFrame(out, columns=names, index=X.index, copy=False)
        return out

    def transform(
        self,
        X: Any,
        terms: Sequence[Any] | None = None,
        *,
        deadline: float | None = None,
        as_array: bool = False,
    ) -> np.ndarray | pd.DataFrame:
        """The antecedents of ``X``: ``uint8`` of shape (n_samples, n_antecedents).

        A DataFrame in gives a DataFrame out, its columns named by the antecedents and its index
        kept; an array gives a C-contiguous array, and so does any ``X`` with ``as_array=True``
        (a fit's one conversion: pandas' DataFrame of 200,000 x 2,500 antecedents costs 6 s).
        Columns are found by name; the sensitive columns and unknown extra columns are ignored.

        Parameters
        ----------
        X : DataFrame or array-like
        terms : sequence of antecedent names (or output indices), optional
            Only these antecedents, in this order: only the columns they read are read (a
            column read by none may be absent, or hold values not seen at fit time), which is
            how a model predicts from the few antecedents its rules use.
        deadline : float, optional
            A ``time.perf_counter()`` time: a :class:`~fairlist.errors.TimeLimitError` once it
            is past (checked between columns and antecedents).
        """
        check_is_fitted(self, "_names_out")
        frame = as_frame(X)
        if frame.shape[0] == 0:
            raise DataError("X has no rows")
        outputs = np.arange(len(self._names_out)) if terms is None else self._term_indices(terms)
        column, _ = self._single_index()
        if terms is None:
            needed = list(range(len(self.columns_)))
        else:
            singles = {k for j in outputs for k in self._parts(int(j))[1]}
            needed = sorted({int(column[k]) for k in singles})
        absent = [self.columns_[c].name for c in needed if self.columns_[c].name not in frame]
        if absent:
            raise MissingColumnError(f"X lacks the columns seen at fit time: {absent}")
        codes = column_codes(
            self.columns_,
            frame,
            needed,
            True,
            deadline,
            handle_missing=self.handle_missing,
            handle_unknown=self.handle_unknown,
        )
        out = self._assemble(codes, outputs, frame.shape[0], deadline)
        return self._wrap(X, out, [str(self._names_out[j]) for j in outputs], as_array)

    # ---------------------------------------------------------------- JSON

    def to_dict(self) -> dict[str, Any]:
        """The fitted binarizer as a JSON-ready document (parameters and what ``fit`` learned).

        Column names must be strings or integers and categories JSON scalars (str, int, float,
        bool), as they are in a table read from CSV.
        """
        check_is_fitted(self, "_names_out")
        params = self.get_params(deep=False)
        if params["cut_points"] is not None:
            params["cut_points"] = [[k, list(v)] for k, v in params["cut_points"].items()]
        if params["categorical"] is not None:
            params["categorical"] = list(params["categorical"])
        columns = [
            {
                "name": c.name,
                "kind": c.kind,
                "names": list(c.names),
                "categories": list(c.categories),
                "cut_points": None if c.cut_points is None else [float(v) for v in c.cut_points],
                "integer": c.integer,
                "missing": c.missing,
            }
            for c in self.columns_
        ]
        return jsonable(
            {
                "format": BINARIZER_FORMAT,
                "version": BINARIZER_VERSION,
                "params": params,
                "feature_names_in": list(self.feature_names_in_),
                "columns": columns,
                "single_keep": self._single_keep,
                "negated": self._negated,
                "pairs": self._pairs,
                "supports": self.supports_,
                "n_dropped": self.n_dropped_,
                "id_columns": list(self.id_columns_),
            }
        )

    @classmethod
    def from_dict(cls, doc: Mapping[str, Any]) -> Binarizer:
        """A fitted binarizer from :meth:`to_dict`'s document (one written before
        ``id_columns`` and the later parameters existed reads too)."""
        if not isinstance(doc, Mapping) or doc.get("format") != BINARIZER_FORMAT:
            found = doc.get("format") if isinstance(doc, Mapping) else type(doc).__name__
            raise DataError(f"not a fairlist binarizer: 'format' is {found!r}")
        if doc.get("version") != BINARIZER_VERSION:
            raise DataError(
                f"binarizer document version {doc.get('version')!r} is not supported (this "
                f"fairlist reads version {BINARIZER_VERSION})"
            )
        params = dict(doc["params"])
        if params.get("cut_points") is not None:
            params["cut_points"] = {k: v for k, v in params["cut_points"]}
        if isinstance(params.get("sensitive"), list):
            params["sensitive"] = list(params["sensitive"])
        b = cls(**params)
        b.feature_names_in_ = np.asarray(doc["feature_names_in"], dtype=object)
        b.n_features_in_ = len(b.feature_names_in_)
        b.columns_ = [
            Column(
                c["name"],
                c["kind"],
                list(c["names"]),
                list(c["categories"]),
                None if c["cut_points"] is None else np.asarray(c["cut_points"], dtype=float),
                bool(c["integer"]),
                bool(c["missing"]),
            )
            for c in doc["columns"]
        ]
        b.cut_points_ = {c.name: c.cut_points for c in b.columns_ if c.kind == "numeric"}
        b.categories_ = {c.name: c.categories for c in b.columns_ if c.kind == "categorical"}
        b.single_names_ = [n for c in b.columns_ for n in c.names]
        b._single_keep = np.asarray(doc["single_keep"], dtype=np.intp)
        b._negated = np.asarray(doc["negated"], dtype=np.intp)
        b._pairs = np.asarray(doc["pairs"], dtype=np.intp).reshape(-1, 2)
        b.supports_ = np.asarray(doc["supports"], dtype=float)
        b.n_dropped_ = int(doc["n_dropped"])
        b.id_columns_ = list(doc.get("id_columns", []))
        b._names_out = b._output_names()
        b.n_antecedents_kept_ = len(b._names_out)
        b.n_antecedents_made_ = b.n_antecedents_kept_ + b.n_dropped_
        return b

    def get_feature_names_out(self, input_features: Any = None) -> np.ndarray:
        """Antecedent names, in the column order of :meth:`transform`."""
        check_is_fitted(self, "_names_out")
        return self._names_out.copy()

    @property
    def terms_(self) -> tuple[tuple[str, tuple[int, ...]], ...]:
        """What each output antecedent is, in :meth:`transform`'s column order: ``("single",
        (k,))``, ``("not", (k,))`` or ``("and", (a, b))``, indices into ``single_names_``."""
        check_is_fitted(self, "_names_out")
        return tuple(self._parts(j) for j in range(len(self._names_out)))
