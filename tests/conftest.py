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
