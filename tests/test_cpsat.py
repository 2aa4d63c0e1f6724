"""The CP-SAT engine against the brute-force reference, and its exact-arithmetic helpers."""

from __future__ import annotations

import _thread
import math
import warnings
from fractions import Fraction

import numpy as np
import pytest
from ortools.sat.python import cp_model
from reference import published_problem, random_group_problem, random_problem, reference_solve

from fairlist.metrics import FEASIBILITY_TOL, Metric, is_fair, unfairness
from fairlist.rulelist import Rule, RuleList
from fairlist.solvers import Limits, Problem, Status, StopReason, solve
from fairlist.solvers.cpsat import (
    DEFAULT_NUM_WORKERS,
    CPSatSolver,
    aggregate,
    build_model,
    canonical_rules,
    floor_fraction,
    lambda_fraction,
    resolve_max_length,
    stop_reason,
)

EPSILONS = (None, 0.0, 0.01, 0.05, 0.1, 0.25)
LAMBDAS = (0.0, 0.004, 0.01, 0.03)


def cpsat(problem: Problem, **options) -> object:
    return CPSatSolver(num_workers=1, **options).solve(problem)


def assert_fair_by_metrics(problem: Problem, rule_list: RuleList) -> None:
    """Re-evaluate with fairlist.metrics directly (not through Problem.evaluate)."""
    pred = rule_list.predict(problem.X)
    value = unfairness(problem.y, pred, problem.protected, problem.metric)
    assert is_fair(value, problem.epsilon), (value, problem.epsilon, str(rule_list))


def assert_agrees_with_reference(problem: Problem, max_length: int) -> object:
    ref = reference_solve(problem, max_length)
    res = cpsat(problem.replace(max_length=max_length))
    if ref.rule_list is None:
        assert res.status is Status.INFEASIBLE, (res.status, problem.metric, problem.epsilon)
        assert res.rule_list is None
        return res
    assert res.status is Status.OPTIMAL, res.status
    assert abs(res.objective - ref.objective) <= 1e-9, (res.objective, ref.objective)
    assert res.rule_list.length <= max_length
    assert res.lower_bound == res.objective
    assert_fair_by_metrics(problem, res.rule_list)
    return res


# ---------------------------------------------------------------- against the brute force
@pytest.mark.parametrize("metric", list(Metric), ids=lambda m: m.short_name)
def test_optimum_and_status_match_brute_force_on_random_instances(metric):
    rng = np.random.default_rng(1000 + int(metric))
    statuses = set()
    for _ in range(80):
        problem = random_problem(
            rng,
            n=int(rng.integers(6, 60)),
            m=int(rng.integers(1, 6)),
            metric=metric,
            epsilon=EPSILONS[rng.integers(len(EPSILONS))],
            lam=LAMBDAS[rng.integers(len(LAMBDAS))],
        )
        res = assert_agrees_with_reference(problem, int(rng.integers(0, 4)))
        statuses.add(res.status)
    assert Status.OPTIMAL in statuses


