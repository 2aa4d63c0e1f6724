"""The two-rule lookahead (``use_two_rule_lookahead``, ``native/include/fairlist/
short_completions.hpp``): a child whose lists of three or more further rules cannot beat the
incumbent is finished by counting instead of queued. Exact against brute force with it on and
off: every metric, both spaces, with and without a length cap (without one, problems of at most
five antecedents: no list has more rules, so ``reference_solve`` up to five rules is the
optimum), integer weights, length deepening, every policy and ``n_jobs`` 2 (canonical ties);
where the terminal solver does not run (three groups) it does nothing. The argument's inequality
is checked directly on random prefixes: a completion of three or more further rules costs at
least the prefix's captured errors, the fewest errors any labelling of its uncaptured classes
can make under the cap, and lam per rule.
"""

from __future__ import annotations

import functools
import itertools

import numpy as np
import pytest
from reference import (
    assert_certifies,
    random_group_problem,
    random_problem,
    reference_solve,
    reference_unfairness,
)

from fairlist.metrics import FEASIBILITY_TOL, Metric
from fairlist.solvers import Problem, Status
from fairlist.solvers.bnb import BnBSolver
from fairlist.solvers.cpsat import CPSatSolver

METRICS = tuple(Metric)
EPSILONS = (None, 0.03, 0.1)
# Penalties at which three more rules cost more than the gap, so the lookahead fires.
LAMBDAS = (0.01, 0.03, 0.06)


