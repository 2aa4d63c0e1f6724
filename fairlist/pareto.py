"""Error / unfairness trade-offs: the paper's cross-validated sweep and the exact training front.

Two ways to trace a Pareto front (minimise error and unfairness; bottom-left is better):

:func:`cross_validated_front` — the paper's protocol (its section "Experiments"): for every
``epsilon`` of a grid (20 values in [0, 1] by default; the paper 60) and every search policy
(by default one; the paper pools four), a k-fold cross-validation (5 folds), each fit within a
node and time budget (:data:`SWEEP_MAX_NODES`, :data:`SWEEP_TIME_LIMIT`); each (epsilon,
policy) becomes one point, the mean test error and mean test unfairness over the folds; the
policies are pooled and the non-dominated points kept. The folds are stratified on the (label,
group) pair, so that every fold holds every group in the same proportions, and seeded by
``random_state``. Any number of groups: the unfairness of k groups is the largest gap between
two of them, as for the estimator. The ``len(epsilons) × len(policies) × cv`` fits are
independent and run through joblib: ``n_jobs`` and ``backend`` are parameters, so
``backend="dask"`` (with a ``dask.distributed.Client`` active) spreads them over a cluster.

:func:`training_front` — the exact front on the training data, by the adaptive epsilon-constraint
method (docs/design.md §6): solve without a cap, then cap ``epsilon`` just below the unfairness just
found, and repeat until the problem is infeasible (or the unfairness is 0). Each solve yields one
Pareto point (in objective and unfairness) when the engine certifies optimality; no grid.

How far "just below" is. A rule list is fair when ``unfairness <= epsilon + FEASIBILITY_TOL``
(``1e-9``, :func:`fairlist.metrics.is_fair`). Two attainable unfairness values differ by at least
``delta``, a constant fixed by the group sizes: statistical parity takes values
``|a/n_p - b/n_u|``, multiples of ``1/(n_p n_u)``; equal opportunity multiples of
``1/(P_p P_u)`` (positives per group); predictive equality of ``1/(N_p N_u)`` (negatives);
equalized odds, a sum of those two gaps, multiples of ``1/lcm(P_p P_u, N_p N_u)``. The next cap is
``u - max(delta / 2, 2 FEASIBILITY_TOL)``: it excludes ``u`` itself (the step exceeds the
tolerance) and admits every attainable value below ``u`` as long as ``delta >= FEASIBILITY_TOL``
(the front is then exact; ``exact_steps`` in the result says so). Predictive parity and CUAE are
ratios with variable denominators and have no useful ``delta``; for them (and when ``delta`` is
below the tolerance, e.g. equalized odds on tens of thousands of rows) values closer than
``1e-9`` to a found point can be skipped — a resolution far below any meaningful difference.
A fixed step such as ``1e-7`` would be both coarser (it can skip real points on large data) and
no more robust.

Both functions return a :class:`ParetoResult`: every run (``points``) and the non-dominated ones
(``front``) as DataFrames, each row with its status and rule list(s), and writers to CSV (one
rule list per row as one line of text, the paper's ``if [...] then [...] else ...``) and JSON
(the antecedent names once per document, not once per rule list).

Interrupts. Ctrl-C (``KeyboardInterrupt``) during a sweep stops the *whole* sweep: the engine
returns the fit it was running with stop reason ``interrupted``, and the sweep returns what is
done instead of running on. Such a fit is never a point of a front (its status reads
``interrupted``; it is uncertified and was cut short by the user, not by the sweep's budget);
fits never started read ``not_run``; ``settings["partial"]`` (and :attr:`ParetoResult.partial`)
is True. A caller that wants the conventional exit status 130 checks ``result.partial``.
SIGTERM takes the same path where :class:`fairlist.interrupts.InterruptSignals` is active (the
command line's case; exit status 143). An interrupted parallel run kills its process workers
and removes their memory maps from /dev/shm before returning (:func:`run_tasks`).

Parallel runs. The sweep's fits and their runner (the data shipped to the workers once, the
task a worker runs, the threads and memory each fit gets) live in :mod:`fairlist.sweep`; this
module is the two protocols and the front they return.
"""

