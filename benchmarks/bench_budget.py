"""The antecedent budget on the synthetic wide table: what binarizing, certifying and predicting
cost with each budget, against keeping every antecedent (prints figures and ratios).

Run from the repository root::

    python benchmarks/bench_budget.py                       # 20,000 rows, budgets 100-1000
    python benchmarks/bench_budget.py --rows 200000 --budgets 300,500 --baseline

Each fit is ``FairRuleListClassifier(metric="SP", epsilon=0.05, lam=0.001, max_length=3)``
with ``Binarizer(max_antecedents=B, handle_missing="category")``; times are CPU seconds of
this process (``time.process_time``), so a shared machine changes them less than wall time.
``--baseline`` adds ``max_antecedents=None`` (every antecedent made, as fairlist 0.1 kept
them) under ``--time-limit``. The predict rows compare a 2-rule model's ``predict`` (which
evaluates only the antecedents its rules read) with transforming every kept antecedent first
(what ``predict`` did before), on ``--predict-rows`` rows: CPU seconds and peak traced memory.
"""

from __future__ import annotations

import argparse
import time
import tracemalloc
import warnings

import numpy as np

from fairlist import FairRuleListClassifier
from fairlist.binarize import Binarizer
from fairlist.synthetic import make_wide_table


def cpu(fn):
    """CPU seconds of ``fn()`` and its result."""
    start = time.process_time()
    out = fn()
    return time.process_time() - start, out


def peak_mb(fn) -> float:
    """Peak memory (MiB) that ``fn()`` allocates, as tracemalloc sees it (numpy included)."""
    tracemalloc.start()
    fn()
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return peak / 2**20


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=20_000)
    parser.add_argument("--budgets", default="100,200,300,500,1000")
    parser.add_argument("--baseline", action="store_true", help="also max_antecedents=None")
    parser.add_argument("--time-limit", type=float, default=120.0)
    parser.add_argument("--predict-rows", type=int, default=100_000)
    args = parser.parse_args()
    warnings.simplefilter("ignore")
    table = make_wide_table(args.rows, seed=0)
    groups = table.sensitive.to_numpy()
    budgets: list[int | None] = [int(b) for b in args.budgets.split(",")]
    if args.baseline:
        budgets.append(None)
    print(f"synthetic wide table: {args.rows} rows x {table.X.shape[1]} columns")
    print("budget  binarize_s  made  kept  fit_cpu_s  status    objective  lower_bound  rules")
    reference = None
    for budget in budgets:
        b = Binarizer(max_antecedents=budget, handle_missing="category")
        t_bin, _ = cpu(lambda b=b: b.fit(table.X, table.y))
        clf = FairRuleListClassifier(
            metric="SP",
            epsilon=0.05,
            lam=0.001,
            max_length=3,
            binarizer=b,
            time_limit=args.time_limit,
            max_nodes=None,
        )
        t_fit, _ = cpu(lambda clf=clf: clf.fit(table.X, table.y, sensitive_features=groups))
        rules = [r.antecedent for r in clf.rule_list_.rules]
        print(
            f"{budget!s:>6}  {t_bin:10.2f}  {b.n_antecedents_made_:4d}  {b.n_antecedents_kept_:4d}"
            f"  {t_fit:9.2f}  {clf.status_!s:8}  {clf.objective_:9.5f}  {clf.lower_bound_:11.5f}"
            f"  {rules}"
        )
        if budget == 300:
            reference = t_fit
    if reference is not None and args.baseline:
        print(f"(the baseline's CPU time / the budget 300's: {t_fit / reference:.1f}x)")

    # predict: a 2-rule model on --predict-rows rows
    model = FairRuleListClassifier(
        metric="SP", epsilon=0.05, lam=0.001, max_length=2, handle_missing="category"
    ).fit(table.X, table.y, sensitive_features=groups)
    rows = make_wide_table(args.predict_rows, seed=1).X
    rl, binarizer = model.rule_list_, model.binarizer_

    def every_antecedent():
        return rl.predict(np.asarray(binarizer.transform(rows)))

    t_new, new = cpu(lambda: model.predict(rows))
    t_old, old = cpu(every_antecedent)
    assert np.array_equal(model.classes_.searchsorted(new), old)
    m_new, m_old = peak_mb(lambda: model.predict(rows)), peak_mb(every_antecedent)
    print(
        f"predict, {model.rule_list_.length}-rule model, {args.predict_rows} rows, "
        f"{binarizer.n_antecedents_kept_} antecedents kept:"
    )
    print(f"  reading the rules' antecedents only: {t_new:.2f} CPU s, {m_new:.0f} MiB peak")
    print(f"  transforming every antecedent first: {t_old:.2f} CPU s, {m_old:.0f} MiB peak")
    print(f"  ratio: {t_old / max(t_new, 1e-9):.1f}x time, {m_old / max(m_new, 1e-9):.1f}x memory")


if __name__ == "__main__":
    main()
