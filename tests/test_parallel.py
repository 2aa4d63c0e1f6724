"""The parallel branch-and-bound (``BnBSolver(n_jobs=...)``, native/src/parallel.cpp).

A certified answer does not depend on the number of workers: the optimum's objective is unique,
and with canonical ties (always on with ``n_jobs != 1``) the list is the first of all optimal
lists by (length, antecedent indices, predictions, default), which brute force finds here too.
A limit-stopped answer is a fair list with a valid lower bound.
"""

from __future__ import annotations

import itertools
import json

import numpy as np
import pytest
from reference import CanonicalSerial, random_problem
from test_bnb import SUBSET, SWITCHES, assert_matches_reference, instance

from fairlist.errors import InvalidParameterError
from fairlist.solvers import Limits, Status, StopReason
from fairlist.solvers.bnb import BnBSolver


def key(rule_list):
    """The canonical order's key of a list: length, antecedent indices, predictions, default."""
    ids = tuple(rule_list.feature_names.index(r.antecedent) for r in rule_list.rules)
    return (len(ids), ids, tuple(r.prediction for r in rule_list.rules), rule_list.default)


def canonical_optimum(problem):
    """Brute force: the first, in the canonical order, of the fair lists of least objective
    (the engine's objective arithmetic: errors / n + lam * length)."""
    from fairlist.rulelist import RuleList

    names = list(problem.feature_names)
    X = problem.X.astype(bool)
    n, m = X.shape
    best, first = np.inf, None
    for length in range(problem.max_length + 1):
        for ids in itertools.permutations(range(m), length):
            for labels in itertools.product((0, 1), repeat=length + 1):
                free = np.ones(n, dtype=bool)
                pred = np.empty(n, dtype=np.uint8)
                for j, q in zip(ids, labels[:-1], strict=True):
                    pred[free & X[:, j]] = q
                    free &= ~X[:, j]
                pred[free] = labels[-1]
                errors = int(np.sum(pred != problem.y))
                objective = errors / n + problem.lam * length
                if objective > best:
                    continue
                rule_list = RuleList.from_indices(ids, labels[:-1], labels[-1], names)
                if not problem.evaluate(rule_list).fair:
                    continue
                if objective < best or key(rule_list) < key(first):
                    best, first = objective, rule_list
    return best, first


@pytest.mark.parametrize("n_jobs", [2, 4])
def test_the_parallel_search_certifies_the_canonical_optimum(n_jobs):
    """Small random problems over the six metrics, three penalties and two length caps: the
    objective and the list of brute force's canonical optimum, also from the serial search with
    canonical ties."""
    for seed in SUBSET[::2]:
        problem = instance(seed)
        if problem.weights is not None and not np.all(problem.weights == 1):
            continue
        objective, first = canonical_optimum(problem)
        for solver in (BnBSolver(n_jobs=n_jobs), CanonicalSerial()):
            result = solver.solve(problem)
            if first is None:
                assert result.status is Status.INFEASIBLE, seed
                continue
            assert result.status is Status.OPTIMAL, seed
            assert abs(result.objective - objective) <= 1e-12, seed
            assert key(result.rule_list) == key(first), (seed, type(solver).__name__)


@pytest.mark.parametrize("n_jobs", [2, 4])
def test_the_exactness_suite_holds_in_parallel(n_jobs):
    """test_bnb's brute-force cases (full and majority spaces, every bound on, every bound off,
    length deepening, a depth-first and a best-first policy) with several workers."""
    for seed in SUBSET:
        assert_matches_reference(seed, n_jobs=n_jobs)
        assert_matches_reference(seed, majority_only=True, n_jobs=n_jobs)
        assert_matches_reference(seed, n_jobs=n_jobs, **{s: False for s in SWITCHES})
        assert_matches_reference(seed, n_jobs=n_jobs, deepen_length=2)
        assert_matches_reference(seed, n_jobs=n_jobs, policy="dfs")
        assert_matches_reference(seed, n_jobs=n_jobs, policy="lower_bound")