from __future__ import annotations

import json
import math
import numbers
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from ._json import dumps, jsonable, write_text
from ._params import BOOLEAN, N_JOBS, InstanceOf, Interval, Satisfies, validate_params
from .errors import InvalidParameterError
from .metric_table import RATES
from .metrics import FEASIBILITY_TOL, Metric
from .parallel import RunReport, run_tasks
from .rulelist import RuleList
from .solvers import ENGINE_NAMES, ENGINES, Limits, Problem, Result, Status, require_capability
from .solvers.base import DEFAULT_LAM, LAM, MAX_LENGTH, METRIC
from .solvers.bnb import PAPER_POLICIES
from .sweep import (  # the runner's names that callers knew here stay importable from here
    INTERRUPTED,
    NOT_RUN,
    FitSettings,
    Progress,
    Runner,
    SweepData,
    cv_points,
    fit_counts,
    fit_settings,
    fit_status,
    fold_assignment,
    memory_share,
    run_sweep,
    sweep_data,
)

# Like fairlist.sweep (which the workers import), this module imports neither scikit-learn nor
# the estimator.

__all__ = [
    "PAPER_POLICIES",
    "SWEEP_MAX_NODES",
    "SWEEP_TIME_LIMIT",
    "SWEEP_N_EPSILONS",
    "SWEEP_POLICIES",
    "INTERRUPTED",
    "NOT_RUN",
    "ParetoResult",
    "RunReport",
    "SweepData",
    "FitSettings",
    "memory_share",
    "cross_validated_front",
    "training_front",
    "non_dominated",
    "unfairness_resolution",
    "default_epsilons",
    "fold_assignment",
    "rule_list_text",
    "run_tasks",
]


#: A sweep's default budget per fit: a trie of 200,000 nodes (a second or two on a few thousand
#: rows; the paper's 4,000,000 is ``max_nodes=4_000_000``), and 10 s as a safety net. With the
#: default grid (:data:`SWEEP_N_EPSILONS` caps, :data:`SWEEP_POLICIES`, 5 folds: 105 fits with
#: the unconstrained ones) a sweep of a few thousand rows ends in minutes; the paper's protocol
#: (60 caps, :data:`PAPER_POLICIES`, 4,000,000 nodes) is 1,220 fits and is asked for explicitly.
SWEEP_MAX_NODES = 200_000
SWEEP_TIME_LIMIT = 10.0
#: The default grid: 20 caps in [0, 1] (the paper: 60).
SWEEP_N_EPSILONS = 20
#: The default policies of a cross-validated sweep: best-first by lower bound, the policy that
#: certifies soonest (the paper pools four, :data:`PAPER_POLICIES`).
SWEEP_POLICIES = ("lower_bound",)


def default_epsilons(n: int = SWEEP_N_EPSILONS) -> np.ndarray:
    """The default grid: ``n`` evenly spaced caps in [0, 1] (the paper: ``n=60``)."""
    return np.linspace(0.0, 1.0, n)


def non_dominated(x: Sequence[float], y: Sequence[float]) -> np.ndarray:
    """Mask of the points that no other point dominates (both coordinates minimised).

    A point is dominated when another is at least as good on both coordinates and strictly
    better on one. Of several identical points, the first is kept. NaN points are never kept.
    """
    x = np.asarray(x, dtype=float)
    y = np.asarray(y, dtype=float)
    keep = np.zeros(len(x), dtype=bool)
    valid = np.flatnonzero(~(np.isnan(x) | np.isnan(y)))
    order = valid[np.lexsort((valid, y[valid], x[valid]))]  # by x, then y, then position
    best_y = math.inf
    for i in order:
        if y[i] < best_y:
            keep[i] = True
            best_y = y[i]
    return keep


