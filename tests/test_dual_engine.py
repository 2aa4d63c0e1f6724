"""BnBSolver(dual=...): the Lagrangian certificate as an engine option (issue 36 step 2b).
The brute-force and CP-SAT exactness checks with the dual path on and off: every metric with
linear rates, two and three groups, weights, caps, n_jobs 2; PP and CUAE keep the plain search;
the fallback when the enumeration is cut."""

from __future__ import annotations

import zlib

import numpy as np
import pytest
from reference import assert_certifies, random_group_problem, reference_solve

from fairlist.errors import InvalidParameterError
from fairlist.solvers import Limits, Status
from fairlist.solvers.bnb import BnBSolver

METRICS = ("SP", "PE", "EOpp", "EOdds")


@pytest.mark.parametrize("metric", METRICS)
@pytest.mark.parametrize("weights", [None, "integer", "real"])
@pytest.mark.parametrize("n_jobs", [1, 2])
def test_dual_on_matches_brute_force(metric, weights, n_jobs):
    rng = np.random.default_rng(zlib.crc32(repr((metric, weights, n_jobs)).encode()))
    for k, length, epsilon in ((2, 2, 0.05), (2, 3, 0.02), (3, 2, 0.1)):
        p = random_group_problem(
            rng,
            n=30,
            m=4,
            k=k,
            weights=weights,
            metric=metric,
            epsilon=epsilon,
            lam=0.01,
            max_length=length,
        )
        ref = reference_solve(p, length)
        r = BnBSolver(dual="on", n_jobs=n_jobs).solve(p)
        info = r.stats["dual"]
        assert info["applied"]
        # the dual path certifies these (no limit cuts the enumeration) with any weights
        assert info["certified"] and not info.get("fallback"), info
        assert_certifies(p, ref, r, (metric, weights, k, length))
        if weights != "real":  # the plain search certifies exact weights: the same optimum
            off = BnBSolver(n_jobs=n_jobs).solve(p)
            assert_certifies(p, ref, off, (metric, weights, k, length, "off"))


@pytest.mark.parametrize("metric", ("SP", "PE", "EOpp"))
def test_dual_auto(metric):
    """auto: small problems are certified by the plain search within its share (the dual path
    is not needed); the answer is the brute-force one either way."""
    rng = np.random.default_rng(len(metric))
    p = random_group_problem(
        rng, n=30, m=4, k=2, metric=metric, epsilon=0.03, lam=0.01, max_length=3
    )
    r = BnBSolver(dual="auto").solve(p)
    assert r.stats["dual"]["applied"]
    assert_certifies(p, reference_solve(p, 3), r, metric)


@pytest.mark.parametrize("metric", ("PP", "CUAE"))
def test_ratio_metrics_keep_the_plain_search(metric):
    rng = np.random.default_rng(3)
    p = random_group_problem(
        rng, n=30, m=4, k=2, metric=metric, epsilon=0.1, lam=0.01, max_length=2
    )
    r = BnBSolver(dual="on").solve(p)
    assert not r.stats["dual"]["applied"] and "ratio" in r.stats["dual"]["reason"]
    assert_certifies(p, reference_solve(p, 2), r, metric)


def test_auto_refusals_and_no_cap():
    rng = np.random.default_rng(5)
    p = random_group_problem(rng, n=30, m=4, k=3, metric="SP", epsilon=0.1, lam=0.01, max_length=2)
    r = BnBSolver(dual="auto").solve(p)
    assert not r.stats["dual"]["applied"] and "two groups" in r.stats["dual"]["reason"]
    free = p.replace(epsilon=None)
    r = BnBSolver(dual="on").solve(free)
    assert not r.stats["dual"]["applied"] and r.status is Status.OPTIMAL
    with pytest.raises(InvalidParameterError, match="dual"):
        BnBSolver(dual="yes").solve(p)


def test_cut_enumeration_falls_back(monkeypatch):
    """An enumeration that max_lists cuts certifies nothing: the plain search runs on, from
    the best list known, and certifies."""
    import fairlist.dual.certificate as dual

    rng = np.random.default_rng(12)
    p = random_group_problem(
        rng, n=40, m=5, k=2, metric="SP", epsilon=0.02, lam=0.005, max_length=3
    )
    assert BnBSolver(dual="on").solve(p).stats["dual"]["n_checked"] > 2  # a set to cut
    monkeypatch.setattr(dual, "DUAL_MAX_LISTS", 2)
    r = BnBSolver(dual="on").solve(p)
    info = r.stats["dual"]
    assert not info["certified"] and info["fallback"]
    assert_certifies(p, reference_solve(p, 3), r, "fallback")


@pytest.mark.parametrize("metric", ("SP", "EOpp", "EOdds"))
def test_dual_on_agrees_with_cpsat(metric):
    pytest.importorskip("ortools")
    from fairlist.solvers import solve

    rng = np.random.default_rng(40 + len(metric))
    p = random_group_problem(
        rng,
        n=60,
        m=6,
        k=2,
        metric=metric,
        epsilon=0.04,
        lam=0.005,
        max_length=3,
        limits=Limits(time_limit=60),
    )
    cp = solve(p, "cpsat")
    r = BnBSolver(dual="on").solve(p)
    assert r.status is Status.OPTIMAL and cp.status is Status.OPTIMAL
    assert r.objective == pytest.approx(cp.objective, abs=1e-9)


def test_estimator_reaches_the_dual_path():
    """The estimator passes engine_options={"dual": ...} to the bnb engine."""
    from fairlist import FairRuleListClassifier

    rng = np.random.default_rng(2)
    p = random_group_problem(rng, n=40, m=4, k=2, metric="SP", epsilon=0.05, lam=0.01)
    clf = FairRuleListClassifier(
        metric="SP", epsilon=0.05, lam=0.01, max_length=2, engine_options={"dual": "on"}
    )
    clf.fit(p.X, p.y, sensitive_features=p.groups)
    info = clf.result_.stats["dual"]
    assert info["applied"] and info["certified"]
    assert clf.result_.status is Status.OPTIMAL
    ref = reference_solve(p.replace(max_length=2), 2)
    assert clf.result_.objective == pytest.approx(ref.objective, abs=1e-9)


@pytest.mark.parametrize("metric,k", [("EOdds", 2), ("SP", 3), ("EOdds", 3)])
def test_subgradient_multipliers(metric, k):
    """Several multipliers (EOdds, more groups): the ascent keeps the best L it met, never
    below L(0) and never above the brute-force optimum."""
    from fairlist.dual import lagrangian_bound
    from fairlist.dual.certificate import _subgradient_multipliers

    rng = np.random.default_rng(60 + k)
    p = random_group_problem(
        rng, n=40, m=4, k=k, metric=metric, epsilon=0.03, lam=0.01, max_length=2
    )
    nu = _subgradient_multipliers(p)
    assert np.allclose(nu.sum(axis=1), 0)
    L = lagrangian_bound(p, nu).bound
    assert lagrangian_bound(p, np.zeros_like(nu)).bound <= L + 1e-12
    assert L <= reference_solve(p, 2).objective + 1e-12


def test_the_dual_path_and_a_warm_start_are_refused_together():
    """Both supply the search's first list: asking for both is one clear error, not one of
    them silently dropped."""
    rng = np.random.default_rng(5)
    p = random_group_problem(rng, n=30, m=4, k=2, metric="SP", epsilon=0.1, lam=0.01, max_length=2)
    with pytest.raises(InvalidParameterError, match="dual and warm_start_engine"):
        BnBSolver(dual="on", warm_start_engine="cpsat").solve(p)
