"""The branch-and-bound engine: certifiably optimal fair rule lists (C++ core, ``fairlist._core``).

The search is CORELS' prefix-trie branch-and-bound with a fairness cap (see
``native/include/fairlist/search.hpp`` and ``bounds.hpp`` for the bounds and why each one is
valid under the cap). This module validates the options, bit-packs the problem, runs the search
in a worker thread without the GIL (so Ctrl-C and progress reporting keep working), and
re-checks the returned rule list with :meth:`Problem.evaluate`.

Search spaces: ``"full"`` (default) lets every rule and the default predict either label, which
is exact for the constrained problem; ``majority_only=True`` restricts every prediction to a
label at least as frequent as the other among the samples it classifies (CORELS' space; both
labels on a tie; by weight with sample weights): faster, but under a cap its optimum can be
worse than the full one. Without a cap both spaces have the same optimum (a minority label only
adds errors), so the engine then searches the majority half whatever ``majority_only`` says and
still reports ``"full"``.

Groups and sample weights. The core takes any number of groups from 2 to 64 (each rate's gap is
its largest minus its smallest value over the groups) and integer sample weights, and searches
the distinct weighted rows (identical antecedents, group and label merged; COMPAS's 5,273 rows
are 550). Sample weights become integers (:func:`engine_weights`), in the spirit of the CP-SAT
engine:

* *exact*: each weight is read as the fraction of denominator at most 10**6 nearest to it when
  that fraction lies within 2**-50 (relative) of the float (integers; the decimals a user writes,
  such as 0.3; simple ratios such as 1/3); all are multiplied by the least common multiple of the
  denominators and divided by the greatest common divisor of the results, which is used when
  their total stays at most 2**31. The search then solves the weighted problem for these fractions
  exactly (integer weights are duplicated rows, a weight of 0 a dropped row, equal weights no
  weights at all), and statuses mean what they mean without weights. :meth:`Problem.evaluate`
  sums the floats, within 2**-50 of the fractions: objectives agree to ~1e-15, and a fairness
  decision could differ only for a list whose unfairness lies within ~1e-14 of
  ``epsilon + FEASIBILITY_TOL``, the order of the rounding of the floats themselves.
* *rounded* (any other weights, or a total beyond 2**31): each weight ``w`` is rounded to a
  multiple of ``2**-j``, ``j`` the largest that keeps the integer total at most 2**31; ``rho`` is
  the largest relative rounding error of a positive weight.
  :func:`fairlist.solvers.weights.cap_margin` bounds how far any list's unfairness on the rounded
  weights lies from its unfairness on the true ones (each rate moves by at most the summed
  absolute rounding error of its denominator's samples over their weight; the argument is in that
  module's docstring), and the search runs with the cap lowered by that margin: every list it
  returns is fair for the true weights. That search alone is no longer the problem (its own
  statuses become ``feasible`` and ``unknown``); when it completes, a second search with the cap
  raised by the margin admits every list fair for the true weights and proves ``infeasible`` or
  a lower bound (without a cap the first search's optimum is that bound):
  :func:`fairlist.solvers.weights.bound_from_above`, ``stats["raised_cap_lower_bound"]``. The
  status is then ``optimal`` within ``stats["certified_tolerance"]`` (at most twice the
  objectives' rounding, about ``n 2**-32``; ``Result.certified_tolerance``) or, when the margin
  leaves a larger gap, ``feasible``; ``stats["certificate"]`` says which in words. When the
  margin leaves no room (a group or (group,
  label) cell whose weights all round to 0, as with weights of 2**40 and 1; or ``epsilon = 0``)
  the search is skipped, and when the search finds no list or a worse one than a constant list
  fair for the true weights, that constant list is returned, status ``feasible``
  (:func:`fairlist.solvers.weights.with_fair_constant`, ``stats["fair_constant"]``): a rounded
  search never answers "no fair list" where a constant one is fair.
  ``Result.stats`` says which case applied: ``weights_exact``, ``weight_scale`` (integer units per
  unit of weight; inf beyond the float range, with subnormal weights), ``weight_rho``,
  ``weight_margin`` (how much lower the search's cap is); also ``n_groups``, ``weighted``,
  ``n_rows`` (distinct weighted rows searched) and ``n_sample_classes`` (classes of samples with
  the same antecedents, not the two labels; ``n_classes`` before). The returned list is always
  re-evaluated with the true weights.
"""

from __future__ import annotations

import math
import numbers
import os
import time
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, ClassVar

import numpy as np

from .._core import BranchAndBound, Policy, pack_bits, pack_matrix
from .._params import (
    BOOLEAN,
    INT64_MAX,
    N_JOBS,
    WARM_START_ENGINE,
    WARM_START_SECONDS,
    InstanceOf,
    Interval,
    Options,
    Satisfies,
    validate_params,
)
from ..errors import DataError, InvalidParameterError
from ..metrics import METRIC_RATES
from ..rulelist import RuleList
from .base import (
    DEFAULT_WARM_START_SECONDS,
    PROGRESS_INTERVAL,
    Limits,
    Problem,
    Result,
    Status,
    StopReason,
    check_problem,
    deprecated_option,
)
from .deepening import DEEPEN_AUTO, deepen_phases
from .runtime import run_interruptibly
from .weights import (
    WEIGHT_LIMIT,
    bound_from_above,
    cap_margin,
    exact_weights,
    rounded_weights,
    with_fair_constant,
)

