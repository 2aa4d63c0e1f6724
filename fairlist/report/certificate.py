"""What the search proved about a fitted rule list, in plain words: its status, the objective
and the lower bound, the space it was optimal over (the lengths, the antecedents, the labels a
rule may predict) and the antecedent budget that chose those antecedents.

Everything is read from the fitted (or loaded) estimator: ``status_``, ``result_``,
``lower_bound_``, ``gap_``, ``certified_length_``, ``lam_``, and the binarizer's counts
(``n_antecedents_made_``, ``n_antecedents_kept_``, ``max_antecedents``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

__all__ = ["Certificate", "certificate"]


@dataclass
class Certificate:
    """The facts of a fit's certificate and the sentences that say them."""

    status: str
    stop_reason: str
    certified: bool
    headline: str
    sentences: list[str]
    #: (name, value) rows of the certificate's table
    facts: list[tuple[str, str]] = field(default_factory=list)


def _space(clf: Any) -> tuple[str, int | None]:
    """The rule lists searched, in words, and the number of antecedents."""
    names = clf.rule_list_.feature_names
    n = len(names) if names is not None else None
    majority = getattr(clf.result_, "search_space", "full") == "majority"
    labels = (
        "each rule predicting the majority class of the rows it captures (CORELS' space)"
        if majority
        else "each rule predicting either class"
    )
    over = f"{n:,} antecedents" if n is not None else "the antecedents"
    if clf.max_length is not None:
        length = f"at most {clf.max_length} rules"
    else:
        length = "any length (no antecedent twice)"
    return f"rule lists of {length} over these {over}, {labels}", n


def _budget(clf: Any) -> str:
    """How the antecedents were chosen (the binarizer's counts), in words."""
    b = getattr(clf, "binarizer_", None)
    if b is None:
        return "The model was fitted on 0/1 antecedent columns given as they are."
    made = int(getattr(b, "n_antecedents_made_", 0))
    kept = int(getattr(b, "n_antecedents_kept_", made))
    cap = getattr(b, "max_antecedents", None)
    columns = int(getattr(b, "n_features_in_", 0))
    if kept < made:
        return (
            f"The binarizer made {made:,} antecedents from {columns} raw columns and kept the "
            f"{kept:,} most informative about the label (max_antecedents={cap}): the "
            "certificate is over the kept ones only; an antecedent left out could do better."
        )
    limit = "no budget" if cap is None else f"within the budget max_antecedents={cap}"
    return (
        f"The binarizer made {made:,} antecedents from {columns} raw columns and kept all of "
        f"them ({limit})."
    )


def certificate(clf: Any) -> Certificate:
    """The certificate of the fitted estimator ``clf``.

    >>> import numpy as np
    >>> from fairlist import FairRuleListClassifier
    >>> X = np.array([[1, 0], [1, 1], [0, 1], [0, 0], [1, 0], [0, 1]])
    >>> clf = FairRuleListClassifier(lam=0.01, epsilon=0.5).fit(
    ...     X, [1, 1, 0, 0, 1, 0], sensitive_features=[1, 1, 1, 0, 0, 0])
    >>> certificate(clf).headline
    'Certified optimal.'
    """
    status = str(clf.status_)
    stop = str(clf.result_.stop_reason)
    metric = clf.metric_.short_name
    cap = (
        f"{metric} unfairness at most {clf.epsilon:g} on the training data"
        if clf.epsilon is not None
        else "no fairness cap"
    )
    lam = getattr(clf, "lam_", None)
    objective = f"errors / n + λ × length, λ = {lam:.4g}" if lam is not None else "its objective"
    space, n = _space(clf)
    sentences: list[str] = []
    certified = status == "optimal"
    if certified:
        headline = "Certified optimal."
        tolerance = getattr(clf, "certified_tolerance_", None) or 0.0
        by = f" by more than {tolerance:.3g}" if tolerance else ""
        sentences.append(
            f"Among all {space}, none has a lower training objective ({objective}){by} "
            f"under {cap}. This list's objective is {clf.objective_:.6f}."
        )
    elif stop == "gap_limit":
        headline = "Within the gap tolerance (not proved optimal)."
        sentences.append(
            f"The search stopped once the list was within {clf.gap_:.6f} of the proved lower "
            f"bound: among all {space} under {cap}, none is better by more than that."
        )
    else:
        headline = f"Not certified: the search stopped ({stop.replace('_', ' ')}) first."
        sentences.append(
            f"The list is the best found. No list of the space ({space}) under {cap} has an "
            f"objective below {clf.lower_bound_:.6f}, so this one ({clf.objective_:.6f}) is at "
            f"most {clf.gap_:.6f} from the best."
        )
        length = clf.certified_length_
        if length:
            sentences.append(f"No list of at most {length} rules is better than this one.")
    extra = clf.stats_.get("certificate") if isinstance(clf.stats_, dict) else None
    if extra:
        sentences.append(str(extra).rstrip(".") + ".")
    sentences.append(_budget(clf))
    facts = [
        ("status", f"{status} ({stop.replace('_', ' ')})"),
        ("objective", f"{clf.objective_:.6f}"),
        ("lower bound", f"{clf.lower_bound_:.6f}"),
        ("gap", f"{clf.gap_:.6f}"),
        ("metric and cap", f"{metric} ≤ {clf.epsilon:g}" if clf.epsilon is not None else metric),
        ("λ (length penalty)", f"{lam:.4g}" if lam is not None else "—"),
        ("longest list searched", str(clf.max_length) if clf.max_length is not None else "any"),
        ("antecedents searched", f"{n:,}" if n is not None else "—"),
        ("engine", str(clf.result_.engine)),
    ]
    b = getattr(clf, "binarizer_", None)
    if b is not None:
        made = int(getattr(b, "n_antecedents_made_", 0))
        facts.append(("antecedents made / kept", f"{made:,} / {int(b.n_antecedents_kept_):,}"))
    nodes = clf.stats_.get("nodes_expanded") if isinstance(clf.stats_, dict) else None
    if nodes is not None:
        facts.append(("nodes expanded", f"{int(nodes):,}"))
    return Certificate(status, stop, certified, headline, sentences, facts)
