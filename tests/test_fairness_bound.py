"""The fairness lower bound (docs/design.md §3.3) is exact for its 4-variable relaxation.

The C++ bound decides, for fixed confusion counts of the captured samples and uncaptured counts
per (group, label), the minimum number of errors on the uncaptured samples over every completion
that meets ``unfairness <= epsilon + 1e-9``, or that none exists. The branch-and-bound prunes with
it, so it must equal the true minimum (never more, or optimality certificates break; never
"infeasible" when a fair completion exists). These tests compare it with exhaustive enumeration
of the completions, evaluated with numpy using exactly the arithmetic of ``fairlist.metrics``.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from fairlist.metrics import (
    FEASIBILITY_TOL,
    ConfusionCounts,
    GroupCounts,
    Metric,
    unfairness_from_counts,
)

bound = pytest.importorskip("fairlist._bound")

METRICS = list(Metric)


# ---------------------------------------------------------------------------------------------
# Vectorised canonical arithmetic (same operations as fairlist.metrics, elementwise).
def _rate(num, den):
    num = np.asarray(num, dtype=np.int64)
    den = np.asarray(den, dtype=np.int64)
    with np.errstate(divide="ignore", invalid="ignore"):
        out = num.astype(np.float64) / den.astype(np.float64)
    return np.where(den != 0, out, 0.0)


def _unfairness_arrays(metric, p, u):
    """Unfairness for arrays of counts; p and u are (tp, fp, tn, fn) tuples of arrays."""
    ptp, pfp, ptn, pfn = p
    utp, ufp, utn, ufn = u
    if metric is Metric.STATISTICAL_PARITY:
        return np.abs(
            _rate(ptp + pfp, ptp + pfp + ptn + pfn) - _rate(utp + ufp, utp + ufp + utn + ufn)
        )
    if metric is Metric.PREDICTIVE_PARITY:
        return np.abs(_rate(ptp, ptp + pfp) - _rate(utp, utp + ufp))
    if metric is Metric.PREDICTIVE_EQUALITY:
        return np.abs(_rate(pfp, pfp + ptn) - _rate(ufp, ufp + utn))
    if metric is Metric.EQUAL_OPPORTUNITY:
        return np.abs(_rate(ptp, ptp + pfn) - _rate(utp, utp + ufn))
    tpr = np.abs(_rate(ptp, ptp + pfn) - _rate(utp, utp + ufn))
    if metric is Metric.EQUALIZED_ODDS:
        return tpr + np.abs(_rate(pfp, pfp + ptn) - _rate(ufp, ufp + utn))
    ppv = np.abs(_rate(ptp, ptp + pfp) - _rate(utp, utp + ufp))
    return ppv + np.abs(_rate(ptn, ptn + pfn) - _rate(utn, utn + ufn))


def _completed(fixed, upos, uneg, x1, x0):
    tp, fp, tn, fn = fixed
    return (tp + x1, fp + x0, tn + (uneg - x0), fn + (upos - x1))


def brute_force(metric, epsilon, fixed_p, fixed_u, u_p, u_u):
    """Minimum errors over every (x1P, x0P, x1U, x0U) with a fair completion, or None."""
    x1p, x0p, x1u, x0u = np.meshgrid(
        np.arange(u_p[0] + 1),
        np.arange(u_p[1] + 1),
        np.arange(u_u[0] + 1),
        np.arange(u_u[1] + 1),
        indexing="ij",
    )
    value = _unfairness_arrays(
        metric, _completed(fixed_p, *u_p, x1p, x0p), _completed(fixed_u, *u_u, x1u, x0u)
    )
    cost = (u_p[0] - x1p) + x0p + (u_u[0] - x1u) + x0u
    fair = value <= epsilon + FEASIBILITY_TOL
    return int(cost[fair].min()) if fair.any() else None


def attainable_values(metric, fixed_p, fixed_u, u_p, u_u):
    """All unfairness values some completion attains (to test epsilon exactly at a level)."""
    x1p, x0p, x1u, x0u = np.meshgrid(
        np.arange(u_p[0] + 1),
        np.arange(u_p[1] + 1),
        np.arange(u_u[0] + 1),
        np.arange(u_u[1] + 1),
        indexing="ij",
    )
    value = _unfairness_arrays(
        metric, _completed(fixed_p, *u_p, x1p, x0p), _completed(fixed_u, *u_u, x1u, x0u)
    )
    return np.unique(value)


def call_bound(metric, epsilon, fixed_p, fixed_u, u_p, u_u):
    feasible, errors = bound.fairness_lower_bound(int(metric), epsilon, fixed_p, fixed_u, u_p, u_u)
    return errors if feasible else None


# ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize("metric", METRICS, ids=lambda m: m.short_name)
def test_cpp_unfairness_is_bit_identical_to_python(metric):
    rng = np.random.default_rng(1000 + int(metric))
    for _ in range(3000):
        hi = int(rng.choice([2, 5, 50, 5000]))
        p = tuple(int(v) for v in rng.integers(0, hi, 4) * (rng.random(4) > 0.25))
        u = tuple(int(v) for v in rng.integers(0, hi, 4) * (rng.random(4) > 0.25))
        expected = unfairness_from_counts(ConfusionCounts(GroupCounts(*p), GroupCounts(*u)), metric)
        got = bound.unfairness(int(metric), p, u)
        assert got == expected, (metric, p, u, got, expected)


def _random_small_case(rng, cap):
    def counts(n, hi):
        return tuple(int(v) for v in rng.integers(0, hi + 1, n) * (rng.random(n) > 0.2))

    return counts(4, cap), counts(4, cap), counts(2, cap), counts(2, cap)


@pytest.mark.parametrize("metric", METRICS, ids=lambda m: m.short_name)
def test_bound_equals_brute_force_on_small_counts(metric):
    rng = np.random.default_rng(int(metric))
    checked = 0
    for case in range(260):
        fixed_p, fixed_u, u_p, u_u = _random_small_case(rng, 6 if case % 3 else 3)
        levels = attainable_values(metric, fixed_p, fixed_u, u_p, u_u)
        epsilons = {
            0.0,
            float(rng.choice(levels)),
            float(rng.choice(levels)),
            float(rng.random() * 0.5),
        }
        epsilons.add(float(np.nextafter(float(rng.choice(levels)) - FEASIBILITY_TOL, 0.0)))
        epsilons.add(3.0)
        for eps in epsilons:
            eps = max(eps, 0.0)
            expected = brute_force(metric, eps, fixed_p, fixed_u, u_p, u_u)
            got = call_bound(metric, eps, fixed_p, fixed_u, u_p, u_u)
            assert got == expected, (metric, eps, fixed_p, fixed_u, u_p, u_u, got, expected)
            checked += 1
    assert checked > 1000


@pytest.mark.parametrize("metric", METRICS, ids=lambda m: m.short_name)
def test_bound_handles_empty_groups_and_labels(metric):
    # Every combination of zero / non-zero counts on tiny groups, where zero denominators make
    # PP, PE, EOpp and CUAE jump to rate 0.
    shapes = list(itertools.product((0, 1), repeat=4))
    rng = np.random.default_rng(77 + int(metric))
    for _ in range(150):
        fixed_p = tuple(int(v) * int(rng.integers(1, 3)) for v in shapes[rng.integers(len(shapes))])
        fixed_u = tuple(int(v) * int(rng.integers(1, 3)) for v in shapes[rng.integers(len(shapes))])
        u_p = tuple(int(v) for v in rng.integers(0, 3, 2))
        u_u = tuple(int(v) for v in rng.integers(0, 3, 2))
        for eps in (0.0, 0.1, 0.5, 1.0):
            expected = brute_force(metric, eps, fixed_p, fixed_u, u_p, u_u)
            got = call_bound(metric, eps, fixed_p, fixed_u, u_p, u_u)
            assert got == expected, (metric, eps, fixed_p, fixed_u, u_p, u_u, got, expected)


def test_bound_reports_infeasible_when_no_completion_is_fair():
    # Statistical parity: the protected group is fully decided at rate 1, the unprotected at
    # rate 0 with one free sample; no completion gets the gap below 0.5.
    assert bound.fairness_lower_bound(
        int(Metric.STATISTICAL_PARITY), 0.1, (3, 1, 0, 0), (0, 0, 3, 1), (0, 0), (1, 0)
    ) == (False, -1)
    # Nothing is uncaptured and the counts are unfair.
    assert bound.fairness_lower_bound(
        int(Metric.EQUAL_OPPORTUNITY), 0.0, (1, 0, 0, 1), (1, 0, 0, 0), (0, 0), (0, 0)
    ) == (False, -1)


def test_bound_is_zero_when_error_free_completion_is_fair():
    assert bound.fairness_lower_bound(
        int(Metric.STATISTICAL_PARITY), 0.05, (10, 2, 30, 5), (11, 2, 29, 5), (7, 9), (6, 8)
    ) == (True, 0)


def test_bound_rejects_bad_arguments():
    with pytest.raises(ValueError, match="metric"):
        bound.fairness_lower_bound(7, 0.1, (0, 0, 0, 0), (0, 0, 0, 0), (0, 0), (0, 0))
    with pytest.raises(ValueError, match="epsilon"):
        bound.fairness_lower_bound(1, -0.1, (0, 0, 0, 0), (0, 0, 0, 0), (0, 0), (0, 0))
    with pytest.raises(ValueError, match="u_prot"):
        bound.fairness_lower_bound(1, 0.1, (0, 0, 0, 0), (0, 0, 0, 0), (0, 0, 1), (0, 0))
    with pytest.raises(ValueError, match="fixed_unprot"):
        bound.fairness_lower_bound(1, 0.1, (0, 0, 0, 0), (0, -1, 0, 0), (0, 0), (0, 0))


# ---------------------------------------------------------------------------------------------
# Larger cases against simple exact solvers that exploit only the separability of each metric.
def _linear_exact(metric, epsilon, fixed_p, fixed_u, u_p, u_u):
    """SP / PE / EOpp: each group's rate depends on one variable; enumerate the 2-D grid."""

    def group(fixed, upos, uneg):
        tp, fp, tn, fn = fixed
        if metric is Metric.STATISTICAL_PARITY:
            v = np.arange(upos + uneg + 1)
            return _rate(tp + fp + v, tp + fp + tn + fn + upos + uneg), np.abs(v - upos)
        if metric is Metric.PREDICTIVE_EQUALITY:
            v = np.arange(uneg + 1)
            return _rate(fp + v, fp + tn + uneg), v
        v = np.arange(upos + 1)
        return _rate(tp + v, tp + fn + upos), upos - v

    rp, cp = group(fixed_p, *u_p)
    ru, cu = group(fixed_u, *u_u)
    fair = np.abs(rp[:, None] - ru[None, :]) <= epsilon + FEASIBILITY_TOL
    cost = cp[:, None] + cu[None, :]
    return int(cost[fair].min()) if fair.any() else None


