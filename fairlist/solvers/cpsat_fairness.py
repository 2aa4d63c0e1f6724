"""The CP-SAT model's fairness cap (section 5 of :mod:`fairlist.solvers.cpsat_model`).

Each metric of :data:`fairlist.metric_table.METRICS` is a linear cap when its rates have
constant denominators (SP, PE, EOpp, EOdds: multiplied out) and a product cap otherwise (PP,
CUAE); the cap ``E`` is ``epsilon + FEASIBILITY_TOL`` read as an exact fraction.
"""

from __future__ import annotations

import functools
import itertools
import math
import operator
from fractions import Fraction
from typing import Any

import numpy as np
from ortools.sat.python import cp_model

from ..metric_table import METRICS, RATES, Metric
from ..metrics import FEASIBILITY_TOL, METRIC_RATES
from .base import (
    Problem,
)
from .cpsat_data import ModelData, ModelVariables
from .exact import INT_LIMIT, floor_fraction
from .weights import IntegerWeights, cap_margin


# ---------------------------------------------------------------------------- 5. fairness
def fairness_cap(problem: Problem, weights: IntegerWeights) -> Fraction | None:
    """The cap ``E`` the model puts on the unfairness of its integer-weighted counts.

    ``epsilon + FEASIBILITY_TOL`` (the float sum :func:`fairlist.metrics.is_fair` compares to,
    read as an exact fraction), at most the number of rates (each gap is at most 1). With
    rounded weights it is lowered by the largest change the rounding can make to the
    unfairness, so that every list the model accepts is fair for the true weights.
    """
    if problem.epsilon is None:
        return None
    n_rates = len(METRIC_RATES[problem.metric])
    cap = min(Fraction(problem.epsilon + FEASIBILITY_TOL), Fraction(n_rates))
    if not weights.exact:
        # no rounded count moves any list's unfairness by more (weights.cap_margin); a
        # negative cap accepts no list, and the solver falls back on a fair constant list
        cap -= cap_margin(
            weights,
            problem.sample_weight,
            problem.y,
            problem.groups,
            problem.n_groups,
            METRIC_RATES[problem.metric],
        )
    return cap


def weight_margin(problem: Problem, weights: IntegerWeights) -> float:
    """:func:`weights.cap_margin` rounded up to a float (0 with exact weights)."""
    if weights.exact:
        return 0.0
    margin = cap_margin(
        weights,
        problem.sample_weight,
        problem.y,
        problem.groups,
        problem.n_groups,
        METRIC_RATES[problem.metric],
    )
    return math.nextafter(float(margin), math.inf)


def add_fairness_cap(
    model: cp_model.CpModel,
    data: ModelData,
    x: ModelVariables,
    metric: Metric,
    cap_e: Fraction | None,
) -> bool:
    """Unfairness <= cap_e; False when the cap had to be made conservative (not exact)."""
    if cap_e is None:
        return True
    if cap_e < 0:
        model.add_bool_or([])  # no rule list has a negative unfairness
        return True
    groups = range(data.n_groups)

    def count(g: int, y: int) -> cp_model.LinearExpr:
        """Weight of the samples of group g and label y predicted positive."""
        w = data.weights[:, g, y]
        present = np.flatnonzero(w)
        return cp_model.LinearExpr.weighted_sum(
            [x.pos[p] for p in present.tolist()], w[present].tolist()
        )

    tp = [count(g, 1) for g in groups]
    fp = [count(g, 0) for g in groups]
    n_group = data.group_sizes
    info = METRICS[metric]
    if info.linear:
        # rates num[g] / den[g] with constant denominators (the samples the rate divides by)
        cells = {"tp": tp, "fp": fp}
        sizes = {"any": n_group, "positive": data.positives, "negative": data.negatives}
        terms = [
            (
                [
                    functools.reduce(operator.add, (cells[c][g] for c in RATES[r].numerator))
                    for g in groups
                ],
                sizes[RATES[r].needs],
            )
            for r in info.rates
        ]
        return _add_linear_cap(model, terms, cap_e)
    # rates num / den with variable denominators: PPV and NPV
    ratio = {
        "ppv": lambda: (tp, [tp[g] + fp[g] for g in groups]),
        "npv": lambda: (
            [int(data.negatives[g]) - fp[g] for g in groups],
            [int(n_group[g]) - tp[g] - fp[g] for g in groups],
        ),
    }
    return _add_ratio_cap(model, [ratio[r]() for r in info.rates], n_group, cap_e)


