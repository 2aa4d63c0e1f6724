"""Error / unfairness trade-offs: the paper's cross-validated sweep and the exact training front.

Two ways to trace a Pareto front (minimise error and unfairness; bottom-left is better):

:func:`cross_validated_front` — the paper's protocol (its section "Experiments"): for every
``epsilon`` of a grid (60 values in [0, 1] by default) and every search policy, a k-fold
cross-validation (5 folds); each (epsilon, policy) becomes one point, the mean test error and mean
test unfairness over the folds; the policies are pooled and the non-dominated points kept. The
folds are stratified on the (label, group) pair, so that every fold holds both groups in the same
proportions, and seeded by ``random_state``. The ``len(epsilons) × len(policies) × cv`` fits are
independent and run through joblib: ``n_jobs`` and ``backend`` are parameters, so
``backend="dask"`` (with a ``dask.distributed.Client`` active) spreads them over a cluster.

:func:`training_front` — the exact front on the training data, by the adaptive epsilon-constraint
method (DESIGN.md §6): solve without a cap, then cap ``epsilon`` just below the unfairness just
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
(``front``) as DataFrames, each row with its rule list(s), and writers to CSV and JSON.
"""

from __future__ import annotations

import json
import math
import numbers
import time
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from sklearn.exceptions import ConvergenceWarning
from sklearn.model_selection import StratifiedKFold

from ._json import dumps, jsonable
from ._params import Interval, Satisfies, validate_params
from .errors import InfeasibleError, InvalidParameterError
from .estimator import PARAMETER_CONSTRAINTS as ESTIMATOR_CONSTRAINTS
from .estimator import FairRuleListClassifier
from .metrics import FEASIBILITY_TOL, Metric, unfairness
from .solvers import Problem, Status

__all__ = [
    "PAPER_POLICIES",
    "ParetoResult",
    "cross_validated_front",
    "training_front",
    "non_dominated",
    "unfairness_resolution",
    "default_epsilons",
]

#: The four search policies the paper pools (BFS original, BFS objective-aware, curious, lower
#: bound), named as the branch-and-bound engine names them.
PAPER_POLICIES = ("bfs", "bfs_objective_aware", "curiosity", "lower_bound")

Progress = Callable[[int, int], None]  # (done, total)


def default_epsilons(n: int = 60) -> np.ndarray:
    """The paper's grid: ``n`` evenly spaced caps in [0, 1]."""
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


def unfairness_resolution(metric: Metric | str, y: np.ndarray, protected: np.ndarray) -> float:
    """Smallest difference between two attainable unfairness values (0 when unknown).

    See the module docstring: a constant of the group sizes for SP, PE, EOpp and EOdds.
    """
    m = Metric.parse(metric)
    y = np.asarray(y).astype(bool)
    g = np.asarray(protected).astype(bool)
    n_p, n_u = int(g.sum()), int((~g).sum())
    pos_p, pos_u = int((y & g).sum()), int((y & ~g).sum())
    neg_p, neg_u = n_p - pos_p, n_u - pos_u
    one = lambda v: max(v, 1)  # noqa: E731 - a zero denominator makes that rate constant 0
    if m is Metric.STATISTICAL_PARITY:
        return 1.0 / (n_p * n_u)
    if m is Metric.EQUAL_OPPORTUNITY:
        return 1.0 / (one(pos_p) * one(pos_u))
    if m is Metric.PREDICTIVE_EQUALITY:
        return 1.0 / (one(neg_p) * one(neg_u))
    if m is Metric.EQUALIZED_ODDS:
        return 1.0 / math.lcm(one(pos_p) * one(pos_u), one(neg_p) * one(neg_u))
    return 0.0


