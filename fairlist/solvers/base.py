"""The problem both engines read, the result both return, and the ``Solver`` interface.

A :class:`Problem` is validated once, here, at the edge: engines may assume a C-contiguous
``uint8`` antecedent matrix, 0/1 labels, two non-empty groups and sane parameters.
"""

from __future__ import annotations

import copy
import dataclasses
import math
import numbers
import threading
import warnings
from collections.abc import Sequence
from dataclasses import dataclass, field, fields
from typing import Any, ClassVar, NamedTuple, Protocol, runtime_checkable

import numpy as np

from .._params import INT64_MAX, Interval, Options, Satisfies, validate_params
from .._validation import as_binary, as_table, encode_labels
from ..errors import DataError, InvalidParameterError
from ..groups import check_group_sizes, encode_groups
from ..metrics import (
    ConfusionCounts,
    Metric,
    check_sample_weight,
    counts_by_group,
    is_fair,
    unfairness_from_counts,
)
from ..rulelist import RuleList
from ..status import Status, StopReason

__all__ = ["Problem", "Result", "Status", "StopReason", "Evaluation", "Solver", "Limits"]


#: The largest memory limit (MiB): 2**63 bytes, the most an int64 byte count holds.
MAX_MEMORY_MB = 2**43


@dataclass(frozen=True)
class Limits:
    """When to stop searching. ``None`` means no limit.

    ``gap_tolerance`` stops the search once the best list's objective is within that much
    (absolute, in objective units) of the proved lower bound: the result is then ``feasible``
    with stop reason ``gap_limit``, and ``objective - lower_bound <= gap_tolerance`` is a
    certificate that no list is better by more than the tolerance (GOSDT's and CP-SAT's
    ``absolute_gap_limit``). 0 or None searches on to a certificate or another limit.
    """

    # Trie size (the paper uses 4,000,000), plus the nodes length deepening's phases expanded
    # or finished by counting (their trie stays small: fairlist/solvers/deepening.py).
    max_nodes: int | None = None
    time_limit: float | None = None  # seconds
    # Memory of the search structures; None: the engine's default (bnb: three quarters of the
    # physical memory, see bnb.default_memory_limit_mb; cpsat: none).
    memory_limit_mb: float | None = None
    gap_tolerance: float | None = None  # objective - lower bound at which to stop

    PARAMETER_CONSTRAINTS: ClassVar[dict[str, list]] = {
        # the C++ core's int64_t max_nodes; its memory limit is compared in bytes, and CP-SAT
        # takes an int64 of MB: 2**43 MiB is 2**63 bytes
        "max_nodes": [None, Interval(numbers.Integral, 1, INT64_MAX)],
        "time_limit": [None, Interval(numbers.Real, 0, None, closed="neither")],
        "memory_limit_mb": [None, Interval(numbers.Real, 0, MAX_MEMORY_MB, closed="right")],
        "gap_tolerance": [None, Interval(numbers.Real, 0, None, closed="left")],
    }

    def __post_init__(self) -> None:
        validate_params("Limits", self.PARAMETER_CONSTRAINTS, self.__dict__)

    def minus(self, seconds: float) -> Limits:
        """These limits after ``seconds`` were spent (preparing the data, building a model):
        the time limit, if any, lowered by them, to no less than :data:`MIN_TIME_LEFT` (an
        engine given that little stops at once with what it has)."""
        if self.time_limit is None:
            return self
        left = max(float(self.time_limit) - float(seconds), MIN_TIME_LEFT)
        return dataclasses.replace(self, time_limit=left)


#: The estimator's and ``fairlist fit``'s default budget: the paper's trie of 4,000,000 nodes,
#: and a minute as a safety net.
DEFAULT_MAX_NODES = 4_000_000
DEFAULT_TIME_LIMIT = 60.0

#: The CP-SAT warm start's seconds by default (``BnBSolver``'s and the estimator's
#: ``warm_start_seconds``, ``fit --warm-start-seconds``; fairlist.solvers.warmstart).
DEFAULT_WARM_START_SECONDS = 5.0

