"""Reproduce the paper's experiments (Figures 2-4 and the appendix examples) in one command.

    python examples/reproduce_paper.py --preset subgrid --out study-results --n-jobs 2
    python examples/reproduce_paper.py --preset paper --out study-results --scheduler tcp://host:8786

Runs :func:`fairlist.study.run_study` on a named grid (``--preset``: ``paper`` — the paper's
60 caps x 5 folds x 4 policies, both data sets, six metrics, 4,000,000 trie nodes a fit —,
``subgrid``, ``quick``, ``smoke``; see ``fairlist.study.PRESETS``), with the options below
overriding its fields. Every finished fit is stored in ``--out/records``; rerunning the same
command resumes where a previous run stopped (Ctrl-C stops cleanly and keeps what is done).
When every fit is done it writes the tables (``fits.csv``, ``points.csv``, ``fronts.csv``,
``training_fronts.csv``, ``paper.csv``, ``policies.csv``, ``orders.csv``), their markdown
summary (``report.md``) and the figures (``figures/``) into ``--out``, and prints the table
against the paper's examples and the parallel efficiency.

``--out`` must be a new or empty folder, or one this command wrote: any other folder is refused,
never written into. SIGTERM stops the run as Ctrl-C does (the fits done are kept, the workers
end with it).

Exit status: 0 done, 1 error (one line naming the argument or the file, no traceback), 2 a
malformed option, 130 interrupted by Ctrl-C, 143 by SIGTERM (resume by rerunning).
Needs the ``study`` extra (``pip install -e '.[study]'``: fairlearn, dask[distributed]).
"""

from __future__ import annotations

import argparse
import sys
import time
from dataclasses import replace
from pathlib import Path

from fairlist.errors import FairlistError
from fairlist.interrupts import InterruptSignals
from fairlist.study import PRESETS, ResultsFolderError, run_study, study_figures, study_report


def _floats(text: str) -> tuple[float, ...]:
    """``0.01,0.02`` or ``linspace:0,1,60``."""
    try:
        if text.startswith("linspace:"):
            import numpy as np

            low, high, n = text.split(":", 1)[1].split(",")
            return tuple(float(v) for v in np.linspace(float(low), float(high), int(n)))
        return tuple(float(v) for v in text.split(",") if v.strip())
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"{text!r} is not a list of numbers (0.01,0.02 or linspace:LOW,HIGH,N)"
        ) from None


def _n_jobs(text: str) -> int:
    """A nonzero integer (-1: one worker per core)."""
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value == 0:
        raise argparse.ArgumentTypeError(
            f"{text!r}: give a number of worker processes >= 1, or -1 for one per core"
        )
    return value


def _names(text: str) -> tuple[str, ...]:
    return tuple(v.strip() for v in text.split(",") if v.strip())


#: Grid fields the command line can override: option -> (field, parser).
OVERRIDES = {
    "datasets": _names,
    "metrics": _names,
    "epsilons": _floats,
    "policies": _names,
    "pooled": _names,
    "cv": int,
    "seed": int,
    "lam": float,
    "max_nodes": int,
    "memory_limit_mb": float,
    "baselines": _names,
    "bounds": _floats,
    "expgrad_iterations": int,
    "baseline_metrics": _names,
    "training_max_length": int,
    "training_max_points": int,
}


def parse(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        description=__doc__.splitlines()[0], formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--preset", choices=sorted(PRESETS), default="subgrid", help="named grid (default: subgrid)"
    )
    parser.add_argument("--out", type=Path, required=True, help="results folder")
    parser.add_argument("--n-jobs", type=_n_jobs, default=None, help="local worker processes")
    parser.add_argument("--scheduler", default=None, help="Dask scheduler address")
    parser.add_argument("--data-home", type=Path, default=None, help="folder of the raw files")
    parser.add_argument("--max-fits", type=int, default=None, help="stop after this many fits")
    parser.add_argument("--no-figures", action="store_true", help="tables only")
    for name, kind in OVERRIDES.items():
        parser.add_argument(
            f"--{name.replace('_', '-')}",
            dest=name,
            default=None,
            type=kind,
            help=f"override the preset's {name}",
        )
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse(argv)
    changes = {n: v for n in OVERRIDES if (v := getattr(args, n)) is not None}
    start = time.perf_counter()
    # SIGTERM as Ctrl-C: the run stops, its workers are ended, the fits done are kept
    with InterruptSignals() as signals:
        try:
            grid = replace(PRESETS[args.preset], **changes)
            outcome = run_study(
                grid,
                args.out,
                n_jobs=args.n_jobs,
                scheduler=args.scheduler,
                data_home=args.data_home,
                max_fits=args.max_fits,
            )
        except ResultsFolderError as exc:
            print(f"error: --out: {exc}", file=sys.stderr)
            return 1
        except (FairlistError, OSError) as exc:
            print(f"error: {exc}", file=sys.stderr)
            return 1
        except KeyboardInterrupt:  # before the fits started (loading the data)
            print("interrupted before any fit; nothing stored", file=sys.stderr)
            return signals.exit_code
    print(outcome.report.summary(), file=sys.stderr)
    if not outcome.complete:
        print(
            f"stopped: {outcome.stored + outcome.computed}/{outcome.total} fits stored in "
            f"{args.out}; run the same command again to resume",
            file=sys.stderr,
        )
        if signals.received or (outcome.report.interrupted and args.max_fits is None):
            return signals.exit_code
        return 0
    (args.out / "report.md").write_text(study_report(grid, outcome.tables), encoding="utf-8")
    if not args.no_figures:
        study_figures(grid, outcome.tables, args.out / "figures", outcome.data)
    paper = outcome.tables["paper"]
    if len(paper):
        print(paper.to_string(index=False, float_format=lambda v: f"{v:.3f}"))
    print(f"tables and figures in {args.out} ({time.perf_counter() - start:.0f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