@dataclass
class ParetoResult:
    """A traced front.

    Attributes
    ----------
    points : DataFrame
        Every run (one row per fit), with its status and rule list.
    front : DataFrame
        The non-dominated points, sorted by unfairness.
    kind : str
        ``"cross_validation"`` or ``"training"``.
    metric : Metric
    settings : dict
        The parameters used (for the record in JSON).
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

    def to_csv(self, path: str | Path, table: str = "front") -> None:
        """Write ``front`` (default) or ``points`` as CSV; rule lists as JSON text."""
        frame = self._table(table).copy()
        for col in ("rule_list", "rule_lists"):
            if col in frame:
                frame[col] = frame[col].map(lambda v: json.dumps(v) if v is not None else "")
        frame.to_csv(path, index=False)

    def to_dict(self) -> dict[str, Any]:
        """Settings, points and front, JSON-ready (rule lists as nested objects)."""
        return {
            "format": "fairlist.pareto",
            "version": 1,
            "kind": self.kind,
            "metric": self.metric.name.lower(),
            "settings": self.settings,
            "points": _records(self.points),
            "front": _records(self.front),
        }

    def to_json(self, path: str | Path | None = None) -> str:
        """The :meth:`to_dict` document as text; also written to ``path`` when given."""
        text = dumps(self.to_dict())
        if path is not None:
            Path(path).write_text(text + "\n", encoding="utf-8")
        return text

    def _table(self, table: str) -> pd.DataFrame:
        if table not in ("front", "points"):
            raise InvalidParameterError(f"table must be 'front' or 'points', got {table!r}")
        return getattr(self, table)


def _records(frame: pd.DataFrame) -> list[dict[str, Any]]:
    return [{k: jsonable(v) for k, v in row.items()} for row in frame.to_dict(orient="records")]


# --------------------------------------------------------------------------- data handling
#: The parameters both fronts share with the estimator (declared there) and their own.
_COMMON_CONSTRAINTS = {
    name: ESTIMATOR_CONSTRAINTS[name]
    for name in ("metric", "engine", "lam", "max_length", "policy", "max_nodes", "time_limit",
                 "engine_options")
}  # fmt: skip
_CV_CONSTRAINTS = {
    **_COMMON_CONSTRAINTS,
    "epsilons": [None, Satisfies(lambda v: all(e >= 0 for e in v), "a sequence of numbers >= 0")],
    "cv": [Interval(numbers.Integral, 2, None, closed="left")],
    "random_state": [Interval(numbers.Integral, None, None)],
}


def _problem(X: Any, y: Any, sensitive_features: Any, protected: Any):
    """The data as a problem (one route from user data) and its antecedents as a DataFrame."""
    problem = Problem.from_data(X, y, sensitive_features, protected)
    return problem, pd.DataFrame(problem.X, columns=list(problem.feature_names))


def _estimator(params: dict[str, Any], epsilon: float | None, policy: str | None):
    p = dict(params)
    p["epsilon"] = epsilon
    if policy is not None:
        p["policy"] = policy
    return FairRuleListClassifier(**p)


def _fit_fold(X, y, g, train, test, params, epsilon, policy, metric) -> dict[str, Any]:
    """One fit on a training fold, measured on its test fold (a joblib task)."""
    clf = _estimator(params, epsilon, policy)
    start = time.perf_counter()
    row: dict[str, Any] = {}
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            clf.fit(X.iloc[train], y[train], sensitive_features=g[train])
    except InfeasibleError as exc:
        status = exc.result.status if exc.result is not None else Status.UNKNOWN
        return {
            "status": str(status), "train_error": math.nan, "train_unfairness": math.nan,
            "test_error": math.nan, "test_unfairness": math.nan, "objective": math.nan,
            "length": -1, "seconds": time.perf_counter() - start, "rule_list": None,
        }  # fmt: skip
    pred = clf.predict(X.iloc[test])
    row.update(
        status=str(clf.status_),
        train_error=1.0 - clf.accuracy_,
        train_unfairness=clf.unfairness_,
        test_error=float(np.mean(pred != y[test])),
        test_unfairness=unfairness(y[test], pred, g[test], metric),
        objective=clf.objective_,
        length=len(clf.rule_list_),
        seconds=time.perf_counter() - start,
        rule_list=clf.rule_list_.to_dict(),
    )
    return row


def _run(tasks: list, n_jobs: int | None, backend: str | None, progress: Progress | None):
    """Run ``(function, args)`` tasks through joblib, reporting completions."""
    from joblib import Parallel, delayed, parallel_config

    total = len(tasks)
    if progress is not None:
        progress(0, total)
    if not tasks:
        return []
    config = {"n_jobs": n_jobs} if backend is None else {"backend": backend, "n_jobs": n_jobs}
    results: list[Any] = [None] * total
    with parallel_config(**config):
        runner = Parallel(return_as="generator_unordered")
        jobs = (delayed(_indexed)(i, fn, args) for i, (fn, args) in enumerate(tasks))
        for done, (i, out) in enumerate(runner(jobs), start=1):
            results[i] = out
            if progress is not None:
                progress(done, total)
    return results


def _indexed(i: int, fn: Callable, args: tuple) -> tuple[int, Any]:
    return i, fn(*args)


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
    policies: Sequence[str] | None = PAPER_POLICIES,
    engine: str = "bnb",
    lam: float = 0.001,
    max_length: int | None = None,
    max_nodes: int | None = None,
    time_limit: float | None = None,
    engine_options: dict[str, Any] | None = None,
    random_state: int = 0,
    reuse_unconstrained: bool = True,
    n_jobs: int | None = None,
    backend: str | None = None,
    progress: Progress | None = None,
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
        Unfairness caps (default: :func:`default_epsilons`, 60 values in [0, 1]).
    cv : int
        Number of folds (stratified on label and group, shuffled with ``random_state``).
    policies : sequence of str or None
        Search policies pooled into the front (branch-and-bound only; ignored by CP-SAT).
    engine, lam, max_length, max_nodes, time_limit, engine_options
        As in :class:`FairRuleListClassifier` (the paper: ``lam=0.001``,
        ``max_nodes=4_000_000``). Give a limit: every fit stops at it, with the best rule list.
    random_state : int
        Seed of the folds.
    reuse_unconstrained : bool
        First fit each (fold, policy) without a cap; where that rule list is certified optimal
        and already meets a cap, it is also optimal under that cap and is reused instead of
        solved again (this skips most of the grid's upper part).
    n_jobs, backend
        joblib parallelism (``backend="dask"`` needs an active ``dask.distributed.Client``).
    progress : callable(done, total), optional
        Called as fits complete.

    Returns
    -------
    ParetoResult
        ``points``: one row per (epsilon, policy, fold) fit; ``front``: the non-dominated
        (epsilon, policy) means, each with the per-fold rule lists (``rule_lists``). An
        (epsilon, policy) pair with an infeasible fold gives no point.
    """
    params = dict(
        metric=metric, lam=lam, max_length=max_length, engine=engine, max_nodes=max_nodes,
        time_limit=time_limit, engine_options=engine_options,
    )  # fmt: skip
    validate_params(
        "cross_validated_front", _CV_CONSTRAINTS,
        {**params, "epsilons": epsilons, "cv": cv, "random_state": random_state},
    )  # fmt: skip
    m = Metric.parse(metric)
    problem, Xf = _problem(X, y, sensitive_features, protected)
    y01, g, classes = problem.y, problem.protected, problem.classes
    eps_grid = [float(e) for e in (default_epsilons() if epsilons is None else epsilons)]
    pols: list[str | None] = list(policies) if (engine == "bnb" and policies) else [None]
    strata = y01.astype(int) * 2 + g.astype(int)
    folds = list(StratifiedKFold(cv, shuffle=True, random_state=random_state).split(Xf, strata))

    rows: dict[tuple[float | None, str | None, int], dict[str, Any]] = {}
    keys: list[tuple[float | None, str | None, int]] = []
    tasks = []
    first = len(pols) * cv if reuse_unconstrained else 0
    full = first + len(eps_grid) * len(pols) * cv
    if reuse_unconstrained:
        for pol in pols:
            for k, (tr, te) in enumerate(folds):
                keys.append((None, pol, k))
                tasks.append((_fit_fold, (Xf, y01, g, tr, te, params, None, pol, m)))
        report = None if progress is None else (lambda d, _t: progress(d, full))
        done = _run(tasks, n_jobs, backend, report)
        rows.update(zip(keys, done, strict=True))
    keys, tasks = [], []
    for e in eps_grid:
        for pol in pols:
            for k, (tr, te) in enumerate(folds):
                free = rows.get((None, pol, k))
                if (
                    free is not None
                    and free["status"] == str(Status.OPTIMAL)
                    and free["train_unfairness"] <= e + FEASIBILITY_TOL
                ):
                    rows[(e, pol, k)] = {**free, "reused": True}
                    continue
                keys.append((e, pol, k))
                tasks.append((_fit_fold, (Xf, y01, g, tr, te, params, e, pol, m)))
    report = None if progress is None else (lambda d, t: progress(first + d, first + t))
    done = _run(tasks, n_jobs, backend, report)
    rows.update(zip(keys, done, strict=True))

    records = []
    for (e, pol, k), row in rows.items():
        if e is None:
            continue
        records.append({"epsilon": e, "policy": pol, "fold": k, "reused": False, **row})
    points = pd.DataFrame.from_records(records)
    points["length"] = points["length"].astype(int)
    points = points.sort_values(["epsilon", "policy", "fold"], na_position="first")
    points = points.reset_index(drop=True)
    front = _summarise(points)
    settings = dict(
        epsilons=eps_grid, cv=cv, policies=pols, engine=engine, lam=lam, max_length=max_length,
        max_nodes=max_nodes, time_limit=time_limit, random_state=random_state,
        classes=jsonable(classes), n_samples=len(y01),
    )  # fmt: skip
    return ParetoResult(points, front, "cross_validation", m, settings)


