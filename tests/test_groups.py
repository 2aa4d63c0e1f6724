"""Fairness over k >= 2 groups (and their intersections) and sample weights, in the exact engines.

Every engine must solve the generalised problem of ``docs/design.md`` §1 exactly: on random small
instances (k = 2, 3, 4 groups, intersections of two columns, integer and decimal weights, every
metric, several epsilons including 0) its status and objective are the brute-force oracle's
(``tests/reference.py``); integer weights give exactly what duplicated rows give; and the
metrics are fairlearn's ``MetricFrame(...).difference(method="between_groups")``.

Each engine test runs once per engine. The ``bnb`` runs are skipped while
:class:`~fairlist.solvers.bnb.BnBSolver` refuses problems of more than two groups or with sample
weights (``check_two_groups_unweighted``); they run as soon as it stops refusing.
"""

from __future__ import annotations

import math
import warnings
from fractions import Fraction

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from reference import (
    random_group_problem,
    random_problem,
    reference_solve,
    reference_unfairness,
)

from fairlist.errors import DataError, InvalidParameterError
from fairlist.groups import SmallGroupWarning, encode_groups
from fairlist.metrics import FEASIBILITY_TOL, Metric, confusion_counts, unfairness
from fairlist.solvers import ENGINES, Problem, Status
from fairlist.solvers.cpsat import CPSatSolver, build_model, fairness_cap, integer_weights

METRICS = list(Metric)
EPSILONS = (None, 0.0, 0.02, 0.05, 0.1, 0.25)
LAMBDAS = (0.0, 0.004, 0.01, 0.03)
EXACT_WEIGHTS = (None, "integer", "decimal")  # weights every engine must handle exactly

_REFUSAL = "two groups without sample weights"


def engine_solver(engine: str, **options):
    """A solver of ``engine``; skips the test while bnb refuses k > 2 groups or weights."""
    if engine == "cpsat":
        return CPSatSolver(num_workers=1, **options)
    bnb = pytest.importorskip("fairlist.solvers.bnb")
    probe = Problem(np.eye(3, dtype=np.uint8), [0, 1, 1], [0, 1, 2], sample_weight=[1.0, 2.0, 0.5])
    try:
        bnb.BnBSolver().solve(probe)
    except InvalidParameterError as exc:
        if _REFUSAL in str(exc):
            pytest.skip(f"bnb does not solve k > 2 groups / sample weights yet ({exc})")
        raise
    return bnb.BnBSolver(**options)


def draw_instance(rng: np.random.Generator, metric: Metric, kinds=EXACT_WEIGHTS) -> Problem:
    """A random small instance: 2 to 4 groups or intersections, some weight kind, some cap."""
    return random_group_problem(
        rng,
        n=int(rng.integers(8, 40)),
        m=int(rng.integers(1, 5)),
        k=int(rng.integers(2, 5)),
        intersections=bool(rng.random() < 0.3),
        weights=kinds[rng.integers(len(kinds))],
        metric=metric,
        epsilon=EPSILONS[rng.integers(len(EPSILONS))],
        lam=LAMBDAS[rng.integers(len(LAMBDAS))],
        max_length=int(rng.integers(0, 3)),
    )


def assert_matches_reference(problem: Problem, result, majority_only: bool = False) -> Status:
    """``result`` is the brute force's: same status, objective within 1e-9, a fair list."""
    ref = reference_solve(problem, problem.max_length, majority_only=majority_only)
    context = (
        problem.metric.short_name,
        problem.n_groups,
        problem.epsilon,
        problem.lam,
        problem.max_length,
        problem.sample_weight is not None,
    )
    if ref.rule_list is None:
        assert result.status is Status.INFEASIBLE, (result.status, context)
        assert result.rule_list is None
        return result.status
    assert result.status is Status.OPTIMAL, (result.status, context, result.stats)
    assert abs(result.objective - ref.objective) <= 1e-9, (result.objective, ref.objective, context)
    assert result.rule_list.length <= problem.max_length
    pred = result.rule_list.predict(problem.X)
    value = reference_unfairness(problem, pred)
    assert problem.epsilon is None or value <= problem.epsilon + FEASIBILITY_TOL, (value, context)
    return result.status


