"""A node budget bounds length deepening's phases too (issue 36).

A deepening phase finishes the prefixes two rules short of its cap by counting, so its trie
stays small: ``Limits.max_nodes`` counts, besides the live trie, the nodes the phases expanded
or finished by counting (``Stats.nodes_expanded``; ``Search::budget_spent`` in
native/src/search.cpp). The budget is checked before each pop, so a phase ends at most one
node's count past it per worker: the node and its children finished by counting
(``SLACK``). Stopped inside a phase, the result is the best list so far, status feasible, and
its lower bound stays below the optimum over every length (brute force, ``tests/reference.py``).
"""

from __future__ import annotations

import numpy as np
import pytest
from reference import random_problem, reference_solve

from fairlist.metrics import Metric
from fairlist.solvers import Limits, Status, StopReason
from fairlist.solvers.bnb import BnBSolver
from fairlist.solvers.deepening import EVERY_LENGTH


def slack(n_antecedents: int, n_jobs: int) -> int:
    """How far past the budget the nodes expanded may end: per worker, the node popped just
    before the budget was reached and the children it finished by counting (two labels per
    antecedent)."""
    return n_jobs * (2 * n_antecedents + 1)


@pytest.mark.parametrize("n_jobs", [1, 2])
def test_a_node_budget_stops_compas_inside_a_deepening_phase(compas, n_jobs):
    """COMPAS, SP 0.05, lambda 0.02: deepening every length certifies the optimum in 2,938
    nodes expanded or finished with a trie of at most 209 nodes, so a budget of 1,000 nodes
    (the trie alone never reached it: the search was certified) now stops it in a phase, within
    the slack, with the list found so far and a bound below the optimum."""
    problem = compas.replace(metric="SP", epsilon=0.05, lam=0.02)
    solver = BnBSolver(deepen_length=EVERY_LENGTH, n_jobs=n_jobs)
    full = solver.solve(problem.replace(limits=Limits(time_limit=60)))
    assert full.status is Status.OPTIMAL
    assert full.stats["nodes_expanded"] > 2_000 and full.stats["peak_trie_size"] < 1_000
    budget = 1_000
    cut = solver.solve(problem.replace(limits=Limits(max_nodes=budget, time_limit=60)))
    assert cut.status is Status.FEASIBLE
    assert cut.stop_reason is StopReason.NODE_LIMIT
    assert budget <= cut.stats["nodes_expanded"] + cut.stats["peak_trie_size"]
    assert cut.stats["nodes_expanded"] <= budget + slack(problem.X.shape[1], n_jobs)
    assert 0 < cut.stats["certified_length"] < full.stats["certified_length"]
    assert cut.lower_bound <= full.objective + 1e-12
    assert cut.objective >= full.objective - 1e-12
    # Deterministic on one thread: the same budget, the same run.
    if n_jobs == 1:
        again = solver.solve(problem.replace(limits=Limits(max_nodes=budget, time_limit=60)))
        assert again.stats["nodes_expanded"] == cut.stats["nodes_expanded"]
        assert again.lower_bound == cut.lower_bound and again.objective == cut.objective


@pytest.mark.parametrize("n_jobs", [1, 2])
def test_a_budget_cut_phase_keeps_a_valid_bound_and_the_certified_lengths(n_jobs):
    """Random problems without a cap, deepened through every length, stopped by budgets from
    a few nodes to past the certificate: the nodes expanded stay within budget + slack, the
    lower bound never passes the brute-force optimum (every length), the list beats every list
    of at most ``certified_length`` rules, and a stopped run is feasible (a list is known: the
    constant ones are offered first)."""
    rng = np.random.default_rng(36)
    inside = 0
    for trial in range(12):
        m = 5
        problem = random_problem(
            rng,
            n=60,
            m=m,
            metric=list(Metric)[trial % 6],
            epsilon=(None, 0.1, 0.2)[trial % 3],
            lam=(0.005, 0.01, 0.02)[trial % 3],
            max_length=None,
        )
        optimum = reference_solve(problem, m).objective
        if not np.isfinite(optimum):
            continue
        for budget in (2, 5, 12, 30, 80, 200):
            limited = problem.replace(limits=Limits(max_nodes=budget))
            result = BnBSolver(deepen_length=EVERY_LENGTH, beam_width=0, n_jobs=n_jobs).solve(
                limited
            )
            context = (trial, budget)
            assert result.stats["nodes_expanded"] <= budget + slack(m, n_jobs), context
            assert result.lower_bound <= optimum + 1e-9, context
            certified = result.stats["certified_length"]
            if result.status is Status.OPTIMAL:
                assert result.objective == pytest.approx(optimum, abs=1e-9), context
                continue
            assert result.status is Status.FEASIBLE, context
            assert result.stop_reason is StopReason.NODE_LIMIT, context
            inside += certified < m - 1  # stopped in a phase, not in the search after them
            if certified:
                best_short = reference_solve(problem, certified).objective
                assert result.objective <= best_short + 1e-9, context
    assert inside > 10  # the budgets did stop phases