@functools.cache
def instance(seed: int) -> Problem:
    """A random two-group problem of at most five antecedents; no length cap unless seed % 5 is
    4 (cap 4 or 5), integer weights when seed % 7 is 6."""
    rng = np.random.default_rng(23_000 + seed)
    fields = dict(
        metric=METRICS[seed % len(METRICS)],
        epsilon=EPSILONS[(seed // 6) % 3],
        lam=LAMBDAS[(seed // 18) % 3],
        max_length=(4, 5)[seed % 2] if seed % 5 == 4 else None,
    )
    if seed % 7 == 6:
        return random_group_problem(rng, n=30, m=5, k=2, weights="integer", **fields)
    return random_problem(rng, n=int(rng.integers(25, 45)), m=5, **fields)


@functools.cache
def reference(seed: int, majority_only: bool):
    problem = instance(seed)
    return reference_solve(problem, problem.max_length or 5, majority_only=majority_only)


def certify(problem: Problem, ref, result, context) -> None:
    """assert_certifies, the length checked against one rule per antecedent (the longest list)
    without a cap."""
    capped = problem if problem.max_length else problem.replace(max_length=problem.n_antecedents)
    assert_certifies(capped, ref, result, context)


def solve_both(problem: Problem, **options):
    """The solve with the two-rule lookahead on, then off."""
    return [BnBSolver(use_two_rule_lookahead=t, **options).solve(problem) for t in (True, False)]


@pytest.mark.parametrize("majority_only", [False, True], ids=["full", "majority"])
@pytest.mark.parametrize("chunk", range(3))
def test_lookahead_on_and_off_equal_brute_force(chunk, majority_only):
    fired = 0
    for seed in range(chunk, 54, 3):
        problem, ref = instance(seed), reference(seed, majority_only)
        on, off = solve_both(problem, majority_only=majority_only, beam_width=0)
        for result, switch in ((on, True), (off, False)):
            certify(problem, ref, result, (seed, majority_only, switch))
        assert off.stats["lookahead_prefixes"] == 0
        assert on.stats["lookahead_prefixes"] <= on.stats["terminal_prefixes"]
        fired += on.stats["lookahead_prefixes"] > 0
    assert fired > 0  # the lookahead finished some children


@pytest.mark.parametrize(
    "options",
    [
        {"deepen_length": 1},
        {"deepen_length": 2},
        {"policy": "lower_bound"},
        {"policy": "dfs"},
        {"policy": "bfs_objective_aware_lowest"},
        {"n_jobs": 2},
    ],
    ids=lambda o: "-".join(f"{k}{v}" for k, v in o.items()),
)
def test_lookahead_under_deepening_policies_and_workers(options):
    for seed in range(1, 54, 5):
        problem = instance(seed)
        for result in solve_both(problem, beam_width=0, **options):
            certify(problem, reference(seed, False), result, (seed, options))


def test_lookahead_does_nothing_where_the_terminal_solver_does_not_run():
    rng = np.random.default_rng(231)
    for i in range(8):
        problem = random_group_problem(
            rng, n=24, m=4, k=3, metric=METRICS[i % 6], epsilon=0.1, lam=0.03
        )
        ref = reference_solve(problem, 4)
        on, off = solve_both(problem)
        assert on.stats["lookahead_prefixes"] == 0
        for result in (on, off):
            certify(problem, ref, result, i)
    problem = instance(0)
    result = BnBSolver(use_terminal_solver=False).solve(problem)
    assert result.stats["lookahead_prefixes"] == 0


# ---------------------------------------------------------------------------- the argument
def _lists(problem: Problem, prefix, more: int):
    """Every completion of ``prefix`` with exactly ``more`` further rules (distinct antecedents
    not in the prefix) and a default: (antecedents, predictions, default)."""
    used = {a for a, _ in prefix}
    free = [a for a in range(problem.n_antecedents) if a not in used]
    for ants in itertools.permutations(free, more):
        for preds in itertools.product((0, 1), repeat=more):
            for default in (0, 1):
                yield (
                    [a for a, _ in prefix] + list(ants),
                    [p for _, p in prefix] + list(preds),
                    default,
                )


def _predict(problem: Problem, ants, preds, default) -> np.ndarray:
    out = np.full(problem.n_samples, default, dtype=np.uint8)
    done = np.zeros(problem.n_samples, bool)
    for a, p in zip(ants, preds, strict=True):
        hit = (problem.X[:, a] == 1) & ~done
        out[hit] = p
        done |= hit
    return out


def _class_bound(problem: Problem, prefix) -> float | None:
    """The fewest errors of the prefix's captured samples plus its uncaptured classes (identical
    antecedent bits) labelled freely, one label each, under the cap (None: no fair labelling)."""
    ants, preds = [a for a, _ in prefix], [p for _, p in prefix]
    fixed = _predict(problem, ants, preds, 0)
    captured = np.zeros(problem.n_samples, bool)
    for a in ants:
        captured |= problem.X[:, a] == 1
    keys = [tuple(row) for row in problem.X[~captured]]
    classes = sorted(set(keys))
    rows = np.flatnonzero(~captured)
    best = None
    for labels in itertools.product((0, 1), repeat=len(classes)):
        pred = fixed.copy()
        of = dict(zip(classes, labels, strict=True))
        pred[rows] = [of[k] for k in keys]
        if problem.epsilon is not None and (
            reference_unfairness(problem, pred) > problem.epsilon + FEASIBILITY_TOL
        ):
            continue
        errors = float((pred != problem.y).sum())
        best = errors if best is None else min(best, errors)
    return best


@pytest.mark.parametrize("metric", METRICS)
def test_three_more_rules_cost_at_least_the_class_labelling_and_three_lams(metric):
    rng = np.random.default_rng(2323)
    checked = 0
    for _ in range(6):
        problem = random_problem(rng, n=20, m=4, metric=metric, epsilon=0.1, lam=0.02)
        for first in range(problem.n_antecedents):
            prefix = [(first, int(rng.integers(2)))]
            bound = _class_bound(problem, prefix)
            for more in (3,):
                for ants, preds, default in _lists(problem, prefix, more):
                    pred = _predict(problem, ants, preds, default)
                    if reference_unfairness(problem, pred) > problem.epsilon + FEASIBILITY_TOL:
                        continue
                    objective = (pred != problem.y).sum() / problem.n_samples + 0.02 * len(ants)
                    assert bound is not None
                    lower = bound / problem.n_samples + 0.02 * (len(prefix) + 3)
                    assert objective >= lower - 1e-12, (prefix, ants, preds, default)
                    checked += 1
    assert checked > 0


# ---------------------------------------------------------------------------- CP-SAT
@pytest.mark.parametrize("n_jobs", [1, 2])
@pytest.mark.parametrize("metric", METRICS, ids=lambda m: m.short_name)
def test_lookahead_on_and_off_agree_with_cpsat(metric, n_jobs):
    """Caps of 4 and 5 rules (the lookahead acts on children more than two rules short of the
    cap), both spaces; CP-SAT is the oracle."""
    rng = np.random.default_rng(2300 + int(metric))
    fired = 0
    for i in range(6):
        problem = random_problem(
            rng,
            n=int(rng.integers(20, 40)),
            m=5,
            metric=metric,
            epsilon=(None, 0.05, 0.15)[i % 3],
            lam=(0.01, 0.03)[i % 2],
            max_length=4 + i % 2,
        )
        majority_only = bool(i % 2)
        cps = CPSatSolver(num_workers=1, majority_only=majority_only).solve(problem)
        for switch in (True, False):
            bnb = BnBSolver(
                majority_only=majority_only, n_jobs=n_jobs, use_two_rule_lookahead=switch
            ).solve(problem)
            context = (i, switch, bnb.status, cps.status)
            assert bnb.status is cps.status, context
            if bnb.status is Status.OPTIMAL:
                assert abs(bnb.objective - cps.objective) <= 1e-9, context
            fired += bnb.stats["lookahead_prefixes"] > 0
    assert fired > 0
