"""The cost of canonical ties at one worker, with the finished-tie cut (Config::finished_tie_cut)
off (main's behaviour before the cut) and on, alternated in one process: nodes expanded and CPU
seconds of each solve, their ratios against the plain serial search (ties pruned, no canonical
order), and whether every canonical run returns the same list.  On the paper's COMPAS file, SP
<= 0.05, best-first by lower bound.  CPU seconds (``time.process_time``) and node counts are the
figures to compare on a shared machine.

    python benchmarks/bench_canonical.py --max-length 4 --lam 0.005 --repeat 3   # ~1 min
    python benchmarks/bench_canonical.py --max-length 5 --lam 0.02 --repeat 3
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np
import pandas as pd

from fairlist.metrics import Metric
from fairlist.solvers import Problem
from fairlist.solvers.bnb import BnBSolver

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT.parent / "shared" / "data" / "faircorels" / "compas_rules_full.csv"


class Canonical(BnBSolver):
    """One worker with canonical ties, the finished-tie cut on or off."""

    def __init__(self, cut: bool, **kwargs):
        super().__init__(**kwargs)
        self.cut = cut

    def _config(self, limits, max_length):
        config = super()._config(limits, max_length)
        return {**config, "canonical_ties": True, "finished_tie_cut": self.cut}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", type=Path, default=DATA)
    ap.add_argument("--max-length", type=int, default=4)
    ap.add_argument("--lam", type=float, default=0.005)
    ap.add_argument("--epsilon", type=float, default=0.05)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    frame = pd.read_csv(args.data)
    problem = Problem(
        frame.iloc[:, 2:-1].to_numpy(np.uint8),
        frame.iloc[:, -1].to_numpy(np.uint8),
        frame.iloc[:, 0].to_numpy(bool),
        metric=Metric.parse("SP"),
        epsilon=args.epsilon,
        lam=args.lam,
        max_length=args.max_length,
        feature_names=list(frame.columns[2:-1]),
    )
    print(f"SP <= {args.epsilon}, lambda {args.lam}, at most {args.max_length} rules")
    header = ("run", "objective", "expanded", "CPU s", "nodes x", "CPU x")
    print(" ".join(f"{h:>{w}}" for h, w in zip(header, (10, 10, 10, 7, 7, 6), strict=True)))
    solvers = {
        "serial": BnBSolver(policy="lower_bound"),
        "canon off": Canonical(False, policy="lower_bound"),
        "canon on": Canonical(True, policy="lower_bound"),
    }
    base, lists = None, set()
    for _ in range(args.repeat):
        for name, solver in solvers.items():
            start = time.process_time()
            result = solver.solve(problem)
            cpu = time.process_time() - start
            nodes = result.stats["nodes_expanded"]
            base = base or (nodes, cpu)
            if name != "serial":
                lists.add(str(result.rule_list))
            print(
                f"{name:>10} {result.objective:>10.6f} {nodes:>10,} {cpu:>7.2f} "
                f"{nodes / base[0]:>7.3f} {cpu / base[1]:>6.2f}",
                flush=True,
            )
    print(f"canonical runs returned {len(lists)} distinct list(s)")


if __name__ == "__main__":
    main()
