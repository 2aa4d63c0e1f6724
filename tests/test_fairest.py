"""fairlist.fairest_within: the least unfair list within delta of the optimum, against the brute
force (tests/reference.py), the Rashomon enumeration (RashomonSet.fairest) and the CP-SAT
engine; every metric, several groups, sample weights; every method of the search (the core's
Pareto front of one search, ``front``; the optimum then the core's fairest mode under the
objective ceiling, ``ceiling``; and ``caps``: the set at once, and the bisection of caps that a
small max_lists forces). The core's fairest mode is also checked on its own under arbitrary
ceilings (tests/test_fairest_core.py)."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from reference import random_group_problem, random_problem, reference_rashomon, reference_unfairness

from fairlist import fairest_within
from fairlist.errors import DataError, InvalidParameterError
from fairlist.fairest import search_fairest
from fairlist.metrics import Metric
from fairlist.rashomon import search_rashomon
from fairlist.solvers import Limits

METRICS = list(Metric)
#: The methods of the core (fairlist.fairest.METHODS but auto and caps, which the tests pass as
#: the default max_lists and a bisecting one).
CORE_METHODS = ("front", "ceiling")


def _members(problem, max_length: int, delta: float) -> list[tuple[float, float]]:
    """The brute force's set as (unfairness, objective) pairs."""
    pairs = []
    for objective, rules, default in reference_rashomon(problem, max_length, delta):
        rule_list = problem.rule_list([j for j, _ in rules], [q for _, q in rules], default)
        pairs.append((reference_unfairness(problem, rule_list.predict(problem.X)), objective))
    return pairs


def _expected(problem, max_length: int, delta: float) -> tuple[float, float]:
    """The brute force's least unfairness within delta and, among those lists, the least
    objective (inf, inf: no fair list)."""
    return min(_members(problem, max_length, delta), default=(math.inf, math.inf))


def _bisecting_cap(problem, max_length: int, delta: float) -> int:
    """A max_lists that cuts the first set (when it can) but holds the lists within delta as
    unfair as the fairest: the search must bisect, then end exact."""
    members = _members(problem.replace(max_length=max_length), max_length, delta)
    u = min(members, default=(0.0, 0.0))[0]
    return max(1, sum(v <= u + 1e-9 for v, _ in members))


def assert_fairest(problem, max_length: int, delta: float, **kwargs):
    problem = problem.replace(max_length=max_length)
    found = search_fairest(problem, delta, **kwargs)
    u, objective = _expected(problem, max_length, delta)
    if math.isinf(u):
        assert found.status == "infeasible" and found.rule_list is None
        return found
    assert found.status == "optimal", found.certificate
    assert found.unfairness == pytest.approx(u, abs=1e-12)
    if found.steps[-1]["outcome"] == "exact":  # the least objective among the least unfair
        assert found.objective == pytest.approx(objective, abs=1e-12)
    else:  # certified by unfairness 0 alone
        assert found.unfairness == 0
    assert found.unfairness_bound == found.unfairness and found.gap == 0
    ev = problem.evaluate(found.rule_list)
    assert ev.unfairness == found.unfairness and ev.objective == found.objective
    assert found.objective <= found.optimum + delta + 1e-9
    if found.refuted is not None:  # a refuted cap lies below the answer
        assert found.refuted < u
    assert f"below {found.unfairness:.6g}" in found.certificate
    return found


@pytest.mark.parametrize("metric", METRICS, ids=lambda m: m.name)
def test_every_metric_equals_brute_force_both_routes(metric):
    rng = np.random.default_rng(700 + int(metric))
    bisected = 0
    for _ in range(6):
        if bisected >= 2:
            break
        problem = random_problem(rng, n=30, m=5, metric=metric, epsilon=0.25, lam=0.01)
        for method in CORE_METHODS:
            assert_fairest(problem, 3, 0.06, method=method)
        assert_fairest(problem, 3, 0.06, method="caps")  # the set at once
        cap = _bisecting_cap(problem, 3, 0.06)
        found = assert_fairest(problem, 3, 0.06, method="caps", max_lists=cap)  # bisected
        bisected += any(step["kind"] == "optimum" for step in found.steps)
    assert bisected  # the bisection ran


