"""The CP-SAT warm start a user asks for (``BnBSolver(warm_start_engine="cpsat")``, the
estimator's ``warm_start_engine``, ``fit``/``verify --warm-start cpsat``): the certificate is
brute force's with and without it, its seconds come out of the time limit, a failed or empty
CP-SAT run falls back to the plain search, and what it handed over is reported."""

from __future__ import annotations

import json
import warnings

import numpy as np
import pytest
from reference import assert_certifies, random_group_problem, random_problem, reference_solve
from typer.testing import CliRunner

from fairlist.cli import app
from fairlist.errors import InvalidParameterError
from fairlist.estimator import FairRuleListClassifier
from fairlist.metrics import Metric
from fairlist.solvers import ENGINES, Limits, Problem, Result, Status, StopReason
from fairlist.solvers import warmstart as ws
from fairlist.solvers.bnb import BnBSolver
from fairlist.solvers.cpsat import CPSatSolver

#: Short CP-SAT runs: the tiny problems below are solved in milliseconds.
SECONDS = 2.0


def warm(problem, **options):
    return BnBSolver(warm_start_engine="cpsat", warm_start_seconds=SECONDS, **options).solve(
        problem
    )


# --------------------------------------------------------------------------- exactness
@pytest.mark.parametrize("metric", list(Metric))
@pytest.mark.parametrize("n_jobs", [1, 2])
def test_certified_objective_is_brute_force_with_the_warm_start(metric, n_jobs):
    rng = np.random.default_rng(int(metric) * 10 + n_jobs)
    for trial in range(3):
        epsilon = (0.02, 0.1, 0.3)[trial]
        problem = random_problem(rng, n=40, m=5, metric=metric, epsilon=epsilon, lam=0.01)
        problem = problem.replace(max_length=3)
        ref = reference_solve(problem, 3)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # small groups
            result = warm(problem, n_jobs=n_jobs)
            plain = BnBSolver(n_jobs=n_jobs).solve(problem)
        assert_certifies(problem, ref, result, (metric, n_jobs, trial))
        assert_certifies(problem, ref, plain, (metric, n_jobs, trial))
        handed = result.stats["warm_start_cpsat"]
        if np.isfinite(ref.objective):
            assert handed["objective"] is not None
            assert handed["objective"] >= ref.objective - 1e-9  # CP-SAT's list is fair
            assert handed["outcome"] in ("kept", "improved", "beaten")
        else:
            assert handed["objective"] is None and handed["outcome"] == "none"


@pytest.mark.parametrize("weights", [None, "integer", "real"])
def test_groups_and_weights_certify_as_brute_force(weights):
    rng = np.random.default_rng(7)
    problem = random_group_problem(
        rng, n=30, m=4, k=3, weights=weights, epsilon=0.2, lam=0.01, max_length=2
    )
    ref = reference_solve(problem, 2)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = warm(problem)
    if weights == "real":  # rounded weights: certified within the stated tolerance
        assert abs(result.objective - ref.objective) <= 1e-6
    else:
        assert_certifies(problem, ref, result, weights)


def test_the_search_improves_on_a_short_cpsat_list():
    """CP-SAT searches lists of at most WARM_START_MAX_LENGTH rules without a cap of the
    problem's; when a longer list is better, the search improves on the one handed over."""
    rng = np.random.default_rng(3)
    X = (rng.random((400, 8)) < 0.5).astype(np.uint8)
    y = (X[:, :6].sum(axis=1) >= 3).astype(np.uint8)  # needs many rules
    problem = Problem(X, y, rng.random(400) < 0.5, lam=0.0005)
    result = BnBSolver(warm_start_engine="cpsat", warm_start_seconds=SECONDS, beam_width=0).solve(
        problem.replace(limits=Limits(max_nodes=200_000))
    )
    handed = result.stats["warm_start_cpsat"]
    assert handed["max_length"] == ws.WARM_START_MAX_LENGTH
    assert result.objective < handed["objective"]
    assert handed["outcome"] == "improved"