__all__ = [
    "BnBSolver",
    "EngineWeights",
    "MAX_GROUPS",
    "POLICIES",
    "default_memory_limit_mb",
    "distinct_columns",
    "distinct_packed",
    "engine_weights",
]

#: Most groups the C++ core handles (``kMaxGroups`` in ``native/include/fairlist/counts.hpp``).
MAX_GROUPS = 64

#: Search policies: name -> ``fairlist._core.Policy`` (the C++ ``fairlist::Policy``, documented
#: in ``native/include/fairlist/queue.hpp``): "bfs", "bfs_objective_aware", "lower_bound",
#: "curiosity", "dfs", "objective", "bfs_objective_aware_lowest".
POLICIES = {policy.name.lower(): policy for policy in Policy}

#: The four search policies the paper pools (BFS original, BFS objective-aware, curious, lower
#: bound), named as the branch-and-bound engine names them. BFS objective-aware in the order of
#: the paper's code (within a length, the lower objective first: ``bfs_objective_aware_lowest``);
#: its text says the higher first (``bfs_objective_aware``). Under the same node budget the
#: code's order ended with a lower objective in 16 of 157 fits of docs/reproduction.md's grid
#: and a higher one in none (the rest tie).
PAPER_POLICIES = ("bfs", "bfs_objective_aware_lowest", "curiosity", "lower_bound")


def default_memory_limit_mb() -> float:
    """The cap on the search structures when ``Limits.memory_limit_mb`` is None: three
    quarters of the machine's physical memory, in MiB (0, no cap, when it is unknown).

    ``max_nodes`` bounds the trie, not the permutation map, which keeps an entry for every
    prefix ever created: under depth-first or curiosity order the trie stays small while the
    map grows for as long as the search runs. Stopping with the best list so far (stop reason
    ``memory_limit``) beats being killed by the system with nothing.
    """
    try:
        pages, page_size = os.sysconf("SC_PHYS_PAGES"), os.sysconf("SC_PAGE_SIZE")
    except (AttributeError, ValueError, OSError):
        return 0.0
    return 0.75 * pages * page_size / 2**20 if pages > 0 and page_size > 0 else 0.0


_BOUND_SWITCHES = (
    "use_hierarchical_bound",
    "use_lookahead",
    "use_length_bound",
    "use_equivalent_points",
    "use_fairness_bound",
    "use_class_bound",
    "use_permutation_map",
    "use_support_bounds",
    "use_terminal_solver",
    "use_two_rule_lookahead",
    "use_terminal_symmetry",
    "use_class_pair_counts",
    "use_weight_plane_counts",
)


