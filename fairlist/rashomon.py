"""The Rashomon set: every fair rule list nearly as good as the optimal one.

:func:`rashomon_set` returns, in one branch-and-bound search, every rule list of the searched
space whose objective is at most the optimum plus ``delta`` and which meets the fairness cap:
the lists a practitioner may choose among, and the place to look for a *less discriminatory
alternative* at about the same accuracy (:meth:`RashomonSet.fairest`).

The set is defined over the engine's full space: lists of at most ``max_length`` rules over
distinct antecedents, each rule predicting either label and capturing at least one training
sample (of positive weight) not captured by an earlier rule, plus a default prediction (either
label, even when no sample reaches it). A list is a member when it meets the cap and its
objective ``errors / n + lam * length`` is at most ``optimum + delta + 1e-9`` (the slack absorbs
the rounding of the objectives).

How the engine finds them (``native/include/fairlist/context.hpp``, ``SearchContext::cutoff``):
the search records every fair list whose objective is within ``delta`` of the best list found so
far, and prunes a prefix only when its lower bound exceeds that threshold; as the best list
improves the threshold falls and the lists above it are dropped. The shortcuts that keep one of
several lists (the permutation map, the support bounds, canonical ties, the majority labels of
an unconstrained search) are switched off in this mode; the terminal solver compares with the
threshold and also offers the lists it otherwise skips as predicting like a shorter one; the
bounds on the objective of every completion (hierarchical, lookahead, maximum useful length,
equivalent points, the fairness and class bounds) stay on.

Identical antecedent columns are merged before the search (the first of each set stands in for
the others, :attr:`RashomonSet.merged`): two lists that differ only by such twins classify every
sample alike, and the set holds one of them.
"""

from __future__ import annotations

import math
import numbers
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from ._params import INT64_MAX, Interval, Options, validate_params
from .errors import DataError, InvalidParameterError
from .metric_table import METRICS, Metric
from .metrics import counts_by_group
from .rulelist import RuleList
from .solvers.base import DEFAULT_LAM, Problem, StopReason
from .solvers.bnb import POLICIES, BnBSolver, distinct_columns, engine_weights, new_search

__all__ = ["RashomonSet", "rashomon_set", "ENGINES"]

#: Engines that enumerate the set: the branch-and-bound, and CP-SAT (every solution under an
#: objective bound; a cross-check for small problems, fairlist.solvers.cpsat_rashomon).
ENGINES = ("bnb", "cpsat")

#: The membership slack (``kRashomonSlack`` in ``native/include/fairlist/context.hpp``).
SLACK = 1e-9

PARAMETER_CONSTRAINTS: dict[str, list] = {
    "delta": [Interval(numbers.Real, 0, None, closed="left")],
    "max_lists": [None, Interval(numbers.Integral, 1, INT64_MAX)],
    "engine": [Options(ENGINES)],
    "policy": [Options(POLICIES)],
}


