"""Cost per call of the fairness lower bounds (native/src/fairness_bound.cpp and
fairness_bound_groups.cpp).

Prints nanoseconds per call for each metric on COMPAS-sized counts (protected group 3,175
samples, 52% positive; unprotected 2,103, 39% positive) at epsilon 0.05 and 0.01. Each row is
the mean over random search-like states: a share of the samples is uncaptured, the captured part
predicted positive at similar (jittered) rates in both groups. States whose error-free completion
is already fair (the O(1) fast path) are reported separately from the rest.

``--groups K`` (K >= 2, repeatable) times the real-valued bound over K groups instead (the one
the search uses with more than two groups or with sample weights), on states whose groups have
the sizes of COMPAS's races (3,175, 2,103, 509, 343, 31, 11 defendants, repeated past six); with
K = 2 it also prints how many errors below the exact integer bound it is on average.

    python benchmarks/bench_fairness_bound.py [--states 200] [--repeats 2000]
    python benchmarks/bench_fairness_bound.py --groups 2 --groups 6 --groups 12
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


RACE_SIZES = (3175, 2103, 509, 343, 31, 11)


def group_state(rng: np.random.Generator, k: int):
    """A random prefix state over k groups (COMPAS race sizes, 45% positive, jittered rates)."""
    uncaptured = rng.uniform(0.05, 0.9)
    share_pos, share_neg = rng.uniform(0.2, 0.9), rng.uniform(0.05, 0.5)
    fixed, free = [], []
    for g in range(k):
        n = RACE_SIZES[g % len(RACE_SIZES)]
        pos = int(n * float(np.clip(rng.normal(0.45, 0.07), 0.05, 0.95)))
        neg = n - pos
        upos, uneg = int(rng.binomial(pos, uncaptured)), int(rng.binomial(neg, uncaptured))
        p1 = float(np.clip(share_pos + rng.normal(0, 0.08), 0, 1))
        p0 = float(np.clip(share_neg + rng.normal(0, 0.08), 0, 1))
        tp, fp = int(rng.binomial(pos - upos, p1)), int(rng.binomial(neg - uneg, p0))
        fixed.append((tp, fp, neg - uneg - fp, pos - upos - tp))
        free.append((upos, uneg))
    return fixed, free


def time_groups(args: argparse.Namespace) -> None:
    print(
        f"{'metric':6} {'k':>3} {'eps':>5} {'ns/call (mean / max)':>22} {'infeasible':>10} "
        f"{'mean errors':>11}" + (f" {'below exact':>11}" if 2 in args.groups else "")
    )
    for k in args.groups:
        for metric in Metric:
            for eps in (0.05, 0.01):
                rng = np.random.default_rng(args.seed)
                times, infeasible, errors, below = [], 0, [], []
                for _ in range(args.states):
                    fixed, free = group_state(rng, k)
                    feasible, e = _bound.group_fairness_lower_bound(int(metric), eps, fixed, free)
                    times.append(
                        _bound.time_group_bound(int(metric), eps, fixed, free, args.repeats) * 1e9
                    )
                    if not feasible:
                        infeasible += 1
                        continue
                    errors.append(e)
                    if k == 2:
                        ok, exact = _bound.fairness_lower_bound(int(metric), eps, *fixed, *free)
                        if ok:
                            below.append(exact - e)
                mean_err = f"{np.mean(errors):11.1f}" if errors else f"{'-':>11}"
                gap = f" {np.mean(below):11.2f}" if below else ""
                print(
                    f"{metric.short_name:6} {k:3d} {eps:5.2f} "
                    f"{np.mean(times):10.0f} / {np.max(times):9.0f} {infeasible:10d} {mean_err}"
                    + gap
                )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--states", type=int, default=200, help="random states per row")
    parser.add_argument("--repeats", type=int, default=2000, help="calls per state")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--groups",
        type=int,
        action="append",
        help="time the real-valued bound over this many groups (repeatable)",
    )
    args = parser.parse_args()
    if args.groups:
        if min(args.groups) < 2 or max(args.groups) > 64:
            parser.error("--groups must be between 2 and 64")
        time_groups(args)
        return

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