def distinct_columns(X: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Drop antecedents that capture exactly the same samples as an earlier one.

    Two identical columns (``gender:Female`` and ``not gender:Male``, say) make rule lists with
    identical predictions, and a rule after its twin captures nothing, so searching one column of
    each set loses no optimum; it shrinks the branching factor. Returns the kept column indices
    (first of each set, in order) and, for every column, the position of its set's kept column
    among them (a nonzero entry of ``X`` is a 1).

    Examples
    --------
    >>> X = np.array([[1, 0, 1, 0], [0, 1, 0, 1], [1, 1, 1, 1]], dtype=np.uint8)
    >>> kept, position = distinct_columns(X)
    >>> kept.tolist(), position.tolist()
    ([0, 1], [0, 1, 0, 1])
    """
    X = np.asarray(X)
    if X.ndim != 2:
        raise ValueError(f"X must be two-dimensional, got shape {X.shape}")
    if X.dtype == bool:
        X = X.view(np.uint8)
    elif X.dtype != np.uint8:
        X = X.astype(bool).view(np.uint8)
    return distinct_packed(pack_matrix(np.ascontiguousarray(X)))


def distinct_packed(packed: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """:func:`distinct_columns` of the bit-packed columns ``packed`` (``pack_matrix``'s layout:
    one row of words per antecedent).

    Each packed column is read as one opaque value (a numpy void of its bytes) and
    :func:`numpy.unique` groups equal ones, compared exactly, byte for byte: a sort of ``m``
    values, ``O(m log m)`` comparisons of ``n / 8`` bytes at most, no Python loop (the dictionary
    of bytes it replaces took 8 s on 199,523 rows x 2,500 antecedents).
    """
    m = packed.shape[0]
    if m == 0:
        return np.empty(0, dtype=np.intp), np.empty(0, dtype=np.intp)
    packed = np.ascontiguousarray(packed)
    columns = packed.view(np.dtype((np.void, packed.shape[1] * packed.itemsize))).reshape(m)
    _, first, inverse = np.unique(columns, return_index=True, return_inverse=True)
    kept = np.sort(first)  # the first column of each set, in column order
    rank = np.empty(len(first), dtype=np.intp)
    rank[np.argsort(first)] = np.arange(len(first))  # set (in sorted order) -> its slot in kept
    return kept.astype(np.intp), rank[inverse.reshape(m)]


@dataclass(frozen=True)
class EngineWeights:
    """The sample weights as the integers the search counts with (see the module docstring).

    ``values[i] / scale`` is sample ``i``'s weight: exactly when ``exact`` (the fraction its float
    is read as), else within a relative error of ``rho``. ``values`` is None for unit weights
    (every sample weighs the same).
    """

    values: np.ndarray | None  # (n,) int64, or None
    scale: float  # integer units per unit of weight (inf beyond the float range)
    exact: bool
    rho: float  # largest relative error |values[i] / scale - w[i]| / w[i]; 0 when exact
    # how much lower the search's cap is than the user's (weights.cap_margin, rounded up)
    margin: float = 0.0
    error_ratio: float = 0.0  # IntegerWeights.error_ratio: summed rounding error over the total


def _float(x: Fraction) -> float:
    """``x`` (>= 0) as a float, inf beyond the float range (the scale of subnormal weights)."""
    try:
        return float(x)
    except OverflowError:
        return math.inf


def engine_weights(problem: Problem) -> EngineWeights:
    """``problem``'s sample weights as integers: read exactly when they fit, else rounded
    (:mod:`fairlist.solvers.weights`); equal weights are no weights at all."""
    if problem.sample_weight is None:
        return EngineWeights(None, 1.0, True, 0.0)
    w = problem.sample_weight
    read = exact_weights(w, WEIGHT_LIMIT) or rounded_weights(w, WEIGHT_LIMIT)
    values = None if read.exact and np.all(read.values == 1) else read.values
    margin = cap_margin(
        read, w, problem.y, problem.groups, problem.n_groups, METRIC_RATES[problem.metric]
    )
    return EngineWeights(
        values,
        _float(read.scale),
        read.exact,
        float(read.rho),
        math.nextafter(float(margin), math.inf) if margin else 0.0,
        read.error_ratio,
    )


def new_search(
    problem: Problem, weights: EngineWeights, epsilon: float, config: dict[str, Any]
) -> tuple[BranchAndBound, np.ndarray, np.ndarray]:
    """The core's search of ``problem`` under ``config`` (``BnBSolver._config``), its identical
    antecedent columns merged (:func:`distinct_columns`: the kept columns, and each column's
    representative among them, are returned with it); ``epsilon`` is the cap the core applies."""
    # Packed once (n x m bytes to m x n / 64 words), the twins found and dropped in packed form.
    packed = pack_matrix(problem.X)  # (Problem.X: C-contiguous uint8)
    kept, representative = distinct_packed(packed)
    search = BranchAndBound(
        packed if len(kept) == len(packed) else packed[kept],
        pack_bits(problem.y),
        np.ascontiguousarray(problem.groups, dtype=np.int32),
        weights.values,
        problem.n_samples,
        problem.n_groups,
        {
            "metric": int(problem.metric),
            "constrained": problem.constrained,
            "epsilon": epsilon,
            "lam": problem.lam,
        },
        config,
    )
    return search, kept, representative


def gap_tolerance(solver: float, limits: float | None) -> float:
    """The engine's gap tolerance: the smaller positive one of the solver's and the limits'
    (0: none), so that the certified gap meets both requests."""
    positive = [float(t) for t in (solver, limits) if t is not None and t > 0]
    return min(positive) if positive else 0.0


class BnBSolver:
    """Exact fairness-constrained branch-and-bound (``engine="bnb"``).

    Parameters
    ----------
    policy : {"bfs", "bfs_objective_aware", "lower_bound", "curiosity", "dfs", "objective", \
            "bfs_objective_aware_lowest"}
        Order in which prefixes are expanded. Every policy returns an optimal rule list when the
        search completes; they differ in how fast good rule lists are found under limits.
    majority_only : bool
        Search only CORELS' majority-label space (faster; see the module docstring).
    use_hierarchical_bound, use_lookahead, use_length_bound, use_equivalent_points, \
