"""Cost per call of the exact fairness lower bound (native/src/fairness_bound.cpp).

Prints nanoseconds per call for each metric on COMPAS-sized counts (protected group 3,175
samples, 52% positive; unprotected 2,103, 39% positive) at epsilon 0.05 and 0.01. Each row is
the mean over random search-like states: a share of the samples is uncaptured, the captured part
predicted positive at similar (jittered) rates in both groups. States whose error-free completion
is already fair (the O(1) fast path) are reported separately from the rest.

    python benchmarks/bench_fairness_bound.py [--states 200] [--repeats 2000]
"""

from __future__ import annotations

import argparse

import numpy as np

from fairlist import _bound
from fairlist.metrics import Metric


def state(rng: np.random.Generator, sizes=(3175, 2103), shares=(0.52, 0.39)):
    """One random prefix state: fixed counts and uncaptured counts of both groups."""
    uncaptured = rng.uniform(0.05, 0.9)
    share_pos, share_neg = rng.uniform(0.2, 0.9), rng.uniform(0.05, 0.5)
    out = []
    for n, s in zip(sizes, shares, strict=True):
        pos = int(n * s)
        neg = n - pos
        upos, uneg = int(rng.binomial(pos, uncaptured)), int(rng.binomial(neg, uncaptured))
        p1 = float(np.clip(share_pos + rng.normal(0, 0.08), 0, 1))
        p0 = float(np.clip(share_neg + rng.normal(0, 0.08), 0, 1))
        tp, fp = int(rng.binomial(pos - upos, p1)), int(rng.binomial(neg - uneg, p0))
        out.append(((tp, fp, neg - uneg - fp, pos - upos - tp), (upos, uneg)))
    (fp_, up), (fu, uu) = out
    return fp_, fu, up, uu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--states", type=int, default=200, help="random states per row")
    parser.add_argument("--repeats", type=int, default=2000, help="calls per state")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()

    print(
        f"{'metric':6} {'eps':>5} {'fast':>5} {'ns/call fast':>13} {'slow':>5} "
        f"{'ns/call slow (mean / max)':>26} {'infeasible':>10} {'mean errors':>11}"
    )
    for metric in Metric:
        for eps in (0.05, 0.01):
            rng = np.random.default_rng(args.seed)
            fast, slow, infeasible, errors = [], [], 0, []
            for _ in range(args.states):
                s = state(rng)
                feasible, e = _bound.fairness_lower_bound(int(metric), eps, *s)
                seconds = _bound.time_bound(int(metric), eps, *s, args.repeats)
                (fast if feasible and e == 0 else slow).append(seconds * 1e9)
                if not feasible:
                    infeasible += 1
                elif e:
                    errors.append(e)

            def fmt(v):
                return f"{np.mean(v):13.0f}" if v else f"{'-':>13}"

            slow_txt = f"{np.mean(slow):12.0f} / {np.max(slow):11.0f}" if slow else "-"
            mean_err = f"{np.mean(errors):11.1f}" if errors else f"{'-':>11}"
            print(
                f"{metric.short_name:6} {eps:5.2f} {len(fast):5d} {fmt(fast)} {len(slow):5d} "
                f"{slow_txt:>26} {infeasible:10d} {mean_err}"
            )


if __name__ == "__main__":
    main()
