"""Issue 24's Rashomon-set targets: the complete set of fair rule lists within delta of the
optimum, on the paper's COMPAS and Adult data, beside the optimum-only search (the baseline) of
the same problem in the same run, and beside the optimum-only search without the permutation
map (which the Rashomon mode switches off).

Each run is a process pinned to one core. Printed per run: the set's size, whether it is
complete, the search's seconds (as the engine reports them) and CPU seconds of the whole call
(building the RuleList objects included), nodes expanded, the peak of the search structures
(trie, queue and the stored set) and the process's peak resident memory; then the ratio of
CPU seconds and nodes to the optimum-only search.

    COMPAS  SP <= 0.05, lambda 0.01, at most 4 rules, delta 0.01 (target: <= 60 s on one core)
    Adult   the same at most 3 rules
    COMPAS  set size against delta = 0.002, 0.005, 0.01, 0.02
    memory  issue 37: the default cap of 100,000 lists (COMPAS, no fairness cap, lambda 0.0005,
            delta 0.5, at most 3 rules): the compact set and its summary against the former
            per-list RuleList objects and per-list frame, in one process (peak RSS, CPU)

    FAIRLIST_DATA_HOME=../shared/data python benchmarks/bench_rashomon.py
    python benchmarks/bench_rashomon.py --cases compas adult    # skip the delta sweep
    python benchmarks/bench_rashomon.py --cases memory
"""

from __future__ import annotations

import argparse
import multiprocessing as mp
import os
import resource
import time

from fairlist.datasets import load_adult, load_compas
from fairlist.rashomon import search_rashomon
from fairlist.solvers import Limits, Problem
from fairlist.solvers.bnb import BnBSolver

EPSILON, LAM = 0.05, 0.01


def _problem(name: str, max_length: int, time_limit: float) -> Problem:
    data = (load_compas if name == "compas" else load_adult)(
        data_home=os.environ.get("FAIRLIST_DATA_HOME")
    )
    return Problem.from_data(
        data.X.to_numpy(),
        data.y.to_numpy(),
        data.sensitive,
        data.protected,
        feature_names=list(data.X.columns),
        metric="sp",
        epsilon=EPSILON,
        lam=LAM,
        max_length=max_length,
        limits=Limits(time_limit=time_limit),
    )


def _run(args: tuple) -> dict:
    name, max_length, delta, time_limit = args
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {sorted(os.sched_getaffinity(0))[-1]})
    problem = _problem(name, max_length, time_limit)
    before = resource.getrusage(resource.RUSAGE_SELF)
    start = time.perf_counter()
    if delta in (None, "no_map"):  # the baselines: the optimum only (permutation map off)
        result = BnBSolver(beam_width=1024, use_permutation_map=delta is None).solve(problem)
        out = {
            "size": 1,
            "complete": result.status.value,
            "seconds": result.stats["seconds"],
            "nodes": result.stats["nodes_expanded"],
            "peak_mb": result.stats["peak_memory_bytes"] / 2**20,
            "optimum": result.objective,
        }
    else:
        rs = search_rashomon(problem, delta, None)
        out = {
            "size": len(rs),
            "complete": rs.complete,
            "seconds": rs.stats["seconds"],
            "nodes": rs.stats["nodes_expanded"],
            "peak_mb": rs.stats["peak_memory_bytes"] / 2**20,
            "optimum": rs.optimum,
        }
    after = resource.getrusage(resource.RUSAGE_SELF)
    out["wall"] = time.perf_counter() - start
    out["cpu"] = after.ru_utime - before.ru_utime
    out["rss_mb"] = after.ru_maxrss / 1024
    return out


def _rss_mb(field: str = "VmRSS") -> float:
    """The process's resident memory now (VmRSS) or at its peak (VmHWM), MiB (Linux)."""
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith(field + ":"):
                return int(line.split()[1]) / 1024
    return float("nan")