@pytest.mark.parametrize("n_groups", [2, 3])
@pytest.mark.parametrize("metric", list(Metric), ids=lambda m: m.short_name)
def test_optimum_matches_brute_force_with_exact_decimal_weights(metric, n_groups):
    """Weights of four decimals, read exactly: the fairness rows' coefficients pass 2**31.

    CP-SAT's presolve dropped fair lists from such rows (cpsat_model.guard_presolve) and
    certified a worse optimum; without the guard, seeds 43 (SP), 3 (EOpp) and 27 (EOdds), two
    groups, fail here (OR-Tools 9.15).
    """
    for seed in range(45):
        rng = np.random.default_rng(seed)
        n = int(rng.integers(20, 41))
        max_length = 1 + seed % 2
        base = random_group_problem(
            rng, n=n, m=3, k=n_groups, metric=metric, lam=0.01, max_length=max_length
        )
        weights = np.round(rng.uniform(0.05, 3.0, n), 4)
        epsilon = float(rng.choice([0.05, 0.1, 0.14, 0.2, 0.3]))
        problem = base.replace(sample_weight=weights, epsilon=epsilon)
        res = cpsat(problem)
        ref = reference_solve(problem, max_length)
        context = (seed, res.status, res.objective, ref.objective)
        assert res.stats["weights_exact"], context
        if not res.stats["epsilon_exact"]:
            # a conservative cap (PP, CUAE) may cut fair lists: it never claims the optimum
            assert res.status in (Status.FEASIBLE, Status.UNKNOWN), context
            assert res.rule_list is None or res.objective >= ref.objective - 1e-9, context
        elif ref.rule_list is None:
            assert res.status is Status.INFEASIBLE, context
        else:  # the model is the problem: its optimum is the optimum
            assert res.status is Status.OPTIMAL, context
            assert res.objective == pytest.approx(ref.objective, abs=1e-9), context
        assert res.rule_list is None or problem.evaluate(res.rule_list).fair, context


def test_rounded_weights_certificate_never_passes_brute_force():
    """Arbitrary real weights are rounded; the certificate's lower bound comes from a second
    CP-SAT search with the cap raised (weights.bound_from_above). That search met the same
    presolve fault: without cpsat_model.guard_presolve, seed 43 (EOpp) was certified optimal
    within 1.45e-08 at 0.4697 while brute force finds 0.2743 (OR-Tools 9.15)."""
    for seed in range(45):
        rng = np.random.default_rng(seed)
        metric = ("SP", "EOpp", "EOdds")[seed % 3]
        n = int(rng.integers(20, 41))
        base = random_group_problem(rng, n=n, m=3, k=2, metric=metric, lam=0.01, max_length=2)
        weights = rng.uniform(0.05, 3.0, n)
        epsilon = float(rng.choice([0.05, 0.1, 0.14, 0.2, 0.3]))
        problem = base.replace(sample_weight=weights, epsilon=epsilon)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # the rounding's ConvergenceWarning
            res = cpsat(problem)
        ref = reference_solve(problem, 2)
        context = (seed, metric, res.status, res.objective, res.lower_bound, ref.objective)
        assert not res.stats["weights_exact"], context
        assert res.lower_bound <= ref.objective + 1e-12, context
        if res.status is Status.OPTIMAL:
            assert res.objective <= ref.objective + res.certified_tolerance, context


@pytest.mark.parametrize("metric", list(Metric), ids=lambda m: m.short_name)
def test_majority_space_matches_brute_force_majority_space(metric):
    rng = np.random.default_rng(3000 + int(metric))
    for _ in range(30):
        problem = random_problem(
            rng,
            n=int(rng.integers(6, 50)),
            m=int(rng.integers(1, 5)),
            metric=metric,
            epsilon=EPSILONS[rng.integers(len(EPSILONS))],
            lam=LAMBDAS[rng.integers(len(LAMBDAS))],
        )
        K = int(rng.integers(0, 4))
        ref = reference_solve(problem, K, majority_only=True)
        res = cpsat(problem.replace(max_length=K), majority_only=True)
        assert res.search_space == "majority"
        if ref.rule_list is None:
            assert res.status is Status.INFEASIBLE
        else:
            assert res.status is Status.OPTIMAL
            assert abs(res.objective - ref.objective) <= 1e-9
            assert_fair_by_metrics(problem, res.rule_list)


@pytest.mark.parametrize("metric", list(Metric), ids=lambda m: m.short_name)
def test_unfairness_exactly_at_the_cap_is_accepted_and_just_above_is_not(metric):
    rng = np.random.default_rng(2000 + int(metric))
    checked = 0
    for _ in range(40):
        base = random_problem(rng, n=int(rng.integers(10, 50)), m=4, metric=metric, lam=0.01)
        free = reference_solve(base, 2)
        value = base.evaluate(free.rule_list).unfairness
        if value == 0:
            continue
        checked += 1
        at_cap = base.replace(epsilon=value)  # the unconstrained optimum is fair here
        res = assert_agrees_with_reference(at_cap, 2)
        assert abs(res.objective - free.objective) <= 1e-9
        below = base.replace(epsilon=max(0.0, value - 1e-6))
        res = assert_agrees_with_reference(below, 2)
        if res.rule_list is not None:
            assert res.unfairness <= value - 1e-6 + FEASIBILITY_TOL
    assert checked >= 10


