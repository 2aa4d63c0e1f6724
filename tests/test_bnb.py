"""The branch-and-bound engine: exact against brute force, limits, warm start, determinism.

The exactness tests compare the engine with ``tests/reference.py`` (plain enumeration of every
rule list up to the length cap) on a few hundred random small instances covering every metric,
several caps (none, 0, tight, loose) and penalties (including 0), both search spaces, every
policy, and every bound switched off in turn.
"""

from __future__ import annotations

import functools
import math
import os
import threading
import warnings

import numpy as np
import pytest
from reference import assert_certifies, random_problem, reference_solve

from fairlist.metrics import Metric
from fairlist.rulelist import Rule, RuleList
from fairlist.solvers import Limits, Problem, Status, StopReason, solve
from fairlist.solvers.bnb import (
    _BOUND_SWITCHES,
    POLICIES,
    BnBSolver,
    default_memory_limit_mb,
    distinct_columns,
)
from fairlist.solvers.deepening import EVERY_LENGTH, deepen_phases

METRICS = tuple(Metric)
EPSILONS = (None, 0.0, 0.04, 0.15)
LAMBDAS = (0.0, 0.01, 0.04)
SEEDS = range(144)  # 6 metrics x 4 caps x 3 penalties x 2 lengths
SUBSET = range(0, 144, 4)
SWITCHES = _BOUND_SWITCHES  # every bound the engine can switch off


