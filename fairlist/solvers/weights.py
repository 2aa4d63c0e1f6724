"""Sample weights as the integers an exact engine counts with (both engines use this).

* *exact* (:func:`exact_weights`): each weight is read as the fraction of denominator at most
  10**6 nearest to it when that fraction lies within 2**-50 (relative) of the float — integers,
  the decimals a user writes (``0.3``, also when computed as ``3 * 0.1``), simple ratios
  (``1/3``); all are multiplied by the least common multiple of the denominators and divided by
  the greatest common divisor of the results. Used when the integer total stays within the
  engine's limit: the engine then solves the weighted problem for these fractions exactly.
* *rounded* (:func:`rounded_weights`): otherwise, the weights are rounded to multiples of
  ``2**-j``, ``j`` the largest that keeps the integer total within a limit, and ``rho`` is the
  largest relative rounding error of a positive weight. ``error`` bounds each sample's absolute
  rounding error; :func:`cap_margin` turns it into a proven margin on the fairness cap that
  both engines subtract (see below).

Why a list the rounded search accepts is fair for the true weights (:func:`cap_margin`). Write
``w[i]`` for the true weights and ``v[i] = values[i] / scale`` for the rounded ones, ``e[i] = v[i]
- w[i]``. A rate of group ``g`` is ``num / den``: ``den`` sums the weights of a set ``D`` of
samples (the group for the selection rate; its positives for TPR, its negatives for FPR; its
predicted positives for PPV, predicted negatives for NPV) and ``num`` those of a subset ``S``.
With ``a`` the summed ``e`` over ``S``, ``c`` over ``D - S`` and ``E_D`` the summed ``|e|`` over
``D`` (so ``|a| + |c| <= E_D``), and primes for the rounded sums::

    num'/den' - num/den = (a (den - num) - c num) / (den den'),
    |a (den - num) - c num| <= (|a| + |c|) den'  and  <= (|a| + |c|) den,

the latter with ``num, den`` written from ``num', den'`` the same way, so ``|rate' - rate| <=
E_D / den`` (also when ``den' = 0``: then every ``v`` in ``D`` is 0, ``E_D = den``, and the
rounded rate is 0 by convention; ``den = 0`` makes every ``v`` 0 too, both rates 0). For SP, PE,
EOpp and EOdds ``D`` is fixed by the data, so ``delta[g] = E_D / den`` is computed once per group
and rate. For PP and CUAE ``D`` depends on the list, but ``E_D / den <= max over D of |e[i]| /
w[i]``, the largest relative error in the group, ``rho[g]``, is ``delta[g]``. A gap (largest minus
smallest rate over the groups) moves by at most the largest ``delta[g] + delta[h]`` over pairs
``g != h``, the sum of the two largest; a metric that adds two gaps, by the sum of both. The
search caps the rounded unfairness at ``E - margin``, so every list it accepts has true
unfairness at most ``E``. Conversely every list fair for the true weights has rounded
unfairness at most ``E + margin``. This margin is no larger than the relative one (``2 rho`` per
gap) and is small whenever every (group, label) cell holds a large weight, even when other
weights round to 0 (weights of 1e9 and 1). Where it leaves no room (a cell made only of weights
that round to 0, or ``epsilon = 0``), the engines fall back on :func:`fair_constant`.

Bounding the rounded problem from both sides (:func:`bound_from_above`). Write ``f(L) = a / T
+ lam K`` for a list's true objective (``a`` its misclassified weight, ``T`` the total) and
``F(L) = A / T' + lam K`` for its rounded one (integer sums). The rate bound above, with ``D``
every sample and ``S`` the misclassified ones, gives ``|a / T - A / T'| <= Et / T'`` with ``Et``
the summed absolute rounding error, so for every list::

    |f(L) - F(L)| <= eta = Et / T'        (IntegerWeights.error_ratio, about n 2**-32)

The search above, with the cap lowered by ``margin``, returns a list ``L1`` fair for the true
weights, optimal among the lists its lowered cap admits; that proves nothing about fair lists
whose rounded unfairness lies within the margin of the cap. A second rounded search with the cap
*raised* by ``margin`` admits every list fair for the true weights (see above), so when it
completes, its certified optimum ``O`` bounds every fair list's rounded objective from below, and
``f(L) >= F(L) - eta >= O - eta`` bounds its true objective; when it proves that no list meets
its cap, no list is fair for the true weights: status ``infeasible``, proved. (Without a cap the
first search admitted every list and its own optimum is ``O``.) The raised search's own list
``L2`` has a rounded unfairness within the margin of the cap; it is evaluated on the true weights
and returned instead of ``L1`` when it is fair and better. With ``L`` the list returned, the
certificate is the gap ``f(L) - (O - eta)``:

* ``<= 0``: ``L`` is optimal, proved (status ``optimal``, ``certified_tolerance`` 0);
* ``<= 2 eta``: status ``optimal`` *within the gap*, stated as ``stats["certified_tolerance"]``
  (``Result.certified_tolerance``, the estimator's ``certified_tolerance_``) and in
  ``stats["certificate"]``: no fair list's objective lies below ``f(L) - gap``. This is what the
  objectives' rounding alone leaves when the margin cut nothing better: if ``F(L) = O`` then
  ``f(L) - (O - eta) <= (F(L) + eta) - (O - eta) = 2 eta``. Rounding cannot tell apart two lists
  whose objectives differ by less than that, so no rounded search can say more;
* larger: some list the rounded counts cannot judge (its rounded unfairness within the margin of
  the cap) may be fair and better by up to the gap; the status stays ``feasible``, and
  ``stats["certificate"]`` says so, with the number of decimals to which the weights can be
  rounded and still be read exactly (then the certificate is exact, for those weights).

A float-arithmetic allowance (``2**-50`` relative on ``O`` and ``eta``, ``2**-40`` absolute on
the gap's threshold) covers the engines' and :meth:`Problem.evaluate`'s float sums.
"""