def test_a_list_cpsat_proves_optimal_is_kept():
    rng = np.random.default_rng(11)
    problem = random_problem(rng, n=60, m=5, epsilon=0.05, lam=0.01, max_length=2)
    result = warm(problem, beam_width=0)
    handed = result.stats["warm_start_cpsat"]
    assert handed["status"] == "optimal" and result.status is Status.OPTIMAL
    assert handed["outcome"] == "kept" and result.stats["warm_start"] == "used"
    assert abs(handed["objective"] - result.objective) <= 1e-9


# --------------------------------------------------------------------------- time and fallback
def test_the_warm_start_takes_at_most_half_of_the_time_limit(monkeypatch):
    seen = {}
    original = CPSatSolver.solve

    def spy(self, problem):
        seen["time_limit"] = problem.limits.time_limit
        return original(self, problem)

    monkeypatch.setattr(CPSatSolver, "solve", spy)
    problem = random_problem(np.random.default_rng(0), epsilon=0.1, lam=0.01, max_length=2)
    result = BnBSolver(warm_start_engine="cpsat", warm_start_seconds=100.0).solve(
        problem.replace(limits=Limits(time_limit=4.0))
    )
    assert 1.9 < seen["time_limit"] <= 2.0  # half of what was left
    assert result.stats["warm_start_cpsat"]["budget_seconds"] == seen["time_limit"]
    assert ws.warm_start_seconds(3.0, None) == 3.0 and ws.warm_start_seconds(3.0, 10.0) == 3.0


def test_the_search_gets_the_time_the_warm_start_left(monkeypatch):
    """The branch-and-bound's time limit is the problem's minus what CP-SAT took."""
    seen = {}
    original = BnBSolver._solve

    def spy(self, problem):
        seen["time_limit"] = problem.limits.time_limit
        return original(self, problem)

    def slow_cpsat(self, problem):
        import time

        time.sleep(0.3)
        return Result.no_list(Status.UNKNOWN, StopReason.TIME_LIMIT, "cpsat")

    monkeypatch.setattr(BnBSolver, "_solve", spy)
    monkeypatch.setattr(CPSatSolver, "solve", slow_cpsat)
    problem = random_problem(np.random.default_rng(0), epsilon=0.1, lam=0.01, max_length=2)
    warm(problem.replace(limits=Limits(time_limit=10.0)))
    assert seen["time_limit"] <= 10.0 - 0.3


def test_a_cpsat_run_without_a_list_falls_back_to_the_plain_search(monkeypatch):
    monkeypatch.setattr(
        CPSatSolver,
        "solve",
        lambda self, p: Result.no_list(Status.UNKNOWN, StopReason.TIME_LIMIT, "cpsat"),
    )
    problem = random_problem(np.random.default_rng(2), epsilon=0.1, lam=0.01, max_length=3)
    result = warm(problem)
    assert_certifies(problem, reference_solve(problem, 3), result, "fallback")
    handed = result.stats["warm_start_cpsat"]
    assert handed["outcome"] == "none" and handed["objective"] is None
    assert handed["stop_reason"] == "time_limit" and result.stats["warm_start"] == "none"


def test_a_cpsat_failure_warns_and_falls_back(monkeypatch):
    def broken(self, problem):
        raise MemoryError("the model does not fit")

    monkeypatch.setattr(CPSatSolver, "solve", broken)
    problem = random_problem(np.random.default_rng(2), epsilon=0.1, lam=0.01, max_length=3)
    with pytest.warns(ws.WarmStartWarning, match="the model does not fit"):
        result = warm(problem)
    assert_certifies(problem, reference_solve(problem, 3), result, "failure")
    handed = result.stats["warm_start_cpsat"]
    assert handed["outcome"] == "none" and "MemoryError" in handed["message"]


def test_ctrl_c_during_the_warm_start_returns_its_list_without_searching(monkeypatch):
    original = CPSatSolver.solve

    def interrupted(self, problem):
        import dataclasses

        return dataclasses.replace(original(self, problem), stop_reason=StopReason.INTERRUPTED)

    monkeypatch.setattr(CPSatSolver, "solve", interrupted)
    problem = random_problem(np.random.default_rng(4), epsilon=0.1, lam=0.01, max_length=3)
    result = warm(problem)
    assert result.stop_reason is StopReason.INTERRUPTED
    assert result.rule_list is not None
    assert result.objective <= result.stats["warm_start_cpsat"]["objective"] + 1e-12


