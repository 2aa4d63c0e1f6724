"""Run the reference implementation (the ``faircorels`` PyPI package) as a black box.

This script is meant to run in a *separate* virtual environment holding ``faircorels`` (it needs
old pins: setuptools<60, numpy<2, cython<3, joblib, tqdm, scikit-learn<1.6, pandas, installed
with ``pip install --no-build-isolation faircorels``). It never imports fairlist. It prints one
JSON object with the run's figures, so that ``bench_bnb.py`` can call it through
``subprocess`` and put both engines side by side. The package reports its trie size, nodes
expanded and lower bound (the smallest in its queue) only on stdout ("progress" verbosity): the
fit's stdout is captured at the file-descriptor level and those lines are read back.

    $FAIRCORELS_PYTHON benchmarks/faircorels_reference.py DATA.csv --metric 1 \
        --max-unfairness 0.05 --lam 0.001 --max-nodes 4000000
"""

from __future__ import annotations

import argparse
import ctypes
import json
import os
import re
import resource
import sys
import tempfile
import time

import numpy as np

# Shims the package needs on current Python / NumPy (documented by its users).
time.clock = time.process_time  # type: ignore[attr-defined]
np.bool = bool  # type: ignore[attr-defined]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("data", help="binarized CSV: 2 group columns, antecedents, label last")
    ap.add_argument("--metric", type=int, default=1, help="1 SP 2 PP 3 PE 4 EOpp 5 EOdds 6 CUAE")
    ap.add_argument("--max-unfairness", type=float, default=None, help="omit: unconstrained")
    ap.add_argument("--lam", type=float, default=0.001)
    ap.add_argument("--max-nodes", type=int, default=4_000_000)
    ap.add_argument("--policy", default="bfs")
    ap.add_argument("--map-type", default="prefix")
    ap.add_argument(
        "--unfairness-lb",
        action="store_true",
        help="turn on the package's CP-based unfairness bound (SP and EOpp only)",
    )
    ap.add_argument("--time-limit", type=float, default=None, help="CPU seconds for the fit")
    args = ap.parse_args()

    import pandas as pd
    from faircorels import FairCorelsClassifier

    frame = pd.read_csv(args.data)
    protected = frame.iloc[:, 0].to_numpy().astype(int)
    unprotected = frame.iloc[:, 1].to_numpy().astype(int)
    X = frame.iloc[:, 2:-1].to_numpy().astype(np.uint8)
    y = frame.iloc[:, -1].to_numpy().astype(int)
    constrained = args.max_unfairness is not None
    clf = FairCorelsClassifier(
        c=args.lam,
        n_iter=args.max_nodes,
        map_type=args.map_type,
        policy=args.policy,
        verbosity=["progress"],
        max_card=1,  # the antecedents are given: mine nothing more
        min_support=0.0,
        fairness=args.metric,
        maj_vect=unprotected,
        min_vect=protected,
        mode=3 if constrained else 4,
        epsilon=1.0 - args.max_unfairness if constrained else 0.0,
        useUnfairnessLB=args.unfairness_lb,
    )
    # The process's peak RSS before the search: the interpreter, the package and the data.
    rss_before_kib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    start, cpu_start = time.perf_counter(), time.process_time()
    with tempfile.TemporaryFile("w+") as log:
        saved = os.dup(1)
        os.dup2(log.fileno(), 1)
        try:
            clf.fit(
                X,
                y,
                features=list(frame.columns[2:-1]),
                prediction_name=frame.columns[-1],
                time_limit=args.time_limit,
            )
        finally:
            ctypes.CDLL(None).fflush(None)  # the package's printf buffer, into the log
            os.dup2(saved, 1)
        seconds, cpu = time.perf_counter() - start, time.process_time() - cpu_start
        log.seek(0)
        text = log.read()
    pred = np.asarray(clf.predict(X)).astype(int)
    length = len(clf.rl_.rules) - 1
    errors = int(np.sum(pred != y))
    peak_kib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    objective = errors / len(y) + args.lam * length
    if "Exited because queue empty" in text:
        stop = "optimal"
    elif args.time_limit is not None and cpu >= args.time_limit:
        stop = "time_limit"
    else:
        stop = "node_limit"
    # The package prints its trie size after freeing the queue's lazily deleted nodes: below
    # the peak, which is the budget when the budget stopped it.
    trie = int(read(text, r"final num_nodes: (\d+)"))
    queue_bound = float(read(text, r"minimum lower bound in queue: (\S+)"))  # 1.0: queue empty
    json.dump(
        {
            "status": "optimal" if stop == "optimal" else "feasible",
            "stop": stop,
            "trie_nodes": args.max_nodes if stop == "node_limit" else trie,
            "nodes_expanded": int(read(text, r"final num_evaluated: (\d+)")),
            "lower_bound": min(objective, queue_bound),
            "seconds": seconds,
            "cpu_seconds": cpu,
            "peak_rss_mb": peak_kib / 1024,
            "rss_before_fit_mb": rss_before_kib / 1024,
            "objective": objective,
            "accuracy": 1 - errors / len(y),
            "length": length,
            "predictions": pred.tolist(),
            "rule_list": str(clf.rl_),
        },
        sys.stdout,
    )


def read(text: str, pattern: str) -> str:
    match = re.search(pattern, text)
    if match is None:
        raise SystemExit(f"faircorels printed no {pattern!r}: {text[-500:]!r}")
    return match.group(1)


if __name__ == "__main__":
    main()
