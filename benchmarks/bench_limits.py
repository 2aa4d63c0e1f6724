"""Do the limits hold? Wall time, CP-SAT model-build time and peak memory per engine on synthetic
tables of growing size, under a time limit.

Each (engine, size) runs in a fresh Python process, so that its peak resident memory
(``ru_maxrss``) is its own. The wall time is measured around ``FairRuleListClassifier.fit``
with the given ``--time-limit``: the limit is meant to cover data preparation and model building
too, so ``wall`` should stay within the limit plus a small margin.

Usage::

    python benchmarks/bench_limits.py                       # 100,000 and 300,000 rows x 20
    python benchmarks/bench_limits.py --rows 1000000 --time-limit 10

The table: ``m`` random antecedents (each 1 with probability 0.3, so nearly every row of 20
antecedents is distinct), a label that follows two of them with 10% noise, two random groups.
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import time
import warnings


def synthetic(n: int, m: int, seed: int = 0):
    """Antecedents, labels and a protected mask of the benchmark table."""
    import numpy as np

    rng = np.random.default_rng(seed)
    X = (rng.random((n, m)) < 0.3).astype(np.uint8)
    y = ((X[:, 0] | X[:, 1]) ^ (rng.random(n) < 0.1)).astype(np.uint8)
    groups = rng.random(n) < 0.4
    return X, y, groups


def run_one(engine: str, n: int, m: int, time_limit: float, max_length: int) -> dict:
    """One fit in this process: what the parent prints."""
    from fairlist import FairRuleListClassifier
    from fairlist.errors import InfeasibleError

    X, y, groups = synthetic(n, m)
    clf = FairRuleListClassifier(
        epsilon=0.05,
        lam=0.001,
        max_length=max_length,
        engine=engine,
        time_limit=time_limit,
        max_nodes=None,
    )
    start = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            clf.fit(X, y, sensitive_features=groups)
            result = clf.result_
        except InfeasibleError as exc:
            result = exc.result
    wall = time.perf_counter() - start
    return {
        "engine": engine,
        "rows": n,
        "antecedents": m,
        "wall_s": round(wall, 2),
        "build_s": round(result.stats.get("build_seconds", float("nan")), 2),
        "status": str(result.status),
        "stop": str(result.stop_reason),
        "objective": result.objective,
        "patterns": result.stats.get("n_patterns", result.stats.get("n_rows")),
        "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024),
        "message": result.stats.get("message", ""),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, nargs="+", default=[100_000, 300_000])
    parser.add_argument("--antecedents", type=int, default=20)
    parser.add_argument("--engines", nargs="+", default=["bnb", "cpsat"])
    parser.add_argument("--time-limit", type=float, default=10.0)
    parser.add_argument("--max-length", type=int, default=3)
    parser.add_argument("--one", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one:
        doc = run_one(
            args.engines[0], args.rows[0], args.antecedents, args.time_limit, args.max_length
        )
        print(json.dumps(doc))
        return
    print(f"time limit {args.time_limit} s, max_length {args.max_length}")
    print(f"{'engine':6} {'rows':>9} {'wall s':>7} {'build s':>7} {'RSS MB':>7}  status (stop)")
    for n in args.rows:
        for engine in args.engines:
            cmd = [
                sys.executable,
                __file__,
                "--one",
                "--engines",
                engine,
                "--rows",
                str(n),
                "--antecedents",
                str(args.antecedents),
                "--time-limit",
                str(args.time_limit),
                "--max-length",
                str(args.max_length),
            ]
            out = subprocess.run(cmd, capture_output=True, text=True, check=False)
            if out.returncode != 0:
                print(f"{engine:6} {n:>9} failed: {out.stderr.strip().splitlines()[-1:]}")
                continue
            d = json.loads(out.stdout.strip().splitlines()[-1])
            print(
                f"{engine:6} {n:>9} {d['wall_s']:>7} {d['build_s']:>7} {d['peak_rss_mb']:>7}  "
                f"{d['status']} ({d['stop']}) {d['message']}"
            )


if __name__ == "__main__":
    main()
