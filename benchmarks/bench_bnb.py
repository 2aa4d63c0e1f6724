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

``--like-for-like`` prints, for each case, rows that each say their settings: ours in CORELS'
space (majority labels) and order (breadth-first) without warm start (``beam_width=0``), which
is what the ``faircorels`` package searches; then ours in the full space (minority labels
allowed) without and with the default beam-search warm start, which show what the larger space
and the warm start buy. With ``--reference`` (which implies it) the package runs too, as a black
box through ``benchmarks/faircorels_reference.py``, with the same budget and order, with its
unfairness lower bound (``useUnfairnessLB``) off and, for SP and EOpp (the only metrics for
which the package implements it), on; in the interpreter named by the ``FAIRCORELS_PYTHON``
environment variable (a separate virtual environment with the package's old pins); it says so
when that interpreter is not available. Each of our rows gives the reference's time (CPU
seconds, so that a shared machine skews it less) and memory per trie node over ours (``t x``,
``B x``). With its bound on the package spends 0.2-0.6 ms per trie node on COMPAS (15-40 minutes
for 4,000,000 nodes): ``--reference-time-limit`` caps each of its runs, and the ratio is then
per node of the smaller trie it reached.

    python benchmarks/bench_bnb.py                       # the table, about 5-10 minutes
    python benchmarks/bench_bnb.py --lam 0.001 --reference --reference-time-limit 180  # 30 min
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
        metric=metric,
        epsilon=eps,
        lam=args.lam,
        max_length=args.max_length,
        limits=Limits(max_nodes=args.max_nodes, time_limit=args.time_limit),
    )
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
            return Problem(X, y, groups == 0, feature_names=names, sample_weight=weights, **fields)
        return Problem(X, y, groups, feature_names=names, sample_weight=weights, **fields)


def run_one(args: argparse.Namespace) -> None:
    """Child process: one solve, one JSON line on stdout."""
    from fairlist.solvers.bnb import BnBSolver

    metric, eps = parse_case(args.one)
    problem = load_problem(args, metric, eps)
    rss_before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    start, cpu_start = time.perf_counter(), cpu_seconds()
    options = {} if args.beam_width is None else {"beam_width": args.beam_width}
    options["deepen_length"] = args.deepen_length  # 0: off, not the library's "auto"
    solver = BnBSolver(policy=args.policy, majority_only=args.majority_only, **options)
    result = solver.solve(problem)
    wall, cpu = time.perf_counter() - start, cpu_seconds() - cpu_start
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
            "cpu_seconds": cpu,
            **{
                k: stats[k]
                for k in (
                    "nodes_expanded",
                    "children_evaluated",
                    "peak_trie_size",
                    "nodes_created",
                    "seconds",
                    "peak_memory_bytes",
                    "certified_length",
                    "n_groups",
                    "n_rows",
                    "n_sample_classes",
                    "weights_exact",
                )
            },
        },
        sys.stdout,
    )


def cpu_seconds() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def bytes_per_node(peak_rss_mb: float, before_mb: float, nodes: int) -> float:
    """Memory the solve added (peak RSS minus the RSS before it) per trie node."""
    return (peak_rss_mb - before_mb) * 2**20 / max(nodes, 1)


def run_ours(args: argparse.Namespace, case: str, **overrides) -> dict:
    """One solve in a child process; ``overrides``: majority_only, beam_width."""
    opts = {"majority_only": args.majority_only, "beam_width": args.beam_width, **overrides}
    cmd = [
        sys.executable,
        __file__,
        "--one",
        case,
        "--lam",
        str(args.lam),
        "--data",
        str(args.data),
        "--max-nodes",
        str(args.max_nodes),
        "--policy",
        args.policy,
        "--groups",
        args.groups,
        "--weights",
        args.weights,
        "--raw",
        str(args.raw),
    ]
    if opts["beam_width"] is not None:
        cmd += ["--beam-width", str(opts["beam_width"])]
    if args.time_limit:
        cmd += ["--time-limit", str(args.time_limit)]
    if opts["majority_only"]:
        cmd.append("--majority-only")
    if args.max_length is not None:
        cmd += ["--max-length", str(args.max_length)]
    if args.deepen_length:
        cmd += ["--deepen-length", str(args.deepen_length)]
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    return json.loads(out)


