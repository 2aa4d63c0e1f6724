"""Issue 23, the cost of a suffix-front memo: how large is the front of an uncaptured set?

For an uncaptured set U and r rules left, the suffix front maps each metric count vector a
completion of U (at most r more rules, then the default) can make to the least cost it makes
with it: errors on U + lam N (rules used).  Count vectors are the metric's per group (SP:
positive predictions, EOpp: true positives).  A prefix with counts x and errors e is beaten by no
completion of at most r more rules when, for every front point (c, cost) with x + c fair,
(e + cost) / N + lam d >= incumbent: exact, and what a memo keyed by U would serve.

No dominance between count vectors is sound: the cap is two-sided (|rate gap| <= eps), so for
any two vectors with different rate gaps some prefix makes one fair and not the other; only
the scalar gap (c1 / n1 - c0 / n0) matters, and on COMPAS it is one-to-one with the pair (n0, n1
coprime for both metrics), so the front is per distinct vector.  It composes exactly: the front
of U at r is the default's points with the points of U minus a first rule at r - 1, shifted by
that rule's counts and cost (min and shift commute), which is how r = 3 is computed here.

Its encoding here: 12 B a point (count_g0, count_g1 as uint32; errors and rules packed in a
uint32, e.g. 26 + 6 bits).  ``ceiling``: the count vectors any labelling of U's classes reaches
(a completion never splits a class), so a bound on the front for every r.

Bucketed variant (``--grid``): per cell of width h = eps / K on the rate gap, only the least
cost.  For a prefix with gap x the fair suffixes have gap in [-eps - x, eps - x]; the least cost
over the cells meeting that interval is at most the exact least (every fair point lies in one
of them): a valid lower bound, which loses only at the two boundary cells.

The sets are the depth-2 queued prefixes' of ``bench_suffix_recurrence.py``'s rebuild (same
incumbent and bounds): the ``--top`` sets with most count vectors, then ``--random`` others.

    python benchmarks/bench_suffix_fronts.py --metric SP --lam 0.005 --top 15 --random 15
"""

from __future__ import annotations

import time

import numpy as np
import pandas as pd
from bench_bound_gaps import TOL, Classes, case_parser, incumbent, rate_rows
from bench_suffix_recurrence import rebuild

SHIFT = 1 << 24  # key = count_g0 * SHIFT + count_g1


def per_class(cl: Classes, metric: str) -> tuple[np.ndarray, np.ndarray]:
    """mc[c, g]: the metric's counts a positive prediction of class c adds; er[c, p]: its
    errors when predicting p."""
    mc = cl.counts.sum(-1) if metric == "SP" else cl.counts[:, :, 1]
    er = np.stack([cl.counts[:, :, 1].sum(1), cl.counts[:, :, 0].sum(1)], 1)
    return mc, er


