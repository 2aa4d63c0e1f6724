"""Choosing a fairness cap: a fairness-aware scorer for scikit-learn searches, and a pick from a
Pareto front.

A grid search over ``epsilon`` scored by accuracy always picks the loosest cap: a looser cap
never lowers the training accuracy, and usually not the held-out one. What a practitioner wants
is the most accurate model whose **held-out** unfairness stays under a level ``u``:

* :func:`make_fair_scorer` builds a scorer for :class:`~sklearn.model_selection.GridSearchCV`
  (or ``cross_validate``) that returns the held-out accuracy when the held-out unfairness is at
  most ``max_unfairness``, and a penalised value below every such accuracy otherwise;
* :func:`select` picks, from a front traced by :func:`~fairlist.pareto.cross_validated_front`
  (or :func:`~fairlist.pareto.training_front`), the most accurate point whose (cross-validated)
  unfairness is at most ``u``; its ``epsilon`` is the cap to refit with.

The scorer needs each held-out sample's group. Two ways, as for the estimator's ``fit``:

* name the sensitive column of ``X``: ``make_fair_scorer(..., sensitive="sex")`` and
  ``grid.fit(X, y, sensitive_features="sex")`` (the estimator leaves that column out of the
  antecedents; the scorer reads it from the held-out rows). Works without metadata routing;
* or, with scikit-learn's metadata routing, route the groups themselves to the scorer as to the
  estimator: the scorer requests ``sensitive_features`` by default::

      sklearn.set_config(enable_metadata_routing=True)
      clf = FairRuleListClassifier(...).set_fit_request(sensitive_features=True)
      grid = GridSearchCV(clf, {"epsilon": [0.01, 0.05, 0.1, None]},
                          scoring=make_fair_scorer("SP", 0.05))
      grid.fit(X, y, sensitive_features=groups)   # each fold's groups reach fit and the scorer

Examples
--------
>>> scorer = make_fair_scorer("statistical_parity", 0.05, sensitive="sex")
>>> scorer
make_fair_scorer('statistical_parity', 0.05, sensitive='sex')
>>> fair_score(accuracy=0.8, unfairness=0.03, max_unfairness=0.05)
0.8
>>> round(fair_score(accuracy=0.9, unfairness=0.15, max_unfairness=0.05), 6)
-0.2
"""

from __future__ import annotations

import math
import numbers
from typing import Any

import numpy as np
import pandas as pd

from .errors import DataError, InvalidParameterError, MissingColumnError
from .metrics import FEASIBILITY_TOL, Metric, unfairness

__all__ = ["FairScorer", "fair_score", "make_fair_scorer", "select"]


def fair_score(accuracy: float, unfairness: float, max_unfairness: float) -> float:
    """``accuracy`` when ``unfairness <= max_unfairness``, else ``accuracy - 1 - excess``.

    The excess is ``unfairness - max_unfairness``. A penalised score is below 0, hence below
    every fair model's accuracy; among unfair models, the less unfair and the more accurate
    rank higher. Cross-validation averages the folds' scores, so a cap that is unfair on one
    fold of five loses about 0.2 plus a fifth of its excess.
    """
    if unfairness <= max_unfairness + FEASIBILITY_TOL:
        return float(accuracy)
    return float(accuracy) - 1.0 - (float(unfairness) - float(max_unfairness))


