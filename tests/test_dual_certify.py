"""The dual certificate (fairlist.dual.certify_by_dual, issue 36 step 2): the enumeration of
the costed problem's lists under a threshold, every spelling or one per key class, agrees with
brute force; a threshold one step too low is caught; the engine's absolute ceiling keeps exactly
the lists under it."""

from __future__ import annotations

import itertools
import zlib

import numpy as np
import pytest
from reference import random_group_problem, reference_rashomon, reference_solve
from test_dual import _all_lists

import fairlist.dual.certificate as dual
from fairlist.dual import certify_by_dual, costed_problem
from fairlist.dual.certificate import _separated
from fairlist.metrics import METRIC_RATES
from fairlist.rashomon import _make_set
from fairlist.solvers.bnb import BnBSolver

METRICS = ("SP", "PE", "EOpp", "EOdds")


def _random_nu(rng, problem, scale=0.6):
    nu = rng.normal(0, scale, size=(len(METRIC_RATES[problem.metric]), problem.n_groups))
    return nu - nu.mean(axis=1, keepdims=True)


def _cellwise_weights(problem, rng):
    """Weights constant within each (group, label) cell: the keyed form still applies."""
    w = np.ones(problem.n_samples)
    for g in range(problem.n_groups):
        for c in (0, 1):
            w[(problem.groups == g) & (problem.y == c)] = rng.integers(1, 4)
    return problem.replace(sample_weight=w)


def _constant(problem):
    """The better fair constant list (predicting 0 is fair for SP, PE, EOpp and EOdds: every
    rate 0; predicting 1 may not be, a group without negatives having FPR 0)."""
    lists = [problem.rule_list([], [], d) for d in (0, 1)]
    lists = [rl for rl in lists if problem.evaluate(rl).fair]
    return min(lists, key=lambda rl: problem.evaluate(rl).objective)


@pytest.mark.parametrize("metric", METRICS)
@pytest.mark.parametrize("weights", [None, "cellwise", "integer"])
def test_certify_matches_brute_force(metric, weights):
    """From the constant list, one spelling per key class (keyed where the weights allow) and
    every spelling both certify the brute-force optimum; the keyed set is no larger."""
    rng = np.random.default_rng(zlib.crc32(repr((metric, weights)).encode()))
    for k, length in ((2, 2), (2, 3), (3, 2)):
        p = random_group_problem(
            rng,
            n=30,
            m=4,
            k=k,
            weights=None if weights == "cellwise" else weights,
            metric=metric,
            epsilon=0.05,
            lam=0.01,
            max_length=length,
        )
        if weights == "cellwise":
            p = _cellwise_weights(p, rng)
        ref = reference_solve(p, length)
        nu = _random_nu(rng, p)
        one = certify_by_dual(p, _constant(p), nu)
        every = certify_by_dual(p, _constant(p), nu, one_spelling=False)
        assert one.one_spelling == (weights != "integer")
        assert not every.one_spelling
        for c in (one, every):
            assert c.certified
            assert c.objective == pytest.approx(ref.objective, abs=1e-12), (metric, k, nu)
            assert p.evaluate(c.rule_list).fair
        assert one.n_checked <= every.n_checked
        if weights is None:  # a bound from the enumeration: never above the optimum
            assert one.relaxed_optimum - one.penalty <= ref.objective + 1e-12


def test_certify_with_threads_option():
    """n_jobs in the options: the enumeration runs serially (the Rashomon mode's rule)."""
    rng = np.random.default_rng(4)
    p = random_group_problem(rng, n=30, m=4, k=2, metric="SP", epsilon=0.05, lam=0.01, max_length=2)
    c = certify_by_dual(p, _constant(p), _random_nu(rng, p), n_jobs=1)
    assert c.certified and c.objective == pytest.approx(reference_solve(p, 2).objective)