def unfairness_resolution(metric: Metric | str, y: np.ndarray, groups: np.ndarray) -> float:
    """Smallest difference between two attainable unfairness values (0 when unknown).

    See the module docstring: a constant of the group sizes for SP, PE, EOpp and EOdds.
    ``groups`` is the protected mask of two groups (True: group 0) or the group code of each
    sample (k groups: the gaps of every pair of groups count).
    """
    info = Metric.parse(metric).info
    if not info.linear:
        return 0.0
    y = np.asarray(y).astype(bool)
    g = np.asarray(groups)
    codes = np.where(g, 0, 1) if g.dtype == bool else g.astype(np.int64)
    k = int(codes.max()) + 1 if codes.size else 0
    size = {  # the samples each fixed denominator counts, in each group
        "any": np.bincount(codes, minlength=k),
        "positive": np.bincount(codes[y], minlength=k),
    }
    size["negative"] = size["any"] - size["positive"]
    # a zero denominator makes that rate constant 0: count it as 1
    steps = [
        max(int(a), 1) * max(int(b), 1)
        for r in info.rates
        for i, a in enumerate(size[RATES[r].needs])
        for b in size[RATES[r].needs][i + 1 :]
    ]
    return 1.0 / math.lcm(*steps) if steps else 0.0


def rule_list_text(
    rule_list: RuleList | dict[str, Any] | None, labels: Sequence[str] | None = None
) -> str:
    """A rule list (or its document) on one line, :meth:`RuleList.to_text` (the paper's
    ``if [...] then [...] else ...``); empty text for no rule list (a fit that found none).
    ``labels`` names the predictions 0 and 1 (default: the rule list's own labels)."""
    if rule_list is None or (isinstance(rule_list, float) and math.isnan(rule_list)):
        return ""
    if isinstance(rule_list, dict):
        rule_list = RuleList.from_dict(rule_list)
    return rule_list.to_text(labels)


@dataclass
class ParetoResult:
    """A traced front.

    Attributes
    ----------
    points : DataFrame
        Every run (one row per fit), with its status and rule list.
    front : DataFrame
        The non-dominated points, sorted by unfairness: in (test unfairness, test error) for a
        cross-validated sweep, in (unfairness, objective) for the exact training front (the
        certified quantity); :attr:`plotted` is the part of it non-dominated in the plotted
        (unfairness, error).
    kind : str
        ``"cross_validation"`` or ``"training"``.
    metric : Metric
    settings : dict
        The parameters used (for the record in JSON); ``settings["partial"]`` is True when an
        interrupt stopped the sweep before its end.
    """

    points: pd.DataFrame
    front: pd.DataFrame
    kind: str
    metric: Metric
    settings: dict[str, Any] = field(default_factory=dict)

    @property
    def x(self) -> str:
        """Column plotted horizontally (unfairness)."""
        return "test_unfairness" if self.kind == "cross_validation" else "unfairness"

    @property
    def y(self) -> str:
        """Column plotted vertically (error)."""
        return "test_error" if self.kind == "cross_validation" else "error"

    @property
    def plotted(self) -> pd.DataFrame:
        """The rows of ``front`` that are non-dominated on the plotted axes (:attr:`x`,
        :attr:`y`), sorted by unfairness: what a plot of the front draws.

        A cross-validated front is already non-dominated on these axes. The exact training
        front is non-dominated in (unfairness, objective), where its certificate holds; the
        objective adds ``lam`` per rule to the error, so a point of it can be dominated in
        (unfairness, error) by a shorter list's neighbour. The plot shows error, the quantity
        a reader compares across methods, and so leaves such points out; ``front`` keeps them.
        """
        table = self.front
        if table.empty:
            return table
        mask = non_dominated(table[self.x], table[self.y])
        return table[mask].sort_values(self.x).reset_index(drop=True)

    @property
    def partial(self) -> bool:
        """True when an interrupt stopped the sweep: the front is of the fits done."""
        return bool(self.settings.get("partial", False))

    def to_csv(self, path: str | Path, table: str = "front") -> None:
        """Write ``front`` (default) or ``points`` as CSV, one rule list per row as text.

        ``rule_list`` becomes its one-line text (:func:`rule_list_text`); ``rule_lists`` (the
        per-fold lists of a cross-validated point) a JSON array of such texts.
        """
        frame = self._table(table).copy()
        if "rule_list" in frame:
            frame["rule_list"] = frame["rule_list"].map(rule_list_text)
        if "rule_lists" in frame:
            frame["rule_lists"] = frame["rule_lists"].map(
                lambda v: json.dumps([rule_list_text(r) for r in v]) if v is not None else ""
            )
        frame.to_csv(path, index=False)

    def to_dict(self) -> dict[str, Any]:
        """Settings, points and front, JSON-ready.

        Rule lists are nested rule-list documents without their ``feature_names``, which the
        document holds once (``feature_names``; :meth:`RuleList.from_dict` reads either form).
        """
        return {
            "format": "fairlist.pareto",
            "version": 2,
            "kind": self.kind,
            "metric": self.metric.name.lower(),
            "settings": self.settings,
            "feature_names": list(self.settings.get("feature_names", [])),
            "points": _records(self.points),
            "front": _records(self.front),
        }

    def to_json(self, path: str | Path | None = None) -> str:
        """The :meth:`to_dict` document as text; also written to ``path`` when given."""
        text = dumps(self.to_dict())
        if path is not None:
            write_text(path, text + "\n")
        return text

    def _table(self, table: str) -> pd.DataFrame:
        if table not in ("front", "points"):
            raise InvalidParameterError(f"table must be 'front' or 'points', got {table!r}")
        return getattr(self, table)


