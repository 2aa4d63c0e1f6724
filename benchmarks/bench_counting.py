"""Issue 34 item 3: the terminal solver's counting as the rows grow.  The <= 3- and <= 4-rule
certificates (SP <= 0.05, lambda 0.005, best-first by lower bound, one core) on a pre-binarized
224-antecedent 0/1 matrix of ``fairlist.synthetic.make_wide_table(n, seed=0)`` at 5,000 to
100,000 rows, with three countings of the terminal solver's pair rows (native/src/pair_counts.cpp),
one run each in its own process pinned to one core:

* ``old`` (``use_class_pair_counts=False``): summed class by class over each class's antecedents;
* ``units`` (``use_weight_plane_counts=False``): the classes of one sample by word-level popcounts
  of their (group, label) bitsets, the others class by class;
* ``new`` (the default): every class by popcounts, through the bit planes of its weights, the
  pair rows of a sparse set on the bit layout packed to its bits (pext);
* ``unpacked`` (``Diagnostics::packed_pair_counts`` off): ``new`` on the whole layout;
* ``unmirrored`` (``Diagnostics::mirrored_pair_rows`` off): ``new`` counting both (a, b) and
  (b, a) where it now copies one;
* ``plain``: both off (``new`` of the last session, but for the cost model and the loops).

The matrix (``matrix(n)``, fixed seeds): the ID-like columns dropped; the first six numeric
columns cut at their quartiles (``x <= q`` and ``x > q``), education, marital and the most
frequent levels of occupation and cat_03 one-hot (``== level`` and ``!= level``), then pairwise
conjunctions of those from different columns (support at least 2 %, drawn with seed 0) up to
224 antecedents.  Conjunctions add no distinct rows, so the distinct rows grow with n much as in
the issue's census table (there 3,947 / 14,707 / 34,857 / 66,468 at 5k / 20k / 50k / 100k).

Printed per run: rows, rule cap, counting, status, objective, expansions, prefixes finished by
counting, distinct row classes, CPU seconds of the solve (user time), µs per expansion per 1,000
classes; per case each counting's CPU seconds over new's, and whether the objectives and
expansions agree (they must: the counts are the same numbers).

    python benchmarks/bench_counting.py                       # 5k..100k, <= 3 and <= 4 rules
    python benchmarks/bench_counting.py --rows 100000 --lengths 4 --counting old units new
    python benchmarks/bench_counting.py --rows 100000 --lengths 4 \
        --counting units plain unpacked unmirrored new

``--compas`` runs the paper's binarized COMPAS instead (``../shared/data/faircorels``, or
``$FAIRLIST_DATA_HOME/faircorels``): SP and EOdds <= 0.05, unweighted and with positives
weighing 2 (``+w``), at each rule cap; there the countings must expand the same nodes too.

    python benchmarks/bench_counting.py --compas --lengths 4 --counting old units plain new
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
from pathlib import Path

ROWS = (5_000, 20_000, 50_000, 100_000)
COMPAS_CASES = ("SP", "EOdds", "SP+w", "EOdds+w")
# The countings compared: class by class; the classes of one sample by popcounts (the rest
# class by class); every class by popcounts, through the bit planes of its weights, on the
# whole bit layout or (new) sparse sets on a packed one (a fairlist::Diagnostics switch).
COUNTING = {
    "old": dict(use_class_pair_counts=False),
    "units": dict(use_class_pair_counts=True, use_weight_plane_counts=False),
    "unpacked": dict(
        use_class_pair_counts=True, use_weight_plane_counts=True, packed_pair_counts=False
    ),
    "unmirrored": dict(
        use_class_pair_counts=True, use_weight_plane_counts=True, mirrored_pair_rows=False
    ),
    "plain": dict(
        use_class_pair_counts=True,
        use_weight_plane_counts=True,
        packed_pair_counts=False,
        mirrored_pair_rows=False,
    ),
    "new": dict(use_class_pair_counts=True, use_weight_plane_counts=True),
}


def matrix(n: int):
    """The pre-binarized table: (X uint8 n x 224, y, sensitive as bool, names)."""
    import numpy as np
    import pandas as pd

    from fairlist.synthetic import make_wide_table

    table = make_wide_table(n, seed=0)
    frame = table.X.drop(columns=list(table.id_like))
    cols: list = []
    names: list[str] = []
    source: list[str] = []
    numeric = [c for c in frame.columns if pd.api.types.is_numeric_dtype(frame[c])][:6]
    for c in numeric:
        v = frame[c].to_numpy(float)
        for q in np.unique(np.nanquantile(v, (0.25, 0.5, 0.75))):
            a = np.nan_to_num(v, nan=np.inf) <= q
            cols += [a, ~a]
            names += [f"{c}<={q:g}", f"{c}>{q:g}"]
            source += [c, c]
    for c, k in {"education": 8, "marital": 3, "occupation": 4, "cat_03": 3}.items():
        s = frame[c].astype(object).where(frame[c].notna(), "missing")
        for level in s.value_counts().index[:k]:
            a = (s == level).to_numpy()
            cols += [a, ~a]
            names += [f"{c}=={level}", f"{c}!={level}"]
            source += [c, c]
    rng = np.random.default_rng(0)
    base = len(cols)
    while len(cols) < 224:
        i, j = (int(x) for x in rng.choice(base, 2, replace=False))
        if source[i] == source[j] or f"{names[i]}&{names[j]}" in names:
            continue
        a = cols[i] & cols[j]
        if a.mean() < 0.02:
            continue
        cols.append(a)
        names.append(f"{names[i]}&{names[j]}")
        source.append("")
    X = np.column_stack(cols).astype(np.uint8)
    return X, np.asarray(table.y, np.uint8), (table.sensitive == "Female").to_numpy(), names


def compas(case: str):
    """The paper's binarized COMPAS (X, y, sensitive, names, weights) for a COMPAS case."""
    import numpy as np
    import pandas as pd

    home = os.environ.get("FAIRLIST_DATA_HOME")
    root = Path(home) if home else Path(__file__).resolve().parents[2] / "shared" / "data"
    frame = pd.read_csv(root / "faircorels" / "compas_rules_full.csv")
    X = frame.iloc[:, 2:-1].to_numpy(np.uint8)
    y = frame.iloc[:, -1].to_numpy(np.uint8)
    s = frame.iloc[:, 0].to_numpy(bool)
    weights = 1.0 + y if case.endswith("+w") else None  # positives weigh 2: exact
    return X, y, s, list(frame.columns[2:-1]), weights