def _eodds_exact(epsilon, fixed_p, fixed_u, u_p, u_u):
    """EOdds: per part, the minimum gap for each exact cost; then all pairs of costs."""

    def part(rate_p, rate_u, cost_p, cost_u):
        gap = np.abs(rate_p[:, None] - rate_u[None, :])
        cost = cost_p[:, None] + cost_u[None, :]
        best = np.full(cost.max() + 1, np.inf)
        np.minimum.at(best, cost.ravel(), gap.ravel())
        return best

    (tpp, fpp, tnp, fnp), (tpu, fpu, tnu, fnu) = fixed_p, fixed_u
    x1p, x1u = np.arange(u_p[0] + 1), np.arange(u_u[0] + 1)
    x0p, x0u = np.arange(u_p[1] + 1), np.arange(u_u[1] + 1)
    h1 = part(
        _rate(tpp + x1p, tpp + fnp + u_p[0]),
        _rate(tpu + x1u, tpu + fnu + u_u[0]),
        u_p[0] - x1p,
        u_u[0] - x1u,
    )
    h0 = part(_rate(fpp + x0p, fpp + tnp + u_p[1]), _rate(fpu + x0u, fpu + tnu + u_u[1]), x0p, x0u)
    fair = (h1[:, None] + h0[None, :]) <= epsilon + FEASIBILITY_TOL
    cost = np.arange(len(h1))[:, None] + np.arange(len(h0))[None, :]
    return int(cost[fair].min()) if fair.any() else None


