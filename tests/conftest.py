"""Shared fixtures: where the data sets are, and the published COMPAS file as a table and as
problems. ``tests/`` is on the import path (pyproject's ``pythonpath``), so the brute-force
oracle imports as ``reference``."""

from __future__ import annotations

from pathlib import Path

import pytest
from reference import published_problem

SHARED_DATA = Path(__file__).resolve().parents[2] / "shared" / "data"


@pytest.fixture(scope="session")
def shared_data() -> Path:
    """../shared/data relative to the repository root; skips when it is absent."""
    if not SHARED_DATA.is_dir():
        pytest.skip(f"the shared data sets are not at {SHARED_DATA} (CI provides them)")
    return SHARED_DATA


@pytest.fixture(scope="session")
def compas_published(shared_data):
    """The paper's binarized COMPAS file (5,273 rows, 163 antecedents) as a DataFrame."""
    import pandas as pd

    return pd.read_csv(shared_data / "faircorels" / "compas_rules_full.csv")


@pytest.fixture(scope="session")
def compas(compas_published):
    """The published COMPAS file as an unconstrained problem at lambda 0.01."""
    return published_problem(compas_published, lam=0.01)


@pytest.fixture(scope="session")
def compas_single(shared_data):
    """The published COMPAS file of single antecedents (16) at lambda 0.001."""
    return published_problem(shared_data / "faircorels" / "compas_rules_full_single.csv", lam=0.001)


@pytest.fixture
def interrupt_solve(monkeypatch):
    """``arm(call)``: the ``call``-th solve of a Pareto sweep comes back as Ctrl-C leaves it
    (stop reason interrupted, the best list so far); ``arm`` returns the count of solves."""
    import dataclasses

    from fairlist.pareto import FitSettings
    from fairlist.solvers import Status, StopReason

    def arm(call: int) -> dict[str, int]:
        calls = {"n": 0}
        original = FitSettings.solver

        class Interrupted:
            def __init__(self, inner):
                self.inner = inner

            def solve(self, problem):
                calls["n"] += 1
                result = self.inner.solve(problem)
                if calls["n"] != call:
                    return result
                status = Status.FEASIBLE if result.rule_list is not None else Status.UNKNOWN
                return dataclasses.replace(
                    result, status=status, stop_reason=StopReason.INTERRUPTED
                )

        monkeypatch.setattr(
            FitSettings, "solver", lambda self, *args: Interrupted(original(self, *args))
        )
        return calls

    return arm