@pytest.mark.parametrize("metric", ("SP", "PE", "EOpp"))
def test_threshold_one_step_too_low_is_caught(metric, monkeypatch):
    """The fair optimum s* at a positive gap, the second-best fair list as the incumbent and nu
    of the sign of s*'s gap, large (test_dual's construction): s*'s relaxed value lies above
    the incumbent's objective, within the penalty. A threshold without the penalty certifies
    the incumbent, a wrong answer that the brute-force comparison catches; the whole
    threshold finds s*."""
    rng = np.random.default_rng(101 + len(metric))
    cases = []
    while len(cases) < 3:
        p = random_group_problem(
            rng, n=30, m=4, k=2, metric=metric, epsilon=0.08, lam=0.01, max_length=2
        )
        fair = sorted(
            (
                (ev.objective, rl, ev)
                for rl in _all_lists(p, 2)
                for ev in [p.evaluate(rl)]
                if ev.fair
            ),
            key=lambda t: t[0],
        )
        best, _, ev = fair[0]
        rate = METRIC_RATES[p.metric][0]
        gap = getattr(ev.counts.groups[0], rate) - getattr(ev.counts.groups[1], rate)
        second = [t for t in fair if t[0] > best + 1e-9]
        if abs(gap) < 0.01 or not second:
            continue
        nu = float(np.copysign(2 * (second[0][0] - best) / abs(gap) + 0.5, gap))
        cases.append((p, second[0][1], nu, best))

    def wrong_answers():
        return sum(
            c.certified and c.objective > best + 1e-12
            for p, incumbent, nu, best in cases
            for c in [certify_by_dual(p, incumbent, nu)]
        )

    assert wrong_answers() == 0
    whole = dual._threshold
    monkeypatch.setattr(
        dual, "_threshold", lambda objective, penalty, costed: whole(objective, 0.0, costed)
    )
    assert wrong_answers() > 0  # (another optimal list may still lie under it)


def test_separated_by_brute_force():
    rng = np.random.default_rng(0)
    for _ in range(300):
        v1, v2 = (int(x) for x in rng.integers(1, 40, size=2))
        n1, n2 = (int(x) for x in rng.integers(0, 8, size=2))
        sums = [v1 * a + v2 * b for a, b in itertools.product(range(n1 + 1), range(n2 + 1))]
        assert _separated(v1, v2, n1, n2) == (len(set(sums)) == len(sums)), (v1, v2, n1, n2)


def test_keyed_costs_separate_the_cells():
    """Per group, the two cells' integer costs (when they share the relabelled label) are
    separated, and no cost of a non-empty cell is 0; the rounding error bounds the moves."""
    rng = np.random.default_rng(8)
    for _ in range(20):
        p = random_group_problem(rng, n=40, m=3, k=3, metric="SP", epsilon=0.05, lam=0.01)
        nu = _random_nu(rng, p, scale=rng.choice([0.01, 0.5, 5.0]))
        costed = costed_problem(p, nu)
        assert costed.keyed
        w = costed.problem.weights
        label = costed.problem.y
        for g in range(p.n_groups):
            cells = [(p.groups == g) & (p.y == c) for c in (0, 1)]
            cells = [m for m in cells if m.any()]
            for m in cells:
                assert len(np.unique(w[m])) == 1 and w[m][0] >= 1
            if len(cells) == 2 and label[cells[0]][0] == label[cells[1]][0]:
                a, b = cells
                assert _separated(int(w[a][0]), int(w[b][0]), int(a.sum()), int(b.sum()))


@pytest.mark.parametrize("keep_map", [False, True])
def test_rashomon_ceiling_keeps_exactly_the_lists_under_it(keep_map):
    """The core's absolute ceiling: every list of objective at most the ceiling (brute force),
    none above; with keep_map (the certificate's form) a subset with the same prediction
    classes' least objectives."""
    rng = np.random.default_rng(21)
    for _ in range(4):
        p = random_group_problem(
            rng, n=24, m=4, k=2, metric="SP", epsilon=0.2, lam=0.01, max_length=2
        )
        every = reference_rashomon(p, 2, 0.3)
        ceiling = float(np.quantile([o for o, _, _ in every], 0.3))
        solver = BnBSolver(use_fairness_bound=False, use_class_bound=False)
        raw, kept, rep = solver.solve_rashomon(
            p, ceiling + 1.0, None, keep_map=keep_map, ceiling=ceiling
        )
        found = _make_set(p, raw, kept, rep, ceiling + 1.0)
        assert found.complete
        expected = sorted(o for o, _, _ in every if o <= ceiling + 1e-12)
        got = sorted(float(o) for o in found.objectives)
        assert all(o <= ceiling + 1e-12 for o in got)
        if keep_map:
            assert len(got) <= len(expected) and (
                not expected or got[0] == pytest.approx(expected[0])
            )
        else:
            assert got == pytest.approx(expected)