#: The one default length penalty per rule (the estimator, ``fit``, ``verify``, ``pareto``,
#: ``rashomon`` and :class:`Problem`): ``"auto"``, which :class:`Problem` resolves on its data to
#: the number :func:`auto_lam` gives (the problem then holds that number: "optimal" is optimal for
#: it, and the estimator reports it as ``lam_``). On the imbalanced tables of issue 34 (6 % and
#: 18 % positives) the old fixed 0.01 made the constant list optimal where a short fair list was
#: more accurate: see docs/choosing.md and ``benchmarks/bench_defaults.py``.
DEFAULT_LAM = "auto"

#: ``lam="auto"`` is this many times the constant list's error rate (the minority share): the old
#: default 0.01 read per error of the constant list instead of per sample, so that a rule must
#: remove 1 % of the errors the constant list makes (0.005 on a balanced table).
AUTO_LAM_SCALE = 0.01


def auto_lam(y: Any, sample_weight: Any = None) -> float:
    """The length penalty ``lam="auto"`` resolves to: ``AUTO_LAM_SCALE`` times the share of the
    minority class (weighted by ``sample_weight``), the error rate of the best constant list.

    Why relative to the minority share: the objective ``errors / n + lam * length`` prices a rule
    in errors of all ``n`` samples, but on a table of 6 % positives every rule can only ever
    remove a part of the 6 % the constant list gets wrong; a fixed ``lam=0.01`` asks each rule to
    remove a sixth of them, which none does. Measured against the constant list's errors, the
    price of a rule is the same on a balanced table and an imbalanced one, and so is the bound
    on a useful list's length (``objective / lam <= 1 / AUTO_LAM_SCALE = 100`` rules). A table
    of one class (nothing to gain from a rule) is priced as a balanced one.

    >>> auto_lam([0, 1, 1, 0])                  # balanced: half the old default
    0.005
    >>> round(auto_lam([1] + [0] * 99), 6)      # 1 % positives: a rule must remove 0.01 % of n
    0.0001
    """
    labels = np.asarray(y, dtype=float).ravel()
    weights = np.ones_like(labels) if sample_weight is None else np.asarray(sample_weight, float)
    total = float(weights.sum())
    positive = float(weights @ labels) / total if total > 0 else 0.5
    share = min(positive, 1.0 - positive)
    return AUTO_LAM_SCALE * (share if share > 0 else 0.5)


#: The least time limit :meth:`Limits.minus` leaves (seconds).
MIN_TIME_LEFT = 1e-3


@dataclass(frozen=True)
class Evaluation:
    """A rule list measured on a problem's training data."""

    errors: float  # misclassified samples (an int), or the sum of their weights
    length: int
    objective: float
    accuracy: float
    unfairness: float
    fair: bool
    counts: ConfusionCounts


def _is_metric(value: Any) -> bool:
    Metric.parse(value)
    return True


#: The objective and the constraint, shared by every owner that takes them (the estimator's
#: table refers to these).
METRIC = [
    Satisfies(
        _is_metric,
        "a fairness metric name (SP, PP, PE, EOpp, EOdds, CUAE, or a "
        "long name such as statistical_parity) or a Metric",
    )
]
EPSILON = [None, Interval(numbers.Real, 0, None, closed="left")]
LAM = [Options(("auto",)), Interval(numbers.Real, 0, math.inf, closed="left")]
#: Seconds between two progress calls (both engines): a wait longer than threading.TIMEOUT_MAX
#: raises OverflowError.
PROGRESS_INTERVAL = Interval(numbers.Real, 0, threading.TIMEOUT_MAX, closed="right")
MAX_LENGTH = [None, Interval(numbers.Integral, 0, INT64_MAX)]  # the C++ core's int64_t


class _Checked(NamedTuple):
    """An array :meth:`Problem.from_data` has just checked: the C-contiguous ``uint8`` 0/1
    matrix :func:`~fairlist._validation.as_binary` returned (its check names the column of a
    bad cell, which the constructor's cannot), or the 0/1 codes of the labels' one encoding.
    The constructor takes it as it is rather than scan it again; private, so a
    :class:`Problem` built directly is always checked."""

    values: np.ndarray


