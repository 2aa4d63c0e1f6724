"""Parallel efficiency of the cross-validated sweep: the same fits on 1, 2, ... workers.

    python benchmarks/bench_parallel.py --workers 1,2            # what a 2-core machine shows
    python benchmarks/bench_parallel.py --workers 1,4,8,16       # the issue's measurement
    python benchmarks/bench_parallel.py --workers 16 --max-nodes 2000000 --tail-threads

The issue's case by default: COMPAS (``load_compas``), statistical parity, 16 caps x 5 folds,
one policy (bfs), 300,000 trie nodes a fit, 80 fits, no reuse of unconstrained fits. For each
worker count it runs the fits through :func:`fairlist.parallel.run_tasks` (the code path of
``cross_validated_front`` and of the study: the data memory-mapped once for the process
workers, completions unordered) and prints the wall time, the speedup over the first count,
and the parallel efficiency (the fits' own time over workers x wall time). It then measures
what limits scaling: the start-up of fresh workers and the cost of one task that does nothing
but receive the shared data. Every count must give the same fits (checked).

``--tail-threads`` runs each count twice more with tail threads: as
``cross_validated_front(tail_threads=True)`` does (the epsilon-0 fits, the slowest, first, on an
equal share of the cores, the others on ``share_cores`` threads), and with the epsilon-0 fits
last (the order before), and prints each wall time with its efficiency counted in the first
run's fit seconds (the same fits' one-thread work over workers x this wall). A node-limited fit
on several threads depends on their timing, so its fits may differ from the one-thread run
(counted).
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np

from fairlist.datasets import load_compas
from fairlist.metrics import Metric
from fairlist.parallel import share_cores, shutdown_workers, usable_cores
from fairlist.pareto import (
    FitSettings,
    SweepData,
    fit_fold,
    fold_assignment,
    run_tasks,
)
from fairlist.solvers import Problem


def _nothing(data: SweepData, settings: FitSettings, epsilon, policy, fold, threads=1) -> int:
    """A task that only receives the shared data: its cost is the dispatch overhead."""
    return int(data.fold[0]) + fold


def sweep(data, settings, tasks, workers: int, fn=fit_fold):
    """Run the tasks on ``workers`` processes; the results in task order and the report."""
    results = [None] * len(tasks)

    def keep(i, out, seconds):
        results[i] = out

    report = run_tasks(fn, tasks, (data, settings), n_jobs=workers, backend="loky", on_result=keep)
    return results, report


def tail_threads(data, settings, tasks, workers: int, plain, plain_fits) -> None:
    """The same fits with tail threads, the epsilon-0 fits first (cross_validated_front's order
    and share_cores) and, for comparison, last (the order before; the same thread counts by
    place, without the slow fits' share)."""
    slow = [t for t in tasks if t[0] == 0.0]
    rest = [t for t in tasks if t[0] != 0.0]
    cores = usable_cores()
    for name, order, threads in (
        ("epsilon 0 last ", rest + slow, share_cores(len(tasks), workers, cores)),
        ("epsilon 0 first", slow + rest, share_cores(len(tasks), workers, cores, len(slow))),
    ):
        results, report = sweep(
            data, settings, [(*t, n) for t, n in zip(order, threads, strict=True)], workers
        )
        by_task = dict(zip(order, results, strict=True))
        fits = [
            (r["objective"], r["test_error"], r["test_unfairness"]) for r in map(by_task.get, tasks)
        ]
        differ = sum(a != b for a, b in zip(fits, plain_fits, strict=True))
        # efficiency: the one-thread run's fit seconds (the work) over workers x this wall
        print(
            f"      tail threads, {name} ({cores} cores; threads {threads[:3]}...{threads[-3:]}):"
            f" {report.wall_seconds:6.1f} s wall, {plain.wall_seconds / report.wall_seconds:5.2f}x"
            f" the one-thread run, efficiency in one-thread fit seconds "
            f"{100 * plain.busy_seconds / (workers * report.wall_seconds):5.1f}%; "
            f"{differ} of {len(fits)} fits differ"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workers", default="1,2", help="comma-separated worker counts")
    parser.add_argument("--n-epsilons", type=int, default=16)
    parser.add_argument("--cv", type=int, default=5)
    parser.add_argument("--max-nodes", type=int, default=300_000)
    parser.add_argument("--policy", default="bfs")
    parser.add_argument("--metric", default="SP")
    parser.add_argument("--data-home", type=Path, default=None)
    parser.add_argument("--tail-threads", action="store_true", help="also with tail threads")
    args = parser.parse_args()

    ds = load_compas(data_home=args.data_home)
    problem = Problem.from_data(ds.X, ds.y, ds.protected_mask, labels=ds.labels)
    fold = fold_assignment(problem.y, problem.protected, args.cv, 0)
    data = SweepData(
        problem.X,
        problem.y,
        problem.groups,
        fold,
        problem.feature_names,
        problem.labels,
        problem.group_names,
    )
    settings = FitSettings(
        Metric.parse(args.metric),
        0.001,
        None,
        "bnb",
        args.max_nodes,
        None,
        80.0 * args.max_nodes / 2**20,
    )
    epsilons = np.linspace(0.0, 0.3, args.n_epsilons)
    tasks = [(float(e), args.policy, k) for e in epsilons for k in range(args.cv)]
    print(
        f"COMPAS {args.metric}, {len(epsilons)} caps x {args.cv} folds, policy "
        f"{args.policy}, {args.max_nodes:,} nodes a fit: {len(tasks)} fits"
    )

    reference, base = None, None
    for workers in (int(w) for w in args.workers.split(",")):
        if args.tail_threads:  # both runs on started workers
            sweep(data, settings, tasks[:workers], workers, _nothing)
        results, report = sweep(data, settings, tasks, workers)
        fits = [(r["objective"], r["test_error"], r["test_unfairness"]) for r in results]
        if reference is None:
            reference, base = fits, report.wall_seconds
        same = "identical fits" if fits == reference else "DIFFERENT FITS"
        print(
            f"{workers:3d} worker(s): {report.wall_seconds:7.1f} s wall, "
            f"{report.busy_seconds:7.1f} s of fits, speedup {base / report.wall_seconds:5.2f}, "
            f"parallel efficiency {100 * report.efficiency:5.1f}%  ({same})"
        )
        if args.tail_threads:
            tail_threads(data, settings, tasks, workers, report, fits)

        # what limits scaling: worker start-up and the cost of a task that does nothing
        shutdown_workers()  # fresh workers, as a new sweep gets (their memory maps removed)
        _, cold = sweep(data, settings, tasks[:workers], workers, _nothing)
        _, warm = sweep(data, settings, tasks, workers, _nothing)
        per_task = 1000 * warm.wall_seconds * workers / len(tasks)
        print(
            f"      start-up of {workers} fresh worker(s): {cold.wall_seconds:.2f} s; an "
            f"empty task with the data: {per_task:.1f} ms of a worker"
        )


if __name__ == "__main__":
    main()