use_fairness_bound, use_class_bound, use_permutation_map, use_support_bounds, \
use_terminal_solver, use_two_rule_lookahead, use_terminal_symmetry, use_class_pair_counts, \
use_weight_plane_counts : bool
        Switch each bound off (for tests and ablations). The support bounds are applied only
        without a fairness cap; the permutation map is keyed safely when there is one. The
        fairness bound is exact for its integer relaxation with two groups and unit weights,
        and the real-valued relaxation over every group otherwise. The class bound is the
        fairness bound strengthened by the classes of identical samples (linear relaxation,
        one pair of groups at a time; statistical parity, predictive equality, equal
        opportunity and equalized odds). The terminal solver (on by default; under a length
        cap, and in each phase of length deepening) finishes every prefix two rules short of
        the cap by counting, per remaining antecedent and pair of antecedents, instead of
        storing and expanding its children: the same lists are evaluated (exact, tested
        against brute force and CP-SAT), the deepest level of the trie is never stored, and
        ``stats["terminal_prefixes"]`` counts the prefixes it finished. On COMPAS (SP <= 0.05,
        lambda 0.005, at most 4 rules) it certifies in 5 CPU seconds what takes 41 without it
        (``benchmarks/bench_certify.py``). Without a length cap it does nothing. It switches
        itself off (every prefix is expanded, as with ``use_terminal_solver=False``) with more
        than two groups, with integer weights totalling 2**31 (its pair counts are 32-bit),
        and past 1,024 distinct antecedents (its pair tables would pass 32 MiB). The two-rule
        lookahead (off by default; it acts where the terminal solver runs, with or without a
        cap) finishes by counting, instead of queueing, every child whose lists of three or
        more further rules cannot beat the incumbent (they pay three more penalties): the lists
        of one and two more rules are counted exactly, so nothing of interest is lost, and
        ``stats["lookahead_prefixes"]`` counts those children. On COMPAS it stores 7 to 480
        times fewer trie nodes but takes more time for the same lower bound, with more memory
        per stored node (see ``docs/performance.md``). The terminal symmetry (on by default;
        full space only, not in the Rashomon mode) skips, below a finished child Q + (j, q),
        the lists starting with a first rule (i, q) whose sibling Q + (i, q) was finished
        earlier in the same expansion: they predict as that sibling's lists starting with
        (j, q). On COMPAS (SP <= 0.05, lambda 0.005, at most 5 rules) it takes the
        certificate from about 97 to 84 CPU seconds. The class pair counts (on by default)
        count the terminal solver's pair tables over the distinct rows that occur once by
        popcounts of bitsets, where that is less work than adding row by row: the same
        counts, faster as the distinct rows grow (``benchmarks/bench_counting.py``); with the
        weight plane counts (on by default) the rows that occur more than once too, by the bit
        planes of their weights.
    seed : int or None
        None or 0: ties between equal priorities are broken by insertion order; another value
        breaks them by a seeded hash. The search is deterministic for a given input and seed.
    beam_width : int
        Before the branch-and-bound, a native beam search of this width (lists of up to 8
        rules, in the searched space) offers the fair lists it meets as incumbents; 0 switches
        it off. On COMPAS width 1024 takes about 0.1 s. It only speeds up pruning and improves
        what a limited search returns; it changes no certificate. With ``initial`` both run
        and the better list is the first incumbent. ``Result.stats`` reports the best objective
        after it (``beam_objective``) and when it ended (``beam_seconds``).
    deepen_length : int or "auto"
        Length deepening: before the main search, certify the optimum among lists of at most
        1, 2, ..., ``deepen_length`` rules (each phase a search capped at that length that
        knows the shorter lists certified), then search on knowing that no list of at most
        ``deepen_length`` rules beats the incumbent, so every prefix's bound counts at least
        ``deepen_length + 1`` rules. 0 switches it off. Certificates are the same either way;
        under limits it returns a partial one, ``stats["certified_length"]`` (no list of at
        most that many rules beats the result), and short optimal lists that a breadth-first
        search under a node budget misses. Each phase has the node and memory limits to
        itself; the time limit is shared. On COMPAS (163 antecedents, lambda 0.005) 4 costs
        20-40 s and, in 4 of 6 constrained cases, beats the list a 4,000,000-node search
        finds without it. A phase ends at once when the root's bound plus ``lam`` per rule
        already reaches the incumbent, so a large value deepens through every
        length that can still win and then ends: at lambda 0.01 (COMPAS, SP <= 0.05, no cap)
        6 certifies the optimum in 63-77 CPU s, against 486 s without deepening. ``"auto"``
        (the default; :mod:`fairlist.solvers.deepening`) deepens through every length when
        there is no length cap, ``lam > 0`` and no node or memory budget
        (``Limits.max_nodes`` and ``memory_limit_mb`` None), and is 0 otherwise: under a cap
        the search has the terminal solver from the start; a node budget counts the phases'
        nodes expanded or finished by counting (their trie stays small), but one costs 15-65
        times a stored node of the plain search, and a memory budget would not bound them.
    initial : RuleList or None
        A warm start (for example from the CP-SAT engine). It is ignored with a warning when it
        is unfair on the problem, longer than ``max_length``, or outside the searched space.
    warm_start_engine : {None, "cpsat"}
        ``"cpsat"``: before the search, a CP-SAT run of ``warm_start_seconds`` finds a fair list
        and hands it over as ``initial`` (:mod:`fairlist.solvers.warmstart`; not with
        ``initial``). The certificate is the same either way; ``stats["warm_start_cpsat"]``
        says what was handed over and what the search did with it (``outcome``: kept,
        improved, beaten by the beam search, ignored, or none when CP-SAT found nothing).
    warm_start_seconds : float
        CP-SAT's seconds, taken out of the time limit: at most half of the time left when the
        solve starts (``warmstart.WARM_START_SHARE``).
    progress : callable or None
        Called about every ``progress_interval`` seconds during the search with a dict
        (nodes_expanded, children_evaluated, trie_size, queue_size, depth, best_objective,
        seconds, certified_length, lower_bound). ``lower_bound`` is a proved lower bound on the
        optimum at that moment: ``best_objective - lower_bound`` is the gap still open.
    progress_interval : float
        Seconds between two progress calls.
    gap_tolerance : float or None
        Deprecated (FutureWarning): set ``Limits.gap_tolerance``, which both engines obey
        (stop as soon as the best list's objective is within it of the global lower bound:
        status ``feasible``, stop reason ``gap_limit``). Until it is removed the search stops
        at the smaller positive one of the two.
    n_jobs : int
        Worker threads of the search: 1 (the default) is the serial search; -1 uses every
        hardware thread, -2 all but one, and so on. The workers share the trie, the queue,
        the permutation map and the best list found. With more than one, ties are decided
        canonically: a certified list is the first of all optimal lists by (length, antecedent
        indices, predictions), the same for every ``n_jobs`` above 1. A search that a limit
        stops returns the best list it met, which then depends on the timing.
    dual : {"off", "on", "auto"}
        Certify through the Lagrangian dual (:func:`fairlist.dual.solve_by_dual`, issue 36):
        relax the cap with a multiplier and enumerate the relaxed problem's lists under the
        incumbent's objective plus the penalty, each checked against the cap. "auto" runs the
        plain search with a quarter of the time limit first and the dual path only when that
        did not certify (SP, PE and EOpp with two groups under a length cap); "on" always goes
        through it where the metric's rates are linear (a test and ablation switch); "off"
        (the default) is the plain search. PP and CUAE keep the plain search. An incomplete
        enumeration falls back to the plain search with the time left. ``stats["dual"]`` says
        what ran (docs/certificates.md).

    Examples
    --------
    >>> import numpy as np
    >>> from fairlist.solvers import Problem
    >>> X = np.array([[1, 0], [1, 1], [0, 1], [0, 0]], dtype=np.uint8)
    >>> p = Problem(X, [1, 1, 0, 0], [True, False, True, False], lam=0.01)
    >>> BnBSolver().solve(p).objective
    0.01
    """

    name = "bnb"
    #: Capabilities the engine registry reads (fairlist.solvers.CAPABILITIES).
    supports_policies = True
    canonical_threads = True
    default_memory_cap = True
    accepts_warm_start = True
    default_memory_limit_mb = staticmethod(default_memory_limit_mb)

    def __init__(
        self,
        *,
        policy: str = "bfs",
        majority_only: bool = False,
        use_hierarchical_bound: bool = True,
        use_lookahead: bool = True,
        use_length_bound: bool = True,
        use_equivalent_points: bool = True,
        use_fairness_bound: bool = True,
        use_class_bound: bool = True,
        use_permutation_map: bool = True,
        use_support_bounds: bool = True,
        use_terminal_solver: bool = True,
        use_two_rule_lookahead: bool = False,
        use_terminal_symmetry: bool = True,
        use_class_pair_counts: bool = True,
        use_weight_plane_counts: bool = True,
        seed: int | None = None,
        initial: RuleList | None = None,
        warm_start_engine: str | None = None,
        warm_start_seconds: float = DEFAULT_WARM_START_SECONDS,
        beam_width: int = 1024,
        deepen_length: int | str = DEEPEN_AUTO,
        progress: Callable[[dict[str, Any]], None] | None = None,
        progress_interval: float = 0.5,
        gap_tolerance: float | None = None,
        n_jobs: int = 1,
        dual: str = "off",
    ) -> None:
        if gap_tolerance is not None:  # one owner per setting: Limits
            deprecated_option("BnBSolver", "gap_tolerance", "Limits(gap_tolerance=...)")
        self.policy = policy
        self.majority_only = majority_only
        self.use_hierarchical_bound = use_hierarchical_bound
        self.use_lookahead = use_lookahead
        self.use_length_bound = use_length_bound
        self.use_equivalent_points = use_equivalent_points
        self.use_fairness_bound = use_fairness_bound
        self.use_class_bound = use_class_bound
        self.use_permutation_map = use_permutation_map
        self.use_support_bounds = use_support_bounds
        self.use_terminal_solver = use_terminal_solver
        self.use_two_rule_lookahead = use_two_rule_lookahead
        self.use_terminal_symmetry = use_terminal_symmetry
        self.use_class_pair_counts = use_class_pair_counts
        self.use_weight_plane_counts = use_weight_plane_counts
        self.seed = seed
        self.initial = initial
        self.warm_start_engine = warm_start_engine
        self.warm_start_seconds = warm_start_seconds
        self.beam_width = beam_width
        self.deepen_length = deepen_length
        self.gap_tolerance = gap_tolerance
        self.progress = progress
        self.progress_interval = progress_interval
        self.n_jobs = n_jobs
        self.dual = dual

    # ------------------------------------------------------------------ validation
    PARAMETER_CONSTRAINTS: ClassVar[dict[str, list]] = {
        "policy": [Options(POLICIES)],
        "majority_only": [BOOLEAN],
        **dict.fromkeys(_BOUND_SWITCHES, [BOOLEAN]),
        "seed": [None, Interval(numbers.Integral, 0, 2**64, closed="left")],
        "initial": [None, InstanceOf(RuleList)],
        "warm_start_engine": WARM_START_ENGINE,
        "warm_start_seconds": WARM_START_SECONDS,
        "beam_width": [Interval(numbers.Integral, 0, INT64_MAX)],  # int64_t in fairlist::Config
        "deepen_length": [Interval(numbers.Integral, 0, INT64_MAX), Options((DEEPEN_AUTO,))],
        "gap_tolerance": [None, Interval(numbers.Real, 0, None, closed="left")],
        "progress": [None, Satisfies(callable, "a callable")],
        "progress_interval": [PROGRESS_INTERVAL],
        # int64_t in fairlist::Config; 0 is no number of workers
        "n_jobs": N_JOBS,
        "dual": [Options(("off", "on", "auto"))],  # fairlist.dual.DUAL_MODES
    }

    def _validate(self) -> None:
        validate_params(type(self).__name__, self.PARAMETER_CONSTRAINTS, vars(self))

    def _config(self, limits: Limits, max_length: int | None) -> dict[str, Any]:
        """Every field of ``fairlist::Config`` (the binding requires them all; its test
        switches, ``fairlist::Diagnostics``, keep their defaults unless a test adds them);
        ``deepen_length="auto"`` is 0 here, as the Rashomon mode needs, and :meth:`solve`
        resolves it (:mod:`.deepening`)."""
        config: dict[str, Any] = {name: bool(getattr(self, name)) for name in _BOUND_SWITCHES}
        config.update(
            policy=POLICIES[self.policy],
            majority_only=bool(self.majority_only),
            max_length=-1 if max_length is None else int(max_length),
            max_nodes=int(limits.max_nodes or 0),
            time_limit=float(limits.time_limit or 0.0),
            memory_limit_mb=float(
                default_memory_limit_mb()
                if limits.memory_limit_mb is None
                else limits.memory_limit_mb
            ),
            seed=int(self.seed or 0),
            beam_width=int(self.beam_width),
            deepen_length=0 if self.deepen_length == DEEPEN_AUTO else int(self.deepen_length),
            gap_tolerance=gap_tolerance(self.gap_tolerance, limits.gap_tolerance),
            n_jobs=int(self.n_jobs),
            rashomon_delta=-1.0,  # the Rashomon mode: fairlist.rashomon
            max_lists=0,
            rashomon_keep_map=False,  # a certificate's enumeration: fairlist.dual
            rashomon_ceiling=math.inf,
            rashomon_front=False,  # the least unfair list within delta: fairlist.fairest
            fairest_ceiling=-1.0,  # the fairest mode: fairlist.fairest
        )
        return config

    # ------------------------------------------------------------------ solving
    def solve(self, problem: Problem) -> Result:
        """Search ``problem`` and return the best fair rule list with its certificate (after
        the CP-SAT warm start, when ``warm_start_engine`` asks for it; through the Lagrangian
        dual, when ``dual`` asks for it)."""
        if self.dual != "off":  # the Lagrangian certificate (fairlist.dual, issue 36)
            self._validate()
            if self.warm_start_engine is not None:
                raise InvalidParameterError(
                    "dual and warm_start_engine cannot be combined: the dual path finds its own "
                    "first list (set one of them)"
                )
            from ..dual import solve_by_dual

            return solve_by_dual(self, problem)
        start = time.perf_counter()
        if self.warm_start_engine is not None:
            from .warmstart import warm_started  # (CP-SAT loads only when asked for)

            self._validate()
            return warm_started(self, problem, start, BnBSolver._solve_from)
        return self._solve_from(problem, start)

    def _solve_from(self, problem: Problem, start: float | None = None) -> Result:
        """:meth:`solve` without the warm start; ``start``: when the solve began (now)."""
        start = time.perf_counter() if start is None else start
        result = self._solve(problem)
        # rounded weights under a cap: a second search with the cap raised by the margin bounds
        # the true optimum from below (fairlist.solvers.weights.bound_from_above)
        return bound_from_above(problem, result, self._solve, start)

    def _solve(self, problem: Problem) -> Result:
        """One search of ``problem`` (see :meth:`solve`)."""
        check_problem(problem)
        self._validate()
        start = time.perf_counter()  # the time limit covers the preparation below too
        if problem.n_groups > MAX_GROUPS:
            raise DataError(
                f"the branch-and-bound handles at most {MAX_GROUPS} groups; this problem has "
                f"{problem.n_groups} (fairlist.groups.merge_small_groups merges the small ones)"
            )
        weights = engine_weights(problem)
        space = "majority" if self.majority_only else "full"
        stats: dict[str, Any] = {
            "n_groups": problem.n_groups,
            "weighted": problem.sample_weight is not None,
            "weight_scale": weights.scale,
            "weights_exact": weights.exact,
            "weight_rho": weights.rho,
            "weight_margin": weights.margin,
            "weight_error_ratio": weights.error_ratio,
        }
        epsilon = 0.0 if problem.epsilon is None else float(problem.epsilon)
        if problem.constrained:
            epsilon -= weights.margin
            if not epsilon >= 0:  # rounded weights: the search can show no list fair
                return with_fair_constant(
                    problem,
                    Result.no_list(
                        Status.UNKNOWN, StopReason.COMPLETED, self.name, space, 0.0, stats
                    ),
                )
        config = self._config(problem.limits.minus(time.perf_counter() - start), problem.max_length)
        config["deepen_length"] = deepen_phases(
            self.deepen_length,
            max_length=problem.max_length,
            lam=problem.lam,
            limits=problem.limits,
        )
        search, kept, representative = new_search(problem, weights, epsilon, config)
        warm_start = self._offer_initial(
            search, problem, representative, self.initial, weights.exact
        )
        deadline = None
        if problem.limits.time_limit is not None:
            deadline = start + float(problem.limits.time_limit)
        raw = self._run(search, deadline)
        stats.update(raw["stats"])
        stats["n_sample_classes"] = stats.pop("n_classes")
        stats["warm_start"] = warm_start
        stats["duplicate_antecedents"] = problem.n_antecedents - len(kept)
        return self._result(problem, weights, raw, kept, space, stats)

    def solve_rashomon(
        self,
        problem: Problem,
        delta: float,
        max_lists: int | None,
        weights: EngineWeights | None = None,
        *,
        keep_map: bool = False,
        ceiling: float = math.inf,
        front: bool = False,
    ) -> tuple[dict[str, Any], np.ndarray, np.ndarray]:
        """The core's Rashomon mode on ``problem``: every fair list whose objective is within
        ``delta`` of the optimum (the ``max_lists`` least, ties canonical; 0 or None: all),
        under the problem's limits and this solver's settings. Returns the core's raw result
        (the lists, ``stats``, ``stop_reason``), the kept antecedent columns and each column's
        representative (identical columns merged, :func:`new_search`);
        :func:`fairlist.rashomon.rashomon_set` makes a :class:`~fairlist.rashomon.RashomonSet`
        of them. ``weights``: :func:`engine_weights` of the problem (computed when None).
        ``keep_map`` and ``ceiling``: a certificate's enumeration (:mod:`fairlist.dual`; the
        core's ``rashomon_keep_map`` and ``rashomon_ceiling``). ``front``: only the Pareto front
        of (objective, unfairness) is kept (the core's ``rashomon_front``,
        :mod:`fairlist.fairest`)."""
        weights = engine_weights(problem) if weights is None else weights
        config = self._config(problem.limits, problem.max_length)
        config.update(rashomon_delta=float(delta), max_lists=int(max_lists or 0))
        config.update(rashomon_keep_map=bool(keep_map), rashomon_ceiling=float(ceiling))
        config.update(rashomon_front=bool(front))
        epsilon = 0.0 if problem.epsilon is None else float(problem.epsilon)
        search, kept, representative = new_search(problem, weights, epsilon, config)
        deadline = None
        if problem.limits.time_limit is not None:
            deadline = time.perf_counter() + float(problem.limits.time_limit)
        return self._run(search, deadline), kept, representative

    def solve_fairest(
        self, problem: Problem, ceiling: float, initial: RuleList | None = None
    ) -> tuple[dict[str, Any], np.ndarray]:
        """The core's fairest mode on ``problem`` (exact weights): the least unfair fair list
        of objective at most ``ceiling`` (ties: the lower objective), under the problem's
        limits and this solver's settings; ``initial``: a first incumbent (a list within the
        ceiling). Returns the core's raw result (its ``unfairness``; ``lower_bound`` bounds
        the unfairness) and the kept antecedent columns (:func:`new_search`);
        :func:`fairlist.fairest.search_fairest` reads them."""
        if not float(ceiling) >= 0:  # (the core reads a negative one as its mode off)
            raise InvalidParameterError(f"ceiling must be a number >= 0, got {ceiling!r}")
        config = self._config(problem.limits, problem.max_length)
        config.update(fairest_ceiling=float(ceiling))
        epsilon = 0.0 if problem.epsilon is None else float(problem.epsilon)
        search, kept, representative = new_search(problem, engine_weights(problem), epsilon, config)
        if initial is not None:
            self._offer_initial(search, problem, representative, initial)
        deadline = None
        if problem.limits.time_limit is not None:
            deadline = time.perf_counter() + float(problem.limits.time_limit)
        return self._run(search, deadline), kept

    def _result(
        self,
        problem: Problem,
        weights: EngineWeights,
        raw,
        kept,
        space: str,
        stats: dict[str, Any],
    ) -> Result:
        """The engine's raw answer as a checked :class:`Result` with its certificate."""
        status = Status[raw["status"].name]
        stop = StopReason[raw["stop_reason"].name]
        lower = raw["lower_bound"]
        if not weights.exact:  # certificates hold for the rounded weights only
            # the rounded search's own certificate (an objective in the rounded weights)
            stats["rounded_lower_bound"] = math.inf if status is Status.INFEASIBLE else lower
            status = {Status.OPTIMAL: Status.FEASIBLE, Status.INFEASIBLE: Status.UNKNOWN}.get(
                status, status
            )
            shrink = (1 - weights.rho) / (1 + weights.rho)
            lower = lower * shrink if not problem.constrained else 0.0
        if not raw["has_solution"]:
            result = Result.no_list(status, stop, self.name, space, lower, stats)
            return result if weights.exact else with_fair_constant(problem, result)
        antecedents = [int(kept[j]) for j in raw["antecedents"]]
        rule_list = problem.rule_list(antecedents, raw["predictions"], raw["default_prediction"])
        ev = problem.evaluate(rule_list)
        self._check(problem, weights, rule_list, raw, ev)
        if status is Status.OPTIMAL:
            lower = ev.objective
        result = Result(
            status=status,
            rule_list=rule_list,
            objective=ev.objective,
            accuracy=ev.accuracy,
            unfairness=ev.unfairness,
            lower_bound=min(lower, ev.objective),
            stop_reason=stop,
            engine=self.name,
            search_space=space,
            stats=stats,
        )
        return result if weights.exact else with_fair_constant(problem, result)

    @staticmethod
    def _check(problem: Problem, weights: EngineWeights, rule_list: RuleList, raw, ev) -> None:
        """The engine's list, re-evaluated in Python, must be fair with the errors and (exact
        weights) the objective the engine reported; anything else is a bug."""
        wrong = rule_list.predict(problem.X).astype(bool) != problem.y.astype(bool)
        values = weights.values
        errors = int(np.count_nonzero(wrong) if values is None else values[wrong].sum())
        agree = errors == raw["errors"]
        if weights.exact:
            agree = agree and abs(ev.objective - raw["objective"]) <= 1e-9
        if not ev.fair or not agree:
            raise RuntimeError(
                f"the branch-and-bound returned {rule_list!r} with {raw['errors']} errors (in "
                f"units of 1/{weights.scale!r}) and objective {raw['objective']!r}, but "
                f"re-evaluated it is fair={ev.fair} (unfairness {ev.unfairness!r}, epsilon "
                f"{problem.epsilon!r}) with {errors} errors and objective {ev.objective!r}; "
                "this is a bug in fairlist.solvers.bnb"
            )

    def _offer_initial(
        self,
        search: Any,
        problem: Problem,
        representative: np.ndarray,
        initial: RuleList | None,
        weights_exact: bool = True,
    ) -> str:
        """Hands a warm start to the search; returns what happened to it (warns when it is
        ignored)."""
        if initial is None:
            return "none"

        def ignored(why: str) -> str:
            warnings.warn(f"initial rule list ignored: {why}", stacklevel=4)
            return "ignored"

        try:
            ev = problem.evaluate(initial)
            indices = initial.antecedent_indices(problem.feature_names)
        except (KeyError, ValueError) as exc:
            return ignored(f"it does not fit this problem ({exc})")
        if not ev.fair:
            return ignored(
                f"its unfairness {ev.unfairness:.6g} exceeds epsilon={problem.epsilon!r}"
            )
        indices = [int(representative[j]) for j in indices]
        if len(set(indices)) < len(indices):
            return ignored("two of its rules have identical antecedents")
        predictions = [r.prediction for r in initial.rules]
        if not search.set_initial(indices, predictions, initial.default):
            why = "it is longer than max_length or outside the majority-label space"
            if not weights_exact:
                why += ", or unfair with the rounded sample weights"
            return ignored(why)
        return "used"

    def _run(self, search: Any, deadline: float | None = None) -> dict[str, Any]:
        """Runs the search in a worker thread; Ctrl-C stops it and keeps the best so far.

        ``deadline`` (a ``time.perf_counter()`` time) stops it too, with stop reason
        time_limit: the core's clock starts when its search does, after its constructor has
        merged the rows (a second on a million rows), and the time limit covers that too.
        """
        interval = float(self.progress_interval) if self.progress is not None else 0.1
        state = {"timed_out": False, "last": time.perf_counter()}

        def tick() -> None:
            now = time.perf_counter()
            if deadline is not None and not state["timed_out"] and now >= deadline:
                state["timed_out"] = True
                search.request_stop()
            if self.progress is not None and (deadline is None or now - state["last"] >= interval):
                state["last"] = now
                self.progress(search.progress())

        result, interrupted = run_interruptibly(
            search.run,
            search.request_stop,
            tick=tick,
            interval=interval if deadline is None else min(interval, 0.05),
            name="fairlist-bnb",
        )
        timed_out = state["timed_out"] and not interrupted
        if timed_out and result["stop_reason"].name == "INTERRUPTED":
            result["stop_reason"] = type(result["stop_reason"]).TIME_LIMIT
        return result
