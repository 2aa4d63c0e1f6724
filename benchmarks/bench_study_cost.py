"""What one fit of the paper's protocol costs, per data set and policy, and the full grid's bill.

    python benchmarks/bench_study_cost.py --data-home ../shared/data

One training fold (4/5 of the rows) of COMPAS and of Adult, statistical parity <= 0.05,
lambda 0.001, the paper's 4,000,000-node trie and the study's default cap on the search
structures (80 bytes a node, 305 MiB). Prints the CPU seconds of one fit per policy (CPU time,
so that a loaded machine measures the same), then the CPU hours of the full study grid (60
caps x 5 folds x the study's 5 policies x 6 metrics, plus the unconstrained fits) and its wall
time on 2 and on 16 cores at full efficiency.

Curiosity is measured under a smaller cap (``--curiosity-mb``, 32 MiB) and extrapolated to the
study's: its trie stays near 2,000 nodes, so the node budget never stops it, and it runs until
its permutation map (about 48 bytes a node created, one node per expansion) reaches the cap.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np

from fairlist.datasets import load_adult, load_compas
from fairlist.pareto import fold_assignment
from fairlist.solvers import Limits, Problem, get_solver
from fairlist.study import PRESETS

POLICIES = ("bfs", "bfs_objective_aware", "bfs_objective_aware_lowest", "lower_bound", "curiosity")


def one_fit(problem: Problem, policy: str) -> tuple[float, dict]:
    """CPU seconds and statistics of one solve."""
    start = time.process_time()
    result = get_solver("bnb", policy=policy).solve(problem)
    return time.process_time() - start, result.stats | {
        "objective": result.objective,
        "stop": str(result.stop_reason),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-home", type=Path, default=None)
    parser.add_argument("--datasets", default="compas,adult")
    parser.add_argument("--curiosity-mb", type=float, default=32.0)
    args = parser.parse_args()
    grid = PRESETS["paper"]
    cap = grid.memory_mb
    loaders = {"compas": load_compas, "adult": load_adult}
    total_hours = 0.0
    for name in args.datasets.split(","):
        ds = loaders[name](data_home=args.data_home)
        full = Problem.from_data(ds.X, ds.y, ds.protected_mask)
        train = fold_assignment(full.y, full.protected, 5, 0) != 0
        costs = {}
        for policy in POLICIES:
            mb = args.curiosity_mb if policy == "curiosity" else cap
            problem = Problem(
                full.X[train],
                full.y[train],
                full.protected[train],
                metric="SP",
                epsilon=0.05,
                lam=0.001,
                limits=Limits(max_nodes=grid.max_nodes, memory_limit_mb=mb),
            )
            seconds, stats = one_fit(problem, policy)
            scale = cap / mb if policy == "curiosity" else 1.0
            costs[policy] = seconds * scale
            extra = f" (x{scale:.1f}: extrapolated to {cap:.0f} MiB)" if scale != 1 else ""
            print(
                f"{name:6s} {policy:27s} {seconds:7.1f} s CPU{extra}, "
                f"{stats['nodes_expanded']:>9,} expanded, {stats['nodes_created']:>10,} "
                f"created, stop {stats['stop']}, objective {stats['objective']:.6f}",
                flush=True,
            )
        fits_per_policy = len(grid.epsilons) * grid.cv * len(grid.metrics) + grid.cv
        hours = sum(costs[p] for p in grid.policies) * fits_per_policy / 3600
        total_hours += hours
        print(
            f"{name}: {fits_per_policy} fits per policy x {len(grid.policies)} policies = "
            f"{hours:.0f} CPU hours",
            flush=True,
        )
    print(
        f"full grid (fairlist fits only): {total_hours:.0f} CPU hours; "
        f"{total_hours / 2:.0f} h on 2 cores, {total_hours / 16:.0f} h on 16, at full "
        f"parallel efficiency"
    )


if __name__ == "__main__":
    np.seterr(all="ignore")
    main()