@pytest.mark.slow
@pytest.mark.parametrize("weights", [None, "integer", "decimal"])
def test_groups_and_weights_equal_brute_force(weights):
    rng = np.random.default_rng(710)
    for metric in (Metric.STATISTICAL_PARITY, Metric.EQUALIZED_ODDS, Metric.PREDICTIVE_PARITY):
        problem = random_group_problem(
            rng, n=30, m=4, k=3, weights=weights, metric=metric, epsilon=0.5, lam=0.01
        )
        for method in CORE_METHODS:
            assert_fairest(problem, 3, 0.08, method=method)
        cap = _bisecting_cap(problem, 3, 0.08)
        assert_fairest(problem, 3, 0.08, method="caps", max_lists=cap)


def test_three_groups_and_weights_fast():
    rng = np.random.default_rng(711)
    problem = random_group_problem(
        rng,
        n=24,
        m=4,
        k=3,
        weights="decimal",
        metric=Metric.EQUALIZED_ODDS,
        epsilon=0.5,
        lam=0.01,
    )
    assert_fairest(problem, 2, 0.08, method="caps", max_lists=_bisecting_cap(problem, 2, 0.08))
    for method in CORE_METHODS:
        assert_fairest(problem, 2, 0.08, method=method)


@pytest.mark.parametrize("method", CORE_METHODS)
def test_core_methods_on_three_groups_and_weights(method):
    rng = np.random.default_rng(712)
    cases = ((Metric.STATISTICAL_PARITY, "integer"), (Metric.EQUAL_OPPORTUNITY, None))
    for metric, weights in cases:
        problem = random_group_problem(
            rng, n=24, m=4, k=3, weights=weights, metric=metric, epsilon=0.4, lam=0.01
        )
        assert_fairest(problem, 3, 0.08, method=method)


def test_no_cap_and_delta_zero():
    rng = np.random.default_rng(720)
    problem = random_problem(rng, n=30, m=5, epsilon=None, lam=0.01)
    assert_fairest(problem, 3, 0.05, method="caps", max_lists=_bisecting_cap(problem, 3, 0.05))
    for method in CORE_METHODS:  # no cap: the core searches with one every list meets
        assert_fairest(problem, 3, 0.05, method=method)
    problem = random_problem(rng, n=24, m=5, epsilon=0.2, lam=0.0)
    assert_fairest(problem, 3, 0.0, method="caps", max_lists=_bisecting_cap(problem, 3, 0.0))
    for method in CORE_METHODS:
        assert_fairest(problem, 3, 0.0, method=method)


@pytest.mark.slow
@pytest.mark.parametrize("metric", METRICS, ids=lambda m: m.name)
def test_sets_too_large_for_max_lists_never_claim_too_much(metric):
    # one list a step: the sets stay cut; the answer is a witness with a proved bound
    rng = np.random.default_rng(760 + int(metric))
    problem = random_problem(rng, n=30, m=5, metric=metric, epsilon=0.25, lam=0.01)
    problem = problem.replace(max_length=3)
    u, _ = _expected(problem, 3, 0.06)
    found = search_fairest(problem, 0.06, method="caps", max_lists=1)
    if math.isinf(u):
        assert found.status == "infeasible"
        return
    assert found.unfairness_bound <= u + 1e-12 <= found.unfairness + 2e-12
    assert found.objective <= found.optimum + 0.06 + 1e-9
    assert found.status in ("optimal", "feasible")
    if found.status == "optimal":
        assert found.unfairness == pytest.approx(u, abs=1e-12)
    else:
        # no limit stopped it: the bisection ended at its resolution, a refuted cap below u
        assert found.refuted is not None and found.refuted < u and found.gap <= 1e-6
        assert any(step["outcome"] == "refuted" for step in found.steps)
    assert len(found.steps) <= 30


def test_agrees_with_the_rashomon_set_and_cpsat():
    pytest.importorskip("ortools")
    rng = np.random.default_rng(730)
    for metric in (Metric.STATISTICAL_PARITY, Metric.EQUAL_OPPORTUNITY):
        problem = random_problem(rng, n=24, m=4, metric=metric, epsilon=0.3, lam=0.02)
        problem = problem.replace(max_length=2)
        rs = search_rashomon(problem, 0.1, None)
        frame = rs.to_frame(columns=["objective", metric.short_name])
        i = rs.fairest()
        by_bnb = search_fairest(problem, 0.1, method="caps", max_lists=2)
        by_cpsat = search_fairest(problem, 0.1, max_lists=2, engine="cpsat")
        by_core = [search_fairest(problem, 0.1, method=method) for method in CORE_METHODS]
        for found in (by_bnb, by_cpsat, *by_core):
            assert found.status == "optimal"
            assert found.unfairness == pytest.approx(frame[metric.short_name][i], abs=1e-12)
            assert found.objective == pytest.approx(frame["objective"][i], abs=1e-12)


