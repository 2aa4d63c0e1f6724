"""Issue 23, second measurement: how much of the gap a perfect completion bound would close.

For queued prefixes sampled as ``bench_bound_gaps.py`` samples them (its classes, its class
bound, its rebuilt queue, the engine's incumbent after ``--max-nodes`` trie nodes), this computes
with CP-SAT the best fair completion of up to ``--more`` further rules: the best rule list on
the prefix's *uncaptured* classes whose predictions, added to the prefix's fixed positive
predictions per (group, label), meet the cap on the whole data — the subproblem a completion
bound has to solve.  Each prefix gets ``--time-limit`` seconds; ``exact`` says how many solves
proved optimality, the others give CP-SAT's lower bound (every figure below is then a bound
from below on the true value, so the rises and pruned shares are at least what is printed).

    E6      the best completion with at most ``--more`` (6) more rules (lower bound if not exact)
    L7      min(E6, classIP + lam (d + more + 1)): a valid lower bound on the best completion of
            any length (one of more than ``more`` further rules pays that many lam and at least
            the class IP's errors); the best any completion bound can do is at least this
    best    the incumbent; ``pruned`` = share of the sampled queued prefixes with L7 >= best
            (certainly pruned by a perfect bound), ``open`` = share where E6 is exact and
            below best (certainly not pruned: a completion beats the incumbent).

    python benchmarks/bench_completion_gaps.py --metric SP --lam 0.005 --per-depth 6
"""

from __future__ import annotations

import time
from fractions import Fraction
from math import floor, lcm

import numpy as np
import pandas as pd
from bench_bound_gaps import (
    TOL,
    Classes,
    Prefix,
    case_parser,
    class_program,
    exact_short,
    incumbent,
    rate_rows,
    sampled_levels,
)
from ortools.sat.python import cp_model


def integer_gap(coef: np.ndarray, eps: float) -> tuple[np.ndarray, int]:
    """One gap's form scaled to integers: (int coefficients per [group, label], cap)."""
    dens = [round(1 / abs(v)) for v in coef.ravel() if v != 0]
    d = lcm(*dens)
    ints = np.rint(coef * d).astype(np.int64)
    assert np.allclose(ints, coef * d)
    return ints, floor((eps + TOL) * d)


def best_completion(cl, gap, eps, lam, pre: Prefix, more: int, seconds: float, best: float):
    """CP-SAT on the uncaptured classes, asked for a completion below ``best`` (np.inf: any):
    (lower bound, objective found or inf, proved).  Proved and infeasible: no completion beats
    ``best``, reported as the lower bound ``best`` (the exact value is then not needed: a
    perfect bound prunes the prefix, and the gap it closes is all of it)."""
    unc = np.flatnonzero(~pre.captured)
    cnt = cl.counts[unc].astype(np.int64)  # [c, g, l]
    sat = cl.rules[:, unc]  # antecedent x class
    ants = np.flatnonzero(sat.any(axis=1))  # a rule capturing nothing never helps
    ints, cap = integer_gap(gap, eps)
    frac = Fraction(str(lam))
    a, b, n = frac.numerator, frac.denominator, int(cl.n)
    m, k_max, n_cls = len(ants), more, len(unc)
    md = cp_model.CpModel()
    use = [[md.new_bool_var("") for _ in range(m)] for _ in range(k_max)]
    unused = [md.new_bool_var("") for _ in range(k_max)]
    pred = [md.new_bool_var("") for _ in range(k_max)]
    default = md.new_bool_var("")
    index = [md.new_int_var(0, m, "") for _ in range(k_max)]
    for k in range(k_max):
        md.add_exactly_one([*use[k], unused[k]])
        md.add_implication(unused[k], ~pred[k])
        md.add(index[k] == sum(j * use[k][j] for j in range(m)) + m * unused[k])
        if k + 1 < k_max:
            md.add_implication(unused[k], unused[k + 1])
            same = md.new_bool_var("")
            md.add(pred[k] == pred[k + 1]).only_enforce_if(same)
            md.add(pred[k] != pred[k + 1]).only_enforce_if(~same)
            # adjacent rules predicting alike commute: keep them in increasing order
            md.add(index[k] < index[k + 1]).only_enforce_if([same, ~unused[k + 1]])
            md.add(pred[k] != default).only_enforce_if([~unused[k], unused[k + 1]])
        else:
            md.add(pred[k] != default).only_enforce_if(~unused[k])
    for j in range(m):
        md.add_at_most_one([use[k][j] for k in range(k_max)])
    pos = [md.new_bool_var("") for _ in range(n_cls)]
    capt = [[md.new_bool_var("") for _ in range(k_max + 1)] for _ in range(n_cls)]
    for c in range(n_cls):
        md.add_exactly_one(capt[c])
        rows = [j for j in range(m) if sat[ants[j], c]]
        for k in range(k_max):
            s = sum(use[k][j] for j in rows) if rows else 0
            md.add(capt[c][k] <= s)
            md.add(s <= sum(capt[c][: k + 1]))
            md.add(pos[c] == pred[k]).only_enforce_if(capt[c][k])
        md.add(pos[c] == default).only_enforce_if(capt[c][k_max])
    for k in range(k_max):  # a used rule captures something
        md.add(sum(capt[c][k] for c in range(n_cls)) >= 1).only_enforce_if(~unused[k])
    fixed = int(np.einsum("gl,gl->", np.rint(pre.pos).astype(np.int64), ints))
    form = fixed + sum(int(np.einsum("gl,gl->", cnt[c], ints)) * pos[c] for c in range(n_cls))
    md.add(form <= cap)
    md.add(form >= -cap)
    pos_w, neg_w = cnt[:, :, 1].sum(1), cnt[:, :, 0].sum(1)
    errors = sum(int(neg_w[c]) * pos[c] + int(pos_w[c]) * (1 - pos[c]) for c in range(n_cls))
    length = k_max - sum(unused)
    d = len(pre.rules)
    if np.isfinite(best):  # completions strictly below the incumbent only
        target = best * b * n - b * pre.err - a * n * d
        md.add(b * errors + a * n * length <= int(np.ceil(target - 1e-6)) - 1)
    md.minimize(b * errors + a * n * length)
    solver = cp_model.CpSolver()
    solver.parameters.max_time_in_seconds = seconds
    solver.parameters.num_workers = 2
    status = solver.solve(md)

    def value(x: float) -> float:
        return (b * pre.err + a * n * d + x) / (b * n)

    if status == cp_model.INFEASIBLE:
        return best, np.inf, True
    lower = value(solver.best_objective_bound)
    if status == cp_model.OPTIMAL:
        return value(solver.objective_value), value(solver.objective_value), True
    if status == cp_model.FEASIBLE:
        return lower, value(solver.objective_value), False
    return lower, np.inf, False  # UNKNOWN: the bound CP-SAT proved so far


