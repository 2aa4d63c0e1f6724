"""Sample weights spread beyond what the engines' integers hold (issue 25).

Weights of 1e9 and 1, one of 2**40, 1e15 and about 1, or subnormal ones are rounded
(:mod:`fairlist.solvers.weights`); a rounded weight of 0 once made the cap's margin infinite and
both engines answered "no fair rule list" although the constant list is fair. Every engine of
the registry must return a list fair for the true weights, never ``infeasible`` or
``unknown``, with an honest lower bound: brute force (tests/reference.py) lies between the
result's lower bound and its objective.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from reference import random_problem, reference_solve, reference_unfairness

from fairlist import FairRuleListClassifier
from fairlist.metrics import METRIC_RATES, Metric
from fairlist.solvers import ENGINES, Problem, Status, solve
from fairlist.solvers.cpsat import fairness_cap, integer_weights
from fairlist.solvers.weights import WEIGHT_LIMIT, cap_margin, rounded_weights

SPREADS = ("1e9", "2**40", "1e15", "subnormal", "equal_subnormal")
#: The metrics under which a constant list has unfairness 0 (predict 0): a fair list exists.
ZERO_METRICS = (
    Metric.STATISTICAL_PARITY,
    Metric.EQUAL_OPPORTUNITY,
    Metric.PREDICTIVE_EQUALITY,
    Metric.EQUALIZED_ODDS,
)


def spread_weights(kind: str, n: int, rng: np.random.Generator) -> np.ndarray:
    """Weights whose spread is beyond 2**31 (or subnormal ones)."""
    w = np.ones(n)
    if kind == "1e9":
        w[::3] = 1e9
    elif kind == "2**40":
        w[5] = 2.0**40
    elif kind == "1e15":
        w = rng.uniform(0.5, 1.5, n)
        w[7] = 1e15
    elif kind == "subnormal":
        w = np.where(np.arange(n) % 2 == 0, 5e-324, 1e-310)
    elif kind == "equal_subnormal":
        w = np.full(n, 5e-324)
    return w


def spread_problem(kind: str, seed: int, **fields) -> Problem:
    rng = np.random.default_rng(seed)
    base = random_problem(rng, n=24, m=4)
    return Problem(
        base.X,
        base.y,
        base.groups == 0,
        sample_weight=spread_weights(kind, 24, rng),
        max_length=2,
        **fields,
    )


def solve_quietly(problem: Problem, engine: str):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return solve(problem, engine)


@pytest.mark.parametrize("engine", list(ENGINES))
@pytest.mark.parametrize("kind", SPREADS)
@pytest.mark.parametrize("metric", ZERO_METRICS, ids=lambda m: m.short_name)
@pytest.mark.parametrize("epsilon", [0.0, 0.05])
def test_spread_weights_give_a_fair_list_within_the_proven_margin(engine, kind, metric, epsilon):
    for seed in range(3):
        problem = spread_problem(kind, seed, metric=metric, epsilon=epsilon, lam=0.01)
        result = solve_quietly(problem, engine)
        ref = reference_solve(problem, 2)
        context = (engine, kind, metric.short_name, epsilon, seed, result.stats)
        assert math.isfinite(ref.objective), context  # the constant list is fair
        assert result.status in (Status.OPTIMAL, Status.FEASIBLE), context
        assert result.rule_list is not None, context
        ev = problem.evaluate(result.rule_list)
        assert ev.fair, context
        assert abs(ev.objective - result.objective) <= 1e-12, context
        # brute force lies within the proven margin: lower bound <= optimum <= objective
        assert result.lower_bound <= ref.objective + 1e-12, context
        assert ref.objective <= result.objective + 1e-12, context


@pytest.mark.parametrize("engine", list(ENGINES))
@pytest.mark.parametrize(
    "metric",
    [Metric.PREDICTIVE_PARITY, Metric.CONDITIONAL_USE_ACCURACY_EQUALITY],
    ids=lambda m: m.short_name,
)
@pytest.mark.parametrize("kind", ["1e9", "2**40"])
def test_spread_weights_never_claim_infeasibility_under_ratio_metrics(engine, metric, kind):
    """PP and CUAE: the rounded problem proves nothing, so never ``infeasible``; a list that
    comes back is fair, and one comes back whenever a constant list is fair."""
    for seed in range(3):
        problem = spread_problem(kind, seed, metric=metric, epsilon=0.1, lam=0.01)
        result = solve_quietly(problem, engine)
        ref = reference_solve(problem, 2)
        context = (engine, kind, metric.short_name, seed, result.stats)
        assert result.status is not Status.INFEASIBLE, context
        assert result.lower_bound <= ref.objective + 1e-12, context
        if result.rule_list is not None:
            assert problem.evaluate(result.rule_list).fair, context
            assert ref.objective <= result.objective + 1e-12, context
        constant_fair = any(problem.evaluate(problem.rule_list([], [], q)).fair for q in (0, 1))
        assert result.rule_list is not None or not constant_fair, context


@pytest.mark.parametrize("engine", list(ENGINES))
@pytest.mark.parametrize("kind", ["1e9", "2**40", "1e15"])
def test_the_estimator_fits_with_spread_weights(engine, kind):
    """The issue's report: fit raised InfeasibleError ("found no fair rule list ...")."""
    rng = np.random.default_rng(3)
    n = 60
    X = rng.integers(0, 2, size=(n, 4))
    sensitive = rng.integers(0, 2, size=n)
    y = (X[:, 0] ^ (rng.random(n) < 0.2)).astype(int)
    w = spread_weights(kind, n, rng)
    clf = FairRuleListClassifier(
        engine=engine,
        metric="statistical_parity",
        epsilon=0.02,
        max_length=2,
        binarizer=None,
        time_limit=30,
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        clf.fit(X, y, sensitive_features=sensitive, sample_weight=w)
    assert clf.result_.rule_list is not None and clf.result_.unfairness <= 0.02 + 1e-9


@pytest.mark.parametrize("metric", list(Metric), ids=lambda m: m.short_name)
@pytest.mark.parametrize("kind", ["1e9", "1e15", "real"])
def test_the_margin_bounds_every_change_of_unfairness(metric, kind):
    """cap_margin is a proven bound: the unfairness of any predictions on the rounded weights
    lies within it of their unfairness on the true weights."""
    rng = np.random.default_rng(11)
    n = 40
    w = rng.uniform(0.05, 3.0, n) if kind == "real" else spread_weights(kind, n, rng)
    if kind != "real":
        w[:4] = w.max()  # both groups, both labels hold a large weight below
    base = random_problem(rng, n=n, m=3)
    y, groups = base.y.copy(), (base.groups == 0).astype(np.int64)
    y[:4], groups[:4] = [0, 1, 0, 1], [0, 0, 1, 1]
    problem = Problem(base.X, y, groups == 1, sample_weight=w, metric=metric)
    rounded = rounded_weights(w, WEIGHT_LIMIT)
    margin = cap_margin(
        rounded, w, problem.y, problem.groups, problem.n_groups, METRIC_RATES[metric]
    )
    if kind == "real" or metric in ZERO_METRICS:
        # every (group, label) cell holds a large weight; PP and CUAE take the largest
        # relative error, 1 when a weight rounds to 0
        assert margin < 1e-6
    as_rounded = problem.replace(sample_weight=rounded.values.astype(np.float64))
    for _ in range(300):
        pred = (rng.random(n) < rng.uniform(0, 1)).astype(np.int64)
        change = abs(reference_unfairness(as_rounded, pred) - reference_unfairness(problem, pred))
        assert change <= float(margin) * (1 + 1e-9) + 1e-15


def test_a_cell_of_weights_rounded_to_zero_leaves_no_room_but_no_false_answer():
    """2**40 in one group: the other group's weights all round to 0, the margin is at least 1
    (nothing can be shown fair by the rounded counts) and the engines fall back on the
    constant list, fair for the true weights. The search with the raised cap (no cap: the
    margin is at least 1) bounds every list, so the constant list is optimal within the
    objectives' rounding (the weights of 1 weigh 2**-40 each)."""
    problem = spread_problem("2**40", 0, metric="SP", epsilon=0.05, lam=0.01)
    weights = integer_weights(problem)
    assert not weights.exact and weights.rho == 1
    assert fairness_cap(problem, weights) < 0
    for engine in ENGINES:
        result = solve_quietly(problem, engine)
        assert result.stats["fair_constant"], engine
        assert result.status is Status.OPTIMAL, (engine, result.stats.get("certificate"))
        assert 0 <= result.certified_tolerance <= rounding_tolerance(result), engine
        assert result.rule_list.length == 0 and problem.evaluate(result.rule_list).fair


@pytest.mark.parametrize("engine", list(ENGINES))
@pytest.mark.parametrize("metric", ["SP", "EOpp", "PE"])
def test_the_raised_cap_bounds_the_optimum_from_below(engine, metric):
    """Real-valued weights are rounded; the search with the cap raised by the margin proves a
    lower bound (weights.bound_from_above): brute force lies between it and the objective,
    and when the answer is the optimum the two lie within 1e-6 (they were 0 and the objective)."""
    from reference import random_group_problem

    rng = np.random.default_rng(21)
    tight = 0
    for i in range(8):
        problem = random_group_problem(
            rng,
            n=30,
            m=4,
            k=2 + i % 2,
            weights="real",
            metric=metric,
            epsilon=(0.05, 0.1)[i % 2],
            lam=0.01,
            max_length=2,
        )
        result = solve_quietly(problem, engine)
        ref = reference_solve(problem, 2)
        context = (engine, metric, i, result.stats)
        assert not result.stats["weights_exact"], context
        assert result.rule_list is not None and problem.evaluate(result.rule_list).fair, context
        assert result.lower_bound <= ref.objective + 1e-12 <= result.objective + 2e-12, context
        if abs(result.objective - ref.objective) <= 1e-12:
            assert result.objective - result.lower_bound < 1e-6, context
            tight += 1
    assert tight >= 6


@pytest.mark.parametrize("seed", range(4))
def test_the_raised_cap_proves_infeasibility_for_the_true_weights(seed):
    """CUAE at epsilon 0 with real weights: brute force finds no fair list, and the search with
    the raised cap proves it (it was "unknown")."""
    from reference import random_group_problem

    rng = np.random.default_rng(300 + seed)
    problem = random_group_problem(
        rng, n=30, m=4, k=3, weights="real", metric="CUAE", epsilon=0.0, lam=0.01, max_length=2
    )
    assert math.isinf(reference_solve(problem, 2).objective)
    result = solve_quietly(problem, "bnb")
    assert result.status is Status.INFEASIBLE and result.rule_list is None


# ------------------------------------------------------------------ real weights: certificates
def rounding_tolerance(result) -> float:
    """The most a certificate of rounded weights may leave open and still say ``optimal``
    (weights._certify): twice the objectives' rounding ``eta``, with its float allowance."""
    return 2 * result.stats["weight_error_ratio"] * (1 + 2.0**-30) + 2.0**-40


def assert_honest(problem, result, ref, context) -> None:
    """Brute force lies between the lower bound and the objective; an ``optimal`` result says
    within what tolerance, and no fair list lies below ``objective - certified_tolerance``."""
    assert result.lower_bound <= ref.objective + 1e-12, context
    if result.rule_list is None:  # unknown: CP-SAT's conservative cap proves nothing
        assert result.status in (Status.INFEASIBLE, Status.UNKNOWN), context
        assert math.isinf(ref.objective) or result.status is Status.UNKNOWN, context
        return
    assert problem.evaluate(result.rule_list).fair, context
    assert ref.objective <= result.objective + 1e-12, context
    if result.status is Status.OPTIMAL:
        tol = result.certified_tolerance
        assert 0 <= tol <= rounding_tolerance(result), context
        assert result.lower_bound == pytest.approx(result.objective - tol, abs=1e-15), context
        assert result.objective - tol <= ref.objective + 1e-12, context
        assert result.stats["certificate"].startswith("optimal"), context
    else:
        assert result.certified_tolerance is None and result.stats["certificate"], context


@pytest.mark.parametrize("n_jobs", [1, 2])
@pytest.mark.parametrize("engine", list(ENGINES))
def test_real_weights_are_certified_within_the_rounding_against_brute_force(engine, n_jobs):
    """Issue 37: real-valued weights (reweighing's kind) were never certified, even when the
    completed search had found the optimum. Bounded from both sides, the rounded problem proves
    the list optimal within twice the objectives' rounding (about 1e-8 here); brute force
    agrees. CP-SAT's cap is conservative for some metrics (stats["epsilon_exact"]): there its
    raised search bounds nothing, the status stays feasible and the certificate says why.
    n_jobs: the parallel branch-and-bound, or CP-SAT's workers."""
    from reference import random_group_problem

    options = {"n_jobs": n_jobs} if engine == "bnb" else {"num_workers": n_jobs}
    certified = 0
    for seed in range(12):
        rng = np.random.default_rng(seed)
        metric = ("SP", "EOpp", "PE", "EOdds", "PP", "CUAE")[seed % 6]
        problem = random_group_problem(
            rng,
            n=30,
            m=4,
            k=2 + seed % 3,
            weights="real",
            metric=metric,
            epsilon=float(rng.uniform(0, 0.3)),
            lam=0.01,
            max_length=2,
        )
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            result = solve(problem, engine, **options)
        ref = reference_solve(problem, 2)
        context = (engine, n_jobs, seed, metric, result.status, result.stats.get("certificate"))
        assert not result.stats["weights_exact"], context
        assert_honest(problem, result, ref, context)
        if result.stats.get("epsilon_exact", True) and result.rule_list is not None:
            assert result.status is Status.OPTIMAL, context
            assert result.certified_tolerance > 0, context  # the rounding leaves a little
            certified += 1
        elif result.rule_list is not None:
            assert "conservative" in result.stats["certificate"], context
    assert certified >= 6


@pytest.mark.parametrize("engine", list(ENGINES))
def test_real_weights_without_a_cap_are_optimal_within_the_rounding(engine):
    from reference import random_group_problem

    for seed in range(3):
        problem = random_group_problem(
            np.random.default_rng(50 + seed),
            n=30,
            m=4,
            k=2,
            weights="real",
            lam=0.01,
            max_length=2,
        )
        result = solve_quietly(problem, engine)
        ref = reference_solve(problem, 2)
        context = (engine, seed, result.stats.get("certificate"))
        assert result.status is Status.OPTIMAL, context
        assert_honest(problem, result, ref, context)
        assert result.objective == pytest.approx(ref.objective, abs=1e-12), context


def boundary_problem(seed: int, offset: str):
    """A problem whose unconstrained optimum L has true unfairness u, with the cap at u
    ("at": L is fair, but its rounded unfairness lies within the margin of the cap, so the
    search with the lowered cap cannot take it) or just below u + tolerance ("above": L is
    unfair, yet the search with the raised cap admits it: the margin leaves a gap)."""
    from reference import random_group_problem

    from fairlist.metrics import FEASIBILITY_TOL
    from fairlist.solvers.bnb import engine_weights

    base = random_group_problem(
        np.random.default_rng(seed),
        n=30,
        m=4,
        k=2,
        weights="real",
        metric="SP",
        lam=0.01,
        max_length=2,
    )
    unfairness = base.evaluate(reference_solve(base, 2).rule_list).unfairness
    margin = engine_weights(base.replace(epsilon=0.1)).margin
    if offset == "at":
        return base.replace(epsilon=unfairness)
    return base.replace(epsilon=unfairness - FEASIBILITY_TOL - margin / 2)


@pytest.mark.parametrize("engine", list(ENGINES))
@pytest.mark.parametrize("seed", range(3))
def test_a_fair_list_within_the_margin_of_the_cap_is_found_by_the_raised_search(engine, seed):
    """The optimum lies on the cap: the lowered cap excludes it, the raised search finds it,
    and it is fair for the true weights, so it is returned and certified."""
    problem = boundary_problem(seed, "at")
    result = solve_quietly(problem, engine)
    ref = reference_solve(problem, 2)
    context = (engine, seed, result.stats.get("certificate"))
    assert result.stats.get("raised_cap_list"), context
    assert result.status is Status.OPTIMAL, context
    assert result.objective == pytest.approx(ref.objective, abs=1e-12), context
    assert_honest(problem, result, ref, context)


@pytest.mark.parametrize("engine", list(ENGINES))
@pytest.mark.parametrize("seed", range(3))
def test_a_gap_the_margin_leaves_is_feasible_and_explained(engine, seed):
    """An unfair list within the margin of the cap beats every fair one under the raised cap:
    the rounded counts cannot rule it out, the status stays feasible, and the certificate
    names the margin and the decimals to which the weights can be rounded to be read exactly
    (and those weights are then certified exactly)."""
    problem = boundary_problem(seed, "above")
    result = solve_quietly(problem, engine)
    ref = reference_solve(problem, 2)
    context = (engine, seed, result.stats.get("certificate"))
    assert result.status is Status.FEASIBLE and result.stop_reason.value == "completed", context
    assert result.objective - result.lower_bound > rounding_tolerance(result), context
    assert "rounding margin" in result.stats["certificate"], context
    assert_honest(problem, result, ref, context)
    decimals = int(result.stats["certificate"].split("numpy.round(sample_weight, ")[1][0])
    rounded = problem.replace(sample_weight=np.round(problem.sample_weight, decimals))
    exact = solve_quietly(rounded, engine)
    assert exact.stats["weights_exact"] and exact.status is Status.OPTIMAL, context
    assert exact.certified_tolerance == 0 and "certificate" not in exact.stats, context


def test_the_estimator_states_the_tolerance_and_explains_a_gap():
    from sklearn.exceptions import ConvergenceWarning

    problem = boundary_problem(0, "above")
    X, y, w = problem.X, problem.y, problem.sample_weight
    kwargs = dict(metric="SP", lam=0.01, max_length=2, binarizer=None, time_limit=30)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # small groups
        clf = FairRuleListClassifier(epsilon=0.3, **kwargs)
        clf.fit(X, y, sensitive_features=problem.groups, sample_weight=w)
    assert clf.status_ is Status.OPTIMAL and 0 < clf.certified_tolerance_ < 1e-6
    assert clf.gap_ == pytest.approx(clf.certified_tolerance_)
    with pytest.warns(ConvergenceWarning, match="rounding margin"):
        clf = FairRuleListClassifier(epsilon=problem.epsilon, **kwargs)
        clf.fit(X, y, sensitive_features=problem.groups, sample_weight=w)
    assert clf.status_ is Status.FEASIBLE and clf.certified_tolerance_ is None


def test_cpsat_finds_the_optimum_with_exact_weights_of_four_decimals():
    """CP-SAT once said optimal 0.3203 here (brute force and bnb: 0.2718, unfairness 0.129 <=
    0.14): its presolve dropped fair lists from rows with coefficients past 2**31
    (fairlist.solvers.cpsat_model.guard_presolve)."""
    from reference import random_group_problem

    base = random_group_problem(
        np.random.default_rng(4),
        n=30,
        m=4,
        k=2,
        weights="real",
        metric="SP",
        lam=0.01,
        max_length=2,
    )
    problem = base.replace(sample_weight=np.round(base.sample_weight, 4), epsilon=0.14)
    result = solve_quietly(problem, "cpsat")
    assert result.stats["weights_exact"]
    assert result.objective == pytest.approx(reference_solve(problem, 2).objective, abs=1e-12)