class FairScorer:
    """A scorer ``scorer(estimator, X, y, sensitive_features=None, ...)``: :func:`fair_score`
    of the held-out accuracy and unfairness. Build it with :func:`make_fair_scorer`."""

    def __init__(self, metric: Metric | str, max_unfairness: float, sensitive: Any = None) -> None:
        try:
            self.metric = Metric.parse(metric)
        except ValueError as exc:
            raise InvalidParameterError(f"metric={metric!r}: {exc}") from None
        if (
            not isinstance(max_unfairness, numbers.Real)
            or isinstance(max_unfairness, bool)
            or not max_unfairness >= 0
            or not math.isfinite(max_unfairness)
        ):
            raise InvalidParameterError(
                f"max_unfairness={max_unfairness!r} must be a finite number >= 0"
            )
        self.max_unfairness = float(max_unfairness)
        self.sensitive = _column_names(sensitive)
        self._request: Any = None
        self._args = (metric, max_unfairness)

    def __repr__(self) -> str:
        args = ", ".join(map(repr, self._args))
        if self.sensitive is not None:
            args += f", sensitive={self.sensitive!r}"
        return f"make_fair_scorer({args})"

    # ------------------------------------------------------------ metadata routing
    def set_score_request(self, **requests: Any) -> FairScorer:
        """Which metadata the scorer receives under scikit-learn's metadata routing (by
        default ``sensitive_features`` and ``protected``), as a scorer of ``make_scorer``."""
        import sklearn
        from sklearn.utils.metadata_routing import MetadataRequest

        if not sklearn.get_config().get("enable_metadata_routing", False):
            raise RuntimeError(
                "set_score_request needs metadata routing: "
                "sklearn.set_config(enable_metadata_routing=True)"
            )
        request = MetadataRequest(owner=self)
        for param, alias in requests.items():
            request.score.add_request(param=param, alias=alias)
        self._request = request
        return self

    def get_metadata_routing(self) -> Any:
        """The metadata the scorer requests (scikit-learn reads it when routing is on)."""
        if self._request is not None:
            return self._request
        from sklearn.utils.metadata_routing import MetadataRequest

        request = MetadataRequest(owner=self)
        request.score.add_request(param="sensitive_features", alias=True)
        request.score.add_request(param="protected", alias=True)
        return request

    # ------------------------------------------------------------ scoring
    def __call__(
        self,
        estimator: Any,
        X: Any,
        y_true: Any,
        sensitive_features: Any = None,
        protected: Any = None,
        sample_weight: Any = None,
    ) -> float:
        groups = self._groups(X, sensitive_features)
        y_pred = np.asarray(estimator.predict(X))
        y_true = np.asarray(y_true)
        positive = estimator.classes_[1]
        truth, predicted = (y_true == positive).astype(int), (y_pred == positive).astype(int)
        w = None if sample_weight is None else np.asarray(sample_weight, dtype=float)
        accuracy = float(np.average(truth == predicted, weights=w))
        value = unfairness(truth, predicted, groups, self.metric, protected, w)
        return fair_score(accuracy, value, self.max_unfairness)

    def _groups(self, X: Any, sensitive_features: Any) -> Any:
        """The held-out rows' groups: routed values, or the named column(s) of X."""
        s = self.sensitive if sensitive_features is None else sensitive_features
        names = [s] if isinstance(s, str) else s
        if isinstance(s, str) or (  # column names, as the estimator's fit reads them
            isinstance(X, pd.DataFrame)
            and isinstance(s, (list, tuple))
            and 0 < len(s) < len(X)
            and all(isinstance(v, str) and v in X.columns for v in s)
        ):
            if not isinstance(X, pd.DataFrame):
                raise DataError(
                    f"the scorer reads the sensitive column(s) {names!r} from X, but X is not a "
                    "DataFrame; route the groups instead (see fairlist.model_selection)"
                )
            absent = [c for c in names if c not in X.columns]
            if absent:
                raise MissingColumnError(f"the held-out X has no sensitive column {absent[0]!r}")
            return X[names[0]] if len(names) == 1 else X[list(names)]
        if s is None:
            raise DataError(
                "the fair scorer needs each held-out sample's group: name the sensitive column "
                "(make_fair_scorer(..., sensitive='sex') with fit(X, y, "
                "sensitive_features='sex')) or route sensitive_features to the scorer "
                "(sklearn.set_config(enable_metadata_routing=True))"
            )
        if isinstance(s, (str, bytes)) or not hasattr(s, "__len__"):
            raise DataError(
                f"sensitive_features={s!r} must hold one group per held-out row (an array or "
                "a Series), or name columns of X"
            )
        if len(s) != len(X):
            raise DataError(
                f"sensitive_features has {len(s)} rows, the held-out X has {len(X)}: route them "
                "with metadata routing, so that each fold gets its own rows"
            )
        return s


def _column_names(sensitive: Any) -> Any:
    """``sensitive`` checked at construction: None, a column name or a non-empty list of
    distinct names (a scorer serves every fold, so it cannot hold one fold's groups)."""
    names = [sensitive] if isinstance(sensitive, str) else sensitive
    if sensitive is None:
        return None
    if (
        isinstance(names, (list, tuple))
        and names
        and all(isinstance(name, str) and name for name in names)
        and len(set(names)) == len(names)
    ):
        return sensitive
    raise InvalidParameterError(
        f"sensitive={sensitive!r} must be the name of a column of X or a non-empty list of "
        "distinct names (the groups themselves reach the scorer through metadata routing, "
        "see fairlist.model_selection)"
    )