def run_reference(args: argparse.Namespace, case: str, python: str, lb: bool) -> dict | None:
    """The package on one case (``lb``: its unfairness lower bound on), in our row's keys."""
    metric, eps = parse_case(case)
    cmd = [
        python,
        str(ROOT / "benchmarks" / "faircorels_reference.py"),
        str(args.data),
        # faircorels numbers the metrics as fairlist.metrics.Metric does (1 SP ... 6 CUAE).
        "--metric",
        str(int(metric)),
        "--lam",
        str(args.lam),
        "--max-nodes",
        str(args.max_nodes),
        "--policy",
        args.policy,
    ]
    if eps is not None:
        cmd += ["--max-unfairness", str(eps)]
    if lb:
        cmd.append("--unfairness-lb")
    if args.reference_time_limit:
        cmd += ["--time-limit", str(args.reference_time_limit)]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0:
        print(f"  reference failed on {case}: {proc.stderr.strip().splitlines()[-1:]}")
        return None
    ref = json.loads(proc.stdout)
    return {
        **ref,
        "peak_trie_size": ref["trie_nodes"],
        "rss_before_mb": ref["rss_before_fit_mb"],
        "wall_seconds": ref["seconds"],
    }


#: Our like-for-like rows: (settings, run_ours overrides). The first is the package's space.
OURS = (
    ("ours majority bfs no-beam", {"majority_only": True, "beam_width": 0}),
    ("ours full bfs no-beam", {"majority_only": False, "beam_width": 0}),
    ("ours full bfs beam (default)", {"majority_only": False, "beam_width": None}),
)
#: The metrics for which faircorels 1.0 implements useUnfairnessLB (its CP filtering).
REFERENCE_LB = (Metric.STATISTICAL_PARITY, Metric.EQUAL_OPPORTUNITY)


def like_for_like(args: argparse.Namespace, reference_python: str | None) -> None:
    """For each case, our rows and the reference's, with the reference's time and memory per
    trie node over ours (``t`` and ``B``), against its runs with the lower bound off and on."""
    print(
        f"{'lam':>6} {'case':<10} {'settings':<29} {'stop':<10} {'objective':>9} "
        f"{'lower_bd':>8} {'expanded':>9} {'trie':>9} {'cpu_s':>7} {'wall_s':>7} "
        f"{'us/node':>7} {'B/node':>6}  vs LB off      vs LB on"
    )
    for case in args.cases:
        ours = [(label, run_ours(args, case, **opts)) for label, opts in OURS]
        refs = []
        if reference_python:
            metric, eps = parse_case(case)
            for lb in (False, True):
                if lb and (eps is None or metric not in REFERENCE_LB):
                    continue
                ref = run_reference(args, case, reference_python, lb)
                if ref:
                    refs.append((f"faircorels bfs LB {'on' if lb else 'off'}", ref))
        for label, r in [ours[0], *refs, *ours[1:]]:
            per_node = per_trie_node(r)
            ratios = (
                ""
                if label.startswith("faircorels")
                else "".join(
                    f"  t x{ref_t / per_node[0]:<4.1f} B x{ref_b / per_node[1]:<4.1f}"
                    for ref_t, ref_b in (per_trie_node(ref) for _, ref in refs)
                )
            )
            print(
                f"{args.lam:>6} {case:<10} {label:<29} {r['stop']:<10} {r['objective']:>9.6f} "
                f"{r['lower_bound']:>8.4f} {r['nodes_expanded']:>9,} {r['peak_trie_size']:>9,} "
                f"{r['cpu_seconds']:>7.1f} {r['wall_seconds']:>7.1f} "
                f"{per_node[0] * 1e6:>7.2f} {per_node[1]:>6.0f}{ratios}",
                flush=True,
            )