def reduce(keys: np.ndarray, cost: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per distinct key, the least cost."""
    if len(keys) == 0:
        return keys, cost
    order = np.lexsort((cost, keys))
    keys, cost = keys[order], cost[order]
    first = np.r_[True, keys[1:] != keys[:-1]]
    return keys[first], cost[first]


def _key(c: np.ndarray) -> np.ndarray:
    c = np.rint(c).astype(np.int64)
    return c[..., 0] * SHIFT + c[..., 1]


def front2(cl, mc, er, unc, lam_n) -> tuple[list, list[int]]:
    """Fronts of the completions of exactly 0, 1, 2 more rules, and how many each enumerates."""
    idx = np.flatnonzero(unc)
    m = cl.rules[:, idx]
    m = m[m.any(1)].astype(float)
    mu, eu = mc[idx], er[idx]
    t_mc, t_er = mu.sum(0), eu.sum(0)
    one_mc, one_er = m @ mu, m @ eu
    both_mc = np.einsum("ac,bc,cg->abg", m, m, mu)
    both_er = np.einsum("ac,bc,cp->abp", m, m, eu)
    new2 = (m[None] > m[:, None]).any(-1)  # [a, b]: b captures something a did not
    s2_mc, s2_er = (one_mc[None] - both_mc)[new2], (one_er[None] - both_er)[new2]
    a2 = np.nonzero(new2)[0]
    out: list = [[], [], []]
    for q in (0, 1):
        out[0].append((_key(q * t_mc)[None], t_er[q : q + 1]))
        for p in (0, 1):
            rest_mc, rest_er = t_mc - one_mc, t_er - one_er
            out[1].append((_key(p * one_mc + q * rest_mc), one_er[:, p] + rest_er[:, q] + lam_n))
            for p2 in (0, 1):
                r_mc = t_mc - one_mc[a2] - s2_mc
                r_er = t_er - one_er[a2] - s2_er
                c = p * one_mc[a2] + p2 * s2_mc + q * r_mc
                cost = one_er[a2, p] + s2_er[:, p2] + r_er[:, q] + 2 * lam_n
                out[2].append((_key(c), cost))
    fronts = [reduce(*(np.concatenate(v) for v in zip(*pts, strict=True))) for pts in out]
    return fronts, [2, 4 * len(m), 8 * len(a2)]


def front(cl, mc, er, unc, r: int, lam_n: float) -> tuple[np.ndarray, np.ndarray, int]:
    """Front of the completions of U (``unc``) with at most ``r`` more rules, and how many
    completions it enumerates."""
    fronts, counts = front2(cl, mc, er, unc, lam_n)
    if r <= 2:
        keys, cost = (np.concatenate(v) for v in zip(*fronts[: r + 1], strict=True))
        return (*reduce(keys, cost), sum(counts[: r + 1]))
    keys, cost, n = [fronts[0][0]], [fronts[0][1]], 2
    for a in np.flatnonzero((cl.rules & unc).any(1)):
        rest = unc & ~cl.rules[a]
        k, c, sub = front(cl, mc, er, rest, r - 1, lam_n)
        seg_mc, seg_er = mc[unc & cl.rules[a]].sum(0), er[unc & cl.rules[a]].sum(0)
        for p in (0, 1):
            keys.append(k + _key(p * seg_mc))
            cost.append(c + seg_er[p] + lam_n)
            n += sub
    return (*reduce(np.concatenate(keys), np.concatenate(cost)), n)


def ceiling(mc_u: np.ndarray, er_u: np.ndarray, thr: float) -> tuple[int, int]:
    """Count vectors reached by labelling U's classes freely (subset sums of their counts), and
    those whose least errors so reached are below ``thr``: bounds for every r."""
    w = np.rint(mc_u).astype(int)
    least = np.full(tuple(w.sum(0) + 1), np.inf)
    least[0, 0] = 0.0
    for (u, v), (e_neg, e_pos) in zip(w, er_u, strict=True):
        pos = least[: least.shape[0] - u, : least.shape[1] - v] + e_pos
        least += e_neg
        np.minimum(least[u:, v:], pos, out=least[u:, v:])
    return int(np.isfinite(least).sum()), int((least < thr).sum())


def gaps_of(keys: np.ndarray, denom: np.ndarray) -> np.ndarray:
    """The rate gap c1 / n1 - c0 / n0 of each key."""
    return (keys % SHIFT) / denom[1] - (keys // SHIFT) / denom[0]


def bucket_loss(keys, cost, denom, prefixes, eps, h, n, lam, depth) -> tuple[int, list]:
    """Cells of width ``h`` on the gap; per prefix (x, errors), the exact least objective over
    the front and the bucketed lower bound."""
    g = gaps_of(keys, denom)
    cell = np.floor(g / h).astype(np.int64)
    cells, least = reduce(cell, cost)
    rows = []
    for x, e in prefixes:
        fair = np.abs(x + g) <= eps + TOL
        exact = cost[fair].min() if fair.any() else np.inf
        lo, hi = np.floor((-eps - x) / h), np.floor((eps - x) / h)
        meet = (cells >= lo) & (cells <= hi)
        approx = least[meet].min() if meet.any() else np.inf
        rows.append(((e + exact) / n + lam * depth, (e + approx) / n + lam * depth))
    return len(cells), rows


def sample_sets(cl, args, best):
    """The depth-2 queued prefixes grouped by uncaptured set: the ``--top`` sets with most
    count vectors, then ``--random`` others (seeded); per set, its mask and prefixes."""
    ctx = {
        "best": best,
        "lam": args.lam,
        "ep_class": np.minimum(cl.counts[:, :, 0].sum(1), cl.counts[:, :, 1].sum(1)),
    }
    by_set: dict = {}
    queued = 0
    for depth, _, level in rebuild(cl, ctx, rate_rows(args.metric, cl.group_label), args):
        if depth == 2:
            queued = len(level)
            for key, (captured, _, err) in level:
                by_set.setdefault(key[0], (~captured, []))[1].append((key[1], err))
            break
    order = sorted(by_set, key=lambda s: -len(by_set[s][1]))
    rng = np.random.default_rng(args.seed)
    rest = order[args.top :]
    pick = order[: args.top] + [rest[i] for i in rng.permutation(len(rest))[: args.random]]
    return [by_set[s] for s in pick], len(by_set), queued


def main() -> None:
    ap = case_parser(__doc__, metrics=("SP", "EOpp"))
    ap.add_argument("--nodes", type=int, default=60_000, help="rebuild's queued budget")
    ap.add_argument("--top", type=int, default=15)
    ap.add_argument("--random", type=int, default=15)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--three", type=int, default=0, help="r = 3 on the first K sets")
    ap.add_argument("--grid", type=int, nargs="*", default=[4, 16], help="h = eps / K")
    args = ap.parse_args()
    cl = Classes(pd.read_csv(args.data))
    best = incumbent(args)
    sets, n_sets, queued = sample_sets(cl, args, best)
    mc, er = per_class(cl, args.metric)
    denom = mc.sum(0)
    lam_n = args.lam * cl.n
    ep = er.min(1)
    print(
        f"{args.metric} <= {args.epsilon}, lambda {args.lam}: incumbent {best:.6f}; depth 2: "
        f"{queued:,} queued, {n_sets:,} sets; sampled {len(sets)} ({args.top} top)"
    )
    rs = [0, 1, 2] + ([3] if args.three else [])
    stats: dict = {r: [] for r in rs}
    grid: dict = {k: [] for k in args.grid}
    caps = []
    for i, (unc, prefixes) in enumerate(sets):
        # a point is live when some prefix with this set, at depth >= 2, could beat the
        # incumbent with it: its captured errors are at least their equivalent-points errors
        thr = (best - 2 * args.lam) * cl.n - ep[~unc].sum() - 1e-7
        caps.append(ceiling(mc[unc], er[unc], thr))
        for r in rs:
            if r == 3 and i >= args.three:
                continue
            t0 = time.process_time()
            keys, cost, n_enum = front(cl, mc, er, unc, r, lam_n)
            spent = time.process_time() - t0
            stats[r].append((len(keys), n_enum, spent, i, int((cost < thr).sum())))
            if r == 2:
                xs = [(gaps_of(np.array([k[0] * SHIFT + k[1]]), denom)[0], e) for k, e in prefixes]
                for k in args.grid:
                    h = args.epsilon / k
                    cells, rows = bucket_loss(
                        keys, cost, denom, xs, args.epsilon, h, cl.n, args.lam, 2
                    )
                    grid[k].append((cells, rows))
    report(stats, grid, caps, sets, n_sets, queued, best, args.top)


def report(stats, grid, caps, sets, n_sets, queued, best, top) -> None:
    """The tables: front size per r, the bucketed variant, the memory extrapolation."""
    print(
        f"{'r':>2} {'sets':>4} {'front mean':>10} {'top':>9} {'random':>9} {'max':>9} "
        f"{'live mean':>9} {'max':>8} {'KB mean':>8} {'enumerated':>11} {'CPU s':>6} {'growth':>6}"
    )
    for r, rows in stats.items():
        size, live = (np.array([s[j] for s in rows], float) for j in (0, 4))
        is_top = np.array([s[3] < top for s in rows])
        prev = {s[3]: s[0] for s in stats.get(r - 1, [])}
        growth = np.mean([s[0] / prev[s[3]] for s in rows]) if r else np.nan
        rand = size[~is_top].mean() if (~is_top).any() else np.nan
        share = np.mean([s[0] / caps[s[3]][0] for s in rows])
        print(
            f"{r:>2} {len(rows):>4} {size.mean():>10,.0f} {size[is_top].mean():>9,.0f} "
            f"{rand:>9,.0f} {size.max():>9,.0f} {live.mean():>9,.0f} {live.max():>8,.0f} "
            f"{12 * size.mean() / 1e3:>8.1f} {np.mean([s[1] for s in rows]):>11,.0f} "
            f"{np.mean([s[2] for s in rows]):>6.2f} {growth:>6.1f} {share:>5.2f}"
        )
    reach, live = (np.array([c[j] for c in caps], float) for j in (0, 1))
    served = np.array([len(p) for _, p in sets])
    print(
        f"ceiling, any labelling of U's classes: {reach.mean():,.0f} count vectors (max "
        f"{reach.max():,.0f}), live {live.mean():,.0f} (max {live.max():,.0f}); prefixes "
        f"served per set: mean {served.mean():.1f}, max {served.max()}"
    )
    for r in (2, 3):
        if r in stats:
            m = np.mean([s[0] for s in stats[r]])
            ml = np.mean([s[4] for s in stats[r]])
            print(
                f"memo at r = {r} for the {n_sets:,} depth-2 sets: {n_sets * m * 12 / 1e6:,.1f} MB"
                f" (live only {n_sets * ml * 12 / 1e6:,.1f} MB)"
            )
    mb = n_sets * 12 / 1e6
    print(
        f"ceiling: {mb * reach.mean():,.0f} MB (live {mb * live.mean():,.0f} MB); "
        f"trie: {queued:,} queued x 41-46 B = {queued * 41 / 1e6:.2f}-{queued * 46 / 1e6:.2f} MB"
    )
    print(
        f"{'K':>3} {'cells mean':>10} {'max':>5} {'loss 1e-3':>9} {'equal':>6} {'flips':>6} "
        f"{'pruned':>6}"
    )
    for k, rows in grid.items():
        cells = np.array([c for c, _ in rows])
        pairs = np.array([p for _, ps in rows for p in ps])
        ok = np.isfinite(pairs[:, 0])
        loss = (pairs[ok, 0] - pairs[ok, 1]).mean() * 1e3
        equal = np.mean(pairs[:, 0] == pairs[:, 1])
        flips = int(np.sum((pairs[:, 0] >= best) & (pairs[:, 1] < best)))
        print(
            f"{k:>3} {cells.mean():>10.1f} {cells.max():>5} {loss:>9.2f} {equal:>6.2f} "
            f"{flips:>6} {np.sum(pairs[:, 0] >= best):>6}"
        )


if __name__ == "__main__":
    main()