# -- linear caps
def _add_linear_cap(model: cp_model.CpModel, terms: list, cap_e: Fraction) -> bool:
    """SP, PE, EOpp, EOdds: the sum over ``terms`` (rates num[g] / den[g]) of the largest minus
    the smallest rate over the groups <= cap_e; False if inexact.

    Largest minus smallest is the largest difference of a pair, so each pair is written out,
    multiplied by the lcm of its two denominators (an lcm over all the groups can overflow 64
    bits with many groups or with weights). EOdds adds a TPR gap to an FPR gap: both in units
    of the lcm of all the denominators when it fits, else each in its pair's units.
    """
    k = len(terms[0][1])
    if k > 2:  # each count enters k - 1 pairs: written once, as a variable
        terms = [(_count_vars(model, i, num, den), den) for i, (num, den) in enumerate(terms)]
    if len(terms) == 1:
        num, den = terms[0]
        for g, h in itertools.combinations(range(k), 2):
            diff, scale = _pair_difference(num, den, g, h)  # scale * (rate_g - rate_h)
            limit = math.floor(cap_e * scale)
            model.add(diff <= limit)  # rate_g - rate_h <= E
            model.add(-diff <= limit)  # rate_h - rate_g <= E
        return True
    # EOdds: gap_T + gap_F <= cap_e for every pair of TPR groups and every pair of FPR groups
    dens = [int(d) for _, den in terms for d in den if d > 0]
    common = math.lcm(*dens) if dens else 1
    unit = common if common <= INT_LIMIT else None
    exact = True
    gaps = [_pair_gaps(model, i, num, den, unit) for i, (num, den) in enumerate(terms)]
    for (gap_t, unit_t), (gap_f, unit_f) in itertools.product(gaps[0], gaps[1]):
        # TPR gap of one pair + FPR gap of another <= E
        exact &= _add_gap_sum(model, (gap_t, gap_f), (unit_t, unit_f), cap_e)
    return exact


def _count_vars(model: cp_model.CpModel, i: int, num: list, den: Any) -> list[cp_model.IntVar]:
    """Each numerator ``num[g]`` as a variable ``count[i, g]`` (domain ``0 .. den[g]``)."""
    counts = []
    for g, expr in enumerate(num):
        # count[i, g]: the numerator of rate i in group g
        var = model.new_int_var(0, int(den[g]), f"count[{i},{g}]")
        model.add(var == expr)  # its definition
        counts.append(var)
    return counts


