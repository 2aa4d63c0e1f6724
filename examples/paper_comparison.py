"""The paper's comparison (its Figures 3-4): fairlist against fair baselines, SP, EOpp, EOdds.

    python examples/paper_comparison.py --out comparison --quick     # minutes on 2 cores
    python examples/paper_comparison.py --out comparison             # the committed sub-grid

This is the reproduction study (``fairlist.study``; ``examples/reproduce_paper.py`` runs all
of it) restricted to the three metrics of the paper's comparison and without the exact
training fronts: fairlist's cross-validated front (policies pooled) beside fairlearn's
ExponentiatedGradient around a logistic regression and around boosted trees, with the
unconstrained rule list, logistic regression and boosted trees as reference points, all on the
same folds and measured by the same code. ``--quick`` uses the ``quick`` grid (8 caps, 3 folds,
2 policies, 20,000 nodes a fit); otherwise the ``subgrid`` one. Figures and tables go to
``--out`` (``figures/comparison_<data>_<metric>.png``, ``fronts.csv``, ``paper.csv``); the run
resumes where it stopped when started again with the same arguments.
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import replace
from pathlib import Path

from fairlist.errors import FairlistError
from fairlist.study import PRESETS, run_study, study_figures

METRICS = ("SP", "EOpp", "EOdds")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, required=True, help="results folder")
    parser.add_argument("--quick", action="store_true", help="the quick grid (minutes)")
    parser.add_argument("--n-jobs", type=int, default=None, help="local worker processes")
    parser.add_argument("--data-home", type=Path, default=None, help="folder of the raw files")
    parser.add_argument("--datasets", default="compas,adult")
    args = parser.parse_args(argv)
    grid = replace(
        PRESETS["quick" if args.quick else "subgrid"],
        metrics=METRICS,
        datasets=tuple(args.datasets.split(",")),
        training_max_length=None,
    )
    try:
        outcome = run_study(grid, args.out, n_jobs=args.n_jobs, data_home=args.data_home)
    except FairlistError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    if not outcome.complete:
        print("interrupted; run the same command again to resume", file=sys.stderr)
        return 130
    study_figures(grid, outcome.tables, args.out / "figures", outcome.data)
    paper = outcome.tables["paper"]
    print(
        paper[
            [
                "dataset",
                "metric",
                "paper_accuracy",
                "paper_unfairness",
                "cv_accuracy",
                "cv_unfairness",
            ]
        ].to_string(index=False)
    )
    print(f"figures in {args.out / 'figures'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