def _ratio_exact(metric, epsilon, fixed_p, fixed_u, u_p, u_u):
    """PP / CUAE: all points of each group, then all pairs (chunked)."""

    def points(fixed, upos, uneg):
        tp, fp, tn, fn = fixed
        x1, x0 = np.meshgrid(np.arange(upos + 1), np.arange(uneg + 1), indexing="ij")
        x1, x0 = x1.ravel(), x0.ravel()
        ppv = _rate(tp + x1, tp + x1 + fp + x0)
        npv = _rate(tn + uneg - x0, tn + uneg - x0 + fn + upos - x1)
        return ppv, npv, (upos - x1) + x0

    pp, npp, cp = points(fixed_p, *u_p)
    pu, npu, cu = points(fixed_u, *u_u)
    best = None
    for start in range(0, len(pp), 256):
        sl = slice(start, start + 256)
        value = np.abs(pp[sl, None] - pu[None, :])
        if metric is Metric.CONDITIONAL_USE_ACCURACY_EQUALITY:
            value = value + np.abs(npp[sl, None] - npu[None, :])
        fair = value <= epsilon + FEASIBILITY_TOL
        if fair.any():
            c = int((cp[sl, None] + cu[None, :])[fair].min())
            best = c if best is None else min(best, c)
    return best


