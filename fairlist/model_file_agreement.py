"""The figures of a model file that must agree with each other, recomputed from what determines
them: a document may be well-formed field by field (:mod:`fairlist.model_file`) and still
contradict itself, and a model that loads must predict and report what was saved.

:func:`check_agreement` checks, in order: the certificate is possible (the lower bound is not
above the objective, an ``optimal`` status completed, the certified length is one the search
could certify); the objective is what the counts and the length penalty give; the metric and the
cap are the parameters'; each group's rates are what its counts give, and so is the unfairness;
a model fitted on an array reads its columns by position (``x0, x1, …``).
"""

from __future__ import annotations

import numbers
from collections.abc import Mapping
from typing import Any

from .model_file_cursor import At, shorten

__all__ = ["check_agreement"]

#: Tolerance when a figure of the file is compared with what its counts give.
_ATOL = 1e-7


def check_agreement(at: At, out: dict[str, Any], defaults: Mapping[str, Any] | None) -> None:
    """The fields that must agree with each other: what the counts determine is recomputed
    (objective, groups' rates, unfairness), the certificate is possible, the training figures
    are those of the parameters (metric, cap), and an array-fitted model reads its columns by
    position (``x0, x1, …``)."""
    from .metrics import FEASIBILITY_TOL, METRIC_RATES, Metric

    train, train_at, rl = out["training"], at.child("training"), out["rule_list"]
    params = {**(defaults or {}), **out["params"]}  # a parameter absent and without default:
    # the check that needs it is skipped
    # 1. the certificate
    objective, lower = train["objective"], train["lower_bound"]
    if lower > objective + _ATOL * max(1.0, abs(objective)):
        train_at.child("lower_bound").fail(f"{lower!r} is above the objective {objective!r}")
    if train["status"] == "optimal" and train["stop_reason"] != "completed":
        train_at.child("stop_reason").fail(
            f"is {train['stop_reason']!r}, but the status is 'optimal' (a certified search "
            "completes)"
        )
    _certified_within(train_at, train["certified_length"], params, rl)
    # 2. the objective the counts and the length penalty give
    n, pos = out["rule_n_samples"], out["rule_n_positive"]
    outputs = [p for _, p in rl["rules"]] + [rl["default"]]
    correct = sum(p if q == 1 else c - p for q, c, p in zip(outputs, n, pos, strict=True))
    lam = params.get("lam")
    if not isinstance(lam, numbers.Real):  # lam="auto": the number it resolved to, in stats
        lam = train["stats"].get("lam") if isinstance(train.get("stats"), dict) else None
    if isinstance(lam, numbers.Real) and not isinstance(lam, bool):
        length = len(rl["rules"])
        expected = (sum(n) - correct) / sum(n) + lam * length
        if abs(objective - expected) > _ATOL:
            train_at.child("objective").fail(
                f"is {objective!r}, but the counts and the length penalty give {expected!r} "
                f"(error {1 - correct / sum(n)!r} + lam {lam!r} x {length} rules)"
            )
    # 3. the metric and the cap of the parameters
    metric = train["metric"]
    try:
        asked = Metric.parse(params.get("metric", metric)).name.lower()
    except (ValueError, TypeError):
        asked = metric
    if asked != metric:
        train_at.child("metric").fail(f"is {metric!r}, but 'params.metric' is {asked!r}")
    epsilon, unfair = params.get("epsilon"), train["unfairness"]
    if isinstance(epsilon, numbers.Real) and unfair > epsilon + FEASIBILITY_TOL + _ATOL:
        train_at.child("unfairness").fail(
            f"{unfair!r} is over the model's own cap, 'params.epsilon' {epsilon!r}"
        )
    # 4. the groups' rates, and the unfairness they give
    if out["groups"] is not None:
        _group_rates(at.child("groups"), out["groups"], outputs, n, pos, correct)
        rates = out["groups"]["rates"]
        needed = METRIC_RATES[Metric.parse(metric)]
        if all(v is not None for r in needed for v in rates[r]):
            gap = sum(max(rates[r]) - min(rates[r]) for r in needed)
            if abs(gap - unfair) > _ATOL:
                train_at.child("unfairness").fail(
                    f"is {unfair!r}, but the groups' rates ('groups.rates') give {gap!r} under "
                    f"{metric}"
                )
    # 5. an array-fitted model reads its antecedents by position
    if out["binarizer"] is None and out["feature_names_in"] is None:
        position = [f"x{j}" for j in range(out["n_features_in"])]
        if rl["feature_names"] != position:
            at.child("rule_list").child("feature_names").fail(
                f"is {shorten(rl['feature_names'], 60)}, expected {shorten(position, 60)}: a model "
                "fitted on an array reads its columns by position"
            )


