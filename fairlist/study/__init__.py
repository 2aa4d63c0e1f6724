"""The paper's experiments, reproduced: one deterministic, resumable, parallel study.

FairCORELS' evidence (its section "Experiments") is a set of Pareto fronts: for Adult and COMPAS,
for the six unfairness measures, 60 caps ``epsilon`` in [0, 1], 5-fold cross-validation, four
search policies pooled, lambda 1e-3 and a trie of at most 4,000,000 nodes (Figure 2); and, for
statistical parity, equal opportunity and equalized odds, the same fronts beside an interpretable
fair method and a non-interpretable one (Figures 3 and 4). :func:`run_study` runs that protocol,
or any sub-grid of it (:class:`StudyGrid`, :data:`PRESETS`), and writes the tables and figures;
``examples/reproduce_paper.py`` is its command line.

What makes it a reproduction rather than a demo:

* **Deterministic.** Every budget is a count (trie nodes, and bytes of search structures that the
  engine counts itself), never seconds; folds and baselines are seeded. The same grid gives the
  same CSV files, bit for bit, on a quiet machine or a loaded one, with 1 worker or 16.
* **Resumable.** Every finished fit is stored at once as one small JSON record in the results
  folder, named by a hash of its parameters (data fingerprint, metric, cap, policy, fold, budget,
  ...). A rerun loads what is there and computes only what is missing, so an interrupted study
  restarts where it stopped, and a larger grid reuses a smaller one's fits. Ctrl-C stops the run
  cleanly: the fits done are kept, the fits cut short are never stored. A folder written by another
  fairlist or study-format version is refused (:class:`ResultsFolderError`) instead of being mixed,
  and so is a folder that is not a study's (not empty, no ``study.json``): nothing in it is
  overwritten. Each record carries the SHA-256 of its content; a record whose content no longer
  matches it (edited numbers) is refused, naming the file, never used nor silently recomputed.
* **Parallel.** Fits run through :func:`fairlist.parallel.run_tasks` (joblib): process workers
  locally, or the workers of a Dask cluster given its scheduler address — the same code path. The
  data go to the workers once (memory-mapped, or scattered to the cluster), the longest fits start
  first, and the run prints its progress (fits done / total, elapsed, time left) and its parallel
  efficiency.

Baselines (:data:`BASELINES`, from fairlearn and scikit-learn, the ``study`` extra): fairlearn's
:class:`~fairlearn.reductions.ExponentiatedGradient` around a logistic regression (interpretable,
in the place of Zafar et al.'s constrained logistic regression) and around a gradient-boosted
model (non-interpretable, in the place of LAFTR, whose code is unmaintained). Like LAFTR and
unlike a post-processing method such as fairlearn's ThresholdOptimizer, it does not read the
sensitive attribute at prediction time — the paper's setting for every method — and its
constraint bound traces a trade-off. The unconstrained rule list, logistic regression and
boosted model are reference points. Every method is measured on the same folds by the same code
(:func:`fairlist.metrics.unfairness`; equalized odds is the paper's sum of the two gaps).

Beyond the paper: the exact training front of lists of at most ``training_max_length`` rules
(:func:`fairlist.pareto.training_front`), each point with its optimality status and gap.

Modules, one concept each: :mod:`~fairlist.study.grid` (the grid and its presets),
:mod:`~fairlist.study.records` (the results folder and its records),
:mod:`~fairlist.study.baselines`, :mod:`~fairlist.study.tasks` (one fit as a task),
:mod:`~fairlist.study.runner` (:func:`run_study`), :mod:`~fairlist.study.tables`,
:mod:`~fairlist.study.figures` and :mod:`~fairlist.study.report`.
"""

from __future__ import annotations

from .baselines import BASELINES, FAIRLEARN_CONSTRAINTS, fit_baseline
from .figures import (
    figure_comparison,
    figure_group_rates,
    figure_policies,
    figure_training,
    parse_rule_list,
    study_figures,
)
from .grid import METRICS, PAPER_EXAMPLES, PRESETS, StudyGrid
from .records import FORMAT, FORMAT_VERSION, ResultsFolder, ResultsFolderError
from .report import study_report
from .runner import SchedulerError, StudyOutcome, load_data, run_study
from .tables import study_tables, write_tables
from .tasks import TASKS

__all__ = [
    "FORMAT",
    "FORMAT_VERSION",
    "METRICS",
    "BASELINES",
    "FAIRLEARN_CONSTRAINTS",
    "PAPER_EXAMPLES",
    "PRESETS",
    "ResultsFolder",
    "StudyGrid",
    "StudyOutcome",
    "ResultsFolderError",
    "SchedulerError",
    "run_study",
    "study_tables",
    "write_tables",
    "study_figures",
    "study_report",
    "figure_comparison",
    "figure_group_rates",
    "figure_policies",
    "figure_training",
    "parse_rule_list",
    # the package's own (tests reach them here, as when the study was one module)
    "TASKS",
    "fit_baseline",
    "load_data",
]
