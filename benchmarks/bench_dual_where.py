"""Where the dual path's time goes (issue 36): at each ``--lengths`` cap, on the paper's COMPAS
data (SP <= 0.05, lambda 0.005, ``nu`` fixed by ``--nu``, default 0.5, what ``dual_bound``
picks at <= 3 rules), the three stages of ``BnBSolver(dual="on")`` measured one by one:

1. the beam's first fair list (the incumbent the threshold starts from);
2. the relaxed (costed) problem solved for its optimum alone (:func:`fairlist.dual.
   lagrangian_bound`, best-first by lower bound, the engine's defaults): whether it certified,
   its CPU seconds and expansions, ``L(nu)`` (its proved lower bound less the penalty ``|nu|
   epsilon``) and the best relaxed list found (less the penalty: ``L(nu)`` when certified);
3. the enumeration under the threshold ``incumbent + |nu| epsilon``
   (:func:`fairlist.dual.certify_by_dual`): complete or not, CPU seconds, expansions, the lists
   it held, the relaxed value below which every list was enumerated (``enumerated_below``, less
   the penalty to compare with the fair objectives) and the Python checks' CPU seconds.

Each stage is bounded by ``--time-limit`` (wall seconds; the machine may be shared: the CPU
seconds are the figures to compare). The enumeration expands every prefix whose relaxed bound
lies below the threshold, so it cannot finish before the relaxed problem's own certificate
would (every prefix that search expands lies below its optimum, which lies below the
threshold): stage 2 bounds stage 3 from below. One process pinned to one core.

    python benchmarks/bench_dual_where.py --lengths 4 5          # about 2 min
    python benchmarks/bench_dual_where.py --lengths 6 --time-limit 240
"""

from __future__ import annotations

import argparse
import math
import os
import time
from pathlib import Path

from bench_dual import problem

from fairlist.dual import certify_by_dual, lagrangian_bound
from fairlist.solvers import Limits, Problem
from fairlist.solvers.bnb import BnBSolver

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT.parent / "shared" / "data" / "faircorels" / "compas_rules_full.csv"


def compas(path: Path, max_length: int, time_limit: float | None, max_nodes=None) -> Problem:
    return problem(path, max_length, Limits(time_limit=time_limit, max_nodes=max_nodes))


def stages(path: Path, length: int, nu: float, time_limit: float) -> dict:
    """The three stages at ``length`` rules (see the module docstring)."""
    out: dict = {"length": length}
    cpu = time.process_time()
    beam = BnBSolver(policy="lower_bound").solve(compas(path, length, None, max_nodes=1))
    out["beam"] = (beam.objective, time.process_time() - cpu)
    problem = compas(path, length, time_limit)
    b = lagrangian_bound(problem, nu, policy="lower_bound")
    best = b.constant + b.scale * b.relaxed.objective - b.penalty if b.relaxed else math.nan
    nodes = b.relaxed.stats.get("nodes_expanded", 0) if b.relaxed else 0
    out["relaxed"] = (b.certified, b.cpu_seconds, nodes, b.bound, best)
    cert = certify_by_dual(problem, beam.rule_list, nu, max_lists=None, policy="lower_bound")
    reached = cert.enumerated_below - cert.penalty
    out["enumeration"] = (
        cert.certified,
        cert.cpu_seconds,
        cert.stats.get("nodes_expanded", 0),
        cert.n_held,
        cert.n_checked,
        cert.stats.get("checks_cpu_seconds", 0.0),
        cert.threshold - cert.penalty,
        reached,
        cert.objective,
    )
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", type=Path, default=DATA)
    ap.add_argument("--lengths", type=int, nargs="+", default=[4, 5])
    ap.add_argument("--nu", type=float, default=0.5)
    ap.add_argument("--time-limit", type=float, default=120.0, help="seconds per stage")
    args = ap.parse_args()
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {sorted(os.sched_getaffinity(0))[-1]})
    print(
        f"load average {os.getloadavg()[0]:.2f}; SP <= 0.05, lambda 0.005, nu {args.nu}; "
        f"{args.time_limit:g} s a stage; CPU seconds; objectives in the fair scale "
        "(relaxed values less |nu| epsilon)"
    )
    for length in args.lengths:
        s = stages(args.data, length, args.nu, args.time_limit)
        beam, cpu = s["beam"]
        print(f"# at most {length} rules: the beam's list {beam:.6f} ({cpu:.2f} s)")
        certified, cpu, nodes, bound, best = s["relaxed"]
        print(
            f"  relaxed solve: {'certified' if certified else 'not certified'}, {cpu:.1f} s, "
            f"{nodes:,} expansions, L(nu) >= {bound:.6f}, best relaxed list {best:.6f}"
        )
        done, cpu, nodes, held, checked, checks, threshold, reached, objective = s["enumeration"]
        reach = "complete" if done else f"enumerated below {reached:.6f} only"
        print(
            f"  enumeration: {reach} (threshold {threshold:.6f}), {cpu:.1f} s, {nodes:,} "
            f"expansions, {held:,} lists held, {checked:,} checked in {checks:.2f} s; best fair "
            f"{objective:.6f}",
            flush=True,
        )


if __name__ == "__main__":
    main()