@dataclass(frozen=True, eq=False)
class RashomonSet:
    """The fair rule lists within ``delta`` of the optimum (see :func:`rashomon_set`).

    Attributes
    ----------
    rule_lists : tuple of RuleList
        The members, by objective; among equal objectives fewer rules first, then by antecedent
        index, then by the rules' predictions, then by the default.
    objectives : ndarray of float
        Their objectives.
    optimum : float
        The best objective (inf when no list is fair). Certified when the search completed.
    optimum_lower_bound : float
        A proved lower bound on the optimum (equal to it when certified).
    delta : float
        The set's width: members have objectives at most ``optimum + delta`` (+1e-9).
    complete : bool
        True when the set is proved to hold every member. False when ``max_lists`` cut it
        (it then holds the ``max_lists`` members of least objective, the optimum certified),
        or a limit or Ctrl-C stopped the search (the set is then relative to the best list
        found): every member of objective below :attr:`complete_below` is listed.
    complete_below : float
        inf when complete; otherwise the objective below which the set is complete.
    stop_reason : StopReason
        Why the search stopped (``max_lists``, a limit, ``interrupted``; ``completed``).
    merged : dict
        For each antecedent that stands for identical columns, the names of those columns.
    problem : Problem
        The problem the lists were learned on (for the views).
    stats : dict
        The search's statistics.
    """

    rule_lists: tuple[RuleList, ...]
    objectives: np.ndarray
    optimum: float
    optimum_lower_bound: float
    delta: float
    complete: bool
    complete_below: float
    stop_reason: StopReason
    merged: dict[str, tuple[str, ...]]
    problem: Problem = field(repr=False)
    stats: dict[str, Any] = field(default_factory=dict, repr=False)

    def __len__(self) -> int:
        return len(self.rule_lists)

    def __iter__(self) -> Iterator[RuleList]:
        return iter(self.rule_lists)

    def __repr__(self) -> str:
        state = "complete" if self.complete else f"complete below {self.complete_below:.6g}"
        return (
            f"RashomonSet({len(self)} rule lists, optimum {self.optimum:.6g}, "
            f"delta {self.delta:g}, {state})"
        )

    # ------------------------------------------------------------------ per-list data
    def predictions(self) -> Iterator[np.ndarray]:
        """Each member's 0/1 predictions on the training rows, in the set's order."""
        X = self.problem.X.astype(bool)
        index = {name: j for j, name in enumerate(self.problem.feature_names)}
        for rule_list in self.rule_lists:
            pred = np.full(X.shape[0], rule_list.default, dtype=np.uint8)
            free = np.ones(X.shape[0], dtype=bool)
            for rule in rule_list.rules:
                hit = free & X[:, index[rule.antecedent]]
                pred[hit] = rule.prediction
                free &= ~hit
            yield pred

    def to_frame(self) -> pd.DataFrame:
        """One row per member: objective, accuracy, every metric's unfairness (columns named by
        the metrics' short names), each group's positive rate (``positive_rate[group]``),
        length, the antecedents used and the list itself."""
        p = self.problem
        y = p.y.astype(bool)
        rows = []
        for rule_list, objective, pred in zip(
            self.rule_lists, self.objectives, self.predictions(), strict=True
        ):
            counts = counts_by_group(y, pred.astype(bool), p.groups, p.group_names, p.sample_weight)
            wrong = p.weights[pred.astype(bool) != y].sum()
            row: dict[str, Any] = {
                "objective": float(objective),
                "accuracy": 1.0 - float(wrong) / p.total_weight,
            }
            for info in METRICS.values():
                row[info.short_name] = counts.unfairness(info.metric)
            for name, group in zip(p.group_names, counts.groups, strict=True):
                row[f"positive_rate[{name}]"] = group.positive_rate
            row["length"] = rule_list.length
            row["antecedents"] = tuple(r.antecedent for r in rule_list.rules)
            row["rule_list"] = str(rule_list)
            rows.append(row)
        columns = ["objective", "accuracy", *(i.short_name for i in METRICS.values())]
        columns += [f"positive_rate[{g}]" for g in p.group_names]
        columns += ["length", "antecedents", "rule_list"]
        return pd.DataFrame(rows, columns=columns)

    # ------------------------------------------------------------------ views
    def fairest(self, metric: Any = None, frame: pd.DataFrame | None = None) -> int:
        """Index of the member of least unfairness under ``metric`` (default: the problem's),
        the lowest objective among ties: the less discriminatory alternative within delta
        (``frame``: :meth:`to_frame`, if already computed)."""
        name = _short_name(self.problem.metric if metric is None else metric)
        if not len(self):
            raise ValueError("the Rashomon set is empty: no list meets the cap")
        frame = self.to_frame() if frame is None else frame
        return int(np.lexsort((frame["objective"].to_numpy(), frame[name].to_numpy()))[0])

    def antecedent_usage(self) -> pd.Series:
        """How many members use each antecedent (feature reliance across the set), most used
        first; antecedents no member uses are left out."""
        used: dict[str, int] = {}
        for rule_list in self.rule_lists:
            for rule in rule_list.rules:
                used[rule.antecedent] = used.get(rule.antecedent, 0) + 1
        series = pd.Series(used, dtype=np.int64, name="lists")
        return series.sort_values(ascending=False, kind="stable")

    def multiplicity(self) -> pd.DataFrame:
        """Predictive multiplicity by group: the share of each group's rows (by weight) whose
        prediction differs between two members of the set (``ambiguity``), and its rows.
        One row per group plus ``all``."""
        p = self.problem
        any_pos = np.zeros(p.n_samples, dtype=bool)
        all_pos = np.ones(p.n_samples, dtype=bool)
        for pred in self.predictions():
            any_pos |= pred.astype(bool)
            all_pos &= pred.astype(bool)
        changes = any_pos & ~all_pos if len(self) else np.zeros(p.n_samples, dtype=bool)
        w = p.weights
        rows = {}
        for g, name in enumerate(p.group_names):
            mine = p.groups == g
            total = float(w[mine].sum())
            rows[name] = {
                "rows": int(mine.sum()),
                "ambiguity": float(w[mine & changes].sum()) / total if total else 0.0,
            }
        rows["all"] = {"rows": p.n_samples, "ambiguity": float(w[changes].sum()) / p.total_weight}
        return pd.DataFrame.from_dict(rows, orient="index")

    # ------------------------------------------------------------------ reports
    def to_dict(self, frame: pd.DataFrame | None = None) -> dict[str, Any]:
        """The set as plain data (``fairlist rashomon --json``): its certificate and, per list,
        the rows of :meth:`to_frame` (``frame``: that frame, if already computed)."""
        frame = self.to_frame() if frame is None else frame
        lists = []
        for row, rule_list in zip(frame.to_dict("records"), self.rule_lists, strict=True):
            row["antecedents"] = list(row["antecedents"])
            row["rule_list"] = rule_list.to_dict()
            lists.append(row)
        return {
            "size": len(self),
            "optimum": self.optimum,
            "optimum_lower_bound": self.optimum_lower_bound,
            "delta": self.delta,
            "complete": self.complete,
            "complete_below": None if math.isinf(self.complete_below) else self.complete_below,
            "stop_reason": str(self.stop_reason),
            "merged": {k: list(v) for k, v in self.merged.items()},
            "seconds": self.stats.get("seconds"),
            "lists": lists,
        }

    def summary(self, rows: int = 20, frame: pd.DataFrame | None = None) -> str:
        """A text report: the certificate, the first ``rows`` lists (objective, accuracy,
        the problem's unfairness, length, antecedents), the fairest member, the antecedents
        most used, and the predictive multiplicity by group."""
        frame = self.to_frame() if frame is None else frame
        metric = self.problem.metric.short_name
        lines = [repr(self)]
        if not self.complete:
            lines.append(
                f"incomplete ({self.stop_reason}): every member of objective below "
                f"{self.complete_below:.6g} is listed"
            )
        for kept, twins in self.merged.items():
            lines.append(f"{kept} stands for the identical columns {', '.join(twins)}")
        if not len(self):
            return "\n".join([*lines, "no rule list meets the cap"])
        shown = frame[["objective", "accuracy", metric, "length", "antecedents"]].head(rows)
        lines.append(shown.to_string(float_format=lambda v: f"{v:.4f}"))
        if len(self) > rows:
            lines.append(f"... {len(self) - rows} more")
        best = self.fairest(frame=frame)
        lines.append(
            f"fairest member: #{best} ({metric} {frame[metric][best]:.4f}, objective "
            f"{frame['objective'][best]:.4f})\n{self.rule_lists[best]}"
        )
        usage = self.antecedent_usage().head(10)
        lines.append("lists using each antecedent:\n" + usage.to_string())
        lines.append("predictive multiplicity (share of rows whose prediction changes):")
        lines.append(self.multiplicity().to_string(float_format=lambda v: f"{v:.4f}"))
        return "\n".join(lines)