def rules_needed(cl, gaps, eps, lam, cut, pre: Prefix) -> int:
    """The most further rules a completion below ``cut`` can have: one of j more rules costs at
    least (captured + class IP errors) / N + lam (d + j), every uncaptured class labelled
    freely under the cap (0: none)."""
    ip = class_program(cl, gaps, eps, pre.pos, ~pre.captured, integral=True)
    if not np.isfinite(ip):
        return 0  # no fair labelling of the uncaptured classes: no fair completion
    room = cut - (pre.err + ip) / cl.n - lam * len(pre.rules)
    if not np.isfinite(room):
        return 10**9
    return int(np.ceil(room / lam - 1e-9)) - 1 if room > 0 else 0


def clipped(cl, gaps, eps, lam, cut, pre: Prefix, more: int) -> float:
    """min(cut, the best completion of 1 .. ``more`` further rules), exactly: branch and bound
    over the first further rule, each child pruned by its class bound with lookahead against
    the best value so far (its lists all cost at least that), the last two rules enumerated."""
    more = min(more, rules_needed(cl, gaps, eps, lam, cut, pre))
    if more <= 0:
        return cut
    e1, e2 = exact_short(cl, gaps, eps, lam, pre)
    best = min(cut, e2 if more >= 2 else e1)
    if more <= 2:
        return best
    d1 = len(pre.rules) + 1
    for a in range(cl.rules.shape[0]):
        for p in (0, 1):
            ch = pre.child(cl, a, p)
            if ch is None:
                continue
            unc = ~ch.captured
            lp = class_program(cl, gaps, eps, ch.pos, unc, integral=False)
            if (ch.err + np.ceil(lp - 1e-7)) / cl.n + lam * (d1 + 1) >= best:
                continue
            best = min(best, clipped(cl, gaps, eps, lam, best, ch, more - 1))
    return best


