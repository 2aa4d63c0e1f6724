"""The Lagrangian bound (fairlist.dual): never above the fair optimum, and equal to an
independent enumeration of the relaxed objective (a wrong sign or constant is caught)."""

from __future__ import annotations

import itertools
import math
import zlib

import numpy as np
import pytest
from reference import random_group_problem, random_problem, reference_solve

from fairlist.dual import certify_by_dual, dual_bound, lagrangian_bound
from fairlist.errors import InvalidParameterError
from fairlist.metrics import FEASIBILITY_TOL, METRIC_RATES
from fairlist.solvers import solve

LINEAR = ("SP", "PE", "EOpp")


def _random_nu(rng, problem):
    k = problem.n_groups
    rates = len(METRIC_RATES[problem.metric])
    nu = rng.normal(0, 0.6, size=(rates, k))
    return nu - nu.mean(axis=1, keepdims=True)


def _all_lists(problem, max_length):
    """Every rule list of at most ``max_length`` rules (both predictions per rule)."""
    m = problem.n_antecedents
    for length in range(max_length + 1):
        for ants in itertools.permutations(range(m), length):
            for preds in itertools.product((0, 1), repeat=length):
                for default in (0, 1):
                    yield problem.rule_list(list(ants), list(preds), default)


def _relaxed_min(problem, nu, max_length):
    """min over lists of objective + sum nu * rates, by enumeration and Problem.evaluate."""
    rates = METRIC_RATES[problem.metric]
    best = math.inf
    for rl in _all_lists(problem, max_length):
        ev = problem.evaluate(rl)
        values = np.array([[getattr(g, r) for g in ev.counts.groups] for r in rates])
        best = min(best, ev.objective + float((nu * values).sum()))
    return best


@pytest.mark.parametrize("metric", LINEAR + ("EOdds",))
@pytest.mark.parametrize("weights", [None, "integer", "real"])
def test_never_above_fair_optimum(metric, weights):
    rng = np.random.default_rng(zlib.crc32(repr((metric, weights)).encode()))
    for trial in range(3):
        k = 2 if trial < 2 else 3
        p = random_group_problem(
            rng,
            n=30,
            m=4,
            k=k,
            weights=weights,
            metric=metric,
            epsilon=0.1,
            lam=0.01,
            max_length=2,
        )
        ref = reference_solve(p, 2)
        for _ in range(3):
            nu = _random_nu(rng, p)
            L = lagrangian_bound(p, nu)
            assert L.certified
            assert L.bound <= ref.objective + 1e-12, (metric, weights, k, nu)


@pytest.mark.parametrize("metric", LINEAR + ("EOdds",))
@pytest.mark.parametrize("weights", [None, "real"])
def test_relaxed_value_matches_enumeration(metric, weights):
    """The relaxed optimum (sign of nu, its denominators, the constant, the scale) equals an
    independent enumeration of objective + sum nu r; the penalty is c * (epsilon + tol)."""
    rng = np.random.default_rng(7 + len(metric) + (weights is None))
    for k in (2, 3):
        p = random_group_problem(
            rng,
            n=24,
            m=3,
            k=k,
            weights=weights,
            metric=metric,
            epsilon=0.07,
            lam=0.02,
            max_length=2,
        )
        nu = _random_nu(rng, p)
        L = lagrangian_bound(p, nu)
        exact = _relaxed_min(p, nu, 2)
        # rounded weights (the costs are real): the relaxed solve is optimal within its
        # certified tolerance (2 eta at most), in its own scale
        # (no relaxed solve: one label is cheaper for every sample, the value is exact)
        rounding = 0.0 if L.relaxed is None else L.relaxed.certified_tolerance
        tol = L.scale * rounding + 1e-12
        assert L.relaxed_value <= exact + 1e-12
        assert L.relaxed_value >= exact - tol, (L.relaxed_value, exact)
        c = np.abs(nu).sum(axis=1).max() / 2
        assert L.penalty == pytest.approx(c * (0.07 + FEASIBILITY_TOL), rel=1e-12)
        assert L.bound == pytest.approx(L.relaxed_value - L.penalty, abs=1e-9)


def test_zero_multiplier_is_unconstrained_optimum():
    rng = np.random.default_rng(11)
    for _ in range(4):
        p = random_problem(rng, n=40, m=5, metric="SP", epsilon=0.05, lam=0.01, max_length=3)
        free = solve(p.replace(epsilon=None))
        L0 = lagrangian_bound(p, 0.0)
        assert L0.penalty == 0
        assert abs(L0.bound - free.objective) <= 1e-12


def test_two_group_scalar_is_plus_minus():
    rng = np.random.default_rng(5)
    p = random_problem(rng, n=40, m=4, metric="PE", epsilon=0.05, lam=0.01, max_length=2)
    a = lagrangian_bound(p, 0.4)
    b = lagrangian_bound(p, [0.4, -0.4])
    assert a.bound == b.bound
    assert a.bound == pytest.approx(_relaxed_min(p, np.array([[0.4, -0.4]]), 2) - a.penalty)