def test_cut_enumeration_reports_how_far_it_got():
    """An enumeration a node budget cuts certifies nothing and reports ``enumerated_below``,
    the rounded relaxed value below which it enumerated every list: every spelling
    (``one_spelling=False``) then holds at least every list of the costed problem below it
    (brute force over the lists whose rules each capture a sample); a complete one reports
    ``inf``. Reporting the threshold instead would fail the brute-force count."""
    from fairlist.solvers import Limits

    rng = np.random.default_rng(7)
    seen_cut = 0
    for trial in range(6):
        p = random_group_problem(
            rng, n=30, m=4, k=2, metric="SP", epsilon=0.05, lam=0.005, max_length=3
        )
        if len({p.X[:, j].tobytes() for j in range(p.n_antecedents)}) < p.n_antecedents:
            continue  # identical columns are merged by the engine: not counted here
        nu = _random_nu(rng, p)
        whole = certify_by_dual(p, _constant(p), nu, one_spelling=False)
        assert whole.certified and whole.enumerated_below == float("inf")
        costed = costed_problem(p, nu, one_spelling=False)
        values = []
        for length in range(4):
            for ants in itertools.permutations(range(p.n_antecedents), length):
                free = np.ones(p.n_samples, bool)
                useful = True
                for j in ants:
                    useful = useful and bool((free & (p.X[:, j] == 1)).any())
                    free &= p.X[:, j] == 0
                if not useful:
                    continue
                for preds in itertools.product((0, 1), repeat=length):
                    for d in (0, 1):
                        r = costed.problem.rule_list(list(ants), list(preds), d)
                        objective = costed.problem.evaluate(r).objective
                        values.append(costed.constant + costed.scale * objective)
        values = np.array(values)
        for nodes in (2, 5, 20):
            cut = certify_by_dual(
                p.with_limits(Limits(max_nodes=nodes)),
                _constant(p),
                nu,
                one_spelling=False,
                use_terminal_solver=False,  # (it finishes prefixes without storing them)
            )
            if cut.certified:
                continue
            seen_cut += 1
            assert cut.enumerated_below <= cut.threshold
            below = int((values < cut.enumerated_below - 1e-12).sum())
            assert cut.n_held >= below, (trial, nodes)
    assert seen_cut >= 3


def _cut_cases(metric, seed, count=3):
    """test_threshold_one_step_too_low_is_caught's construction: a fair optimum s* at a
    positive gap, nu of that gap's sign and large, so that s*'s relaxed value lies well above
    its objective (within the penalty)."""
    rng = np.random.default_rng(seed)
    cases = []
    while len(cases) < count:
        p = random_group_problem(
            rng, n=30, m=4, k=2, metric=metric, epsilon=0.08, lam=0.01, max_length=2
        )
        fair = [ev for rl in _all_lists(p, 2) for ev in [p.evaluate(rl)] if ev.fair]
        ev = min(fair, key=lambda e: e.objective)
        best = ev.objective
        rate = METRIC_RATES[p.metric][0]
        gap = getattr(ev.counts.groups[0], rate) - getattr(ev.counts.groups[1], rate)
        if abs(gap) < 0.01:
            continue
        cases.append((p, float(np.copysign(1.5, gap)), best))
    return cases


