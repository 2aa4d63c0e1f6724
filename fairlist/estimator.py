"""A scikit-learn classifier that learns a fair rule list.

:class:`FairRuleListClassifier` wraps the solver layer (:func:`fairlist.solvers.solve`) in the
scikit-learn estimator conventions: parameters are stored by ``__init__`` and validated in
:meth:`~FairRuleListClassifier.fit` against a declared table (:data:`PARAMETER_CONSTRAINTS`);
fitted attributes end in ``_``; labels come back as the original classes.

The sensitive attribute is passed to ``fit`` the way fairlearn names it, ``sensitive_features``,
and is never an antecedent. To route it through :class:`~sklearn.model_selection.GridSearchCV` or a
:class:`~sklearn.pipeline.Pipeline`, either pass it as a fit parameter
(``grid.fit(X, y, sensitive_features=s)``; a ``Pipeline`` needs the step prefix,
``pipe.fit(X, y, clf__sensitive_features=s)``) or enable scikit-learn's metadata routing::

    sklearn.set_config(enable_metadata_routing=True)
    clf = FairRuleListClassifier(...).set_fit_request(sensitive_features=True)
    GridSearchCV(make_pipeline(binarizer, clf), grid).fit(X, y, sensitive_features=s)

Models are saved as JSON (:meth:`FairRuleListClassifier.save`), never pickle.
"""

from __future__ import annotations

import numbers
import os
import time
import warnings
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils.validation import check_is_fitted

from ._json import dumps, write_text
from ._params import (
    BOOLEAN,
    N_JOBS,
    WARM_START_ENGINE,
    WARM_START_SECONDS,
    InstanceOf,
    Interval,
    Satisfies,
    validate_params,
)
from ._validation import as_binary, check_is_table, validate_data
from .binarize import Binarizer
from .errors import DataError, InfeasibleError, InvalidParameterError, MissingColumnError
from .estimator_document import from_model_document, model_document
from .groups import SensitiveColumnWarning, group_rates
from .length_penalty import check_length_penalty
from .metrics import Metric
from .metrics import protected_mask as sensitive_mask
from .model_file import MODEL_FORMAT, check_model, read_document
from .prepare import PARAMETER_CONSTRAINTS as ROUTE_CONSTRAINTS
from .prepare import prepare as prepare_data
from .progress import ProgressLog, phase_text, progress_text, result_info, say
from .rulelist import RuleList
from .solvers import (
    ENGINE_NAMES,
    ENGINES,
    Limits,
    Problem,
    Result,
    Solver,
    Status,
    get_solver,
    require_capability,
)
from .solvers.base import (
    DEFAULT_LAM,
    DEFAULT_MAX_NODES,
    DEFAULT_TIME_LIMIT,
    DEFAULT_WARM_START_SECONDS,
    EPSILON,
    LAM,
    MAX_LENGTH,
    METRIC,
)

__all__ = [
    "FairRuleListClassifier",
    "InfeasibleError",
    "PARAMETER_CONSTRAINTS",
    "SensitiveColumnWarning",
    "sensitive_mask",
    "MODEL_FORMAT",
]


#: What each parameter may be (a value is valid when any constraint of its list accepts it).
#: The problem's parameters are declared by :class:`~fairlist.solvers.Problem` and
#: :class:`~fairlist.solvers.Limits`; this table refers to those declarations.
PARAMETER_CONSTRAINTS: dict[str, list] = {
    "metric": METRIC,
    "epsilon": EPSILON,
    "lam": LAM,
    "max_length": MAX_LENGTH,
    "engine": [
        ENGINE_NAMES,
        Satisfies(lambda v: isinstance(v, Solver) and not isinstance(v, str), "a Solver"),
    ],
    "policy": [None, InstanceOf(str, "a search policy name (str)")],
    "n_jobs": N_JOBS,
    "time_limit": Limits.PARAMETER_CONSTRAINTS["time_limit"],
    "max_nodes": Limits.PARAMETER_CONSTRAINTS["max_nodes"],
    "gap_tolerance": Limits.PARAMETER_CONSTRAINTS["gap_tolerance"],
    "memory_limit_mb": Limits.PARAMETER_CONSTRAINTS["memory_limit_mb"],
    "random_state": [None, Interval(numbers.Integral, None, None)],
    "engine_options": [None, InstanceOf(Mapping, "a dict")],
    "warm_start_engine": WARM_START_ENGINE,
    "warm_start_seconds": WARM_START_SECONDS,
    **{  # the data route's (fairlist.prepare): how X becomes antecedents
        name: ROUTE_CONSTRAINTS[name]
        for name in ("binarizer", "handle_missing", "handle_unknown", "keep_id_columns", "cuts")
    },
    "allow_sensitive_antecedents": ROUTE_CONSTRAINTS["allow_sensitive_antecedents"],
    "verbose": [BOOLEAN, Interval(numbers.Integral, 0, None, closed="left")],
}