def run_one(args: argparse.Namespace) -> None:
    """Child process: one solve on one core, one JSON line on stdout."""
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {sorted(os.sched_getaffinity(0))[-1]})
    import numpy as np

    from fairlist._core import DIAGNOSTICS
    from fairlist.metrics import Metric
    from fairlist.solvers import Limits, Problem
    from fairlist.solvers.bnb import BnBSolver

    options = dict(COUNTING[args.counting])
    diagnostics = {k: options.pop(k) for k in DIAGNOSTICS if k in options}

    class Diagnosed(BnBSolver):
        def _config(self, limits, max_length):
            return {**super()._config(limits, max_length), **diagnostics}

    weights = None
    if args.case:
        X, y, s, names, weights = compas(args.case)
    else:
        X, y, s, names = matrix(args.rows)
    classes = len(np.unique(np.column_stack([np.packbits(X, axis=1), y, s]), axis=0))
    problem = Problem(
        X,
        y,
        s,
        sample_weight=weights,
        metric=Metric.parse(args.case.removesuffix("+w") if args.case else "SP"),
        epsilon=0.05,
        lam=0.005,
        max_length=args.length,
        feature_names=names,
        limits=Limits(max_nodes=args.max_nodes, time_limit=args.time_limit),
    )
    solver = Diagnosed(policy="lower_bound", **options)
    before = resource.getrusage(resource.RUSAGE_SELF)
    result = solver.solve(problem)
    after = resource.getrusage(resource.RUSAGE_SELF)
    st = result.stats
    json.dump(
        {
            "status": str(result.status),
            "objective": result.objective,
            "lower_bound": result.lower_bound,
            "cpu": after.ru_utime - before.ru_utime,
            "classes": classes,
            "expanded": st["nodes_expanded"],
            "terminal": st["terminal_prefixes"],
        },
        sys.stdout,
    )


def run(args: argparse.Namespace, rows: int | str, length: int, counting: str) -> dict:
    cmd = [sys.executable, __file__, "--one", "--length", str(length)]
    cmd += ["--case", rows] if isinstance(rows, str) else ["--rows", str(rows)]
    cmd += ["--counting", counting, "--max-nodes", str(args.max_nodes)]
    cmd += ["--time-limit", str(args.time_limit)]
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    return json.loads(out)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=int, nargs="+", default=list(ROWS))
    ap.add_argument("--lengths", type=int, nargs="+", default=[3, 4])
    ap.add_argument("--counting", nargs="+", default=list(COUNTING), choices=list(COUNTING))
    ap.add_argument("--max-nodes", type=int, default=4_000_000, help="trie budget per run")
    ap.add_argument("--time-limit", type=float, default=3600.0, help="seconds per run")
    ap.add_argument("--compas", action="store_true", help="the paper's COMPAS cases instead")
    ap.add_argument("--one", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--case", default="", help=argparse.SUPPRESS)
    ap.add_argument("--length", type=int, default=4, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.one:
        args.rows = args.rows[0]
        args.counting = args.counting[0]
        return run_one(args)
    print(
        f"{'rows':>7} {'L':>2} {'count':<10} {'status':<9} {'objective':>9} {'expanded':>9} "
        f"{'finished':>9} {'classes':>8} {'cpu_s':>8} {'us/exp/kcl':>10}"
    )
    for rows in COMPAS_CASES if args.compas else args.rows:
        for length in args.lengths:
            results = {}
            for counting in args.counting:
                r = run(args, rows, length, counting)
                results[counting] = r
                per = 1e6 * r["cpu"] / max(r["expanded"], 1) / (r["classes"] / 1000)
                label = rows if isinstance(rows, str) else f"{rows:,}"
                print(
                    f"{label:>7} {length:>2} {counting:<10} {r['status']:<9} "
                    f"{r['objective']:>9.6f} {r['expanded']:>9,} {r['terminal']:>9,} "
                    f"{r['classes']:>8,} {r['cpu']:>8.2f} {per:>10.3f}",
                    flush=True,
                )
            if "new" in results:
                new = results["new"]
                for base in ("old", "units", "plain", "unpacked", "unmirrored"):
                    if base not in results:
                        continue
                    r = results[base]
                    same = r["objective"] == new["objective"] and r["expanded"] == new["expanded"]
                    print(
                        f"{'':>7} {'':>2} {base}/new cpu {r['cpu'] / max(new['cpu'], 1e-9):.2f}x, "
                        f"same objective and expansions: {same}",
                        flush=True,
                    )


if __name__ == "__main__":
    main()
