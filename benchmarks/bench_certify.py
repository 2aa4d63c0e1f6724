"""Issue 16's and 23's certificate targets on the paper's COMPAS data: the engine with a switch
off beside the engine with it on, one run.  ``--compare lookahead`` (the default) sets the
two-rule lookahead (``use_two_rule_lookahead``, issue 23; off by default in the library) off
then on, the terminal solver on in both; ``--compare terminal`` sets the terminal solver
(``use_terminal_solver``, issue 16) off then on, the lookahead off in both; ``--compare deepen``
runs the cases without a cap plainly, then with length deepening to ``--deepen-length`` rules
(default 6 there; the lookahead off and the terminal solver on in both); ``--compare dual``
runs the plain search (``BnBSolver(dual="off")``) then the Lagrangian certificate
(``--dual-mode``, default "on": a first incumbent from the beam, the multiplier, the
enumeration under the threshold, the plain search as fallback; issue 36) and prints, for the
second, the multiplier, the lists checked and the enumeration's CPU seconds; ``--compare
default`` runs ``deepen_length=0`` (the default before issue 36) then the library's default
(``deepen_length="auto"``: every length without a cap, a node budget or a memory budget, so
give ``--max-nodes 0`` to see it act; ``fairlist/solvers/deepening.py``), every other setting
the library's or the case's.

Each case runs twice, off then on, each in its own process pinned to one core, under the same
budget: ``--max-nodes`` nodes and ``--time-limit`` seconds (the terminal solver stores almost
no trie: the node budget counts the trie plus length deepening's nodes expanded or finished by
counting, so under a cap the time limit is what bounds its runs). Printed per run:
status, objective, lower bound at exit, gap (objective - lower bound), nodes expanded, peak
trie, seconds of search (wall, as the solver reports them), CPU seconds of the solve (user
time: the figure to compare on a shared machine), bytes per stored node (the search
structures' peak bytes over the peak trie; with a tiny trie this is dominated by fixed
tables), ``cert`` (``certified_length``: no list of at most that many rules is better; with
deepening, the phases completed), and per case the ratios off/on of CPU seconds, expansions
and peak trie, and gap on / gap off.

The cases (issue 16's targets; ``--cases`` picks by name):

    sp_L4      SP <= 0.05, lambda 0.005, at most 4 rules, best-first by lower bound
    sp_L5      the same, at most 5 rules
    sp_L6      the same, at most 6 rules (issue 36: certified in at most 60 s)
    sp01_L6, eopp_L6, eodds_L6   SP <= 0.01, EOpp <= 0.05, EOdds <= 0.05, at most 6 rules
               (issue 36: at most 120 s each)
    sp_01      SP <= 0.05, lambda 0.01, no cap, best-first by lower bound
    t01_*      the benchmark table's constrained cases at lambda 0.01 (SP, EOpp, EOdds at
               0.05 and 0.01), breadth-first as benchmarks/bench_bnb.py
    t005_*     the same at lambda 0.005 (the target: the gap at exit halved)
    none_001   unconstrained, lambda 0.001, breadth-first

The terminal solver acts only under a length cap (and in the phases of length deepening): with
``--compare terminal``, in the cases without a cap both runs search alike, which the ratios
show, unless ``--deepen-length N`` makes both runs certify the lists of at most 1..N rules
first.  The two-rule lookahead acts with and without a cap; it stores far fewer nodes, so the
run with it usually stops at the time limit rather than the trie budget (figures in
docs/performance.md).

Measured beyond the default budgets (one core, machine shared with another process): sp_L5
with the terminal solver, no time limit, certifies 0.413583 in 242 CPU seconds (1.69 M
expansions, 1.67 M prefixes finished by counting, 10.3 G second-rule candidates scanned, peak
trie 19,783); issue 16 reports 850 s and 60.5 M expansions without it, on an older engine.

    python benchmarks/bench_certify.py                          # every case, under 15 min
    python benchmarks/bench_certify.py --cases sp_L4 sp_L5 --time-limit 300
    python benchmarks/bench_certify.py --cases sp_01 t005_SP_05 --deepen-length 4
    python benchmarks/bench_certify.py --compare terminal --cases sp_L4
    python benchmarks/bench_certify.py --compare deepen --cases sp_01 --time-limit 60
    python benchmarks/bench_certify.py --compare deepen --policy lower_bound --time-limit 400 \
        --cases t005_SP_05 t005_SP_01 t005_EOpp_05 t005_EOdds_05
    python benchmarks/bench_certify.py --compare dual --cases sp_L5 sp_L6 --time-limit 100
    python benchmarks/bench_certify.py --compare default --cases sp_L4 sp_L5 --time-limit 600
    python benchmarks/bench_certify.py --compare default --max-nodes 0 --cases sp_01 \
        --time-limit 400
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT.parent / "shared" / "data" / "faircorels" / "compas_rules_full.csv"

# name: (metric, epsilon, lambda, max_length, policy)
CASES: dict[str, tuple[str, float | None, float, int | None, str]] = {
    "sp_L4": ("SP", 0.05, 0.005, 4, "lower_bound"),
    "sp_L5": ("SP", 0.05, 0.005, 5, "lower_bound"),
    # issue 36's targets (--compare dual): at most 6 rules, lambda 0.005
    "sp_L6": ("SP", 0.05, 0.005, 6, "lower_bound"),
    "sp01_L6": ("SP", 0.01, 0.005, 6, "lower_bound"),
    "eopp_L6": ("EOpp", 0.05, 0.005, 6, "lower_bound"),
    "eodds_L6": ("EOdds", 0.05, 0.005, 6, "lower_bound"),
    "sp_01": ("SP", 0.05, 0.01, None, "lower_bound"),
    **{
        f"t{tag}_{m}_{str(e)[2:]}": (m, e, lam, None, "bfs")
        for tag, lam in (("01", 0.01), ("005", 0.005))
        for m in ("SP", "EOpp", "EOdds")
        for e in (0.05, 0.01)
    },
    "none_001": ("SP", None, 0.001, None, "bfs"),
}
# Cases given a multiple of --time-limit: the 4-rule certificate without the terminal solver
# takes about a minute, and the searches without a cap get longer than the table's cases.
TIME_SCALE = {"sp_L4": 6.0, "sp_L5": 3.0, "sp_01": 1.5, "none_001": 1.5}
TIME_SCALE.update(dict.fromkeys(("sp_L6", "sp01_L6", "eopp_L6", "eodds_L6"), 3.0))


def run_one(args: argparse.Namespace) -> None:
    """Child process: one solve on one core, one JSON line on stdout."""
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {sorted(os.sched_getaffinity(0))[-1]})
    import numpy as np
    import pandas as pd

    from fairlist.metrics import Metric
    from fairlist.solvers import Limits, Problem
    from fairlist.solvers.bnb import BnBSolver

    metric, eps, lam, max_length, policy = CASES[args.one]
    policy = args.policy or policy
    frame = pd.read_csv(args.data)
    problem = Problem(
        frame.iloc[:, 2:-1].to_numpy(np.uint8),
        frame.iloc[:, -1].to_numpy(np.uint8),
        frame.iloc[:, 0].to_numpy(bool),
        metric=Metric.parse(metric),
        epsilon=eps,
        lam=lam,
        max_length=max_length,
        feature_names=list(frame.columns[2:-1]),
        limits=Limits(max_nodes=args.max_nodes or None, time_limit=args.time_limit),
    )
    before = resource.getrusage(resource.RUSAGE_SELF)
    deepen = args.deepen_length
    if args.compare == "deepen":
        deepen = deepen if args.terminal == "on" else 0
    options = {"deepen_length": deepen} if max_length is None else {}
    if args.compare == "default":  # the old default (no deepening), then the library's own
        options = {"deepen_length": 0} if args.terminal == "off" else {}
    # --compare terminal: the terminal solver off (issue 16's baseline) against on;
    # --compare lookahead: the terminal solver on, the two-rule lookahead off (issue 23's
    # baseline) against on.
    switch = {
        "terminal": {"use_terminal_solver": args.terminal == "on", "use_two_rule_lookahead": False},
        "lookahead": {"use_two_rule_lookahead": args.terminal == "on"},
        "deepen": {"use_two_rule_lookahead": False},
        "dual": {"dual": args.dual_mode if args.terminal == "on" else "off"},
        "default": {},
    }[args.compare]
    solver = BnBSolver(policy=policy, **switch, **options)
    result = solver.solve(problem)
    after = resource.getrusage(resource.RUSAGE_SELF)
    s = result.stats
    json.dump(
        {
            "status": str(result.status),
            "stop": str(result.stop_reason),
            "objective": result.objective,
            "lower_bound": result.lower_bound,
            "user_seconds": after.ru_utime - before.ru_utime,
            "dual": s.get("dual"),
            **{
                k: s.get(k, 0)
                for k in (
                    "nodes_expanded",
                    "peak_trie_size",
                    "seconds",
                    "peak_memory_bytes",
                    "terminal_prefixes",
                    "certified_length",
                )
            },
        },
        sys.stdout,
    )


def run(args: argparse.Namespace, case: str, terminal: str) -> dict:
    cmd = [
        sys.executable,
        __file__,
        "--one",
        case,
        "--terminal",
        terminal,
        "--data",
        str(args.data),
        "--max-nodes",
        str(args.max_nodes),
        "--time-limit",
        str(args.time_limit * TIME_SCALE.get(case, 1.0)),
        "--deepen-length",
        str(args.deepen_length),
        "--compare",
        args.compare,
        "--dual-mode",
        args.dual_mode,
        *(["--policy", args.policy] if args.policy else []),
    ]
    return json.loads(subprocess.run(cmd, check=True, capture_output=True, text=True).stdout)


def row(case: str, terminal: str, r: dict) -> str:
    gap = r["objective"] - r["lower_bound"]
    per_node = r["peak_memory_bytes"] / max(r["peak_trie_size"], 1)
    return (
        f"{case:<11} {terminal:<4} {r['status']:<9} {r['stop']:<11} {r['objective']:>9.6f} "
        f"{r['lower_bound']:>9.6f} {gap:>9.6f} {r['nodes_expanded']:>11,} "
        f"{r['peak_trie_size']:>10,} {r['seconds']:>8.2f} {r['user_seconds']:>8.2f} "
        f"{per_node:>8.0f} {r['certified_length']:>5}"
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", type=Path, default=DATA)
    ap.add_argument(
        "--cases",
        nargs="+",
        default=list(CASES),
        choices=list(CASES),
        metavar="CASE",
        help=f"some of: {' '.join(CASES)}",
    )
    ap.add_argument(
        "--max-nodes",
        type=int,
        default=4_000_000,
        help="trie budget per run (issue 16: 4,000,000; 0: none, where the default deepens)",
    )
    ap.add_argument("--time-limit", type=float, default=20.0, help="seconds per run")
    ap.add_argument(
        "--deepen-length",
        type=int,
        default=0,
        help="in the cases without a cap, both runs first certify the lists of at most "
        "1..N rules (length deepening; the terminal solver acts in those phases)",
    )
    ap.add_argument(
        "--compare",
        choices=("lookahead", "terminal", "deepen", "dual", "default"),
        default="lookahead",
        help="the switch set off then on: the two-rule lookahead (issue 23; the terminal solver "
        "on in both runs), the terminal solver (issue 16; the lookahead off in both runs) or "
        "length deepening to --deepen-length rules in the cases without a cap (default 6), "
        "or the Lagrangian certificate (issue 36: BnBSolver(dual=--dual-mode)), or the old "
        "default deepen_length=0 against the library's default (deepen_length='auto')",
    )
    ap.add_argument(
        "--dual-mode", choices=("on", "auto"), default="on", help="--compare dual's second run"
    )
    ap.add_argument(
        "--policy",
        choices=("bfs", "lower_bound", "curiosity", "dfs", "objective"),
        help="the search policy of every run instead of each case's",
    )
    ap.add_argument("--one", help=argparse.SUPPRESS)
    ap.add_argument("--terminal", choices=("on", "off"), help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.compare == "deepen" and not args.deepen_length:
        args.deepen_length = 6
    if args.one:
        run_one(args)
        return
    if not args.data.exists():
        raise SystemExit(f"data file not found: {args.data}")
    print(
        f"load average {os.getloadavg()[0]:.2f}; data {args.data.name}; per run: trie budget "
        f"{args.max_nodes:,} nodes, "
        f"{args.time_limit:g} s (sp_L4 x6, sp_L5 x3, sp_01 and none_001 x1.5), one core; "
        f"{args.compare} off then on"
        + (
            f"; no-cap cases deepened to {args.deepen_length} rules"
            + (" in the second run" if args.compare == "deepen" else "")
            if args.deepen_length
            else ""
        )
    )
    print(
        f"{'case':<11} {'term':<4} {'status':<9} {'stop':<11} {'objective':>9} "
        f"{'lower_bd':>9} {'gap':>9} {'expanded':>11} {'peak_trie':>10} {'seconds':>8} "
        f"{'cpu_s':>8} {'B/node':>8} {'cert':>5}"
    )
    for case in args.cases:
        metric, eps, lam, max_length, policy = CASES[case]
        policy = args.policy or policy
        print(
            f"# {case}: {metric} <= {eps}, lambda {lam}, "
            f"{'no cap' if max_length is None else f'at most {max_length} rules'}, {policy}",
            flush=True,
        )
        off = run(args, case, "off")
        print(row(case, "off", off), flush=True)
        on = run(args, case, "on")
        print(row(case, "on", on), flush=True)
        gap_off = off["objective"] - off["lower_bound"]
        gap_on = on["objective"] - on["lower_bound"]
        cpu = off["user_seconds"] / max(on["user_seconds"], 1e-9)
        print(
            f"{'':<11} off/on: cpu seconds x{cpu:.2f}, "
            f"expanded x{off['nodes_expanded'] / max(on['nodes_expanded'], 1):.2f}, "
            f"peak trie x{off['peak_trie_size'] / max(on['peak_trie_size'], 1):.1f}; "
            f"gap on/off {gap_on / gap_off if gap_off > 0 else float('nan'):.2f}; "
            f"terminal prefixes {on['terminal_prefixes']:,}",
            flush=True,
        )
        if on.get("dual"):
            d = on["dual"]
            keys = ("mode", "certified", "nu", "n_checked", "one_spelling")
            keys += ("enumeration_cpu_seconds", "enumeration_nodes", "fallback", "reason")
            keys += ("enumerated_below", "fallback_lower_bound")
            print(f"{'':<11} dual: " + ", ".join(f"{k} {d[k]}" for k in keys if k in d))


if __name__ == "__main__":
    main()
