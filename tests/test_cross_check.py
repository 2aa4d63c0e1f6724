"""Regression tests comparing the two exact engines (branch-and-bound and CP-SAT).

On the same problem and the same search space (same ``max_length``; full or majority labels)
both engines must return the same status and, when optimal, the same objective (within 1e-9),
and each returned rule list must be fair when re-evaluated with :mod:`fairlist.metrics`. Also
covers :func:`fairlist.verification.verify` and the CP-SAT warm start of the branch-and-bound.

The whole module is skipped while ``fairlist.solvers.bnb`` cannot be imported.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from reference import published_problem, random_problem, reference_solve

from fairlist.metrics import Metric, is_fair, unfairness
from fairlist.solvers import Problem, Status
from fairlist.solvers.bnb import BnBSolver
from fairlist.solvers.cpsat import CPSatSolver
from fairlist.solvers.warmstart import cpsat_incumbent, solve_with_warm_start
from fairlist.verification import VerifyReport, verify

METRICS = list(Metric)
EPSILONS = (None, 0.0, 0.01, 0.05, 0.1, 0.25)
LAMBDAS = (0.0, 0.004, 0.01, 0.03)


def assert_fair_by_metrics(problem: Problem, rule_list) -> None:
    pred = rule_list.predict(problem.X)
    value = unfairness(problem.y, pred, problem.protected, problem.metric)
    assert is_fair(value, problem.epsilon), (value, problem.epsilon, str(rule_list))


def assert_engines_agree(
    problem: Problem, majority_only: bool = False, n_jobs: int = 1, **options
) -> Status:
    """Both engines on ``problem`` (whose max_length is set) in the same space; the
    branch-and-bound on ``n_jobs`` threads, with ``options``."""
    assert problem.max_length is not None
    bnb = BnBSolver(majority_only=majority_only, n_jobs=n_jobs, **options).solve(problem)
    cps = CPSatSolver(num_workers=1, majority_only=majority_only).solve(problem)
    context = (problem.metric.short_name, problem.epsilon, problem.lam, problem.max_length)
    assert bnb.status in (Status.OPTIMAL, Status.INFEASIBLE), (bnb.status, context)
    assert cps.status is bnb.status, (cps.status, bnb.status, context)
    assert bnb.search_space == cps.search_space
    if bnb.status is Status.OPTIMAL:
        assert abs(bnb.objective - cps.objective) <= 1e-9, (bnb.objective, cps.objective, context)
        for res in (bnb, cps):
            assert res.rule_list.length <= problem.max_length
            assert_fair_by_metrics(problem, res.rule_list)
    else:
        assert bnb.rule_list is None and cps.rule_list is None
    return bnb.status


# ---------------------------------------------------------------- random small instances
@pytest.mark.parametrize("n_jobs", [1, 2, 4])
@pytest.mark.parametrize("metric", METRICS, ids=lambda m: m.short_name)
def test_engines_agree_on_random_small_instances(metric, n_jobs):
    rng = np.random.default_rng(4000 + int(metric))
    for _ in range(50):
        problem = random_problem(
            rng,
            n=int(rng.integers(8, 80)),
            m=int(rng.integers(1, 7)),
            metric=metric,
            epsilon=EPSILONS[rng.integers(len(EPSILONS))],
            lam=LAMBDAS[rng.integers(len(LAMBDAS))],
            max_length=int(rng.integers(0, 4)),
        )
        assert_engines_agree(problem, n_jobs=n_jobs)


@pytest.mark.parametrize("metric", METRICS, ids=lambda m: m.short_name)
def test_engines_agree_in_the_majority_space(metric):
    rng = np.random.default_rng(5000 + int(metric))
    for _ in range(25):
        problem = random_problem(
            rng,
            n=int(rng.integers(8, 80)),
            m=int(rng.integers(1, 6)),
            metric=metric,
            epsilon=EPSILONS[rng.integers(len(EPSILONS))],
            lam=LAMBDAS[rng.integers(len(LAMBDAS))],
            max_length=int(rng.integers(0, 4)),
        )
        assert_engines_agree(problem, majority_only=True)


def test_engines_and_brute_force_agree_on_infeasible_instances():
    rng = np.random.default_rng(6000)
    infeasible = 0
    for _ in range(60):
        problem = random_problem(rng, n=30, m=3, metric="CUAE", epsilon=0.0, max_length=2)
        status = assert_engines_agree(problem)
        assert (status is Status.INFEASIBLE) == (reference_solve(problem, 2).rule_list is None)
        infeasible += status is Status.INFEASIBLE
    assert infeasible >= 5


# ---------------------------------------------------------------- COMPAS subsamples
def compas_subsample(data, rng, n_rows=300, n_antecedents=12, **kwargs) -> Problem:
    """Random rows and antecedent columns of the published COMPAS table."""
    rows = rng.choice(len(data), n_rows, replace=False)
    antecedents = rng.choice(data.shape[1] - 3, n_antecedents, replace=False)
    return published_problem(data, rows, antecedents, **kwargs)


@pytest.mark.parametrize("metric", METRICS, ids=lambda m: m.short_name)
def test_engines_agree_on_compas_subsamples(compas_published, metric):
    rng = np.random.default_rng(7000 + int(metric))
    statuses = set()
    for _ in range(3):
        base = compas_subsample(compas_published, rng, metric=metric, lam=0.005, max_length=3)
        for epsilon in (None, 0.0, 0.02, 0.05, 0.1):
            statuses.add(assert_engines_agree(base.replace(epsilon=epsilon)))
    assert Status.OPTIMAL in statuses


@pytest.mark.parametrize("symmetry", [True, False], ids=["symmetry", "no-symmetry"])
@pytest.mark.parametrize("metric", METRICS, ids=lambda m: m.short_name)
def test_engines_agree_with_the_terminal_symmetry_on_and_off(compas_published, metric, symmetry):
    # use_terminal_symmetry (terminal_solver.cpp): at most 3 and 4 rules, where the terminal
    # solver finishes the root's children and their children, on one and two threads.
    rng = np.random.default_rng(7100 + int(metric))
    for max_length, n_jobs in ((3, 1), (4, 2)):
        base = compas_subsample(
            compas_published, rng, metric=metric, lam=0.005, max_length=max_length
        )
        for epsilon in (None, 0.02, 0.1):
            assert_engines_agree(
                base.replace(epsilon=epsilon), n_jobs=n_jobs, use_terminal_symmetry=symmetry
            )


# ---------------------------------------------------------------- verify
def test_verify_reports_agreement_with_both_rule_lists():
    problem = random_problem(np.random.default_rng(8000), n=60, m=5, metric="EOdds", epsilon=0.05)
    report = verify(problem, max_length=3, num_workers=1, policy="lower_bound")
    assert isinstance(report, VerifyReport)
    assert report.agree and report.conclusive and report.max_length == 3
    assert report.bnb.engine == "bnb" and report.cpsat.engine == "cpsat"
    assert abs(report.bnb.objective - report.cpsat.objective) <= 1e-9
    assert report.bnb.rule_list is not None and report.cpsat.rule_list is not None
    assert "agree" in report.message and "[cpsat]" in report.summary()


def test_verify_agrees_on_infeasibility():
    rng = np.random.default_rng(6000)
    for _ in range(60):
        problem = random_problem(rng, n=30, m=3, metric="CUAE", epsilon=0.0, max_length=2)
        if reference_solve(problem, 2).rule_list is None:
            report = verify(problem, num_workers=1)
            assert report.agree and report.bnb.status is Status.INFEASIBLE
            assert report.cpsat.status is Status.INFEASIBLE
            return
    pytest.fail("no infeasible instance generated")


def test_verify_uses_the_problem_or_lambda_length_bound_for_both_engines():
    problem = random_problem(np.random.default_rng(8001), n=40, m=4, metric="SP", epsilon=0.1)
    report = verify(problem, num_workers=1)
    assert report.bnb.rule_list.length <= report.max_length
    assert report.cpsat.stats["max_length"] == report.max_length
    assert verify(problem.replace(max_length=1), num_workers=1).max_length == 1


def test_verify_rejects_an_option_neither_engine_knows():
    problem = random_problem(np.random.default_rng(0), n=10, m=2)
    with pytest.raises(ValueError, match="bogus"):
        verify(problem, max_length=1, bogus=3)


# ---------------------------------------------------------------- warm start
def test_cpsat_incumbent_is_fair_and_fits_the_length_bound(compas_published):
    rng = np.random.default_rng(9000)
    problem = compas_subsample(
        compas_published, rng, metric="SP", epsilon=0.02, lam=0.005, max_length=3
    )
    incumbent = cpsat_incumbent(problem, seconds=2.0, num_workers=1)
    assert incumbent is not None and incumbent.length <= 3
    assert_fair_by_metrics(problem, incumbent)


def test_warm_started_bnb_reaches_the_same_optimum(compas_published):
    rng = np.random.default_rng(9001)
    problem = compas_subsample(
        compas_published, rng, metric="PP", epsilon=0.02, lam=0.005, max_length=3
    )
    cold = BnBSolver().solve(problem)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the incumbent must not be rejected
        warm = solve_with_warm_start(problem, seconds=2.0, num_workers=1)
    assert warm.status is Status.OPTIMAL and cold.status is Status.OPTIMAL
    assert abs(warm.objective - cold.objective) <= 1e-9
    assert warm.stats["warm_start"] == "used"
    assert warm.stats["warm_start_cpsat"]["status"] in ("optimal", "feasible")
    assert math.isfinite(warm.stats["total_seconds"])


def test_warm_start_in_the_majority_space_is_accepted(compas_published):
    rng = np.random.default_rng(9002)
    problem = compas_subsample(
        compas_published, rng, metric="EOpp", epsilon=0.05, lam=0.005, max_length=3
    )
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        warm = solve_with_warm_start(problem, seconds=2.0, num_workers=1, majority_only=True)
    cold = BnBSolver(majority_only=True).solve(problem)
    assert warm.search_space == "majority" and warm.stats["warm_start"] == "used"
    assert abs(warm.objective - cold.objective) <= 1e-9


def test_the_verify_function_is_not_shadowed_by_its_module():
    """Importing the module that holds ``verify`` leaves ``fairlist.verify`` the function (a
    module of that name bound itself over the lazy export)."""
    import importlib

    import fairlist

    importlib.import_module("fairlist.verification")
    from fairlist import VerifyReport
    from fairlist import verify as exported

    assert callable(exported) and exported.__name__ == "verify"
    assert VerifyReport.__name__ == "VerifyReport"
    for name in fairlist.__all__:  # no public name is a module
        assert not isinstance(getattr(fairlist, name), type(fairlist)), name