def test_zero_denominator_rate_is_zero_for_predictive_parity():
    # Unprotected: x0 marks the positives. Protected: x0 never holds. "if x0 then 1 else 0" is
    # perfect, but predicts no positive in the protected group, whose PPV is then 0 (not
    # undefined), so its PP unfairness is |0 - 1| = 1 and epsilon = 0.2 rejects it.
    x0 = [1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0]
    x1 = [0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 0, 0]
    y = [1, 1, 1, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0]
    protected = [False] * 8 + [True] * 5
    X = np.array([x0, x1], dtype=np.uint8).T
    problem = Problem(X, y, protected, metric="PP", epsilon=0.2, lam=0.001, max_length=2)
    perfect = RuleList([Rule("x0", 1)], 0, feature_names=problem.feature_names)
    assert problem.evaluate(perfect).unfairness == 1.0
    res = assert_agrees_with_reference(problem, 2)
    assert res.objective > problem.evaluate(perfect).objective


def test_zero_constant_denominator_rate_is_zero_for_equal_opportunity():
    # The protected group has no positive label: its TPR is 0 whatever is predicted, so with
    # epsilon = 0 no unprotected positive may be predicted positive.
    rng = np.random.default_rng(7)
    X = (rng.random((30, 3)) < 0.5).astype(np.uint8)
    protected = np.arange(30) < 12
    y = np.where(protected, 0, X[:, 0])
    problem = Problem(X, y, protected, metric="EOpp", epsilon=0.0, lam=0.001)
    res = assert_agrees_with_reference(problem, 2)
    pred = res.rule_list.predict(X).astype(bool)
    assert not np.any(pred & (y == 1))


def test_a_gap_tolerance_stops_within_the_gap_of_the_true_optimum():
    """CP-SAT calls a solve stopped by absolute_gap_limit OPTIMAL: the engine reports it as
    feasible, stop reason gap_limit, with a lower bound that still bounds the optimum."""
    rng = np.random.default_rng(0)
    stopped_by_gap = 0
    for _ in range(12):
        problem = random_problem(rng, n=200, m=10, metric="SP", epsilon=0.1, lam=0.001)
        optimum = reference_solve(problem, 3).objective
        limited = problem.replace(max_length=3, limits=Limits(gap_tolerance=0.05))
        result = CPSatSolver().solve(limited)
        assert result.lower_bound <= optimum + 1e-9 <= result.objective + 2e-9
        assert result.objective - result.lower_bound <= 0.05 + 1e-9
        if result.stop_reason is StopReason.GAP_LIMIT:
            stopped_by_gap += 1
            assert result.status is Status.FEASIBLE
        else:
            assert result.status is Status.OPTIMAL and result.objective == pytest.approx(optimum)
    assert stopped_by_gap > 0  # the case this test is about happened


def test_infeasible_problem_is_reported_infeasible_without_rule_list():
    rng = np.random.default_rng(11)
    for _ in range(40):
        problem = random_problem(rng, n=30, m=3, metric="CUAE", epsilon=0.0, lam=0.01)
        if reference_solve(problem, 2).rule_list is None:
            res = assert_agrees_with_reference(problem, 2)
            assert math.isinf(res.objective) and res.stop_reason.value == "completed"
            return
    pytest.fail("no infeasible instance generated; change the seed")


