"""The command line: exit codes, output, files, and the arguments passed down."""

from __future__ import annotations

import io
import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

from fairlist import estimator as est_module
from fairlist.cli import (
    EXIT_DISAGREE,
    EXIT_INCONCLUSIVE,
    EXIT_INFEASIBLE,
    EXIT_INTERRUPTED,
    EXIT_NOT_CERTIFIED,
    app,
)
from fairlist.estimator import FairRuleListClassifier

runner = CliRunner()


def binary_csv(path, n: int = 120, seed: int = 0):
    rng = np.random.default_rng(seed)
    X = (rng.random((n, 4)) < 0.4).astype(int)
    g = (rng.random(n) < 0.5).astype(int)
    y = ((X[:, 0] | X[:, 1]) ^ (rng.random(n) < 0.1)).astype(int)
    frame = pd.DataFrame(X, columns=["a", "b", "c", "d"])
    frame.insert(0, "grp", g)
    frame.insert(1, "other_grp", 1 - g)
    frame["label"] = y
    frame.to_csv(path, index=False)
    return frame


FIT = ["fit", "--target", "label", "--sensitive", "grp", "--drop", "other_grp"]


def small_pareto(data):
    """A pareto command on ``data`` (binary_csv) of 3 caps x 2 folds, lists of 2 rules."""
    return ["pareto", str(data), *FIT[1:], "--max-length", "2", "--n-epsilons", "3", "--cv", "2"]


def test_version():
    result = runner.invoke(app, ["--version"])
    assert result.exit_code == 0 and result.stdout.startswith("fairlist ")


def test_fit_prints_the_rule_list_and_writes_the_model(tmp_path):
    data = tmp_path / "d.csv"
    binary_csv(data)
    model = tmp_path / "m.json"
    result = runner.invoke(
        app,
        [
            *FIT[:1],
            str(data),
            *FIT[1:],
            "--metric",
            "SP",
            "--epsilon",
            "0.05",
            "--engine",
            "cpsat",
            "--max-length",
            "2",
            "--output",
            str(model),
        ],
    )
    assert result.exit_code == 0, result.output
    assert "training accuracy:" in result.stdout
    assert "unfairness (SP):" in result.stdout and "(cap <= 0.05)" in result.stdout
    assert "status: optimal" in result.stdout
    clf = FairRuleListClassifier.load(model)
    assert clf.unfairness_ <= 0.05 + 1e-9
    assert str(clf.rule_list_) in result.stdout
    assert "other_grp" not in clf.feature_names_in_ and "grp" not in clf.feature_names_in_
    shown = runner.invoke(app, ["show", str(model)])
    assert shown.exit_code == 0 and shown.stdout.startswith(str(clf.rule_list_) + "\n")


def fit_params(monkeypatch) -> dict:
    """The parameters of the estimator the command fits, filled in when it builds its solver."""
    seen = {}
    original = FairRuleListClassifier._solver

    def spy(self):
        seen.update(self.get_params())
        return original(self)

    monkeypatch.setattr(est_module.FairRuleListClassifier, "_solver", spy)
    return seen


def test_fit_passes_every_option_down(tmp_path, monkeypatch):
    data = tmp_path / "d.csv"
    binary_csv(data)
    seen = fit_params(monkeypatch)
    result = runner.invoke(
        app,
        [
            "fit",
            str(data),
            *FIT[1:],
            "--metric",
            "EOdds",
            "--epsilon",
            "0.2",
            "--engine",
            "bnb",
            "--lam",
            "0.02",
            "--max-length",
            "3",
            "--time-limit",
            "5",
            "--max-nodes",
            "10000",
            "--policy",
            "lower_bound",
            "--deepen-length",
            "2",
            "--json",
        ],
    )
    if "not importable" in result.output or "No module named" in result.output:
        pytest.skip("the bnb engine is not importable")
    assert result.exit_code == 0, result.output
    assert seen["metric"] == "EOdds" and seen["epsilon"] == 0.2 and seen["lam"] == 0.02
    assert (seen["max_length"], seen["time_limit"], seen["max_nodes"]) == (3, 5.0, 10000)
    assert seen["engine"] == "bnb" and seen["policy"] == "lower_bound"
    assert seen["engine_options"] == {"deepen_length": 2}
    doc = json.loads(result.stdout)
    assert doc["status"] == "optimal" and doc["certified_length"] == 3  # the whole space
    assert doc["metric"] == "EOdds" and doc["unfairness"] <= 0.2 + 1e-9
    assert doc["rule_list"]["format"] == "fairlist.rule_list"


