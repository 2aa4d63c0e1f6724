"""Did the length penalty decide the answer? A warning when the optimum is the constant list.

The objective ``errors / n + lam * length`` makes every rule cost ``lam``. When ``lam`` is large
for the data (a fairness cap that only a long list meets, few rows), the constant list ("always
predict 0") is optimal, with status ``optimal``, although a longer fair list misclassifies fewer
training samples: ``lam`` then chose the answer silently. The default ``lam="auto"`` (0.01 x the
minority share) makes that rarer on imbalanced tables than the fixed 0.01 did, not impossible.
:func:`check_length_penalty` looks for such a list with a short, bounded search at ``lam / 10``
and, when it finds one, warns with :class:`~fairlist.errors.LengthPenaltyWarning`, naming
``lam`` (and what ``"auto"`` resolved to) and suggesting a smaller one.
"""

from __future__ import annotations

import warnings
from typing import Any

from .errors import LengthPenaltyWarning
from .solvers.base import AUTO_LAM_SCALE, Limits, Problem, Result

__all__ = ["check_length_penalty", "PROBE_LIMITS"]

#: The probe's budget: small next to a fit's (it runs only when the answer is the constant list).
PROBE_LIMITS = Limits(max_nodes=100_000, time_limit=2.0)


def check_length_penalty(
    problem: Problem, result: Result, stacklevel: int = 2, requested: Any = None
) -> Any:
    """Warn when ``result`` is the constant list but a longer fair list is more accurate.

    ``requested`` is the ``lam`` the user set, when it is not the number (``"auto"``: the
    message then says what it resolved to). Returns the more accurate list found (None when the
    constant list stands, when ``lam`` is 0, or when ``max_length`` is 0: then the length
    penalty decided nothing).
    """
    rule_list = result.rule_list
    if rule_list is None or rule_list.length > 0 or problem.lam <= 0 or problem.max_length == 0:
        return None
    from .solvers import get_solver

    smaller = problem.lam / 10
    probe = problem.replace(lam=smaller).with_limits(PROBE_LIMITS)
    try:
        found = get_solver("bnb").solve(probe)
    except KeyboardInterrupt:
        return None  # the user's stop: the answer stands, unchecked
    if found.rule_list is None or found.rule_list.length == 0:
        return None
    constant, longer = problem.evaluate(rule_list), problem.evaluate(found.rule_list)
    if not longer.fair or longer.errors >= constant.errors:
        return None
    named = f"lam={problem.lam:g}"
    if isinstance(requested, str):  # "auto": what it resolved to and why
        named = f"lam={requested!r} ({problem.lam:.3g}: {AUTO_LAM_SCALE:g} x the minority share)"
    warnings.warn(
        f"{named} decided the answer: the constant list (training accuracy "
        f"{constant.accuracy:.4f}) is optimal only because each rule costs lam; a fair list of "
        f"{longer.length} rule(s) reaches {longer.accuracy:.4f}. Try a smaller lam, e.g. "
        f"lam={smaller:g}",
        LengthPenaltyWarning,
        stacklevel=stacklevel + 1,
    )
    return found.rule_list
