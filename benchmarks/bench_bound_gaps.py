"""Issue 23's measurement: where the gap between the engine's bound and the best completion of a
queued prefix goes, by depth and by bound, on the paper's COMPAS data.

Prefixes are sampled the way the search queues them, rebuilt in Python: from the root, every
child (antecedent, prediction) whose bound (captured errors + the class LP on the uncaptured
classes + lambda times one more rule: the engine's class bound with lookahead) is below the
incumbent is queued; up to ``--per-depth`` of each depth's queued prefixes (seeded) are kept and
extended to the next depth.  The incumbent is the engine's best list after ``--max-nodes`` trie
nodes (one core).  For each sampled prefix of ``d`` rules, with ``N`` the total weight:

    hier     captured errors / N + lam (d + 1)         (hierarchical bound with lookahead)
    ep       + the equivalent-points errors of the uncaptured classes
    class    + the class LP instead (the engine's class bound; for two groups and the metrics
             here it is this LP's optimum, rounded up)
    classIP  + the same problem in integers: every uncaptured class takes its own label, the
             cap holds: the best the class bound can ever be, whatever the LP
    E1, E2   the exact best objective over the completions with at most 1 (2) more rules,
             every list enumerated (inf: none fair)
    L3       min(E2, (captured + classIP errors) / N + lam (d + 3)): a valid lower bound on the
             exact best completion of any length (a completion of 3 or more rules pays 3 lam
             and at least the class IP's errors), equal to it when E2 is the smaller
    E3, L4   with ``--three K``, for the first K sampled prefixes of each depth: the exact best
             objective over at most 3 more rules, and min(E3, classIP + 4 lam)

The prefixes are not the engine's own queue at 1 M or 4 M nodes (no native hook exports it):
they are rebuilt with the class LP and without the permutation map, which only merges
equivalent prefixes.  ``queued`` is the number of children queued below the sampled prefixes of
the depth above (below the root at depth 1), ``n`` the number sampled among them.

The table gives, per depth, the means of each bound's rise over ``class`` (in units of 1e-3 of
the objective) and the share of the queued prefixes each bound would prune against the
incumbent (bound >= best).  ``L3 - class`` is what a bound knowing that a list of k more rules
pays k lam and that two more rules cannot label every class freely would add; ``classIP -
class`` is all a better LP could add.

    python benchmarks/bench_bound_gaps.py                       # SP 0.05, lambda 0.005
    python benchmarks/bench_bound_gaps.py --metric EOpp --lam 0.01 --per-depth 60
    python benchmarks/bench_bound_gaps.py --per-depth 15 --max-depth 3 --three 4
    python benchmarks/bench_bound_gaps.py --per-depth 15 --max-depth 3 --show-cover 2
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
import pandas as pd
from scipy.optimize import Bounds, LinearConstraint, linprog, milp

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT.parent / "shared" / "data" / "faircorels" / "compas_rules_full.csv"
TOL = 1e-9


class Classes:
    """The data as classes of identical antecedent bits with per-(group, label) weights."""

    def __init__(self, frame: pd.DataFrame) -> None:
        x = frame.iloc[:, 2:-1].to_numpy(np.uint8)
        y = frame.iloc[:, -1].to_numpy(np.int64)
        g = frame.iloc[:, 0].to_numpy(bool).astype(np.int64)
        rows, inverse = np.unique(x, axis=0, return_inverse=True)
        self.rules = rows.T.astype(bool)  # antecedent x class
        self.names = list(frame.columns[2:-1])
        # counts[c, group, label]
        self.counts = np.zeros((len(rows), 2, 2))
        np.add.at(self.counts, (inverse.ravel(), g, y), 1.0)
        self.n = float(len(y))
        self.group_label = self.counts.sum(axis=0)  # [group, label]


def rate_rows(metric: str, gl: np.ndarray) -> list[tuple[np.ndarray, np.ndarray]]:
    """The metric's gaps as linear forms over positive predictions per [group, label]: a list of
    (coef_a, coef_b) pairs whose sum of |gaps| must stay within the cap (one pair: one gap)."""
    n_g = gl.sum(axis=1)

    def gap(labels: tuple[int, ...]) -> np.ndarray:
        coef = np.zeros((2, 2))
        for lab in labels:
            coef[1, lab] = 1.0 / gl[1, labels].sum()
            coef[0, lab] = -1.0 / gl[0, labels].sum()
        return coef

    if metric == "SP":
        coef = np.zeros((2, 2))
        coef[1, :] = 1.0 / n_g[1]
        coef[0, :] = -1.0 / n_g[0]
        return [coef]
    if metric == "EOpp":
        return [gap((1,))]
    if metric == "EOdds":
        return [gap((1,)), gap((0,))]
    raise SystemExit(f"metric {metric} not measured here")


def fair(gaps: list[np.ndarray], pos: np.ndarray, eps: float) -> np.ndarray:
    """pos[..., group, label]: positive predictions; True where the cap holds."""
    total = sum(np.abs(np.einsum("...gl,gl->...", pos, coef)) for coef in gaps)
    return total <= eps + TOL


def class_program(cl, gaps, eps, fixed_pos, unc, integral: bool, extra=None) -> float:
    """Fewest errors on the uncaptured classes with one label per class (fractional: the LP).

    ``extra``: further rows (coef, ub) over the classes' positive predictions t_c,
    coef . t <= ub (the cover LP's)."""
    cnt = cl.counts[unc]  # [c, g, l]
    if len(cnt) == 0:
        return 0.0 if fair(gaps, fixed_pos, eps) else np.inf
    pos_w, neg_w = cnt[:, :, 1].sum(axis=1), cnt[:, :, 0].sum(axis=1)
    cost = neg_w - pos_w  # t_c = 1 predicts positive: errors pos_w + t (neg_w - pos_w)
    base = pos_w.sum()
    forms = [np.einsum("cgl,gl->c", cnt, coef) for coef in gaps]
    consts = [float(np.einsum("gl,gl->", fixed_pos, coef)) for coef in gaps]
    # sum_i |a_i| <= eps written as every sign pattern s: sum_i s_i a_i <= eps
    rows, ub = [], []
    for signs in np.array(np.meshgrid(*[[-1, 1]] * len(gaps))).T.reshape(-1, len(gaps)):
        rows.append(sum(s * f for s, f in zip(signs, forms, strict=True)))
        ub.append(eps + TOL - sum(s * c for s, c in zip(signs, consts, strict=True)))
    for coef, bound in extra or ():
        rows.append(coef)
        ub.append(bound + TOL)
    a, ub = np.array(rows), np.array(ub)
    if integral:
        res = milp(
            cost,
            constraints=LinearConstraint(a, -np.inf, ub),
            integrality=np.ones(len(cost)),
            bounds=Bounds(0, 1),
        )
    else:
        res = linprog(cost, A_ub=a, b_ub=ub, bounds=(0, 1), method="highs")
    return base + res.fun if res.status == 0 else np.inf


class Prefix:
    """A prefix: its captured classes, the positive predictions and errors on them."""

    def __init__(self, cl: Classes, rules=(), captured=None, pos=None, err=0.0) -> None:
        self.rules = tuple(rules)
        self.captured = np.zeros(cl.counts.shape[0], bool) if captured is None else captured
        self.pos = np.zeros((2, 2)) if pos is None else pos
        self.err = err

    def child(self, cl: Classes, a: int, p: int) -> Prefix | None:
        new = cl.rules[a] & ~self.captured
        if not new.any():
            return None
        seg = cl.counts[new].sum(axis=0)  # [g, l]
        return Prefix(
            cl,
            (*self.rules, (a, p)),
            self.captured | new,
            self.pos + p * seg,
            self.err + seg[:, 1 - p].sum(),
        )


def exact_short(cl, gaps, eps, lam, pre: Prefix) -> tuple[float, float]:
    """Best objectives over the completions with exactly 1 and at most 2 more rules."""
    unc = ~pre.captured
    c = cl.counts[unc]
    m = cl.rules[:, unc].astype(float)
    total = c.sum(axis=0)
    one = np.einsum("ac,cgl->agl", m, c)
    both = np.einsum("ac,bc,cgl->abgl", m, m, c)
    d = len(pre.rules)
    best1 = best2 = np.inf
    for p1 in (0, 1):
        for p2 in (0, 1):
            for q in (0, 1):
                s1, rest1 = one, total - one
                pos = pre.pos + p1 * s1 + q * rest1
                err = pre.err + s1[..., 1 - p1].sum(-1) + rest1[..., 1 - q].sum(-1)
                ok = fair(gaps, pos, eps)
                if ok.any():
                    best1 = min(best1, err[ok].min() / cl.n + lam * (d + 1))
                s2 = one[None, :] - both  # [a, b]: captured by b, not a
                rest2 = total - one[:, None] - s2
                pos = pre.pos + p1 * s1[:, None] + p2 * s2 + q * rest2
                err = (
                    pre.err
                    + s1[:, None, :, 1 - p1].sum(-1)
                    + s2[..., 1 - p2].sum(-1)
                    + rest2[..., 1 - q].sum(-1)
                )
                ok = fair(gaps, pos, eps)
                if ok.any():
                    best2 = min(best2, err[ok].min() / cl.n + lam * (d + 2))
    return best1, min(best1, best2)


def exact_three(cl, gaps, eps, lam, pre: Prefix, e1: float) -> float:
    """Best objective over the completions with at most 3 more rules: the one-rule ones (e1),
    then per first rule, its child's completions of at most 2 more."""
    best = e1
    for a in range(cl.rules.shape[0]):
        for p in (0, 1):
            ch = pre.child(cl, a, p)
            if ch is not None:
                best = min(best, exact_short(cl, gaps, eps, lam, ch)[1])
    return best


class Cover:
    """The cover bound's terms on a prefix's uncaptured samples U, for each default d in {0, 1}.

    Why it bounds: take any completion of the prefix by r more rules and default d.  On U it
    makes D(d) errors (the weight in U labelled 1 - d) less, over each region R_i (the samples
    of U first captured by rule i) that rule i labels 1 - d, the weight of label 1 - d in R_i
    minus that of label d (a region labelled d changes nothing).  Identical samples share every
    antecedent bit, so a class lies whole in one region, and a region's gain is at most the sum
    over its classes of surplus_d(c) = max(0, n_{1-d}(c) - n_d(c)), which is at most S_d(a_i),
    that sum over all the classes of U that a_i captures.  The regions are disjoint, so the gain
    is at most the surplus of all of U (``total``) and at most the sum of the r largest S_d
    (``top[r]``); and, for r >= 2, at most the largest surplus of a union of two antecedents'
    classes (``pair``) plus the r - 2 largest S_d (split the r rules into their first two and
    the rest).  So the completion makes at least D(d) - gain_d(r) errors on U; it also makes at
    least the class LP's errors (the cap holds on it), so at least the larger of the two.
    The cover LP ties both: the class LP with the further row "the surplus of the classes
    labelled 1 - d is at most gain_d(r)" (a completion's classes labelled 1 - d lie in its
    regions labelled 1 - d), solved per d and r.  With r large, gain = total, and
    D(d) - total = sum_c min(n_0(c), n_1(c)) = the equivalent-points errors, never above the
    class LP: the bound is then the class bound plus lam (d + r) >= the class bound with
    lookahead, so over r >= 1 the cover bound is never below ``class``.
    """

    def __init__(self, cl: Classes, pre: Prefix) -> None:
        unc = ~pre.captured
        by_label = cl.counts[unc].sum(axis=1)  # [c, label]
        cover = cl.rules[:, unc].astype(float)  # [a, c]
        self.a = cover.shape[0]
        self.D, self.total, self.top, self.pair, self.surplus = [], [], [], [], []
        self.single, self.net, self.removable = [], [], []
        for d in (0, 1):
            s = np.maximum(0.0, by_label[:, 1 - d] - by_label[:, d])
            single = cover @ s
            both = (cover * s) @ cover.T
            self.D.append(by_label[:, 1 - d].sum())
            self.total.append(s.sum())
            self.top.append(np.concatenate([[0.0], np.cumsum(np.sort(single)[::-1])]))
            self.pair.append((single[:, None] + single[None, :] - both).max())
            self.surplus.append(s)
            self.single.append(single)
            # net: what rule a alone gains; removable[a, k]: the most that k earlier rules
            # can take off a's region of the classes where label d outweighs 1 - d
            self.net.append(cover @ (by_label[:, 1 - d] - by_label[:, d]))
            bad = (cover * np.maximum(0.0, -(by_label[:, 1 - d] - by_label[:, d]))) @ cover.T
            np.fill_diagonal(bad, 0.0)
            rows = np.cumsum(-np.sort(-bad, axis=1), axis=1)
            self.removable.append(np.hstack([np.zeros((self.a, 1)), rows]))

    def gain(self, d: int, r: int, mode: str) -> float:
        """Most that r more rules can gain over "default d" on U.  mode "top": the r largest
        S_d, or the total; "pair": also the best pair's union + the r - 2 largest; "net": also
        the r largest per-rule gains, each at most net(a) + the r - 1 largest removable parts
        of a (its region is a less the earlier rules' antecedents: what they take off a is at
        most, per earlier rule b, the weight by which label d outweighs 1 - d in a and b)."""
        g = min(self.total[d], self.top[d][min(r, self.a)])
        if mode in ("pair", "net") and r >= 2:
            g = min(g, self.pair[d] + self.top[d][min(r - 2, self.a)])
        if mode == "net":
            k = min(r - 1, self.a)
            per = np.clip(
                np.minimum(self.single[d], self.net[d] + self.removable[d][:, k]), 0, None
            )
            g = min(g, np.sort(per)[::-1][:r].sum())
        return g

    def errors(self, r: int, mode: str) -> float:
        return min(self.D[d] - self.gain(d, r, mode) for d in (0, 1))

    def bound(self, err: float, lp: float, n: float, lam: float, d: int, mode: str):
        """min over r >= 1 more rules of lam (d + r) + max(class LP, cover errors) / N, and the
        r that attains it."""
        best = (np.inf, 0)
        for r in range(1, self.a + 1):
            e = max(lp, self.errors(r, mode))
            best = min(best, ((err + e) / n + lam * (d + r), r))
            if e <= lp:  # errors only fall with r, so from here on only lam grows
                break
        return best

    def lp_bound(self, cl, gaps, eps, pre: Prefix, lp: float, lam: float) -> float:
        """The cover LP: min over r >= 1 of lam (d + r) + min over d of the class LP with two
        more rows, rounded up.  With t'_c = 1 where class c is labelled 1 - d: the gain on U,
        sum_c t'_c (n_{1-d}(c) - n_d(c)), is at most gain_d(r) in mode "net", and the surplus
        of the classes labelled 1 - d, sum_c t'_c surplus_d(c), at most gain_d(r) in mode
        "pair" (both hold for any completion by r rules and default d: its classes labelled
        1 - d are those of its regions labelled 1 - d).  r stops once lam (d + r) + the class
        LP alone is no better than the best so far."""
        d, n, unc = len(pre.rules), cl.n, ~pre.captured
        by_label = cl.counts[unc].sum(axis=1)
        best = np.inf
        for r in range(1, self.a + 1):
            if (pre.err + lp) / n + lam * (d + r) >= best:
                break
            e = min(
                class_program(cl, gaps, eps, pre.pos, unc, False, self._rows(q, r, by_label))
                for q in (0, 1)
            )
            best = min(best, (pre.err + np.ceil(e - 1e-7)) / n + lam * (d + r))
        return best

    def _rows(self, q: int, r: int, by_label: np.ndarray):
        """The two rows for default q over the positive predictions t_c (t'_c = t_c for q = 0,
        1 - t_c for q = 1): coef . t' <= g becomes coef . t <= g for q = 0 and
        -coef . t <= g - sum(coef) for q = 1."""
        net = by_label[:, 1 - q] - by_label[:, q]
        rows = [(net, self.gain(q, r, "net")), (self.surplus[q], self.gain(q, r, "pair"))]
        if q == 0:
            return rows
        return [(-coef, g - coef.sum()) for coef, g in rows]


def cover_detail(cl: Classes, pre: Prefix) -> str:
    """One prefix's cover, per default d: the surplus of U (total, share of U's weight), the
    shares of it that the 1, 2, 3 antecedents of largest S_d cover (sum capped at 1), and the
    antecedent of largest S_d with the share of U's weight it captures."""
    cov = Cover(cl, pre)
    unc = ~pre.captured
    weight = cl.counts[unc].sum(axis=(1, 2))
    rules = ", ".join(f"{cl.names[a]}->{p}" for a, p in pre.rules)
    parts = []
    for d in (0, 1):
        tot = cov.total[d]
        sat = "/".join(f"{min(1.0, cov.top[d][k] / max(tot, TOL)):.2f}" for k in (1, 2, 3))
        a = int(np.argmax(cov.single[d]))
        share = weight[cl.rules[a, unc]].sum() / weight.sum()
        parts.append(
            f"default {d}: surplus {tot:.0f} ({tot / weight.sum():.2f} of U), top1/2/3 {sat}, "
            f"best {cl.names[a]} (captures {share:.2f} of U)"
        )
    return f"      [{rules}] " + "; ".join(parts)


def queued_children(cl, gaps, eps, lam, best, pre: Prefix) -> list[Prefix]:
    """The children the engine's class bound with lookahead keeps (bound < best)."""
    out = []
    d1 = len(pre.rules) + 1
    for a in range(cl.rules.shape[0]):
        for p in (0, 1):
            ch = pre.child(cl, a, p)
            if ch is None:
                continue
            unc = cl.counts[~ch.captured]
            ep = np.minimum(unc[:, :, 0].sum(1), unc[:, :, 1].sum(1)).sum()
            if (ch.err + ep) / cl.n + lam * (d1 + 1) >= best:
                continue
            lp = class_program(cl, gaps, eps, ch.pos, ~ch.captured, integral=False)
            if (ch.err + np.ceil(lp - 1e-7)) / cl.n + lam * (d1 + 1) < best:
                out.append(ch)
    return out


def measure(cl, gaps, eps, lam, best, pre: Prefix, three: bool) -> dict[str, float]:
    d = len(pre.rules)
    unc = ~pre.captured
    cnt = cl.counts[unc]
    base = lam * (d + 1)
    ep = np.minimum(cnt[:, :, 0].sum(1), cnt[:, :, 1].sum(1)).sum()
    lp = np.ceil(class_program(cl, gaps, eps, pre.pos, unc, integral=False) - 1e-7)
    ip = class_program(cl, gaps, eps, pre.pos, unc, integral=True)
    e1, e2 = exact_short(cl, gaps, eps, lam, pre)
    cov = Cover(cl, pre)
    cover, r_star = cov.bound(pre.err, lp, cl.n, lam, d, "top")
    maj = int(np.argmin(cov.D))  # the default of fewer errors
    sat = [cov.top[maj][min(k, cov.a)] / max(cov.total[maj], TOL) for k in (1, 2, 3)]
    return {
        "cover": cover,
        "cover2": cov.bound(pre.err, lp, cl.n, lam, d, "pair")[0],
        "coverN": cov.bound(pre.err, lp, cl.n, lam, d, "net")[0],
        "coverLP": cov.lp_bound(cl, gaps, eps, pre, lp, lam),
        "r*": r_star,
        "top1": sat[0],
        "top2": sat[1],
        "top3": sat[2],
        "hier": pre.err / cl.n + base,
        "ep": (pre.err + ep) / cl.n + base,
        "class": (pre.err + lp) / cl.n + base,
        "classIP": (pre.err + ip) / cl.n + base,
        "E1": e1,
        "E2": e2,
        "L3": min(e2, (pre.err + ip) / cl.n + lam * (d + 3)),
        "E3": exact_three(cl, gaps, eps, lam, pre, e1) if three else np.nan,
        "L4": min(exact_three(cl, gaps, eps, lam, pre, e1), (pre.err + ip) / cl.n + lam * (d + 4))
        if three
        else np.nan,
    }


def sampled_levels(cl, gaps, args, best: float, rng):
    """Depth by depth (1 .. args.max_depth): the prefixes the search would queue below the
    sample of the level above (the root first), and a sample of args.per_depth of them; yields
    (depth, how many were queued, the sample)."""
    level = [Prefix(cl)]
    for depth in range(1, args.max_depth + 1):
        queued = [
            ch
            for pre in level
            for ch in queued_children(cl, gaps, args.epsilon, args.lam, best, pre)
        ]
        if not queued:
            return
        pick = rng.choice(len(queued), min(args.per_depth, len(queued)), replace=False)
        level = [queued[i] for i in pick]
        yield depth, len(queued), level


def incumbent(args) -> float:
    from fairlist.metrics import Metric
    from fairlist.solvers import Limits, Problem
    from fairlist.solvers.bnb import BnBSolver

    frame = pd.read_csv(args.data)
    problem = Problem(
        frame.iloc[:, 2:-1].to_numpy(np.uint8),
        frame.iloc[:, -1].to_numpy(np.uint8),
        frame.iloc[:, 0].to_numpy(bool),
        metric=Metric.parse(args.metric),
        epsilon=args.epsilon,
        lam=args.lam,
        limits=Limits(max_nodes=args.max_nodes),
    )
    return BnBSolver().solve(problem).objective


RISE = ("ep", "classIP", "cover", "cover2", "coverN", "coverLP", "E1", "E2", "L3", "E3", "L4")
COLS = ("hier", "ep", "class") + RISE[1:]
COVER = ("r*", "top1", "top2", "top3")
PRUNE = ("class", "classIP", "cover", "cover2", "coverN", "coverLP", "L3", "E2", "L4", "E3")


def case_parser(doc: str, metrics: tuple[str, ...]) -> argparse.ArgumentParser:
    """The options every issue-23 measurement shares: the data, the case (metric, epsilon,
    lambda) and the trie budget of the engine run that gives the incumbent."""
    ap = argparse.ArgumentParser(description=doc.splitlines()[0])
    ap.add_argument("--data", type=Path, default=DATA)
    ap.add_argument("--metric", default="SP", choices=metrics)
    ap.add_argument("--epsilon", type=float, default=0.05)
    ap.add_argument("--lam", type=float, default=0.005)
    ap.add_argument("--max-nodes", type=int, default=1_000_000, help="incumbent's trie budget")
    return ap


def main() -> None:
    ap = case_parser(__doc__, metrics=("SP", "EOpp", "EOdds"))
    ap.add_argument("--per-depth", type=int, default=30, help="prefixes sampled per depth")
    ap.add_argument("--max-depth", type=int, default=4)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument(
        "--three",
        type=int,
        default=0,
        help="per depth, the first THREE sampled prefixes also get E3 (at most 3 more rules) "
        "and L4 = min(E3, classIP + 4 lam): slow, about 10 s a prefix",
    )
    ap.add_argument(
        "--show-cover",
        type=int,
        default=0,
        help="per depth, for the first SHOW_COVER sampled prefixes, the cover's saturation",
    )
    args = ap.parse_args()
    cl = Classes(pd.read_csv(args.data))
    gaps = rate_rows(args.metric, cl.group_label)
    best = incumbent(args)
    rng = np.random.default_rng(args.seed)
    print(
        f"{args.metric} <= {args.epsilon}, lambda {args.lam}: incumbent {best:.6f} "
        f"({args.max_nodes:,} nodes); {len(cl.counts)} classes; per depth up to "
        f"{args.per_depth} queued prefixes (seed {args.seed})"
    )
    short = {"classIP": "clsIP", "coverLP": "covLP"}
    print(
        f"{'depth':>5} {'queued':>7} {'n':>3} | mean rise over class (1e-3): "
        + " ".join(f"{short.get(k, k):>6}" for k in RISE)
        + " | pruned share: "
        + " ".join(f"{short.get(k, k):>5}" for k in PRUNE)
        + " | cover: mean r*, top1/2/3 share of the surplus"
    )
    for depth, n_queued, level in sampled_levels(cl, gaps, args, best, rng):
        rows = [
            measure(cl, gaps, args.epsilon, args.lam, best, pre, i < args.three)
            for i, pre in enumerate(level)
        ]
        print(report(depth, n_queued, rows, best), flush=True)
        for pre in level[: args.show_cover]:
            print(cover_detail(cl, pre))


def report(depth: int, n_queued: int, rows: list[dict[str, float]], best: float) -> str:
    """One depth's line: mean rises over the class bound (an infinite bound, no fair completion,
    counted as best + 0.05) and the shares of prefixes each bound prunes; E3 and L4 over the
    prefixes that have them (--three; nan: none); then the cover bound's mean r* (further rules
    at its minimum) and how much of the uncaptured surplus (default of fewer errors) the 1, 2, 3
    antecedents of largest S_d cover, their sum capped at 1."""
    m = {k: np.array([r[k] for r in rows]) for k in COLS + COVER}

    def mean(v: np.ndarray) -> float:
        v = v[~np.isnan(v)]
        return float(v.mean()) if len(v) else float("nan")

    rise = {k: 1000 * mean(np.minimum(m[k], best + 0.05) - m["class"]) for k in COLS}
    share = {k: mean(np.where(np.isnan(m[k]), np.nan, m[k] >= best - 1e-12)) for k in COLS}
    sat = " ".join(f"{mean(np.minimum(m[k], 1.0)):.2f}" for k in COVER[1:])
    return (
        f"{depth:>5} {n_queued:>7} {len(rows):>3} | {'':>29}"
        + " ".join(f"{rise[k]:>6.2f}" for k in RISE)
        + f" | {'':>14}"
        + " ".join(f"{share[k]:>5.2f}" for k in PRUNE)
        + f" | {'':>5}{mean(m['r*']):.2f} {sat}"
    )


if __name__ == "__main__":
    main()
