"""Limits that hold: parameters bounded by the C++ and CP-SAT types they cross into, the time
limit covering data preparation and model building, the memory limit on the command line, and
CP-SAT's reproducibility."""

from __future__ import annotations

import numpy as np
import pytest
from typer.testing import CliRunner

from fairlist.cli import app
from fairlist.errors import InvalidParameterError
from fairlist.solvers import Limits, Problem, solve
from fairlist.solvers.bnb import BnBSolver
from fairlist.solvers.cpsat import CPSatSolver

runner = CliRunner()


def small_problem(n: int = 120, m: int = 5, seed: int = 0, **fields) -> Problem:
    rng = np.random.default_rng(seed)
    X = (rng.random((n, m)) < 0.4).astype(np.uint8)
    y = (X[:, 0] | X[:, 1]) ^ (rng.random(n) < 0.1)
    groups = rng.random(n) < 0.5
    return Problem(X, y.astype(np.uint8), groups, **fields)


# ------------------------------------------------------------------ bounds of the C++ types
@pytest.mark.parametrize(
    ("build", "name", "allowed"),
    [
        (lambda: Limits(max_nodes=2**64), "max_nodes", "[1, 9223372036854775807]"),
        (lambda: small_problem(max_length=10**20), "max_length", "[0, 9223372036854775807]"),
        (lambda: Limits(memory_limit_mb=float("inf")), "memory_limit_mb", "(0, 8796093022208]"),
        (lambda: BnBSolver(beam_width=2**64).solve(small_problem()), "beam_width", "[0, 9223"),
        (lambda: BnBSolver(deepen_length=2**63).solve(small_problem()), "deepen_length", "[0, "),
        (
            lambda: BnBSolver(progress=print, progress_interval=1e300).solve(small_problem()),
            "progress_interval", "(0, 9.22337e+09]",
        ),
        (
            lambda: CPSatSolver(random_seed=2**40).solve(small_problem(max_length=1)),
            "random_seed", "[-2147483648, 2147483647]",
        ),
        (
            lambda: CPSatSolver(num_workers=2**31).solve(small_problem(max_length=1)),
            "num_workers", "[1, 2147483647]",
        ),
        (
            lambda: CPSatSolver(progress=print, progress_interval=1e300).solve(
                small_problem(max_length=1)
            ),
            "progress_interval", "(0, 9.22337e+09]",
        ),
    ],
)  # fmt: skip
def test_a_value_beyond_its_cpp_type_is_an_invalid_parameter_naming_it(build, name, allowed):
    with pytest.raises(InvalidParameterError, match=f"'{name}' parameter") as info:
        build()
    assert allowed in str(info.value)


def test_the_largest_int64_values_are_accepted():
    problem = small_problem(
        max_length=2**63 - 1, limits=Limits(max_nodes=2**63 - 1, memory_limit_mb=2**43)
    )
    assert solve(problem).optimal
    assert BnBSolver(beam_width=2**62, deepen_length=2).solve(problem).optimal


def test_cli_max_length_beyond_int64_is_one_line_naming_it(tmp_path):
    data = tmp_path / "d.csv"
    problem = small_problem()
    import pandas as pd

    frame = pd.DataFrame(problem.X, columns=list("abcde"))
    frame["grp"], frame["label"] = problem.groups, problem.y
    frame.to_csv(data, index=False)
    for engine in ("bnb", "cpsat"):
        result = runner.invoke(
            app, ["fit", str(data), "--target", "label", "--sensitive", "grp", "--engine", engine,
                  "--max-length", "99999999999999999999"],
        )  # fmt: skip
        assert result.exit_code == 1, result.output
        assert result.output.startswith("error: The 'max_length' parameter")
        assert result.output.strip().count("\n") == 0


@pytest.mark.parametrize("gap", [float("inf"), 1e308])
def test_cpsat_takes_a_gap_tolerance_beyond_its_objective_range(gap):
    problem = small_problem(max_length=2, limits=Limits(gap_tolerance=gap))
    result = solve(problem, "cpsat")
    assert result.rule_list is not None and str(result.stop_reason) == "gap_limit"


def test_cpsat_rejection_names_the_reason(monkeypatch):
    """A model or parameter CP-SAT rejects is reported with CP-SAT's reason, never an empty one."""
    from fairlist.solvers import cpsat

    original = CPSatSolver._new_solver

    def bad_parameters(self, *args):
        solver = original(self, *args)
        solver.parameters.absolute_gap_limit = float("nan")
        return solver

    monkeypatch.setattr(cpsat.CPSatSolver, "_new_solver", bad_parameters)
    with pytest.raises(RuntimeError, match="CP-SAT rejected the model: .*absolute_gap_limit"):
        solve(small_problem(max_length=1), "cpsat")