def _pair_difference(
    num: list, den: Any, g: int, h: int, scale: int | None = None
) -> tuple[Any, int]:
    """``(D * (rate_g - rate_h), D)``; D is ``scale`` (a multiple of the denominators) or the
    lcm of the non-zero ``den[g]``, ``den[h]``.

    A zero denominator gets coefficient 0: its rate is 0.
    """
    if scale is None:
        dens = [int(den[u]) for u in (g, h) if den[u] > 0]
        scale = math.lcm(*dens) if dens else 1
    coef = [scale // int(den[u]) if den[u] > 0 else 0 for u in (g, h)]
    return coef[0] * num[g] - coef[1] * num[h], scale


def _pair_gaps(
    model: cp_model.CpModel, i: int, num: list, den: Any, unit: int | None
) -> list[tuple[cp_model.IntVar, int]]:
    """For every pair g < h: ``gap[i, g, h] >= D |rate_g - rate_h|`` and its unit ``D``
    (``unit``, else the pair's lcm)."""
    gaps = []
    for g, h in itertools.combinations(range(len(num)), 2):
        diff, scale = _pair_difference(num, den, g, h, unit)
        # gap[i, g, h]: |rate_g - rate_h| of rate i, in units of 1 / scale
        gap = model.new_int_var(0, scale, f"gap[{i},{g},{h}]")
        model.add(gap >= diff)  # gap >= |diff|
        model.add(gap >= -diff)
        gaps.append((gap, scale))
    return gaps


def _add_gap_sum(
    model: cp_model.CpModel, gaps: tuple, units: tuple[int, int], cap_e: Fraction
) -> bool:
    """``gaps[0] / units[0] + gaps[1] / units[1] <= cap_e``; False if made conservative."""
    scale = math.lcm(*units)
    if scale <= INT_LIMIT:  # exact: both in units of 1 / lcm
        coef = [scale // u for u in units]
        model.add(coef[0] * gaps[0] + coef[1] * gaps[1] <= math.floor(cap_e * scale))
        return True
    # conservative: coefficients rounded up (units are <= 2**60, so no term exceeds 2**61)
    scale = INT_LIMIT // 2
    coef = [-(-scale // u) for u in units]
    model.add(coef[0] * gaps[0] + coef[1] * gaps[1] <= math.floor(cap_e * scale))
    return False


# -- ratio caps
def _add_ratio_cap(
    model: cp_model.CpModel, ratios: list, n_group: np.ndarray, cap_e: Fraction
) -> bool:
    """PP (one ratio), CUAE (two): for every pair of groups (CUAE: every pair of PPV groups
    and every pair of NPV groups) the rate gaps, cross-multiplied, <= cap_e; False if inexact."""
    top = [max(1, int(t)) for t in n_group]  # largest denominator per group
    gaps = [_ratio_gaps(model, i, num, den, top) for i, (num, den) in enumerate(ratios)]
    exact = True
    if len(ratios) == 1:
        for (g, h), (gap, prod) in gaps[0].items():
            reach = top[g] * top[h]  # largest reduced denominator of gap / prod
            exact &= _add_fraction_cap(model, gap, prod, reach, reach, cap_e)
        return exact
    halves: set = set()  # pairs already capped at cap_e / 2 (the conservative fallback)
    for pair_p, pair_n in itertools.product(gaps[0], gaps[1]):
        exact &= _add_two_ratio_cap(model, (pair_p, pair_n), gaps, top, cap_e, halves)
    return exact


def _ratio_gaps(
    model: cp_model.CpModel, i: int, num: list, den: list, top: list[int]
) -> dict[tuple[int, int], tuple[cp_model.IntVar, cp_model.IntVar]]:
    """For the rate ``num / den`` and each pair ``g < h``: ``gap[i, g, h] >= |rate_g - rate_h|
    * prod[i, g, h]`` and ``prod[i, g, h] = dden[i, g] * dden[i, h]``."""
    k = len(top)
    pairs = list(itertools.combinations(range(k), 2))
    # num_v[i, g]: numerator of rate i in group g
    num_v = [model.new_int_var(0, top[g], f"num[{i},{g}]") for g in range(k)]
    # zero[i, g]: the denominator of rate i in group g is 0 (the rate is 0)
    zero = [model.new_bool_var(f"zero[{i},{g}]") for g in range(k)]
    # dden[i, g]: that denominator, or 1 when it is 0
    dden = [model.new_int_var(1, top[g], f"dden[{i},{g}]") for g in range(k)]
    # cross[i, g, h]: num[i, g] * dden[i, h]
    cross = {}
    for g, h in pairs:
        for a, b in ((g, h), (h, g)):
            cross[a, b] = model.new_int_var(0, top[g] * top[h], f"cross[{i},{a},{b}]")
    for g in range(k):
        model.add(num_v[g] == num[g])  # definitions of num, zero, dden
        model.add(den[g] == 0).only_enforce_if(zero[g])
        model.add(den[g] >= 1).only_enforce_if(~zero[g])
        model.add(dden[g] == den[g] + zero[g])
        for h in range(k):
            if h != g:  # definition of cross[i, g, h]
                model.add_multiplication_equality(cross[g, h], [num_v[g], dden[h]])
    gaps = {}
    for g, h in pairs:
        # prod[i, g, h]: dden[i, g] * dden[i, h]
        prod = model.new_int_var(1, top[g] * top[h], f"prod[{i},{g},{h}]")
        model.add_multiplication_equality(prod, [dden[g], dden[h]])
        # gap[i, g, h]: |rate_g - rate_h| * prod[i, g, h]
        gap = model.new_int_var(0, top[g] * top[h], f"gap[{i},{g},{h}]")
        model.add(gap >= cross[g, h] - cross[h, g])  # gap >= |cross difference|
        model.add(gap >= cross[h, g] - cross[g, h])
        gaps[g, h] = gap, prod
    return gaps


def _add_two_ratio_cap(
    model: cp_model.CpModel,
    pairs: tuple,
    gaps: list,
    top: list[int],
    cap_e: Fraction,
    halves: set,
) -> bool:
    """CUAE for PPV groups ``pairs[0]`` and NPV groups ``pairs[1]``: ``gap[0] / prod[0] +
    gap[1] / prod[1] <= cap_e``, cross-multiplied; False if inexact."""
    (gap_p, prod_p), (gap_n, prod_n) = gaps[0][pairs[0]], gaps[1][pairs[1]]
    # prod_p * prod_n <= reach: a group in both pairs has dden_P + dden_N <= its size + 1
    reach = 1
    for u in set(pairs[0]) | set(pairs[1]):
        t = top[u]
        reach *= max(t, (t // 2) * ((t + 1) // 2)) if u in pairs[0] and u in pairs[1] else t
    if 4 * 2 * reach > INT_LIMIT:
        # the products would overflow: conservative, each gap <= cap_e / 2
        for i, (pair, gap, prod) in enumerate(
            ((pairs[0], gap_p, prod_p), (pairs[1], gap_n, prod_n))
        ):
            if (i, pair) not in halves:
                halves.add((i, pair))
                _add_fraction_cap(
                    model,
                    gap,
                    prod,
                    top[pair[0]] * top[pair[1]],
                    top[pair[0]] * top[pair[1]],
                    cap_e / 2,
                )
        return False
    name = f"{pairs[0][0]},{pairs[0][1]},{pairs[1][0]},{pairs[1][1]}"
    # weighted[i, ...]: gap of rate i times the other rate's prod; both[...]: prod_p * prod_n
    weighted = [model.new_int_var(0, reach, f"weighted[{i},{name}]") for i in (0, 1)]
    model.add_multiplication_equality(weighted[0], [gap_p, prod_n])
    model.add_multiplication_equality(weighted[1], [gap_n, prod_p])
    both = model.new_int_var(1, reach, f"both[{name}]")
    model.add_multiplication_equality(both, [prod_p, prod_n])
    # (weighted[0] + weighted[1]) / both = gap_P + gap_N <= E
    return _add_fraction_cap(model, weighted[0] + weighted[1], both, reach, 2 * reach, cap_e)


def _add_fraction_cap(
    model: cp_model.CpModel, lhs: Any, rhs: Any, reach: int, magnitude: int, cap_e: Fraction
) -> bool:
    """``lhs / rhs <= cap_e`` as ``q lhs <= p rhs``; False if inexact (see the docstring, 5).

    ``p / q`` is the largest fraction <= cap_e with ``q <= reach``, the largest reduced
    denominator of an attainable ``lhs / rhs`` (``magnitude`` bounds lhs and rhs), so that the
    constraint is exact; ``q`` is capped when ``q * magnitude`` would overflow.
    """
    q_max = max(1, INT_LIMIT // (4 * magnitude))
    bound = floor_fraction(cap_e, min(reach, q_max))
    model.add(bound.denominator * lhs <= bound.numerator * rhs)  # lhs / rhs <= p / q
    return q_max >= reach