@dataclass(frozen=True, eq=False)
class Problem:
    """A fair rule-list learning problem.

    minimise ``errors / n + lam * length`` subject to ``unfairness <= epsilon``, where with
    sample weights ``errors`` and ``n`` are sums of weights and every rate of the metric is
    weighted, and the unfairness compares every group (the largest minus the smallest rate).

    Build one from user data (any two class labels, a DataFrame or an array of antecedents, the
    groups as fairlearn names them) with :meth:`from_data`; the constructor takes the encoded
    arrays. Every field is validated here, once: engines may assume a C-contiguous ``uint8``
    antecedent matrix, 0/1 labels, group codes ``0 .. k-1`` each with samples, and valid
    parameters.

    Parameters
    ----------
    X : array-like of 0/1, shape (n, m)
        ``X[i, j]`` is 1 when sample ``i`` satisfies antecedent ``j``.
    y : array-like of 0/1, shape (n,)
    groups : array-like, shape (n,)
        The group of each sample: a boolean (or 0/1) mask of the protected group (two groups:
        code 0 protected, 1 unprotected, the paper's setting), or integer codes ``0 .. k-1``
        with ``k >= 3``. Every group needs samples.
    metric : Metric or str
    epsilon : float or None
        Maximum unfairness allowed; None (or ``inf``) means unconstrained.
    lam : float or "auto"
        Length penalty per rule (the paper's lambda, CORELS' ``c``). ``"auto"`` (the default)
        is resolved here to :func:`auto_lam` of ``y`` and ``sample_weight`` (0.01 x the minority
        share); the problem holds the number.
    max_length : int or None
        Longest rule list considered (None: no cap other than the one the bounds imply).
    feature_names : sequence of str, optional
        Antecedent names (default ``x0``, ``x1``, …).
    labels : pair of str, optional
        Names of the predictions 0 and 1 when printing (default: the classes as text).
    limits : Limits
    classes : pair of values
        The original class labels: ``y == 1`` means ``classes[1]`` (default ``(0, 1)``).
    group_names : sequence of str, optional
        Name of each group code (default: ``protected``, ``unprotected`` for a mask, else the
        codes as text).
    sample_weight : array-like of shape (n,), optional
        Non-negative, finite, not all zero; None (or every weight 1) means unit weights.
    """

    X: np.ndarray
    y: np.ndarray
    groups: np.ndarray
    metric: Metric = Metric.STATISTICAL_PARITY
    epsilon: float | None = None
    lam: float | str = DEFAULT_LAM
    max_length: int | None = None
    feature_names: tuple[str, ...] = ()
    labels: tuple[str, str] = ()
    limits: Limits = field(default_factory=Limits)
    classes: tuple[Any, Any] = (0, 1)
    group_names: tuple[str, ...] = ()
    sample_weight: np.ndarray | None = None

    PARAMETER_CONSTRAINTS: ClassVar[dict[str, list]] = {
        "metric": METRIC,
        "epsilon": EPSILON,
        "lam": LAM,
        "max_length": MAX_LENGTH,
        "feature_names": [Satisfies(lambda v: not isinstance(v, str), "a sequence of names")],
        "labels": [Satisfies(lambda v: len(tuple(v)) in (0, 2), "a pair of names")],
        "limits": [Satisfies(lambda v: isinstance(v, Limits), "a Limits")],
        "classes": [Satisfies(lambda v: len(tuple(v)) == 2, "a pair of class labels")],
        "group_names": [Satisfies(lambda v: not isinstance(v, str), "a sequence of names")],
    }

    def __post_init__(self) -> None:
        set_ = lambda k, v: object.__setattr__(self, k, v)  # noqa: E731
        validate_params("Problem", self.PARAMETER_CONSTRAINTS, self.__dict__)
        X = self.X.values if isinstance(self.X, _Checked) else as_binary("X", self.X, 2)
        y = self.y.values if isinstance(self.y, _Checked) else as_binary("y", self.y, 1)
        n, m = X.shape
        if n == 0:
            raise DataError("X has no rows")
        if len(y) != n:
            raise DataError(f"y has {len(y)} rows, X has {n}")
        codes, default_names = _group_codes(self.groups, n)
        names = tuple(str(s) for s in self.group_names) or default_names
        if len(names) != len(default_names):
            raise DataError(f"group_names has {len(names)} names for {len(default_names)} groups")
        weights = check_sample_weight(self.sample_weight, n)
        if weights is not None:
            empty = np.flatnonzero(np.bincount(codes, weights=weights, minlength=len(names)) <= 0)
            if empty.size:
                raise DataError(f"group {names[empty[0]]!r} has total sample_weight 0")
        set_("X", X)
        set_("y", y)
        set_("groups", codes)
        set_("group_names", names)
        set_("sample_weight", weights)
        set_("metric", Metric.parse(self.metric))
        eps = self.epsilon
        set_("epsilon", None if eps is None or math.isinf(eps) else float(eps))
        set_("lam", auto_lam(y, weights) if isinstance(self.lam, str) else float(self.lam))
        if self.max_length is not None:
            set_("max_length", int(self.max_length))
        names = tuple(str(s) for s in self.feature_names) or tuple(f"x{j}" for j in range(m))
        if len(names) != m:
            raise DataError(f"feature_names has {len(names)} names, X has {m} columns")
        if len(set(names)) != m:
            dup = next(s for s in names if names.count(s) > 1)
            raise DataError(f"feature_names: {dup!r} appears more than once")
        set_("feature_names", names)
        classes = tuple(self.classes)
        if classes[0] == classes[1]:
            raise DataError(f"classes must be two different labels, got {classes!r}")
        set_("classes", classes)
        set_("labels", tuple(str(s) for s in (self.labels or classes)))

    @classmethod
    def from_data(
        cls,
        X: Any,
        y: Any,
        sensitive_features: Any,
        protected: Any = None,
        *,
        sample_weight: Any = None,
        feature_names: Sequence[str] | None = None,
        labels: Sequence[str] | None = None,
        **fields: Any,
    ) -> Problem:
        """The one route from user data to a problem.

        Parameters
        ----------
        X : DataFrame of 0/1 (or bool) columns or array-like of 0/1, shape (n, m)
            The antecedents; a DataFrame's column names become the feature names.
        y : array-like of shape (n,)
            Two classes of any type; ``classes[1]`` (the larger in sorted order) is positive.
        sensitive_features, protected
            The group of each sample and the protected value, as
            :func:`fairlist.groups.encode_groups` reads them: a mask, one column of any number
            of groups, several columns (their intersections), or one value against the others.
            Groups the metric treats badly (too small, or lacking what a rate divides by) are
            reported by a :class:`~fairlist.groups.SmallGroupWarning`.
        sample_weight : array-like of shape (n,), optional
        feature_names : sequence of str, optional
            Names of X's columns (default: a DataFrame's columns, else ``x0``, ``x1``, …).
        labels : pair of str, optional
            Names of the two classes when printing (default: the classes as text).
        **fields
            The other fields of :class:`Problem` (metric, epsilon, lam, max_length, limits).

        Examples
        --------
        >>> p = Problem.from_data([[1, 0], [0, 1], [1, 1], [0, 0]], ["no", "yes", "yes", "no"],
        ...                       ["a", "a", "b", "b"], protected="a", epsilon=0.5)
        >>> p.classes, p.y.tolist(), p.groups.tolist(), p.group_names
        (('no', 'yes'), [0, 1, 1, 0], [0, 0, 1, 1], ('a', 'b'))
        """
        X = as_table("X", X)
        if feature_names is None and hasattr(X, "columns"):
            feature_names = [str(c) for c in X.columns]
        values = np.asarray(X)
        classes, codes = encode_labels(y, n_rows=len(values) if values.ndim else None)
        names = list(feature_names) if feature_names is not None else None
        if values.ndim == 2 and names is None:
            names = [f"x{j}" for j in range(values.shape[1])]
        Xb = as_binary(
            "X",
            values,
            2,
            columns=names,
            hint=". Turn raw columns into antecedents first with fairlist.binarize.Binarizer "
            "(e.g. make_pipeline(Binarizer(sensitive=...), FairRuleListClassifier()))",
        )
        weights = check_sample_weight(sample_weight, Xb.shape[0])
        if weights is not None and not (weights[codes == 0].any() and weights[codes == 1].any()):
            raise DataError(
                "sample_weight leaves a single class with a positive weight; a classifier needs "
                "samples of two classes"
            )
        groups = encode_groups(sensitive_features, protected, n_samples=Xb.shape[0])
        if fields.get("epsilon") is not None:
            check_group_sizes(groups, codes, fields.get("metric", cls.metric), weights)
        # Two groups go in as the mask of group 0 (0/1 codes would read as a mask, 1 protected).
        group_arg = groups.codes == 0 if groups.k == 2 else groups.codes
        return cls(
            _Checked(Xb),  # checked just above (a second min/max pass over X saved)
            _Checked(np.ascontiguousarray(codes, dtype=np.uint8)),  # 0/1 by construction
            group_arg,
            feature_names=tuple(names or ()),
            labels=tuple(labels or ()),
            classes=tuple(c.item() if isinstance(c, np.generic) else c for c in classes),
            group_names=groups.names,
            sample_weight=weights,
            **fields,
        )

    # ------------------------------------------------------------------ shape
    @property
    def n_samples(self) -> int:
        return self.X.shape[0]

    @property
    def n_antecedents(self) -> int:
        return self.X.shape[1]

    @property
    def n_groups(self) -> int:
        return len(self.group_names)

    @property
    def protected(self) -> np.ndarray:
        """Boolean mask of group 0, the protected group of a two-group problem."""
        if self.n_groups != 2:
            raise DataError(
                f"'protected' is defined for two groups; this problem has {self.n_groups}"
            )
        return self.groups == 0

    @property
    def weights(self) -> np.ndarray:
        """The sample weights (ones when the samples are unweighted)."""
        return np.ones(self.n_samples) if self.sample_weight is None else self.sample_weight

    @property
    def total_weight(self) -> float:
        """The objective's denominator: the number of samples, or the sum of their weights."""
        return float(self.n_samples if self.sample_weight is None else self.sample_weight.sum())

    @property
    def constrained(self) -> bool:
        return self.epsilon is not None

    def with_limits(self, limits: Limits) -> Problem:
        """A copy with other limits; unlike :meth:`replace`, the data is not validated again
        (a time limit lowered at the start of a solve must not cost a pass over the data)."""
        validate_params(
            "Problem", {"limits": self.PARAMETER_CONSTRAINTS["limits"]}, {"limits": limits}
        )
        twin = copy.copy(self)
        object.__setattr__(twin, "limits", limits)
        return twin

    def replace(self, **changes: Any) -> Problem:
        """A copy with some fields changed (validated again)."""
        values = {f.name: getattr(self, f.name) for f in fields(self)}
        if self.n_groups == 2:  # codes 0/1 would read as a mask (1 protected): swapped groups
            values["groups"] = self.groups == 0
        values.update(changes)
        return Problem(**values)

    # ------------------------------------------------------------------ evaluation
    def rule_list(self, antecedents: Sequence[int], predictions: Sequence[int], default: int):
        """A :class:`RuleList` from antecedent indices, named after this problem's features."""
        return RuleList.from_indices(
            antecedents, predictions, default, self.feature_names, self.labels
        )

    def evaluate(self, rule_list: RuleList) -> Evaluation:
        """Errors, objective, accuracy and unfairness of ``rule_list`` on the training data.

        ``errors`` is the number of misclassified samples, or the sum of their weights.
        """
        # Re-map by name: the rule list may come from a problem with another column order.
        rule_list = self.rule_list(
            rule_list.antecedent_indices(self.feature_names),
            [r.prediction for r in rule_list.rules],
            rule_list.default,
        )
        pred = rule_list.predict(self.X).astype(bool)
        y = self.y.astype(bool)
        cc = counts_by_group(y, pred, self.groups, self.group_names, self.sample_weight)
        wrong = pred != y
        if self.sample_weight is None:
            errors: float = int(np.count_nonzero(wrong))
        else:
            errors = float(self.sample_weight[wrong].sum())
        unf = unfairness_from_counts(cc, self.metric)
        total = self.total_weight
        return Evaluation(
            errors=errors,
            length=rule_list.length,
            objective=errors / total + self.lam * rule_list.length,
            accuracy=1.0 - errors / total,
            unfairness=unf,
            fair=is_fair(unf, self.epsilon),
            counts=cc,
        )