def _exact(metric, epsilon, fixed_p, fixed_u, u_p, u_u):
    if metric in (Metric.STATISTICAL_PARITY, Metric.PREDICTIVE_EQUALITY, Metric.EQUAL_OPPORTUNITY):
        return _linear_exact(metric, epsilon, fixed_p, fixed_u, u_p, u_u)
    if metric is Metric.EQUALIZED_ODDS:
        return _eodds_exact(epsilon, fixed_p, fixed_u, u_p, u_u)
    return _ratio_exact(metric, epsilon, fixed_p, fixed_u, u_p, u_u)


def _compas_like_case(rng, scale, sizes=(3175, 2103)):
    """Counts in COMPAS proportions (protected: 3,175 samples, 52% positive; unprotected:
    2,103, 39% positive; or smaller groups of the same shape), a random part uncaptured, the
    captured part predicted positive with similar (jittered) rates in both groups so that small
    epsilons are often reachable."""
    share_pos, share_neg = rng.uniform(0.2, 0.9), rng.uniform(0.05, 0.5)

    def group(n, pos_share):
        pos = int(n * pos_share)
        neg = n - pos
        upos = int(rng.integers(0, pos + 1) * scale)
        uneg = int(rng.integers(0, neg + 1) * scale)
        p1 = float(np.clip(share_pos + rng.normal(0, 0.08), 0, 1))
        p0 = float(np.clip(share_neg + rng.normal(0, 0.08), 0, 1))
        tp = int(rng.binomial(pos - upos, p1))
        fp = int(rng.binomial(neg - uneg, p0))
        return (tp, fp, neg - uneg - fp, pos - upos - tp), (upos, uneg)

    fp_, up = group(sizes[0], 0.52)
    fu, uu = group(sizes[1], 0.39)
    return fp_, fu, up, uu


@pytest.mark.parametrize("metric", METRICS, ids=lambda m: m.short_name)
def test_bound_matches_exact_solver_on_compas_sized_counts(metric):
    rng = np.random.default_rng(500 + int(metric))
    ratio = metric in (Metric.PREDICTIVE_PARITY, Metric.CONDITIONAL_USE_ACCURACY_EQUALITY)
    eodds = metric is Metric.EQUALIZED_ODDS
    # The reference solvers are quadratic in the uncaptured counts (quartic for PP/CUAE).
    # PP/CUAE: groups of 1/30 the size, mostly uncaptured (up to ~55 per group and label).
    scale = 0.8 if ratio else (0.15 if eodds else 0.5)
    sizes = (106, 70) if ratio else (3175, 2103)
    n_cases = 14 if ratio else 25
    for _ in range(n_cases):
        fixed_p, fixed_u, u_p, u_u = _compas_like_case(rng, scale, sizes)
        for eps in (0.0, 0.01, 0.05, float(rng.random() * 0.2)):
            expected = _exact(metric, eps, fixed_p, fixed_u, u_p, u_u)
            got = call_bound(metric, eps, fixed_p, fixed_u, u_p, u_u)
            assert got == expected, (metric, eps, fixed_p, fixed_u, u_p, u_u, got, expected)


