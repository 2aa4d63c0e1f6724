"""The report's optional section (``delta``): is there a less discriminatory alternative about
as good as the model, and how much do the near-optimal lists disagree?

Both run a search of their own on the training data, over the antecedents the model was fitted
on (a raw table goes through the model's fitted binarizer, so the alternatives are spelled in
the same antecedents and the certificate covers the same space):

* :func:`fairlist.fairest_within` (issue 35 item 2): the least unfair list within ``delta`` of
  the optimum, with its certificate; the result's ``rule_list``, ``unfairness``, ``objective``,
  ``status`` and its certificate sentence (``certificate``) are shown;
* :func:`fairlist.rashomon_set`: the lists within ``delta``, counted (``len``, and
  ``n_classifiers`` where the set groups lists that predict alike), and their predictive
  multiplicity per group (:meth:`~fairlist.rashomon_result.RashomonSet.multiplicity`).

A fairlist without one of them (or a search that fails) leaves its part out with a note: the
rest of the report stands.
"""

from __future__ import annotations

import inspect
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from ..errors import FairlistError
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


def _call(function: Any, *args: Any, **kwargs: Any) -> Any:
    """``function(*args, **kwargs)`` with the keywords it accepts (the others dropped)."""
    params = inspect.signature(function).parameters
    if not any(p.kind is p.VAR_KEYWORD for p in params.values()):
        kwargs = {k: v for k, v in kwargs.items() if k in params}
    return function(*args, **kwargs)


def _statement(result: Any, clf: Any, delta: float) -> str:
    """The alternative's certificate sentence: the result's own, or one made of its fields."""
    for name in ("certificate", "statement"):
        text = getattr(result, name, None)
        if isinstance(text, str) and text:
            return text
    if str(getattr(result, "status", "")) == "optimal":
        length = clf.max_length if clf.max_length is not None else "any number of"
        return (
            f"No rule list of at most {length} rules within {delta:g} of the optimum has "
            f"unfairness below {float(result.unfairness):.4f}."
        )
    return "The search stopped before a certificate: the alternative is the best found."


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
    import fairlist

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
    fairest_within = getattr(fairlist, "fairest_within", None)
    if fairest_within is None:
        out.notes.append(
            "The less-discriminatory-alternative search (fairlist.fairest_within) is not in "
            "this fairlist; that part is left out."
        )
    else:
        try:
            result = _call(fairest_within, Xa, y, groups, **common)
            rule_list = getattr(result, "rule_list", None)
            out.fairest = {
                "rule_list": str(rule_list) if rule_list is not None else "none",
                "unfairness": float(result.unfairness),
                "objective": float(result.objective),
                "status": str(result.status),
            }
            out.statement = _statement(result, clf, float(delta))
        except FairlistError as exc:
            out.notes.append(f"The less-discriminatory-alternative search failed: {exc}")
    try:
        rs = _call(fairlist.rashomon_set, Xa, y, groups, max_lists=max_lists, **common)
    except FairlistError as exc:
        out.notes.append(f"The Rashomon set could not be enumerated: {exc}")
        return out
    out.n_lists = len(rs)
    n_classifiers = getattr(rs, "n_classifiers", None)
    out.n_classifiers = int(n_classifiers) if n_classifiers is not None else None
    if out.n_classifiers is None:
        out.notes.append("This fairlist counts the set in rule lists only, not in classifiers.")
    out.complete = bool(getattr(rs, "complete", True))
    table = rs.multiplicity()
    out.multiplicity = [
        (str(g), int(row["rows"]), float(row["ambiguity"])) for g, row in table.iterrows()
    ]
    return out
