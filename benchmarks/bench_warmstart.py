"""What the CP-SAT warm start (``warm_start_engine="cpsat"``) buys the branch-and-bound, one core.

For each instance the same problem is solved twice, cold (the search's own beam search gives
the first incumbent) and warm (a CP-SAT run of ``--seconds`` first, its list handed over as the
first incumbent; ``fairlist.solvers.warmstart``), on one thread each (bnb ``n_jobs=1``, CP-SAT
one worker):

(a) time to certificate: no node limit, a time limit of ``--cert-limit`` seconds as a safety
    net; wall and CPU seconds (``time.process_time``: CP-SAT's and the search's threads), nodes
    expanded, the status and objective;
(b) the gap at equal wall time: both under the same time limit ``--equal`` (the warm start's
    seconds come out of it), the objective, lower bound and gap each reaches.

The ratios ``warm / cold`` are printed beside each pair (below 1: the warm start helped). The
instances: the paper's binarized COMPAS (5,273 rows, 163 antecedents; the ``../shared/data``
file of ``tests/conftest.py``) under SP, EOdds and EOpp caps, and the synthetic census-like table
(``fairlist.synthetic.make_wide_table``, ID-like columns left out, binarized to 300
antecedents with ``column:missing`` ones, 6 % positives, ``lam="auto"``).

Run from the repository root (venv active)::

    python benchmarks/bench_warmstart.py                       # every instance
    python benchmarks/bench_warmstart.py --instances compas-sp4 --seconds 2 --equal 5
"""

from __future__ import annotations

import argparse
import sys
import time
import warnings
from pathlib import Path

import numpy as np

from fairlist.solvers import Limits, Problem
from fairlist.solvers.bnb import BnBSolver

DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "faircorels"
DATA = DATA / "compas_rules_full.csv"


def compas(**fields) -> Problem:
    """The paper's binarized COMPAS file (column 0 the protected group, the last the label)."""
    import pandas as pd

    if not DATA.is_file():
        sys.exit(f"COMPAS file not found at {DATA}")
    data = pd.read_csv(DATA)
    cols = list(range(2, data.shape[1] - 1))
    return Problem(
        data.iloc[:, cols].to_numpy(np.uint8),
        data.iloc[:, -1].to_numpy(np.uint8),
        data.iloc[:, 0].to_numpy(bool),
        feature_names=list(data.columns[cols]),
        **fields,
    )