from __future__ import annotations

import dataclasses
import math
import time
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from typing import TYPE_CHECKING

import numpy as np

from ..rulelist import RuleList

if TYPE_CHECKING:
    from .base import Problem, Result

__all__ = [
    "WEIGHT_LIMIT",
    "bound_from_above",
    "IntegerWeights",
    "cap_margin",
    "exact_weights",
    "fair_constant",
    "rounded_weights",
    "with_fair_constant",
]

#: The integer weights add up to at most this: 32-bit counts in the branch-and-bound's trie and
#: map, and the CP-SAT model's coefficients.
WEIGHT_LIMIT = 2**31
_MAX_DENOMINATOR = 10**6
_READ_TOL = 2.0**-50  # a weight is read as a fraction this close to it (relative)


@dataclass(frozen=True)
class IntegerWeights:
    """``values[i] / scale`` is sample ``i``'s weight: exactly when ``exact`` (the fraction its
    float is read as), else within a relative error of ``rho`` (``values[i]`` is 0 only for a
    weight of 0, unless ``rho`` is 1)."""

    values: np.ndarray  # (n,) int64
    scale: Fraction  # integer units per unit of weight
    exact: bool
    rho: Fraction  # largest relative error |values[i] / scale - w[i]| / w[i]; 0 when exact
    # rounded only: (n,) float64 scale * w[i] to within 2**-52 (relative), and upper bounds on
    # |values[i] - scale * w[i]|, both in integer units (a float scale can overflow)
    scaled: np.ndarray | None = None
    error: np.ndarray | None = None

    @property
    def total(self) -> int:
        return int(self.values.sum())

    @property
    def error_ratio(self) -> float:
        """An upper bound on the summed absolute rounding error over the integer total (0 when
        exact): no weighted sum, the total included, moves by more than this times the total."""
        if self.error is None:
            return 0.0
        return _fsum_up(self.error) / self.total * (1 + 2.0**-50)