@functools.cache
def instance(seed: int) -> Problem:
    """A random small problem; the seed fixes the metric, cap, penalty and length cap."""
    rng = np.random.default_rng(1000 + seed)
    n = int(rng.integers(20, 61))
    m = int(rng.integers(4, 7)) if seed % 2 == 0 else 4
    return random_problem(
        rng,
        n=n,
        m=m,
        metric=METRICS[seed % 6],
        epsilon=EPSILONS[(seed // 6) % 4],
        lam=LAMBDAS[(seed // 24) % 3],
        max_length=2 if seed % 2 == 0 else 3,
    )


@functools.cache
def reference(seed: int, majority_only: bool):
    problem = instance(seed)
    return reference_solve(problem, problem.max_length, majority_only=majority_only)


def assert_matches_reference(index: int, majority_only: bool = False, **options) -> None:
    problem = instance(index)
    ref = reference(index, majority_only)
    result = BnBSolver(majority_only=majority_only, **options).solve(problem)
    context = f"instance {index}, majority_only={majority_only}, options {options}"
    assert_certifies(problem, ref, result, context)
    assert result.search_space == ("majority" if majority_only else "full")


# ---------------------------------------------------------------------------- exactness
@pytest.mark.parametrize("chunk", range(8))
def test_optimum_equals_brute_force_in_the_full_space(chunk):
    for seed in SEEDS[chunk::8]:
        assert_matches_reference(seed)


@pytest.mark.parametrize("chunk", range(8))
def test_optimum_equals_brute_force_in_the_majority_space(chunk):
    for seed in SEEDS[chunk::8]:
        assert_matches_reference(seed, majority_only=True)


@pytest.mark.parametrize("switch", SWITCHES)
def test_optimum_is_unchanged_with_each_bound_switched_off(switch):
    for seed in SUBSET:
        assert_matches_reference(seed, **{switch: False})
        assert_matches_reference(seed, majority_only=True, **{switch: False})


def test_optimum_is_unchanged_with_every_bound_switched_off():
    for seed in SUBSET:
        assert_matches_reference(seed, **{s: False for s in SWITCHES})
        assert_matches_reference(seed, deepen_length=2, **{s: False for s in SWITCHES})


@pytest.mark.parametrize("policy", list(POLICIES))
def test_every_policy_finds_the_optimum(policy):
    for seed in SUBSET:
        assert_matches_reference(seed, policy=policy)
        assert_matches_reference(seed + 1, majority_only=True, policy=policy, seed=7)


def test_optimum_is_unchanged_with_32_bit_permutation_map_counts(monkeypatch):
    """Past 65,535 samples the permutation map keeps its counts in 32 bits, not 16.

    That layout is forced here on the small instances (a test-only engine option), so it is
    checked against brute force without a million-sample problem.
    """
    original = BnBSolver._config

    def wide(self, limits, max_length):
        return {**original(self, limits, max_length), "wide_map_counts": True}

    monkeypatch.setattr(BnBSolver, "_config", wide)
    for seed in SUBSET:
        assert_matches_reference(seed)
        assert_matches_reference(seed, majority_only=True)


def test_distinct_columns_keeps_the_first_of_each_set_of_identical_columns():
    X = np.array([[1, 0, 1, 0, 1], [0, 1, 0, 1, 0], [1, 1, 1, 1, 1]], dtype=np.uint8)
    X = np.repeat(X, 3, axis=0)  # 9 rows: the packed columns span two bytes
    kept, position = distinct_columns(np.hstack([X, X[:, [1]]]))
    assert kept.tolist() == [0, 1]
    assert position.tolist() == [0, 1, 0, 1, 0, 1]


def test_random_instances_cover_infeasible_and_minority_label_optima():
    """The instances exercise both outcomes and the gap between the two search spaces."""
    infeasible = sum(math.isinf(reference(s, False).objective) for s in SEEDS)
    better_in_full = sum(
        reference(s, False).objective < reference(s, True).objective - 1e-12 for s in SEEDS
    )
    assert infeasible > 0
    assert better_in_full > 0


def test_unconstrained_search_keeps_to_majority_labels_and_stays_exact_for_the_full_space():
    """Without a cap a minority label never helps, so the full space is searched through its
    majority half (the same children as ``majority_only``), and the optimum is still the
    brute-force optimum over every list, minority labels included."""
    rng = np.random.default_rng(5)
    for _ in range(20):
        problem = random_problem(rng, n=50, m=5, lam=0.01, max_length=3)
        full = BnBSolver().solve(problem)
        majority = BnBSolver(majority_only=True).solve(problem)
        ref = reference_solve(problem, 3, majority_only=False)
        assert full.status is Status.OPTIMAL and full.search_space == "full"
        assert abs(full.objective - ref.objective) <= 1e-9
        assert abs(majority.objective - ref.objective) <= 1e-9
        assert full.stats["children_evaluated"] == majority.stats["children_evaluated"]


def test_no_cap_on_the_length_without_max_length():
    """Without max_length and with lam = 0 the search may use every antecedent."""
    n = 8
    X = np.eye(n, dtype=np.uint8)[:, :6]  # antecedent j captures sample j only
    y = np.array([1, 1, 1, 1, 1, 1, 0, 0], dtype=np.uint8)
    protected = np.array([1, 0] * 4, dtype=bool)
    result = BnBSolver().solve(Problem(X, y, protected, lam=0.0))
    assert result.objective == 0.0
    problem = Problem(X, y, protected, lam=0.0, epsilon=0.0, metric="SP")
    assert_fair_optimum(problem, BnBSolver().solve(problem))


def assert_fair_optimum(problem: Problem, result) -> None:
    ref = reference_solve(problem, problem.n_antecedents)
    assert result.status is Status.OPTIMAL
    assert abs(result.objective - ref.objective) <= 1e-9


def test_infeasible_problem_is_proved_infeasible():
    # One antecedent that captures everybody: every rule list predicts one label for all, and
    # the base rates differ, so CUAE = |PPV gap| + |NPV gap| > 0 for every rule list.
    X = np.ones((6, 1), dtype=np.uint8)
    y = np.array([1, 1, 0, 1, 0, 0], dtype=np.uint8)
    protected = np.array([1, 1, 1, 0, 0, 0], dtype=bool)
    problem = Problem(X, y, protected, metric="CUAE", epsilon=0.0, lam=0.01)
    result = BnBSolver().solve(problem)
    assert result.status is Status.INFEASIBLE
    assert result.stop_reason is StopReason.COMPLETED
    assert result.rule_list is None and math.isinf(result.objective)
    assert math.isinf(reference_solve(problem, 1).objective)


# ---------------------------------------------------------------------------- options
@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"policy": "breadth"}, "'policy' parameter.*got 'breadth'"),
        ({"policy": 3}, "'policy' parameter.*got 3"),
        ({"majority_only": "yes"}, "majority_only"),
        ({"use_fairness_bound": 1}, "use_fairness_bound"),
        ({"seed": -1}, "seed"),
        ({"seed": 1.5}, "seed"),
        ({"initial": "if x then 1"}, "initial"),
        ({"progress": 3}, "progress"),
        ({"progress_interval": 0}, "progress_interval"),
    ],
)
def test_invalid_options_are_rejected_with_the_argument_named(options, message):
    problem = instance(0)
    with pytest.raises((ValueError, TypeError), match=message):
        BnBSolver(**options).solve(problem)


def test_unknown_keyword_is_rejected():
    with pytest.raises(TypeError):
        BnBSolver(polcy="bfs")


def test_solve_requires_a_problem():
    with pytest.raises(TypeError, match="problem"):
        BnBSolver().solve("not a problem")


