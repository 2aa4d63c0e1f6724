"""The parallel branch-and-bound (``BnBSolver(n_jobs=...)``) on the <= 5-rule certificate of
benchmarks/bench_certify.py (``sp_L5``: the paper's COMPAS file, SP <= 0.05, lambda 0.005, at
most 5 rules, best-first by lower bound), one run per worker count, in one process.

Printed per count: status, objective, lower bound, nodes expanded, wall seconds of the solve,
the speed-up over one worker (its seconds over these), the shared frontier's lock acquisitions
per expanded node, and memory: the frontier's bytes per stored node (peak bytes less the
workers' own tables, over the peak trie size) with its ratio to one worker's, and the workers'
own tables (the terminal solver's counts, scratch: counted in the memory limit too); then the
shares of the workers' seconds spent holding the frontier lock and waiting for it, and the
speed-up the held time allows (workers' seconds over held seconds: the lock's work is serial, so
no worker count runs faster), which predicts from two cores where more cores stop paying.
``--canonical`` adds a row ``1c``: one worker with canonical ties (Config::canonical_ties, what
every count above 1 uses), which separates the cost of canonical ties from the threads'.

The counts are 1, 2 and, where the machine has the cores (``os.sched_getaffinity``), 4, 8 and
16; ``--jobs`` picks others.  With more than one worker ties are decided canonically
(Config::canonical_ties), so every certified row must show the same objective, and lists
(printed with ``--lists``) equal from 2 workers on.

    python benchmarks/bench_threads.py                       # 1, 2, (4, 8, 16): minutes
    python benchmarks/bench_threads.py --max-length 4        # the 4-rule certificate: seconds
    python benchmarks/bench_threads.py --jobs 1 4 --time-limit 120
    python benchmarks/bench_threads.py --max-length 5 --lam 0.015 --canonical   # ~20 s at 1
    python benchmarks/bench_threads.py --policy bfs --lam 0.001 --max-length 10 --max-nodes 1000000
    python benchmarks/bench_threads.py --max-length 0 --lam 0.01 --policy bfs   # no cap: deepened

``--max-length 0`` sets no cap: the library's default ``deepen_length="auto"`` then deepens
through every length (without a node budget), its phases on the same workers.
"""

from __future__ import annotations

import argparse
import os
import time
from pathlib import Path

import numpy as np
import pandas as pd

from fairlist.metrics import Metric
from fairlist.solvers import Limits, Problem
from fairlist.solvers.bnb import BnBSolver

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT.parent / "shared" / "data" / "faircorels" / "compas_rules_full.csv"


class CanonicalSerial(BnBSolver):
    """One worker with canonical ties (Config::canonical_ties; always on above one worker)."""

    def _config(self, limits, max_length):
        return {**super()._config(limits, max_length), "canonical_ties": True}


def cores() -> int:
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


def lock_columns(stats: dict, worker_seconds: float) -> str:
    """The shared frontier lock's held and waited shares of the workers' seconds, and the
    speed-up its held time allows: no search runs faster than its lock is held, so worker
    seconds over held seconds bound the speed-up of any worker count (blank when serial)."""
    held = stats["frontier_lock_seconds"]
    if held == 0:
        return f"{'':>6} {'':>6} {'':>7}"
    wait = stats["frontier_wait_seconds"]
    return (
        f"{100 * held / worker_seconds:>6.1f} {100 * wait / worker_seconds:>6.1f} "
        f"{worker_seconds / held:>7.1f}"
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", type=Path, default=DATA)
    ap.add_argument("--max-length", type=int, default=5, help="0: no cap")
    ap.add_argument("--metric", default="SP")
    ap.add_argument("--lam", type=float, default=0.005)
    ap.add_argument("--epsilon", type=float, default=0.05)
    ap.add_argument("--policy", default="lower_bound")
    ap.add_argument("--time-limit", type=float, default=None, help="seconds per run")
    ap.add_argument("--max-nodes", type=int, default=None, help="trie nodes per run")
    ap.add_argument("--jobs", type=int, nargs="+", default=None)
    ap.add_argument("--lists", action="store_true", help="print each run's list")
    ap.add_argument("--canonical", action="store_true", help="add 1 worker, canonical ties")
    args = ap.parse_args()
    jobs = args.jobs or [j for j in (1, 2, 4, 8, 16) if j <= max(2, cores())]

    frame = pd.read_csv(args.data)
    problem = Problem(
        frame.iloc[:, 2:-1].to_numpy(np.uint8),
        frame.iloc[:, -1].to_numpy(np.uint8),
        frame.iloc[:, 0].to_numpy(bool),
        metric=Metric.parse(args.metric),
        epsilon=args.epsilon,
        lam=args.lam,
        max_length=args.max_length or None,
        feature_names=list(frame.columns[2:-1]),
        limits=Limits(time_limit=args.time_limit, max_nodes=args.max_nodes),
    )
    print(
        f"{args.metric} <= {args.epsilon}, lambda {args.lam}, at most {args.max_length or 'any'} "
        f"rules, policy "
        f"{args.policy}; {cores()} cores"
    )
    print(
        f"{'n_jobs':>6} {'status':>9} {'objective':>10} {'lower_bd':>10} {'expanded':>10} "
        f"{'seconds':>8} {'speed-up':>8} {'locks/nd':>8} {'B/node':>7} {'ratio':>5} "
        f"{'own MiB':>7} {'held %':>6} {'wait %':>6} {'ceiling':>7}"
    )
    base, base_per_node = None, None
    runs = ([(1, True)] if args.canonical else []) + [(n, False) for n in jobs]
    for n_jobs, canonical in sorted(runs):  # 1, then 1c, 2, 4, ...: speed-ups over 1
        solver = (CanonicalSerial if canonical else BnBSolver)(policy=args.policy, n_jobs=n_jobs)
        start = time.perf_counter()
        result = solver.solve(problem)
        seconds = time.perf_counter() - start
        stats = result.stats
        base = base or seconds
        own = stats["worker_memory_bytes"]
        per_node = (stats["peak_memory_bytes"] - own) / max(stats["peak_trie_size"], 1)
        base_per_node = base_per_node or per_node
        label = f"{n_jobs}c" if canonical else str(n_jobs)
        print(
            f"{label:>6} {str(result.status):>9} {result.objective:>10.6f} "
            f"{result.lower_bound:>10.6f} {stats['nodes_expanded']:>10,} "
            f"{seconds:>8.2f} {base / seconds:>8.2f} "
            f"{stats['frontier_locks'] / max(stats['nodes_expanded'], 1):>8.2f} "
            f"{per_node:>7.1f} {per_node / base_per_node:>5.2f} {own / 2**20:>7.1f} "
            f"{lock_columns(stats, n_jobs * seconds)}",
            flush=True,
        )
        if args.lists:
            print("       " + str(result.rule_list).replace("\n", "\n       "))


if __name__ == "__main__":
    main()