def _summarise(points: pd.DataFrame) -> pd.DataFrame:
    """Mean over folds per (epsilon, policy); non-dominated pairs, sorted by unfairness."""
    cols = ["train_error", "train_unfairness", "test_error", "test_unfairness", "seconds"]
    groups = []
    for (e, pol), grp in points.groupby(["epsilon", "policy"], dropna=False, sort=True):
        if grp["rule_list"].isna().any():
            continue  # an infeasible fold: no mean to report
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
    lam: float = 0.001,
    max_length: int | None = None,
    policy: str | None = None,
    max_nodes: int | None = None,
    time_limit: float | None = None,
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
    metric, engine, lam, max_length, policy, max_nodes, time_limit, engine_options
        As in :class:`FairRuleListClassifier`.
    max_points : int, optional
        Stop after this many solves.
    progress : callable(dict), optional
        Called after each solve with its row.

    Returns
    -------
    ParetoResult
        ``points``: one row per solve (``epsilon`` is the cap used, NaN for the first); the last
        row may have no rule list (status ``infeasible``, or ``unknown`` if a limit hit first).
        ``front``: the non-dominated points in (unfairness, objective). ``settings["complete"]``
        is True when the sweep ended on a proof (infeasible, or unfairness 0) with every solve
        optimal; ``settings["exact_steps"]`` when the step admits every attainable value.
    """
    validate_params(
        "training_front", _COMMON_CONSTRAINTS,
        dict(metric=metric, engine=engine, lam=lam, max_length=max_length, policy=policy,
             max_nodes=max_nodes, time_limit=time_limit, engine_options=engine_options),
    )  # fmt: skip
    m = Metric.parse(metric)
    problem, Xf = _problem(X, y, sensitive_features, protected)
    problem = problem.replace(metric=m, lam=lam, max_length=max_length)
    y01, g, classes = problem.y, problem.protected, problem.classes
    clf = FairRuleListClassifier(
        metric=m, lam=lam, max_length=max_length, engine=engine, policy=policy,
        max_nodes=max_nodes, time_limit=time_limit, engine_options=engine_options,
    )  # fmt: skip
    delta = unfairness_resolution(m, y01, g)
    step = max(delta / 2, 2 * FEASIBILITY_TOL)
    rows: list[dict[str, Any]] = []
    epsilon: float | None = None
    complete = False
    all_optimal = True
    while max_points is None or len(rows) < max_points:
        start = time.perf_counter()
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", ConvergenceWarning)
                result = clf.set_params(epsilon=epsilon).fit(Xf, y01, sensitive_features=g).result_
        except InfeasibleError as exc:
            result = exc.result
        row: dict[str, Any] = {
            "epsilon": math.nan if epsilon is None else epsilon,
            "status": str(result.status),
            "objective": math.nan,
            "error": math.nan,
            "unfairness": math.nan,
            "length": -1,
            "lower_bound": result.lower_bound,
            "seconds": time.perf_counter() - start,
            "rule_list": None,
        }
        if result.rule_list is not None:
            ev = problem.evaluate(result.rule_list)
            row.update(
                objective=ev.objective, error=1 - ev.accuracy, unfairness=ev.unfairness,
                length=ev.length, rule_list=result.rule_list.to_dict(),
            )  # fmt: skip
        rows.append(row)
        if progress is not None:
            progress(row)
        if result.rule_list is None:
            complete = result.status is Status.INFEASIBLE
            break
        all_optimal &= result.status is Status.OPTIMAL
        if row["unfairness"] <= FEASIBILITY_TOL:
            complete = True
            break
        epsilon = max(0.0, row["unfairness"] - step)
    points = pd.DataFrame.from_records(rows)
    found = points[points["rule_list"].notna()]
    mask = non_dominated(found["unfairness"], found["objective"])
    front = found[mask].sort_values("unfairness").reset_index(drop=True)
    settings = dict(
        engine=engine, lam=lam, max_length=max_length, policy=policy, max_nodes=max_nodes,
        time_limit=time_limit, step=step, resolution=delta, exact_steps=delta >= FEASIBILITY_TOL,
        complete=bool(complete and all_optimal), classes=jsonable(classes),
        n_samples=len(y01),
    )  # fmt: skip
    return ParetoResult(points, front, "training", m, settings)