def _short_name(metric: Any) -> str:
    return Metric.parse(metric).short_name


def rashomon_set(
    X: Any,
    y: Any,
    sensitive_features: Any = None,
    *,
    metric: Any = "statistical_parity",
    epsilon: float | None = None,
    lam: float = DEFAULT_LAM,
    max_length: int | None = None,
    delta: float,
    max_lists: int | None = 100_000,
    engine: str = "bnb",
    protected: Any = None,
    sample_weight: Any = None,
    binarizer: Any = "auto",
    policy: str = "bfs",
    max_nodes: int | None = None,
    time_limit: float | None = None,
    memory_limit_mb: float | None = None,
) -> RashomonSet:
    """Every fair rule list whose objective is within ``delta`` of the optimum.

    One branch-and-bound search keeps every fair list within ``delta`` of the best list found
    so far and prunes only what cannot come within it; see :mod:`fairlist.rashomon`.

    Parameters
    ----------
    X, y, sensitive_features, protected, sample_weight, binarizer
        As :meth:`FairRuleListClassifier.fit <fairlist.FairRuleListClassifier.fit>` takes them:
        0/1 antecedents, or a raw table that the binarizer turns into antecedents.
    metric, epsilon, lam, max_length
        The problem, as the estimator takes it (``epsilon=None``: no cap).
    delta : float
        The set's width (>= 0): members have objectives at most ``optimum + delta`` (+1e-9).
    max_lists : int or None
        Return at most this many lists (None: no cap): the ``max_lists`` of least objective
        (ties in the canonical order), certified as such; the search prunes above the
        ``max_lists``-th it holds, so a small cap also saves work. The set then says below
        which objective it is complete.
    engine : {"bnb", "cpsat"}
        The branch-and-bound's Rashomon mode, or CP-SAT's enumeration of every solution under
        the objective bound (:mod:`fairlist.solvers.cpsat_rashomon`: for small problems, as a
        cross-check; it needs ``max_length`` and exact weights).
    policy : str
        The branch-and-bound's search order (it changes the work, never a complete set).
    max_nodes, time_limit, memory_limit_mb
        Limits (None: none); a limit, or Ctrl-C, returns the partial set, marked incomplete.

    Returns
    -------
    RashomonSet

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[1, 0], [1, 1], [0, 1], [0, 0]], dtype=np.uint8)
    >>> rs = rashomon_set(X, [1, 1, 0, 0], [1, 0, 1, 0], lam=0.01, delta=0.3)
    >>> rs.complete, len(rs), rs.optimum
    (True, 6, 0.01)
    >>> print(rs.rule_lists[0])
    if [x0] then [1]
    else [0]
    """
    start = time.perf_counter()
    validate_params(
        "rashomon_set",
        PARAMETER_CONSTRAINTS,
        {"delta": delta, "max_lists": max_lists, "engine": engine, "policy": policy},
    )
    from .estimator import FairRuleListClassifier

    est = FairRuleListClassifier(
        metric=metric,
        epsilon=epsilon,
        lam=lam,
        max_length=max_length,
        binarizer=binarizer,
        max_nodes=max_nodes,
        time_limit=time_limit,
        memory_limit_mb=memory_limit_mb,
    )
    from .estimator import PARAMETER_CONSTRAINTS as ESTIMATOR_CONSTRAINTS

    validate_params("rashomon_set", ESTIMATOR_CONSTRAINTS, est.get_params(deep=False))
    problem = est._prepare(X, y, sensitive_features, protected, sample_weight, start)
    problem = problem.with_limits(problem.limits.minus(time.perf_counter() - start))
    if engine == "cpsat":
        return cpsat_rashomon(problem, float(delta), max_lists)
    return search_rashomon(problem, float(delta), max_lists, policy=policy)