@pytest.mark.parametrize(("given", "expected"), [([], None), (["--deepen-length", "0"], 0)])
def test_fit_leaves_deepening_to_the_engine_unless_asked(tmp_path, monkeypatch, given, expected):
    """No --deepen-length: the engine's default ("auto"); --deepen-length 0 switches it off."""
    data = tmp_path / "d.csv"
    binary_csv(data)
    seen = fit_params(monkeypatch)
    args = ["fit", str(data), *FIT[1:], "--engine", "bnb", "--time-limit", "5", *given]
    result = runner.invoke(app, args)
    if "not importable" in result.output or "No module named" in result.output:
        pytest.skip("the bnb engine is not importable")
    assert result.exit_code == 0, result.output
    assert (seen["engine_options"] or {}).get("deepen_length") == expected


def test_predict_writes_classes_rules_and_rates(tmp_path):
    data = tmp_path / "d.csv"
    frame = binary_csv(data)
    model = tmp_path / "m.json"
    fitted = runner.invoke(
        app,
        [
            "fit",
            str(data),
            *FIT[1:],
            "--engine",
            "cpsat",
            "--max-length",
            "2",
            "--output",
            str(model),
        ],
    )
    assert fitted.exit_code == 0, fitted.output
    out = tmp_path / "pred.csv"
    result = runner.invoke(app, ["predict", str(model), str(data), "--output", str(out)])
    assert result.exit_code == 0, result.output
    pred = pd.read_csv(out)
    clf = FairRuleListClassifier.load(model)
    X = frame[["a", "b", "c", "d"]]
    np.testing.assert_array_equal(pred["prediction"], clf.predict(X))
    np.testing.assert_array_equal(pred["rule"], clf.apply(X))
    np.testing.assert_allclose(pred["probability_positive"], clf.predict_proba(X)[:, 1])
    as_json = runner.invoke(app, ["predict", str(model), str(data), "--json"])
    assert json.loads(as_json.stdout)["n_samples"] == len(frame)


def test_raw_columns_go_through_the_binarizer_and_predict_reapplies_the_cuts(tmp_path):
    pytest.importorskip("fairlist.binarize")
    rng = np.random.default_rng(1)
    n = 200
    raw = pd.DataFrame(
        {
            "age": rng.integers(18, 70, n),
            "job": rng.choice(["a", "b"], n),
            "sex": rng.choice(["F", "M"], n),
        }
    )
    raw["hired"] = np.where((raw["age"] < 35) ^ (rng.random(n) < 0.1), "yes", "no")
    data = tmp_path / "raw.csv"
    raw.to_csv(data, index=False)
    model = tmp_path / "m.json"
    result = runner.invoke(
        app,
        [
            "fit",
            str(data),
            "--target",
            "hired",
            "--sensitive",
            "sex",
            "--protected",
            "F",
            "--engine",
            "cpsat",
            "--max-length",
            "2",
            "--min-support",
            "0.2",
            "--output",
            str(model),
        ],
    )
    assert result.exit_code == 0, result.output
    assert "age:" in result.stdout
    pred = runner.invoke(app, ["predict", str(model), str(data), "--json"])
    assert pred.exit_code == 0, pred.output
    labels = [r["prediction"] for r in json.loads(pred.stdout)["predictions"]]
    clf = FairRuleListClassifier.load(model)
    assert np.mean(np.array(labels) == raw["hired"]) == pytest.approx(clf.accuracy_)


def test_errors_are_one_line_with_exit_code_1(tmp_path):
    data = tmp_path / "d.csv"
    binary_csv(data)
    cases = [
        (["fit", str(data), "--target", "nope", "--sensitive", "grp"], "--target 'nope'"),
        (["fit", str(tmp_path / "missing.csv"), "--target", "label"], "no file"),
        (["fit", str(data), *FIT[1:], "--lam", "-1"], "'lam' parameter"),
        (["fit", str(data), "--target", "label", "--sensitive", "a"], "other_grp"),
    ]
    for args, needle in cases:
        result = runner.invoke(app, args)
        if needle == "other_grp":  # another group column left in: fine, it is an antecedent
            assert result.exit_code in (0, 1)
            continue
        assert result.exit_code == 1, (args, result.output)
        assert needle in result.output
        assert result.output.strip().count("\n") == 0
        assert result.output.startswith("error: ")