# --------------------------------------------------------------------------- parameters
def test_parameters_are_checked_with_their_names():
    problem = random_problem(np.random.default_rng(0), lam=0.01)
    for bad in (True, "yes", "bnb"):
        with pytest.raises(InvalidParameterError, match="'warm_start_engine' parameter"):
            BnBSolver(warm_start_engine=bad).solve(problem)
    for bad in (0, -1.0, float("inf"), float("nan"), "5"):
        with pytest.raises(InvalidParameterError, match="'warm_start_seconds' parameter"):
            BnBSolver(warm_start_engine="cpsat", warm_start_seconds=bad).solve(problem)
    initial = BnBSolver().solve(problem).rule_list
    with pytest.raises(InvalidParameterError, match="initial and warm_start_engine"):
        BnBSolver(warm_start_engine="cpsat", initial=initial).solve(problem)


def test_the_registry_says_which_engine_takes_a_warm_start():
    assert ENGINES["bnb"].supports("accepts_warm_start")
    assert not ENGINES["cpsat"].supports("accepts_warm_start")
    X, y, s = np.array([[1, 0], [0, 1], [1, 1], [0, 0]]), [1, 0, 1, 0], [1, 1, 0, 0]
    with pytest.raises(InvalidParameterError, match="warm_start_engine='cpsat': engine='cpsat'"):
        FairRuleListClassifier(engine="cpsat", warm_start_engine="cpsat").fit(X, y, s)
    with pytest.raises(InvalidParameterError, match="'warm_start_engine' parameter"):
        FairRuleListClassifier(warm_start_engine=True).fit(X, y, s)
    with pytest.raises(InvalidParameterError, match="warm_start"):
        FairRuleListClassifier(engine=BnBSolver(), warm_start_engine="cpsat").fit(X, y, s)


# --------------------------------------------------------------------------- the estimator
def _data(seed=0, n=200):
    rng = np.random.default_rng(seed)
    X = (rng.random((n, 6)) < 0.4).astype(int)
    s = (rng.random(n) < 0.5).astype(int)
    y = ((X[:, 0] | X[:, 1]) ^ (rng.random(n) < 0.15)).astype(int)
    return X, y, s


def test_estimator_reports_and_saves_the_handover(tmp_path, capsys):
    X, y, s = _data()
    clf = FairRuleListClassifier(
        epsilon=0.05,
        lam=0.01,
        max_length=3,
        warm_start_engine="cpsat",
        warm_start_seconds=SECONDS,
        verbose=1,
    ).fit(X, y, sensitive_features=s)
    plain = FairRuleListClassifier(epsilon=0.05, lam=0.01, max_length=3).fit(
        X, y, sensitive_features=s
    )
    assert clf.status_ is Status.OPTIMAL and abs(clf.objective_ - plain.objective_) <= 1e-12
    handed = clf.stats_["warm_start_cpsat"]
    assert handed["outcome"] in ("kept", "improved", "beaten") and handed["length"] <= 3
    err = capsys.readouterr().err
    assert "fit: CP-SAT warm start: up to" in err
    assert f"CP-SAT warm start: objective {handed['objective']:.6f}" in err
    assert f"CP-SAT warm start {handed['outcome']}, status optimal" in err  # the last line
    clf.save(tmp_path / "m.json")
    loaded = FairRuleListClassifier.load(tmp_path / "m.json")
    assert loaded.get_params()["warm_start_engine"] == "cpsat"
    assert loaded.stats_["warm_start_cpsat"] == json.loads(json.dumps(handed))
    # a file written before the parameters existed loads with their defaults
    doc = plain.to_dict()
    for name in ("warm_start_engine", "warm_start_seconds"):
        doc["params"].pop(name)
    old = FairRuleListClassifier.from_dict(doc)
    assert old.warm_start_engine is None and old.warm_start_seconds == 5.0
    assert "warm_start_cpsat" not in old.stats_