def search_rashomon(
    problem: Problem, delta: float, max_lists: int | None, *, policy: str = "bfs", **options: Any
) -> RashomonSet:
    """The Rashomon set of a :class:`~fairlist.solvers.Problem` (:func:`rashomon_set` after
    the data are prepared); ``options``: further :class:`~fairlist.solvers.BnBSolver`
    parameters (the switches of the bounds)."""
    solver = BnBSolver(policy=policy, **options)
    weights = engine_weights(problem)
    if not weights.exact:
        raise DataError(
            "sample_weight: the Rashomon set needs weights the engine reads exactly (decimals, "
            "simple fractions, integers, totalling at most 2**31 units); these are rounded"
        )
    config = solver._config(problem.limits, problem.max_length)
    config.update(rashomon_delta=delta, max_lists=int(max_lists or 0))
    epsilon = 0.0 if problem.epsilon is None else float(problem.epsilon)
    search, kept, representative = new_search(problem, weights, epsilon, config)
    deadline = None
    if problem.limits.time_limit is not None:
        deadline = time.perf_counter() + float(problem.limits.time_limit)
    raw = solver._run(search, deadline)
    return _make_set(problem, raw, kept, representative, delta)


def _make_set(problem: Problem, raw: dict, kept, representative, delta: float) -> RashomonSet:
    rules = np.asarray(raw["rashomon_rules"], dtype=np.int64)
    starts = np.asarray(raw["rashomon_starts"], dtype=np.int64)
    defaults = raw["rashomon_defaults"]
    lists = []
    for i in range(len(starts) - 1):
        mine = rules[starts[i] : starts[i + 1]]
        lists.append(
            problem.rule_list([int(kept[j]) for j in mine >> 1], (mine & 1).tolist(), defaults[i])
        )
    stop = StopReason[raw["stop_reason"].name]
    below = float(raw["rashomon_complete_below"])
    if stop is StopReason.COMPLETED and not math.isinf(below):  # max_lists cut a finished set
        stop = StopReason.MAX_LISTS
    optimum = float(raw["objective"])
    status = raw["status"].name
    return RashomonSet(
        rule_lists=tuple(lists),
        objectives=np.asarray(raw["rashomon_objectives"], dtype=np.float64),
        optimum=optimum,
        optimum_lower_bound=optimum if status == "OPTIMAL" else float(raw["lower_bound"]),
        delta=delta,
        complete=math.isinf(below) and stop is StopReason.COMPLETED,
        complete_below=below,
        stop_reason=stop,
        merged=_merged(problem, kept, representative),
        problem=problem,
        stats=dict(raw["stats"]) | {"status": status.lower()},
    )


