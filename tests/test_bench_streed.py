"""benchmarks/bench_streed.py end to end, without STreeD: the STreeD row gives its reason, and
the rule list's accuracy and unfairness are those of the best fair list of at most one rule,
found here by enumeration (so a script that read its data, predicted or scored wrongly fails).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parents[1]


def test_rule_list_row_matches_enumeration(tmp_path):
    rng = np.random.default_rng(3)
    n, m, eps = 90, 6, 0.15
    g = rng.random(n) < 0.4
    x = (rng.random((n, m)) < 0.45).astype(np.uint8)
    y = ((x[:, 0] & (rng.random(n) < 0.8)) | (rng.random(n) < 0.2)).astype(np.uint8)
    cols = {"g": g.astype(np.uint8), "h": (~g).astype(np.uint8)}
    cols |= {f"a{j}": x[:, j] for j in range(m)} | {"y": y}
    data = tmp_path / "d.csv"
    pd.DataFrame(cols).to_csv(data, index=False)

    def sp(pred):
        return abs(pred[g].mean() - pred[~g].mean())

    # (errors, rules) of every fair list of at most one rule, with its SP; one error (1/90)
    # outweighs lambda (0.0001) per rule, so the best objective is the least pair
    lists = [(np.full(n, d, np.uint8), 0) for d in (0, 1)]
    lists += [
        (np.where(x[:, a] == 1, q, 1 - q).astype(np.uint8), 1) for a in range(m) for q in (0, 1)
    ]
    fair = [(int(np.sum(p != y)), r, sp(p)) for p, r in lists if sp(p) <= eps + 1e-9]
    best = min(f[:2] for f in fair)
    best_sp = {round(f[2], 4) for f in fair if f[:2] == best}

    out = subprocess.run(
        [
            sys.executable,
            str(ROOT / "benchmarks" / "bench_streed.py"),
            "--data",
            str(data),
            "--depths",
            "1",
            "--epsilon",
            str(eps),
            "--time-limit",
            "30",
            "--streed-python",
            "",
        ],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert "no STreeD: set STREED_PYTHON" in out
    row = next(line for line in out.splitlines() if line.startswith("rule list <= 1 rules"))
    leaves, accuracy, unfair, proved = row.split()[5:9]
    assert proved == "yes" and int(leaves) == best[1] + 1
    assert float(accuracy) == round(1 - best[0] / n, 4)
    assert float(unfair) in best_sp