def test_docstring_default_matches_the_estimator():
    from fairlist.solvers.base import DEFAULT_WARM_START_SECONDS

    assert FairRuleListClassifier().warm_start_seconds == DEFAULT_WARM_START_SECONDS
    assert BnBSolver().warm_start_seconds == DEFAULT_WARM_START_SECONDS


# --------------------------------------------------------------------------- the command line
def _csv(path):
    import pandas as pd

    X, y, s = _data(1, 150)
    frame = pd.DataFrame(X, columns=list("abcdef"))
    frame.insert(0, "grp", s)
    frame["label"] = y
    frame.to_csv(path, index=False)


def test_fit_and_verify_take_the_warm_start(tmp_path):
    data = tmp_path / "d.csv"
    _csv(data)
    common = [str(data), "--target", "label", "--sensitive", "grp", "--epsilon", "0.1"]
    common += ["--lam", "0.01", "--max-length", "2"]
    runner = CliRunner()
    fitted = runner.invoke(
        app, ["fit", *common, "--warm-start", "cpsat", "--warm-start-seconds", "2", "--json"]
    )
    assert fitted.exit_code == 0, fitted.output
    doc = json.loads(fitted.stdout)
    assert doc["status"] == "optimal"
    assert doc["warm_start"]["budget_seconds"] == 2.0
    assert doc["warm_start"]["outcome"] in ("kept", "improved", "beaten")
    text = runner.invoke(app, ["fit", *common, "--warm-start", "cpsat"])
    assert text.exit_code == 0, text.output
    assert "CP-SAT warm start: objective" in text.stdout
    plain = json.loads(runner.invoke(app, ["fit", *common, "--json"]).stdout)
    assert plain["warm_start"] is None and abs(plain["objective"] - doc["objective"]) <= 1e-12
    verified = runner.invoke(app, ["verify", *common, "--warm-start", "cpsat", "--json"])
    assert verified.exit_code == 0, verified.output
    report = json.loads(verified.stdout)
    assert report["agree"] and report["bnb"]["warm_start"]["outcome"] != "none"
    bad = runner.invoke(app, ["fit", *common, "--warm-start", "gurobi"])
    assert bad.exit_code == 2
    zero = runner.invoke(
        app, ["fit", *common, "--warm-start", "cpsat", "--warm-start-seconds", "0"]
    )
    assert zero.exit_code == 1 and "'warm_start_seconds' parameter" in zero.output


def test_a_real_cpsat_timeout_hands_nothing_over(compas):
    """On COMPAS (5,273 rows, 163 antecedents) CP-SAT cannot build its model in 10 ms: nothing
    is handed over, and the search certifies as it does without it."""
    problem = compas.replace(max_length=2)
    result = BnBSolver(warm_start_engine="cpsat", warm_start_seconds=0.01).solve(problem)
    plain = BnBSolver().solve(problem)
    handed = result.stats["warm_start_cpsat"]
    assert handed["objective"] is None and handed["outcome"] == "none"
    assert result.status is Status.OPTIMAL and abs(result.objective - plain.objective) <= 1e-12


def test_the_live_line_shows_the_warm_start():
    from fairlist.cli.progress import _phase_done, _progress_line

    start = {"phase": "warm_start", "engine": "cpsat", "budget_seconds": 2.5}
    assert _progress_line(start) == "CP-SAT warm start: up to 2.5 s…"
    done = {**start, "done": True, "status": "feasible", "objective": 0.25, "length": 2}
    done["seconds"] = 2.5
    kept = _phase_done("warm_start", done, {"nodes_expanded": 0}, 2.5)
    assert kept == "CP-SAT warm start: objective 0.250000, 2 rules (feasible, 2.5 s)"
    failed = {**start, "status": "error", "objective": None, "seconds": 0.1, "message": "boom"}
    assert _progress_line(failed).startswith("CP-SAT warm start: no list (error, 0.1 s): boom")