def test_usage_errors_exit_with_2(tmp_path):
    assert runner.invoke(app, ["fit"]).exit_code == 2
    assert runner.invoke(app, ["fit", "x.csv", "--engine", "gurobi"]).exit_code == 2


@pytest.mark.parametrize(
    ("option", "value", "choices"),
    [("--metric", "accuracy", "EOdds"), ("--policy", "breadth", "lower_bound")],
)
def test_an_unknown_choice_is_a_usage_error_that_lists_the_choices(option, value, choices):
    result = runner.invoke(app, ["fit", "x.csv", option, value], env={"COLUMNS": "250"})
    assert result.exit_code == 2
    assert choices.lower() in result.output.lower()


def test_choices_are_case_insensitive_for_metrics(tmp_path):
    data = tmp_path / "d.csv"
    binary_csv(data)
    result = runner.invoke(app, ["fit", str(data), *FIT[1:], "--metric", "eodds", "--json"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["metric"] == "EOdds"


def test_an_infeasible_cap_exits_with_3(tmp_path, monkeypatch):
    data = tmp_path / "d.csv"
    binary_csv(data)
    from fairlist.solvers import Result, Status, StopReason

    class Infeasible:
        name = "stub"

        def solve(self, problem):
            return Result(
                Status.INFEASIBLE,
                None,
                float("inf"),
                float("nan"),
                float("nan"),
                float("inf"),
                StopReason.COMPLETED,
                "stub",
            )

    monkeypatch.setattr(est_module.FairRuleListClassifier, "_solver", lambda self: Infeasible())
    result = runner.invoke(app, ["fit", str(data), *FIT[1:], "--metric", "CUAE", "--epsilon", "0"])
    assert result.exit_code == EXIT_INFEASIBLE
    assert "proved infeasible" in result.output


def stub_engine(monkeypatch, stop):
    """Make fit use an engine that returns the constant list 0, stopped by ``stop``."""
    from fairlist.rulelist import RuleList
    from fairlist.solvers import Result, Status

    class Stopped:
        name = "stub"

        def solve(self, problem):
            ev = problem.evaluate(RuleList([], 0, problem.labels, problem.feature_names))
            return Result(
                Status.FEASIBLE,
                RuleList([], 0),
                ev.objective,
                ev.accuracy,
                ev.unfairness,
                0.0,
                stop,
                "stub",
            )

    monkeypatch.setattr(est_module.FairRuleListClassifier, "_solver", lambda self: Stopped())


def test_an_interrupted_fit_prints_the_best_list_and_exits_130(tmp_path, monkeypatch):
    from fairlist.solvers import StopReason

    data = tmp_path / "d.csv"
    binary_csv(data)
    stub_engine(monkeypatch, StopReason.INTERRUPTED)
    model = tmp_path / "m.json"
    result = runner.invoke(app, ["fit", str(data), *FIT[1:], "--output", str(model)])
    assert result.exit_code == EXIT_INTERRUPTED
    assert "predict [0]" in result.stdout and "interrupted" in result.stdout
    assert json.loads(model.read_text())["training"]["stop_reason"] == "interrupted"


def test_require_optimal_exits_5_when_a_limit_stopped_the_search(tmp_path, monkeypatch):
    from fairlist.solvers import StopReason

    data = tmp_path / "d.csv"
    binary_csv(data)
    assert runner.invoke(app, ["fit", str(data), *FIT[1:], "--require-optimal"]).exit_code == 0
    stub_engine(monkeypatch, StopReason.NODE_LIMIT)
    result = runner.invoke(app, ["fit", str(data), *FIT[1:], "--require-optimal", "--json"])
    assert result.exit_code == EXIT_NOT_CERTIFIED
    doc = json.loads(result.stdout)
    assert doc["status"] == "feasible" and doc["gap"] == pytest.approx(doc["objective"])


def test_fit_stops_at_the_gap_tolerance_and_says_so(tmp_path):
    data = tmp_path / "d.csv"
    binary_csv(data, n=300)
    args = ["fit", str(data), *FIT[1:], "--engine", "cpsat", "--max-length", "3", "--lam", "0.001"]
    exact = json.loads(runner.invoke(app, [*args, "--json"]).stdout)
    assert exact["status"] == "optimal" and exact["stop_reason"] == "completed"
    loose = runner.invoke(app, [*args, "--gap-tolerance", "0.5"])
    assert loose.exit_code == 0, loose.output
    assert "feasible (gap_limit)" in loose.stdout and "within the gap tolerance" in loose.stdout
    doc = json.loads(runner.invoke(app, [*args, "--gap-tolerance", "0.5", "--json"]).stdout)
    assert doc["lower_bound"] <= exact["objective"] + 1e-9 and 0 < doc["gap"] <= 0.5


def test_errors_under_json_are_a_json_object_with_the_exit_code(tmp_path):
    result = runner.invoke(app, ["fit", str(tmp_path / "missing.csv"), "--json"])
    assert result.exit_code == 1
    doc = json.loads(result.stdout)
    assert doc["exit_code"] == 1 and "no file" in doc["error"]


def test_show_prints_a_model_and_takes_json(tmp_path):
    data = tmp_path / "d.csv"
    binary_csv(data)
    model = tmp_path / "m.json"
    assert runner.invoke(app, ["fit", str(data), *FIT[1:], "--output", str(model)]).exit_code == 0
    shown = runner.invoke(app, ["show", str(model), "--json"])
    assert shown.exit_code == 0, shown.output
    doc = json.loads(shown.stdout)
    assert doc["training"]["status"] == "optimal" and doc["text"].startswith("if [")
    (tmp_path / "bad.json").write_text("{not json")
    bad = runner.invoke(app, ["show", str(tmp_path / "bad.json")])
    assert bad.exit_code == 1 and "not valid JSON" in bad.output


def test_exact_and_cv_are_two_fronts(tmp_path):
    data = tmp_path / "d.csv"
    binary_csv(data)
    result = runner.invoke(app, ["pareto", str(data), *FIT[1:], "--exact", "--cv", "3"])
    assert result.exit_code == 1 and "pick one" in result.output


def test_a_raw_compas_csv_fits_and_the_saved_model_predicts_it(tmp_path, shared_data):
    raw = pd.read_csv(shared_data / "compas" / "compas-scores-two-years.csv")
    columns = [
        "sex",
        "age",
        "race",
        "priors_count",
        "juv_fel_count",
        "c_charge_degree",
        "two_year_recid",
    ]
    table = raw[columns].head(1500)
    data = tmp_path / "raw.csv"
    table.to_csv(data, index=False)
    model = tmp_path / "m.json"
    fitted = runner.invoke(
        app,
        [
            "fit",
            str(data),
            "--target",
            "two_year_recid",
            "--sensitive",
            "race",
            "--protected",
            "African-American",
            "--metric",
            "SP",
            "--epsilon",
            "0.1",
            "--max-length",
            "2",
            "--output",
            str(model),
        ],
    )
    assert fitted.exit_code == 0, fitted.output
    assert "race" not in fitted.stdout.split("training accuracy")[0]  # never an antecedent
    pred = runner.invoke(app, ["predict", str(model), str(data), "--json"])
    assert pred.exit_code == 0, pred.output
    labels = np.array([r["prediction"] for r in json.loads(pred.stdout)["predictions"]])
    clf = FairRuleListClassifier.load(model)
    assert np.mean(labels == table["two_year_recid"].to_numpy()) == pytest.approx(clf.accuracy_)


def test_pareto_writes_csv_json_and_plot(tmp_path):
    data = tmp_path / "d.csv"
    binary_csv(data, n=150)
    out, js, png = tmp_path / "front.csv", tmp_path / "front.json", tmp_path / "front.png"
    result = runner.invoke(
        app,
        [
            "pareto",
            str(data),
            *FIT[1:],
            "--engine",
            "cpsat",
            "--max-length",
            "2",
            "--lam",
            "0.01",
            "--n-epsilons",
            "4",
            "--epsilon-max",
            "0.3",
            "--cv",
            "2",
            "--n-jobs",
            "1",
            "--output",
            str(out),
            "--json-output",
            str(js),
            "--plot",
            str(png),
        ],
    )
    assert result.exit_code == 0, result.output
    front = pd.read_csv(out)
    assert len(front) >= 1 and {"test_error", "test_unfairness"} <= set(front.columns)
    doc = json.loads(js.read_text())
    assert len(doc["points"]) == 4 * 2
    assert png.read_bytes().startswith(b"\x89PNG")
    assert "Pareto points" in result.stdout


def test_pareto_exact_front_as_json(tmp_path):
    data = tmp_path / "d.csv"
    binary_csv(data)
    result = runner.invoke(
        app,
        [
            "pareto",
            str(data),
            *FIT[1:],
            "--exact",
            "--engine",
            "cpsat",
            "--max-length",
            "2",
            "--lam",
            "0.01",
            "--output",
            str(tmp_path / "f.csv"),
            "--json",
        ],
    )
    assert result.exit_code == 0, result.output
    doc = json.loads(result.stdout)
    assert doc["kind"] == "training" and doc["settings"]["complete"]
    unf = [p["unfairness"] for p in doc["front"]]
    assert unf == sorted(unf)


def test_an_interrupted_pareto_sweep_writes_the_partial_front_and_exits_130(tmp_path, monkeypatch):
    import dataclasses

    from fairlist.pareto import FitSettings
    from fairlist.solvers import Status, StopReason

    solver = FitSettings.solver
    calls = {"n": 0}

    class InterruptedOnSecond:
        def __init__(self, inner):
            self.inner = inner

        def solve(self, problem):
            calls["n"] += 1
            result = self.inner.solve(problem)
            if calls["n"] < 2:
                return result
            return dataclasses.replace(
                result, status=Status.FEASIBLE, stop_reason=StopReason.INTERRUPTED
            )

    monkeypatch.setattr(FitSettings, "solver", lambda self, p: InterruptedOnSecond(solver(self, p)))
    data, out = tmp_path / "d.csv", tmp_path / "f.csv"
    binary_csv(data)
    result = runner.invoke(
        app,
        [
            "pareto",
            str(data),
            *FIT[1:],
            "--exact",
            "--max-length",
            "2",
            "--lam",
            "0.01",
            "--output",
            str(out),
        ],
    )
    assert result.exit_code == EXIT_INTERRUPTED, result.output
    assert calls["n"] == 2 and "partial" in result.stdout
    assert len(pd.read_csv(out)) == 1  # the one certified point; the cut solve is not on it


def test_verify_reports_agreement(tmp_path):
    pytest.importorskip("fairlist.solvers.bnb")
    data = tmp_path / "d.csv"
    binary_csv(data)
    result = runner.invoke(
        app,
        [
            "verify",
            str(data),
            *FIT[1:],
            "--metric",
            "EOpp",
            "--epsilon",
            "0.1",
            "--max-length",
            "2",
            "--json",
        ],
    )
    doc = json.loads(result.stdout)
    assert result.exit_code == (0 if doc["agree"] else EXIT_DISAGREE)
    assert doc["agree"] and doc["max_length"] == 2
    assert abs(doc["bnb"]["objective"] - doc["cpsat"]["objective"]) <= 1e-9


def verify_with_cpsat_as(tmp_path, monkeypatch, change):
    """``fairlist verify --json`` on a small table, CP-SAT's result passed through ``change``."""
    import dataclasses

    from fairlist.solvers.cpsat import CPSatSolver

    solve = CPSatSolver.solve
    monkeypatch.setattr(
        CPSatSolver,
        "solve",
        lambda self, problem: dataclasses.replace(solve(self, problem), **change),
    )
    data = tmp_path / "d.csv"
    binary_csv(data)
    args = ["verify", str(data), *FIT[1:], "--epsilon", "0.1", "--max-length", "2", "--json"]
    result = runner.invoke(app, args)
    return result, json.loads(result.stdout)


STOPPED = {"status": "feasible", "stop_reason": "time_limit"}


@pytest.mark.parametrize(
    ("change", "code", "conclusive"),
    [
        # CP-SAT hit its time limit: inconclusive, its own code
        (STOPPED, EXIT_INCONCLUSIVE, False),
        # a contradiction found before the limit is still a disagreement: CP-SAT's list beats
        # bnb's "optimal" objective
        (STOPPED | {"objective": -1.0}, EXIT_DISAGREE, False),
        # both finished, different optima
        ({"objective": 7.0}, EXIT_DISAGREE, True),
    ],
    ids=["inconclusive", "beaten-proof", "different-optima"],
)
def test_verify_exits_6_when_inconclusive_and_4_on_a_disagreement(
    tmp_path, monkeypatch, change, code, conclusive
):
    from fairlist.solvers.base import Status, StopReason

    change = dict(change)
    if "status" in change:
        change["status"] = Status(change["status"])
        change["stop_reason"] = StopReason(change["stop_reason"])
    result, doc = verify_with_cpsat_as(tmp_path, monkeypatch, change)
    assert result.exit_code == code, result.output
    assert not doc["agree"] and doc["conclusive"] is conclusive
    assert doc["disagree"] is (code == EXIT_DISAGREE)
    assert doc["message"].startswith("inconclusive" if code == EXIT_INCONCLUSIVE else "DISAGREE")


def test_docs_list_exactly_the_declared_exit_codes():
    # docs/cli.md holds the one table of the exit codes; program.py declares them
    from fairlist.cli import program

    declared = {v for k, v in vars(program).items() if k.startswith("EXIT_")}
    text = (Path(__file__).parents[1] / "docs" / "cli.md").read_text()
    table = text[text.index("Exit codes:") :].split("\n\n")[1]
    listed = {int(line.split("|")[1]) for line in table.splitlines()[2:]}
    assert listed == declared and len(declared) == 9


def test_datasets_lists_the_built_in_sets(shared_data, monkeypatch):
    monkeypatch.setenv("FAIRLIST_DATA_HOME", str(shared_data))
    result = runner.invoke(app, ["datasets", "--json"])
    assert result.exit_code == 0, result.output
    doc = json.loads(result.stdout)
    names = {d["name"] for d in doc["datasets"]}
    assert {"compas", "adult"} <= names
    compas = next(d for d in doc["datasets"] if d["name"] == "compas")
    assert compas["files"][0]["found"].startswith(str(shared_data))
    text = runner.invoke(app, ["datasets"])
    assert "compas" in text.stdout and str(shared_data) in text.stdout


@pytest.mark.slow
def test_fit_on_the_built_in_compas(shared_data, monkeypatch):
    monkeypatch.setenv("FAIRLIST_DATA_HOME", str(shared_data))
    result = runner.invoke(
        app,
        [
            "fit",
            "compas",
            "--metric",
            "SP",
            "--epsilon",
            "0.05",
            "--lam",
            "0.01",
            "--max-nodes",
            "200000",
            "--json",
        ],
    )
    assert result.exit_code == 0, result.output
    doc = json.loads(result.stdout)
    assert doc["unfairness"] <= 0.05 + 1e-9 and doc["n_samples"] > 5000


# --------------------------------------------------------------------------- issue 25
def test_pareto_shows_progress_lines_on_a_pipe_and_counts_its_fits(tmp_path, monkeypatch):
    import fairlist.cli.progress as progress

    monkeypatch.setattr(progress, "PIPE_PROGRESS_SECONDS", 0.0)  # a line per fit
    data = tmp_path / "d.csv"
    binary_csv(data, n=150)
    result = runner.invoke(
        app,
        [
            *small_pareto(data),
            "--output",
            str(tmp_path / "f.csv"),
        ],
    )
    assert result.exit_code == 0, result.output
    lines = [line for line in result.stderr.splitlines() if line.startswith("pareto: ")]
    assert lines and lines[-1].startswith("pareto: 8/8 fits"), result.stderr  # 3 x 2 + 2
    assert "best error" in lines[-1]
    assert "from 8 fits (" in result.stdout  # the same count as the progress total


def test_an_interrupted_sweep_says_how_many_fits_ran_and_were_cancelled(tmp_path, interrupt_solve):
    data = tmp_path / "d.csv"
    binary_csv(data, n=150)
    interrupt_solve(3)
    result = runner.invoke(
        app,
        [
            *small_pareto(data),
            "--n-jobs",
            "1",
            "--output",
            str(tmp_path / "f.csv"),
        ],
    )
    assert result.exit_code == EXIT_INTERRUPTED, result.output
    assert "of 8 fits (" in result.stdout and "cancelled" in result.stdout, result.stdout


@pytest.mark.parametrize(
    "args",
    [["--cv", "0"], ["--cv", "1"], ["--bogus"]],
)
def test_pareto_usage_errors_are_json_under_json(tmp_path, args):
    data = tmp_path / "d.csv"
    binary_csv(data)
    result = runner.invoke(app, ["pareto", str(data), *FIT[1:], "--json", *args])
    assert result.exit_code == 2
    doc = json.loads(result.stdout)
    assert doc["exit_code"] == 2 and doc["error"]


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["--policies", ""], "--policies names no policy"),
        (["--policies", "bfs,nope"], "unknown policy 'nope'"),
        (["--cv", "500"], "cv=500 folds for 120 samples"),
        (["--backend", "dask"], "--backend dask needs"),
        (["--output", "no/such/folder/f.csv"], "does not exist"),
    ],
)
def test_pareto_refuses_bad_options_in_one_line(tmp_path, args, says):
    pytest.importorskip("sklearn")
    data = tmp_path / "d.csv"
    binary_csv(data)
    result = runner.invoke(app, ["pareto", str(data), *FIT[1:], "--max-length", "1", *args])
    assert result.exit_code == 1, result.output
    assert says in result.output and "Traceback" not in result.output
    assert len(result.stderr.strip().splitlines()) == 1


