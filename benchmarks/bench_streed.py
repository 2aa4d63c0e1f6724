"""Fair rule lists beside STreeD's fair decision trees with as many leaves, in one run.

On the paper's COMPAS file (163 binary antecedents, the protected group its first column), the
same statistical-parity cap for both: STreeD's optimal trees of depth 2 and 3 (4 and 8 leaves;
``STreeDGroupFairnessClassifier``, run as a black box through ``streed_reference.py`` in its own
environment, named by ``$STREED_PYTHON`` or ``--streed-python``) and our rule lists of at most 3
and 7 rules (4 and 8 leaves; ``BnBSolver``, best-first by lower bound, lambda ``--lam``: small,
so that accuracy decides). Both models' training accuracy and unfairness are computed here from
their predictions, with fairlist's own metric. Printed per model: leaves, training accuracy,
SP, whether it is proved optimal in its class, seconds, and for a rule list stopped by a limit
the accuracy no list of its class can exceed (1 - lower bound + lambda x rules: the proved
bound on error + lambda x length, with at most that many rules).

Without ``pystreed`` the STreeD rows are skipped with the reason.

    python -m venv /tmp/streed && /tmp/streed/bin/pip install pystreed pandas
    STREED_PYTHON=/tmp/streed/bin/python python benchmarks/bench_streed.py
    python benchmarks/bench_streed.py --depths 2 --time-limit 60
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import time
from pathlib import Path

import numpy as np
import pandas as pd

from fairlist.metrics import Metric, statistical_parity
from fairlist.solvers import Limits, Problem
from fairlist.solvers.bnb import BnBSolver

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT.parent / "shared" / "data" / "faircorels" / "compas_rules_full.csv"


def streed(python: str | None, data: Path, depth: int, limit: float, time_limit: float):
    """STreeD's tree of ``depth`` (a dict from streed_reference.py), or the reason there is
    none."""
    if not python:
        return "no STreeD: set STREED_PYTHON to a Python with pystreed (see the docstring)"
    out = subprocess.run(
        [
            python,
            str(ROOT / "benchmarks" / "streed_reference.py"),
            str(data),
            "--depth",
            str(depth),
            "--limit",
            str(limit),
            "--time-limit",
            str(time_limit),
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    if out.returncode != 0:
        return f"STreeD failed: {out.stderr.strip().splitlines()[-1:]}"
    return json.loads(out.stdout)


def row(name, leaves, y, pred, group, proved, seconds, ceiling=None) -> str:
    accuracy = float(np.mean(pred == y))
    sp = statistical_parity(y, pred, group, protected=True)
    return (
        f"{name:<26} {leaves:>6} {accuracy:>9.4f} {sp:>7.4f} {'yes' if proved else 'no':>7} "
        f"{seconds:>8.1f} {'' if ceiling is None else f'{ceiling:.4f}':>8}"
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", type=Path, default=DATA)
    ap.add_argument("--epsilon", type=float, default=0.05, help="the SP cap of both")
    ap.add_argument("--lam", type=float, default=0.0001)
    ap.add_argument("--depths", type=int, nargs="+", default=[2, 3])
    ap.add_argument("--time-limit", type=float, default=300.0, help="seconds per model")
    ap.add_argument("--n-jobs", type=int, default=1, help="threads of our search")
    ap.add_argument("--streed-python", default=os.environ.get("STREED_PYTHON"))
    args = ap.parse_args()

    frame = pd.read_csv(args.data)
    X = frame.iloc[:, 2:-1]
    y = frame.iloc[:, -1].to_numpy(np.uint8)
    group = frame.iloc[:, 0].to_numpy(bool)
    print(
        f"{args.data.name}: {len(y)} samples, {X.shape[1]} antecedents; SP <= {args.epsilon}; "
        f"lambda {args.lam}; {args.time_limit:g} s a model; our search on {args.n_jobs} thread(s)"
    )
    print(
        f"{'model':<26} {'leaves':>6} {'accuracy':>9} {'SP':>7} {'proved':>7} {'seconds':>8} "
        f"{'ceiling':>8}"
    )
    for depth in args.depths:
        tree = streed(args.streed_python, args.data, depth, args.epsilon, args.time_limit)
        if isinstance(tree, str):
            print(f"{f'STreeD depth {depth}':<26} {tree}")
        else:
            pred = np.asarray(tree["predictions"], dtype=np.uint8)
            print(
                row(
                    f"STreeD depth {depth}",
                    tree["leaves"],
                    y,
                    pred,
                    group,
                    tree["optimal"],
                    tree["seconds"],
                )
            )
        rules = 2**depth - 1  # as many leaves as the tree: rules + the default
        problem = Problem(
            X.to_numpy(np.uint8),
            y,
            group,
            metric=Metric.parse("SP"),
            epsilon=args.epsilon,
            lam=args.lam,
            max_length=rules,
            feature_names=list(X.columns),
            limits=Limits(time_limit=args.time_limit),
        )
        start = time.perf_counter()
        result = BnBSolver(policy="lower_bound", n_jobs=args.n_jobs).solve(problem)
        seconds = time.perf_counter() - start
        pred = result.rule_list.predict(X).astype(np.uint8)
        proved = str(result.status) == "optimal"
        ceiling = None if proved else 1 - result.lower_bound + args.lam * rules
        print(
            row(
                f"rule list <= {rules} rules",
                len(result.rule_list) + 1,
                y,
                pred,
                group,
                proved,
                seconds,
                ceiling,
            )
        )


if __name__ == "__main__":
    main()