def _without_names(doc: Any) -> Any:
    """A rule-list document without its feature names (kept once per Pareto document)."""
    if isinstance(doc, dict) and "feature_names" in doc:
        return {k: v for k, v in doc.items() if k != "feature_names"}
    if isinstance(doc, list):
        return [_without_names(d) for d in doc]
    return doc


def _records(frame: pd.DataFrame) -> list[dict[str, Any]]:
    return [
        {k: jsonable(_without_names(v)) for k, v in row.items()}
        for row in frame.to_dict(orient="records")
    ]


# --------------------------------------------------------------------------- data handling
#: The parameters both fronts take, constrained as the problem, its limits and the estimator
#: declare them (a front runs named engines only).
_COMMON_CONSTRAINTS = {
    "metric": METRIC,
    "engine": [ENGINE_NAMES],
    "lam": LAM,
    "max_length": MAX_LENGTH,
    "policy": [None, InstanceOf(str, "a search policy name (str)")],
    "max_nodes": Limits.PARAMETER_CONSTRAINTS["max_nodes"],
    "time_limit": Limits.PARAMETER_CONSTRAINTS["time_limit"],
    "memory_limit_mb": Limits.PARAMETER_CONSTRAINTS["memory_limit_mb"],
    "engine_options": [None, InstanceOf(dict, "a dict")],
}
_CV_CONSTRAINTS = {
    **_COMMON_CONSTRAINTS,
    "epsilons": [
        None,
        Satisfies(
            lambda v: len(v) > 0 and all(e >= 0 for e in v), "a non-empty sequence of numbers >= 0"
        ),
    ],
    "cv": [Interval(numbers.Integral, 2, None, closed="left")],
    "random_state": [Interval(numbers.Integral, None, None)],
    "tail_threads": [BOOLEAN],
    "n_jobs": [None, *N_JOBS],  # the workers (joblib's); the same declaration as the threads'
}