def test_a_continuous_target_is_one_error_naming_the_column(tmp_path):
    data = tmp_path / "d.csv"
    frame = binary_csv(data)
    frame["score"] = np.linspace(0, 1, len(frame))
    frame.to_csv(data, index=False)
    result = runner.invoke(app, ["fit", str(data), "--target", "score", "--sensitive", "grp"])
    assert result.exit_code == 1
    assert "--target 'score'" in result.stderr and "two classes" in result.stderr


def test_predict_refuses_an_output_it_cannot_write_in_one_line(tmp_path):
    data, model = tmp_path / "d.csv", tmp_path / "m.json"
    binary_csv(data)
    fitted = runner.invoke(app, [*FIT[:1], str(data), *FIT[1:], "--output", str(model)])
    assert fitted.exit_code == 0, fitted.output
    for target, says in [
        (tmp_path / "missing" / "p.csv", "does not exist"),
        (tmp_path, "is a folder"),
        (Path("/proc/p.csv"), "No such file"),
    ]:
        result = runner.invoke(app, ["predict", str(model), str(data), "--output", str(target)])
        assert result.exit_code == 1, (target, result.output)
        assert says in result.stderr and len(result.stderr.strip().splitlines()) == 1


def test_predict_gives_each_row_an_id_and_the_text_of_its_rule(tmp_path):
    data, model = tmp_path / "d.csv", tmp_path / "m.json"
    frame = binary_csv(data)
    frame["key"] = [f"k{i}" for i in range(len(frame))]
    frame.to_csv(data, index=False)
    fitted = runner.invoke(
        app, [*FIT[:1], str(data), *FIT[1:], "--drop", "key", "--output", str(model)]
    )
    assert fitted.exit_code == 0, fitted.output
    out = runner.invoke(app, ["predict", str(model), str(data)])
    assert out.exit_code == 0, out.output
    table = pd.read_csv(io.StringIO(out.stdout))
    assert list(table.columns[:2]) == ["row", "prediction"]
    assert list(table["row"]) == list(range(len(frame)))
    clf = FairRuleListClassifier.load(model)
    n_rules = len(clf.rule_list_)
    for rule, text in zip(table["rule"], table["rule_text"], strict=True):
        if rule == n_rules:
            assert text.startswith("else [")
        else:
            assert text.startswith(f"if [{clf.rule_list_.rules[rule].antecedent}] then [")
    keyed = runner.invoke(app, ["predict", str(model), str(data), "--id", "key", "--json"])
    rows = json.loads(keyed.stdout)["predictions"]
    assert [r["key"] for r in rows] == list(frame["key"])
    missing = runner.invoke(app, ["predict", str(model), str(data), "--id", "nope"])
    assert missing.exit_code == 1 and "--id 'nope'" in missing.stderr


