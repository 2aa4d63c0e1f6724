"""The boundary between Python and the C++ core (``native/_core.pxd``) stays in sync by itself.

Cython converts the dicts of ``fairlist.solvers.bnb`` to the C++ structs and back, and generates
the Python enums from the C++ ones. What is still written twice is checked here: the fields each
struct declares in the headers and in ``_core.pxd``, the fields ``BnBSolver`` hands over, and the
public enums of ``fairlist.metrics`` and ``fairlist.solvers`` that mirror C++ ones.
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

from fairlist import _core
from fairlist.metrics import Metric
from fairlist.solvers import Limits, Status, StopReason
from fairlist.solvers.bnb import POLICIES, BnBSolver

NATIVE = Path(__file__).resolve().parents[1] / "native"
HEADERS = {
    "GroupConfusion": "counts.hpp",
    "Uncaptured": "counts.hpp",
    "FairnessBound": "fairness_bound.hpp",
    "ProblemSpec": "config.hpp",
    "Config": "config.hpp",
    "Diagnostics": "config.hpp",
    "Stats": "result.hpp",
    "Progress": "result.hpp",
    "SearchResult": "result.hpp",
}


def cpp_fields(header: str, struct: str) -> list[str]:
    """Data members of a plain C++ struct, in order (declarators split, initializers dropped)."""
    text = (NATIVE / "include" / "fairlist" / header).read_text()
    if struct == "Stats":  # declared by the X-macro list FAIRLIST_STATS_FIELDS
        return re.findall(r"^\s*X\(\w+, [\w:]+, (\w+)\)", text, re.M)
    start = re.search(rf"^struct {struct} \{{", text, re.M).end()
    depth, end = 1, start
    while depth:
        depth += {"{": 1, "}": -1}.get(text[end], 0)
        end += 1
    body = re.sub(r"//[^\n]*", "", text[start : end - 1])
    fields = []
    for statement in filter(str.strip, body.split(";")):
        for declarator in statement.split(","):
            fields.append(declarator.split("=")[0].split()[-1])
    return fields


def pxd_fields(struct: str) -> list[str]:
    """Fields of a ``cdef struct`` of _core.pxd, in order."""
    lines = (NATIVE / "_core.pxd").read_text().splitlines()
    first = lines.index(next(line for line in lines if line.strip() == f"cdef struct {struct}:"))
    fields = []
    for line in lines[first + 1 :]:
        code = line.split("#")[0]
        if not code.strip():
            continue
        if not code.startswith(" " * 8):
            break
        fields.append(code.split()[-1])
    return fields


@pytest.fixture(scope="module")
def sources() -> None:
    if not (NATIVE / "_core.pxd").is_file():
        pytest.skip("the native sources are not next to the tests")


@pytest.mark.parametrize("struct", list(HEADERS))
def test_the_pxd_declares_every_field_of_each_struct(sources, struct):
    """A field missing from _core.pxd would silently keep its C++ default."""
    assert pxd_fields(struct) == cpp_fields(HEADERS[struct], struct)


def test_the_solver_hands_over_every_config_field(sources):
    config = BnBSolver()._config(Limits(), None)
    assert sorted(config) == sorted(cpp_fields("config.hpp", "Config"))


def small_search_args():
    rng = np.random.default_rng(0)
    X = (rng.random((40, 4)) < 0.5).astype(np.uint8)
    y = (rng.random(40) < 0.5).astype(np.uint8)
    groups = rng.integers(0, 3, 40).astype(np.int32)
    weights = rng.integers(1, 4, 40).astype(np.int64)
    problem = {
        "metric": Metric.STATISTICAL_PARITY,
        "constrained": True,
        "epsilon": 0.1,
        "lam": 0.01,
    }
    return _core.pack_matrix(X), _core.pack_bits(y), groups, weights, 40, 3, problem


@pytest.mark.parametrize("field", ["beam_width", "policy", "seed", "n_jobs"])
def test_a_missing_config_field_is_named(field):
    config = BnBSolver()._config(Limits(), None)
    del config[field]
    with pytest.raises(ValueError, match=f"'{field}'"):
        _core.BranchAndBound(*small_search_args(), config)


def test_the_test_switches_are_apart_from_the_config_and_reach_the_core(sources):
    """fairlist::Diagnostics: not among the fields BnBSolver hands over; given in the config
    dict they reach the search (32-bit map counts hold more bytes, the answer unchanged)."""
    assert _core.DIAGNOSTICS == tuple(cpp_fields("config.hpp", "Diagnostics"))
    config = BnBSolver()._config(Limits(), None)
    assert not set(config) & set(_core.DIAGNOSTICS)
    results = [
        _core.BranchAndBound(*small_search_args(), {**config, "wide_map_counts": wide}).run()
        for wide in (False, True)
    ]
    assert results[0]["objective"] == results[1]["objective"]
    assert results[0]["stats"]["nodes_expanded"] == results[1]["stats"]["nodes_expanded"]
    narrow, wide = (r["stats"]["peak_memory_bytes"] for r in results)
    assert wide > narrow


def test_a_missing_problem_field_is_named():
    *arrays, problem = small_search_args()
    del problem["lam"]
    with pytest.raises(ValueError, match="'lam'"):
        _core.BranchAndBound(*arrays, problem, BnBSolver()._config(Limits(), None))


def test_the_result_comes_back_with_the_cpp_enums():
    search = _core.BranchAndBound(*small_search_args(), BnBSolver()._config(Limits(), None))
    result = search.run()
    assert result["status"] is _core.SearchStatus.OPTIMAL
    assert result["stop_reason"] is _core.StopReason.COMPLETED
    assert result["has_solution"] and isinstance(result["stats"]["nodes_expanded"], int)
    assert set(search.progress()) == {
        "nodes_expanded",
        "children_evaluated",
        "trie_size",
        "queue_size",
        "depth",
        "best_objective",
        "seconds",
        "certified_length",
        "lower_bound",
    }


def test_public_metric_values_are_the_cpp_ones():
    """fairlist.metrics.Metric (public, long names) has the values of the C++ enum, which
    fairlist._bound and the engine receive as integers."""
    public = {metric.short_name.upper(): int(metric) for metric in Metric}
    assert public == {metric.name: int(metric) for metric in _core.Metric}


def test_statuses_and_stop_reasons_have_the_cpp_names():
    """BnBSolver reads them back by name."""
    assert [s.name for s in _core.SearchStatus] == [s.name for s in Status]
    assert [s.name for s in _core.StopReason] == [s.name for s in StopReason]


def test_policies_are_the_cpp_ones_by_name():
    assert list(POLICIES) == [
        "bfs",
        "bfs_objective_aware",
        "lower_bound",
        "curiosity",
        "dfs",
        "objective",
        "bfs_objective_aware_lowest",
    ]
    assert list(POLICIES.values()) == list(_core.Policy)


def test_the_core_refuses_bad_groups_and_weights():
    """The C++ checks of the data the binding hands over (fairlist.solvers.bnb never sends
    such data; the messages name what is wrong)."""
    rules, labels, groups, weights, n, k, problem = small_search_args()
    config = BnBSolver()._config(Limits(), None)
    bad = groups.copy()
    bad[3] = 3
    with pytest.raises(ValueError, match="group code"):
        _core.BranchAndBound(rules, labels, bad, weights, n, k, problem, config)
    with pytest.raises(ValueError, match="number of groups"):
        _core.BranchAndBound(rules, labels, groups, weights, n, 65, problem, config)
    negative = weights.copy()
    negative[0] = -1
    with pytest.raises(ValueError, match="negative"):
        _core.BranchAndBound(rules, labels, groups, negative, n, k, problem, config)
    with pytest.raises(ValueError, match="2\\^31"):
        _core.BranchAndBound(rules, labels, groups, weights * 2**27, n, k, problem, config)
    with pytest.raises(ValueError, match="every sample weight is 0"):
        _core.BranchAndBound(rules, labels, groups, weights * 0, n, k, problem, config)
    with pytest.raises(ValueError, match="40 entries"):
        _core.BranchAndBound(rules, labels, groups[:-1], weights, n, k, problem, config)


def test_the_cpp_metric_table_is_the_python_one():
    """``_core.METRIC_TABLE`` (metric.hpp's one list) against ``fairlist.metrics``: values, short
    names, the rates each measure compares, and one gap per rate."""
    from fairlist.metrics import METRIC_RATES

    assert [row[0] for row in _core.METRIC_TABLE] == [int(m) for m in Metric]
    for value, name, rates, gaps in _core.METRIC_TABLE:
        metric = Metric(value)
        assert name == metric.short_name
        assert rates == METRIC_RATES[metric]
        assert gaps == len(rates)
        assert _core.Metric(value).value == value


def _switches_over(text: str, subject: str):
    """The bodies of the ``switch`` statements whose condition matches ``subject``."""
    for match in re.finditer(r"switch \(([^)]*)\) \{", text):
        if not re.search(subject, match.group(1)):
            continue
        depth, end = 1, match.end()
        while depth:
            depth += {"{": 1, "}": -1}.get(text[end], 0)
            end += 1
        yield text[match.end() : end]


def test_every_switch_over_a_metric_names_each_one_and_has_no_default():
    """With no default, -Werror=switch (meson.build) makes a measure missing from a switch a
    compile error; this checks that no default came back to hide one."""
    assert "-Werror=switch" in (NATIVE.parent / "meson.build").read_text()
    found = 0
    for path in sorted((NATIVE / "src").glob("*.cpp")):
        for body in _switches_over(path.read_text(), r"metric|^m$"):
            found += 1
            assert "default:" not in body, path.name
            assert all(f"Metric::{m.name}:" in body for m in _core.Metric), path.name
    assert found >= 6