@pytest.mark.parametrize("metric", [Metric.STATISTICAL_PARITY, Metric.EQUALIZED_ODDS])
def test_the_methods_agree_beyond_the_brute_force(metric):
    # larger than the brute force reaches: the three methods, each exact, give one answer
    rng = np.random.default_rng(770 + int(metric))
    problem = random_problem(rng, n=300, m=9, metric=metric, epsilon=0.1, lam=0.004)
    problem = problem.replace(max_length=3)
    found = [search_fairest(problem, 0.03, method=m) for m in ("caps", *CORE_METHODS)]
    assert {f.status for f in found} == {"optimal"}
    assert len({(f.unfairness, f.objective) for f in found}) == 1, [f.steps for f in found]
    assert found[0].optimum == found[1].optimum == found[2].optimum
    assert found[0].objective > found[0].optimum  # not the optimum's list: a real search


def test_infeasible_and_limits():
    rng = np.random.default_rng(740)
    problem = random_problem(rng, n=30, m=5, epsilon=0.2, lam=0.005, max_length=4)
    for method in ("caps", *CORE_METHODS):
        never = problem.replace(epsilon=0.0, metric="cuae")
        infeasible = search_fairest(never, 0.05, method=method)
        if infeasible.rule_list is None:
            assert infeasible.status == "infeasible"
            assert "no rule list of at most 4 rules meets the cap" in infeasible.certificate
    # a node limit: never a wrong claim
    u, _ = _expected(problem, 4, 0.05)
    runs = [(nodes, {"method": "caps", "max_lists": 2}) for nodes in (1, 3, 10)]
    runs += [(nodes, {"method": method}) for nodes in (1, 3, 10, 30) for method in CORE_METHODS]
    for nodes, kwargs in runs:
        found = search_fairest(problem.with_limits(Limits(max_nodes=nodes)), 0.05, **kwargs)
        assert found.status in ("optimal", "feasible", "unknown")
        assert found.unfairness_bound <= u + 1e-12
        if found.rule_list is not None:
            assert found.unfairness >= u - 1e-12
            assert found.objective <= found.optimum + 0.05 + 1e-9
        if found.status == "optimal":
            assert found.unfairness == pytest.approx(u, abs=1e-12)
        if found.status == "feasible":
            assert "gap" in found.certificate


def test_public_function_routes_tables_and_checks_its_arguments():
    rng = np.random.default_rng(750)
    problem = random_problem(rng, n=40, m=4, epsilon=0.2, lam=0.01)
    X = pd.DataFrame(problem.X, columns=["a", "b", "c", "d"])
    X["b_twin"] = X["b"]
    found = fairest_within(
        X,
        problem.y,
        problem.protected,
        epsilon=0.2,
        lam=0.01,
        max_length=2,
        delta=0.05,
        binarizer=None,
    )
    expected = assert_fairest(problem, 2, 0.05)
    assert found.status == "optimal" and found.unfairness == expected.unfairness
    assert "at most 2 rules within delta 0.05" in found.certificate
    args = (problem.X, problem.y, problem.protected)
    with pytest.raises(InvalidParameterError, match="delta"):
        fairest_within(*args, delta=-1)
    with pytest.raises(InvalidParameterError, match="engine"):
        fairest_within(*args, delta=0.1, engine="exhaustive")
    with pytest.raises(InvalidParameterError, match="max_lists"):
        fairest_within(*args, delta=0.1, max_lists=0)
    with pytest.raises(InvalidParameterError, match="method"):
        fairest_within(*args, delta=0.1, method="enumerate")
    with pytest.raises(InvalidParameterError, match="engine='cpsat' has method='caps' only"):
        fairest_within(*args, delta=0.1, engine="cpsat", method="front")
    with pytest.raises(InvalidParameterError, match="lam"):
        fairest_within(*args, delta=0.1, lam=-1)
    with pytest.raises(DataError, match="sample_weight"):
        fairest_within(
            *args, delta=0.1, lam=0.01, max_length=2, sample_weight=rng.uniform(0.1, 2, size=40)
        )