# ------------------------------------------------------------------ (a) the paper's protocol
def cross_validated_front(
    X: Any,
    y: Any,
    sensitive_features: Any,
    protected: Any = None,
    *,
    metric: Metric | str = "statistical_parity",
    epsilons: Sequence[float] | None = None,
    cv: int = 5,
    policies: Sequence[str] | None = SWEEP_POLICIES,
    engine: str = "bnb",
    lam: float = DEFAULT_LAM,
    max_length: int | None = None,
    max_nodes: int | None = SWEEP_MAX_NODES,
    time_limit: float | None = SWEEP_TIME_LIMIT,
    memory_limit_mb: float | None = None,
    engine_options: dict[str, Any] | None = None,
    random_state: int = 0,
    reuse_unconstrained: bool = True,
    n_jobs: int | None = None,
    backend: str | None = None,
    tail_threads: bool = False,
    progress: Progress | None = None,
    on_fit: Callable[[dict[str, Any]], None] | None = None,
) -> ParetoResult:
    """The paper's Pareto front: epsilon grid × policies × k-fold cross-validation.

    Parameters
    ----------
    X : DataFrame of binary antecedents or 0/1 array, shape (n, m)
    y : array-like of shape (n,), two classes
    sensitive_features, protected
        The group of each sample, as in :meth:`FairRuleListClassifier.fit`.
    metric : str or Metric
    epsilons : sequence of float, optional
        Unfairness caps (default: :func:`default_epsilons`, 20 values in [0, 1]; the paper 60).
    cv : int
        Number of folds (stratified on label and group, shuffled with ``random_state``).
    policies : sequence of str or None
        Search policies pooled into the front (branch-and-bound only; ignored by CP-SAT).
        Default :data:`SWEEP_POLICIES`; the paper's four are :data:`PAPER_POLICIES`.
    engine, lam, max_length, max_nodes, time_limit, engine_options
        As in :class:`FairRuleListClassifier`. Every fit stops at its limits with the best rule
        list: by default :data:`SWEEP_MAX_NODES` nodes and :data:`SWEEP_TIME_LIMIT` seconds
        (None: no limit). The paper: ``lam=0.001``, ``max_nodes=4_000_000``. Budgets in nodes
        make the sweep reproducible; a time limit makes it depend on the load.
    memory_limit_mb : float, optional
        Cap on the branch-and-bound's search structures (:class:`~fairlist.solvers.Limits`). The
        engine counts their bytes itself, so this limit is as deterministic as ``max_nodes``;
        it bounds the curiosity policy, whose trie rarely reaches ``max_nodes``.
    random_state : int
        Seed of the folds.
    reuse_unconstrained : bool
        First fit each (fold, policy) without a cap; where that rule list is certified optimal
        and already meets a cap, it is also optimal under that cap and is reused instead of
        solved again (this skips most of the grid's upper part).
    n_jobs, backend
        joblib parallelism (``backend="dask"`` needs an active ``dask.distributed.Client``);
        see :func:`run_tasks` for how the data reach the workers.
    tail_threads : bool
        Give the branch-and-bound fits the cores the workers leave idle
        (:func:`~fairlist.parallel.share_cores`): the fits at ``epsilon == 0``, the slowest,
        start first, each on an equal share of all the cores (``ceil(cores / min(k, workers))``
        threads for ``k`` of them), beside the other workers' fits; a fit started while every
        worker is busy gets ``cores // workers`` threads, the last ones, started as the others
        finish, more (the last fit all the cores). Each fit's count (column ``threads``) depends
        on the order alone. A certified fit on more than one thread returns the canonical optimal
        list (``BnBSolver(n_jobs=...)``), one stopped by ``max_nodes`` depends on the threads'
        timing. Ignored with ``backend="dask"``. Default False: one thread a fit.
    progress : callable(done, total), optional
        Called as fits complete; ``total`` counts every fit, the unconstrained ones included
        (``len(policies) * cv`` more than the grid's).
    on_fit : callable(dict), optional
        Called with each fit's row (its ``epsilon``, ``policy``, ``fold``, ``test_error``,
        ``test_unfairness``, ...) as it completes, e.g. to report the best so far.

    Returns
    -------
    ParetoResult
        ``points``: one row per (epsilon, policy, fold) fit, with its ``status``, stop reason,
        lower bound and rule list; ``front``: the non-dominated (epsilon, policy) means, each
        with the per-fold rule lists (``rule_lists``). An (epsilon, policy) pair with an
        infeasible, interrupted or unrun fold gives no point. After Ctrl-C, ``partial`` is True,
        the front is of the pairs whose folds all finished, and ``points`` begins with the
        unconstrained fits done (``epsilon`` NaN; see ``reuse_unconstrained``).
    """
    validate_params(
        "cross_validated_front",
        _CV_CONSTRAINTS,
        dict(
            metric=metric,
            lam=lam,
            max_length=max_length,
            engine=engine,
            max_nodes=max_nodes,
            time_limit=time_limit,
            memory_limit_mb=memory_limit_mb,
            engine_options=engine_options,
            epsilons=epsilons,
            cv=cv,
            random_state=random_state,
            tail_threads=tail_threads,
            n_jobs=n_jobs,
        ),
    )
    m = Metric.parse(metric)
    problem, data = sweep_data(X, y, sensitive_features, protected, cv, random_state)
    memory_limit_mb = memory_share(memory_limit_mb, engine, n_jobs, backend)
    settings = fit_settings(
        m, lam, max_length, engine, max_nodes, time_limit, memory_limit_mb, engine_options
    )
    eps_grid = [float(e) for e in (default_epsilons() if epsilons is None else epsilons)]
    spec = ENGINES[engine]  # what the engine can do, asked of the registry
    pols: list[str | None] = (
        list(policies) if (spec.supports("supports_policies") and policies) else [None]
    )
    first = [(None, pol, k) for pol in pols for k in range(cv)] if reuse_unconstrained else []
    grid = [(e, pol, k) for e in eps_grid for pol in pols for k in range(cv)]
    total = len(first) + len(grid)
    threads = tail_threads and spec.supports("canonical_threads") and backend != "dask"
    runner = Runner(n_jobs, backend, threads, progress, on_fit)
    rows, finished = run_sweep(first, grid, (data, settings), total, runner)
    # After an interrupt the unconstrained fits done are kept too (epsilon NaN; never a point
    # of the front): when it came before the grid, they are all the work done.
    points = cv_points(grid, rows, first=[] if finished else first)
    settings_doc = dict(
        epsilons=eps_grid,
        cv=cv,
        policies=pols,
        engine=engine,
        lam=lam,
        max_length=max_length,
        max_nodes=max_nodes,
        time_limit=time_limit,
        memory_limit_mb=memory_limit_mb,
        random_state=random_state,
        tail_threads=bool(threads),
        **_data_settings(problem),
        partial=not finished,
        fits=fit_counts(rows, total),
    )
    return ParetoResult(points, _summarise(points), "cross_validation", m, settings_doc)