# ---------------------------------------------------------------- against the brute force
@pytest.mark.parametrize("metric", METRICS, ids=lambda m: m.short_name)
@pytest.mark.parametrize("engine", list(ENGINES))
def test_engine_matches_brute_force_on_groups_and_weights(engine, metric):
    solver = engine_solver(engine)
    rng = np.random.default_rng(14_000 + int(metric))
    statuses, groups = set(), set()
    for _ in range(40):
        problem = draw_instance(rng, metric)
        statuses.add(assert_matches_reference(problem, solver.solve(problem)))
        groups.add(problem.n_groups)
    assert Status.OPTIMAL in statuses
    assert {2, 3, 4} <= groups


@pytest.mark.parametrize("metric", METRICS, ids=lambda m: m.short_name)
@pytest.mark.parametrize("engine", list(ENGINES))
def test_majority_space_with_groups_and_weights(engine, metric):
    # Each prediction is a majority label by weight of the samples it classifies.
    solver = engine_solver(engine, majority_only=True)
    rng = np.random.default_rng(15_000 + int(metric))
    for _ in range(12):
        problem = draw_instance(rng, metric)
        result = solver.solve(problem)
        assert result.search_space == "majority"
        assert_matches_reference(problem, result, majority_only=True)


@pytest.mark.slow
@pytest.mark.parametrize("metric", METRICS, ids=lambda m: m.short_name)
@pytest.mark.parametrize("engine", list(ENGINES))
def test_engine_matches_brute_force_on_larger_instances(engine, metric):
    solver = engine_solver(engine)
    rng = np.random.default_rng(16_000 + int(metric))
    for _ in range(100):
        problem = random_group_problem(
            rng,
            n=int(rng.integers(10, 90)),
            m=int(rng.integers(2, 6)),
            k=int(rng.integers(2, 5)),
            intersections=bool(rng.random() < 0.4),
            weights=EXACT_WEIGHTS[rng.integers(3)],
            metric=metric,
            epsilon=EPSILONS[rng.integers(len(EPSILONS))],
            lam=LAMBDAS[rng.integers(len(LAMBDAS))],
            max_length=int(rng.integers(1, 4)),
        )
        assert_matches_reference(problem, solver.solve(problem))


def test_intersections_of_two_columns_are_the_groups():
    rng = np.random.default_rng(3)
    problem = random_group_problem(
        rng, n=60, k=3, intersections=True, metric="SP", epsilon=0.1, max_length=2
    )
    assert problem.n_groups == 4
    assert all(" & " in name for name in problem.group_names)
    assert_matches_reference(problem, CPSatSolver().solve(problem))


@pytest.mark.parametrize("engine", list(ENGINES))
def test_a_rate_without_denominator_weight_is_zero(engine):
    # Group g2's positive samples all weigh 0: its TPR is 0 whatever is predicted, so with an
    # EOpp cap of 0 no positive of another group may be predicted positive.
    solver = engine_solver(engine)
    rng = np.random.default_rng(21)
    X = (rng.random((30, 3)) < 0.5).astype(np.uint8)
    sensitive = np.array(["g0", "g1", "g2"] * 10)
    y = X[:, 0].copy()
    y[:3] = [1, 0, 0]
    w = np.where((sensitive == "g2") & (y == 1), 0.0, rng.integers(1, 4, 30).astype(float))
    w[2] = 1.0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SmallGroupWarning)
        problem = Problem.from_data(
            X, y, sensitive, sample_weight=w, metric="EOpp", epsilon=0.0, lam=0.001, max_length=2
        )
    result = solver.solve(problem)
    assert_matches_reference(problem, result)
    pred = result.rule_list.predict(X).astype(bool)
    assert not np.any(pred & (y == 1) & (w > 0))


