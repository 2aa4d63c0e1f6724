"""The report's optional section (``delta``): is there a less discriminatory alternative about
as good as the model, and how much do the near-optimal lists disagree?

Both run a search of their own on the training data, over the antecedents the model was fitted
on (a raw table goes through the model's fitted binarizer, so the alternatives are spelled in
the same antecedents and the certificate covers the same space):

* :func:`fairlist.fairest_within`: the least unfair list within ``delta`` of the optimum, with
  its certificate; the result's ``rule_list``, ``unfairness``, ``objective``, ``status`` and
  its certificate sentence (``certificate``) are shown;
* :func:`fairlist.rashomon_set`: the lists within ``delta``, counted in lists and in
  classifiers (lists that predict alike), and their predictive multiplicity per group
  (:meth:`~fairlist.rashomon_result.RashomonSet.multiplicity`).

A search that fails (a limit, bad data) leaves its part out with a note: the rest of the report
stands.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from ..errors import FairlistError
from ..fairest import fairest_within
from ..rashomon import rashomon_set
from ..sensitive import split_sensitive

__all__ = ["Alternatives", "alternatives", "antecedents_of"]


@dataclass
class Alternatives:
    """What the ``delta`` section shows."""

    delta: float
    notes: list[str] = field(default_factory=list)
    #: the less discriminatory alternative: rule list text, unfairness, objective, status
    fairest: dict[str, Any] | None = None
    statement: str | None = None
    n_lists: int | None = None
    n_classifiers: int | None = None
    complete: bool | None = None
    #: rows of the multiplicity table: (group, rows, ambiguity)
    multiplicity: list[tuple[str, int, float]] = field(default_factory=list)


def antecedents_of(clf: Any, X: Any) -> Any:
    """The antecedent columns the model searched, for the rows ``X`` (raw rows through the
    fitted binarizer; the sensitive columns left out)."""
    if isinstance(X, pd.DataFrame) and clf.sensitive_columns_:
        X = X.drop(columns=[c for c in clf.sensitive_columns_ if c in X.columns])
    if clf.binarizer_ is None:
        return X
    if isinstance(X, pd.DataFrame) and hasattr(clf, "feature_names_in_"):
        X = X[list(clf.feature_names_in_)]
    out = clf.binarizer_.transform(X, as_array=True)
    names = [str(c) for c in clf.binarizer_.get_feature_names_out()]
    return pd.DataFrame(out, columns=names)


def alternatives(
    clf: Any,
    X: Any,
    y: Any,
    sensitive_features: Any,
    protected: Any = None,
    sample_weight: Any = None,
    *,
    delta: float,
    time_limit: float | None = 60.0,
    max_lists: int | None = 100_000,
) -> Alternatives:
    """The ``delta`` section for the fitted ``clf`` on its training data."""
    out = Alternatives(float(delta))
    _, groups, _ = split_sensitive(X, sensitive_features, allow=True)
    Xa = antecedents_of(clf, X)
    groups = groups.to_numpy() if isinstance(groups, (pd.Series, pd.DataFrame)) else groups
    y = np.asarray(y)
    common = dict(
        metric=clf.metric_,
        epsilon=clf.epsilon,
        lam=clf.lam if getattr(clf, "lam_", None) is None else clf.lam_,
        max_length=clf.max_length,
        delta=float(delta),
        protected=protected,
        sample_weight=sample_weight,
        binarizer=None,
        time_limit=time_limit,
    )
    try:
        result = fairest_within(Xa, y, groups, **common)
        rule_list = result.rule_list
        out.fairest = {
            "rule_list": str(rule_list) if rule_list is not None else "none",
            "unfairness": float(result.unfairness),
            "objective": float(result.objective),
            "status": str(result.status),
        }
        out.statement = result.certificate
    except FairlistError as exc:
        out.notes.append(f"The less-discriminatory-alternative search failed: {exc}")
    try:
        rs = rashomon_set(Xa, y, groups, max_lists=max_lists, **common)
    except FairlistError as exc:
        out.notes.append(f"The Rashomon set could not be enumerated: {exc}")
        return out
    out.n_lists = len(rs)
    out.n_classifiers = int(rs.n_classifiers)
    out.complete = bool(rs.complete)
    table = rs.multiplicity()
    out.multiplicity = [
        (str(g), int(row["rows"]), float(row["ambiguity"])) for g, row in table.iterrows()
    ]
    return out