def _merged(problem: Problem, kept, representative) -> dict[str, tuple[str, ...]]:
    """Each kept antecedent that stands for identical columns, with their names."""
    names = problem.feature_names
    merged: dict[str, list[str]] = {}
    for j, slot in enumerate(representative):
        if kept[slot] != j:
            merged.setdefault(names[kept[slot]], []).append(names[j])
    return {k: tuple(v) for k, v in merged.items()}


def cpsat_rashomon(problem: Problem, delta: float, max_lists: int | None) -> RashomonSet:
    """The Rashomon set of a :class:`~fairlist.solvers.Problem` by CP-SAT (small problems)."""
    from .solvers.cpsat_rashomon import enumerate_rashomon

    start = time.perf_counter()
    if problem.max_length is None:  # the optimum's length bound may be too short for the set
        raise InvalidParameterError(
            "engine='cpsat' enumerates the Rashomon set under a length cap: set max_length"
        )
    max_length = min(problem.max_length, problem.n_antecedents)
    found = enumerate_rashomon(problem, max_length, delta, None, problem.limits.time_limit)
    kept, representative = distinct_columns(problem.X)
    lists = {}
    for antecedents, predictions, default in found.lists:  # twins: the first of their set
        mapped = [int(kept[representative[j]]) for j in antecedents]
        rule_list = problem.rule_list(mapped, list(predictions), default)
        lists[tuple(zip(mapped, predictions, strict=True)), default] = rule_list
    scored = []
    for (rules, default), rule_list in lists.items():
        objective = problem.evaluate(rule_list).objective
        key = (len(rules), [j for j, _ in rules], [q for _, q in rules], default)
        scored.append((objective, key, rule_list))
    scored.sort(key=lambda item: (item[0], item[1]))
    below = math.inf if found.complete else 0.0
    stop = StopReason.COMPLETED if found.complete else StopReason.TIME_LIMIT
    if max_lists is not None and len(scored) > max_lists:
        below, stop = min(below, scored[max_lists][0]), StopReason.MAX_LISTS
        scored = scored[:max_lists]
    optimum = scored[0][0] if scored else math.inf
    return RashomonSet(
        rule_lists=tuple(item[2] for item in scored),
        objectives=np.asarray([item[0] for item in scored], dtype=np.float64),
        optimum=optimum,
        optimum_lower_bound=optimum if found.optimal else 0.0,
        delta=delta,
        complete=found.complete and math.isinf(below),
        complete_below=below,
        stop_reason=stop,
        merged=_merged(problem, kept, representative),
        problem=problem,
        stats={"engine": "cpsat", "seconds": time.perf_counter() - start},
    )