def test_compas_subsample_matches_brute_force(shared_data):
    from reference import published_problem

    rng = np.random.default_rng(5)
    rows = rng.choice(5273, 200, replace=False)
    cols = rng.choice(163, 6, replace=False)
    base = published_problem(
        shared_data / "faircorels" / "compas_rules_full.csv", rows, cols, lam=0.005
    )
    for metric, epsilon in (("SP", 0.02), ("PP", 0.05), ("EOdds", 0.05)):
        assert_agrees_with_reference(base.replace(metric=metric, epsilon=epsilon), 2)


# ---------------------------------------------------------------- interface and options
def test_engine_is_reachable_through_solve_and_reports_full_space():
    problem = random_problem(np.random.default_rng(3), metric="SP", epsilon=0.05, max_length=2)
    res = solve(problem, engine="cpsat", num_workers=1)
    assert res.engine == "cpsat" and res.search_space == "full"
    assert res.stats["max_length"] == 2 and res.stats["max_length_source"] == "problem"


def test_hint_is_accepted_and_does_not_change_the_optimum():
    problem = random_problem(np.random.default_rng(4), n=50, m=5, metric="EOdds", epsilon=0.05)
    ref = reference_solve(problem, 3)
    res = cpsat(problem.replace(max_length=3), initial=ref.rule_list)
    assert res.stats["hinted"] is True
    assert abs(res.objective - ref.objective) <= 1e-9


def test_non_canonical_hint_is_kept_after_normalisation():
    # Same-prediction rules out of order, a rule that captures nothing, and a last rule that
    # predicts like the default: the model's cuts exclude this list as written, but its
    # canonical form (same predictions) fits within max_length = 2.
    X = np.array([[1, 0, 1], [0, 1, 0], [1, 1, 0], [0, 0, 0]] * 3, dtype=np.uint8)
    problem = Problem(X, [1, 1, 1, 0] * 3, [True, False] * 6, lam=0.01, max_length=2)
    hint = problem.rule_list([1, 0, 2], [1, 1, 0], 0)
    res = cpsat(problem, initial=hint)
    assert res.stats["hinted"] is True
    assert res.status is Status.OPTIMAL


def test_hint_longer_than_the_bound_is_ignored():
    problem = random_problem(np.random.default_rng(4), n=30, m=4, max_length=1)
    hint = problem.rule_list([0, 1], [1, 0], 1)
    assert cpsat(problem, initial=hint).stats["hinted"] is False


def test_max_length_defaults_to_the_exact_lambda_bound():
    rng = np.random.default_rng(8)
    problem = random_problem(rng, n=40, m=5, metric="SP", epsilon=0.1, lam=0.05)
    K, source = resolve_max_length(problem, None)
    assert source == "lambda_bound"
    constant = min(
        problem.evaluate(RuleList((), q, feature_names=problem.feature_names)).objective
        for q in (0, 1)
        if problem.evaluate(RuleList((), q, feature_names=problem.feature_names)).fair
    )
    assert K == min(5, math.floor(constant / 0.05 + 1e-12))
    res = cpsat(problem)
    assert res.stats["max_length_source"] == "lambda_bound"
    assert abs(res.objective - reference_solve(problem, 5).objective) <= 1e-9


def test_max_length_option_and_unbounded_fallback():
    problem = random_problem(np.random.default_rng(9), n=20, m=3, lam=0.0)
    assert resolve_max_length(problem, 2) == (2, "option")
    assert resolve_max_length(problem, None) == (3, "n_antecedents")
    assert resolve_max_length(problem.replace(max_length=1), 2) == (1, "problem")


def test_identical_samples_are_aggregated_into_weighted_patterns():
    problem = random_problem(np.random.default_rng(10), n=200, m=3)
    patterns, weights = aggregate(problem)
    assert len(patterns) == len(np.unique(problem.X, axis=0)) <= 8
    assert weights.sum() == 200
    assert weights[:, 0, :].sum() == problem.protected.sum()
    assert weights[:, :, 1].sum() == problem.y.sum()


