"""One owner and one name per setting: the command line and ``verify`` give every setting the
meaning the estimator gives it; the old names warn (FutureWarning) and keep their meaning."""

from __future__ import annotations

import importlib
import inspect

import numpy as np
import pytest
from reference import random_problem
from test_cli import FIT, binary_csv
from typer.testing import CliRunner

from fairlist.cli import app
from fairlist.rulelist import RuleList
from fairlist.solvers import ENGINES, Limits, Problem
from fairlist.solvers.bnb import BnBSolver
from fairlist.solvers.cpsat import CPSatSolver

verify_module = importlib.import_module("fairlist.verification")
runner = CliRunner()


def test_every_engine_names_its_seed_and_warm_start_alike():
    for name, spec in ENGINES.items():
        options = spec.load().__init__.__kwdefaults__
        assert spec.seed in (None, "seed"), name
        assert "initial" in options, f"{name}: the warm start is 'initial' in every engine"
        assert "seed" in options, f"{name}: the seed is 'seed' in every engine"


def test_bnb_gap_tolerance_is_deprecated_for_the_limits_one():
    problem = random_problem(np.random.default_rng(1), n=60, m=5, epsilon=0.1, lam=0.001)
    with pytest.warns(FutureWarning, match=r"gap_tolerance=.*Limits\(gap_tolerance"):
        old = BnBSolver(gap_tolerance=0.05).solve(problem)
    new = BnBSolver().solve(problem.with_limits(Limits(gap_tolerance=0.05)))
    assert (old.objective, old.status, old.stop_reason) == (
        new.objective,
        new.status,
        new.stop_reason,
    )


def test_cpsat_old_names_keep_their_meaning():
    problem = random_problem(np.random.default_rng(2), n=40, m=4, epsilon=0.2, max_length=2)
    start = BnBSolver().solve(problem).rule_list
    with pytest.warns(FutureWarning, match="hint"):
        old = CPSatSolver(hint=start).solve(problem)
    new = CPSatSolver(initial=start).solve(problem)
    assert old.stats["hinted"] == new.stats["hinted"] is True
    with pytest.warns(FutureWarning, match="random_seed"):
        assert CPSatSolver(random_seed=7).seed == 7


@pytest.mark.parametrize(("given", "meant"), [("0", None), ("5", 5.0)])
def test_time_limit_means_the_same_in_fit_pareto_and_verify(tmp_path, monkeypatch, given, meant):
    from fairlist import estimator, pareto

    data = tmp_path / "d.csv"
    binary_csv(data)
    seen: dict = {}

    def stop(**kwargs):
        seen.update(kwargs)
        raise KeyError("seen")  # any library error ends the command

    monkeypatch.setattr(
        estimator.FairRuleListClassifier, "fit", lambda self, *a, **k: stop(**self.get_params())
    )
    monkeypatch.setattr(pareto, "cross_validated_front", lambda *a, **k: stop(**k))
    monkeypatch.setattr(verify_module, "verify", lambda problem, **k: stop(**k))
    for command, extra in (("fit", []), ("pareto", []), ("verify", [])):
        seen.clear()
        runner.invoke(app, [command, str(data), *FIT[1:], "--time-limit", given, *extra])
        assert seen.get("time_limit", "missing") == meant, (command, seen)
    for command in ("fit", "pareto"):
        seen.clear()
        runner.invoke(app, [command, str(data), *FIT[1:], "--max-nodes", "0"])
        assert seen.get("max_nodes", "missing") is None, command


def test_pareto_and_the_cli_share_one_default_policy_list(tmp_path, monkeypatch):
    from fairlist import pareto

    data = tmp_path / "d.csv"
    binary_csv(data)
    seen: dict = {}

    def stop(*args, **kwargs):
        seen.update(kwargs)
        raise KeyError("seen")

    monkeypatch.setattr(pareto, "cross_validated_front", stop)
    runner.invoke(app, ["pareto", str(data), *FIT[1:]])
    assert tuple(seen["policies"]) == pareto.SWEEP_POLICIES  # issue 25: a bounded default
    monkeypatch.undo()
    default = inspect.signature(pareto.cross_validated_front).parameters["policies"].default
    assert tuple(default) == pareto.SWEEP_POLICIES


def test_verify_keeps_every_limit_but_the_time_limit_it_is_given(monkeypatch):
    problem: Problem = random_problem(
        np.random.default_rng(3), n=40, m=4, epsilon=0.2, max_length=2
    ).with_limits(Limits(max_nodes=10_000, gap_tolerance=0.01, memory_limit_mb=512.0))
    seen = []

    def spy(self, problem):
        seen.append(problem.limits)
        return original(self, problem.with_limits(Limits()))

    original = BnBSolver.solve
    monkeypatch.setattr(BnBSolver, "solve", spy)
    verify_module.verify(problem, time_limit=30)
    assert seen == [
        Limits(max_nodes=10_000, time_limit=30.0, gap_tolerance=0.01, memory_limit_mb=512.0)
    ]


def test_deprecated_rule_list_warm_start_name_in_cpsat_stays_a_rule_list():
    with pytest.warns(FutureWarning):
        solver = CPSatSolver(hint=RuleList([], 1))
    assert isinstance(solver.initial, RuleList)
