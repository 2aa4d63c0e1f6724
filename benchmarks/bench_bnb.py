"""Branch-and-bound figures on the paper's COMPAS data (issue 3's table).

For each penalty (default 0.005 and 0.001) and each case (unconstrained; statistical parity,
equal opportunity and equalized odds at 0.05 and 0.01) it prints the status, objective, lower
bound at exit, nodes expanded, children evaluated, peak trie size, seconds, children evaluated
per second, the wall time of the whole solve (beam-search warm start included), peak RSS and the
memory per trie node (the RSS the solve added, over the peak trie size), under a 4,000,000-node
trie budget. Each case runs in its own process so that the peak RSS is that case's.

Groups and weights (issue 14): ``--groups race`` (six races) or ``--groups race_sex`` (their
intersections with sex, 12 groups) solve the raw ProPublica table through the binarizer
(``fairlist.datasets.load_compas``) instead of the published two-group file; ``--weights``
adds sample weights: ``integer`` (positives weigh 2: exact), ``balanced`` (each class weighs
half: rounded, so the status is at best feasible, see ``fairlist.solvers.bnb``). The table then
also prints the groups, distinct weighted rows and classes searched.

With ``--reference`` it also runs the ``faircorels`` package (a black box, through
``benchmarks/faircorels_reference.py``) with the same budget, in the interpreter named by the
``FAIRCORELS_PYTHON`` environment variable (a separate virtual environment with the package's
old pins), and prints both side by side; it says so when that interpreter is not available.
The reference starts from the constant rule lists, so its time to fill the trie is compared with
ours started the same way (an extra "no beam" row, ``beam_width=0``): a better warm start prunes
more children, and then more expansions are needed to fill the same trie.

    python benchmarks/bench_bnb.py                       # the table, about 5-10 minutes
    python benchmarks/bench_bnb.py --lam 0.001 --cases none SP:0.05 --reference
    python benchmarks/bench_bnb.py --lam 0.005 --max-length 4 --policy lower_bound
    python benchmarks/bench_bnb.py --groups race --cases SP:0.1 --lam 0.005 0.001
    python benchmarks/bench_bnb.py --groups race_sex --weights balanced --cases none SP:0.1
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

from fairlist.metrics import Metric

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT.parent / "shared" / "data" / "faircorels" / "compas_rules_full.csv"
RAW_COMPAS = ROOT.parent / "shared" / "data" / "compas" / "compas-scores-two-years.csv"
CASES = ("none", "SP:0.05", "SP:0.01", "EOpp:0.05", "EOpp:0.01", "EOdds:0.05", "EOdds:0.01")


def parse_case(case: str) -> tuple[Metric, float | None]:
    if case == "none":
        return Metric.STATISTICAL_PARITY, None
    metric, eps = case.split(":")
    try:
        return Metric.parse(metric), float(eps)
    except ValueError as exc:
        raise SystemExit(f"--cases {case!r}: {exc}") from None


def load_problem(args: argparse.Namespace, metric: Metric, eps: float | None):
    """The problem of one case: the published two-group file, or the raw table's races (and
    sexes), with the sample weights asked for."""
    import warnings

    import numpy as np
    import pandas as pd

    from fairlist.solvers import Limits, Problem

    fields = dict(
        metric=metric, epsilon=eps, lam=args.lam, max_length=args.max_length,
        limits=Limits(max_nodes=args.max_nodes, time_limit=args.time_limit),
    )  # fmt: skip
    if args.groups == "paper":
        frame = pd.read_csv(args.data)
        X = frame.iloc[:, 2:-1].to_numpy(np.uint8)
        y = frame.iloc[:, -1].to_numpy(np.uint8)
        groups = np.where(frame.iloc[:, 0].to_numpy(bool), 0, 1)
        names = list(frame.columns[2:-1])
    else:
        from fairlist.datasets import load_compas
        from fairlist.groups import encode_groups

        data = load_compas(args.raw, groups=args.groups)
        X, y, names = data.X.to_numpy(np.uint8), data.y.to_numpy(np.uint8), list(data.X.columns)
        groups = encode_groups(data.sensitive).codes
    weights = None
    if args.weights == "integer":  # positives weigh 2: exact integers
        weights = 1.0 + y
    elif args.weights == "balanced":  # each class half the total weight: rounded
        weights = len(y) / (2.0 * np.bincount(y)[y])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # small groups (Native American: 11 defendants)
        if args.groups == "paper":
            return Problem(X, y, groups == 0, feature_names=names, sample_weight=weights,
                           **fields)  # fmt: skip
        return Problem(X, y, groups, feature_names=names, sample_weight=weights, **fields)


def run_one(args: argparse.Namespace) -> None:
    """Child process: one solve, one JSON line on stdout."""
    from fairlist.solvers.bnb import BnBSolver

    metric, eps = parse_case(args.one)
    problem = load_problem(args, metric, eps)
    rss_before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    start = time.perf_counter()
    options = {} if args.beam_width is None else {"beam_width": args.beam_width}
    if args.deepen_length:
        options["deepen_length"] = args.deepen_length
    solver = BnBSolver(policy=args.policy, majority_only=args.majority_only, **options)
    result = solver.solve(problem)
    wall = time.perf_counter() - start
    stats = result.stats
    json.dump(
        {
            "status": str(result.status),
            "stop": str(result.stop_reason),
            "objective": result.objective,
            "lower_bound": result.lower_bound,
            "unfairness": result.unfairness,
            "length": None if result.rule_list is None else result.rule_list.length,
            "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
            "rss_before_mb": rss_before,
            "wall_seconds": wall,
            **{k: stats[k] for k in (
                "nodes_expanded", "children_evaluated", "peak_trie_size", "nodes_created",
                "seconds", "peak_memory_bytes", "certified_length", "n_groups", "n_rows",
                "n_classes", "weights_exact",
            )},
        },
        sys.stdout,
    )


def bytes_per_node(peak_rss_mb: float, before_mb: float, nodes: int) -> float:
    """Memory the solve added (peak RSS minus the RSS before it) per trie node."""
    return (peak_rss_mb - before_mb) * 2**20 / max(nodes, 1)


def run_ours(args: argparse.Namespace, case: str, beam_width: int | None) -> dict:
    cmd = [
        sys.executable, __file__, "--one", case, "--lam", str(args.lam), "--data", str(args.data),
        "--max-nodes", str(args.max_nodes), "--policy", args.policy, "--groups", args.groups,
        "--weights", args.weights, "--raw", str(args.raw),
    ]
    if beam_width is not None:
        cmd += ["--beam-width", str(beam_width)]
    if args.time_limit:
        cmd += ["--time-limit", str(args.time_limit)]
    if args.majority_only:
        cmd.append("--majority-only")
    if args.max_length is not None:
        cmd += ["--max-length", str(args.max_length)]
    if args.deepen_length:
        cmd += ["--deepen-length", str(args.deepen_length)]
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    return json.loads(out)


def run_reference(args: argparse.Namespace, case: str, python: str) -> dict | None:
    metric, eps = parse_case(case)
    cmd = [
        python, str(ROOT / "benchmarks" / "faircorels_reference.py"), str(args.data),
        # faircorels numbers the metrics as fairlist.metrics.Metric does (1 SP ... 6 CUAE).
        "--metric", str(int(metric)), "--lam", str(args.lam),
        "--max-nodes", str(args.max_nodes),
    ]
    if eps is not None:
        cmd += ["--max-unfairness", str(eps)]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0:
        print(f"  reference failed on {case}: {proc.stderr.strip().splitlines()[-1:]}")
        return None
    return json.loads(proc.stdout)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", type=Path, default=DATA)
    ap.add_argument("--raw", type=Path, default=RAW_COMPAS,
                    help="the raw ProPublica table (for --groups race / race_sex)")
    ap.add_argument("--groups", choices=("paper", "race", "race_sex"), default="paper",
                    help="paper: the published two-group file; race, race_sex: the raw table")
    ap.add_argument("--weights", choices=("none", "integer", "balanced"), default="none",
                    help="sample weights: positives weigh 2, or each class half the total")
    ap.add_argument("--lam", type=float, nargs="+", default=[0.005, 0.001])
    ap.add_argument("--cases", nargs="+", default=list(CASES), help="none or METRIC:EPSILON")
    ap.add_argument("--max-nodes", type=int, default=4_000_000)
    ap.add_argument("--time-limit", type=float, default=None, help="seconds per case")
    ap.add_argument("--policy", default="bfs")
    ap.add_argument("--majority-only", action="store_true")
    ap.add_argument("--max-length", type=int, default=None,
                    help="cap on the number of rules (a certificate is then among such lists)")
    ap.add_argument("--beam-width", type=int, default=None,
                    help="width of the warm-start beam search (default: the solver's)")
    ap.add_argument("--deepen-length", type=int, default=0,
                    help="certify the lists of at most 1..N rules first (length deepening)")
    ap.add_argument("--reference", action="store_true", help="also run the faircorels package")
    ap.add_argument("--one", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.one:
        args.lam = args.lam[0]
        run_one(args)
        return
    if args.reference and args.max_length is not None:
        ap.error("--reference runs without a length cap: drop --max-length")
    if args.reference and (args.groups != "paper" or args.weights != "none"):
        ap.error("--reference runs the paper's two groups without weights")
    source = args.data if args.groups == "paper" else args.raw
    if not source.exists():
        raise SystemExit(f"data file not found: {source}")
    for case in args.cases:
        parse_case(case)
    reference_python = None
    if args.reference:
        reference_python = os.environ.get("FAIRCORELS_PYTHON")
        if not reference_python or not Path(reference_python).exists():
            print("reference: not run (set FAIRCORELS_PYTHON to a Python with the faircorels "
                  "package; see benchmarks/faircorels_reference.py)")
            reference_python = None

    space = "majority" if args.majority_only else "full"
    print(f"data {source.name} ({args.groups} groups, weights {args.weights}), policy "
          f"{args.policy}, {space} search space, trie budget {args.max_nodes:,} nodes"
          + ("" if args.max_length is None else f", at most {args.max_length} rules"))
    header = (f"{'lam':>6} {'case':<11} {'status':<9} {'objective':>9} {'lower_bd':>9} "
              f"{'expanded':>9} {'children':>11} {'peak_trie':>9} {'seconds':>8} "
              f"{'child/s':>9} {'wall_s':>7} {'RSS_MB':>7} {'B/node':>6} {'cert':>5}"
              + ("" if args.groups == "paper" and args.weights == "none" else
                 f" {'groups':>6} {'rows':>5} {'classes':>7}"))
    for lam in args.lam:
        args.lam = lam
        print(header)
        for case in args.cases:
            r = run_ours(args, case, args.beam_width)
            print_row(lam, case, r, groups=args.groups != "paper" or args.weights != "none")
            if reference_python:
                # The reference starts from the constant lists: the fill time is compared with
                # ours started the same way (no beam search), the objective with both.
                cold = run_ours(args, case, 0)
                print_row("", "  no beam", cold)
                ref = run_reference(args, case, reference_python)
                if ref:
                    per_node = bytes_per_node(cold["peak_rss_mb"], cold["rss_before_mb"],
                                              cold["peak_trie_size"])
                    ref_per_node = bytes_per_node(
                        ref["peak_rss_mb"], ref["rss_before_fit_mb"], args.max_nodes
                    )
                    print(f"{'':>6} {'faircorels':<11} {'-':<9} {ref['objective']:>9.6f} "
                          f"{'-':>9} {'-':>9} {'-':>11} {args.max_nodes:>9,} "
                          f"{ref['seconds']:>8.2f} {'-':>9} {ref['seconds']:>7.2f} "
                          f"{ref['peak_rss_mb']:>7.0f} {ref_per_node:>6.0f} {'-':>5}   "
                          f"fill time x{ref['seconds'] / cold['wall_seconds']:.1f} "
                          f"(x{ref['seconds'] / r['wall_seconds']:.1f} with the beam), "
                          f"bytes per node x{ref_per_node / per_node:.1f}", flush=True)


def print_row(lam: float | str, case: str, r: dict, groups: bool = False) -> None:
    """One line of the table; ``groups``: also the groups, rows and classes searched."""
    rate = r["children_evaluated"] / max(r["seconds"], 1e-9)
    per_node = bytes_per_node(r["peak_rss_mb"], r["rss_before_mb"], r["peak_trie_size"])
    print(f"{lam:>6} {case:<11} {r['status']:<9} {r['objective']:>9.6f} "
          f"{r['lower_bound']:>9.6f} {r['nodes_expanded']:>9,} "
          f"{r['children_evaluated']:>11,} {r['peak_trie_size']:>9,} "
          f"{r['seconds']:>8.2f} {rate:>9.3g} {r['wall_seconds']:>7.2f} "
          f"{r['peak_rss_mb']:>7.0f} {per_node:>6.0f} {certified(r):>5}"
          + (f" {r['n_groups']:>6} {r['n_rows']:>5} {r['n_classes']:>7}" if groups else ""),
          flush=True)


def certified(r: dict) -> str:
    """Rules up to which no list beats the result: all when optimal, else the length
    deepening's certificate ('-' when there is none)."""
    if r["status"] == "optimal":
        return "all"
    return str(r.get("certified_length") or "-")


if __name__ == "__main__":
    main()