def test_patterns_sum_integer_weights_per_group_and_label_and_drop_weight_zero():
    rng = np.random.default_rng(10)
    X = (rng.random((120, 3)) < 0.5).astype(np.uint8)
    groups, y = rng.integers(0, 4, 120), rng.integers(0, 2, 120)
    groups[:4] = np.arange(4)
    w = rng.integers(0, 3, 120) * 0.5  # halves: integers 0, 1, 2
    w[:4] = 1.0
    problem = Problem(X, y, groups, sample_weight=w)
    patterns, weights = aggregate(problem)
    assert weights.shape == (len(patterns), 4, 2)
    assert len(patterns) == len(np.unique(X[w > 0], axis=0))
    for g in range(4):
        for label in (0, 1):
            assert weights[:, g, label].sum() == 2 * w[(groups == g) & (y == label)].sum()


def test_cap_that_cannot_be_encoded_exactly_never_claims_optimality():
    # CUAE on 2000 samples: the exact cap needs integers beyond 64 bits, so the model is made
    # conservative and must not report optimal/infeasible.
    problem = random_problem(np.random.default_rng(12), n=2000, m=2, metric="CUAE", epsilon=0.3)
    res = cpsat(problem.replace(max_length=1))
    assert res.stats["epsilon_exact"] is False
    assert res.status in (Status.FEASIBLE, Status.UNKNOWN)
    if res.rule_list is not None:
        assert_fair_by_metrics(problem, res.rule_list)


@pytest.mark.parametrize(
    ("option", "value"),
    [("num_workers", 0), ("seed", 2**40), ("seed", 1.5), ("initial", "if x then 1")],
)
def test_bad_option_raises_value_error_naming_it(option, value):
    problem = random_problem(np.random.default_rng(0), n=10, m=2)
    with pytest.raises(ValueError, match=option):
        CPSatSolver(**{option: value}).solve(problem)


@pytest.mark.parametrize(
    ("old", "value", "new"),
    [
        ("hint", None, "initial"),
        ("random_seed", 3, "seed"),
        ("max_length", 2, "Problem"),
        ("time_limit", 5.0, "Limits"),
    ],
)
def test_deprecated_options_warn_and_name_their_owner(old, value, new):
    if old == "hint":
        value = RuleList([], default=1)
    with pytest.warns(FutureWarning, match=f"{old}=.*{new}"):
        solver = CPSatSolver(**{old: value})
    if old == "hint":
        assert solver.initial is value
    if old == "random_seed":
        assert solver.seed == 3


# ---------------------------------------------------------------- the model's hint
def test_model_hint_is_a_complete_assignment_of_the_rule_list():
    # Fixing every hinted variable must leave a feasible model whose objective is the hint's.
    problem = random_problem(np.random.default_rng(14), n=60, m=5, metric="PP", epsilon=0.1)
    ref = reference_solve(problem, 3)
    built = build_model(problem, 3)
    assert built.stats["hinted"] is False
    assert built.add_hint(ref.rule_list) is True
    assert built.stats["hinted"] is True
    solver = cp_model.CpSolver()
    solver.parameters.num_workers = 1
    solver.parameters.fix_variables_to_their_hinted_value = True
    assert solver.solve(built.model) == cp_model.OPTIMAL
    assert abs(solver.objective_value / built.objective.scale - ref.objective) <= 1e-9
    assert solver.value(built.objective.errors) == problem.evaluate(ref.rule_list).errors


def test_model_hint_replaces_an_earlier_one_and_a_misfit_leaves_the_model_as_it_was():
    problem = random_problem(np.random.default_rng(15), n=40, m=4, lam=0.01)
    built = build_model(problem, 2)
    assert built.add_hint(problem.rule_list([0], [1], 0)) is True
    n_hinted = len(built.model.proto.solution_hint.vars)
    assert built.add_hint(problem.rule_list([1], [0], 1)) is True
    assert len(built.model.proto.solution_hint.vars) == n_hinted
    hinted = str(built.model.proto.solution_hint)
    assert built.add_hint(problem.rule_list([0, 1, 2], [1, 0, 1], 0)) is False  # longer than K
    foreign = RuleList([Rule("not a feature", 1)], 0)
    assert built.add_hint(foreign) is False
    assert str(built.model.proto.solution_hint) == hinted
    fresh = build_model(problem, 2)
    assert fresh.add_hint(foreign) is False and fresh.stats["hinted"] is False
    assert len(fresh.model.proto.solution_hint.vars) == 0