def _memory(time_limit: float) -> None:
    """Issue 37's line: the default max_lists case, compact against the former per-list
    objects, in this one process (run it alone: the peak is the process's)."""
    import numpy as np

    from fairlist.metric_table import METRICS
    from fairlist.metrics import counts_by_group

    problem = _problem("compas", 3, time_limit).replace(epsilon=None, lam=0.0005)
    base = _rss_mb()
    cpu = time.process_time()
    rs = search_rashomon(problem, 0.5, 100_000)
    search_cpu = time.process_time() - cpu
    after_search = _rss_mb()
    cpu = time.process_time()
    rs.summary()  # the command line's views: the first rows, fairest, multiplicity
    new_cpu = time.process_time() - cpu
    after_summary = _rss_mb()
    arrays = rs.rules.nbytes + rs.starts.nbytes + rs.defaults.nbytes + rs.objectives.nbytes
    print(
        f"memory: {len(rs)} lists ({rs.stop_reason}), search {search_cpu:.2f} s cpu, native "
        f"peak {rs.stats['peak_memory_bytes'] / 2**20:.1f} MiB; the set's arrays "
        f"{arrays / 2**20:.1f} MiB",
        flush=True,
    )
    # The former way (main 5b6dbf4): one RuleList per list, then to_frame list by list.
    cpu = time.process_time()
    lists = [
        problem.rule_list(
            [int(c) >> 1 for c in rs.rules[a:b]], [int(c) & 1 for c in rs.rules[a:b]], int(d)
        )
        for a, b, d in zip(rs.starts[:-1], rs.starts[1:], rs.defaults, strict=True)
    ]
    build_cpu = time.process_time() - cpu
    after_lists = _rss_mb()
    X, y = problem.X.astype(bool), problem.y.astype(bool)
    index = {name: j for j, name in enumerate(problem.feature_names)}
    rows = []
    for rule_list in lists:
        pred = np.full(X.shape[0], rule_list.default, dtype=np.uint8)
        free = np.ones(X.shape[0], dtype=bool)
        for rule in rule_list.rules:
            hit = free & X[:, index[rule.antecedent]]
            pred[hit] = rule.prediction
            free &= ~hit
        counts = counts_by_group(
            y, pred.astype(bool), problem.groups, problem.group_names, problem.sample_weight
        )
        row = {info.short_name: counts.unfairness(info.metric) for info in METRICS.values()}
        row["rule_list"] = str(rule_list)
        rows.append(row)
    old_cpu = time.process_time() - cpu
    after_frame = _rss_mb()
    new_growth, old_growth = after_summary - after_search, after_frame - after_search
    print(
        f"memory: rss {base:.1f} MiB before the search, {after_search:.1f} after it (process "
        f"peak {_rss_mb('VmHWM'):.1f}: the search's structures) | after the search: compact set "
        f"+ summary {new_growth:+.1f} MiB, {new_cpu:.2f} s cpu | former RuleList objects "
        f"{after_lists - after_search:+.1f} MiB ({build_cpu:.2f} s cpu), + per-list frame "
        f"{old_growth:+.1f} MiB, {build_cpu + old_cpu:.2f} s cpu | "
        f"x{old_growth / max(new_growth, 0.1):.0f} memory, "
        f"x{(build_cpu + old_cpu) / max(new_cpu, 1e-9):.0f} cpu",
        flush=True,
    )


def _once(args: tuple) -> dict:
    with mp.get_context("spawn").Pool(1) as pool:
        return pool.apply(_run, (args,))


def _line(label: str, r: dict, base: dict | None) -> str:
    text = (
        f"{label:<28} size {r['size']:>8}  complete {str(r['complete']):<8} optimum "
        f"{r['optimum']:.6f}  search {r['seconds']:7.2f} s  cpu {r['cpu']:7.2f} s  "
        f"nodes {r['nodes']:>9}  peak {r['peak_mb']:7.1f} MiB  rss {r['rss_mb']:7.1f} MiB"
    )
    if base is not None:
        text += (
            f"  x{r['cpu'] / max(base['cpu'], 1e-9):.1f} cpu, "
            f"x{r['nodes'] / max(base['nodes'], 1):.1f} nodes vs optimum only"
        )
    return text


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--cases",
        nargs="+",
        default=["compas", "adult", "sweep"],
        choices=["compas", "adult", "sweep", "memory"],
    )
    parser.add_argument("--time-limit", type=float, default=600.0)
    args = parser.parse_args()
    for case in args.cases:
        if case == "memory":
            with mp.get_context("spawn").Pool(1) as pool:
                pool.apply(_memory, (args.time_limit,))
            continue
        name, length = ("adult", 3) if case == "adult" else ("compas", 4)
        deltas = (0.002, 0.005, 0.01, 0.02) if case == "sweep" else (0.01,)
        print(f"{name}: SP <= {EPSILON}, lambda {LAM}, at most {length} rules", flush=True)
        base = _once((name, length, None, args.time_limit))
        print(_line("optimum only (baseline)", base, None), flush=True)
        no_map = _once((name, length, "no_map", args.time_limit))
        print(_line("optimum only, map off", no_map, base), flush=True)
        for delta in deltas:
            print(
                _line(
                    f"rashomon delta {delta}", _once((name, length, delta, args.time_limit)), base
                ),
                flush=True,
            )


if __name__ == "__main__":
    main()