def test_dual_bound_search():
    rng = np.random.default_rng(2)
    for metric in LINEAR:
        p = random_problem(rng, n=50, m=5, metric=metric, epsilon=0.02, lam=0.005, max_length=2)
        ref = reference_solve(p, 2)
        d = dual_bound(p, max_evaluations=10)
        assert len(d.points) <= 10
        assert d.bound <= ref.objective + 1e-12
        assert d.bound == max(b for _, b in d.points)
        assert d.bound >= lagrangian_bound(p, 0.0).bound
        grid = dual_bound(p, nus=[-1, 0, 1])
        assert [v for v, _ in grid.points] == [-1.0, 0.0, 1.0]


def test_refusals():
    rng = np.random.default_rng(0)
    p = random_problem(rng, n=30, m=3, metric="PP", epsilon=0.1, lam=0.01)
    with pytest.raises(InvalidParameterError, match="PP and CUAE"):
        lagrangian_bound(p, 0.1)
    p = random_problem(rng, n=30, m=3, metric="EOdds", epsilon=0.1, lam=0.01)
    with pytest.raises(InvalidParameterError, match="issue 36"):
        dual_bound(p)
    with pytest.raises(InvalidParameterError, match="shape"):
        lagrangian_bound(p, 0.1)
    p = random_problem(rng, n=30, m=3, metric="SP", epsilon=0.1, lam=0.01)
    with pytest.raises(InvalidParameterError, match="sum to 0"):
        lagrangian_bound(p, [0.1, 0.2])
    with pytest.raises(InvalidParameterError, match="finite"):
        lagrangian_bound(p, math.nan)
    with pytest.raises(InvalidParameterError, match="majority_only"):
        lagrangian_bound(p, 0.1, majority_only=True)
    with pytest.raises(InvalidParameterError, match="epsilon None"):
        lagrangian_bound(p.replace(epsilon=None), 0.1)


@pytest.mark.parametrize("metric", LINEAR + ("EOdds",))
@pytest.mark.parametrize("weights", [None, "real"])
def test_certify_by_dual_matches_brute_force(metric, weights):
    """From the constant list predicting 0 (fair for these metrics), enumerating the relaxed
    problem under the threshold finds and certifies the brute-force optimum."""
    rng = np.random.default_rng(31 + len(metric) + (weights is None))
    certified = 0
    for k in (2, 2, 3):
        p = random_group_problem(
            rng,
            n=30,
            m=4,
            k=k,
            weights=weights,
            metric=metric,
            epsilon=0.05,
            lam=0.01,
            max_length=2,
        )
        ref = reference_solve(p, 2)
        constant = p.rule_list([], [], 0)
        for nu in (_random_nu(rng, p), np.zeros_like(_random_nu(rng, p))):
            c = certify_by_dual(p, constant, nu)
            ev = p.evaluate(c.rule_list)
            assert ev.fair and ev.objective == pytest.approx(c.objective, abs=1e-12)
            assert c.objective >= ref.objective - 1e-12
            if c.certified:
                certified += 1
                assert c.objective == pytest.approx(ref.objective, abs=1e-12), (k, nu)
        # started from the optimum itself: certified, not improved
        best = certify_by_dual(p, ref.rule_list, _random_nu(rng, p))
        assert best.objective == pytest.approx(ref.objective, abs=1e-12)
    assert certified >= 4


@pytest.mark.parametrize("metric", LINEAR)
def test_certify_by_dual_needs_the_whole_threshold(metric):
    """The fair optimum s* at a positive gap, the second-best fair list as the incumbent, and nu
    of the sign of s*'s gap, large: s*'s relaxed value lies above the incumbent's objective,
    within the penalty |nu| epsilon. A threshold without the penalty misses s* and certifies
    the incumbent; the whole threshold finds s*."""
    rng = np.random.default_rng(101 + len(metric))
    tested = 0
    while tested < 3:
        p = random_problem(rng, n=30, m=4, metric=metric, epsilon=0.08, lam=0.01, max_length=2)
        fair = []
        for rl in _all_lists(p, 2):
            ev = p.evaluate(rl)
            if ev.fair:
                fair.append((ev.objective, rl, ev))
        fair.sort(key=lambda t: t[0])
        best_objective, best, ev = fair[0]
        rate = METRIC_RATES[p.metric][0]
        gap = getattr(ev.counts.groups[0], rate) - getattr(ev.counts.groups[1], rate)
        second = [t for t in fair if t[0] > best_objective + 1e-9]
        if abs(gap) < 0.01 or not second:
            continue
        tested += 1
        lost = second[0][0] - best_objective
        nu = math.copysign(2 * lost / abs(gap) + 0.5, gap)
        assert best_objective + nu * gap > second[0][0]  # s* above the incumbent, relaxed
        c = certify_by_dual(p, second[0][1], nu)
        assert c.certified and c.improved
        assert c.objective == pytest.approx(best_objective, abs=1e-12)


def test_threads_give_the_same_bound():
    rng = np.random.default_rng(13)
    p = random_group_problem(
        rng, n=40, m=5, k=3, weights="real", metric="SP", epsilon=0.05, lam=0.01, max_length=3
    )
    nu = _random_nu(rng, p)
    serial = lagrangian_bound(p, nu)
    assert lagrangian_bound(p, nu, n_jobs=2).bound == pytest.approx(serial.bound, abs=1e-12)
    assert serial.bound <= reference_solve(p, 3).objective + 1e-12
