"""Issue 35's targets: the Rashomon set counted in classifiers, and the certified fairest list
within delta (fairlist.fairest_within) against enumerating the set and taking its fairest
member (the baseline), in the same run.

COMPAS (the paper's binarized file), statistical parity <= 0.05, lambda 0.01, at most 4 rules,
delta 0.01 (3,304 lists) and 0.02 (203,337 lists). Each run is a process pinned to one core;
printed per run: CPU seconds, the set's lists and classifiers (enumeration), the answer
(unfairness, objective, status) and the steps (fairest_within), then the ratio of CPU seconds
to the enumeration. ``--methods`` picks fairest_within's methods (fairlist.fairest: ``front``,
the default, one search keeping the set's Pareto front of (objective, unfairness); ``ceiling``,
the optimum then the core's fairest mode under the objective ceiling; ``caps``, the first
method, run once per ``--max-lists``: its default, 1,000,000, enumerates both sets at once;
2,000 forces the bisection of caps).

    FAIRLIST_DATA_HOME=../shared/data python benchmarks/bench_fairest.py
    python benchmarks/bench_fairest.py --deltas 0.02 --methods front caps --max-lists 1000000
    python benchmarks/bench_fairest.py --deltas 0.03 0.05 --methods front ceiling --no-enumerate

(``--no-enumerate``: no baseline, for deltas whose set is too large to hold: at 0.05 the
enumeration passes 9 GB.)
"""

from __future__ import annotations

import argparse
import multiprocessing as mp
import os
import time

from bench_rashomon import _problem


def _run(args: tuple) -> dict:
    how, delta, max_lists, method = args
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {sorted(os.sched_getaffinity(0))[-1]})
    from fairlist.fairest import search_fairest
    from fairlist.rashomon import search_rashomon

    problem = _problem("compas", 4, 600.0)
    cpu = time.process_time()
    if how == "enumerate":
        rs = search_rashomon(problem, delta, None)
        search_cpu = time.process_time() - cpu
        n_classifiers = rs.n_classifiers
        i = rs.fairest()
        row = rs.to_frame(i, i + 1, columns=["objective", "SP"])
        out = {
            "lists": len(rs),
            "classifiers": n_classifiers,
            "complete": rs.complete,
            "unfairness": float(row["SP"].iloc[0]),
            "objective": float(row["objective"].iloc[0]),
            "search_cpu": search_cpu,
        }
    else:
        found = search_fairest(problem, delta, max_lists=max_lists, method=method)
        out = {
            "status": found.status,
            "unfairness": found.unfairness,
            "objective": found.objective,
            "steps": [
                f"{s['kind']}@{s['cap']:.4g}:{s['outcome']}({s['lists']}, {s['seconds']:.2f} s)"
                for s in found.steps
            ],
            "certificate": found.certificate,
        }
    out["cpu"] = time.process_time() - cpu
    return out


def _once(args: tuple) -> dict:
    with mp.get_context("spawn").Pool(1) as pool:
        return pool.apply(_run, (args,))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deltas", nargs="+", type=float, default=[0.01, 0.02])
    parser.add_argument("--methods", nargs="+", default=["front", "ceiling", "caps"])
    parser.add_argument("--max-lists", nargs="+", type=int, default=[1_000_000, 2_000])
    parser.add_argument(
        "--enumerate",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="the baseline (--no-enumerate: where the set is too large to hold)",
    )
    args = parser.parse_args()
    runs = [(m, 1_000_000) for m in args.methods if m != "caps"]
    runs += [("caps", n) for n in args.max_lists if "caps" in args.methods]
    for delta in args.deltas:
        if not args.enumerate:
            for method, max_lists in runs:
                r = _once(("fairest", delta, max_lists, method))
                print(
                    f"delta {delta:g} fairest_within(method={method}): {r['status']}, SP "
                    f"{r['unfairness']:.6f} at objective {r['objective']:.6f}; cpu "
                    f"{r['cpu']:.2f} s; steps {' '.join(r['steps'])}",
                    flush=True,
                )
            continue
        base = _once(("enumerate", delta, None, None))
        print(
            f"delta {delta:g} enumerate: {base['lists']} lists, {base['classifiers']} "
            f"classifiers, complete {base['complete']}; fairest SP {base['unfairness']:.6f} at "
            f"objective {base['objective']:.6f}; cpu {base['cpu']:.2f} s (search "
            f"{base['search_cpu']:.2f} s, grouping and fairest "
            f"{base['cpu'] - base['search_cpu']:.2f} s)",
            flush=True,
        )
        for method, max_lists in runs:
            r = _once(("fairest", delta, max_lists, method))
            same = abs(r["unfairness"] - base["unfairness"]) <= 1e-12
            same = same and abs(r["objective"] - base["objective"]) <= 1e-12
            how = f"method={method}" + (f", max_lists={max_lists}" if method == "caps" else "")
            print(
                f"delta {delta:g} fairest_within({how}): {r['status']}, SP "
                f"{r['unfairness']:.6f} at objective {r['objective']:.6f} (same as the set: "
                f"{same}); cpu {r['cpu']:.2f} s, x{r['cpu'] / max(base['cpu'], 1e-9):.2f} of "
                f"enumerating; steps {' '.join(r['steps'])}",
                flush=True,
            )
            print(f"  {r['certificate']}", flush=True)


if __name__ == "__main__":
    main()
