"""How long binarizing and mining take on Adult and COMPAS (prints figures).

Run from the repository root::

    python benchmarks/bench_binarize.py            # data from ../shared/data
    python benchmarks/bench_binarize.py --data DIR --repeat 5 --scale 10

Each figure is the best of ``--repeat`` runs, in seconds. ``--scale k`` also times Adult's
kept rows repeated ``k`` times, to show how the cost grows with the number of rows.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pandas as pd

from fairlist.binarize import Binarizer, mdlp_cut_points
from fairlist.datasets import adult_table, load_adult, load_compas, read_adult

DEFAULT_DATA = Path(__file__).resolve().parents[2] / "shared" / "data"


def best_of(repeat: int, fn: Callable[[], object]) -> tuple[float, object]:
    """Smallest wall time of ``repeat`` calls, and the last result."""
    times, result = [], None
    for _ in range(repeat):
        start = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - start)
    return min(times), result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA, help="shared data folder")
    parser.add_argument("--repeat", type=int, default=3, help="runs per figure (best kept)")
    parser.add_argument("--scale", type=int, default=10, help="row multiplier for the last row")
    args = parser.parse_args()
    adult_dir = args.data / "adult"

    rows: list[tuple[str, int, int, float]] = []

    t, raw = best_of(
        args.repeat, lambda: read_adult([adult_dir / "adult.data", adult_dir / "adult.test"])
    )
    rows.append(("adult: read CSV + drop missing", len(raw), 0, t))
    table = adult_table(raw)
    y = (table["income"] == ">50K").to_numpy()
    features = table.drop(columns=["income"])
    learn = np.sort(np.random.default_rng(0).permutation(len(table))[: len(table) // 3])

    def mdlp_all() -> int:
        return sum(
            mdlp_cut_points(features[c].to_numpy()[learn], y[learn]).size
            for c in ("age", "capitalGain", "capitalLoss", "hoursPerWeek")
        )

    t, n_cuts = best_of(args.repeat, mdlp_all)
    rows.append((f"adult: MDLP on 4 numeric columns ({n_cuts} cuts)", learn.size, 0, t))

    ds = load_adult(adult_dir)
    cuts = ds.binarizer.cut_points_
    kept = ds.frame.drop(columns=["income"])
    for sigma in (0.1, 0.01):
        b = Binarizer(sensitive="gender", cut_points=cuts, min_support=sigma)
        t, _ = best_of(args.repeat, lambda b=b: b.fit(kept))
        m = len(b.get_feature_names_out())
        rows.append((f"adult: fit (singles, negations, pairs >= {sigma})", len(kept), m, t))
        t, out = best_of(args.repeat, lambda b=b: b.transform(kept))
        rows.append((f"adult: transform (sigma {sigma})", len(kept), out.shape[1], t))

    t, ds = best_of(args.repeat, lambda: load_adult(adult_dir))
    rows.append(("adult: load_adult() end to end", len(ds.X), ds.X.shape[1], t))
    t, cd = best_of(args.repeat, lambda: load_compas(args.data))
    rows.append(("compas: load_compas() end to end", len(cd.X), cd.X.shape[1], t))

    big = pd.concat([kept] * args.scale, ignore_index=True)
    b = Binarizer(sensitive="gender", cut_points=cuts, min_support=0.1)
    t, _ = best_of(max(1, args.repeat // 2), lambda: b.fit_transform(big))
    rows.append(
        (
            f"adult x{args.scale}: fit_transform (sigma 0.1)",
            len(big),
            len(b.get_feature_names_out()),
            t,
        )
    )

    width = max(len(r[0]) for r in rows)
    print(f"{'step'.ljust(width)}  {'rows':>8}  {'antecedents':>11}  {'seconds':>8}")
    for name, n, m, t in rows:
        print(f"{name.ljust(width)}  {n:>8}  {m if m else '':>11}  {t:>8.3f}")


if __name__ == "__main__":
    main()
