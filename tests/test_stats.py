"""The search's statistics (``fairlist::Stats``, native/include/fairlist/result.hpp) survive
threads: a parallel search's counters are the sums of its workers' (``Stats::operator+=``).

The fields come from the native result itself, so a new field is covered without editing this
file: it must be summed unless it is listed below among the fields that are not (and the header
must list it in the same category).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from test_bnb import SWITCHES

from fairlist import _core
from fairlist.solvers import Status
from fairlist.solvers.bnb import BnBSolver

#: Stats' fields that are not counters (result.hpp): the largest value, or set once.
PEAKS = {"peak_trie_size", "peak_queue_size", "peak_memory_bytes"}
SET_ONCE = {
    "worker_memory_bytes",
    "beam_objective",
    "beam_seconds",
    "certified_length",
    "seconds",
    "n_rows",
    "n_classes",
}
#: Counters of the shared frontier's lock: 0 in the serial search.
PARALLEL_ONLY = {"frontier_locks", "frontier_lock_seconds", "frontier_wait_seconds"}

HEADER = Path(__file__).parents[1] / "native" / "include" / "fairlist" / "result.hpp"


class RawStats(BnBSolver):
    """BnBSolver keeping the native ``Stats`` dict of its last search in ``raw_stats``."""

    def _run(self, search, deadline=None):
        raw = super()._run(search, deadline)
        self.raw_stats = dict(raw["stats"])
        return raw


def native_stats(problem, **options):
    solver = RawStats(**options)
    result = solver.solve(problem)
    assert result.status is Status.OPTIMAL
    return solver.raw_stats


def counters(stats):
    return sorted(set(stats) - PEAKS - SET_ONCE)


def header_kinds():
    """Each field's KIND in result.hpp's list FAIRLIST_STATS_FIELDS (SUM, MAX or ONCE)."""
    fields = re.findall(r"^\s*X\((\w+), [\w:]+, (\w+)\)", HEADER.read_text(), re.M)
    return {name: kind for kind, name in fields}


def test_the_header_the_binding_and_this_file_list_the_same_fields(compas_single):
    """Every field of result.hpp's list reaches Python (_core.pxd's Stats), and the header
    gives each the kind this file does."""
    stats = native_stats(compas_single.replace(max_length=1))
    kinds = header_kinds()
    assert sorted(kinds) == sorted(stats)
    assert {name for name in kinds if kinds[name] == "MAX"} == PEAKS
    assert {name for name in kinds if kinds[name] == "ONCE"} == SET_ONCE
    assert {name for name in kinds if kinds[name] == "SUM"} == set(counters(stats))


def test_adding_stats_sums_every_counter(compas_single):
    """Stats::operator+= on two records of distinct values: each counter is the sum, each peak
    the larger, each field set once the left operand's."""
    names = sorted(native_stats(compas_single.replace(max_length=1)))
    a = {name: 1 + i for i, name in enumerate(names)}
    b = {name: 1000 * (1 + i) if name not in PEAKS else 0 for i, name in enumerate(names)}
    total = _core._add_stats(a, b)
    assert sorted(total) == names
    for name in counters(a):
        assert total[name] == a[name] + b[name], name
    for name in PEAKS:
        assert total[name] == a[name]
        assert _core._add_stats(b, a)[name] == a[name], name
    for name in SET_ONCE:
        assert total[name] == a[name], name


def test_every_counter_of_an_exhaustive_search_is_the_same_on_two_threads(compas_single):
    """No bound, no map, no beam, lam 0: the search expands every prefix of up to four rules
    (16,288 nodes) in any order, so the node counts are the same on one thread and two.  A
    counter dropped from the sum would keep one worker's share: both take part at this size
    (checked by dropping children_evaluated: 75k-112k of 165k), and three runs make a run where
    one worker did everything unlikely."""
    problem = compas_single.replace(lam=0.0, max_length=5)
    options = dict.fromkeys(SWITCHES, False) | {"beam_width": 0}
    one = native_stats(problem, n_jobs=1, **options)
    for _ in range(3):
        two = native_stats(problem, n_jobs=2, **options)
        for name in ("nodes_expanded", "children_evaluated", "nodes_created"):
            assert one[name] == two[name] > 10_000, name
        for name in counters(one):
            assert (one[name] != 0) <= (two[name] != 0), name
        for name in PARALLEL_ONLY:
            assert one[name] == 0 and two[name] > 0, name


@pytest.mark.parametrize(
    ("case", "options"),
    [
        (dict(metric="SP", epsilon=0.05, max_length=3), {}),
        (dict(metric="SP", epsilon=0.05, max_length=3), {"use_terminal_solver": False}),
        (dict(max_length=3), {}),
        (dict(max_length=3), {"use_terminal_solver": False}),
    ],
)
def test_every_counter_nonzero_on_one_thread_is_nonzero_on_two(compas, case, options):
    """COMPAS (163 antecedents) with and without a constraint and the terminal solver: what the
    serial search counts, the parallel one counts too; the pair counts that do not depend on the
    order of the search agree."""
    problem = compas.replace(lam=0.005, **case)
    one = native_stats(problem, n_jobs=1, **options)
    two = native_stats(problem, n_jobs=2, **options)
    for name in counters(one):
        if name not in PARALLEL_ONLY:
            assert (one[name] != 0) <= (two[name] != 0), (name, one[name], two[name])
    for name in PARALLEL_ONLY:
        assert one[name] == 0 and two[name] > 0, name
    assert two["nodes_expanded"] > 0.5 * one["nodes_expanded"]
    assert two["children_evaluated"] > 0.5 * one["children_evaluated"]