def _group_codes(groups: Any, n: int) -> tuple[np.ndarray, tuple[str, ...]]:
    """Group codes ``0 .. k-1`` from a mask or from codes, and the default group names."""
    g = np.asarray(groups)
    if g.ndim != 1:
        raise DataError(f"groups must be one-dimensional, got shape {g.shape}")
    if len(g) != n:
        raise DataError(f"groups has {len(g)} rows, X has {n}")
    if g.dtype == bool or (g.dtype.kind in "iuf" and np.isin(g, (0, 1)).all()):
        mask = g.astype(bool)
        if mask.all() or not mask.any():
            which = "unprotected" if mask.all() else "protected"
            raise DataError(f"groups: the {which} group is empty; both groups need samples")
        return np.where(mask, 0, 1).astype(np.int32), ("protected", "unprotected")
    if g.dtype.kind not in "iu" or g.min() < 0:
        raise DataError("groups must be a boolean mask or integer codes 0 .. k-1")
    used = np.unique(g)  # (not a count per code up to the largest: a code may be 10**11)
    if used[-1] != len(used) - 1:
        free = int(np.flatnonzero(used != np.arange(len(used)))[0])
        raise DataError(
            f"groups: code {free} has no sample (codes must be 0 .. k-1, each used; the largest "
            f"is {int(used[-1])}); Problem.from_data numbers groups of any values"
        )
    return g.astype(np.int32), tuple(str(i) for i in range(len(used)))


