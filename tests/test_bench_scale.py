"""benchmarks/bench_scale.py end to end in --quick mode on a tiny table: every case runs in its
subprocess and prints its row under the columns, before and after in one run; the default fit's
row says whether its answer is the constant list and at which lam."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.slow
def test_quick_run_prints_every_case_before_and_after():
    out = subprocess.run(
        [
            sys.executable,
            str(ROOT / "benchmarks" / "bench_scale.py"),
            "--quick",
            "--rows",
            "300",
            "--predict-rows",
            "300",
            "--time-limit",
            "60",
        ],
        capture_output=True,
        text=True,
        check=True,
        timeout=600,
    ).stdout
    lines = out.splitlines()
    header = next(line for line in lines if line.startswith("case"))
    for column in ("wall s", "CPU s", "bin s", "search s", "cert.", "base MB", "peak MB"):
        assert column in header
    # the table's label is two words ("synth. 300"): settings r[3], wall r[4], CPU r[5], ...
    rows = [line.split() for line in lines if line.split()[:1] in (["fit"], ["default"])]
    assert [(r[0], r[3]) for r in rows] == [
        ("fit", "before"),
        ("fit", "after"),
        ("default", "before"),
        ("default", "after"),
    ]
    for r in rows:  # each fit finished: seconds, antecedents, a certificate, a peak memory
        assert float(r[4]) > 0 and float(r[5]) > 0 and r[11] in ("yes", "no")
        base, peak = (float(v.replace(",", "")) for v in r[14:16])
        assert 50 < base <= peak  # MB: a Python process with numpy loaded; the peak of the fit
    default = [line for line in lines if line.startswith("default")]
    assert "(lam 0.01)" in default[0] and "(lam 0.0006)" in default[1]
    assert sum(line.startswith("predict") for line in lines) == 2