def test_canonical_rules_sorts_runs_and_drops_idle_rules():
    patterns = np.array([[1, 0, 1], [0, 1, 0], [1, 1, 0], [0, 0, 0]], dtype=np.uint8)
    rules = [(1, 1), (0, 1), (2, 0)]  # (2, 0) captures nothing once 0 and 1 have fired
    assert canonical_rules(rules, 0, patterns, majority_only=False) == [(0, 1), (1, 1)]
    # no sorting in the majority space: a swap changes what each rule captures
    assert canonical_rules(rules, 0, patterns, majority_only=True) == [(1, 1), (0, 1)]
    # a last rule predicting like the default goes, which may expose another one
    assert canonical_rules([(0, 1), (1, 0)], 0, patterns, majority_only=False) == [(0, 1)]
    assert canonical_rules([(0, 1), (1, 1)], 1, patterns, majority_only=False) == []


# ---------------------------------------------------------------- workers and stop reasons
def hard_compas(shared_data) -> Problem:
    """1000 COMPAS rows, 24 antecedents, up to 4 rules: many seconds for CP-SAT to prove."""
    rng = np.random.default_rng(16)
    rows = rng.choice(5273, 1000, replace=False)
    cols = rng.choice(163, 24, replace=False)
    path = shared_data / "faircorels" / "compas_rules_full.csv"
    return published_problem(path, rows, cols, metric="SP", epsilon=0.05, lam=0.005, max_length=4)


def test_default_solve_uses_one_worker_and_is_reproducible(shared_data):
    assert DEFAULT_NUM_WORKERS == 1 and CPSatSolver().num_workers == DEFAULT_NUM_WORKERS
    rng = np.random.default_rng(17)
    path = shared_data / "faircorels" / "compas_rules_full.csv"
    problem = published_problem(
        path,
        rng.choice(5273, 300, replace=False),
        rng.choice(163, 12, replace=False),
        metric="EOdds",
        epsilon=0.05,
        lam=0.005,
        max_length=3,
    )
    first, second = CPSatSolver().solve(problem), CPSatSolver().solve(problem)
    assert first.status is Status.OPTIMAL and first.stats["num_workers"] == 1
    assert first.objective == second.objective
    assert first.rule_list == second.rule_list


def test_time_limited_solve_reports_the_time_limit(shared_data):
    # 1 s: the model is built (a fraction of a second), then the search is cut short
    problem = hard_compas(shared_data).replace(limits=Limits(time_limit=1.0))
    res = CPSatSolver().solve(problem)
    assert res.status in (Status.FEASIBLE, Status.UNKNOWN)
    assert res.stats["cpsat_status"] in ("FEASIBLE", "UNKNOWN")
    assert res.stop_reason is StopReason.TIME_LIMIT


def test_ctrl_c_stops_the_search_and_reports_interrupted(shared_data, monkeypatch):
    problem = hard_compas(shared_data).replace(limits=Limits(time_limit=60.0))

    class CtrlC(cp_model.CpSolverSolutionCallback):
        def __init__(self):
            super().__init__()
            self.pressed = False

        def on_solution_callback(self):
            if not self.pressed:
                self.pressed = True
                _thread.interrupt_main()  # as Ctrl-C in the main thread would

    class CtrlCOnFirstSolution(cp_model.CpSolver):
        def solve(self, model, solution_callback=None):
            return super().solve(model, CtrlC())

    monkeypatch.setattr(cp_model, "CpSolver", CtrlCOnFirstSolution)
    res = CPSatSolver().solve(problem)
    assert res.stop_reason is StopReason.INTERRUPTED
    assert res.status is Status.FEASIBLE and res.rule_list is not None
    assert res.stats["solve_seconds"] < 30


