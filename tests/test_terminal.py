"""The terminal solver and the anytime gap: exact against brute force and CP-SAT.

The terminal solver (``native/src/terminal_solver.cpp``) finishes every prefix two rules short
of the length cap by counting. These tests run the branch-and-bound with it on and off against
``tests/reference.py``'s enumeration: every metric, both search spaces, length caps 2-4 and
length deepening, two groups with and without integer weights (where it runs: they check that
it does) and k > 2 groups or a total weight of 2^31 or more (where it switches itself off:
they check that too). The gap tolerance: a search stopped at the gap certifies
``objective - lower_bound <= tolerance`` and ``lower_bound <= optimum``.
"""

from __future__ import annotations

import functools
import json
import math
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from reference import (
    CanonicalSerial,
    assert_certifies,
    random_group_problem,
    random_problem,
    reference_solve,
)

from fairlist.metrics import Metric
from fairlist.solvers import Limits, Problem, Status, StopReason
from fairlist.solvers.bnb import BnBSolver

METRICS = tuple(Metric)
EPSILONS = (None, 0.0, 0.03, 0.12)
LAMBDAS = (0.0, 0.005, 0.02)


@functools.cache
def instance(seed: int) -> Problem:
    """A random two-group problem; the seed fixes the metric, cap, penalty, length cap and
    whether the samples carry integer weights."""
    rng = np.random.default_rng(5000 + seed)
    fields = dict(
        metric=METRICS[seed % 6],
        epsilon=EPSILONS[(seed // 6) % 4],
        lam=LAMBDAS[(seed // 24) % 3],
        max_length=(2, 3, 4)[seed % 3],
    )
    if seed % 4 == 3:  # integer weights (0 included), two groups
        return random_group_problem(
            rng, n=int(rng.integers(20, 40)), m=5, k=2, weights="integer", **fields
        )
    return random_problem(rng, n=int(rng.integers(20, 50)), m=int(rng.integers(4, 7)), **fields)


@functools.cache
def reference(seed: int, majority_only: bool):
    problem = instance(seed)
    return reference_solve(problem, problem.max_length, majority_only=majority_only)


def solve_both(problem: Problem, n_jobs: int = 1, **options):
    """The solve with the terminal solver on, then off, on ``n_jobs`` threads; with more than
    one, each list must be the serial search's with canonical ties (the same switches)."""
    results = []
    for terminal in (True, False):
        result = BnBSolver(use_terminal_solver=terminal, n_jobs=n_jobs, **options).solve(problem)
        if n_jobs > 1 and result.status is Status.OPTIMAL:
            serial = CanonicalSerial(use_terminal_solver=terminal, **options).solve(problem)
            assert result.rule_list == serial.rule_list, (n_jobs, terminal, options)
        results.append(result)
    return results


# The exactness suites below on one thread and on the parallel search's two and four (threads:
# they run on two cores), whose lists are also checked against the serial canonical ones.
N_JOBS = [1, 2, 4]


# ---------------------------------------------------------------------------- two groups
@pytest.mark.parametrize("n_jobs", N_JOBS)
@pytest.mark.parametrize("majority_only", [False, True], ids=["full", "majority"])
@pytest.mark.parametrize("chunk", range(4))
def test_terminal_solver_on_and_off_equal_brute_force(chunk, majority_only, n_jobs):
    ran = 0
    for seed in range(chunk, 72, 4):
        problem = instance(seed)
        ref = reference(seed, majority_only)
        on, off = solve_both(problem, n_jobs, majority_only=majority_only)
        for result, terminal in ((on, True), (off, False)):
            assert_certifies(problem, ref, result, (seed, majority_only, terminal))
        assert off.stats["terminal_prefixes"] == 0
        ran += on.stats["terminal_prefixes"] > 0
    assert ran > 0  # the solver ran (it finishes the root when the cap is 2)


@pytest.mark.parametrize("n_jobs", N_JOBS)
@pytest.mark.parametrize("deepen_length", [1, 2])
def test_terminal_solver_in_every_deepening_phase_equals_brute_force(deepen_length, n_jobs):
    for seed in range(0, 72, 5):
        problem = instance(seed)
        ref = reference(seed, False)
        for result in solve_both(problem, n_jobs, deepen_length=deepen_length):
            assert_certifies(problem, ref, result, (seed, deepen_length))


@pytest.mark.parametrize("n_jobs", N_JOBS)
@pytest.mark.parametrize("symmetry", [True, False], ids=["symmetry", "no-symmetry"])
@pytest.mark.parametrize("deepen_length", [0, 2])
def test_the_terminal_symmetry_on_and_off_equals_brute_force(deepen_length, symmetry, n_jobs):
    # use_terminal_symmetry skips, below a finished child Q + (j, q), the first rules (i, q)
    # whose sibling Q + (i, q) was finished before (terminal_solver.cpp): full space only.
    for seed in range(0, 72, 3):
        problem = instance(seed)
        ref = reference(seed, False)
        options = dict(use_terminal_symmetry=symmetry, deepen_length=deepen_length)
        for result in solve_both(problem, n_jobs, **options):
            assert_certifies(problem, ref, result, (seed, symmetry, deepen_length))


@pytest.mark.parametrize("n_jobs", N_JOBS)
@pytest.mark.parametrize("bitwise", [True, False], ids=["bitwise", "class-by-class"])
def test_class_pair_counts_on_and_off_equal_brute_force(bitwise, n_jobs):
    # use_class_pair_counts counts the unit classes' pair rows by popcounts (pair_counts.cpp);
    # on these small tables nearly every row and single count takes that path when on.
    for seed in range(1, 72, 3):
        problem = instance(seed)
        for majority_only in (False, True):
            ref = reference(seed, majority_only)
            options = dict(use_class_pair_counts=bitwise, majority_only=majority_only)
            for result in solve_both(problem, n_jobs, **options):
                assert_certifies(problem, ref, result, (seed, bitwise, majority_only))


def wide_problem(seed: int, n: int, m: int, max_length: int) -> Problem:
    """Many rows, most of them distinct (unit classes), some repeated (heavy classes)."""
    rng = np.random.default_rng(seed)
    base = random_problem(rng, n=n // 2, m=m)
    rows = np.concatenate([np.arange(n // 2), rng.integers(0, n // 2, size=n - n // 2)])
    return Problem(
        base.X[rows],
        base.y[rows],
        base.groups[rows] == 0,
        metric=Metric.parse("SP"),
        epsilon=0.05,
        lam=0.002,
        max_length=max_length,
    )


@pytest.mark.parametrize("seed", range(3))
def test_class_pair_counts_count_what_the_class_by_class_sums_count(seed):
    # The popcounts and the additions class by class are the same numbers: every decision of
    # the search, so its statistics, must agree, on sets of many words of unit and heavy classes.
    problem = wide_problem(31 + seed, n=3000, m=18, max_length=(3, 4, 4)[seed])
    runs = [
        BnBSolver(policy="lower_bound", use_class_pair_counts=bitwise).solve(problem)
        for bitwise in (True, False)
    ]
    on, off = runs
    assert on.status is Status.OPTIMAL and off.status is Status.OPTIMAL
    assert on.rule_list == off.rule_list and on.objective == off.objective
    assert on.stats["terminal_prefixes"] > 0
    for key in ("nodes_expanded", "terminal_prefixes", "terminal_lists", "children_evaluated"):
        assert on.stats[key] == off.stats[key], key


def test_class_pair_counts_scalar_kernel_counts_what_the_default_one_counts():
    # FAIRLIST_SCALAR_UNIT_COUNTS picks the scalar popcount kernel at load time (the AVX-512
    # one is the default where the processor has it): a fresh process with it set must search
    # alike, on the class-by-class counts' statistics.
    code = (
        "import json, sys; sys.path.insert(0, 'tests'); from test_terminal import *; "
        "p = wide_problem(32, n=3000, m=18, max_length=4); "
        "r = BnBSolver(policy='lower_bound').solve(p); "
        "print(json.dumps([r.objective, {k: r.stats[k] for k in "
        "('nodes_expanded', 'terminal_lists', 'children_evaluated')}]))"
    )
    root = Path(__file__).resolve().parents[1]
    env = {**os.environ, "FAIRLIST_SCALAR_UNIT_COUNTS": "1"}
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=root, env=env, capture_output=True, text=True, check=True
    ).stdout
    objective, stats = json.loads(out)
    off = BnBSolver(policy="lower_bound", use_class_pair_counts=False).solve(
        wide_problem(32, n=3000, m=18, max_length=4)
    )
    assert objective == off.objective
    assert stats == {k: off.stats[k] for k in stats}


@pytest.mark.parametrize("n_jobs", N_JOBS)
@pytest.mark.parametrize("policy", ["bfs", "lower_bound", "dfs", "bfs_objective_aware_lowest"])
def test_terminal_solver_under_every_kind_of_policy(policy, n_jobs):
    for seed in range(1, 72, 7):
        problem = instance(seed)
        for result in solve_both(problem, n_jobs, policy=policy, beam_width=0):
            assert_certifies(problem, reference(seed, False), result, (seed, policy))


def test_terminal_solver_runs_with_integer_weights_and_equals_duplicated_rows():
    rng = np.random.default_rng(11)
    for metric in METRICS:
        base = random_problem(rng, n=30, m=5, metric=metric, epsilon=0.05, lam=0.01, max_length=3)
        w = rng.integers(1, 4, size=base.n_samples)
        weighted = base.replace(sample_weight=w.astype(float))
        rows = np.repeat(np.arange(base.n_samples), w)
        duplicated = Problem(
            base.X[rows],
            base.y[rows],
            base.protected[rows],
            metric=metric,
            epsilon=0.05,
            lam=0.01,
            max_length=3,
        )
        a = BnBSolver().solve(weighted)
        b = BnBSolver(use_terminal_solver=False).solve(duplicated)
        assert a.stats["terminal_prefixes"] > 0
        assert a.status is b.status
        if a.status is Status.OPTIMAL:
            assert abs(a.objective - b.objective) <= 1e-12


# ---------------------------------------------------------------------------- switched off
def test_terminal_solver_switches_itself_off_with_more_than_two_groups():
    rng = np.random.default_rng(12)
    for i in range(12):
        problem = random_group_problem(
            rng,
            n=30,
            m=5,
            k=3 + i % 2,
            intersections=i % 3 == 2,
            weights=(None, "integer")[i % 2],
            metric=METRICS[i % 6],
            epsilon=(None, 0.05, 0.2)[i % 3],
            lam=0.01,
            max_length=3,
        )
        ref = reference_solve(problem, 3)
        for result in solve_both(problem):
            assert result.stats["terminal_prefixes"] == 0
            assert_certifies(problem, ref, result, i)


def test_terminal_solver_switches_itself_off_when_weights_could_overflow_its_counts():
    """Pair counts are 32-bit sums of weights: at a total weight of 2^31 (the engine's
    largest, fairlist.solvers.weights.WEIGHT_LIMIT) the search expands every prefix instead, and
    stays exact."""
    rng = np.random.default_rng(13)
    ran = 0
    for metric in METRICS:
        problem = random_problem(rng, n=40, m=6, metric=metric, epsilon=0.1, lam=0.0, max_length=3)
        small = rng.integers(1, 4, size=problem.n_samples).astype(float)
        ran += (
            BnBSolver().solve(problem.replace(sample_weight=small)).stats["terminal_prefixes"] > 0
        )
        w = rng.integers(1, 4, size=problem.n_samples) * 2**24
        w[0] = 1  # no common factor to divide out
        w[-1] += 2**31 - w.sum()
        huge = problem.replace(sample_weight=w.astype(float))
        assert huge.sample_weight.sum() == 2**31
        ref = reference_solve(huge, 3)
        for result in solve_both(huge):
            assert result.stats["weights_exact"]
            assert result.stats["terminal_prefixes"] == 0
            assert_certifies(huge, ref, result, metric)
    assert ran > 0


# ---------------------------------------------------------------------------- gap tolerance
@pytest.mark.parametrize("tolerance", [0.005, 0.02])
def test_gap_tolerance_certifies_the_gap_and_a_valid_lower_bound(tolerance):
    rng = np.random.default_rng(14)
    stopped = 0
    for i in range(12):
        problem = random_problem(
            rng,
            n=120,
            m=8,
            metric=METRICS[i % 6],
            epsilon=(0.02, 0.1, None)[i % 3],
            lam=0.002,
            max_length=3,
        )
        optimum = reference_solve(problem, 3).objective
        for terminal in (True, False):
            result = BnBSolver(use_terminal_solver=terminal, policy="bfs").solve(
                problem.with_limits(Limits(gap_tolerance=tolerance))
            )
            if math.isinf(optimum):
                assert result.status is Status.INFEASIBLE
                continue
            assert result.lower_bound <= optimum + 1e-12, (i, terminal)
            assert result.objective - result.lower_bound <= tolerance + 1e-12, (i, terminal)
            assert result.objective >= optimum - 1e-12
            if result.stop_reason is StopReason.GAP_LIMIT:
                stopped += 1
                assert result.status is Status.FEASIBLE
    assert stopped > 0


def test_limits_gap_tolerance_applies_to_the_branch_and_bound():
    rng = np.random.default_rng(15)
    problem = random_problem(rng, n=120, m=8, epsilon=0.05, lam=0.002, max_length=3)
    optimum = reference_solve(problem, 3).objective
    result = BnBSolver(policy="bfs").solve(problem.replace(limits=Limits(gap_tolerance=0.05)))
    assert result.objective - result.lower_bound <= 0.05 + 1e-12
    assert result.lower_bound <= optimum + 1e-12


# ---------------------------------------------------------------------------- wider sweeps
@pytest.mark.slow
@pytest.mark.parametrize("n_jobs", N_JOBS)
@pytest.mark.parametrize("metric", METRICS, ids=lambda m: m.short_name)
def test_terminal_solver_on_larger_instances_equals_brute_force(metric, n_jobs):
    rng = np.random.default_rng(9000 + int(metric))
    for i in range(40):
        problem = random_problem(
            rng,
            n=int(rng.integers(40, 120)),
            m=int(rng.integers(5, 8)),
            metric=metric,
            epsilon=(None, 0.0, 0.01, 0.05, 0.2)[i % 5],
            lam=(0.0, 0.003, 0.01)[i % 3],
            max_length=(3, 4)[i % 2],
        )
        for majority_only in (False, True):
            ref = reference_solve(problem, problem.max_length, majority_only=majority_only)
            for result in solve_both(
                problem, n_jobs, majority_only=majority_only, deepen_length=i % 3
            ):
                assert_certifies(problem, ref, result, (i, majority_only))


@pytest.mark.slow
@pytest.mark.parametrize("n_jobs", N_JOBS)
@pytest.mark.parametrize("metric", METRICS, ids=lambda m: m.short_name)
def test_terminal_solver_equals_cpsat_on_compas_subsamples(compas_published, metric, n_jobs):
    from reference import published_problem

    from fairlist.solvers.cpsat import CPSatSolver

    rng = np.random.default_rng(9100 + int(metric))
    for _ in range(2):
        rows = rng.choice(len(compas_published), 400, replace=False)
        antecedents = rng.choice(compas_published.shape[1] - 3, 14, replace=False)
        base = published_problem(
            compas_published, rows, antecedents, metric=metric, lam=0.005, max_length=3
        )
        for epsilon in (None, 0.02, 0.1):
            problem = base.replace(epsilon=epsilon)
            cps = CPSatSolver(num_workers=1).solve(problem)
            for result in solve_both(problem, n_jobs):
                assert result.status is cps.status
                if cps.status is Status.OPTIMAL:
                    assert abs(result.objective - cps.objective) <= 1e-9
