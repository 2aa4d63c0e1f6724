"""Shared fixtures: where the data sets are, and the brute-force reference on sys.path."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parent
sys.path.insert(0, str(TESTS))  # makes tests/reference.py importable as `reference`

SHARED_DATA = TESTS.parents[1] / "shared" / "data"


@pytest.fixture(scope="session")
def shared_data() -> Path:
    """../shared/data relative to the repository root; skips when it is absent."""
    if not SHARED_DATA.is_dir():
        pytest.skip(f"the shared data sets are not at {SHARED_DATA} (CI provides them)")
    return SHARED_DATA