def test_solver_is_registered_as_bnb():
    result = solve(instance(3), engine="bnb", policy="lower_bound")
    assert result.engine == "bnb"
    assert abs(result.objective - reference(3, False).objective) <= 1e-9


def test_same_input_and_seed_give_the_same_search():
    problem = instance(40).replace(max_length=None)
    for seed in (None, 3):
        a = BnBSolver(seed=seed, policy="curiosity").solve(problem)
        b = BnBSolver(seed=seed, policy="curiosity").solve(problem)
        assert a.rule_list == b.rule_list
        strip = lambda s: {k: v for k, v in s.items() if not k.endswith("seconds")}  # noqa: E731
        assert strip(a.stats) == strip(b.stats)
    other = BnBSolver(seed=11, policy="curiosity").solve(problem)
    assert abs(other.objective - a.objective) <= 1e-9


def test_two_searches_run_at_once_in_two_threads():
    problems = [instance(s) for s in (8, 9, 10, 11)]
    expected = [BnBSolver().solve(p).objective for p in problems]
    got: dict[int, float] = {}

    def work(i: int) -> None:
        got[i] = BnBSolver().solve(problems[i]).objective

    threads = [threading.Thread(target=work, args=(i,)) for i in range(len(problems))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert [got[i] for i in range(len(problems))] == expected


# ---------------------------------------------------------------------------- limits, warm start
def assert_limited(result, problem: Problem, reason: StopReason) -> None:
    assert result.stop_reason is reason
    assert result.status is Status.FEASIBLE
    assert result.lower_bound < result.objective
    ev = problem.evaluate(result.rule_list)
    assert ev.fair and abs(ev.objective - result.objective) <= 1e-9


def test_node_limit_returns_the_best_so_far_with_a_lower_bound(compas):
    problem = compas.replace(metric="SP", epsilon=0.05, limits=Limits(max_nodes=3000))
    result = BnBSolver().solve(problem)
    assert_limited(result, problem, StopReason.NODE_LIMIT)
    assert 3000 <= result.stats["peak_trie_size"] < 3000 + 2 * problem.n_antecedents
    assert result.lower_bound > 0.3  # the fairness bounds lift it above the plain bound


def test_time_limit_stops_the_search(compas):
    problem = compas.replace(metric="SP", epsilon=0.05, lam=0.001, limits=Limits(time_limit=0.3))
    result = BnBSolver().solve(problem)
    assert_limited(result, problem, StopReason.TIME_LIMIT)
    assert result.stats["seconds"] < 2.0


def test_time_limit_holds_during_the_beam_search(compas):
    # A beam this wide would take tens of seconds on COMPAS.
    problem = compas.replace(metric="SP", epsilon=0.05, lam=0.001, limits=Limits(time_limit=0.2))
    result = BnBSolver(beam_width=200_000).solve(problem)
    assert_limited(result, problem, StopReason.TIME_LIMIT)
    assert result.stats["seconds"] < 1.5


def test_memory_limit_stops_the_search(compas):
    problem = compas.replace(metric="SP", epsilon=0.05, lam=0.001, limits=Limits(memory_limit_mb=8))
    result = BnBSolver().solve(problem)
    assert_limited(result, problem, StopReason.MEMORY_LIMIT)
    assert result.stats["peak_memory_bytes"] < 16 * 2**20


def test_memory_is_capped_by_default_at_three_quarters_of_the_machine():
    physical_mb = os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE") / 2**20
    solver = BnBSolver()
    assert solver._config(Limits(), None)["memory_limit_mb"] == pytest.approx(0.75 * physical_mb)
    assert default_memory_limit_mb() == pytest.approx(0.75 * physical_mb)
    assert solver._config(Limits(memory_limit_mb=64), None)["memory_limit_mb"] == 64.0


def test_interrupt_returns_the_best_so_far(compas):
    """Ctrl-C (a KeyboardInterrupt in the calling thread) stops the search cleanly."""
    problem = compas.replace(metric="SP", epsilon=0.05, lam=0.001)
    seen = []

    def progress(snapshot):
        seen.append(snapshot)
        raise KeyboardInterrupt

    result = BnBSolver(progress=progress, progress_interval=0.05).solve(problem)
    assert_limited(result, problem, StopReason.INTERRUPTED)
    assert set(seen[0]) >= {"nodes_expanded", "best_objective", "trie_size", "queue_size"}


def test_unknown_when_a_limit_stops_before_any_fair_rule_list():
    rng = np.random.default_rng(3)
    for _ in range(50):
        problem = random_problem(rng, n=60, m=6, metric="PP", epsilon=0.0, lam=0.0)
        ref = BnBSolver().solve(problem)
        if ref.status is Status.OPTIMAL and ref.rule_list.length >= 2:
            break
    limited = BnBSolver().solve(problem.replace(limits=Limits(max_nodes=1)))
    if limited.status is Status.UNKNOWN:
        assert limited.rule_list is None and limited.lower_bound <= ref.objective
    else:  # a constant rule list happened to be fair
        assert limited.status is Status.FEASIBLE


def test_warm_start_is_used_and_kept_when_nothing_better_is_found(compas):
    problem = compas.replace(metric="SP", epsilon=0.05, limits=Limits(max_nodes=3000))
    best = BnBSolver().solve(problem)
    warm = BnBSolver(initial=best.rule_list).solve(problem.replace(limits=Limits(max_nodes=1)))
    assert warm.stats["warm_start"] == "used"
    assert warm.objective <= best.objective + 1e-12
    assert warm.rule_list == best.rule_list


def test_unfair_warm_start_is_ignored_with_a_warning(compas):
    problem = compas.replace(metric="SP", epsilon=0.01, limits=Limits(max_nodes=1000))
    unfair = RuleList([Rule("priors_>3", 1)], default=0, feature_names=problem.feature_names)
    assert not problem.evaluate(unfair).fair
    with pytest.warns(UserWarning, match="initial rule list ignored"):
        result = BnBSolver(initial=unfair).solve(problem)
    assert result.stats["warm_start"] == "ignored"
    assert problem.evaluate(result.rule_list).fair


def test_warm_start_outside_the_majority_space_is_ignored(compas):
    problem = compas.replace(limits=Limits(max_nodes=100))
    minority = RuleList([Rule("priors_>3", 0)], default=1, feature_names=problem.feature_names)
    with pytest.warns(UserWarning, match="majority"):
        result = BnBSolver(majority_only=True, initial=minority).solve(problem)
    assert result.stats["warm_start"] == "ignored"
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert BnBSolver(initial=minority).solve(problem).stats["warm_start"] == "used"


# ---------------------------------------------------------------------------- COMPAS
def test_compas_unconstrained_optimum_is_certified(compas):
    result = BnBSolver().solve(compas)
    assert result.status is Status.OPTIMAL
    ev = compas.evaluate(result.rule_list)
    assert abs(ev.objective - result.objective) <= 1e-12
    assert abs(result.objective - 0.367328) < 5e-7  # 1,889 errors and 3 rules on 5,273 rows


@pytest.mark.slow
def test_compas_statistical_parity_optimum_is_certified(compas):
    # No length cap: about 27 M expansions, 7 minutes and 1.6 GB on a 2-core machine (the
    # README's figure); the time limit only keeps a regression from hanging CI.
    problem = compas.replace(metric="SP", epsilon=0.05, limits=Limits(time_limit=2400))
    result = BnBSolver(policy="lower_bound").solve(problem)
    ev = problem.evaluate(result.rule_list)
    assert ev.fair and ev.unfairness <= 0.05 + 1e-9
    assert abs(ev.objective - result.objective) <= 1e-12
    assert abs(ev.unfairness - result.unfairness) <= 1e-12
    assert result.status is Status.OPTIMAL
    assert abs(result.objective - 0.432289) < 5e-7  # 2,174 errors and 2 rules on 5,273 rows


@pytest.mark.slow
def test_compas_statistical_parity_optimum_is_certified_by_length_deepening(compas):
    # The same certificate by another route: the lists of at most 1..6 rules certified in
    # phases (the terminal solver counting the last two rules of each), then the lists of 7 or
    # more, which the root's class bound plus 7 lam already puts above the optimum.  About a
    # minute on one core, against 7 for the plain search (docs/performance.md).
    problem = compas.replace(metric="SP", epsilon=0.05, limits=Limits(time_limit=1200))
    result = BnBSolver(policy="lower_bound", deepen_length=6).solve(problem)
    assert result.status is Status.OPTIMAL
    assert result.stats["certified_length"] == 6
    ev = problem.evaluate(result.rule_list)
    assert ev.fair and abs(ev.objective - result.objective) <= 1e-12
    assert abs(result.objective - 0.432289) < 5e-7


KNOWN_OPTIMA = [  # faircorelsv2 1.1, majority-label space, lambda 0.001
    ("SP", None, 0.332504),
    ("SP", 0.05, 0.431528),
    ("SP", 0.01, 0.451528),
    ("EOpp", 0.05, 0.408065),
    ("EOpp", 0.01, 0.429764),
]


@pytest.mark.parametrize(("metric", "epsilon", "optimum"), KNOWN_OPTIMA)
def test_known_optima_are_certified_in_the_majority_space(compas_single, metric, epsilon, optimum):
    problem = compas_single.replace(metric=metric, epsilon=epsilon)
    result = BnBSolver(majority_only=True).solve(problem)
    assert result.status is Status.OPTIMAL
    assert round(result.objective, 6) == optimum
    assert problem.evaluate(result.rule_list).fair


@pytest.mark.parametrize(("metric", "epsilon", "optimum"), KNOWN_OPTIMA)
def test_full_space_optimum_is_at_most_the_majority_one(compas_single, metric, epsilon, optimum):
    problem = compas_single.replace(metric=metric, epsilon=epsilon)
    result = BnBSolver().solve(problem)
    assert result.status is Status.OPTIMAL
    assert result.objective <= optimum + 5e-7
    assert problem.evaluate(result.rule_list).fair


@pytest.mark.slow
@pytest.mark.parametrize(("metric", "epsilon", "optimum"), KNOWN_OPTIMA[1:])
def test_class_bound_does_not_change_the_compas_optima(compas_single, metric, epsilon, optimum):
    """The class bound makes these runs ~100x faster; without it the optimum is the same."""
    problem = compas_single.replace(metric=metric, epsilon=epsilon)
    for majority_only in (False, True):
        fast = BnBSolver(majority_only=majority_only).solve(problem)
        plain = BnBSolver(majority_only=majority_only, use_class_bound=False).solve(problem)
        assert plain.status is fast.status is Status.OPTIMAL
        assert abs(plain.objective - fast.objective) <= 1e-12


def test_duplicate_antecedents_are_searched_once_without_losing_the_optimum():
    rng = np.random.default_rng(11)
    base = random_problem(rng, n=50, m=4, metric="EOpp", epsilon=0.05, lam=0.01, max_length=3)
    X = np.hstack([base.X, base.X[:, [2, 0]]])  # columns 4 and 5 repeat columns 2 and 0
    problem = base.replace(X=X, feature_names=())
    result = BnBSolver().solve(problem)
    assert result.stats["duplicate_antecedents"] == 2
    assert result.objective == pytest.approx(reference_solve(problem, 3).objective, abs=1e-9)
    assert {r.antecedent for r in result.rule_list.rules} <= {"x0", "x1", "x2", "x3"}
    # A warm start written with a twin column is mapped onto the kept one.
    twin = RuleList([Rule("x5", 1)], default=0)
    unconstrained = problem.replace(epsilon=None)
    assert BnBSolver(initial=twin).solve(unconstrained).stats["warm_start"] == "used"


def test_a_real_sigint_returns_the_best_so_far(shared_data, tmp_path):
    """A SIGINT delivered while the main thread waits for the search (as Ctrl-C in a terminal):
    the search stops and its best fair rule list comes back, in a fresh process."""
    import subprocess
    import sys
    import textwrap

    script = tmp_path / "interrupt.py"
    script.write_text(
        textwrap.dedent(f"""
        import os, signal, threading
        import numpy as np, pandas as pd
        from fairlist import Problem, solve
        d = pd.read_csv({str(shared_data / "faircorels" / "compas_rules_full.csv")!r})
        problem = Problem(d.iloc[:, 2:-1].to_numpy(np.uint8), d.iloc[:, -1].to_numpy(np.uint8),
                          d.iloc[:, 0].to_numpy(bool), metric="SP", epsilon=0.05, lam=0.001)
        signal.signal(signal.SIGINT, signal.default_int_handler)  # even if started ignored
        timer = []

        def progress(snapshot):  # once the search runs, Ctrl-C arrives half a second later
            if not timer:
                timer.append(threading.Timer(0.5, os.kill, (os.getpid(), signal.SIGINT)))
                timer[0].start()

        result = solve(problem, "bnb", progress=progress, progress_interval=0.05)
        print(result.status, result.stop_reason, problem.evaluate(result.rule_list).fair)
    """)
    )
    out = subprocess.run(
        [sys.executable, str(script)], capture_output=True, text=True, timeout=120, check=True
    )
    assert out.stdout.split() == ["feasible", "interrupted", "True"]


@pytest.mark.parametrize("metric", list(Metric))
@pytest.mark.parametrize("majority_only", [False, True])
def test_beam_incumbent_is_fair_and_never_beats_the_optimum(metric, majority_only):
    # One trie node: the search stops at once with the beam's (or a constant) list.
    rng = np.random.default_rng(int(metric) + 100)
    for _ in range(6):
        problem = random_problem(
            rng,
            n=40,
            m=5,
            metric=metric,
            epsilon=0.08,
            lam=0.01,
            max_length=3,
            limits=Limits(max_nodes=1),
        )
        optimum = reference_solve(problem, 3, majority_only=majority_only).objective
        result = BnBSolver(beam_width=4, majority_only=majority_only).solve(problem)
        assert result.stop_reason is StopReason.NODE_LIMIT
        if result.rule_list is None:
            continue
        # solve() re-evaluates the list: it raises if the list is unfair or mis-scored.
        assert result.rule_list.length <= 3
        assert result.objective >= optimum - 1e-9


def test_beam_finds_better_lists_than_the_constant_ones_on_compas(compas):
    problem = compas.replace(metric="SP", epsilon=0.05, lam=0.001, limits=Limits(max_nodes=1))
    constant = BnBSolver(beam_width=0).solve(problem)
    assert constant.rule_list.length == 0
    assert constant.stats["beam_objective"] == constant.objective  # no beam: the constants
    beam = BnBSolver(beam_width=256).solve(problem)
    assert beam.rule_list.length >= 2
    assert beam.objective < constant.objective - 0.02
    assert beam.stats["beam_objective"] == pytest.approx(beam.objective)
    assert 0 < beam.stats["beam_seconds"] <= beam.stats["seconds"]


@pytest.mark.parametrize("metric", list(Metric))
def test_exact_without_the_beam_incumbent(metric):
    rng = np.random.default_rng(int(metric) + 200)
    for eps in (0.0, 0.05, 0.2):
        problem = random_problem(rng, n=40, m=5, metric=metric, epsilon=eps, lam=0.01, max_length=3)
        expected = reference_solve(problem, 3)
        result = BnBSolver(beam_width=0).solve(problem)
        assert result.stats["warm_start"] == "none"
        if expected.rule_list is None:
            assert result.status.value == "infeasible"
        else:
            assert result.objective == pytest.approx(expected.objective, abs=1e-9)


def test_beam_width_is_validated():
    with pytest.raises(ValueError, match=r"'beam_width' parameter.*an integer in \[0, "):
        BnBSolver(beam_width=-1).solve(random_problem(np.random.default_rng(0)))


# ---------------------------------------------------------------------------- length deepening
@pytest.mark.parametrize("n_jobs", [1, 2, 4])
@pytest.mark.parametrize("deepen_length", [1, 2, 5])
def test_length_deepening_keeps_the_optimum(deepen_length, n_jobs):
    """Certifying the short lists first, then searching on with that knowledge, certifies the
    same optimum (5 exceeds every cap here: the deepening stops one rule below the cap), on one
    thread and on the parallel search's two and four."""
    for seed in SUBSET:
        assert_matches_reference(seed, deepen_length=deepen_length, beam_width=0, n_jobs=n_jobs)
        assert_matches_reference(
            seed, deepen_length=deepen_length, majority_only=True, n_jobs=n_jobs
        )


@pytest.mark.parametrize("n_jobs", [1, 2, 4])
@pytest.mark.parametrize("epsilon", [None, 1.0])
def test_length_deepening_finds_a_longer_list_better_by_less_than_one_rule(epsilon, n_jobs):
    """33 samples: A captures 10 positives, B 3 others, the rest are 20 negatives; lam 0.06.
    Lists: "else 0" 13/33, "A -> 1" 3/33 + lam = 0.1509, "A -> 1, B -> 1" 2 lam = 0.12. The
    2-rule list beats the 1-rule one by less than a rule, so a phase that counted one rule too
    many below the prefix "A -> 1" (bound 3 lam = 0.18 > 0.1509) would lose it."""
    y = np.array([1] * 13 + [0] * 20, dtype=np.uint8)
    X = np.zeros((33, 4), dtype=np.uint8)  # C and D capture negatives only
    X[:10, 0] = 1
    X[10:13, 1] = 1
    X[13:23, 2] = 1
    X[20:33, 3] = 1
    protected = np.arange(33) % 2 == 0
    problem = Problem(X, y, protected, metric="SP", epsilon=epsilon, lam=0.06)
    for deepen_length in (0, 1, 2, 3):
        result = BnBSolver(deepen_length=deepen_length, beam_width=0, n_jobs=n_jobs).solve(problem)
        assert result.status is Status.OPTIMAL
        assert result.objective == pytest.approx(0.12, abs=1e-12), deepen_length
        assert result.rule_list.length == 2


@pytest.mark.parametrize("n_jobs", [1, 2, 4])
@pytest.mark.parametrize("metric", list(Metric))
def test_length_deepening_is_exact_when_rules_are_cheap(metric, n_jobs):
    """Exact against brute force with a rule worth one or two samples, where lists of different
    lengths are close (the hand-built test above pins the one-rule-too-many error exactly)."""
    rng = np.random.default_rng(int(metric) + 400)
    for trial in range(16):
        problem = random_problem(
            rng,
            n=60,
            m=6,
            metric=metric,
            epsilon=(None, 0.05, 0.15)[trial % 3],
            lam=(0.02, 0.035)[trial % 2],
            max_length=4,
        )
        expected = reference_solve(problem, 4).objective
        for deepen_length in (2, 3):
            result = BnBSolver(deepen_length=deepen_length, beam_width=0, n_jobs=n_jobs).solve(
                problem
            )
            if math.isinf(expected):
                assert result.status is Status.INFEASIBLE
            else:
                assert result.objective == pytest.approx(expected, abs=1e-9), (trial, deepen_length)


@pytest.mark.parametrize("n_jobs", [1, 2])
@pytest.mark.parametrize("metric", list(Metric))
def test_the_default_deepens_every_length_without_a_cap_and_is_exact(metric, n_jobs):
    """``deepen_length="auto"`` (the default) without a length cap, lam > 0 and a time limit
    runs a phase per length below the number of antecedents (``certified_length`` m - 1) and
    certifies the brute-force optimum over lists of every length; with lam 0 it is off."""
    rng = np.random.default_rng(int(metric) + 500)
    for trial in range(10):
        m = int(rng.integers(3, 6))
        lam = (0.0, 0.005, 0.02, 0.05, 0.1)[trial % 5]
        problem = random_problem(
            rng, n=int(rng.integers(20, 51)), m=m, metric=metric, lam=lam, max_length=None
        )
        problem = problem.replace(
            epsilon=(None, 0.05, 0.15)[trial % 3], limits=Limits(time_limit=60)
        )
        expected = reference_solve(problem, m).objective
        result = BnBSolver(beam_width=int(trial % 2) * 8, n_jobs=n_jobs).solve(problem)
        context = (metric, trial, lam, problem.epsilon)
        assert result.stats["certified_length"] == (m - 1 if lam > 0 else 0), context
        if math.isinf(expected):
            assert result.status is Status.INFEASIBLE, context
            continue
        assert result.status is Status.OPTIMAL, context
        assert result.objective == pytest.approx(expected, abs=1e-9), context
        assert result.lower_bound == result.objective, context
        assert problem.evaluate(result.rule_list).fair, context


def test_the_default_deepens_only_without_a_cap_or_a_space_budget(compas):
    """The resolved ``deepen_length`` of ``"auto"``: none under a cap, with lam 0, or with a
    node or memory budget (a node budget counts the phases' nodes, but buys them far more time
    than the plain search: tests/test_deepening_budget.py);
    every length otherwise. An integer is used as given, and the Rashomon mode's
    configuration gets 0."""
    auto = BnBSolver()
    assert auto.deepen_length == "auto"

    def resolved(**changes) -> int:
        problem = compas.replace(**{"metric": "SP", "epsilon": 0.05, "lam": 0.01, **changes})
        return deepen_phases(
            auto.deepen_length,
            max_length=problem.max_length,
            lam=problem.lam,
            limits=problem.limits,
        )

    assert resolved(limits=Limits(time_limit=60)) == EVERY_LENGTH
    assert resolved(limits=Limits()) == EVERY_LENGTH
    assert resolved(limits=Limits(max_nodes=4_000_000, time_limit=60)) == 0
    assert resolved(limits=Limits(max_nodes=4_000_000)) == 0
    assert resolved(limits=Limits(memory_limit_mb=8, time_limit=60)) == 0
    assert resolved(limits=Limits(time_limit=60), max_length=5) == 0
    assert resolved(limits=Limits(time_limit=60), lam=0.0) == 0
    assert deepen_phases(2, max_length=5, lam=0.0, limits=Limits(max_nodes=9)) == 2
    assert auto._config(Limits(time_limit=60), None)["deepen_length"] == 0  # the Rashomon mode's
    # Solves (lambda 0.02): a node budget keeps the plain search, stopped by it; with a time
    # limit alone the phases run, every length, and certify the optimum (0.3 CPU s).
    problem = compas.replace(metric="SP", epsilon=0.05, lam=0.02)
    plain = auto.solve(problem.replace(limits=Limits(max_nodes=20_000, time_limit=60)))
    assert plain.stats["certified_length"] == 0 and plain.status is Status.FEASIBLE
    deepened = auto.solve(problem.replace(limits=Limits(time_limit=60)))
    assert deepened.status is Status.OPTIMAL and deepened.stats["certified_length"] > 100
    assert deepened.objective <= plain.objective


@pytest.mark.parametrize("metric", list(Metric))
def test_length_deepening_under_a_node_limit_gives_a_partial_certificate(metric):
    """Stopped by a node limit, the result beats every list of at most ``certified_length``
    rules, and the lower bound stays below the true optimum (lists of every length)."""
    rng = np.random.default_rng(int(metric) + 300)
    seen = set()
    for trial in range(12):
        problem = random_problem(
            rng,
            n=50,
            m=6,
            metric=metric,
            epsilon=0.05,
            lam=0.005,
            max_length=4,
            limits=Limits(max_nodes=int(rng.integers(3, 60))),
        )
        optimum = reference_solve(problem, 4).objective
        # The terminal solver stores no prefix two rules short of a phase's cap, so the limit
        # stops the deepening more often without it.
        for terminal in (True, False):
            result = BnBSolver(deepen_length=3, beam_width=0, use_terminal_solver=terminal).solve(
                problem
            )
            certified = result.stats["certified_length"]
            seen.add(certified)
            assert result.lower_bound <= optimum + 1e-9, trial
            if result.status is Status.INFEASIBLE:
                assert math.isinf(optimum)
                continue
            assert 0 <= certified <= 3
            if certified and result.rule_list is not None:
                assert result.objective <= reference_solve(problem, certified).objective + 1e-9
            if result.status is Status.OPTIMAL:
                assert result.objective == pytest.approx(optimum, abs=1e-9)
    assert len(seen) > 1  # the limit stopped both inside and after the deepening


def test_lower_bound_of_a_search_stopped_inside_a_deepening_phase_is_valid():
    """A phase capped at L rules queues no prefix of L rules, so the lists that extend those
    prefixes are bounded through the root (its bound plus L + 1 rules), not by the queue."""
    rng = np.random.default_rng(1)
    for t in range(20):
        problem = random_problem(
            rng,
            n=60,
            m=6,
            metric=list(Metric)[t % 6],
            epsilon=(None, 0.05, 0.15)[t % 3],
            lam=(0.02, 0.035)[t % 2],
            max_length=5,
        )
        optimum = reference_solve(problem, 5).objective
        for nodes in range(26, 41, 3):
            limited = problem.replace(limits=Limits(max_nodes=nodes))
            result = BnBSolver(policy="lower_bound", deepen_length=3, beam_width=0).solve(limited)
            assert result.lower_bound <= optimum + 1e-9, (t, nodes)


def test_length_deepening_finds_the_short_optimum_a_node_budget_misses(compas):
    """On COMPAS (equalized odds 0.05, lambda 0.005) a breadth-first search over 200,000 trie
    nodes stops at a worse list than the certified optimum among lists of at most 3 rules."""
    problem = compas.replace(
        metric="EOdds", epsilon=0.05, lam=0.005, limits=Limits(max_nodes=200_000)
    )
    plain = BnBSolver(beam_width=0).solve(problem)
    deepened = BnBSolver(beam_width=0, deepen_length=3).solve(problem)
    short = BnBSolver(policy="lower_bound").solve(
        problem.replace(max_length=3, limits=Limits(max_nodes=4_000_000))
    )
    assert short.status is Status.OPTIMAL
    assert deepened.stats["certified_length"] == 3
    assert deepened.objective <= short.objective + 1e-12 < plain.objective
    assert deepened.lower_bound > plain.lower_bound


def test_interrupt_during_length_deepening_keeps_the_partial_certificate(compas):
    """Progress reports the phases done; Ctrl-C in phase 4 returns 'none better up to 3 rules'."""
    problem = compas.replace(metric="EOdds", epsilon=0.05, lam=0.005)
    seen = []

    def progress(snapshot):
        seen.append(snapshot["certified_length"])
        if snapshot["certified_length"] >= 3:
            raise KeyboardInterrupt

    result = BnBSolver(deepen_length=4, progress=progress, progress_interval=0.05).solve(problem)
    assert_limited(result, problem, StopReason.INTERRUPTED)
    assert result.stats["certified_length"] == 3 == seen[-1]
    assert seen[0] < 3  # the phases were seen going by


def test_deepen_length_is_validated():
    for bad in (-1, 1.5, True):
        with pytest.raises(ValueError, match=r"'deepen_length' parameter.*an integer in \[0, "):
            BnBSolver(deepen_length=bad).solve(random_problem(np.random.default_rng(0)))