def test_completed_search_on_a_conservative_model_is_completed_but_not_proved():
    problem = random_problem(np.random.default_rng(12), n=2000, m=2, metric="CUAE", epsilon=0.3)
    res = cpsat(problem.replace(max_length=1))
    assert res.stats["epsilon_exact"] is False and res.stats["cpsat_status"] == "OPTIMAL"
    assert res.status is Status.FEASIBLE and res.stop_reason is StopReason.COMPLETED


@pytest.mark.parametrize(
    ("status", "interrupted", "wall", "time_limit", "memory_mb", "expected"),
    [
        (cp_model.OPTIMAL, False, 1.0, 1.0, None, StopReason.COMPLETED),
        (cp_model.INFEASIBLE, True, 0.1, 1.0, None, StopReason.COMPLETED),
        (cp_model.FEASIBLE, True, 0.1, 1.0, 100, StopReason.INTERRUPTED),
        (cp_model.FEASIBLE, False, 1.0, 1.0, None, StopReason.TIME_LIMIT),
        # CP-SAT's time limit is conservative: it may stop a little before the limit
        (cp_model.UNKNOWN, False, 0.8, 1.0, None, StopReason.TIME_LIMIT),
        (cp_model.FEASIBLE, False, 9.0, 10.0, 100, StopReason.TIME_LIMIT),
        (cp_model.FEASIBLE, False, 1.0, 10.0, 100, StopReason.MEMORY_LIMIT),
        # no time limit: only CP-SAT's memory limit (its default is 10000 MB) stops a search
        (cp_model.UNKNOWN, False, 3.0, None, None, StopReason.MEMORY_LIMIT),
    ],
)
def test_stop_reason(status, interrupted, wall, time_limit, memory_mb, expected):
    assert stop_reason(status, interrupted, wall, time_limit, memory_mb) is expected


# ---------------------------------------------------------------- exact arithmetic helpers
def test_floor_fraction_is_the_largest_fraction_below_with_bounded_denominator():
    rng = np.random.default_rng(13)
    for _ in range(300):
        x = Fraction(int(rng.integers(0, 10**6)), int(rng.integers(1, 10**6)))
        bound = int(rng.integers(1, 60))
        expected = max(Fraction(math.floor(x * q), q) for q in range(1, bound + 1))
        assert floor_fraction(x, bound) == expected


def test_floor_fraction_keeps_the_float_cap_with_tolerance():
    cap = Fraction(0.05 + FEASIBILITY_TOL)
    assert floor_fraction(cap, 400) == Fraction(1, 20)


def test_lambda_fraction_reads_the_decimal_the_user_wrote():
    assert lambda_fraction(0.01) == Fraction(1, 100)
    assert lambda_fraction(0.0) == 0
    assert lambda_fraction(1 / 3) == Fraction(1, 3)
    assert lambda_fraction(0.000125) == Fraction(1, 8000)


def test_progress_reports_better_solutions_and_bounds_in_the_problems_units():
    problem = random_problem(
        np.random.default_rng(3), n=80, m=6, metric="SP", epsilon=0.1, lam=0.01, max_length=3
    )
    seen = []
    result = CPSatSolver(progress=seen.append).solve(problem)
    assert result.status is Status.OPTIMAL and seen
    best = [s["best_objective"] for s in seen]
    assert best == sorted(best, reverse=True)  # never worse
    assert best[-1] == pytest.approx(result.objective, abs=1e-12)
    assert all(s["lower_bound"] <= result.objective + 1e-12 for s in seen)


def test_a_long_model_left_without_max_length_warns():
    from fairlist.solvers.cpsat import LongModelWarning

    problem = random_problem(np.random.default_rng(4), n=40, m=8, lam=0.001)
    with pytest.warns(LongModelWarning, match="max_length"):
        CPSatSolver().solve(problem.with_limits(Limits(time_limit=1.0)))