def test_fit_warns_when_the_length_penalty_chose_the_constant_list(tmp_path):
    data = tmp_path / "d.csv"
    binary_csv(data)
    result = runner.invoke(app, [*FIT[:1], str(data), *FIT[1:], "--lam", "0.5"])
    assert result.exit_code == 0, result.output
    assert "warning: lam=0.5 decided the answer" in result.stderr
    assert "lam=0.05" in result.stderr


def test_one_default_lam_everywhere():
    import inspect

    from fairlist.cli.fit import fit
    from fairlist.cli.fronts import pareto, verify
    from fairlist.solvers import Problem
    from fairlist.solvers.base import DEFAULT_LAM

    for fn in (fit, pareto, verify, FairRuleListClassifier.__init__):
        assert inspect.signature(fn).parameters["lam"].default == DEFAULT_LAM, fn
    assert Problem.__dataclass_fields__["lam"].default == DEFAULT_LAM


def test_pareto_tail_threads_reach_the_fits(tmp_path):
    """--tail-threads: the fits' thread counts (share_cores) reach the JSON's points."""
    data = tmp_path / "d.csv"
    binary_csv(data, n=150)
    out = tmp_path / "f.json"
    args = [*small_pareto(data), "--n-jobs", "1", "--tail-threads", "--json-output", str(out)]
    result = runner.invoke(app, [*args, "--output", str(tmp_path / "f.csv")])
    assert result.exit_code == 0, result.output
    doc = json.loads(out.read_text())
    assert doc["settings"]["tail_threads"] is True
    assert "--tail-threads" in runner.invoke(app, ["pareto", "--help"]).output