def test_exact_reference_solvers_agree_with_brute_force():
    # The larger-case reference solvers are themselves checked against full enumeration.
    rng = np.random.default_rng(9)
    for _ in range(60):
        fixed_p, fixed_u, u_p, u_u = _random_small_case(rng, 5)
        for metric in METRICS:
            eps = float(rng.random() * 0.3)
            assert _exact(metric, eps, fixed_p, fixed_u, u_p, u_u) == brute_force(
                metric, eps, fixed_p, fixed_u, u_p, u_u
            )


# ---------------------------------------------------------------------------------------------
# The bound over k groups (real-valued relaxation, fairness_bound_groups.cpp): valid against
# enumeration of every integer completion, exact for its relaxation against a linear program.
def _rates_k(metric, counts):
    """Each group's rates that ``metric`` compares, for arrays of counts: counts[g] = (tp, fp,
    tn, fn) of group g (arrays); the same operations as fairlist.metrics."""
    names = {
        Metric.STATISTICAL_PARITY: ("sel",),
        Metric.PREDICTIVE_PARITY: ("ppv",),
        Metric.PREDICTIVE_EQUALITY: ("fpr",),
        Metric.EQUAL_OPPORTUNITY: ("tpr",),
        Metric.EQUALIZED_ODDS: ("tpr", "fpr"),
        Metric.CONDITIONAL_USE_ACCURACY_EQUALITY: ("ppv", "npv"),
    }[metric]

    def rate(name, tp, fp, tn, fn):
        return {
            "sel": lambda: _rate(tp + fp, tp + fp + tn + fn),
            "tpr": lambda: _rate(tp, tp + fn),
            "fpr": lambda: _rate(fp, fp + tn),
            "ppv": lambda: _rate(tp, tp + fp),
            "npv": lambda: _rate(tn, tn + fn),
        }[name]()

    total = 0.0
    for name in names:
        values = np.stack([rate(name, *c) for c in counts])
        total = total + (values.max(axis=0) - values.min(axis=0))
    return total


def brute_force_groups(metric, epsilon, fixed, uncaptured):
    """Minimum errors over every integer completion of k groups with a fair result, or None."""
    axes = []
    for a, b in uncaptured:
        axes += [np.arange(a + 1), np.arange(b + 1)]
    grid = np.meshgrid(*axes, indexing="ij")
    counts, cost = [], 0
    for g, ((tp, fp, tn, fn), (a, b)) in enumerate(zip(fixed, uncaptured, strict=True)):
        x1, x0 = grid[2 * g].ravel(), grid[2 * g + 1].ravel()
        counts.append((tp + x1, fp + x0, tn + b - x0, fn + a - x1))
        cost = cost + (a - x1) + x0
    fair = _rates_k(metric, counts) <= epsilon + FEASIBILITY_TOL
    return int(cost[fair].min()) if fair.any() else None


def call_group_bound(metric, epsilon, fixed, uncaptured):
    feasible, errors = bound.group_fairness_lower_bound(int(metric), epsilon, fixed, uncaptured)
    return errors if feasible else None


def _random_groups(rng, k, hi, uhi):
    def counts(n, top):
        return tuple(int(v) for v in rng.integers(0, top + 1, n) * (rng.random(n) > 0.2))

    return [counts(4, hi) for _ in range(k)], [counts(2, uhi) for _ in range(k)]


@pytest.mark.parametrize("k", [2, 3, 4, 5])
@pytest.mark.parametrize("metric", METRICS, ids=lambda m: m.short_name)
def test_group_unfairness_is_bit_identical_to_python(metric, k):
    rng = np.random.default_rng(3000 + 10 * int(metric) + k)
    for _ in range(400):
        hi = int(rng.choice([2, 5, 50, 5000]))
        groups = [
            tuple(int(v) for v in rng.integers(0, hi, 4) * (rng.random(4) > 0.25)) for _ in range(k)
        ]
        counts = ConfusionCounts(*(GroupCounts(*c) for c in groups))
        expected = unfairness_from_counts(counts, metric)
        assert bound.group_unfairness(int(metric), groups) == expected, (metric, groups)
        if k == 2:
            assert bound.unfairness(int(metric), *groups) == expected