@pytest.mark.parametrize("n_jobs", [2, 4])
@pytest.mark.parametrize("case", [("SP", 0.05), ("EOdds", 0.05), ("EOpp", 0.01)])
def test_the_parallel_search_gives_the_serial_certificate_on_compas(compas, case, n_jobs):
    """COMPAS (163 antecedents) under a length cap of 3 (the terminal solver finishes the
    prefixes of one rule): the serial optimum's objective, and the list of the serial search
    with canonical ties."""
    metric, epsilon = case
    problem = compas.replace(metric=metric, epsilon=epsilon, lam=0.005, max_length=3)
    serial = BnBSolver().solve(problem)
    canonical = CanonicalSerial().solve(problem)
    parallel = BnBSolver(n_jobs=n_jobs).solve(problem)
    assert serial.status is canonical.status is parallel.status is Status.OPTIMAL
    assert parallel.objective == serial.objective == canonical.objective
    assert parallel.lower_bound == parallel.objective
    assert parallel.rule_list == canonical.rule_list


@pytest.mark.parametrize("n_jobs", [2, 4])
def test_the_shared_map_gives_the_serial_certificate_on_compas(compas, n_jobs):
    """Every prefix queued, none finished by counting (terminal solver off): the workers judge
    their children against the shared permutation map outside the frontier's lock (tens of
    thousands of map hits; its shards grow while they do): the serial objective, the canonical
    list, and about as many prefixes dropped by the map as in the serial search."""
    problem = compas.replace(metric="SP", epsilon=0.05, lam=0.01, max_length=3)
    serial = CanonicalSerial(use_terminal_solver=False).solve(problem)
    parallel = BnBSolver(n_jobs=n_jobs, use_terminal_solver=False).solve(problem)
    assert serial.status is parallel.status is Status.OPTIMAL
    assert parallel.objective == serial.objective and parallel.lower_bound == parallel.objective
    assert parallel.rule_list == serial.rule_list
    assert serial.stats["permutation_hits"] > 10_000
    assert parallel.stats["permutation_hits"] > 0.9 * serial.stats["permutation_hits"]


def test_repeated_parallel_solves_return_one_list(compas):
    """100 certified solves with four workers (the timing differs each time): one list."""
    problem = compas.replace(metric="SP", epsilon=0.05, lam=0.01, max_length=2)
    lists = {str(BnBSolver(n_jobs=4, beam_width=0).solve(problem).rule_list) for _ in range(100)}
    assert len(lists) == 1


@pytest.mark.parametrize("n_jobs", [2, 4])
def test_a_node_limited_parallel_search_meets_its_cap_with_a_valid_lower_bound(compas, n_jobs):
    problem = compas.replace(metric="SP", epsilon=0.05, lam=0.001, limits=Limits(max_nodes=3000))
    optimum = BnBSolver().solve(problem.replace(lam=0.001, max_length=2, limits=Limits()))
    result = BnBSolver(n_jobs=n_jobs).solve(problem)
    assert result.stop_reason is StopReason.NODE_LIMIT and result.status is Status.FEASIBLE
    assert 3000 <= result.stats["peak_trie_size"] < 3000 + n_jobs * 2 * problem.n_antecedents
    ev = problem.evaluate(result.rule_list)
    assert ev.fair and abs(ev.objective - result.objective) <= 1e-9
    assert result.lower_bound <= result.objective
    assert result.lower_bound <= optimum.objective  # lists of <= 2 rules are a subset


def test_a_parallel_search_stops_at_its_time_limit_and_on_ctrl_c(compas):
    import time

    problem = compas.replace(metric="EOdds", epsilon=0.01, lam=0.001, limits=Limits(time_limit=0.5))
    start = time.perf_counter()
    result = BnBSolver(n_jobs=4).solve(problem)
    assert time.perf_counter() - start <= 0.5 + 1.0
    assert result.stop_reason is StopReason.TIME_LIMIT and result.status is Status.FEASIBLE
    assert result.lower_bound <= result.objective

    def progress(snapshot):
        raise KeyboardInterrupt

    stopped = BnBSolver(n_jobs=4, progress=progress, progress_interval=0.05).solve(
        problem.replace(limits=Limits())
    )
    assert stopped.stop_reason is StopReason.INTERRUPTED and stopped.status is Status.FEASIBLE
    assert stopped.lower_bound <= stopped.objective