def wide(rows: int, **fields) -> Problem:
    """The synthetic wide table, binarized as ``fit`` would (through the estimator)."""
    from fairlist.binarize import Binarizer
    from fairlist.estimator import FairRuleListClassifier
    from fairlist.synthetic import make_wide_table

    t = make_wide_table(rows, seed=0)
    X = t.X.drop(columns=list(t.id_like))
    clf = FairRuleListClassifier(
        binarizer=Binarizer(max_antecedents=300, handle_missing="category"),
        time_limit=None,
        **{k: v for k, v in fields.items() if k in ("metric", "epsilon", "lam", "max_length")},
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return clf.prepare(X, t.y, t.sensitive)


#: name -> how to build it (the data, the metric and cap, lambda, the length bound)
INSTANCES = {
    "compas-sp4": lambda a: compas(metric="SP", epsilon=0.05, lam=0.005, max_length=4),
    "compas-eodds4": lambda a: compas(metric="EOdds", epsilon=0.05, lam=0.005, max_length=4),
    "compas-sp5": lambda a: compas(metric="SP", epsilon=0.02, lam=0.005, max_length=5),
    "compas-open": lambda a: compas(metric="SP", epsilon=0.05, lam=0.001),
    "compas-tight": lambda a: compas(metric="EOpp", epsilon=0.005, lam=0.001, max_length=4),
    "wide-sp3": lambda a: wide(a.rows, metric="SP", epsilon=0.02, max_length=3),
    "wide-sp4": lambda a: wide(a.rows, metric="SP", epsilon=0.02, max_length=4),
}


def solve(problem: Problem, time_limit: float | None, seconds: float | None) -> dict:
    """One solve on one core; ``seconds`` None: cold."""
    options = (
        {} if seconds is None else {"warm_start_engine": "cpsat", "warm_start_seconds": seconds}
    )
    limited = problem.with_limits(Limits(time_limit=time_limit))
    wall, cpu = time.perf_counter(), time.process_time()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = BnBSolver(n_jobs=1, **options).solve(limited)
    handed = result.stats.get("warm_start_cpsat", {})
    return {
        "wall": time.perf_counter() - wall,
        "cpu": time.process_time() - cpu,
        "nodes": int(result.stats.get("nodes_expanded", 0)),
        "status": str(result.status),
        "objective": result.objective,
        "lower": result.lower_bound,
        "gap": result.gap,
        "handed": handed.get("objective"),
        "outcome": handed.get("outcome", "-"),
        "cpsat_s": handed.get("seconds", 0.0),
        "beam": result.stats.get("beam_objective"),
    }


def _objective(value: float | None) -> str:
    return "nothing" if value is None else f"{value:.6f}"


def ratio(warm: float, cold: float) -> str:
    return f"{warm / cold:6.2f}" if cold > 0 else "     -"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--instances", nargs="+", default=list(INSTANCES), choices=list(INSTANCES))
    ap.add_argument("--seconds", type=float, default=5.0, help="the warm start's seconds")
    ap.add_argument("--cert-limit", type=float, default=300.0, help="(a)'s safety net, s")
    ap.add_argument("--equal", type=float, default=20.0, help="(b)'s time limit, s")
    ap.add_argument("--rows", type=int, default=20_000, help="rows of the wide table")
    ap.add_argument("--skip", choices=["cert", "equal"], help="leave out (a) or (b)")
    args = ap.parse_args()
    print(
        f"CP-SAT warm start of {args.seconds:g} s vs none; one core (bnb n_jobs=1, CP-SAT 1 "
        f"worker); (a) to the certificate (limit {args.cert_limit:g} s), (b) gap at "
        f"{args.equal:g} s of wall time"
    )
    for name in args.instances:
        problem = INSTANCES[name](args)
        print(
            f"\n{name}: {problem.n_samples:,} rows, {problem.n_antecedents} antecedents, "
            f"{problem.metric.short_name} <= {problem.epsilon}, lam {problem.lam:.6g}, "
            f"at most {problem.max_length} rules",
            flush=True,
        )
        if args.skip != "cert":
            cold = solve(problem, args.cert_limit, None)
            warm = solve(problem, args.cert_limit, args.seconds)
            print(
                f"  (a) cold: {cold['status']:<8} {cold['wall']:7.1f} s wall {cold['cpu']:7.1f} "
                f"s CPU {cold['nodes']:>11,} nodes  objective {cold['objective']:.6f} "
                f"(beam {cold['beam']:.6f})"
            )
            print(
                f"      warm: {warm['status']:<8} {warm['wall']:7.1f} s wall {warm['cpu']:7.1f} "
                f"s CPU {warm['nodes']:>11,} nodes  objective {warm['objective']:.6f} "
                f"(CP-SAT {warm['cpsat_s']:.1f} s handed {_objective(warm['handed'])}, "
                f"{warm['outcome']})"
            )
            print(
                f"      warm/cold: wall {ratio(warm['wall'], cold['wall'])}  CPU "
                f"{ratio(warm['cpu'], cold['cpu'])}  nodes {ratio(warm['nodes'], cold['nodes'])}",
                flush=True,
            )
        if args.skip != "equal":
            cold = solve(problem, args.equal, None)
            warm = solve(problem, args.equal, args.seconds)
            for label, r in (("cold", cold), ("warm", warm)):
                print(
                    f"  (b) {label}: {r['status']:<8} objective {r['objective']:.6f} bound "
                    f"{r['lower']:.6f} gap {r['gap']:.6f}  {r['nodes']:>11,} nodes "
                    f"{r['cpu']:6.1f} s CPU" + (f" ({r['outcome']})" if label == "warm" else "")
                )
            print(f"      gap warm - cold: {warm['gap'] - cold['gap']:+.6f}", flush=True)


if __name__ == "__main__":
    main()
