"""Issue 23, the precondition of a suffix-front memo: how often does an uncaptured set recur?

A suffix Pareto front (STreeD-style) is a function of the uncaptured samples and the rules left;
memoised per uncaptured set, it serves every prefix with that set.  The engine's permutation map
already merges prefixes with the same captured samples *and* the same metric counts on them
(positives per group for SP, true positives per group for EOpp), keeping the one with fewer
errors and no more rules.  What a memo adds beyond the map is the prefixes whose uncaptured set
recurs with *different* metric counts.

The search is rebuilt in Python breadth-first, as ``bench_bound_gaps.py`` rebuilds it (class
bound with lookahead against the engine's incumbent after ``--incumbent-nodes`` trie nodes; the
permutation map as the engine keys it), every queued prefix of a depth expanded before the next,
until ``--nodes`` prefixes are queued.  Per depth:

    children   children generated (capturing something) below the expanded prefixes
    merged     dropped by the permutation map (equal key, no fewer errors, no fewer rules)
    queued     kept by the class bound with lookahead (the trie nodes)
    sets       distinct uncaptured sets among the queued prefixes
    shared     share of queued prefixes whose set another queued prefix (of this or a
               shallower depth) has with other counts: the prefixes a memo could serve
    hits       queued - new sets (sets first seen at this depth): the lookups a memo keyed by
               the set alone would answer from an earlier entry

    python benchmarks/bench_suffix_recurrence.py --metric SP --lam 0.005 --nodes 200000
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from bench_bound_gaps import Classes, case_parser, class_program, incumbent, rate_rows


def metric_key(metric: str, pos: np.ndarray) -> tuple[int, int]:
    """The counts the permutation map keys on: positives per group (SP), true positives (EOpp)."""
    v = pos.sum(axis=1) if metric == "SP" else pos[:, 1]
    return int(round(v[0])), int(round(v[1]))


def expand(cl, ctx, parent, depth):
    """The children of ``parent`` (captured, pos, err) that pass the equivalent-points bound."""
    captured, pos, err = parent
    new = cl.rules & ~captured
    live = np.flatnonzero(new.any(axis=1))
    seg = np.einsum("ac,cgl->agl", new[live], cl.counts)
    ep_left = ctx["ep_class"][~captured].sum() - new[live].astype(float) @ ctx["ep_class"]
    for p in (0, 1):
        c_err = err + seg[:, :, 1 - p].sum(-1)
        ok = (c_err + ep_left) / cl.n + ctx["lam"] * (depth + 1) < ctx["best"]
        for i in np.flatnonzero(ok):
            yield captured | new[live[i]], pos + p * seg[i], c_err[i]


def main() -> None:
    ap = case_parser(__doc__, metrics=("SP", "EOpp"))
    ap.add_argument("--nodes", type=int, default=200_000, help="queued prefixes rebuilt")
    args = ap.parse_args()
    cl = Classes(pd.read_csv(args.data))
    gaps = rate_rows(args.metric, cl.group_label)
    best = incumbent(args)
    ctx = {
        "best": best,
        "lam": args.lam,
        "ep_class": np.minimum(cl.counts[:, :, 0].sum(1), cl.counts[:, :, 1].sum(1)),
    }
    print(
        f"{args.metric} <= {args.epsilon}, lambda {args.lam}: incumbent {best:.6f} "
        f"({args.max_nodes:,} nodes); breadth-first until {args.nodes:,} queued"
    )
    print(
        f"{'depth':>5} {'children':>9} {'merged':>8} {'queued':>8} {'sets':>8} {'shared':>7} "
        f"{'hits':>8} {'counts/set':>10}"
    )
    seen_sets: dict = {}  # set -> metric counts seen with it (queued prefixes)
    for depth, stats, queued in rebuild(cl, ctx, gaps, args):
        print(line(depth, stats, queued, seen_sets), flush=True)


def rebuild(cl, ctx, gaps, args):
    """Breadth-first, until ``args.nodes`` are queued: yields (depth, stats, queued) per depth,
    ``queued`` a list of ((set bytes, metric counts), (captured, pos, err))."""
    seen_map: dict = {}  # (set, metric counts) -> fewest errors (shallower depths first)
    level = [(np.zeros(len(cl.counts), bool), np.zeros((2, 2)), 0.0)]
    total = 0
    for depth in range(1, 20):
        stats = {"children": 0, "merged": 0}
        queued = []
        lp_memo: dict = {}
        for parent in level:
            for child in expand(cl, ctx, parent, depth):
                stats["children"] += 1
                key = (np.packbits(child[0]).tobytes(), metric_key(args.metric, child[1]))
                if key in seen_map and seen_map[key] <= child[2]:
                    stats["merged"] += 1
                    continue
                seen_map[key] = child[2]
                if key not in lp_memo:
                    lp = class_program(cl, gaps, args.epsilon, child[1], ~child[0], False)
                    lp_memo[key] = np.ceil(lp - 1e-7)
                bound = (child[2] + lp_memo[key]) / cl.n + args.lam * (depth + 1)
                if bound < ctx["best"]:
                    queued.append((key, child))
            if total + len(queued) >= args.nodes:
                break
        if not queued:
            return
        total += len(queued)
        yield depth, stats, queued
        level = [c for _, c in queued]
        if total >= args.nodes:
            return


def line(depth, stats, queued, seen_sets) -> str:
    """One depth's row; updates ``seen_sets`` with the queued prefixes' sets and counts."""
    fresh = {key[0] for key, _ in queued} - set(seen_sets)
    for key, _ in queued:
        seen_sets.setdefault(key[0], set()).add(key[1])
    sets = {key[0] for key, _ in queued}
    shared = np.mean([len(seen_sets[key[0]]) > 1 for key, _ in queued])
    per_set = np.mean([len(seen_sets[s]) for s in sets])
    return (
        f"{depth:>5} {stats['children']:>9,} {stats['merged']:>8,} {len(queued):>8,} "
        f"{len(sets):>8,} {shared:>7.2f} {len(queued) - len(fresh):>8,} {per_set:>10.2f}"
    )


if __name__ == "__main__":
    main()