def test_n_jobs_is_validated_and_minus_one_uses_every_core():
    problem = random_problem(np.random.default_rng(0), n=40, m=5, lam=0.01, max_length=2)
    for bad in (0, 1.5, True, -2000):
        with pytest.raises(InvalidParameterError, match="'n_jobs' parameter"):
            BnBSolver(n_jobs=bad).solve(problem)
    assert BnBSolver(n_jobs=-1).solve(problem).objective == BnBSolver().solve(problem).objective


# ------------------------------------------------------------------ the estimator and the CLI
def test_the_estimators_n_jobs_reaches_each_engine_and_is_validated():
    from fairlist import FairRuleListClassifier

    assert FairRuleListClassifier(n_jobs=3)._solver().n_jobs == 3
    assert FairRuleListClassifier(n_jobs=2, engine="cpsat")._solver().num_workers == 2
    assert FairRuleListClassifier()._solver().n_jobs == 1
    X = np.eye(4, dtype=np.uint8)[[0, 1, 2, 3, 0, 1]]
    with pytest.raises(InvalidParameterError, match="n_jobs"):
        FairRuleListClassifier(n_jobs=0).fit(X, [0, 1, 0, 1, 1, 0], sensitive_features=[0, 1] * 3)


@pytest.mark.parametrize("n_jobs", [2, 4])
def test_an_estimator_on_threads_certifies_the_serial_objective(compas_published, n_jobs):
    """The estimator's n_jobs runs the parallel search: the serial certificate's objective, and
    the canonical list of any other thread count."""
    from fairlist import FairRuleListClassifier

    X = compas_published.iloc[:, 2:-1]
    y = compas_published.iloc[:, -1]
    groups = compas_published.iloc[:, 0].to_numpy(bool)
    fits = {
        jobs: FairRuleListClassifier(
            metric="SP", epsilon=0.05, lam=0.01, max_length=2, n_jobs=jobs
        ).fit(X, y, sensitive_features=groups)
        for jobs in (1, n_jobs, 3)
    }
    assert {f.status_ for f in fits.values()} == {"optimal"}
    assert fits[n_jobs].objective_ == pytest.approx(fits[1].objective_, abs=1e-12)
    assert str(fits[n_jobs].rule_list_) == str(fits[3].rule_list_)


def test_fit_and_verify_take_n_jobs(tmp_path):
    from test_cli import FIT, binary_csv, runner

    from fairlist.cli import app

    data = tmp_path / "d.csv"
    binary_csv(data)
    common = [str(data), *FIT[1:], "--metric", "SP", "--epsilon", "0.1", "--max-length", "2"]
    outs = [
        runner.invoke(app, ["fit", *common, "--n-jobs", str(jobs), "--json"]) for jobs in (2, 4)
    ]
    assert [o.exit_code for o in outs] == [0, 0], [o.output for o in outs]
    a, b = (json.loads(o.output) for o in outs)
    assert a["rule_list"] == b["rule_list"] and a["objective"] == b["objective"]
    verified = runner.invoke(app, ["verify", *common, "--n-jobs", "2"])
    assert verified.exit_code == 0, verified.output


# ------------------------------------------------------------------ groups and weights
@pytest.mark.parametrize("n_jobs", [2, 4])
@pytest.mark.parametrize("chunk", range(4))
def test_groups_and_weights_equal_brute_force_on_threads(chunk, n_jobs):
    """test_bnb_groups' brute-force suite (2-4 groups and intersections, exact and rounded
    weights, every metric, caps, lengths 2-3) with the parallel search, in both spaces."""
    from test_bnb_groups import ORACLE
    from test_bnb_groups import SEEDS as GROUP_SEEDS
    from test_bnb_groups import assert_matches_reference as matches_groups

    if not ORACLE:
        pytest.skip("tests/reference.py does not handle groups and weights")
    for seed in GROUP_SEEDS[chunk::8]:
        matches_groups(seed, n_jobs=n_jobs)
        matches_groups(seed + 1, majority_only=True, n_jobs=n_jobs)