def make_fair_scorer(
    metric: Metric | str = "statistical_parity",
    max_unfairness: float = 0.05,
    *,
    sensitive: Any = None,
) -> FairScorer:
    """A scorer for model selection under a fairness level: held-out accuracy when the held-out
    unfairness is at most ``max_unfairness``, else a penalised value (:func:`fair_score`).

    Parameters
    ----------
    metric : str or Metric, default="statistical_parity"
        The unfairness measured on the held-out rows (the estimator's names: SP, PP, PE, EOpp,
        EOdds, CUAE or their long names).
    max_unfairness : float, default=0.05
        The held-out unfairness a model may have (``u``).
    sensitive : str or list of str, optional
        Column(s) of ``X`` that hold the groups, when ``fit`` is given them by name. Without
        it, the groups come through metadata routing (see the module docstring). Anything
        else (a number, an array of groups, an empty list) is an ``InvalidParameterError``
        here, not at scoring.

    Returns
    -------
    FairScorer
        A callable ``scorer(estimator, X, y)`` for ``scoring=`` (``set_score_request`` as for
        a scorer of :func:`sklearn.metrics.make_scorer`).

    Examples
    --------
    >>> from sklearn.model_selection import GridSearchCV
    >>> from fairlist import FairRuleListClassifier
    >>> grid = GridSearchCV(
    ...     FairRuleListClassifier(time_limit=None),
    ...     {"epsilon": [0.0, 0.02, 0.05, None]},
    ...     scoring=make_fair_scorer("SP", 0.05, sensitive="sex"),
    ... )
    >>> # grid.fit(X, y, sensitive_features="sex"); grid.best_params_["epsilon"]
    """
    return FairScorer(metric, max_unfairness, sensitive)


def select(front: Any, max_unfairness: float) -> pd.Series:
    """The most accurate point of a front whose unfairness is at most ``max_unfairness``.

    Parameters
    ----------
    front : ParetoResult or DataFrame
        A :func:`~fairlist.pareto.cross_validated_front` result (its ``test_unfairness`` and
        ``test_error``: the cross-validated figures), a :func:`~fairlist.pareto.training_front`
        result (``unfairness`` and ``error``), or one of their tables.
    max_unfairness : float
        The level ``u``.

    Returns
    -------
    Series
        The chosen row: its ``epsilon`` is the cap to refit with on all the data
        (``FairRuleListClassifier(epsilon=row["epsilon"], ...)``); ties on error go to the
        fairer point, then to the tighter cap.

    Raises
    ------
    DataError
        No point meets ``max_unfairness`` (the message gives the fairest point's unfairness).

    Examples
    --------
    >>> front = pd.DataFrame({"epsilon": [0.01, 0.05, 0.2],
    ...                       "test_unfairness": [0.012, 0.04, 0.15],
    ...                       "test_error": [0.36, 0.33, 0.31]})
    >>> float(select(front, 0.05)["epsilon"])
    0.05
    >>> float(select(front, 0.2)["epsilon"])
    0.2
    """
    if (
        not isinstance(max_unfairness, numbers.Real)
        or isinstance(max_unfairness, bool)
        or not max_unfairness >= 0
    ):
        raise InvalidParameterError(f"max_unfairness={max_unfairness!r} must be a number >= 0")
    table = getattr(front, "front", front)
    if not isinstance(table, pd.DataFrame):
        raise InvalidParameterError(
            f"front must be a ParetoResult or a DataFrame, got {type(front).__name__}"
        )
    for x, y in (("test_unfairness", "test_error"), ("unfairness", "error")):
        if x in table.columns and y in table.columns:
            break
    else:
        raise DataError(
            "the front has neither test_unfairness/test_error nor unfairness/error columns"
        )
    usable = table[table[x].notna() & table[y].notna()]
    if usable.empty:
        raise DataError("the front has no point")
    fair = usable[usable[x] <= max_unfairness + FEASIBILITY_TOL]
    if fair.empty:
        raise DataError(
            f"no point of the front has {x} <= {max_unfairness!r}; the fairest has "
            f"{float(usable[x].min())!r} (error {float(usable.loc[usable[x].idxmin(), y])!r})"
        )
    keys = [y, x] + (["epsilon"] if "epsilon" in fair.columns else [])
    order = fair.sort_values(keys, na_position="last", kind="stable")
    return order.iloc[0]
