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

Bounded like a fit (issue 37): the engine's store of lists is counted in ``memory_limit_mb``
with the room the lists take when handed over (``native/include/fairlist/rashomon.hpp``; what
does not fit is cut at an objective, as ``max_lists`` cuts); the set stays in flat numpy arrays
(:class:`RashomonSet`), its views work on them a chunk at a time, and a ``delta`` beyond
:func:`max_useful_delta` is lowered to it.

This module is the search (:func:`rashomon_set`, :func:`search_rashomon`, the CP-SAT
cross-check); the set it returns and its views are :mod:`fairlist.rashomon_result`.
"""

from __future__ import annotations

import math
import numbers
import time
import warnings
from typing import Any

import numpy as np

from ._params import INT64_MAX, Interval, Options, validate_params
from .errors import DataError, InvalidParameterError
from .prepare import prepare_problem
from .rashomon_result import CHUNK_BYTES, RashomonSet
from .solvers.base import DEFAULT_LAM, Problem, StopReason
from .solvers.bnb import (
    POLICIES,
    BnBSolver,
    default_memory_limit_mb,
    distinct_columns,
    engine_weights,
)

__all__ = ["RashomonSet", "rashomon_set", "max_useful_delta", "ENGINES", "CHUNK_BYTES"]

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
        A larger value than :func:`max_useful_delta` (``inf`` included) is lowered to it, with
        a warning: the set is then every fair list.
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
        Limits (None: none; ``memory_limit_mb`` None: three quarters of the machine's memory);
        a limit, or Ctrl-C, returns the partial set, marked incomplete. ``memory_limit_mb``
        counts the search's structures and the lists, with the room they take when handed to
        Python (the set's arrays).

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
    problem = prepare_problem(
        "rashomon_set",
        X,
        y,
        sensitive_features,
        protected=protected,
        sample_weight=sample_weight,
        binarizer=binarizer,
        metric=metric,
        epsilon=epsilon,
        lam=lam,
        max_length=max_length,
        max_nodes=max_nodes,
        time_limit=time_limit,
        memory_limit_mb=memory_limit_mb,
        start=start,
    )
    if engine == "cpsat":
        return cpsat_rashomon(problem, float(delta), max_lists)
    return search_rashomon(problem, float(delta), max_lists, policy=policy)


def search_rashomon(
    problem: Problem,
    delta: float,
    max_lists: int | None,
    *,
    policy: str = "bfs",
    lower_delta: bool = True,
    **options: Any,
) -> RashomonSet:
    """The Rashomon set of a :class:`~fairlist.solvers.Problem` (:func:`rashomon_set` after
    the data are prepared); ``options``: further :class:`~fairlist.solvers.BnBSolver`
    parameters (the switches of the bounds); ``lower_delta=False``: the core gets ``delta``
    as given (finite), not lowered to :func:`max_useful_delta` (the same set: a test switch)."""
    solver = BnBSolver(policy=policy, **options)
    requested = delta
    delta = useful_delta(problem, delta) if lower_delta else float(delta)
    weights = engine_weights(problem)
    if not weights.exact:
        raise DataError(
            "sample_weight: the Rashomon set needs weights the engine reads exactly (decimals, "
            "simple fractions, integers, totalling at most 2**31 units); these are rounded"
        )
    raw, kept, representative = solver.solve_rashomon(problem, delta, max_lists, weights)
    found = _make_set(problem, raw, kept, representative, delta)
    if delta != requested:
        found.stats["delta_requested"] = requested
    return found


def _make_set(problem: Problem, raw: dict, kept, representative, delta: float) -> RashomonSet:
    rules = raw["rashomon_rules"]  # codes over the kept columns: to the problem's columns
    if len(kept) != problem.n_antecedents or np.any(kept != np.arange(len(kept))):
        codes = (np.repeat(kept.astype(np.uint32), 2) << 1) | np.tile(np.uint32([0, 1]), len(kept))
        np.take(codes, rules, out=rules, mode="clip")  # in place: one gather
    stop = StopReason[raw["stop_reason"].name]
    below = float(raw["rashomon_complete_below"])
    if stop is StopReason.COMPLETED and not math.isinf(below):  # max_lists cut a finished set
        stop = StopReason.MAX_LISTS
    optimum = float(raw["objective"])
    status = raw["status"].name
    return RashomonSet(
        rules=rules,
        starts=np.asarray(raw["rashomon_starts"]).view(np.int64),
        defaults=raw["rashomon_defaults"],
        objectives=raw["rashomon_objectives"],
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
    delta, requested = useful_delta(problem, delta), delta
    if problem.max_length is None:  # the optimum's length bound may be too short for the set
        raise InvalidParameterError(
            "engine='cpsat' enumerates the Rashomon set under a length cap: set max_length"
        )
    max_length = min(problem.max_length, problem.n_antecedents)
    memory = problem.limits.memory_limit_mb
    memory = default_memory_limit_mb() if memory is None else memory
    found = enumerate_rashomon(
        problem, max_length, delta, None, problem.limits.time_limit, memory * 2**20 or None
    )
    kept, representative = distinct_columns(problem.X)
    lists = set()
    for antecedents, predictions, default in found.lists:  # twins: the first of their set
        mapped = [int(kept[representative[j]]) for j in antecedents]
        lists.add((tuple(zip(mapped, predictions, strict=True)), default))
    scored = []
    for rules, default in lists:
        rule_list = problem.rule_list([j for j, _ in rules], [q for _, q in rules], default)
        objective = problem.evaluate(rule_list).objective
        key = (len(rules), [j for j, _ in rules], [q for _, q in rules], default)
        scored.append((objective, key))
    scored.sort()
    below = math.inf if found.complete else 0.0
    stop = StopReason.COMPLETED if found.complete else StopReason.TIME_LIMIT
    if found.memory_cut:  # the enumeration's order is not the objective's: nothing certified
        stop = StopReason.MEMORY_LIMIT
    if max_lists is not None and len(scored) > max_lists:
        below = min(below, scored[max_lists][0])
        stop = StopReason.MAX_LISTS if found.complete else stop
        scored = scored[:max_lists]
    optimum = scored[0][0] if scored else math.inf
    codes = [j << 1 | q for _, (_, ids, qs, _) in scored for j, q in zip(ids, qs, strict=True)]
    stats: dict[str, Any] = {"engine": "cpsat", "seconds": time.perf_counter() - start}
    if delta != requested:
        stats["delta_requested"] = requested
    return RashomonSet(
        rules=np.asarray(codes, dtype=np.uint32),
        starts=np.cumsum([0] + [key[0] for _, key in scored]),
        defaults=np.asarray([key[3] for _, key in scored], dtype=np.uint8),
        objectives=np.asarray([item[0] for item in scored], dtype=np.float64),
        optimum=optimum,
        optimum_lower_bound=optimum if found.optimal else 0.0,
        delta=delta,
        complete=found.complete and math.isinf(below),
        complete_below=below,
        stop_reason=stop,
        merged=_merged(problem, kept, representative),
        problem=problem,
        stats=stats,
    )


def max_useful_delta(problem: Problem) -> float:
    """The largest ``delta`` that can matter: with it every fair list is in the set.

    Why: a list of the space has ``L`` rules over distinct antecedents, each capturing a
    sample of positive weight that no earlier rule captured, so ``L`` is at most ``max_length``,
    the number of antecedents and the number of such samples, call the least ``L_max``. Its
    objective ``errors / n + lam * L`` is then at most ``1 + lam * L_max`` (errors <= n; in
    floating point too: division, product and sum round monotonically), and the optimum is at
    least 0. So every list has an objective at most ``optimum + 1 + lam * L_max``, and any
    larger ``delta`` gives the same set while its threshold (``optimum + delta``) only costs
    the search arithmetic on huge numbers.

    >>> import numpy as np
    >>> from fairlist.solvers import Problem
    >>> p = Problem(np.eye(4, 3, dtype=np.uint8), [1, 0, 1, 0], [1, 1, 0, 0], lam=0.01)
    >>> max_useful_delta(p)  # at most 3 rules: 1 + 0.01 * 3
    1.03
    """
    length = problem.n_antecedents
    if problem.max_length is not None:
        length = min(length, problem.max_length)
    length = min(length, int(np.count_nonzero(problem.weights > 0)))
    return 1.0 + problem.lam * length


def useful_delta(problem: Problem, delta: float) -> float:
    """``delta``, lowered to :func:`max_useful_delta` (with a warning that says so) when it is
    larger (``inf`` included): the set is then every fair list."""
    bound = max_useful_delta(problem)
    if not delta > bound:
        return float(delta)
    warnings.warn(
        f"delta={delta:g} lowered to {bound:.6g} (1 + lam * the most rules a list can have): no "
        "two rule lists' objectives differ by more, so the set is every fair list",
        stacklevel=3,
    )
    return bound
