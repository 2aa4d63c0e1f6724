"""The examples run from a clean checkout as documented, on a small budget, writing only into the
folder they are given."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"


def run_example(name: str, *args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, str(EXAMPLES / name), *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


def test_quickstart_runs_and_writes_only_into_its_output_folder(tmp_path, shared_data):
    out = tmp_path / "out"
    cwd = tmp_path / "cwd"
    cwd.mkdir()
    done = run_example(
        "quickstart.py",
        "--data-home",
        str(shared_data),
        "--out",
        str(out),
        "--max-nodes",
        "20000",
        cwd=cwd,
    )
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
        "reproduce_paper.py",
        "--preset",
        "smoke",
        "--out",
        str(out),
        "--n-jobs",
        "1",
        "--data-home",
        str(shared_data),
        cwd=cwd,
    )
    assert done.returncode == 0, done.stderr
    assert {"fits.csv", "fronts.csv", "paper.csv", "report.md", "figures"} <= {
        p.name for p in out.iterdir()
    }
    assert "compas" in done.stdout
    assert not any(cwd.iterdir())


def _reproduce_paper():
    import importlib.util

    path = EXAMPLES / "reproduce_paper.py"
    spec = importlib.util.spec_from_file_location("reproduce_paper", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize(
    ("args", "code", "message"),
    [
        (["--n-jobs", "0"], 2, "argument --n-jobs: '0': give a number of worker processes"),
        (["--epsilons", "abc"], 2, "argument --epsilons: 'abc' is not a list of numbers"),
        (["--bounds", "linspace:0,1"], 2, "argument --bounds: 'linspace:0,1' is not a list"),
    ],
)
def test_reproduce_paper_names_a_malformed_option_in_one_line(
    tmp_path, capsys, args, code, message
):
    with pytest.raises(SystemExit) as exited:
        _reproduce_paper().main(["--out", str(tmp_path / "s"), *args])
    assert exited.value.code == code
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err
    assert not (tmp_path / "s").exists()


@pytest.mark.parametrize(
    ("setup", "message"),
    [
        ("file", "error: --out: the results folder .*out is a file, not a folder"),
        ("foreign", "error: --out: the results folder .*out is not empty .*fits.csv"),
        ("list", "error: --out: .*study.json is not a study manifest \\(a JSON list"),
    ],
)
def test_reproduce_paper_refuses_an_out_that_is_not_a_studys(tmp_path, capsys, setup, message):
    import re

    from fairlist.study import run_study

    out = tmp_path / "out"
    if setup == "file":
        out.write_text("x")
    else:
        out.mkdir()
        name, text = ("fits.csv", "mine") if setup == "foreign" else ("study.json", "[]")
        (out / name).write_text(text)
    before = {p.name: p.read_bytes() for p in out.iterdir()} if out.is_dir() else None
    rng = np.random.default_rng(0)
    X = (rng.random((60, 4)) < 0.5).astype(int)
    data = {"toy": (X, X[:, 0] ^ (rng.random(60) < 0.2), rng.random(60) < 0.5)}
    module = _reproduce_paper()
    module.run_study = lambda grid, out, **kw: run_study(grid, out, data=data, progress=None, **kw)
    assert module.main(["--preset", "smoke", "--datasets", "toy", "--out", str(out)]) == 1
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and re.search(message, err), err
    if before is not None:
        assert {p.name: p.read_bytes() for p in out.iterdir()} == before
