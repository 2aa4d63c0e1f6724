"""The one route from a user's data to the :class:`~fairlist.solvers.Problem` a fit searches.

:func:`prepare` is what :meth:`FairRuleListClassifier.prepare
<fairlist.FairRuleListClassifier.prepare>` (and so ``fit``) does with its arguments, and
:func:`prepare_problem` is the same route for the searches of one's own that take the fit's
data and parameters (:func:`fairlist.rashomon_set`, :func:`fairlist.fairest_within`): the table
checked, the sensitive columns split off (:mod:`fairlist.sensitive`), a raw table turned into
antecedents (:func:`fairlist.table.to_antecedents`), the labels checked and encoded once
(:class:`fairlist._validation.Target`: the binarizer and the problem take the codes, not the
labels), then :meth:`Problem.from_data <fairlist.solvers.Problem.from_data>`.

It sits below the estimator: the searches that need the fit's problem import this module, not
the estimator (which imports them for its report), so the modules depend one way.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
from scipy import sparse
from sklearn.base import BaseEstimator, clone

from ._params import BOOLEAN, InstanceOf, Options, validate_params
from ._validation import (
    as_table,
    check_fit_rows,
    check_is_table,
    check_labels,
    encode_target,
    is_binary_table,
    named,
    validate_data,
)
from .binarize import PARAMETER_CONSTRAINTS as BINARIZER_CONSTRAINTS
from .binarize import Binarizer
from .errors import DataError
from .metrics import check_sample_weight
from .sensitive import split_sensitive
from .solvers import Limits, Problem
from .solvers.base import EPSILON, LAM, MAX_LENGTH, METRIC
from .table import to_antecedents

__all__ = ["PARAMETER_CONSTRAINTS", "Prepared", "prepare", "prepare_problem"]

#: The parameters of the route (the estimator's of the same names refer to these).
PARAMETER_CONSTRAINTS: dict[str, list] = {
    "metric": METRIC,
    "epsilon": EPSILON,
    "lam": LAM,
    "max_length": MAX_LENGTH,
    "time_limit": Limits.PARAMETER_CONSTRAINTS["time_limit"],
    "max_nodes": Limits.PARAMETER_CONSTRAINTS["max_nodes"],
    "gap_tolerance": Limits.PARAMETER_CONSTRAINTS["gap_tolerance"],
    "memory_limit_mb": Limits.PARAMETER_CONSTRAINTS["memory_limit_mb"],
    "binarizer": [None, Options(("auto",)), InstanceOf(Binarizer, "a Binarizer")],
    "handle_missing": [None, *BINARIZER_CONSTRAINTS["handle_missing"]],
    "handle_unknown": [None, *BINARIZER_CONSTRAINTS["handle_unknown"]],
    "keep_id_columns": [None, *BINARIZER_CONSTRAINTS["keep_id_columns"]],
    "cuts": [None, *BINARIZER_CONSTRAINTS["numeric"]],
    "allow_sensitive_antecedents": [BOOLEAN],
}


@dataclass
class Prepared:
    """What :func:`prepare` made of the data: the problem and what a fitted model keeps."""

    problem: Problem
    binarizer: Binarizer | None  # fitted on X (None: X held antecedents)
    sensitive_columns: list[str]  # the columns of X split off as the groups


def binarizes(binarizer: Any, X: Any) -> bool:
    """Whether ``X`` goes through a binarizer under the estimator's ``binarizer`` setting:
    always with a :class:`~fairlist.binarize.Binarizer`, never with None or a sparse matrix;
    with ``"auto"`` when ``X`` is not all 0/1 (or bool)."""
    if binarizer is None or sparse.issparse(X):
        return False
    if isinstance(binarizer, Binarizer):
        return True
    if isinstance(X, pd.DataFrame):
        return not is_binary_table(X)
    values = np.asarray(X)
    if values.dtype == bool:
        return False
    if values.dtype.kind not in "iuf":
        return values.dtype.kind in "OSU"
    return bool(((values != 0) & (values != 1)).any())


def new_binarizer(params: Mapping[str, Any]) -> Binarizer:
    """The unfitted binarizer of ``params["binarizer"]``, with ``handle_missing``,
    ``handle_unknown``, ``keep_id_columns`` and ``cuts`` set when given."""
    chosen = params.get("binarizer", "auto")
    binarizer = Binarizer() if chosen == "auto" else clone(chosen)
    for name in ("handle_missing", "handle_unknown", "keep_id_columns"):
        if params.get(name) is not None:
            binarizer.set_params(**{name: params[name]})
    if params.get("cuts") is not None:
        binarizer.set_params(numeric=params["cuts"])
    return binarizer


def prepare(
    owner: Any,
    X: Any,
    y: Any,
    sensitive_features: Any,
    protected: Any,
    sample_weight: Any,
    params: Mapping[str, Any],
    *,
    start: float,
    phase: Callable[..., None] | None = None,
) -> Prepared:
    """The problem of ``X``, ``y`` and the groups under ``params`` (validated by the caller: the
    keys of :data:`PARAMETER_CONSTRAINTS`; an absent one takes the :class:`Problem`'s default for
    ``metric``, ``epsilon``, ``lam`` and ``max_length``, ``"auto"`` for ``binarizer``, and is
    unset (no limit, the binarizer's own setting) for the others), a raw table binarized by
    ``start + time_limit``.

    ``owner`` is the estimator scikit-learn's ``validate_data`` records ``n_features_in_`` and
    ``feature_names_in_`` on (the fit's; any estimator for a search of one's own); ``phase``
    is called as ``phase("binarizing", start, rows=..., columns=...)`` before a binarizer fit.
    """
    for attr in ("feature_names_in_", "n_features_in_"):
        if hasattr(owner, attr):  # a refit must not inherit the previous data's names
            delattr(owner, attr)
    check_is_table(X)
    if not hasattr(X, "shape") and hasattr(X, "__array__") and not hasattr(X, "__len__"):
        X = np.asarray(X)  # an array-like known only by its __array__
    check_fit_rows("X", X)  # 0 or 1 row: said so, before errors about constant columns
    if sample_weight is not None:  # its own errors first, as scikit-learn's checks expect
        check_sample_weight(sample_weight, X.shape[0] if hasattr(X, "shape") else len(X))
    allow = bool(params.get("allow_sensitive_antecedents", False))
    X, groups, sensitive_columns = split_sensitive(as_table("X", X), sensitive_features, allow)
    if len(getattr(X, "shape", ())) == 2 and X.shape[1] == 0:
        what = "once the sensitive columns are out" if sensitive_columns else "at all"
        raise DataError(  # scikit-learn's words first: its checks match them
            f"Found array with 0 feature(s) (shape={tuple(X.shape)}) while a minimum of 1 is "
            f"required: X has no column {what}, nothing to build rules from"
        )
    label = named("y", y)  # "y (column 'label')": the name is lost once y is an array
    checked = y is not None and getattr(y, "ndim", 1) == 1
    if checked:  # a missing label named by its row, before scikit-learn's checks (they warn
        # about a column vector and ravel it); the one scan of the labels
        check_labels(y, n_rows=X.shape[0] if hasattr(X, "shape") else len(X))
    fitted = None
    time_limit = params.get("time_limit")
    if binarizes(params.get("binarizer", "auto"), X):
        X, y = validate_data(owner, X, y, skip_check_array=True)  # names and counts only
        target = encode_target(y, len(X), label, checked=checked)  # before the binarizer
        binarizer = new_binarizer(params)
        if sensitive_columns:
            binarizer.set_params(sensitive=None)  # those columns are already out of X
        deadline = None if time_limit is None else start + float(time_limit)
        if phase is not None:
            columns = X.shape[1] if len(X.shape) == 2 else 1  # (1-d: the binarizer's error)
            phase("binarizing", start, rows=X.shape[0], columns=columns)
        # the table's one conversion: antecedents as a uint8 matrix (fairlist.table)
        fitted, X, names = to_antecedents(binarizer, X, target, deadline=deadline)
    else:
        X, y = validate_data(owner, X, y, dtype=None, ensure_min_samples=1)
        names = (
            [str(c) for c in owner.feature_names_in_]
            if hasattr(owner, "feature_names_in_")
            else None
        )
        target = encode_target(y, len(X), label, checked=checked)
    problem = Problem.from_data(
        X,
        target,  # the labels' one encoding, not repeated
        groups,
        protected,
        sample_weight=sample_weight,
        feature_names=names,
        **{k: params[k] for k in ("metric", "epsilon", "lam", "max_length") if k in params},
        limits=Limits(
            max_nodes=params.get("max_nodes"),
            time_limit=time_limit,
            gap_tolerance=params.get("gap_tolerance"),
            memory_limit_mb=params.get("memory_limit_mb"),
        ),
    )
    return Prepared(problem, fitted, sensitive_columns)


def prepare_problem(
    caller: str,
    X: Any,
    y: Any,
    sensitive_features: Any,
    *,
    protected: Any,
    sample_weight: Any,
    binarizer: Any,
    start: float,
    **parameters: Any,
) -> Problem:
    """The :class:`~fairlist.solvers.Problem` that ``fit`` would search, by its one route
    (:func:`prepare`: a raw table through the binarizer, or 0/1 antecedents), its parameters
    (``metric``, ``epsilon``, ``lam``, ``max_length`` and the limits) checked against
    :data:`PARAMETER_CONSTRAINTS` in the name of ``caller``; the time limit lowered by the time
    spent since ``start`` (a ``time.perf_counter()`` time).

    >>> import numpy as np
    >>> X = np.array([[1, 0], [1, 1], [0, 1], [0, 0]])
    >>> p = prepare_problem("example", X, [1, 1, 0, 0], [1, 0, 1, 0], protected=None,
    ...                     sample_weight=None, binarizer="auto", start=time.perf_counter(),
    ...                     lam=0.01, time_limit=None)
    >>> p.n_samples, p.classes, p.limits.time_limit
    (4, (0, 1), None)
    """
    params = {"binarizer": binarizer, **parameters}
    validate_params(caller, PARAMETER_CONSTRAINTS, params)
    unknown = sorted(set(params) - set(PARAMETER_CONSTRAINTS))
    if unknown:
        raise TypeError(f"{caller}() got an unexpected keyword argument {unknown[0]!r}")
    prepared = prepare(
        BaseEstimator(), X, y, sensitive_features, protected, sample_weight, params, start=start
    )
    problem = prepared.problem
    return problem.with_limits(problem.limits.minus(time.perf_counter() - start))