def _certified_within(
    at: At, certified: int | None, params: Mapping[str, Any], rl: dict[str, Any]
) -> None:
    """The certified length is one the search could certify: at most ``params.max_length``
    (no longer list was searched) and at most the number of antecedents (no antecedent
    appears twice in a list). A file claiming more claims lists nothing looked at.
    """
    if certified is None:
        return
    at = at.child("certified_length")  # present: the value came from it
    max_length = params.get("max_length")
    if isinstance(max_length, numbers.Integral) and certified > max_length:
        at.fail(
            f"is {certified}, over 'params.max_length' {max_length}: no list of more than "
            f"{max_length} rules was searched"
        )
    n_antecedents = len(rl.get("feature_names") or ())
    if n_antecedents and certified > n_antecedents:
        at.fail(
            f"is {certified}, over the {n_antecedents} antecedents ('rule_list.feature_names'): "
            "a list uses each antecedent once at most"
        )


def _group_rates(
    at: At, groups: dict[str, Any], outputs: list[int], n: list, pos: list, correct: float
) -> None:
    """Each group's rates, recomputed where the counts determine them: the positive rate from
    the rules' counts per group; the true and false positive rates from it and the predictive
    values; the true positives and negatives the predictive values give add up to the rules'."""
    rates, counts = groups["rates"], groups["rule_n_samples"]
    rates_at = at.child("rates")
    tp_total = tn_total = 0.0
    for g, size in enumerate(rates["n_samples"]):
        predicted = sum(row[g] for row, q in zip(counts, outputs, strict=True) if q == 1)
        expected = {"positive_rate": predicted / size if size else 0.0}
        ppv, npv = rates["ppv"][g], rates["npv"][g]
        if ppv is not None and npv is not None:
            tp, tn = ppv * predicted, npv * (size - predicted)
            fp, fn = predicted - tp, size - predicted - tn
            tp_total, tn_total = tp_total + tp, tn_total + tn
            expected["tpr"] = tp / (tp + fn) if tp + fn > _ATOL else 0.0
            expected["fpr"] = fp / (fp + tn) if fp + tn > _ATOL else 0.0
        for rate, value in expected.items():
            stored = rates[rate][g]
            if stored is not None and abs(stored - value) > 1e-6:
                rates_at.child(rate).items()[g].fail(
                    f"is {stored!r}, but the group's counts give {value!r}"
                )
    if all(v is not None for r in ("ppv", "npv") for v in rates[r]):
        tp_rules = sum(p for q, p in zip(outputs, pos, strict=True) if q == 1)
        scale = max(1.0, sum(n))
        if abs(tp_total - tp_rules) > 1e-6 * scale or abs(tp_total + tn_total - correct) > (
            1e-6 * scale
        ):
            rates_at.child("ppv").fail(
                f"and 'npv' give {tp_total:.6g} true positives and {tn_total:.6g} true negatives "
                f"over the groups, but the rules' counts give {tp_rules:.6g} and "
                f"{correct - tp_rules:.6g}"
            )
