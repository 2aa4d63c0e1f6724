"""The examples run from a clean checkout as documented, on a small budget, writing only into the
folder they are given."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"


def run_example(name: str, *args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, str(EXAMPLES / name), *args],
        cwd=cwd, capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip


def test_quickstart_runs_and_writes_only_into_its_output_folder(tmp_path, shared_data):
    out = tmp_path / "out"
    cwd = tmp_path / "cwd"
    cwd.mkdir()
    done = run_example(
        "quickstart.py", "--data-home", str(shared_data), "--out", str(out),
        "--max-nodes", "20000", cwd=cwd,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "test accuracy" in done.stdout and "if [" in done.stdout
    assert [p.name for p in out.iterdir()] == ["compas_sp.json"]
    assert not any(cwd.iterdir())  # nothing left where it was started


@pytest.mark.slow  # 15 s; tests/test_study.py covers the study itself in the fast suite
def test_reproduce_paper_runs_the_smoke_grid_into_its_folder(tmp_path, shared_data):
    pytest.importorskip("fairlearn")
    out = tmp_path / "study"
    cwd = tmp_path / "cwd"
    cwd.mkdir()
    done = run_example(
        "reproduce_paper.py", "--preset", "smoke", "--out", str(out), "--n-jobs", "1",
        "--data-home", str(shared_data), cwd=cwd,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert {"fits.csv", "fronts.csv", "paper.csv", "report.md", "figures"} <= {
        p.name for p in out.iterdir()
    }
    assert "compas" in done.stdout
    assert not any(cwd.iterdir())