def measure_bnb(cl, gaps, eps, lam, best, pre: Prefix, more: int) -> dict:
    """The exact best completion below ``best`` by :func:`clipped`: exact (the perfect bound's
    decision and value, clipped at ``best``) when no completion of more than ``more`` further
    rules can beat ``best``, else min(E_more, classIP + lam (d + more + 1)), a lower bound."""
    d = len(pre.rules)
    unc = ~pre.captured
    lp = np.ceil(class_program(cl, gaps, eps, pre.pos, unc, integral=False) - 1e-7)
    ip = class_program(cl, gaps, eps, pre.pos, unc, integral=True)
    need = rules_needed(cl, gaps, eps, lam, best, pre)
    t0 = time.process_time()
    e = clipped(cl, gaps, eps, lam, best, pre, more)
    low = min(e, (pre.err + ip) / cl.n + lam * (d + more + 1))
    return {
        "class": (pre.err + lp) / cl.n + lam * (d + 1),
        "E": e,
        "found": e if e < best else np.inf,
        "exact": need <= more,
        "L": low,
        "need": need,
        "cpu": time.process_time() - t0,
    }


def measure(cl, gaps, eps, lam, best, pre: Prefix, more: int, seconds: float) -> dict:
    d = len(pre.rules)
    unc = ~pre.captured
    base = lam * (d + 1)
    lp = np.ceil(class_program(cl, gaps, eps, pre.pos, unc, integral=False) - 1e-7)
    ip = class_program(cl, gaps, eps, pre.pos, unc, integral=True)
    t0 = time.process_time()
    low, found, exact = best_completion(cl, gaps[0], eps, lam, pre, more, seconds, best)
    return {
        "class": (pre.err + lp) / cl.n + base,
        "E": low,
        "found": found,
        "exact": exact,
        "L": min(low, (pre.err + ip) / cl.n + lam * (d + more + 1)),
        "cpu": time.process_time() - t0,
    }


def report(depth: int, n_queued: int, rows: list[dict], best: float) -> str:
    m = {k: np.array([r[k] for r in rows], float) for k in ("class", "E", "found", "L", "cpu")}
    exact = np.array([r["exact"] for r in rows])
    cap = best + 0.05  # no fair completion counted as best + 0.05
    rise_e = 1000 * np.mean(np.minimum(m["E"], cap) - m["class"])
    rise_l = 1000 * np.mean(np.minimum(m["L"], cap) - m["class"])
    gap = 1000 * np.mean(best - m["class"])
    pruned = np.mean(m["L"] >= best - 1e-12)
    open_ = np.mean(exact & (m["E"] < best - 1e-12))
    beat = np.mean(m["found"] < best - 1e-12)
    needs = [r["need"] for r in rows if "need" in r]  # the bnb method's
    need = f" | need {np.mean(needs):.1f} (max {max(needs)})" if needs else ""
    return (
        f"{depth:>5} {n_queued:>7} {len(rows):>3} {exact.sum():>5} | {gap:>8.2f} {rise_e:>8.2f} "
        f"{rise_l:>8.2f} | {pruned:>6.2f} {open_:>6.2f} {beat:>6.2f} | {m['cpu'].mean():>6.1f}"
        + need
    )


def main() -> None:
    ap = case_parser(__doc__, metrics=("SP", "EOpp"))
    ap.add_argument("--per-depth", type=int, default=6, help="prefixes sampled per depth")
    ap.add_argument("--max-depth", type=int, default=3)
    ap.add_argument("--more", type=int, default=6, help="most further rules in a completion")
    ap.add_argument("--time-limit", type=float, default=20.0, help="CP-SAT seconds a prefix")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument(
        "--method",
        default="cpsat",
        choices=("cpsat", "bnb"),
        help="cpsat: CP-SAT on the subproblem; bnb: exact branch and bound below the incumbent",
    )
    args = ap.parse_args()
    cl = Classes(pd.read_csv(args.data))
    gaps = rate_rows(args.metric, cl.group_label)
    best = incumbent(args)
    rng = np.random.default_rng(args.seed)
    print(
        f"{args.metric} <= {args.epsilon}, lambda {args.lam}: incumbent {best:.6f} "
        f"({args.max_nodes:,} nodes); completions of <= {args.more} more rules, "
        + (f"CP-SAT {args.time_limit:g} s each" if args.method == "cpsat" else "branch and bound")
        + f"; per depth up to {args.per_depth} queued prefixes"
    )
    print(
        f"{'depth':>5} {'queued':>7} {'n':>3} {'exact':>5} | mean (1e-3): {'best-cls':>8} "
        f"{'E-cls':>8} {'L-cls':>8} | share: {'pruned':>6} {'open':>6} {'beats':>6} | cpu s"
    )
    for depth, n_queued, level in sampled_levels(cl, gaps, args, best, rng):
        rows = [
            measure_bnb(cl, gaps, args.epsilon, args.lam, best, pre, args.more)
            if args.method == "bnb"
            else measure(cl, gaps, args.epsilon, args.lam, best, pre, args.more, args.time_limit)
            for pre in level
        ]
        print(report(depth, n_queued, rows, best), flush=True)


if __name__ == "__main__":
    main()
