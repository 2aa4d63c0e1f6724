"""The cases that found the core's sanitizer reports (issue 37), run by .ci/tsan and .ci/sanitize.

* Threads with a small memory limit: the parallel search on COMPAS grows its trie past a few
  blocks of 65,536 nodes and stops at the memory limit. A worker read the trie's block table
  (``Trie::operator[]``, its bounds check in an assertion build) while another added a block
  (``Trie::reserve``): a data race under ThreadSanitizer; the table no longer moves or changes
  size (native/include/fairlist/trie.hpp).
* Many groups: the permutation map's key holds a count per group (two under EOdds, PP, CUAE),
  and ``map_hash`` shifted by 64 or more for a key of more than 32 counts (33+ groups, or 17+
  with two counts each): undefined behaviour under UBSan (native/src/expander.cpp).

Both also check the answer (a fair list, a valid bound; brute force for the groups), so they
test the engine in the plain build as well.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from reference import random_group_problem, reference_solve

from fairlist.solvers import Limits, Status, StopReason
from fairlist.solvers.bnb import BnBSolver

#: Trie::kBlockBits: nodes per block of the trie
BLOCK = 2**16


@pytest.mark.parametrize("memory_limit_mb", [12])
def test_threads_stop_at_a_small_memory_limit_with_a_fair_list(compas, memory_limit_mb):
    """The audit's case (n_jobs=2 and a memory limit of 60 MB on COMPAS) at 12 MB, past two
    blocks of the trie in a fraction of a second (1.4 million nodes take 2 CPU seconds)."""
    problem = compas.replace(
        metric="SP", epsilon=0.05, lam=0.001, limits=Limits(memory_limit_mb=memory_limit_mb)
    )
    result = BnBSolver(n_jobs=2).solve(problem)
    assert result.stop_reason is StopReason.MEMORY_LIMIT and result.status is Status.FEASIBLE
    assert result.stats["peak_trie_size"] > 2 * BLOCK  # the trie added blocks while searched
    ev = problem.evaluate(result.rule_list)
    assert ev.fair and abs(ev.objective - result.objective) <= 1e-9
    assert result.lower_bound <= result.objective


@pytest.mark.parametrize(
    ("metric", "k", "epsilon"),
    [("SP", 33, 0.5), ("PE", 40, 0.5), ("EOdds", 17, 0.5), ("PP", 17, 1.0), ("CUAE", 33, 1.5)],
)
@pytest.mark.parametrize("n_jobs", [1, 2])
def test_many_groups_certify_the_brute_force_optimum(metric, k, epsilon, n_jobs):
    """A key of more than 32 counts in the permutation map (k counts under SP and PE, 2k under
    EOdds, PP and CUAE), serial and on threads: the certificate is brute force's. The terminal
    solver is off so that the search expands prefixes (and hashes their keys)."""
    rng = np.random.default_rng(37 + k)
    problem = random_group_problem(
        rng, n=4 * k, m=6, k=k, metric=metric, epsilon=epsilon, lam=0.001, max_length=3
    )
    assert problem.n_groups == k
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # tiny groups
        result = BnBSolver(n_jobs=n_jobs, use_terminal_solver=False).solve(problem)
    ref = reference_solve(problem, 3)
    assert result.status is Status.OPTIMAL, (metric, k, result.stats)
    assert result.stats["children_evaluated"] > 0  # keys were hashed
    assert abs(result.objective - ref.objective) <= 1e-9, (metric, k)
    assert problem.evaluate(result.rule_list).fair