@pytest.mark.parametrize("metric", ("SP", "PE", "EOpp"))
def test_cut_enumeration_proves_a_bound(metric, monkeypatch):
    """A cut enumeration's ``proved_bound`` is never above the brute-force fair optimum, over
    caps on the lists that cut it at every point (max_lists 1, 2, ...: the set then holds the
    lists of least relaxed value, ``enumerated_below`` the next one's), one spelling and every
    spelling, and node budgets; without the penalty in the bound (a cut between s*'s objective
    and its relaxed value) it is above the optimum somewhere."""
    from fairlist.solvers import Limits

    cases = _cut_cases(metric, 31 + len(metric))

    def bounds():
        out = []
        for p, nu, best in cases:
            for one in (True, False):
                for k in range(1, 60, 2):
                    c = certify_by_dual(p, _constant(p), nu, max_lists=k, one_spelling=one)
                    if c.certified:
                        break
                    out.append((c.proved_bound, best))
                for nodes in (1, 2, 4):
                    c = certify_by_dual(
                        p.with_limits(Limits(max_nodes=nodes)),
                        _constant(p),
                        nu,
                        one_spelling=one,
                        use_terminal_solver=False,
                    )
                    out += [(c.proved_bound, best)] if not c.certified else []
        return out

    found = bounds()
    assert len(found) >= 10
    assert all(b <= best + 1e-12 for b, best in found)
    assert any(b > -np.inf for b, _ in found)
    whole = dual._cut_bound
    monkeypatch.setattr(
        dual, "_cut_bound", lambda below, penalty, costed: whole(below, 0.0, costed)
    )
    assert any(b > best + 1e-12 for b, best in bounds())


@pytest.mark.parametrize("n_jobs", [1, 2])
def test_fallback_keeps_the_proved_bounds(n_jobs, monkeypatch):
    """The dual path's fallback (the set cut by DUAL_MAX_LISTS) keeps the largest proved lower
    bound: never above the brute-force optimum nor the result's objective, and never below the
    fallback's own (USE_EARLIER_BOUNDS off)."""
    from fairlist.solvers import Limits

    monkeypatch.setattr(dual, "DUAL_MAX_LISTS", 2)
    seen = raised = 0
    for p, _, best in _cut_cases("SP", 5, count=4):
        p = p.with_limits(Limits(max_nodes=3))
        results = {}
        for keep in (True, False):
            monkeypatch.setattr(dual, "USE_EARLIER_BOUNDS", keep)
            solver = BnBSolver(dual="on", use_terminal_solver=False, n_jobs=n_jobs)
            results[keep] = solver.solve(p)
        on, off = results[True], results[False]
        if not on.stats["dual"].get("fallback"):
            continue
        seen += 1
        assert on.lower_bound <= min(best, on.objective) + 1e-12
        assert on.lower_bound >= off.lower_bound - 1e-12
        raised += on.lower_bound > off.lower_bound + 1e-12
    assert seen >= 2 and raised >= 1


@pytest.mark.parametrize("metric", METRICS)
@pytest.mark.parametrize("weights", [None, "cellwise", "integer"])
def test_cut_bound_never_above_optimum(metric, weights):
    """Every metric the dual takes, two and three groups, weights: a cut enumeration's
    ``proved_bound`` (max_lists cuts at every point, random multipliers) is never above the
    brute-force fair optimum."""
    rng = np.random.default_rng(zlib.crc32(repr(("cut", metric, weights)).encode()))
    for k in (2, 3):
        p = random_group_problem(
            rng,
            n=30,
            m=4,
            k=k,
            weights=None if weights == "cellwise" else weights,
            metric=metric,
            epsilon=0.05,
            lam=0.01,
            max_length=2,
        )
        if weights == "cellwise":
            p = _cellwise_weights(p, rng)
        best = reference_solve(p, 2).objective
        nu = _random_nu(rng, p, scale=1.5)
        for size in range(1, 80, 3):
            c = certify_by_dual(p, _constant(p), nu, max_lists=size)
            if c.certified:
                assert c.proved_bound == pytest.approx(best, abs=1e-12)
                break
            assert c.proved_bound <= best + 1e-12, (k, size)


def test_cut_enumeration_too_large_to_check_proves_nothing(monkeypatch):
    """Past CUT_CHECKS held lists a cut enumeration is not checked and proves no bound."""
    p, nu, _ = _cut_cases("SP", 33)[0]
    c = certify_by_dual(p, _constant(p), nu, max_lists=5)
    assert not c.certified and c.n_held == 5 and c.proved_bound > -np.inf
    monkeypatch.setattr(dual, "CUT_CHECKS", 4)
    c = certify_by_dual(p, _constant(p), nu, max_lists=5)
    assert not c.certified and c.n_checked == 0 and c.proved_bound == -np.inf
