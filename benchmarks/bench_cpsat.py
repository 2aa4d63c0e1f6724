"""How far the CP-SAT engine proves optimality, and what its warm start buys the branch-and-bound.

(a) ``size``: on COMPAS subsamples (random rows and antecedent columns of the published binarized
    file; column 0 is the protected group, the last column the label), for each (rows,
    antecedents) the length bound grows until CP-SAT no longer proves optimality within the time
    limit; one table row per run: status, seconds, model size (patterns, variables,
    constraints), objective and lower bound.
(b) ``warmstart``: the branch-and-bound's expanded nodes and seconds with and without a
    CP-SAT warm start (``fairlist.solvers.warmstart.solve_with_warm_start``).
(c) ``groups``: CP-SAT over more than two groups, on the raw ProPublica COMPAS table (the
    paper's filters, every race kept; quantile-binarized, no conjunctions): the six races, or
    race x sex (their intersections), optionally with sample weights that balance the groups
    (each group's weights sum to the same total, written with two decimals so that CP-SAT reads
    them exactly); one row per (rows, metric, length bound): groups, status, seconds, model size,
    objective and the chosen list's unfairness.

Run from the repository root (venv active)::

    python benchmarks/bench_cpsat.py size --time-limit 60
    python benchmarks/bench_cpsat.py warmstart --seconds 5
    python benchmarks/bench_cpsat.py groups --sensitive race sex --weights balanced
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

from fairlist.solvers import Limits, Problem, Status
from fairlist.solvers.cpsat import CPSatSolver

DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "faircorels"
DATA = DATA / "compas_rules_full.csv"
RAW = Path(__file__).resolve().parents[2] / "shared" / "data" / "compas"
RAW = RAW / "compas-scores-two-years.csv"


def load_compas():
    import pandas as pd

    if not DATA.is_file():
        sys.exit(f"COMPAS file not found at {DATA}")
    return pd.read_csv(DATA)


def subsample(data, n_rows: int, n_antecedents: int, seed: int, **kwargs) -> Problem:
    """Random rows and antecedent columns (all of them when the count reaches the total)."""
    rng = np.random.default_rng(seed)
    rows = np.arange(len(data)) if n_rows >= len(data) else rng.choice(len(data), n_rows, False)
    total = data.shape[1] - 3
    picked = np.arange(total) if n_antecedents >= total else rng.choice(total, n_antecedents, False)
    cols = 2 + np.sort(picked)
    return Problem(
        data.iloc[rows, cols].to_numpy(np.uint8),
        data.iloc[rows, -1].to_numpy(np.uint8),
        data.iloc[rows, 0].to_numpy(bool),
        feature_names=list(data.columns[cols]),
        **kwargs,
    )


def size_sweep(args) -> None:
    data = load_compas()
    print(
        f"CP-SAT on COMPAS subsamples: metric {args.metric}, epsilon {args.epsilon}, "
        f"lambda {args.lam}, {args.workers} workers, time limit {args.time_limit:g} s"
    )
    header = (
        f"{'rows':>5} {'ants':>4} {'K':>2} {'status':>10} {'seconds':>8} {'patterns':>8} "
        f"{'vars':>6} {'cons':>6} {'objective':>10} {'bound':>10}"
    )
    print(header)
    print("-" * len(header))
    for n_rows in args.rows:
        for n_ants in args.antecedents:
            for K in args.max_lengths:
                problem = subsample(
                    data,
                    n_rows,
                    n_ants,
                    args.seed,
                    metric=args.metric,
                    epsilon=args.epsilon,
                    lam=args.lam,
                    max_length=K,
                    limits=Limits(time_limit=args.time_limit),
                )
                res = CPSatSolver(num_workers=args.workers).solve(problem)
                s = res.stats
                print(
                    f"{problem.n_samples:>5} {problem.n_antecedents:>4} {K:>2} "
                    f"{res.status.value:>10} {s['seconds']:>8.2f} {s['n_patterns']:>8} "
                    f"{s['n_variables']:>6} {s['n_constraints']:>6} {res.objective:>10.5f} "
                    f"{res.lower_bound:>10.5f}",
                    flush=True,
                )
                if res.status not in (Status.OPTIMAL, Status.INFEASIBLE):
                    break  # longer lists only get harder


def warm_start(args) -> None:
    from fairlist.solvers.bnb import BnBSolver
    from fairlist.solvers.warmstart import solve_with_warm_start

    data = load_compas()
    print(
        f"branch-and-bound with/without a {args.seconds:g} s CP-SAT warm start "
        f"({args.workers} CP-SAT workers), lambda {args.lam}, bnb time limit {args.time_limit:g} s"
    )
    header = (
        f"{'rows':>5} {'ants':>4} {'K':>2} {'metric':>6} {'eps':>5} | {'cold nodes':>10} "
        f"{'cold s':>7} {'status':>8} | {'warm nodes':>10} {'bnb s':>7} {'cpsat s':>7} "
        f"{'status':>8} | {'cold obj':>9} {'warm obj':>9}"
    )
    print(header)
    print("-" * len(header))
    for n_rows, n_ants, K in args.instances:
        for metric in args.metrics:
            for eps in args.epsilons:
                problem = subsample(
                    data,
                    n_rows,
                    n_ants,
                    args.seed,
                    metric=metric,
                    epsilon=eps,
                    lam=args.lam,
                    max_length=K,
                    limits=Limits(time_limit=args.time_limit),
                )
                start = time.perf_counter()
                cold = BnBSolver(policy=args.policy).solve(problem)
                cold_s = time.perf_counter() - start
                warm = solve_with_warm_start(
                    problem, seconds=args.seconds, num_workers=args.workers, policy=args.policy
                )
                ws = warm.stats["warm_start_cpsat"]
                both = cold.status is Status.OPTIMAL and warm.status is Status.OPTIMAL
                same = not both or abs(cold.objective - warm.objective) <= 1e-9
                print(
                    f"{problem.n_samples:>5} {problem.n_antecedents:>4} {K:>2} {metric:>6} "
                    f"{eps:>5} | {cold.stats['nodes_expanded']:>10} {cold_s:>7.2f} "
                    f"{cold.status.value:>8} | {warm.stats['nodes_expanded']:>10} "
                    f"{warm.stats['seconds']:>7.2f} {ws['seconds']:>7.2f} "
                    f"{warm.status.value:>8} | {cold.objective:>9.5f} {warm.objective:>9.5f}"
                    + ("" if same else "  OPTIMA DIFFER (bug)"),
                    flush=True,
                )


def raw_compas_groups(n_rows: int, sensitive: list[str], weights: str | None, seed: int, **kw):
    """A Problem of the raw COMPAS table: every race kept, the groups of ``sensitive``."""
    import warnings

    import pandas as pd

    from fairlist.binarize import Binarizer
    from fairlist.groups import SmallGroupWarning

    if not RAW.is_file():
        sys.exit(f"raw COMPAS file not found at {RAW}")
    raw = pd.read_csv(RAW)
    keep = (
        raw["days_b_screening_arrest"].between(-30, 30)
        & (raw["is_recid"] != -1)
        & (raw["c_charge_degree"] != "O")
        & raw["score_text"].notna()
    )
    columns = [
        "age",
        "priors_count",
        "juv_fel_count",
        "juv_misd_count",
        "juv_other_count",
        "c_charge_degree",
        "sex",
        "race",
    ]
    table = raw.loc[keep, columns + ["two_year_recid"]].reset_index(drop=True)
    rng = np.random.default_rng(seed)
    if n_rows < len(table):
        table = table.iloc[np.sort(rng.choice(len(table), n_rows, replace=False))]
    y = table.pop("two_year_recid").to_numpy()
    juvenile = {c: [1.0] for c in ("juv_fel_count", "juv_misd_count", "juv_other_count")}
    binarizer = Binarizer(
        sensitive=sensitive, numeric="quantile", n_bins=4, conjunctions=False, cut_points=juvenile
    )
    X = binarizer.fit_transform(table, y)
    groups = table[sensitive]
    w = None
    if weights == "balanced":  # every group weighs the same in total
        keys = groups.astype(str).agg(" & ".join, axis=1)
        sizes = keys.map(keys.value_counts())
        w = np.round(len(keys) / (keys.nunique() * sizes.to_numpy()), 2)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SmallGroupWarning)
        return Problem.from_data(
            X, y, groups if len(sensitive) > 1 else groups.iloc[:, 0], sample_weight=w, **kw
        )


def groups_sweep(args) -> None:
    print(
        f"CP-SAT over the groups of {' x '.join(args.sensitive)} (raw COMPAS), weights "
        f"{args.weights}, epsilon {args.epsilon}, lambda {args.lam}, {args.workers} workers, "
        f"time limit {args.time_limit:g} s"
    )
    header = (
        f"{'rows':>5} {'G':>3} {'ants':>4} {'metric':>6} {'K':>2} {'status':>10} {'seconds':>8} "
        f"{'patterns':>8} {'vars':>6} {'cons':>6} {'objective':>10} {'unfair':>7} {'exact':>5}"
    )
    print(header)
    print("-" * len(header))
    for n_rows in args.rows:
        for metric in args.metrics:
            for K in args.max_lengths:
                problem = raw_compas_groups(
                    n_rows,
                    args.sensitive,
                    args.weights,
                    args.seed,
                    metric=metric,
                    epsilon=args.epsilon,
                    lam=args.lam,
                    max_length=K,
                    limits=Limits(time_limit=args.time_limit),
                )
                res = CPSatSolver(num_workers=args.workers).solve(problem)
                s = res.stats
                exact = s["weights_exact"] and s["epsilon_exact"]
                print(
                    f"{problem.n_samples:>5} {problem.n_groups:>3} {problem.n_antecedents:>4} "
                    f"{metric:>6} {K:>2} {res.status.value:>10} {s['seconds']:>8.2f} "
                    f"{s['n_patterns']:>8} {s['n_variables']:>6} {s['n_constraints']:>6} "
                    f"{res.objective:>10.5f} {res.unfairness:>7.4f} {str(exact):>5}",
                    flush=True,
                )
                if res.status not in (Status.OPTIMAL, Status.INFEASIBLE):
                    break


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    size = sub.add_parser("size", help="largest instances CP-SAT proves optimal in time")
    size.add_argument("--rows", type=int, nargs="+", default=[300, 1000, 6000])
    size.add_argument("--antecedents", type=int, nargs="+", default=[12, 24, 48, 200])
    size.add_argument("--max-lengths", type=int, nargs="+", default=[1, 2, 3, 4, 5, 6])
    size.add_argument("--metric", default="SP")
    size.add_argument("--epsilon", type=float, default=0.05)
    size.add_argument("--lam", type=float, default=0.005)
    size.add_argument("--time-limit", type=float, default=60.0)
    size.add_argument("--workers", type=int, default=2)
    size.add_argument("--seed", type=int, default=1)
    size.set_defaults(func=size_sweep)

    ws = sub.add_parser("warmstart", help="bnb nodes and seconds with and without warm start")
    ws.add_argument(
        "--instances",
        type=lambda s: tuple(int(x) for x in s.split("x")),
        nargs="+",
        default=[(6000, 48, 3), (6000, 200, 2), (6000, 200, 3)],
        help="ROWSxANTECEDENTSxMAXLEN, e.g. 6000x48x3",
    )
    ws.add_argument("--metrics", nargs="+", default=["SP", "PP", "EOdds"])
    ws.add_argument("--epsilons", type=float, nargs="+", default=[0.02])
    ws.add_argument("--lam", type=float, default=0.005)
    ws.add_argument("--seconds", type=float, default=5.0)
    ws.add_argument("--time-limit", type=float, default=120.0)
    ws.add_argument("--policy", default="bfs")
    ws.add_argument("--workers", type=int, default=2)
    ws.add_argument("--seed", type=int, default=1)
    ws.set_defaults(func=warm_start)

    gr = sub.add_parser("groups", help="CP-SAT over many groups (raw COMPAS races, race x sex)")
    gr.add_argument("--rows", type=int, nargs="+", default=[1000, 6000])
    gr.add_argument("--sensitive", nargs="+", default=["race"], help="race, or race sex")
    gr.add_argument("--weights", choices=["balanced"], default=None)
    gr.add_argument("--metrics", nargs="+", default=["SP", "EOpp", "EOdds", "PP"])
    gr.add_argument("--max-lengths", type=int, nargs="+", default=[1, 2, 3])
    gr.add_argument("--epsilon", type=float, default=0.1)
    gr.add_argument("--lam", type=float, default=0.005)
    gr.add_argument("--time-limit", type=float, default=60.0)
    gr.add_argument("--workers", type=int, default=2)
    gr.add_argument("--seed", type=int, default=1)
    gr.set_defaults(func=groups_sweep)

    args = parser.parse_args(argv)
    args.func(args)


if __name__ == "__main__":
    main()
