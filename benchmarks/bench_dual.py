"""Issue 36, step 1: the Lagrangian bound ``L(nu)`` (``fairlist.dual``) on the paper's COMPAS
data, SP <= 0.05, lambda 0.005, at most 3 and at most 5 rules, against the fair optimum and the
engine's bound at the root.

Printed per case: ``L(nu)`` for each ``--nus`` value (whether the relaxed solve certified its
optimum, the CPU seconds of that inner solve), the best, the search of ``dual_bound`` (its
points and CPU seconds), the fair optimum (solved here when ``--fair-time-limit`` allows: at
most 3 rules certifies in well under a second; at most 5 rules takes about a minute, so its
issue figure 0.413583 is printed as known unless ``--fair-time-limit`` is raised), the root bound
(the fair search stopped after its first node: the class bound and the fairness bounds of the
empty prefix) and the share of the root gap the dual closes, ``(best L - root) / (optimum -
root)``. With ``--certify``, :func:`fairlist.dual.certify_by_dual` (issue 36 step 2, a
prototype) from the fair solve's list at the best ``nu``: the lists enumerated under the
threshold and its CPU seconds. One process, one core (pinned where the platform allows); CPU
seconds are process time, the figure to compare on a shared machine.

    python benchmarks/bench_dual.py                               # both cases, ~1-2 min
    python benchmarks/bench_dual.py --lengths 3 --nus 0 0.25 0.5 1
    python benchmarks/bench_dual.py --lengths 5 --fair-time-limit 300
    python benchmarks/bench_dual.py --lengths 3 --certify         # issue 36 step 2 (prototype)
"""

from __future__ import annotations

import argparse
import os
import time
from pathlib import Path

import numpy as np
import pandas as pd

from fairlist.dual import certify_by_dual, dual_bound, lagrangian_bound
from fairlist.solvers import Limits, Problem
from fairlist.solvers.bnb import BnBSolver

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT.parent / "shared" / "data" / "faircorels" / "compas_rules_full.csv"
#: The issue's figures (main c0657a5, one core): the fair optimum and L(0.5).
KNOWN = {3: (0.417427, 0.414703), 5: (0.413583, 0.412169)}


def problem(path: Path, max_length: int, limits: Limits) -> Problem:
    frame = pd.read_csv(path)
    return Problem(
        frame.iloc[:, 2:-1].to_numpy(np.uint8),
        frame.iloc[:, -1].to_numpy(np.uint8),
        frame.iloc[:, 0].to_numpy(bool),
        metric="SP",
        epsilon=0.05,
        lam=0.005,
        max_length=max_length,
        feature_names=list(frame.columns[2:-1]),
        limits=limits,
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=DATA)
    parser.add_argument("--lengths", type=int, nargs="+", default=[3, 5])
    parser.add_argument("--nus", type=float, nargs="+", default=[-0.5, 0.0, 0.25, 0.5, 0.75, 1.0])
    parser.add_argument("--max-evaluations", type=int, default=8, help="dual_bound's budget")
    parser.add_argument("--time-limit", type=float, default=300.0, help="each inner solve")
    parser.add_argument(
        "--fair-time-limit", type=float, default=30.0, help="the fair solve (0: skip it)"
    )
    parser.add_argument(
        "--certify", action="store_true", help="also certify_by_dual from the fair solve's list"
    )
    parser.add_argument("--max-lists", type=int, default=5_000_000, help="certify_by_dual's cap")
    args = parser.parse_args()
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {sorted(os.sched_getaffinity(0))[-1]})
    print(f"COMPAS ({args.data.name}), SP <= 0.05, lambda 0.005, one core; CPU seconds")
    for length in args.lengths:
        p = problem(args.data, length, Limits(time_limit=args.time_limit))
        print(f"\n<= {length} rules")
        print(f"{'nu':>7} {'L(nu)':>10} {'relaxed':>10} {'certified':>9} {'cpu_s':>7}")
        for nu in args.nus:
            b = lagrangian_bound(p, nu)
            print(
                f"{nu:7.3f} {b.bound:10.6f} {b.relaxed_value:10.6f} {str(b.certified):>9} "
                f"{b.cpu_seconds:7.2f}"
            )
        cpu = time.process_time()
        d = dual_bound(p, max_evaluations=args.max_evaluations)
        cpu = time.process_time() - cpu
        pts = ", ".join(f"{v:.4g}: {b:.6f}" for v, b in d.points)
        print(
            f"dual_bound: best L = {d.bound:.6f} at nu = {d.nu:.4g} ({len(d.points)} solves, "
            f"{cpu:.2f} CPU s)\n  points {pts}"
        )
        root = BnBSolver(policy="lower_bound").solve(
            p.with_limits(Limits(max_nodes=1, time_limit=60))
        )
        known, known_L = KNOWN.get(length, (None, None))
        optimum, how = known, "issue 36's figure"
        fair = None
        if args.fair_time_limit > 0:
            cpu = time.process_time()
            fair = BnBSolver(policy="lower_bound").solve(
                p.with_limits(Limits(time_limit=args.fair_time_limit))
            )
            cpu = time.process_time() - cpu
            if fair.optimal:
                optimum, how = fair.objective, f"certified here in {cpu:.2f} CPU s"
            else:
                how += f"; not certified here in {cpu:.1f} CPU s (gap {fair.gap:.4f})"
        print(f"fair optimum: {optimum} ({how})")
        print(f"root bound (fair search, one node): {root.lower_bound:.6f}")
        if optimum is not None:
            closed = (d.bound - root.lower_bound) / (optimum - root.lower_bound)
            print(
                f"duality gap {optimum - d.bound:.6f}; root gap {optimum - root.lower_bound:.6f};"
                f" the dual closes {100 * closed:.1f} % of the root gap"
            )
        if known_L is not None:
            at = lagrangian_bound(p, 0.5).bound
            print(f"L(0.5) = {at:.6f} against issue 36's {known_L} (diff {at - known_L:+.2e})")
        if args.certify and fair is not None and fair.rule_list is not None:
            cpu = time.process_time()
            c = certify_by_dual(p, fair.rule_list, d.nu, max_lists=args.max_lists)
            cpu = time.process_time() - cpu
            print(
                f"certify_by_dual(incumbent {fair.objective:.6f}, nu {d.nu:.4g}): certified "
                f"{c.certified}, objective {c.objective:.6f}, {c.n_checked} lists under the "
                f"threshold {c.threshold:.6f} checked, {cpu:.2f} CPU s (its inner solve included)"
            )


if __name__ == "__main__":
    main()