# ---------------------------------------------------------------- weights made integers
def test_weights_are_read_as_the_fractions_they_print_as():
    def read(w):
        p = Problem(
            np.eye(len(w), dtype=np.uint8),
            [0, 1] * (len(w) // 2),
            [0, 1] * (len(w) // 2),
            sample_weight=w,
        )
        return integer_weights(p)

    quarters = read([0.5, 1.25, 2.0, 0.75])
    assert quarters.exact and quarters.values.tolist() == [2, 5, 8, 3]
    assert quarters.scale == 4 and quarters.rho == 0
    thirds = read([1 / 3, 2 / 3, 1.0, 1 / 3])
    assert thirds.exact and thirds.values.tolist() == [1, 2, 3, 1] and thirds.scale == 3
    computed = read([3 * 0.1, 0.3, 0.7, 0.1 + 0.2])  # 0.30000000000000004 reads as 3/10
    assert computed.exact and computed.values.tolist() == [3, 3, 7, 3]
    same = read([2.5, 2.5, 2.5, 2.5])  # one common factor: the unweighted counts
    assert same.values.tolist() == [1, 1, 1, 1]


def test_other_weights_are_rounded_within_the_stated_relative_error():
    rng = np.random.default_rng(5)
    w = rng.uniform(0.01, 5.0, 50)
    p = Problem(
        np.zeros((50, 1), np.uint8), rng.integers(0, 2, 50), np.arange(50) % 2 == 0, sample_weight=w
    )
    rounded = integer_weights(p)
    assert not rounded.exact and 0 < rounded.rho < 1e-5
    assert rounded.total <= 2**31
    for v, x in zip(rounded.values, w, strict=True):
        assert abs(Fraction(int(v)) / rounded.scale - Fraction(x)) <= rounded.rho * Fraction(x)
    # a total beyond 2**31 is rounded too, even for integers
    big = integer_weights(p.replace(sample_weight=np.full(50, 2.0**40) + np.arange(50)))
    assert not big.exact and big.total <= 2**31


def test_rounded_weights_lower_the_cap_by_the_proven_margin():
    rng = np.random.default_rng(6)
    p = random_group_problem(rng, n=30, k=3, weights="real", metric="EOdds", epsilon=0.1)
    weights = integer_weights(p)
    margin = Fraction(0.1 + FEASIBILITY_TOL) - fairness_cap(p, weights)
    # the per-cell margin (weights.cap_margin): positive, at most 2 rho per gap (two rates)
    assert 0 < margin <= 2 * 2 * weights.rho
    assert fairness_cap(p, integer_weights(p.replace(sample_weight=None))) == Fraction(
        0.1 + FEASIBILITY_TOL
    )


def test_equal_weights_build_the_unweighted_model():
    rng = np.random.default_rng(7)
    for metric in ("SP", "PP", "EOdds", "CUAE"):
        base = random_problem(rng, n=40, m=4, metric=metric, epsilon=0.05)
        weighted = base.replace(sample_weight=np.full(40, 2.5))
        assert str(build_model(weighted, 2).model.proto) == str(build_model(base, 2).model.proto)


@pytest.mark.parametrize("metric", METRICS, ids=lambda m: m.short_name)
def test_cpsat_result_with_decimal_weights_is_re_evaluated_with_the_true_weights(metric):
    rng = np.random.default_rng(8 + int(metric))
    result = None
    while result is None or result.rule_list is None:
        problem = random_group_problem(
            rng,
            n=30,
            m=4,
            k=3,
            weights="decimal",
            metric=metric,
            epsilon=0.25,
            lam=0.01,
            max_length=2,
        )
        result = CPSatSolver().solve(problem)
    assert result.stats["weights_exact"] is True
    ev = problem.evaluate(result.rule_list)
    w, y = problem.sample_weight, problem.y
    pred = result.rule_list.predict(problem.X)
    by_hand = w[pred != y].sum() / w.sum() + problem.lam * result.rule_list.length
    assert result.objective == ev.objective
    assert result.objective == pytest.approx(by_hand, rel=1e-12, abs=1e-12)
    assert result.unfairness == ev.unfairness
    assert result.status in (Status.OPTIMAL, Status.INFEASIBLE)
    assert_matches_reference(problem, result)


@pytest.mark.parametrize("metric", METRICS, ids=lambda m: m.short_name)
def test_cpsat_with_rounded_real_weights_is_fair_and_its_proofs_hold(metric):
    """Rounded weights: every list is fair for the true weights; a proof (infeasible, a lower
    bound, from the search with the raised cap, fairlist.solvers.weights.bound_from_above)
    agrees with brute force."""
    rng = np.random.default_rng(9_000 + int(metric))
    found = 0
    for _ in range(12):
        problem = draw_instance(rng, metric, kinds=("real",))
        result = CPSatSolver().solve(problem)
        assert result.stats["weights_exact"] is False
        ref = reference_solve(problem, problem.max_length)
        assert result.lower_bound <= ref.objective + 1e-12
        if result.status is Status.INFEASIBLE:
            assert math.isinf(ref.objective)
        if result.rule_list is None:
            assert result.status in (Status.UNKNOWN, Status.INFEASIBLE)
            continue
        assert result.status in (Status.FEASIBLE, Status.OPTIMAL)
        found += 1
        pred = result.rule_list.predict(problem.X)
        if problem.epsilon is not None:  # fair for the true weights, by the oracle
            assert reference_unfairness(problem, pred) <= problem.epsilon + FEASIBILITY_TOL
        assert result.objective == problem.evaluate(result.rule_list).objective
        assert result.objective >= ref.objective - 1e-9
    assert found >= 3


def test_eodds_with_many_coprime_denominators_is_written_per_pair_and_stays_exact():
    # Integer weights make the eight TPR / FPR denominators large and coprime: their lcm
    # overflows 64 bits, so each gap counts in its own pair's units; still exact.
    rng = np.random.default_rng(10)
    checked = 0
    for _ in range(6):
        problem = random_group_problem(
            rng,
            n=40,
            m=3,
            k=4,
            metric="EOdds",
            epsilon=[0.05, 0.2][checked % 2],
            lam=0.005,
            max_length=2,
        )
        w = rng.integers(100, 2500, problem.n_samples).astype(float)
        problem = problem.replace(sample_weight=w)
        built = build_model(problem, 2)
        proto = built.model.proto
        units = {v.name: list(v.domain)[-1] for v in proto.variables if v.name.startswith("gap[")}
        if len(set(units.values())) == 1:
            continue  # the lcm fitted this time
        checked += 1
        assert built.epsilon_exact
        assert_matches_reference(problem, CPSatSolver().solve(problem))
    assert checked >= 3


@pytest.mark.parametrize("metric", ["EOdds", "CUAE"])
def test_caps_too_large_for_64_bits_are_conservative_not_claimed_exact(metric):
    rng = np.random.default_rng(11)
    problem = random_group_problem(
        rng, n=40, m=3, k=4, metric=metric, epsilon=0.3, lam=0.005, max_length=1
    )
    problem = problem.replace(sample_weight=rng.integers(10**5, 10**6, 40).astype(float))
    result = CPSatSolver().solve(problem)
    assert result.stats["weights_exact"] and not result.stats["epsilon_exact"]
    assert result.status in (Status.FEASIBLE, Status.UNKNOWN)
    if result.rule_list is not None:
        pred = result.rule_list.predict(problem.X)
        assert reference_unfairness(problem, pred) <= 0.3 + FEASIBILITY_TOL
        assert result.objective >= reference_solve(problem, 1).objective - 1e-9


# ---------------------------------------------------------------- integer weights = duplicates
def _weighted_and_duplicated(seed: int, n: int, k: int, metric: Metric, epsilon):
    """The same random data twice: with integer weights 0..3, and with each row repeated
    that many times (a row of weight 0 dropped)."""
    rng = np.random.default_rng(seed)
    X = (rng.random((n, 3)) < 0.45).astype(np.uint8)
    sensitive = np.array([f"g{c}" for c in np.r_[np.arange(k), rng.integers(0, k, n - k)]])
    y = rng.integers(0, 2, n)
    y[:2] = [0, 1]
    w = rng.integers(0, 4, n)
    w[:k] = np.maximum(w[:k], 1)  # every group keeps a row
    w[:2] = np.maximum(w[:2], 1)  # and both labels
    fields = dict(metric=metric, epsilon=epsilon, lam=0.01, max_length=2)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SmallGroupWarning)
        weighted = Problem.from_data(X, y, sensitive, sample_weight=w.astype(float), **fields)
        duplicated = Problem.from_data(
            np.repeat(X, w, axis=0), np.repeat(y, w), np.repeat(sensitive, w), **fields
        )
    return weighted, duplicated


DUPLICATES = dict(
    seed=st.integers(0, 2**32 - 1),
    n=st.integers(4, 24),
    k=st.integers(2, 4),
    metric=st.sampled_from(METRICS),
    epsilon=st.sampled_from(EPSILONS),
)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(**DUPLICATES)
def _solve_weighted_and_duplicated(solver, seed, n, k, metric, epsilon):
    weighted, duplicated = _weighted_and_duplicated(seed, n, k, metric, epsilon)
    a, b = solver.solve(weighted), solver.solve(duplicated)
    assert a.status is b.status
    if a.rule_list is not None:
        assert abs(a.objective - b.objective) <= 1e-9
        assert abs(duplicated.evaluate(a.rule_list).objective - a.objective) <= 1e-9


@pytest.mark.parametrize("engine", list(ENGINES))
def test_integer_weights_equal_duplicated_rows_for_the_engine(engine):
    _solve_weighted_and_duplicated(engine_solver(engine))


@settings(max_examples=60, deadline=None)
@given(
    **DUPLICATES,
    rules=st.lists(
        st.tuples(st.integers(0, 2), st.integers(0, 1)), max_size=3, unique_by=lambda r: r[0]
    ),
    default=st.integers(0, 1),
)
def test_integer_weights_equal_duplicated_rows_for_evaluate_and_metrics(
    seed, n, k, metric, epsilon, rules, default
):
    weighted, duplicated = _weighted_and_duplicated(seed, n, k, metric, epsilon)
    rule_list = weighted.rule_list([j for j, _ in rules], [q for _, q in rules], default)
    a, b = weighted.evaluate(rule_list), duplicated.evaluate(rule_list)
    assert a.errors == b.errors and a.objective == pytest.approx(b.objective, abs=1e-12)
    assert a.unfairness == pytest.approx(b.unfairness, abs=1e-12) and a.fair is b.fair
    assert a.counts == b.counts
    w = weighted.sample_weight
    by_metrics = unfairness(
        weighted.y, rule_list.predict(weighted.X), weighted.groups, metric, sample_weight=w
    )
    assert by_metrics == pytest.approx(b.unfairness, abs=1e-12)


# ---------------------------------------------------------------- fairlearn's between-groups gaps
def _fairlearn_frame(fl, y_true, y_pred, sensitive, w):
    """fairlearn's MetricFrame of the five rates (PPV and NPV, which fairlearn lacks, as the
    weighted share of true labels among the predictions; 0 without any)."""

    def share(t, p, label, sample_weight):
        sw = np.ones(len(t)) if sample_weight is None else np.asarray(sample_weight)
        den = sw[p == label].sum()
        return float(sw[(p == label) & (t == label)].sum() / den) if den > 0 else 0.0

    def ppv(t, p, sample_weight=None):
        return share(t, p, 1, sample_weight)

    def npv(t, p, sample_weight=None):
        return share(t, p, 0, sample_weight)

    metrics = {
        "sel": fl.selection_rate,
        "tpr": lambda t, p, sample_weight=None: fl.true_positive_rate(
            t, p, sample_weight=sample_weight, pos_label=1
        ),
        "fpr": lambda t, p, sample_weight=None: fl.false_positive_rate(
            t, p, sample_weight=sample_weight, pos_label=1
        ),
        "ppv": ppv,
        "npv": npv,
    }
    params = None if w is None else {name: {"sample_weight": w} for name in metrics}
    return fl.MetricFrame(
        metrics=metrics,
        y_true=y_true,
        y_pred=y_pred,
        sensitive_features=sensitive,
        sample_params=params,
    )


@settings(max_examples=20, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    n=st.integers(6, 150),
    k=st.integers(2, 5),
    kind=st.sampled_from(["none", "integer", "real"]),
    intersections=st.booleans(),
)
def test_gaps_match_fairlearn_between_groups_difference(seed, n, k, kind, intersections):
    fl = pytest.importorskip("fairlearn.metrics")
    rng = np.random.default_rng(seed)
    y_true = rng.integers(0, 2, n)
    y_pred = rng.integers(0, 2, n)
    if intersections:
        sensitive = np.column_stack([rng.choice(["F", "M"], n), rng.choice(["a", "b", "c"], n)])
        sensitive[:2] = [["F", "a"], ["M", "b"]]
    else:
        sensitive = rng.integers(0, k, n).astype(str)
        sensitive[:k] = np.arange(k).astype(str)
    w = {
        "none": None,
        "integer": rng.integers(0, 4, n).astype(float),
        "real": rng.uniform(0.0, 3.0, n),
    }[kind]
    if w is not None:  # no group of weight 0 (fairlearn's rates reject it)
        keys = [tuple(row) for row in np.atleast_2d(sensitive.T).T]
        w[[keys.index(key) for key in set(keys)]] += 1.0
    frame = _fairlearn_frame(fl, y_true, y_pred, sensitive, w)
    gap = frame.difference(method="between_groups")
    ours = dict(sensitive_features=sensitive, sample_weight=w)
    assert unfairness(y_true, y_pred, metric="SP", **ours) == pytest.approx(gap["sel"])
    assert unfairness(y_true, y_pred, metric="EOpp", **ours) == pytest.approx(gap["tpr"])
    assert unfairness(y_true, y_pred, metric="PE", **ours) == pytest.approx(gap["fpr"])
    assert unfairness(y_true, y_pred, metric="PP", **ours) == pytest.approx(gap["ppv"])
    # EOdds and CUAE are sums of two gaps (fairlearn's equalized_odds_difference is the max)
    assert unfairness(y_true, y_pred, metric="EOdds", **ours) == pytest.approx(
        gap["tpr"] + gap["fpr"]
    )
    assert unfairness(y_true, y_pred, metric="CUAE", **ours) == pytest.approx(
        gap["ppv"] + gap["npv"]
    )
    # per group too (fairlearn names intersections by tuples, fairlist joins them by " & ")
    counts = confusion_counts(y_true, y_pred, sensitive, sample_weight=w)
    by_group = frame.by_group
    for name, g in zip(counts.names, counts.groups, strict=True):
        row = by_group.loc[tuple(name.split(" & ")) if intersections else name]
        assert (g.positive_rate, g.tpr, g.fpr, g.ppv, g.npv) == pytest.approx(
            (row["sel"], row["tpr"], row["fpr"], row["ppv"], row["npv"])
        )


@settings(max_examples=30, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    k=st.integers(2, 4),
    kind=st.sampled_from([None, "integer", "decimal", "real"]),
    metric=st.sampled_from(METRICS),
)
def test_oracle_unfairness_is_problem_evaluate(seed, k, kind, metric):
    # The oracle recomputes the rates by hand; Problem.evaluate goes through fairlist.metrics.
    rng = np.random.default_rng(seed)
    problem = random_group_problem(
        rng, n=int(rng.integers(6, 50)), k=k, weights=kind, metric=metric
    )
    rule_list = problem.rule_list([0, 1], [int(rng.integers(2)), int(rng.integers(2))], 1)
    pred = rule_list.predict(problem.X)
    assert reference_unfairness(problem, pred) == pytest.approx(
        problem.evaluate(rule_list).unfairness, abs=1e-12
    )


# ---------------------------------------------------------------- warm start and bad input
def test_cpsat_incumbent_for_groups_and_weights():
    from fairlist.solvers.warmstart import cpsat_incumbent

    rng = np.random.default_rng(12)
    problem = random_group_problem(
        rng, n=60, m=4, k=4, weights="decimal", metric="EOdds", epsilon=0.2, lam=0.005
    )
    incumbent = cpsat_incumbent(problem, seconds=5.0, max_length=2)
    assert incumbent is not None and problem.evaluate(incumbent).fair


def test_warm_started_bnb_with_groups_and_weights():
    engine_solver("bnb")  # skips while bnb refuses
    from fairlist.solvers.warmstart import solve_with_warm_start

    rng = np.random.default_rng(13)
    problem = random_group_problem(
        rng, n=40, m=4, k=3, weights="integer", metric="SP", epsilon=0.1, lam=0.01, max_length=2
    )
    result = solve_with_warm_start(problem, seconds=2.0)
    assert_matches_reference(problem, result)


def test_replace_keeps_each_sample_in_its_group():
    # Two groups are stored as codes 0 / 1, which Problem reads back as a mask (1 protected):
    # replace() used to swap the groups under their names.
    p = Problem(np.eye(3, dtype=np.uint8), [0, 1, 1], [True, False, False], group_names=["a", "b"])
    q = p.replace(lam=0.1)
    assert q.groups.tolist() == p.groups.tolist() == [0, 1, 1]
    assert q.group_names == ("a", "b") and q.protected.tolist() == [True, False, False]
    r = random_group_problem(np.random.default_rng(0), n=12, k=3).replace(lam=0.2)
    assert r.groups.tolist() == r.replace(lam=0.3).groups.tolist()


def test_weights_whose_sum_overflows_are_rejected():
    with pytest.raises(DataError, match="sample_weight"):
        Problem(np.eye(2, dtype=np.uint8), [0, 1], [True, False], sample_weight=[1e308, 1e308])


def test_solve_with_engine_cpsat_accepts_groups_and_weights():
    # no refusal left: three groups and weights go through solve()
    from fairlist.solvers import solve

    rng = np.random.default_rng(14)
    problem = random_group_problem(
        rng, n=30, k=3, weights="integer", metric="PP", epsilon=0.1, max_length=1
    )
    result = solve(problem, engine="cpsat")
    assert result.stats["n_groups"] == 3 and math.isfinite(result.objective)


@pytest.mark.parametrize(
    ("sensitive", "first", "second"),
    [
        (np.array([1, "1", 1, "1", 2, 2], dtype=object), "1", "'1'"),
        (
            pd.DataFrame({"a": ["a & b", "a", "x", "a & b"], "b": ["c", "b & c", "y", "c"]}),
            "('a', 'b & c')",
            "('a & b', 'c')",
        ),
    ],
)
def test_groups_whose_names_coincide_are_refused_at_fit_naming_both(sensitive, first, second):
    with pytest.raises(DataError) as info:
        encode_groups(sensitive)
    assert first in str(info.value) and second in str(info.value)
    X = np.array([[1, 0], [0, 1], [1, 1], [0, 0], [1, 0], [0, 1]][: len(sensitive)])
    y = [1, 0, 1, 0, 1, 0][: len(sensitive)]
    from fairlist import FairRuleListClassifier

    with pytest.raises(DataError, match="both be named"):
        FairRuleListClassifier(binarizer=None).fit(X, y, sensitive_features=sensitive)


def test_protected_against_a_single_other_group_of_the_same_name_is_refused():
    with pytest.raises(DataError, match="both be named '1'"):
        encode_groups(np.array([1, "1", 1, "1"], dtype=object), protected=1)