def _data_settings(problem: Problem) -> dict[str, Any]:
    """The data's description in a sweep's settings: classes, size and names."""
    return dict(
        classes=jsonable(problem.classes),
        n_samples=problem.n_samples,
        labels=list(problem.labels),
        feature_names=list(problem.feature_names),
        group_names=list(problem.group_names),
    )


def _summarise(points: pd.DataFrame) -> pd.DataFrame:
    """Mean over folds per (epsilon, policy); non-dominated pairs, sorted by unfairness."""
    cols = ["train_error", "train_unfairness", "test_error", "test_unfairness", "seconds"]
    groups = []
    capped = points[points["epsilon"].notna()]  # not the unconstrained fits of a partial sweep
    for (e, pol), grp in capped.groupby(["epsilon", "policy"], dropna=False, sort=True):
        if grp["rule_list"].isna().any() or (grp["status"] == INTERRUPTED).any():
            continue  # an infeasible, interrupted or unrun fold: no mean to report
        row = {"epsilon": e, "policy": pol, "n_folds": len(grp)}
        row.update({c: float(grp[c].mean()) for c in cols})
        row["test_error_std"] = float(grp["test_error"].std(ddof=0))
        row["test_unfairness_std"] = float(grp["test_unfairness"].std(ddof=0))
        row["mean_length"] = float(grp["length"].mean())
        row["optimal_folds"] = int((grp["status"] == str(Status.OPTIMAL)).sum())
        row["rule_lists"] = list(grp.sort_values("fold")["rule_list"])
        groups.append(row)
    summary = pd.DataFrame.from_records(groups)
    if summary.empty:
        return summary
    mask = non_dominated(summary["test_unfairness"], summary["test_error"])
    front = summary[mask].sort_values(["test_unfairness", "test_error"]).reset_index(drop=True)
    return front


