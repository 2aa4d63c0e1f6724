"""What the default fit answers: candidate default length penalties on balanced and imbalanced data.

With ``lam=0.01`` a rule must remove 1 % of the samples' worth of errors; on a table of 6 %
positives no rule does, and the default fit answers "always predict 0". This script fits, under
the same fairness cap (SP <= 0.05 by default), with each candidate default:

- COMPAS (47 % positive, the paper's antecedents);
- Adult (25 %, train + test, the paper's antecedents);
- COMPAS's violent recidivism (``violent``: 11 % positive; the 6,150 rows of the two groups;
  seven raw columns through the default binarizer; race the sensitive attribute);
- the synthetic census-like table (``wide``: 6 %, ``fairlist.synthetic.make_wide_table``,
  binarized by ``Binarizer(max_antecedents=300, handle_missing="category")``, its three ID-like
  columns dropped: this binarizer would pair their ~10,000 values before capping).

It prints per fit: the ``lam`` it resolves to, training accuracy and SP, the list's length,
whether it is certified, CPU seconds and nodes, and the list itself.

The candidates: the old default ``lam=0.01``; the paper's ``lam=0.001``; ``lam="auto"`` (the
new default: ``0.01 x`` the constant list's error rate, the minority share: the old 0.01 read
per error of the constant list, so that a rule must remove 1 % of those errors); twice that
(``0.02 x`` the minority share, which is 0.01 on a balanced table); and the paper's
``lam=0.001`` under a default-style length cap of 3 rules. Every fit runs under the estimator's
default limits (60 s, 4,000,000 nodes) on one core.

    python benchmarks/bench_defaults.py                      # all four tables, ~10 CPU min
    python benchmarks/bench_defaults.py --tables wide --rows 5000 --time-limit 10
"""

from __future__ import annotations

import argparse
import os
import time
import warnings
from pathlib import Path

import numpy as np

from fairlist import FairRuleListClassifier
from fairlist.binarize import Binarizer
from fairlist.solvers.base import DEFAULT_MAX_NODES, DEFAULT_TIME_LIMIT

ROOT = Path(__file__).resolve().parents[1]
# COMPAS and Adult from the project's shared data unless FAIRLIST_DATA_HOME names another folder
os.environ.setdefault("FAIRLIST_DATA_HOME", str(ROOT.parent / "shared" / "data"))

#: Each candidate's estimator settings; ``lam_scale`` s stands for ``lam = s x minority share``
#: (``"auto"`` is ``AUTO_LAM_SCALE`` = 0.01 of it).
CANDIDATES = {
    "0.01 (old)": {"lam": 0.01},
    "0.001 (paper)": {"lam": 0.001},
    "auto (new)": {"lam": "auto"},
    "0.02 x minority": {"lam_scale": 0.02},
    "0.001, <=3 rules": {"lam": 0.001, "max_length": 3},
}


def tables(names: list[str], rows: int):
    """(name, X, y, sensitive, protected, binarizer) of each table asked for."""
    for name in names:
        if name == "compas":
            from fairlist import load_compas

            d = load_compas()
            yield "COMPAS", d.X, d.y, d.sensitive, d.protected, "auto"
        elif name == "adult":
            from fairlist import load_adult

            d = load_adult()
            yield "Adult", d.X, d.y, d.sensitive, d.protected, "auto"
        elif name == "violent":
            import pandas as pd

            path = Path(os.environ["FAIRLIST_DATA_HOME"]) / "compas" / "compas-scores-two-years.csv"
            raw = pd.read_csv(path)
            raw = raw[raw["race"].isin(["African-American", "Caucasian"])]
            columns = ["age", "sex", "juv_fel_count", "juv_misd_count", "juv_other_count"]
            columns += ["priors_count", "c_charge_degree"]
            X, y = raw[columns].reset_index(drop=True), raw["is_violent_recid"].to_numpy()
            race = raw["race"].reset_index(drop=True)
            yield "COMPAS viol.", X, y, race, None, "auto"
        elif name == "wide":
            from fairlist.synthetic import make_wide_table

            t = make_wide_table(rows, seed=0)
            X = t.X.drop(columns=list(t.id_like))  # the ID-like columns: see the docstring
            binarizer = Binarizer(max_antecedents=300, handle_missing="category")
            yield f"wide {rows:,}", X, t.y, t.sensitive, None, binarizer
        else:
            raise SystemExit(f"unknown table {name!r}: compas, adult, violent or wide")


def fit_one(X, y, s, protected, binarizer, epsilon, time_limit, params):
    params = dict(params)
    if "lam_scale" in params:
        share = float(np.mean(np.asarray(y) == np.asarray(y).max()))
        params["lam"] = params.pop("lam_scale") * min(share, 1 - share)
    clf = FairRuleListClassifier(
        metric="SP",
        epsilon=epsilon,
        binarizer=binarizer,
        handle_missing="category" if binarizer != "auto" else None,
        time_limit=time_limit,
        **params,
    )
    cpu = time.process_time()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        clf.fit(X, y, sensitive_features=s, protected=protected)
    cpu = time.process_time() - cpu
    return clf, cpu


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tables", nargs="+", default=["compas", "adult", "violent", "wide"])
    ap.add_argument("--rows", type=int, default=20_000, help="rows of the synthetic table")
    ap.add_argument("--epsilon", type=float, default=0.05, help="the SP cap")
    ap.add_argument("--time-limit", type=float, default=DEFAULT_TIME_LIMIT)
    ap.add_argument("--candidates", nargs="+", default=list(CANDIDATES))
    args = ap.parse_args()
    print(
        f"SP <= {args.epsilon}, time limit {args.time_limit:g} s, {DEFAULT_MAX_NODES:,} nodes, "
        "one core; CPU seconds of the whole fit (binarizing included)"
    )
    head = (
        f"{'table':<12} {'minority':>8} {'candidate':<16} {'lam':>8} {'accuracy':>8} "
        f"{'SP':>6} {'rules':>5} {'certified':>9} {'CPU s':>6} {'nodes':>9}  list"
    )
    print(head)
    print("-" * len(head))
    for name, X, y, s, protected, binarizer in tables(args.tables, args.rows):
        share = float(np.mean(np.asarray(y) == np.asarray(y).max()))
        share, constant = min(share, 1 - share), max(share, 1 - share)
        for cand in args.candidates:
            clf, cpu = fit_one(
                X, y, s, protected, binarizer, args.epsilon, args.time_limit, CANDIDATES[cand]
            )
            rules = (
                " | ".join(f"{r.antecedent} -> {r.prediction}" for r in clf.rule_list_.rules)
                + f" | else {clf.rule_list_.default}"
            )
            certified = "yes" if str(clf.status_) == "optimal" else "no"
            print(
                f"{name:<12} {share:>8.3f} {cand:<16} {clf.lam_:>8.5f} {clf.accuracy_:>8.4f} "
                f"{clf.unfairness_:>6.4f} {len(clf.rule_list_):>5} {certified:>9} {cpu:>6.1f} "
                f"{clf.stats_.get('nodes_expanded', 0):>9,}  {rules}",
                flush=True,
            )
        print(f"{'':<12} {'':>8} {'(constant list)':<16} {'':>8} {constant:>8.4f}")


if __name__ == "__main__":
    main()