def _fraction(w: float) -> Fraction | None:
    """The fraction of denominator <= 10**6 nearest to ``w`` if it lies within 2**-50 of it
    (relative), else None."""
    exact = Fraction(w)
    f = exact.limit_denominator(_MAX_DENOMINATOR)
    return f if abs(f - exact) <= _READ_TOL * exact else None


def exact_weights(w: np.ndarray, limit: int = WEIGHT_LIMIT) -> IntegerWeights | None:
    """The weights ``w`` (>= 0) read as exact fractions, scaled to the smallest integers; None
    when one is no simple fraction or their integer total exceeds ``limit``. Equal weights
    (1e-300 each, say) are exactly unit weights scaled."""
    distinct, inverse = np.unique(w, return_inverse=True)
    if len(distinct) == 1 and distinct[0] > 0 and len(w) <= limit:
        return IntegerWeights(
            np.ones(len(w), np.int64), 1 / Fraction(float(distinct[0])), True, Fraction(0)
        )
    inverse = inverse.ravel()
    fractions = []
    for v in distinct:  # stops at the first weight that is no simple fraction
        f = _fraction(float(v))
        if f is None:
            return None
        fractions.append(f)
    den = math.lcm(*(f.denominator for f in fractions))
    ints = [int(f * den) for f in fractions]
    common = math.gcd(*ints) or 1
    counts = np.bincount(inverse, minlength=len(distinct))
    if sum(v // common * int(c) for v, c in zip(ints, counts, strict=True)) > limit:
        return None
    values = np.array([v // common for v in ints], dtype=np.int64)[inverse]
    return IntegerWeights(values, Fraction(den, common), True, Fraction(0))


def rounded_weights(w: np.ndarray, limit: int) -> IntegerWeights:
    """The weights ``w`` (>= 0, not all 0) rounded to multiples of 2**-j, j the largest keeping
    their integer total <= ``limit``, with the largest relative error ``rho`` and a bound on
    each absolute error.

    They are first divided by the largest (the problem does not change when every weight is
    multiplied by one number), so that weights of 1e300 or 1e-300 round as 1 does; that
    division's own rounding (2**-53, relative) is added to ``rho``."""
    top = float(w.max())
    w = w / top
    j = math.floor(math.log2(limit / (float(w.sum()) + len(w))))
    while np.rint(np.ldexp(w, j)).sum() > limit:  # rarely more than once
        j -= 1
    x = np.ldexp(w, j)  # exact: a power-of-two scaling
    rounded = np.rint(x)
    positive = x > 0
    # |rint(x) - x| is exact and the division rounds once: bumped to a sure upper bound
    errors = np.abs(rounded[positive] - x[positive]) / x[positive]
    rho = min(Fraction(1), Fraction(float(errors.max()) * (1 + 1e-12)) + Fraction(2) ** -52)
    values = rounded.astype(np.int64)
    common = math.gcd(*np.unique(values).tolist()) or 1
    # x is w / top scaled, within 2**-53 (relative) of the true scaled weight: that is added
    error = (np.abs(rounded - x) + x * 2.0**-52) / common
    return IntegerWeights(
        values // common, Fraction(2) ** j / common / Fraction(top), False, rho, x / common, error
    )


def _cells(metric_rates: tuple[str, ...], y: np.ndarray) -> list[np.ndarray | None]:
    """Per rate, the samples its constant denominator sums within a group (None: the
    denominator depends on the list, PPV and NPV)."""
    every = np.ones(len(y), dtype=bool)
    cell = {"positive_rate": every, "tpr": y == 1, "fpr": y == 0}
    return [cell.get(rate) for rate in metric_rates]


def _fsum_up(a: np.ndarray) -> float:
    """A float at least the sum of the non-negative ``a`` (fsum rounds once)."""
    return math.fsum(a.tolist()) * (1 + 2.0**-50) if a.size else 0.0


def cap_margin(
    weights: IntegerWeights,
    w: np.ndarray,
    y: np.ndarray,
    groups: np.ndarray,
    n_groups: int,
    metric_rates: tuple[str, ...],
) -> Fraction:
    """How far the unfairness of any rule list on the rounded weights can lie from its unfairness
    on the true weights ``w`` (0 when the weights are exact); see the module docstring.

    ``y`` and ``groups`` are the samples' labels and group codes, ``metric_rates`` the metric's
    rates (:data:`fairlist.metrics.METRIC_RATES`). At least 1 per rate means that nothing can be
    shown fair."""
    if weights.exact or weights.error is None or weights.scaled is None:
        return Fraction(0)
    scaled, error = weights.scaled, weights.error
    margin = Fraction(0)
    for cell in _cells(metric_rates, np.asarray(y)):
        deltas = []
        for g in range(n_groups):
            in_group = groups == g
            if cell is None:  # ratio rates: the group's largest relative error
                positive = in_group & (w > 0)
                rel = error[positive] / scaled[positive]
                delta = float(rel.max()) * (1 + 2.0**-40) if rel.size else 0.0
            else:
                members = in_group & cell
                den = math.fsum(scaled[members].tolist())
                err = _fsum_up(error[members])
                # the float scaling and sums round by far less than 2**-40 (relative)
                delta = err / den * (1 + 2.0**-40) if den > 0 else 0.0
            deltas.append(min(delta, 1.0) if math.isfinite(delta) else 1.0)
        two = sorted(deltas)[-2:]
        margin += Fraction(sum(two) * (1 + 2.0**-50))
    return margin


def fair_constant(problem: Problem, majority_only: bool = False) -> RuleList | None:
    """The better of the two constant rule lists (no rules) that is fair for ``problem``'s true
    weights (:meth:`Problem.evaluate`), None when neither is; with ``majority_only`` only a
    label at least as heavy as the other.

    The engines' answer when the rounded search cannot show a list fair: the constant lists
    have unfairness 0 under SP, PE, EOpp (predict 0) and EOdds (predict 0), so a fair list then
    exists whatever the rounding did."""
    w = problem.weights
    label_weight = [math.fsum(w[problem.y == q].tolist()) for q in (0, 1)]
    best, best_objective = None, math.inf
    for q in (0, 1):
        if majority_only and label_weight[q] < label_weight[1 - q]:
            continue
        constant = RuleList((), q, problem.labels, problem.feature_names)
        ev = problem.evaluate(constant)
        if ev.fair and ev.objective < best_objective:
            best, best_objective = constant, ev.objective
    return best


def with_fair_constant(problem: Problem, result: Result) -> Result:
    """``result`` of a search on rounded weights, with the fair constant list
    (:func:`fair_constant`, in the result's search space) in its place when it found no list or
    a worse one.

    A rounded search's "no list" proves nothing about the true weights (its cap is lowered by
    :func:`cap_margin`), so a constant list that is fair for them is returned with status
    ``feasible``, never ``infeasible`` or ``unknown``; its lower bound stays the search's (0
    under a cap)."""
    from .base import Status

    constant = fair_constant(problem, result.search_space == "majority")
    if constant is None:
        return result
    ev = problem.evaluate(constant)
    if result.rule_list is not None and result.objective <= ev.objective:
        return result
    stats = {**result.stats, "fair_constant": True}
    return dataclasses.replace(
        result,
        status=Status.FEASIBLE,
        rule_list=constant,
        objective=ev.objective,
        accuracy=ev.accuracy,
        unfairness=ev.unfairness,
        lower_bound=min(result.lower_bound, ev.objective),
        stats=stats,
    )


def bound_from_above(
    problem: Problem, result: Result, solve_rounded: Callable[[Problem], Result], start: float
) -> Result:
    """``result`` of a completed search on rounded weights, with the certificate that the rounded
    problem bounded from both sides proves (see the module docstring): ``optimal`` within a
    stated tolerance, ``infeasible``, or ``feasible`` with a lower bound and the reason for the
    residual gap (``stats["certificate"]``).

    Under a cap, a second search with the cap raised by the margin bounds every list fair for the
    true weights; without one the search itself admitted every list. ``solve_rounded`` is the
    engine's own solve without this step; its result's stats must give ``weight_margin`` (the
    margin, rounded up), ``weight_error_ratio`` (``eta``) and ``rounded_lower_bound`` (a proven
    lower bound on the rounded objective of every list its search admits: inf when it proved
    that none does; absent when it proves nothing). ``start`` is the ``time.perf_counter()`` at
    which the solve began (the time limit covers both searches)."""
    from ..metrics import FEASIBILITY_TOL, METRIC_RATES
    from .base import Status, StopReason

    stats = result.stats
    if stats.get("weights_exact", True) or result.stop_reason is not StopReason.COMPLETED:
        return result
    if not problem.constrained:  # the search admitted every list: its bound is the one
        bound = stats.get("rounded_lower_bound")
        return result if bound is None else _certify(problem, result, float(bound), None)
    limits = problem.limits.minus(time.perf_counter() - start)
    if limits.time_limit is not None and limits.time_limit <= 0:
        return _certify(problem, result, None, "no time was left for it; raise the time limit")
    margin = float(stats["weight_margin"])
    raised: float | None = (float(problem.epsilon) + 2 * margin) * (1 + 2.0**-40) + 2.0**-1000
    if not raised + FEASIBILITY_TOL < len(METRIC_RATES[problem.metric]):
        raised = None  # every list has a smaller unfairness: no cap
    # a copy as Problem.with_limits makes one: the data, already validated, is not checked again
    raised_problem = problem.with_limits(limits)
    object.__setattr__(raised_problem, "epsilon", raised)
    upper = solve_rounded(raised_problem)
    bound = upper.stats.get("rounded_lower_bound")
    stats = {**stats, "raised_cap_seconds": upper.stats.get("seconds", math.nan)}
    result = dataclasses.replace(result, stats=stats)
    if upper.stop_reason is not StopReason.COMPLETED:
        why = f"it stopped ({upper.stop_reason}); raise the limits"
        return _certify(problem, result, None, why)
    if bound is None:  # CP-SAT's cap made conservative (stats["epsilon_exact"] False)
        why = "the engine's cap is conservative here, so its optimum bounds nothing (bnb's does)"
        return _certify(problem, result, None, why)
    if math.isinf(bound):  # no list meets the raised cap: none is fair for the true weights
        if result.rule_list is not None:
            raise RuntimeError(
                f"{result.engine}: the search with the raised cap found no list, but "
                f"{result.rule_list!r} is fair for the true weights; this is a bug"
            )
        stats["certificate"] = "no rule list is fair for the true weights (proved)"
        return dataclasses.replace(
            result, status=Status.INFEASIBLE, lower_bound=math.inf, stats=stats
        )
    if upper.rule_list is not None:
        # The raised search's list has a rounded unfairness within the margin of the cap: it
        # may be fair for the true weights, and then it is as good a list as any to return.
        ev = problem.evaluate(upper.rule_list)
        if ev.fair and (result.rule_list is None or ev.objective < result.objective):
            stats["raised_cap_list"] = True
            result = dataclasses.replace(
                result,
                status=Status.FEASIBLE,
                rule_list=upper.rule_list,
                objective=ev.objective,
                accuracy=ev.accuracy,
                unfairness=ev.unfairness,
                lower_bound=min(result.lower_bound, ev.objective),
            )
    return _certify(problem, result, float(bound), None)


def _decimals(w: np.ndarray) -> int | None:
    """The most decimals (at most 6) to which the weights ``w`` can be rounded and still be read
    exactly (:func:`exact_weights`: an integer total of at most :data:`WEIGHT_LIMIT` once
    multiplied by 10**decimals, each rounding by at most 1/2) without rounding a positive weight
    to 0; None when there are none."""
    room = (WEIGHT_LIMIT - len(w)) / math.fsum(w.tolist())
    if not room >= 1:
        return None
    decimals = min(6, math.floor(math.log10(room))) if math.isfinite(room) else 6
    return decimals if np.all(np.round(w[w > 0], decimals) > 0) else None


def _certify(problem: Problem, result: Result, bound: float | None, why_not: str | None) -> Result:
    """``result`` with the certificate the rounded objective bound ``bound`` proves for the
    true weights (None: the bounding search proved nothing, ``why_not`` says why), its
    tolerance ``stats["certified_tolerance"]`` and ``stats["certificate"]``, a sentence a user
    can act on.

    ``bound`` bounds the rounded objective ``F`` of every list fair for the true weights, and
    ``|f - F| <= eta`` for every list (module docstring), so ``bound - eta`` bounds every fair
    list's true objective ``f``. The returned list's ``f`` exceeds it by ``gap``: 0 proves it
    optimal, and a gap of at most ``2 eta`` (all the objectives' rounding can leave when the
    cap's margin excluded nothing better) is stated as ``optimal`` within ``gap``; a larger gap
    is the margin's doing (lists near the cap that the rounded counts cannot judge), and the
    status stays ``feasible`` with the gap explained."""
    from .base import Status

    stats = dict(result.stats)
    eta = float(stats["weight_error_ratio"])
    w = problem.weights
    decimals = _decimals(w)
    exact = (
        f"; weights rounded to {decimals} decimals (numpy.round(sample_weight, {decimals})) "
        "are read exactly and give an exact certificate"
        if decimals is not None
        else ""
    )
    if bound is None:
        stats["certificate"] = (
            "the search completed on the sample weights rounded to integers, with the cap "
            f"lowered by the rounding margin {float(stats['weight_margin']):.3g}, but the search "
            f"that bounds the true optimum from below (the cap raised by the margin) proved "
            f"nothing: {why_not}{exact}"
        )
        return dataclasses.replace(result, stats=stats)
    lower = max(0.0, float(bound) * (1 - 2.0**-50) - eta * (1 + 2.0**-50))
    stats["raised_cap_lower_bound"] = lower  # the name it had: also without a cap
    if result.rule_list is None:
        return dataclasses.replace(result, lower_bound=max(result.lower_bound, lower), stats=stats)
    gap = result.objective - lower
    tolerance = 2 * eta * (1 + 2.0**-30) + 2.0**-40  # objectives' rounding, float sums
    if gap <= 0:
        status, lower, gap = Status.OPTIMAL, result.objective, 0.0
        stats["certificate"] = "optimal (proved for the true weights)"
    elif gap <= tolerance:
        status = Status.OPTIMAL
        stats["certificate"] = (
            f"optimal within {gap:.3g}: the sample weights were rounded to integers (a "
            f"summed rounding error of {eta:.3g} of the total weight), so the objectives are "
            f"known to within {eta:.3g}; no rule list fair for the true weights has an "
            f"objective below {lower:.9g}{exact}"
        )
    else:
        status = Status.FEASIBLE
        stats["certificate"] = (
            f"the search completed, but the sample weights were rounded to integers and a "
            f"gap of {gap:.3g} remains (objective {result.objective:.9g}, lower bound "
            f"{lower:.9g}): a list whose unfairness under the rounded weights lies within the "
            f"rounding margin {float(stats['weight_margin']):.3g} of epsilon can be shown "
            f"neither fair nor unfair, and one might be better by up to the gap{exact}"
        )
    if status is Status.OPTIMAL:
        stats["certified_tolerance"] = gap
    return dataclasses.replace(
        result,
        status=status,
        lower_bound=min(max(result.lower_bound, lower), result.objective),
        stats=stats,
    )