# ------------------------------------------------------------------ (b) exact training front
def training_front(
    X: Any,
    y: Any,
    sensitive_features: Any,
    protected: Any = None,
    *,
    metric: Metric | str = "statistical_parity",
    engine: str = "bnb",
    lam: float = DEFAULT_LAM,
    max_length: int | None = None,
    policy: str | None = None,
    max_nodes: int | None = SWEEP_MAX_NODES,
    time_limit: float | None = SWEEP_TIME_LIMIT,
    memory_limit_mb: float | None = None,
    engine_options: dict[str, Any] | None = None,
    max_points: int | None = None,
    progress: Callable[[dict[str, Any]], None] | None = None,
) -> ParetoResult:
    """The exact training Pareto front by the adaptive epsilon-constraint method.

    Solve without a cap; then, while a fair rule list exists, cap epsilon just below the
    unfairness just found (see the module docstring for the step) and solve again. When every
    solve is certified optimal, the points are exactly the Pareto-optimal (objective, unfairness)
    pairs of the training problem, one solve per point.

    Parameters
    ----------
    X, y, sensitive_features, protected
        As in :func:`cross_validated_front`.
    metric, engine, lam, max_length, policy, max_nodes, time_limit, memory_limit_mb, \
engine_options
        As in :func:`cross_validated_front` (``policy``: one search policy).
    max_points : int, optional
        Stop after this many solves.
    progress : callable(dict), optional
        Called after each solve with its row.

    Returns
    -------
    ParetoResult
        ``points``: one row per solve (``epsilon`` is the cap used, NaN for the first), with its
        status, lower bound and ``gap`` (objective minus lower bound, 0 when optimal); the last
        row may have no rule list (status ``infeasible``, or ``unknown`` if a limit hit first).
        ``front``: the non-dominated points in (unfairness, objective) — a point whose status is
        ``feasible`` is the best a limit allowed, not certified. ``settings["complete"]`` is True
        when the sweep ended on a proof (infeasible, or unfairness 0) with every solve optimal;
        ``settings["exact_steps"]`` when the step admits every attainable value. After Ctrl-C the
        interrupted solve reads ``interrupted`` and is not on the front, the sweep stops there
        and ``settings["partial"]`` is True.
    """
    validate_params(
        "training_front",
        _COMMON_CONSTRAINTS,
        dict(
            metric=metric,
            engine=engine,
            lam=lam,
            max_length=max_length,
            policy=policy,
            max_nodes=max_nodes,
            time_limit=time_limit,
            memory_limit_mb=memory_limit_mb,
            engine_options=engine_options,
        ),
    )
    m = Metric.parse(metric)
    problem = Problem.from_data(X, y, sensitive_features, protected)
    problem = problem.replace(
        metric=m,
        lam=lam,
        max_length=max_length,
        limits=Limits(max_nodes=max_nodes, time_limit=time_limit, memory_limit_mb=memory_limit_mb),
    )
    settings = fit_settings(
        m, lam, max_length, engine, max_nodes, time_limit, memory_limit_mb, engine_options
    )
    if policy is not None:
        require_capability(engine, "supports_policies", f"policy={policy!r}")
    solver = settings.solver(policy)
    delta = unfairness_resolution(m, problem.y, problem.groups)
    step = max(delta / 2, 2 * FEASIBILITY_TOL)
    rows, complete, all_optimal, partial = _epsilon_constraint(
        problem, solver, step, max_points, progress
    )
    points = pd.DataFrame.from_records(rows, columns=_TRAINING_COLUMNS)
    found = points[points["rule_list"].notna() & (points["status"] != INTERRUPTED)]
    front = found[non_dominated(found["unfairness"], found["objective"])]
    front = front.sort_values("unfairness").reset_index(drop=True)
    settings_doc = dict(
        engine=engine,
        lam=lam,
        max_length=max_length,
        policy=policy,
        max_nodes=max_nodes,
        time_limit=time_limit,
        memory_limit_mb=memory_limit_mb,
        step=step,
        resolution=delta,
        exact_steps=delta >= FEASIBILITY_TOL,
        complete=bool(complete and all_optimal),
        partial=partial,
        **_data_settings(problem),
    )
    return ParetoResult(points, front, "training", m, settings_doc)


