"""The fairness lower bound (DESIGN.md §3) is exact for its 4-variable relaxation.

The C++ bound decides, for fixed confusion counts of the captured samples and uncaptured counts
per (group, label), the minimum number of errors on the uncaptured samples over every completion
that meets ``unfairness <= epsilon + 1e-9``, or that none exists. The branch-and-bound prunes with
it, so it must equal the true minimum (never more, or optimality certificates break; never
"infeasible" when a fair completion exists). These tests compare it with exhaustive enumeration
of the completions, evaluated with numpy using exactly the arithmetic of ``fairlist.metrics``.
"""

from __future__ import annotations

import itertools

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