# --------------------------------------------------------------------------- issue 38
def test_the_command_section_of_extending_names_files_and_commands_that_exist():
    """docs/extending.md's "A command" names the package's files as they are, and COMMANDS is
    what the program lists, in its order."""
    import re

    import typer

    from fairlist.cli import COMMANDS

    root = Path(__file__).resolve().parents[1]
    text = (root / "docs" / "extending.md").read_text(encoding="utf-8")
    section = text.split("## A command", 1)[1].split("\n## ", 1)[0]
    named = set(re.findall(r"`(fairlist/[\w/]+\.py)`", section))
    assert {"fairlist/cli/program.py", "fairlist/cli/__init__.py"} <= named
    assert [p for p in sorted(named) if not (root / p).is_file()] == []
    listed = list(typer.main.get_command(app).commands)
    assert listed == [c.__name__ for c in COMMANDS]
    assert listed[:2] == ["fit", "predict"] and len(listed) == 9


#: The sections of docs/extending.md, each ending with the list of its files.
EXTENDING_SECTIONS = ("A metric", "A search policy", "A bound", "An engine", "A command")


def test_every_section_of_extending_lists_files_that_exist_holding_the_names_given():
    """docs/extending.md is true to the code: each section's "Files:" list names files that
    exist, each holding the names listed beside it (``- `path`: `Name`, `Other` ``), and every
    path the section's text names exists."""
    import re

    root = Path(__file__).resolve().parents[1]
    text = (root / "docs" / "extending.md").read_text(encoding="utf-8")
    sections = {part.split("\n", 1)[0]: part for part in text.split("\n## ")[1:]}
    assert set(EXTENDING_SECTIONS) <= set(sections)
    missing = []
    for title in EXTENDING_SECTIONS:
        section = sections[title]
        assert "\nFiles:\n" in section, f"{title}: no file list"
        listed = section.split("\nFiles:\n", 1)[1]
        entries = re.findall(r"^- `([\w/.-]+)`(?::\s*(.*))?$", listed, re.M)
        assert len(entries) >= 3, f"{title}: {entries}"
        for path, names in entries:
            if not (root / path).is_file():
                missing.append(f"{title}: {path}")
                continue
            source = (root / path).read_text(encoding="utf-8")
            for name in re.findall(r"`([^`]+)`", names):
                if not re.search(r"(?<!\w)" + re.escape(name) + r"(?!\w)", source):
                    missing.append(f"{title}: {name} in {path}")
        named = r"`((?:fairlist|native|tests|docs|benchmarks|examples)/[\w/.-]+\.\w+)`"
        missing += [f"{title}: {p}" for p in re.findall(named, section) if not (root / p).is_file()]
    assert missing == []