def _epsilon_constraint(
    problem: Problem,
    solver: Any,
    step: float,
    max_points: int | None,
    progress: Callable[[dict[str, Any]], None] | None,
) -> tuple[list[dict[str, Any]], bool, bool, bool]:
    """The adaptive epsilon-constraint loop: solve, cap just below the unfairness found,
    repeat. Returns the rows, whether the front is complete (infeasible or unfairness 0 was
    reached), whether every solve was optimal, and whether an interrupt cut it short."""
    rows: list[dict[str, Any]] = []
    epsilon: float | None = None
    all_optimal = True
    while max_points is None or len(rows) < max_points:
        start = time.perf_counter()
        try:
            result = solver.solve(problem.replace(epsilon=epsilon))
        except KeyboardInterrupt:
            return rows, False, all_optimal, True
        row = _training_row(problem, result, epsilon, time.perf_counter() - start)
        rows.append(row)
        if progress is not None:
            progress(row)
        if row["status"] == INTERRUPTED:
            return rows, False, all_optimal, True
        if result.rule_list is None:
            return rows, result.status is Status.INFEASIBLE, all_optimal, False
        all_optimal &= result.status is Status.OPTIMAL
        if row["unfairness"] <= FEASIBILITY_TOL:
            return rows, True, all_optimal, False
        epsilon = max(0.0, row["unfairness"] - step)
    return rows, False, all_optimal, False


_TRAINING_COLUMNS = [
    "epsilon",
    "status",
    "stop_reason",
    "objective",
    "lower_bound",
    "gap",
    "error",
    "unfairness",
    "length",
    "seconds",
    "rule_list",
]


def _training_row(
    problem: Problem, result: Result, epsilon: float | None, seconds: float
) -> dict[str, Any]:
    """One solve of the training front: its cap, status, certificate and rule list."""
    row: dict[str, Any] = {
        "epsilon": math.nan if epsilon is None else epsilon,
        "status": fit_status(result),
        "stop_reason": str(result.stop_reason),
        "objective": math.nan,
        "lower_bound": result.lower_bound,
        "gap": math.nan,
        "error": math.nan,
        "unfairness": math.nan,
        "length": -1,
        "seconds": seconds,
        "rule_list": None,
    }
    if result.rule_list is not None:
        ev = problem.replace(epsilon=epsilon).evaluate(result.rule_list)
        row.update(
            objective=ev.objective,
            gap=max(0.0, ev.objective - result.lower_bound),
            error=1 - ev.accuracy,
            unfairness=ev.unfairness,
            length=ev.length,
            rule_list=result.rule_list.to_dict(),
        )
    return row