@pytest.mark.parametrize("n_jobs", [1, 2])
def test_the_canonical_optimum_under_four_rules(n_jobs):
    """Length cap 4: the terminal solver finishes prefixes of two rules, where equivalent
    prefixes (the same samples captured, the same counts) meet in the permutation map. Brute
    force's canonical optimum, from the serial search with canonical ties (n_jobs 1) and two
    threads."""
    rng = np.random.default_rng(2600)
    for trial in range(10):
        problem = random_problem(
            rng,
            n=int(rng.integers(24, 40)),
            m=5,
            metric=("SP", "EOpp", "EOdds", "PE")[trial % 4],
            epsilon=(None, 0.1, 0.25)[trial % 3],
            lam=(0.0, 0.01)[trial % 2],
            max_length=4,
        )
        objective, first = canonical_optimum(problem)
        solver = CanonicalSerial() if n_jobs == 1 else BnBSolver(n_jobs=n_jobs)
        result = solver.solve(problem)
        if first is None:
            assert result.status is Status.INFEASIBLE, trial
            continue
        assert result.status is Status.OPTIMAL, trial
        assert abs(result.objective - objective) <= 1e-12, trial
        assert key(result.rule_list) == key(first), trial


class CanonicalSerialNoCut(CanonicalSerial):
    """Canonical ties with the finished-tie cut off (Config::finished_tie_cut): a tying
    equivalent of a finished prefix that comes first canonically is searched again."""

    def _config(self, limits, max_length):
        return {**super()._config(limits, max_length), "finished_tie_cut": False}


def best_first_problem(trial):
    """Random problems where best-first order meets two-rule prefixes out of canonical order:
    the later one of two equivalent prefixes comes first canonically (the finished-tie cut)."""
    rng = np.random.default_rng(trial)
    return random_problem(
        rng,
        n=int(rng.integers(12, 30)),
        m=int(rng.integers(4, 7)),
        metric=("SP", "EOpp", "EOdds", "PE")[trial % 4],
        epsilon=(None, 0.1, 0.25)[trial % 3],
        lam=(0.0, 0.01)[trial % 2],
        max_length=4,
    )


def assert_canonical_best_first(trials, n_jobs=1):
    """Best-first, no beam: brute force's canonical optimum with the finished-tie cut on and
    off; serially, the cut saves nodes on some trial (so the trials reach it)."""
    options = {"policy": "lower_bound", "beam_width": 0}
    saved = 0
    for trial in trials:
        problem = best_first_problem(trial)
        objective, first = canonical_optimum(problem)
        on = CanonicalSerial(**options) if n_jobs == 1 else BnBSolver(n_jobs=n_jobs, **options)
        results = [on.solve(problem), CanonicalSerialNoCut(**options).solve(problem)]
        for result in results:
            if first is None:
                assert result.status is Status.INFEASIBLE, trial
                continue
            assert result.status is Status.OPTIMAL, trial
            assert abs(result.objective - objective) <= 1e-12, trial
            assert key(result.rule_list) == key(first), trial
        saved += results[1].stats["nodes_expanded"] - results[0].stats["nodes_expanded"]
    assert saved > 0 or n_jobs != 1  # threads expand a timing-dependent number of nodes


@pytest.mark.parametrize("n_jobs", [1, 2])
def test_the_finished_tie_cut_keeps_the_canonical_optimum(n_jobs):
    """Trials where dropping every tying equivalent of a finished prefix (not only those the
    cut proves useless) returns another list than brute force."""
    assert_canonical_best_first([66, 73, 104, 111, 134, 136], n_jobs)


@pytest.mark.slow
def test_the_finished_tie_cut_keeps_the_canonical_optimum_on_many_problems():
    assert_canonical_best_first(range(300))