# --------------------------------------------------------------------------- the estimator
class FairRuleListClassifier(ClassifierMixin, BaseEstimator):
    """A rule list minimising training error plus a length penalty under a fairness cap.

    Solves ``minimise errors / n + lam * length  subject to  unfairness <= epsilon`` exactly
    (FairCORELS' problem) with the branch-and-bound engine (``engine="bnb"``) or the CP-SAT model
    (``engine="cpsat"``).

    Parameters
    ----------
    metric : str or Metric, default="statistical_parity"
        Unfairness measure: ``statistical_parity``, ``predictive_parity``,
        ``predictive_equality``, ``equal_opportunity``, ``equalized_odds``,
        ``conditional_use_accuracy_equality``, or the short names SP, PP, PE, EOpp, EOdds, CUAE.
    epsilon : float or None, default=None
        The **maximum unfairness** allowed on the training data (``unfairness <= epsilon``);
        None means unconstrained. The paper's algorithm writes the same cap as ``1 - epsilon``,
        calling ``epsilon`` a fairness level: here ``epsilon=0.05`` means unfairness at most 0.05.
    lam : float or "auto", default="auto"
        Length penalty per rule (the paper's lambda; it used 0.001): a rule is worth adding
        only if it removes more than ``lam * n`` errors. ``"auto"`` resolves on the training
        labels to 0.01 x the minority share (:func:`fairlist.solvers.base.auto_lam`: 0.005 on a
        balanced table, 0.0006 on one of 6 % positives), so that a rule must remove 1 % of the
        errors of the constant list on any table; ``lam_`` holds the number, and ``optimal``
        means optimal for it. A fixed 0.01 makes "always predict the majority" the answer on
        imbalanced tables (see docs/choosing.md). One default everywhere
        (``fairlist.solvers.base.DEFAULT_LAM``). When ``lam`` alone makes the constant list
        optimal, ``fit`` warns (:class:`~fairlist.errors.LengthPenaltyWarning`).
    max_length : int or None, default=None
        Longest rule list considered. None: no cap other than the one the bounds imply (the
        CP-SAT engine needs a cap; see its documentation).
    engine : {"bnb", "cpsat"} or Solver, default="bnb"
        The exact engine. A :class:`~fairlist.solvers.Solver` instance is used as is.
    policy : str or None, default=None
        Search policy of the branch-and-bound engine (None: the engine's default).
    n_jobs : int, default=1
        Threads of one fit (-1: every core, -2: all but one, ...). The branch-and-bound runs
        one search over that many threads: a certified list is then the first of the optimal
        lists in a canonical order (length, antecedents, predictions), the same for every
        ``n_jobs`` above 1, with the objective of the serial search (``n_jobs=1``, which may
        pick another list of the same objective); a search stopped by a limit depends on the
        threads' timing. CP-SAT gets that many workers (``num_workers``; above 1 it is not
        reproducible).
    time_limit : float or None, default=60.0
        Seconds for the whole of ``fit``, counted from its call: checking the data, binarizing
        a raw table (fitting the binarizer and building the antecedents), merging identical
        rows and antecedents and building the search, then the search itself, which stops with
        the best rule list found (status ``feasible``, with its lower bound and gap). Every
        stage before the search looks at the clock at least every half second; when the
        limit passes while binarizing, ``fit`` raises :class:`~fairlist.errors.TimeLimitError`
        saying how far it got. The stages before the search take a few seconds on 200,000 rows
        and thousands of antecedents, so a fit spends most of its budget searching. A safety
        net for interactive use: a node budget is the same on every machine, a time limit is
        not, so for a reproducible run set it to None and let ``max_nodes`` bound the search.
    max_nodes : int or None, default=4_000_000
        Trie size at which the branch-and-bound stops with the best rule list found (status
        ``feasible``): the paper's budget, about 10 s on COMPAS. On Adult (30,000 rows) the
        trie stays smaller while the search goes on for minutes, which the time limit catches.
        None (with ``time_limit=None``) searches until the optimum is certified, which under a
        fairness cap can take hours.
    gap_tolerance : float or None, default=None
        Stop as soon as the best list's objective is within this much of the proved lower
        bound (absolute, in objective units; both engines): status ``feasible``, stop reason
        ``gap_limit``, and ``gap_ <= gap_tolerance`` certifies that no list is better by more.
        None or 0: search on to a certificate or a limit.
    memory_limit_mb : float or None, default=None
        MiB the search may hold before it stops with the best list found (stop reason
        ``memory_limit``): the branch-and-bound's search structures (None: three quarters of
        the physical memory); for CP-SAT, which does not honour its own memory parameter, the
        growth of the process while the model is built and searched (None: no limit).
    random_state : int or None, default=None
        Seed handed to the engine.
    engine_options : dict or None, default=None
        Further keyword options for the engine's constructor (e.g. ``{"majority_only": True}``
        for the branch-and-bound, ``{"num_workers": 2}`` for CP-SAT).
    warm_start_engine : {None, "cpsat"}, default=None
        ``"cpsat"``: a CP-SAT run of ``warm_start_seconds`` hands the branch-and-bound its first
        incumbent (None: the search's own beam search; ``engine="bnb"`` only; not
        scikit-learn's boolean ``warm_start``, hence the name: every fit starts afresh). The
        certificate is the same either way; ``stats_["warm_start_cpsat"]`` holds the list
        handed over and what the search did with it (``outcome``: ``kept``, ``improved``,
        ``beaten`` by the beam search, ``ignored``, ``none``). Off by default: see
        :mod:`fairlist.solvers.warmstart` and docs/performance.md.
    warm_start_seconds : float, default=5.0
        CP-SAT's seconds, out of ``time_limit`` (at most half of the time left).
    binarizer : "auto", Binarizer or None, default="auto"
        How ``X`` becomes antecedents. ``"auto"``: a table whose columns are all 0/1 (or bool)
        is used as is, any other (raw numeric, categorical, boolean columns) goes through a
        default :class:`~fairlist.binarize.Binarizer` (the paper's discretisation and mined
        conjunctions). A ``Binarizer`` is cloned and fitted on ``X``; None requires antecedents.
        The fitted one (``binarizer_``) is part of the saved model, so a loaded model predicts
        on raw rows.
    handle_missing : {"error", "category"} or None, default=None
        Missing values in a raw column (the binarizer's ``handle_missing``): ``"error"`` refuses
        them, naming the column; ``"category"`` makes ``column:missing`` an antecedent. None:
        the binarizer's own setting (``"error"`` for ``binarizer="auto"``).
    handle_unknown : {"ignore", "error"} or None, default=None
        A category (or a missing value) not seen at fit time in a column a rule reads (the
        binarizer's ``handle_unknown``): ``"ignore"`` lets it match none of the column's
        antecedents (so ``not column:value`` holds), with an
        :class:`~fairlist.binarize.UnseenCategoryWarning`, as the exported Python and SQL do;
        ``"error"`` refuses it, naming the column and the values. A column no rule reads is
        never evaluated, so its values never block ``predict``. None: the binarizer's own
        setting (``"ignore"`` for ``binarizer="auto"``).
    keep_id_columns : bool or None, default=None
        The binarizer's ``keep_id_columns``: False leaves out the columns with nearly one
        distinct value per row (names, ids, timestamps), with a warning naming them; True keeps
        them. None: the binarizer's own setting (False for ``binarizer="auto"``).
    cuts : {"mdlp", "quantile"} or None, default=None
        How a raw numeric column is cut (the binarizer's ``numeric``): ``"mdlp"`` where the
        labels justify a cut (the paper's choice; a column the criterion finds no cut in yields
        no antecedent, with a :class:`~fairlist.binarize.ConstantColumnWarning`), ``"quantile"``
        at quantiles (every numeric column with several values yields antecedents). None: the
        binarizer's own setting (``"mdlp"`` for ``binarizer="auto"``).
    allow_sensitive_antecedents : bool, default=False
        False: the sensitive attribute is never an antecedent. Columns of a DataFrame ``X``
        named by ``sensitive_features`` are left out, and so are, when ``sensitive_features``
        holds the groups themselves (``fit(X, y, sensitive_features=X["gender"])``, as
        fairlearn users write it), the columns of ``X`` that hold the same groups (the same
        values up to a renaming: ``gender``, ``gender == "male"`` or its 0/1 code) or share a
        sensitive feature's name, with a :class:`~fairlist.groups.SensitiveColumnWarning`
        naming them; either way they are listed in ``sensitive_columns_``. A column merely
        correlated with the groups stays. An array ``X`` is not searched: it has no names to
        leave a column out by at predict time, and on a few rows a 0/1 column often splits
        them as a two-group mask does by chance. True: every column of ``X`` is a candidate
        antecedent, the sensitive ones too.
    verbose : int or bool, default=0
        0: silent. 1 (or more): on stderr, a line when binarizing starts (rows, columns) and
        one when the search is built (rows, antecedents), then a line of the search's progress
        (seconds, nodes, best objective, lower bound, gap) every few seconds, and one when the
        fit ends; the named engines only (a :class:`~fairlist.solvers.Solver` passed as
        ``engine`` is configured directly). The same phases reach a progress callback given in
        ``engine_options`` as ``{"phase": "preparing" | "binarizing" | "building", "seconds":
        ..., ...}`` before the engine's own dicts (which carry no ``"phase"``).

    Attributes
    ----------
    rule_list_ : RuleList
        The learned rule list (its labels are the class names).
    status_ : Status
        ``optimal`` (certified) or ``feasible`` (a limit stopped the search).
    objective_ : float
        Training objective of ``rule_list_`` (``errors / n + lam_ * length``).
    lam_ : float
        The length penalty the fit used: ``lam``, or the number ``lam="auto"`` resolved to.
    lower_bound_ : float
        Lower bound on the optimal objective proved by the engine.
    accuracy_ : float
        Training accuracy.
    unfairness_ : float
        Training unfairness under ``metric``.
    stats_ : dict
        Engine statistics (nodes, seconds, ...). ``stats_["certified_length"]`` is
        ``certified_length_``; the branch-and-bound's ``n_sample_classes`` counts the classes of
        identical samples (rows with the same antecedents), not the two labels.
    result_ : Result
        The engine's full result.
    classes_ : ndarray of shape (2,)
        The original class labels; ``classes_[1]`` is the positive class.
    gap_ : float
        ``objective_ - lower_bound_``: 0 when certified optimal (but for
        ``certified_tolerance_``).
    certified_tolerance_ : float or None
        When the status is ``optimal``, how much better than ``objective_`` a fair list may
        be: 0, except with real-valued sample weights rounded to integers, where a small
        tolerance is proved and stated (``result_.stats["certificate"]``; docs/weights.md).
        None when not optimal.
    certified_length_ : int or None
        No rule list of at most this many rules beats ``rule_list_`` (None: nothing is certified
        beyond the lower bound; every length when the status is ``optimal``).
    group_names_ : tuple of str
        The groups the cap compares (see :mod:`fairlist.groups`).
    group_rates_ : DataFrame
        Each group's size and training rates under ``rule_list_`` (positive rate, TPR, FPR,
        PPV, NPV): what the unfairness is made of.
    binarizer_ : Binarizer or None
        The fitted binarizer that turned raw columns into antecedents (None: X held antecedents).
    sensitive_columns_ : list of str
        Columns of X named by ``sensitive_features``, or holding the same groups (see
        ``allow_sensitive_antecedents``): never antecedents, and ``predict`` ignores them.
    n_features_in_ : int
    feature_names_in_ : ndarray of str
        Only when X was a DataFrame whose column names are all strings (the sensitive columns
        left out).

    See Also
    --------
    fairlist.model_selection.make_fair_scorer : choose ``epsilon`` with GridSearchCV by held-out
        accuracy under a held-out fairness level (accuracy alone picks the loosest cap).
    fairlist.export.export_sql : the fitted list as SQL, Python or text.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[1, 0], [1, 1], [0, 1], [0, 0], [1, 0], [0, 1]])
    >>> y = np.array(["yes", "yes", "no", "no", "yes", "no"])
    >>> clf = FairRuleListClassifier(metric="SP", epsilon=0.5, lam=0.01)
    >>> clf.fit(X, y, sensitive_features=[1, 1, 1, 0, 0, 0]).predict(X[:2])
    array(['yes', 'yes'], dtype='<U3')
    >>> from sklearn.base import clone
    >>> warm = clone(clf).set_params(warm_start_engine="cpsat", warm_start_seconds=1.0)
    >>> warm.fit(X, y, sensitive_features=[1, 1, 1, 0, 0, 0]).stats_["warm_start_cpsat"]["outcome"]
    'kept'
    """

    def __init__(
        self,
        *,
        metric: str | Metric = "statistical_parity",
        epsilon: float | None = None,
        lam: float | str = DEFAULT_LAM,
        max_length: int | None = None,
        engine: str | Solver = "bnb",
        policy: str | None = None,
        n_jobs: int = 1,
        time_limit: float | None = DEFAULT_TIME_LIMIT,
        max_nodes: int | None = DEFAULT_MAX_NODES,
        gap_tolerance: float | None = None,
        memory_limit_mb: float | None = None,
        random_state: int | None = None,
        engine_options: dict[str, Any] | None = None,
        warm_start_engine: str | None = None,
        warm_start_seconds: float = DEFAULT_WARM_START_SECONDS,
        binarizer: str | Binarizer | None = "auto",
        handle_missing: str | None = None,
        handle_unknown: str | None = None,
        keep_id_columns: bool | None = None,
        cuts: str | None = None,
        allow_sensitive_antecedents: bool = False,
        verbose: int = 0,
    ) -> None:
        self.metric = metric
        self.epsilon = epsilon
        self.lam = lam
        self.max_length = max_length
        self.engine = engine
        self.policy = policy
        self.n_jobs = n_jobs
        self.time_limit = time_limit
        self.max_nodes = max_nodes
        self.gap_tolerance = gap_tolerance
        self.memory_limit_mb = memory_limit_mb
        self.random_state = random_state
        self.engine_options = engine_options
        self.warm_start_engine = warm_start_engine
        self.warm_start_seconds = warm_start_seconds
        self.binarizer = binarizer
        self.handle_missing = handle_missing
        self.handle_unknown = handle_unknown
        self.keep_id_columns = keep_id_columns
        self.cuts = cuts
        self.allow_sensitive_antecedents = allow_sensitive_antecedents
        self.verbose = verbose

    # ------------------------------------------------------------------ sklearn tags
    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.classifier_tags.multi_class = False
        tags.input_tags.allow_nan = False
        return tags

    # ------------------------------------------------------------------ building blocks
    def _solver(self) -> Solver:
        """The configured engine instance."""
        options = dict(self.engine_options or {})
        if not isinstance(self.engine, str):
            if (
                self.policy is not None
                or self.random_state is not None
                or self.verbose
                or self.n_jobs != 1
                or self.warm_start_engine is not None
            ):
                raise InvalidParameterError(
                    "policy, n_jobs, random_state, warm_start_engine and verbose apply to the "
                    "named engines only; configure a Solver instance passed as engine= directly "
                    "(its progress= callback reports the search)"
                )
            return self.engine
        spec = ENGINES[self.engine]
        unknown = sorted(set(options) - spec.options())
        if unknown:
            raise InvalidParameterError(
                f"engine_options for engine={self.engine!r}: {unknown[0]!r} is not an option of "
                f"{spec.cls} (its options: {', '.join(sorted(spec.options()))})"
            )
        if self.policy is not None:
            if spec.policy is None:
                raise InvalidParameterError(
                    f"policy={self.policy!r}: engine={self.engine!r} has no policies"
                )
            options.setdefault(spec.policy, self.policy)
        if self.n_jobs != 1 and spec.threads is not None:
            threads = int(self.n_jobs)
            if threads < 0 and spec.threads == "num_workers":  # -1 every core, -2 all but one
                threads = max(1, (os.cpu_count() or 1) + 1 + threads)  # CP-SAT's 0: every core
            options.setdefault(spec.threads, threads)
        if self.random_state is not None and spec.seed is not None:
            options.setdefault(spec.seed, int(self.random_state))
        if self.warm_start_engine is not None:
            require_capability(
                self.engine, "accepts_warm_start", f"warm_start_engine={self.warm_start_engine!r}"
            )
            options.setdefault("warm_start_engine", self.warm_start_engine)
            options.setdefault("warm_start_seconds", float(self.warm_start_seconds))
        if self.verbose and "progress" in spec.options():
            options["progress"] = ProgressLog(options.get("progress"))
        return get_solver(self.engine, **options)

    def prepare(
        self,
        X: Any,
        y: Any,
        sensitive_features: Any = None,
        protected: Any = None,
        sample_weight: Any = None,
        *,
        start: float | None = None,
    ) -> Problem:
        """The :class:`~fairlist.solvers.Problem` :meth:`fit` searches (its arguments), for a
        search of one's own such as :func:`fairlist.rashomon.rashomon_set`: parameters and data
        checked, a raw table binarized by ``start + time_limit`` (``start``: a
        ``time.perf_counter()`` time, default now); sets the data-derived attributes.

        >>> import numpy as np
        >>> X = np.array([[1, 0], [1, 1], [0, 1], [0, 0]])
        >>> FairRuleListClassifier(lam=0.01).prepare(X, [1, 1, 0, 0], [1, 0, 1, 0]).n_samples
        4
        """
        start = time.perf_counter() if start is None else start
        params = self.get_params(deep=False)
        validate_params(type(self).__name__, PARAMETER_CONSTRAINTS, params)
        self._report_phase("preparing", start)
        self.binarizer_ = None
        prepared = prepare_data(
            self,
            X,
            y,
            sensitive_features,
            protected,
            sample_weight,
            params,
            start=start,
            phase=self._report_phase,
        )
        self.sensitive_columns_ = prepared.sensitive_columns
        self.binarizer_ = prepared.binarizer
        self.classes_ = np.asarray(prepared.problem.classes)
        return prepared.problem

    # ------------------------------------------------------------------ fit
    def fit(
        self,
        X: Any,
        y: Any,
        sensitive_features: Any = None,
        protected: Any = None,
        sample_weight: Any = None,
    ):
        """Learn the rule list.

        Parameters
        ----------
        X : DataFrame or array-like, shape (n_samples, n_columns)
            Antecedents (0/1 or bool columns), or a raw table that ``binarizer`` turns into
            antecedents.
        y : array-like of shape (n_samples,)
            Two classes, of any type; ``classes_[1]`` (the larger in sorted order) is "positive".
        sensitive_features : array-like of shape (n_samples,) or (n_samples, c), or column names
            The group of each sample: one column of any number of groups, several columns
            (their intersections are the groups), a boolean mask (True = protected), or the
            name(s) of the column(s) of ``X`` that hold them (those columns are then never
            antecedents and ``predict`` ignores them). Given as values, a column of ``X`` that
            holds the same groups is left out too, with a warning (see
            ``allow_sensitive_antecedents``). See :mod:`fairlist.groups`.
        protected : scalar or tuple, optional
            Compare the group of this value (a tuple of values for several columns) with all
            the others together, as the paper's two groups.
        sample_weight : array-like of shape (n_samples,), optional
            Non-negative weights: errors and every rate of the metric are weighted (integer
            weights give exactly what duplicated rows give).

        Returns
        -------
        self

        Raises
        ------
        InfeasibleError
            When no rule list meets ``epsilon`` (proved, or a limit stopped the search first).
        TimeLimitError
            (An ``InfeasibleError``.) When ``time_limit`` runs out while the binarizer is
            still building the antecedents of a raw table; the message says how far it got.
        """
        start = time.perf_counter()  # time_limit covers fit from here, data preparation too
        problem = self.prepare(X, y, sensitive_features, protected, sample_weight, start=start)
        problem = problem.with_limits(problem.limits.minus(time.perf_counter() - start))
        building = {"rows": problem.X.shape[0], "antecedents": problem.n_antecedents}
        if self.binarizer_ is not None:
            building["raw_columns"] = self.binarizer_.n_features_in_
            if self.binarizer_.n_dropped_:
                building["made"] = self.binarizer_.n_antecedents_made_
        self._report_phase("building", start, **building)
        result = self._solver().solve(problem)
        if self.verbose:
            say(
                f"fit: {progress_text(result.stats | result_info(result))}, "
                f"status {result.status} ({result.stop_reason})"
            )
        self._set_result(problem, result)
        check_length_penalty(problem, result, requested=self.lam)  # warns when lam alone
        # chose the constant list
        return self

    def _report_phase(self, phase: str, start: float, **info: Any) -> None:
        """Say which phase of ``fit`` starts: ``{"phase": phase, "seconds": <since fit began>,
        **info}`` to the progress callback of ``engine_options`` (the one the engine then calls
        with its search dicts, which carry no ``"phase"``) and, under ``verbose``, a line.

        The phases: ``preparing`` (checking the data), ``binarizing`` (``rows``, ``columns``:
        a raw table), ``building`` (``rows``, ``antecedents``, ``raw_columns`` when binarized,
        ``made`` when the antecedent budget kept fewer than were made: the engine builds its
        search; its first progress dict means ``searching``).
        """
        report = {"phase": phase, "seconds": time.perf_counter() - start, **info}
        options = self.engine_options if isinstance(self.engine_options, Mapping) else {}
        callback = options.get("progress")
        if callable(callback):
            callback(report)
        if self.verbose and phase != "preparing":
            say(f"fit: {phase_text(report)}")

    def _set_result(self, problem: Problem, result: Result) -> None:
        if result.rule_list is None:
            what = (
                "is proved infeasible"
                if result.status is Status.INFEASIBLE
                else f"found no fair rule list before the search stopped ({result.stop_reason})"
            )
            if result.stats.get("message"):  # e.g. the CP-SAT model build did not fit in time
                what += f": {result.stats['message']}"
            raise InfeasibleError(
                f"epsilon={self.epsilon!r} under metric {problem.metric.name.lower()}: the "
                f"problem {what}; raise epsilon or the limits",
                result,
            )
        if result.status is Status.FEASIBLE:
            why = f"the search stopped ({result.stop_reason}) before certifying optimality"
            if result.stats.get("certificate"):  # rounded weights: the gap explained
                why = result.stats["certificate"]
            warnings.warn(
                f"{why}; the rule list is the best found (objective {result.objective:.6f}, "
                f"lower bound {result.lower_bound:.6f})",
                ConvergenceWarning,
                stacklevel=3,
            )
        rule_list = RuleList(
            result.rule_list.rules, result.rule_list.default, problem.labels, problem.feature_names
        )
        evaluation = problem.evaluate(rule_list)
        fired = rule_list.apply(problem.X)
        k, w = rule_list.length + 1, problem.weights
        as_counts = (lambda a: a.astype(np.int64)) if problem.sample_weight is None else np.asarray
        self._rule_n = as_counts(np.bincount(fired, weights=w, minlength=k))
        self._rule_pos = as_counts(np.bincount(fired, weights=w * problem.y, minlength=k))
        cell = fired * problem.n_groups + problem.groups
        self._rule_group_n = as_counts(
            np.bincount(cell, weights=w, minlength=k * problem.n_groups)
        ).reshape(k, problem.n_groups)
        self.group_names_ = problem.group_names
        self.group_rates_ = group_rates(evaluation.counts)
        self.rule_list_ = rule_list
        self.result_ = result
        self.status_ = result.status
        self.objective_ = evaluation.objective
        self.lam_ = problem.lam
        result.stats["lam"] = problem.lam  # the number "auto" resolved to, saved with the model
        self.lower_bound_ = result.lower_bound
        self.gap_ = result.gap
        self.certified_tolerance_ = result.certified_tolerance
        self.certified_length_ = result.certified_length(problem)
        if self.certified_length_ is not None or "certified_length" in result.stats:
            result.stats["certified_length"] = self.certified_length_  # one value, stats_ too
        self.accuracy_ = evaluation.accuracy
        self.unfairness_ = evaluation.unfairness
        self.metric_ = problem.metric
        self.stats_ = dict(result.stats)

    # ------------------------------------------------------------------ prediction
    def _binary_input(self, X: Any) -> np.ndarray | pd.DataFrame:
        """The antecedents of X the rule list reads (raw rows go through ``binarizer_``, which
        evaluates only the antecedents the rules use: a DataFrame of those, by name; the
        sensitive columns are ignored)."""
        check_is_fitted(self, "rule_list_")
        check_is_table(X)
        if isinstance(X, pd.DataFrame) and self.sensitive_columns_:
            X = X.drop(columns=[c for c in self.sensitive_columns_ if c in X.columns])
        if isinstance(X, pd.DataFrame) and hasattr(self, "feature_names_in_"):
            X = self._by_name(X)
        raw = self.binarizer_ is not None
        try:  # scikit-learn's checks of the columns (count, names), raised as a DataError
            if raw:
                X = validate_data(self, X, reset=False, skip_check_array=True)
            else:
                X = validate_data(self, X, dtype=None, reset=False)
        except DataError:
            raise
        except ValueError as exc:  # its messages run to several lines: one line here
            raise DataError(" ".join(str(exc).replace("\n- ", " ").split())) from exc
        if not raw:
            return as_binary("X", X, 2, columns=self.rule_list_.feature_names)
        used = list(dict.fromkeys(r.antecedent for r in self.rule_list_.rules))
        out = np.asarray(self.binarizer_.transform(X, terms=used))
        return pd.DataFrame(out, columns=used, copy=False)

    def _by_name(self, X: pd.DataFrame) -> pd.DataFrame:
        """The fitted columns of the DataFrame X, found by name in any order.

        As in scikit-learn, a column the model does not read is an error (it may be a label or
        a renamed column), and so is a missing one; both are named.
        """
        fitted = list(self.feature_names_in_)
        present = set(X.columns)
        absent = [c for c in fitted if c not in present]
        if absent:
            shown = ", ".join(map(repr, absent[:10])) + (", …" if len(absent) > 10 else "")
            raise MissingColumnError(
                f"X lacks {len(absent)} column(s) the model was fitted on: {shown}"
            )
        known = set(fitted)
        extra = [c for c in X.columns if c not in known]
        if extra:
            shown = ", ".join(map(repr, extra[:10])) + (", …" if len(extra) > 10 else "")
            raise DataError(
                f"X has {len(extra)} column(s) the model was not fitted on: {shown}; pass "
                "X[clf.feature_names_in_] (the fitted columns, in any order)"
            )
        return X[fitted]

    def apply(self, X: Any) -> np.ndarray:
        """Index of the rule that fires on each sample (``len(rule_list_)`` for the default)."""
        X = self._binary_input(X)
        return self.rule_list_.apply(X)

    def predict(self, X: Any) -> np.ndarray:
        """Predicted classes (the original labels of ``y``).

        A DataFrame ``X`` is read by column name: the columns of ``fit`` in any order (the
        sensitive ones may be there too, and are ignored); a missing column, or one the model
        was not fitted on, is an error naming it. An array is read by position.
        """
        X = self._binary_input(X)
        return self.classes_[self.rule_list_.predict(X).astype(np.intp)]

    def _positive_rates(self) -> np.ndarray:
        """Training positive rate of each rule and of the default.

        A rule that captured no training sample gets its own prediction (0 or 1) as its rate.
        """
        outputs = np.array(
            [r.prediction for r in self.rule_list_.rules] + [self.rule_list_.default], float
        )
        with np.errstate(invalid="ignore", divide="ignore"):
            rates = self._rule_pos / self._rule_n
        return np.where(self._rule_n > 0, rates, outputs)

    def predict_proba(self, X: Any) -> np.ndarray:
        """Class probabilities: the training positive rate of the rule that fires.

        Rows sum to 1; column ``j`` is ``classes_[j]``. These are empirical frequencies, not the
        decision: under a fairness constraint a rule may predict the minority label of the samples
        it captures, so ``predict`` can differ from the argmax of ``predict_proba``.
        """
        fired = self.apply(X)
        p1 = self._positive_rates()[fired]
        return np.column_stack([1.0 - p1, p1])

    def explain(self, X: Any) -> pd.DataFrame:
        """For each sample, the rule that fired: its position, antecedent, prediction and rate.

        Returns a DataFrame (indexed like ``X`` when ``X`` is a DataFrame) with columns
        ``rule`` (position, ``len(rule_list_)`` for the default), ``antecedent`` (``"default"``
        for the default), ``prediction`` (original class) and ``positive_rate``.
        """
        fired = self.apply(X)
        table = self.get_rules()
        out = table.iloc[fired][["antecedent", "prediction", "positive_rate"]].reset_index(
            drop=True
        )
        out.insert(0, "rule", fired)
        if isinstance(X, pd.DataFrame):
            out.index = X.index
        return out

    def get_rules(self, by_group: bool = False) -> pd.DataFrame:
        """One row per rule, then one for the default, with training statistics.

        Columns: ``antecedent``, ``prediction`` (original class), ``n_samples`` (training samples
        the rule captures, i.e. that no earlier rule captured; sums of weights when the fit was
        weighted), ``support`` (that count over all samples), ``positive_rate`` (share of
        ``classes_[1]`` among them; a rule that captured nothing has its prediction's rate).

        ``by_group=True`` gives one row per rule and group instead, with the group's
        ``n_samples`` and ``support`` (its share of that group's samples): who each rule decides
        for, group by group, as an auditor reads a list.
        """
        check_is_fitted(self, "rule_list_")
        rl = self.rule_list_
        antecedents = [r.antecedent for r in rl.rules] + ["default"]
        predictions = [self.classes_[q] for q in [r.prediction for r in rl.rules] + [rl.default]]
        if by_group:
            counts = self._rule_group_n
            share = counts / counts.sum(axis=0, keepdims=True)
            rows = [
                {
                    "rule": r,
                    "antecedent": antecedents[r],
                    "prediction": predictions[r],
                    "group": name,
                    "n_samples": counts[r, g],
                    "support": share[r, g],
                }
                for r in range(len(antecedents))
                for g, name in enumerate(self.group_names_)
            ]
            return pd.DataFrame(rows)
        return pd.DataFrame(
            {
                "antecedent": antecedents,
                "prediction": predictions,
                "n_samples": self._rule_n,
                "support": self._rule_n / self._rule_n.sum(),
                "positive_rate": self._positive_rates(),
            }
        )

    def __str__(self) -> str:
        if not hasattr(self, "rule_list_"):
            return repr(self)
        return str(self.rule_list_)

    # ------------------------------------------------------------------ JSON
    def to_dict(self, metadata: Mapping[str, Any] | None = None) -> dict[str, Any]:
        """The fitted model as a JSON-ready document (see :meth:`save`).

        ``metadata`` (JSON-ready) is stored as is, e.g. how the antecedents were made; a loaded
        model exposes it as ``metadata_``.
        """
        check_is_fitted(self, "rule_list_")
        return model_document(self, metadata)

    def save(self, path: str | Path, metadata: Mapping[str, Any] | None = None) -> None:
        """Write the fitted model as JSON: parameters, rule list, classes, training statistics
        and optional ``metadata`` (see :meth:`to_dict`)."""
        text = dumps(self.to_dict(metadata))
        write_text(path, text + "\n")

    @classmethod
    def from_dict(
        cls, doc: Mapping[str, Any], *, source: str | Path | None = None
    ) -> FairRuleListClassifier:
        """Rebuild a fitted model from :meth:`to_dict`'s document.

        The document is checked against the model schema first
        (:func:`fairlist.model_file.check_model`): every field, the lengths that must agree,
        two classes, a version this fairlist reads. ``source`` names the file in messages.

        Raises
        ------
        ModelFileError
            Naming the file and the JSON path of the first field that breaks the schema.
        """
        doc = check_model(
            doc, source, parameters=PARAMETER_CONSTRAINTS, defaults=cls().get_params()
        )
        return from_model_document(cls, doc)

    @classmethod
    def load(cls, path: str | Path) -> FairRuleListClassifier:
        """Read a model written by :meth:`save` (checked as :meth:`from_dict` does; the
        messages name ``path``)."""
        return cls.from_dict(read_document(path), source=path)

    # ------------------------------------------------------------------ the audit
    def report(
        self,
        X: Any,
        y: Any,
        sensitive_features: Any = None,
        protected: Any = None,
        *,
        X_test: Any = None,
        y_test: Any = None,
        sensitive_features_test: Any = None,
        path: str | Path | None = None,
        **options: Any,
    ) -> str:
        """The audit of the fitted list as one self-contained HTML page, returned (and written
        to ``path``, atomically, when given): the list, what was certified, each group's
        confusion counts and rates with confidence intervals on ``X`` (the training data, as
        ``fit`` took it) and on the held-out ``X_test``, ``y_test`` (with
        ``sensitive_features_test``, which defaults to ``sensitive_features`` when that names
        columns), and whether the cap holds there. ``options`` are
        :func:`fairlist.report.render_report`'s (``sample_weight``, ``front``, ``delta``,
        ``level``, ``title``, ...): the same page as that function's for the same inputs. Needs
        Jinja2 (``pip install 'fairlist[report]'``).

        >>> import numpy as np
        >>> X = np.array([[1, 0], [1, 1], [0, 1], [0, 0], [1, 0], [0, 1]])
        >>> y, s = [1, 1, 0, 0, 1, 0], [1, 1, 1, 0, 0, 0]
        >>> clf = FairRuleListClassifier(lam=0.01, epsilon=0.5).fit(X, y, sensitive_features=s)
        >>> page = clf.report(X, y, s, X_test=X[:4], y_test=y[:4], sensitive_features_test=s[:4])
        >>> page.startswith("<!DOCTYPE html>"), "Certified optimal." in page
        (True, True)
        """
        from .report import render_report  # (matplotlib and Jinja2 load with the first page)

        html = render_report(
            self, X, y, sensitive_features, protected, X_test=X_test, y_test=y_test,
            sensitive_features_test=sensitive_features_test, **options,
        )  # fmt: skip
        if path is not None:
            write_text(path, html)
        return html
