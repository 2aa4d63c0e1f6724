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

    FAIRLIST_DATA_HOME=../shared/data python benchmarks/bench_rashomon.py
    python benchmarks/bench_rashomon.py --cases compas adult    # skip the delta sweep
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
        choices=["compas", "adult", "sweep"],
    )
    parser.add_argument("--time-limit", type=float, default=600.0)
    args = parser.parse_args()
    for case in args.cases:
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
