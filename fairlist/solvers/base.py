"""The problem both engines read, the result both return, and the ``Solver`` interface.

A :class:`Problem` is validated once, here, at the edge: engines may assume a C-contiguous
``uint8`` antecedent matrix, 0/1 labels, two non-empty groups and sane parameters.
"""

from __future__ import annotations

import enum
import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

import numpy as np

from ..metrics import ConfusionCounts, GroupCounts, Metric, is_fair, unfairness_from_counts
from ..rulelist import RuleList

__all__ = ["Problem", "Result", "Status", "StopReason", "Evaluation", "Solver", "Limits"]


class Status(str, enum.Enum):
    """Outcome of a solve, mirroring CP-SAT's statuses."""

    OPTIMAL = "optimal"  # search finished: the rule list is optimal (in the searched space)
    FEASIBLE = "feasible"  # a limit stopped the search: best fair rule list found so far
    INFEASIBLE = "infeasible"  # proved: no rule list (in the searched space) meets epsilon
    UNKNOWN = "unknown"  # a limit stopped the search before any fair rule list was found

    def __str__(self) -> str:
        return self.value


class StopReason(str, enum.Enum):
    """Why a search stopped."""

    COMPLETED = "completed"
    NODE_LIMIT = "node_limit"
    TIME_LIMIT = "time_limit"
    MEMORY_LIMIT = "memory_limit"
    INTERRUPTED = "interrupted"

    def __str__(self) -> str:
        return self.value


@dataclass(frozen=True)
class Limits:
    """When to stop searching. ``None`` means no limit."""

    max_nodes: int | None = None  # trie size (the paper uses 4,000,000)
    time_limit: float | None = None  # seconds
    # Memory of the search structures; None: the engine's default (bnb: three quarters of the
    # physical memory, see bnb.default_memory_limit_mb; cpsat: none).
    memory_limit_mb: float | None = None

    def __post_init__(self) -> None:
        for name in ("max_nodes", "time_limit", "memory_limit_mb"):
            value = getattr(self, name)
            if value is None:
                continue
            if isinstance(value, bool) or not isinstance(value, (int, float, np.number)):
                raise TypeError(f"{name} must be a number or None, got {value!r}")
            if not value > 0 or math.isnan(value):
                raise ValueError(f"{name} must be positive, got {value!r}")
        if self.max_nodes is not None and int(self.max_nodes) != self.max_nodes:
            raise ValueError(f"max_nodes must be an integer, got {self.max_nodes!r}")


@dataclass(frozen=True)
class Evaluation:
    """A rule list measured on a problem's training data."""

    errors: int
    length: int
    objective: float
    accuracy: float
    unfairness: float
    fair: bool
    counts: ConfusionCounts


def _binary_array(name: str, values: Any, ndim: int) -> np.ndarray:
    arr = np.asarray(values)
    if arr.ndim != ndim:
        raise ValueError(f"{name} must be {ndim}-dimensional, got shape {arr.shape}")
    if arr.dtype != bool:
        if arr.dtype.kind not in "iuf":
            raise ValueError(f"{name} must hold 0/1 values, got dtype {arr.dtype}")
        if arr.dtype.kind == "f" and np.isnan(arr).any():
            raise ValueError(f"{name} contains NaN")
        bad = (arr != 0) & (arr != 1)
        if bad.any():
            where = np.argwhere(bad)[0]
            raise ValueError(
                f"{name} must hold only 0/1; found {arr[tuple(where)]!r} at index {tuple(where)}"
            )
    return np.ascontiguousarray(arr, dtype=np.uint8)