@pytest.mark.parametrize("metric", METRICS, ids=lambda m: m.short_name)
def test_group_bound_never_exceeds_brute_force(metric):
    """The bound is valid: never above the fewest errors of a fair integer completion, and
    "infeasible" only when no completion is fair (k = 2, 3, 4 small groups, epsilon 0 and at
    attained levels included)."""
    rng = np.random.default_rng(4000 + int(metric))
    checked = tight = 0
    for case in range(150):
        k = (2, 3, 3, 4)[case % 4]
        fixed, uncaptured = _random_groups(rng, k, 6, 3 if k < 4 else 2)
        epsilons = {0.0, 0.05, 0.2, float(rng.random() * 0.5), 3.0}
        for eps in epsilons:
            expected = brute_force_groups(metric, eps, fixed, uncaptured)
            got = call_group_bound(metric, eps, fixed, uncaptured)
            context = (metric, eps, fixed, uncaptured, got, expected)
            if expected is None:
                continue  # the relaxation may still be feasible
            assert got is not None and got <= expected, context
            tight += got == expected
            checked += 1
    assert checked > 150
    assert tight > checked // 3  # and it is not trivial


def _lp_window(metric, epsilon, fixed, uncaptured):
    """The real-valued relaxation of SP / PE / EOpp / EOdds as a linear program (scipy): the
    variables x1_g, x0_g and the windows' bottoms; None when infeasible."""
    from scipy.optimize import linprog

    k = len(fixed)
    cap = epsilon + FEASIBILITY_TOL
    parts = {
        Metric.STATISTICAL_PARITY: ["sel"],
        Metric.PREDICTIVE_EQUALITY: ["fpr"],
        Metric.EQUAL_OPPORTUNITY: ["tpr"],
        Metric.EQUALIZED_ODDS: ["tpr", "fpr"],
    }[metric]
    # variables: x1_0, x0_0, ..., x1_{k-1}, x0_{k-1}, then per part its bottom t_p and width e_p
    nv = 2 * k + 2 * len(parts)
    c = np.zeros(nv)
    bounds = []
    for g, (a, b) in enumerate(uncaptured):
        c[2 * g], c[2 * g + 1] = -1.0, 1.0  # cost (a - x1) + x0, constant a dropped
        bounds += [(0, a), (0, b)]
    bounds += [(None, None), (0, None)] * len(parts)
    rows, rhs = [], []
    for p, part in enumerate(parts):
        t, e = 2 * k + 2 * p, 2 * k + 2 * p + 1
        for g, ((tp, fp, tn, fn), (a, b)) in enumerate(zip(fixed, uncaptured, strict=True)):
            # rate = (base + coef . x) / d must lie in [t, t + e]
            coef = np.zeros(nv)
            if part == "sel":
                d, base = tp + fp + tn + fn + a + b, tp + fp
                coef[2 * g] = coef[2 * g + 1] = 1.0
            elif part == "tpr":
                d, base = tp + fn + a, tp
                coef[2 * g] = 1.0
            else:
                d, base = fp + tn + b, fp
                coef[2 * g + 1] = 1.0
            if d == 0:  # rate 0 whatever happens: 0 in [t, t + e]
                lo, hi = np.zeros(nv), np.zeros(nv)
                lo[t] = 1.0
                rows.append(lo)
                rhs.append(0.0)
                hi[t], hi[e] = -1.0, -1.0
                rows.append(hi)
                rhs.append(0.0)
                continue
            lo = -coef.copy()  # base + x >= t d
            lo[t] = d
            rows.append(lo)
            rhs.append(base)
            hi = coef.copy()  # base + x <= (t + e) d
            hi[t], hi[e] = -d, -d
            rows.append(hi)
            rhs.append(-base)
    width = np.zeros(nv)
    width[[2 * k + 2 * p + 1 for p in range(len(parts))]] = 1.0
    rows.append(width)
    rhs.append(cap)
    res = linprog(c, A_ub=np.array(rows), b_ub=np.array(rhs), bounds=bounds, method="highs")
    if res.status == 2:
        return None
    assert res.status == 0, res.message
    return res.fun + sum(a for a, _ in uncaptured)


