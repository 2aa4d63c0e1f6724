"""The core's two modes behind fairlist.fairest_within, on their own against the brute force
(tests/reference.py):

* the fairest mode (``Config::fairest_ceiling``): the least unfair fair list of objective at
  most an arbitrary ceiling (ties: the least objective), every metric, three groups, weights,
  no cap, lam 0, an infinite ceiling, with its falling cap on and off (the diagnostic switch
  ``fairest_falling_cap``: the same answer, no more work with it on); and its refusals;
* the Rashomon mode's front (``Config::rashomon_front``): the lists it returns are a Pareto
  front in (objective, unfairness) of the brute-force set, and they reach its every point.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from reference import random_group_problem, random_problem, reference_rashomon, reference_unfairness

from fairlist.metrics import Metric
from fairlist.solvers import Limits
from fairlist.solvers.bnb import BnBSolver


class _Switched(BnBSolver):
    """The branch-and-bound with test switches (fairlist::Diagnostics) or Config fields set."""

    def __init__(self, extra: dict, **kwargs) -> None:
        super().__init__(**kwargs)
        self.extra = extra

    def _config(self, limits, max_length):
        return {**super()._config(limits, max_length), **self.extra}


def _all_lists(problem, max_length: int) -> list[tuple[float, float]]:
    """Every fair list of the space as (unfairness, objective) (the brute force's Rashomon set
    of a width no two objectives exceed)."""
    pairs = []
    for objective, rules, default in reference_rashomon(problem, max_length, 1e9):
        rule_list = problem.rule_list([j for j, _ in rules], [q for _, q in rules], default)
        pairs.append((reference_unfairness(problem, rule_list.predict(problem.X)), objective))
    return pairs


def _core_list(problem, raw, kept):
    rules = list(zip(raw["antecedents"], raw["predictions"], strict=True))
    return problem.rule_list(
        [int(kept[j]) for j, _ in rules], [int(q) for _, q in rules], raw["default_prediction"]
    )


def _check_ceiling(problem, pairs, ceiling: float, solver=None) -> dict:
    raw, kept = (solver or BnBSolver()).solve_fairest(problem, ceiling)
    expected = min(((u, o) for u, o in pairs if o <= ceiling), default=None)
    if expected is None:
        assert raw["status"].name == "INFEASIBLE" and not raw["has_solution"]
        return raw
    assert raw["status"].name == "OPTIMAL"
    ev = problem.evaluate(_core_list(problem, raw, kept))
    assert ev.fair and ev.objective <= ceiling
    assert ev.unfairness == expected[0] == raw["unfairness"] == raw["lower_bound"]
    assert ev.objective == pytest.approx(expected[1], abs=1e-12)
    assert raw["objective"] == pytest.approx(expected[1], abs=1e-12)
    return raw


def _ceilings(pairs) -> list[float]:
    """Ceilings across the range of objectives: below every list, at list objectives (the
    ties of the comparison), between, and none."""
    objectives = sorted({o for _, o in pairs})
    if not objectives:
        return [0.5, math.inf]
    picks = [objectives[0] / 2, objectives[0], math.inf]  # (a ceiling is >= 0)
    picks += [objectives[len(objectives) * k // 6] for k in range(1, 6)]
    picks += [objectives[len(objectives) // 3] + 1e-4]
    return picks


@pytest.mark.parametrize("metric", list(Metric), ids=lambda m: m.name)
def test_fairest_mode_equals_brute_force_under_any_ceiling(metric):
    rng = np.random.default_rng(900 + int(metric))
    for epsilon in (0.3, None):
        problem = random_problem(rng, n=28, m=5, metric=metric, epsilon=epsilon, lam=0.01)
        problem = problem.replace(max_length=3)
        pairs = _all_lists(problem, 3)
        for ceiling in _ceilings(pairs):
            _check_ceiling(problem, pairs, ceiling)


@pytest.mark.parametrize("weights", [None, "integer", "decimal"])
def test_fairest_mode_on_three_groups_and_weights(weights):
    rng = np.random.default_rng(910)
    for metric in (Metric.STATISTICAL_PARITY, Metric.EQUALIZED_ODDS, Metric.PREDICTIVE_PARITY):
        problem = random_group_problem(
            rng, n=24, m=4, k=3, weights=weights, metric=metric, epsilon=0.5, lam=0.01
        )
        problem = problem.replace(max_length=3)
        pairs = _all_lists(problem, 3)
        for ceiling in _ceilings(pairs)[:5]:
            _check_ceiling(problem, pairs, ceiling)


def test_fairest_mode_with_lam_zero_and_the_terminal_solver_off():
    rng = np.random.default_rng(920)
    problem = random_problem(rng, n=24, m=5, metric=Metric.EQUAL_OPPORTUNITY, epsilon=0.2, lam=0.0)
    problem = problem.replace(max_length=3)
    pairs = _all_lists(problem, 3)
    for ceiling in _ceilings(pairs)[:6]:
        _check_ceiling(problem, pairs, ceiling)
        _check_ceiling(problem, pairs, ceiling, BnBSolver(use_terminal_solver=False))
        _check_ceiling(problem, pairs, ceiling, BnBSolver(use_permutation_map=False))


def test_the_falling_cap_changes_the_work_not_the_answer():
    rng = np.random.default_rng(930)
    fewer = 0
    for metric in (Metric.STATISTICAL_PARITY, Metric.EQUALIZED_ODDS, Metric.PREDICTIVE_PARITY):
        problem = random_problem(rng, n=50, m=6, metric=metric, epsilon=0.3, lam=0.005)
        problem = problem.replace(max_length=3)
        pairs = _all_lists(problem, 3)
        for ceiling in _ceilings(pairs)[3:6]:
            on = _check_ceiling(problem, pairs, ceiling)
            off = _check_ceiling(problem, pairs, ceiling, _Switched({"fairest_falling_cap": False}))
            work = ("nodes_expanded", "children_evaluated")
            assert all(on["stats"][k] <= off["stats"][k] for k in work)
            fewer += on["stats"]["children_evaluated"] < off["stats"]["children_evaluated"]
    assert fewer  # the cap pruned something somewhere


def test_fairest_mode_under_limits_never_claims_too_much():
    rng = np.random.default_rng(940)
    problem = random_problem(rng, n=40, m=5, epsilon=0.25, lam=0.005, max_length=3)
    pairs = _all_lists(problem, 3)
    ceiling = sorted(o for _, o in pairs)[len(pairs) // 4]
    best = min((u, o) for u, o in pairs if o <= ceiling)
    for nodes in (1, 2, 5, 20):
        limited = problem.with_limits(Limits(max_nodes=nodes))
        raw, kept = BnBSolver().solve_fairest(limited, ceiling)
        if raw["status"].name == "OPTIMAL":
            assert raw["unfairness"] == best[0]
            continue
        assert raw["lower_bound"] == 0.0  # a witness only
        if raw["has_solution"]:
            ev = problem.evaluate(_core_list(problem, raw, kept))
            assert ev.fair and ev.objective <= ceiling and ev.unfairness >= best[0]


def test_fairest_mode_refusals():
    rng = np.random.default_rng(950)
    problem = random_problem(rng, n=20, m=4, epsilon=0.2, lam=0.01, max_length=2)
    for solver, message in (
        (BnBSolver(n_jobs=2), "n_jobs = 1 only"),
        (BnBSolver(deepen_length=1), "deepen_length"),
        (BnBSolver(majority_only=True), "majority_only"),
        (_Switched({"gap_tolerance": 0.1}), "gap_tolerance"),
        (_Switched({"rashomon_delta": 0.1}), "Rashomon mode"),
    ):
        with pytest.raises(ValueError, match=message):
            solver.solve_fairest(problem, 0.5)
    for ceiling in (math.nan, -0.5):
        with pytest.raises(ValueError, match="ceiling"):
            BnBSolver().solve_fairest(problem, ceiling)
    with pytest.raises(ValueError, match="max_lists"):
        BnBSolver().solve_rashomon(problem, 0.1, 5, keep_map=True, front=True)
    with pytest.raises(ValueError, match="needs the Rashomon mode"):
        _Switched({"rashomon_front": True}).solve(problem)


@pytest.mark.parametrize("metric", list(Metric), ids=lambda m: m.name)
def test_the_front_is_the_pareto_front_of_the_set(metric):
    rng = np.random.default_rng(960 + int(metric))
    for epsilon, delta in ((0.3, 0.08), (None, 0.05)):
        problem = random_problem(rng, n=28, m=5, metric=metric, epsilon=epsilon, lam=0.01)
        problem = problem.replace(max_length=3)
        raw, kept, _ = BnBSolver().solve_rashomon(problem, delta, None, keep_map=True, front=True)
        starts = raw["rashomon_starts"]
        front = []
        for i in range(len(raw["rashomon_objectives"])):
            rules = raw["rashomon_rules"][starts[i] : starts[i + 1]]
            rule_list = problem.rule_list(
                [int(kept[r >> 1]) for r in rules],
                [int(r & 1) for r in rules],
                int(raw["rashomon_defaults"][i]),
            )
            ev = problem.evaluate(rule_list)
            assert ev.fair
            front.append((ev.unfairness, ev.objective))
        members = [
            (
                reference_unfairness(
                    problem,
                    problem.rule_list([j for j, _ in r], [q for _, q in r], d).predict(problem.X),
                ),
                o,
            )
            for o, r, d in reference_rashomon(problem, 3, delta)
        ]
        # no front list dominates another, every one is a member, and every member is
        # dominated by (or equal to) one of them
        for a in front:
            assert not any(b != a and b[0] <= a[0] and b[1] <= a[1] for b in front)
            assert any(a[0] == u and abs(a[1] - o) <= 1e-12 for u, o in members)
        for u, o in members:
            assert any(f[0] <= u and f[1] <= o + 1e-12 for f in front)