@dataclass(frozen=True, eq=False)
class Problem:
    """A fair rule-list learning problem.

    minimise ``errors / n + lam * length`` subject to ``unfairness <= epsilon``.

    Parameters
    ----------
    X : array-like of 0/1, shape (n, m)
        ``X[i, j]`` is 1 when sample ``i`` satisfies antecedent ``j``.
    y : array-like of 0/1, shape (n,)
    protected : array-like of bool, shape (n,)
        True for samples of the protected group; both groups must be non-empty.
    metric : Metric or str
    epsilon : float or None
        Maximum unfairness allowed; None (or ``inf``) means unconstrained.
    lam : float
        Length penalty per rule (the paper's lambda, CORELS' ``c``).
    max_length : int or None
        Longest rule list considered (None: no cap other than the one the bounds imply).
    feature_names : sequence of str, optional
        Antecedent names (default ``x0``, ``x1``, …).
    labels : pair of str
        Names of the predictions 0 and 1.
    limits : Limits
    """

    X: np.ndarray
    y: np.ndarray
    protected: np.ndarray
    metric: Metric = Metric.STATISTICAL_PARITY
    epsilon: float | None = None
    lam: float = 0.01
    max_length: int | None = None
    feature_names: tuple[str, ...] = ()
    labels: tuple[str, str] = ("0", "1")
    limits: Limits = field(default_factory=Limits)

    def __post_init__(self) -> None:
        set_ = lambda k, v: object.__setattr__(self, k, v)  # noqa: E731
        X = _binary_array("X", self.X, 2)
        y = _binary_array("y", self.y, 1)
        g = _binary_array("protected", self.protected, 1).astype(bool)
        n, m = X.shape
        if n == 0:
            raise ValueError("X has no rows")
        if len(y) != n:
            raise ValueError(f"y has {len(y)} rows, X has {n}")
        if len(g) != n:
            raise ValueError(f"protected has {len(g)} rows, X has {n}")
        if g.all() or not g.any():
            which = "unprotected" if g.all() else "protected"
            raise ValueError(f"protected: the {which} group is empty; both groups need samples")
        set_("X", X)
        set_("y", y)
        set_("protected", g)
        set_("metric", Metric.parse(self.metric))
        eps = self.epsilon
        if eps is not None:
            if isinstance(eps, bool) or not isinstance(eps, (int, float, np.number)):
                raise TypeError(f"epsilon must be a number or None, got {eps!r}")
            if math.isnan(eps) or eps < 0:
                raise ValueError(f"epsilon must be >= 0 (the maximum unfairness), got {eps!r}")
            eps = None if math.isinf(eps) else float(eps)
        set_("epsilon", eps)
        lam = self.lam
        if isinstance(lam, bool) or not isinstance(lam, (int, float, np.number)):
            raise TypeError(f"lam must be a number, got {lam!r}")
        if not (lam >= 0) or math.isinf(lam):
            raise ValueError(f"lam must be a finite number >= 0, got {lam!r}")
        set_("lam", float(lam))
        if self.max_length is not None:
            ml = self.max_length
            if isinstance(ml, bool) or int(ml) != ml or ml < 0:
                raise ValueError(f"max_length must be a non-negative integer or None, got {ml!r}")
            set_("max_length", int(ml))
        names = tuple(str(s) for s in self.feature_names) or tuple(f"x{j}" for j in range(m))
        if len(names) != m:
            raise ValueError(f"feature_names has {len(names)} names, X has {m} columns")
        if len(set(names)) != m:
            dup = next(s for s in names if names.count(s) > 1)
            raise ValueError(f"feature_names: {dup!r} appears more than once")
        set_("feature_names", names)
        labels = tuple(str(s) for s in self.labels)
        if len(labels) != 2:
            raise ValueError(f"labels must name the two classes, got {labels!r}")
        set_("labels", labels)
        if not isinstance(self.limits, Limits):
            raise TypeError(f"limits must be a Limits, got {type(self.limits).__name__}")

    # ------------------------------------------------------------------ shape
    @property
    def n_samples(self) -> int:
        return self.X.shape[0]

    @property
    def n_antecedents(self) -> int:
        return self.X.shape[1]

    @property
    def constrained(self) -> bool:
        return self.epsilon is not None

    def replace(self, **changes: Any) -> Problem:
        """A copy with some fields changed (validated again)."""
        fields = {
            k: getattr(self, k)
            for k in (
                "X", "y", "protected", "metric", "epsilon", "lam", "max_length",
                "feature_names", "labels", "limits",
            )
        }
        fields.update(changes)
        return Problem(**fields)

    # ------------------------------------------------------------------ evaluation
    def rule_list(self, antecedents: Sequence[int], predictions: Sequence[int], default: int):
        """A :class:`RuleList` from antecedent indices, named after this problem's features."""
        return RuleList.from_indices(
            antecedents, predictions, default, self.feature_names, self.labels
        )

    def evaluate(self, rule_list: RuleList) -> Evaluation:
        """Errors, objective, accuracy and unfairness of ``rule_list`` on the training data."""
        # Re-map by name: the rule list may come from a problem with another column order.
        rule_list = self.rule_list(
            rule_list.antecedent_indices(self.feature_names),
            [r.prediction for r in rule_list.rules],
            rule_list.default,
        )
        pred = rule_list.predict(self.X).astype(bool)
        y = self.y.astype(bool)
        g = self.protected

        def counts(mask: np.ndarray) -> GroupCounts:
            t, p = y[mask], pred[mask]
            return GroupCounts(
                tp=int(np.count_nonzero(t & p)), fp=int(np.count_nonzero(~t & p)),
                tn=int(np.count_nonzero(~t & ~p)), fn=int(np.count_nonzero(t & ~p)),
            )

        cc = ConfusionCounts(protected=counts(g), unprotected=counts(~g))
        errors = int(np.count_nonzero(pred != y))
        unf = unfairness_from_counts(cc, self.metric)
        return Evaluation(
            errors=errors,
            length=rule_list.length,
            objective=errors / self.n_samples + self.lam * rule_list.length,
            accuracy=1.0 - errors / self.n_samples,
            unfairness=unf,
            fair=is_fair(unf, self.epsilon),
            counts=cc,
        )


@dataclass(frozen=True)
class Result:
    """What an engine returns.

    ``rule_list`` is None exactly when ``status`` is ``infeasible`` or ``unknown``. A returned rule
    list always meets the constraint. ``lower_bound`` is the best lower bound on the optimal
    objective proved when the search stopped (equal to ``objective`` when optimal).
    """

    status: Status
    rule_list: RuleList | None
    objective: float
    accuracy: float
    unfairness: float
    lower_bound: float
    stop_reason: StopReason
    engine: str
    search_space: str = "full"  # "full": both labels per rule; "majority": CORELS' restriction
    stats: dict[str, Any] = field(default_factory=dict)

    @property
    def optimal(self) -> bool:
        return self.status is Status.OPTIMAL

    @property
    def gap(self) -> float:
        """objective - lower_bound (0 when optimal, inf without a rule list)."""
        if self.rule_list is None:
            return math.inf
        return max(0.0, self.objective - self.lower_bound)

    def summary(self) -> str:
        lines = [
            f"status: {self.status} ({self.stop_reason}; engine {self.engine}, "
            f"{self.search_space} search space)",
        ]
        if self.rule_list is not None:
            lines += [
                f"objective: {self.objective:.6f}  lower bound: {self.lower_bound:.6f}",
                f"training accuracy: {self.accuracy:.4f}  unfairness: {self.unfairness:.4f}",
                str(self.rule_list),
            ]
        return "\n".join(lines)


@runtime_checkable
class Solver(Protocol):
    """An engine: ``solve(problem) -> Result``."""

    name: str

    def solve(self, problem: Problem) -> Result: ...