def per_trie_node(r: dict) -> tuple[float, float]:
    """CPU seconds and bytes (the RSS the solve added) per trie node."""
    return (
        r["cpu_seconds"] / max(r["peak_trie_size"], 1),
        bytes_per_node(r["peak_rss_mb"], r["rss_before_mb"], r["peak_trie_size"]),
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", type=Path, default=DATA)
    ap.add_argument(
        "--raw",
        type=Path,
        default=RAW_COMPAS,
        help="the raw ProPublica table (for --groups race / race_sex)",
    )
    ap.add_argument(
        "--groups",
        choices=("paper", "race", "race_sex"),
        default="paper",
        help="paper: the published two-group file; race, race_sex: the raw table",
    )
    ap.add_argument(
        "--weights",
        choices=("none", "integer", "balanced"),
        default="none",
        help="sample weights: positives weigh 2, or each class half the total",
    )
    ap.add_argument("--lam", type=float, nargs="+", default=[0.005, 0.001])
    ap.add_argument("--cases", nargs="+", default=list(CASES), help="none or METRIC:EPSILON")
    ap.add_argument("--max-nodes", type=int, default=4_000_000)
    ap.add_argument("--time-limit", type=float, default=None, help="seconds per case")
    ap.add_argument("--policy", default="bfs")
    ap.add_argument("--majority-only", action="store_true")
    ap.add_argument(
        "--max-length",
        type=int,
        default=None,
        help="cap on the number of rules (a certificate is then among such lists)",
    )
    ap.add_argument(
        "--beam-width",
        type=int,
        default=None,
        help="width of the warm-start beam search (default: the solver's)",
    )
    ap.add_argument(
        "--deepen-length",
        type=int,
        default=0,
        help="certify the lists of at most 1..N rules first (length deepening; 0, the "
        "default here: off, whatever the library's default)",
    )
    ap.add_argument(
        "--like-for-like",
        action="store_true",
        help="per case: ours in the package's space and order without warm start, "
        "then the full space without and with it",
    )
    ap.add_argument(
        "--reference",
        action="store_true",
        help="also run the faircorels package (implies --like-for-like)",
    )
    ap.add_argument(
        "--reference-time-limit",
        type=float,
        default=None,
        help="CPU seconds per reference run (its trie is then smaller)",
    )
    ap.add_argument("--one", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.one:
        args.lam = args.lam[0]
        run_one(args)
        return
    args.like_for_like |= args.reference
    if args.like_for_like and (
        args.max_length is not None or args.deepen_length or args.policy != "bfs"
    ):
        ap.error("--like-for-like runs breadth-first without a length cap or deepening")
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
            print(
                "reference: not run (set FAIRCORELS_PYTHON to a Python with the faircorels "
                "package; see benchmarks/faircorels_reference.py)"
            )
            reference_python = None

    space = "per row" if args.like_for_like else "majority" if args.majority_only else "full"
    print(
        f"data {source.name} ({args.groups} groups, weights {args.weights}), policy "
        f"{args.policy}, {space} search space, trie budget {args.max_nodes:,} nodes"
        + ("" if args.max_length is None else f", at most {args.max_length} rules")
    )
    header = (
        f"{'lam':>6} {'case':<11} {'status':<9} {'objective':>9} {'lower_bd':>9} "
        f"{'expanded':>9} {'children':>11} {'peak_trie':>9} {'seconds':>8} "
        f"{'child/s':>9} {'wall_s':>7} {'RSS_MB':>7} {'B/node':>6} {'cert':>5}"
        + (
            ""
            if args.groups == "paper" and args.weights == "none"
            else f" {'groups':>6} {'rows':>5} {'classes':>7}"
        )
    )
    for lam in args.lam:
        args.lam = lam
        if args.like_for_like:
            like_for_like(args, reference_python)
            continue
        print(header)
        for case in args.cases:
            r = run_ours(args, case)
            print_row(lam, case, r, groups=args.groups != "paper" or args.weights != "none")


def print_row(lam: float | str, case: str, r: dict, groups: bool = False) -> None:
    """One line of the table; ``groups``: also the groups, rows and classes searched."""
    rate = r["children_evaluated"] / max(r["seconds"], 1e-9)
    per_node = bytes_per_node(r["peak_rss_mb"], r["rss_before_mb"], r["peak_trie_size"])
    print(
        f"{lam:>6} {case:<11} {r['status']:<9} {r['objective']:>9.6f} "
        f"{r['lower_bound']:>9.6f} {r['nodes_expanded']:>9,} "
        f"{r['children_evaluated']:>11,} {r['peak_trie_size']:>9,} "
        f"{r['seconds']:>8.2f} {rate:>9.3g} {r['wall_seconds']:>7.2f} "
        f"{r['peak_rss_mb']:>7.0f} {per_node:>6.0f} {certified(r):>5}"
        + (f" {r['n_groups']:>6} {r['n_rows']:>5} {r['n_sample_classes']:>7}" if groups else ""),
        flush=True,
    )


def certified(r: dict) -> str:
    """Rules up to which no list beats the result: all when optimal, else the length
    deepening's certificate ('-' when there is none)."""
    if r["status"] == "optimal":
        return "all"
    return str(r.get("certified_length") or "-")


if __name__ == "__main__":
    main()