def deprecated_option(owner: str, old: str, instead: str) -> None:
    """Warn (FutureWarning) that ``owner``'s option ``old`` is deprecated for ``instead``: each
    setting has one owner and one name (issue 27)."""
    warnings.warn(
        f"{owner}({old}=...) is deprecated and will be removed in a future release; "
        f"use {instead} instead",
        FutureWarning,
        stacklevel=3,
    )


def check_problem(problem: Any) -> Problem:
    """``problem`` if it is a :class:`Problem`, else an error naming the argument."""
    if not isinstance(problem, Problem):
        raise InvalidParameterError(
            f"problem must be a fairlist Problem, got {type(problem).__name__}"
        )
    return problem


def check_two_groups_unweighted(problem: Problem, engine: str) -> None:
    """An engine that handles the paper's problem only (two groups, unit weights) says so."""
    if problem.n_groups != 2 or problem.sample_weight is not None:
        raise InvalidParameterError(
            f"engine {engine!r} solves problems of two groups without sample weights; this one "
            f"has {problem.n_groups} groups"
            + (" and sample weights" if problem.sample_weight is not None else "")
        )


@dataclass(frozen=True)
class Result:
    """What an engine returns.

    ``rule_list`` is None exactly when ``status`` is ``infeasible`` or ``unknown``. A returned rule
    list always meets the constraint. ``lower_bound`` is the best lower bound on the optimal
    objective proved when the search stopped (equal to ``objective`` when optimal, but for
    ``certified_tolerance``).
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

    @classmethod
    def no_list(
        cls,
        status: Status,
        stop_reason: StopReason,
        engine: str,
        search_space: str = "full",
        lower_bound: float = 0.0,
        stats: dict[str, Any] | None = None,
    ) -> Result:
        """The result without a rule list (status infeasible or unknown): objective inf,
        accuracy and unfairness NaN. Every engine builds it here."""
        return cls(
            status=status,
            rule_list=None,
            objective=math.inf,
            accuracy=math.nan,
            unfairness=math.nan,
            lower_bound=lower_bound,
            stop_reason=stop_reason,
            engine=engine,
            search_space=search_space,
            stats={} if stats is None else stats,
        )

    @property
    def optimal(self) -> bool:
        return self.status is Status.OPTIMAL

    @property
    def certified_tolerance(self) -> float | None:
        """For an ``optimal`` result, how much better than ``objective`` a list may be: 0 when
        proved exactly, else (real-valued sample weights rounded to integers) the small
        ``stats["certified_tolerance"]`` (docs/weights.md); None when not optimal."""
        if self.status is not Status.OPTIMAL:
            return None
        return float(self.stats.get("certified_tolerance", 0.0))

    @property
    def gap(self) -> float:
        """objective - lower_bound (0 when optimal, inf without a rule list)."""
        if self.rule_list is None:
            return math.inf
        return max(0.0, self.objective - self.lower_bound)

    def certified_length(self, problem: Problem) -> int | None:
        """No list of at most this many rules beats this result (None: no length is certified).

        An optimal result certifies every list of the searched space: at most ``max_length``
        rules, or as many as there are antecedents (no antecedent appears twice).
        """
        if self.status is Status.OPTIMAL:
            return problem.n_antecedents if problem.max_length is None else problem.max_length
        done = self.stats.get("certified_length")
        return int(done) if done else None

    def summary(self) -> str:
        lines = [
            f"status: {self.status} ({self.stop_reason}; engine {self.engine}, "
            f"{self.search_space} search space)",
        ]
        if self.stats.get("certificate"):  # rounded weights: what the search proved
            lines.append(f"certificate: {self.stats['certificate']}")
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