LINEAR = [
    Metric.STATISTICAL_PARITY,
    Metric.PREDICTIVE_EQUALITY,
    Metric.EQUAL_OPPORTUNITY,
    Metric.EQUALIZED_ODDS,
]


@pytest.mark.parametrize("metric", LINEAR, ids=lambda m: m.short_name)
def test_group_bound_is_exact_for_its_relaxation(metric):
    """SP, PE, EOpp, EOdds: the bound is the real-valued relaxation's optimum, rounded up."""
    check_against_lp(metric, 30, 5000)


@pytest.mark.slow
@pytest.mark.parametrize("metric", LINEAR, ids=lambda m: m.short_name)
def test_group_bound_is_exact_for_its_relaxation_on_many_more_cases(metric):
    check_against_lp(metric, 400, 5500)


def check_against_lp(metric, n_cases, seed):
    rng = np.random.default_rng(seed + int(metric))
    for case in range(n_cases):
        k = int(rng.integers(2, 7))
        big = case % 2 == 0
        fixed, uncaptured = _random_groups(rng, k, 400 if big else 8, 300 if big else 6)
        for eps in (0.0, 0.03, float(rng.random() * 0.3)):
            lp = _lp_window(metric, eps, fixed, uncaptured)
            got = call_group_bound(metric, eps, fixed, uncaptured)
            context = (metric, eps, fixed, uncaptured, got, lp)
            if lp is None:
                assert got is None, context
                continue
            assert got is not None, context
            # ceil of the optimum, up to the LP solver's tolerance at an integer optimum
            assert math.ceil(lp - 1e-6) <= got <= math.ceil(lp + 1e-6), context


def test_group_bound_is_weaker_than_the_exact_two_group_bound():
    """With two groups the integer program (fairness_lower_bound) is at least as strong."""
    rng = np.random.default_rng(6000)
    for _ in range(300):
        fixed, uncaptured = _random_groups(rng, 2, 30, 20)
        metric = METRICS[int(rng.integers(6))]
        eps = float(rng.choice([0.0, 0.02, 0.1, rng.random() * 0.4]))
        exact = call_bound(metric, eps, fixed[0], fixed[1], uncaptured[0], uncaptured[1])
        relaxed = call_group_bound(metric, eps, fixed, uncaptured)
        if relaxed is None:
            assert exact is None
        elif exact is not None:
            assert relaxed <= exact


def test_group_bound_scales_with_weights():
    """Counts may be sums of large integer weights: the bound scales with them (no scan over
    counts), here a thousandfold."""
    fixed = [(30, 5, 40, 10), (10, 2, 60, 20), (5, 20, 30, 5)]
    uncaptured = [(20, 30), (25, 10), (10, 15)]
    for metric in METRICS:
        small = call_group_bound(metric, 0.02, fixed, uncaptured)
        big = call_group_bound(
            metric,
            0.02,
            [tuple(1000 * v for v in c) for c in fixed],
            [tuple(1000 * v for v in u) for u in uncaptured],
        )
        assert (small is None) == (big is None), metric
        if small is not None:
            assert 1000 * (small - 1) <= big <= 1000 * small, (metric, small, big)


def test_group_bound_rejects_bad_arguments():
    with pytest.raises(ValueError, match="groups"):
        bound.group_fairness_lower_bound(1, 0.1, [(0, 0, 0, 0)], [(0, 0)])
    with pytest.raises(ValueError, match="uncaptured"):
        bound.group_fairness_lower_bound(1, 0.1, [(0, 0, 0, 0)] * 3, [(0, 0)] * 2)
    with pytest.raises(ValueError, match="epsilon"):
        bound.group_fairness_lower_bound(1, -1.0, [(0, 0, 0, 0)] * 3, [(0, 0)] * 3)
