"""The CP-SAT model: an exact OR-Tools model of fair rule lists of bounded length.

Model (``docs/design.md`` §4; :func:`build_model` builds it in the numbered sections below)
----------------------------------------------------------------------------------------------
1. Data
    Samples with the same antecedent bits are captured by the same rule and predicted alike, so
    they are aggregated first into *patterns* ``p`` (distinct rows of ``X``) with integer weights
    ``w[p, g, y]`` = the summed (integer) sample weight of the samples of pattern ``p``, group
    ``g`` (``0 .. G-1``; with two groups 0 is the protected one) and label ``y`` — their number
    without sample weights. ``S[p]`` = the antecedents pattern ``p`` satisfies. ``K`` = the
    maximum length (positions ``k = 0 .. K-1``), ``M`` = number of antecedents, ``W`` = the
    total weight (``N``, the number of samples, without sample weights).

    Sample weights become integers (:func:`integer_weights`) in one of two ways:

    * *exact*: each weight is read as the fraction of denominator <= 10**6 nearest to it, when
      that fraction lies within 2**-50 (relative) of the float: integers, the decimal the user
      wrote (``0.3``, also when computed as ``3 * 0.1``), simple ratios (``1/3``). All are
      multiplied by the lcm of their denominators and divided by the gcd of the results; this
      is used when the total stays <= 2**31. The model is then the weighted problem for these
      fractions, exactly (integer weights are duplicated rows, a weight of 0 a dropped row).
      :meth:`Problem.evaluate` uses the floats, which differ by at most 2**-50 (relative): the
      objectives agree to ~1e-15, and a fairness decision could differ only for a list whose
      unfairness lies within ~1e-14 of ``epsilon + FEASIBILITY_TOL`` — the order of the float
      rounding ``Problem.evaluate`` makes anyway. Statuses are as without weights.
    * *rounded* (any other weights, or a total beyond 2**31): weights are rounded to
      multiples of ``2**-j``, ``j`` the largest that keeps the integer total <= 2**31 (2**24
      for PP and CUAE, whose products of counts grow fast); ``rho`` = the largest relative
      rounding error of a positive weight. The cap is lowered by
      :func:`fairlist.solvers.weights.cap_margin` (section 5), a proven bound on how far any
      list's unfairness on the rounded weights lies from its unfairness on the true ones (the
      argument is in that module's docstring): every list the model accepts is fair for the
      true weights. The model is not the problem any more, so the status is never better than
      ``feasible`` (``unknown`` instead of ``infeasible``); a second solve with the cap
      raised by the margin proves ``infeasible`` or a lower bound when its cap is exact
      (:func:`fairlist.solvers.weights.bound_from_above`), else the lower bound is 0;
      ``stats["weights_exact"]`` is False. When the lowered cap is negative (``epsilon = 0``,
      or a (group, label) cell whose weights all round to 0, as with weights of 2**40 and 1)
      the model accepts no list; whenever the model gives no list or a worse one than a
      constant list fair for the true weights, that constant list is returned, status
      ``feasible`` (``stats["fair_constant"]``). Integer or decimal weights avoid all this.

    The model's size and numbers grow with ``W`` as the unweighted model's grow with ``N``.

2. Variables
    ``use[k, j]``  position ``k`` holds antecedent ``j``;
    ``unused[k]``  position ``k`` holds no rule (the list is shorter than ``k + 1``);
    ``pred[k]``    prediction of the rule at position ``k``; ``default`` the default prediction;
    ``cap[p, k]``  pattern ``p`` is captured by position ``k`` (its first satisfied rule);
    ``cap[p, K]``  pattern ``p`` falls through to the default;
    ``pos[p]``     pattern ``p`` is predicted positive.
    A pattern that satisfies no antecedent (or any pattern when ``K = 0``) always reaches the
    default: it has no ``cap`` variables and ``pos[p]`` is ``default`` itself.

3. Constraints: rule-list structure
    exactly one of ``use[k, :]`` and ``unused[k]``; ``unused[k] => unused[k+1]`` (used positions
    are contiguous); each antecedent used at most once; ``unused[k] => not pred[k]``.

4. Constraints: capture and predictions
    ``sum_k cap[p, k] = 1`` (``k = 0 .. K``); ``cap[p, k] <= sat[p, k]`` and
    ``sat[p, k] <= sum_{k' <= k} cap[p, k']``, where ``sat[p, k] = sum_{j in S[p]} use[k, j]``
    is 0/1 (one antecedent per position). Together: the first satisfied position captures.
    ``cap[p, k] => pos[p] == pred[k]``, ``cap[p, K] => pos[p] == default``.
    Dominance cuts (each removes only lists that a shorter list with the same predictions,
    hence the same fairness and no larger objective, replaces): a used position captures at
    least one pattern (samples of weight 0 are no pattern: they change no count); the last
    rule predicts unlike the default.
    The searched space:

    * full (default): symmetry cut — adjacent rules with the same prediction can swap without
      changing any prediction, so they are kept in increasing antecedent order
      (``index[k]`` = the antecedent at position ``k``, ``M`` when unused; ``same[k]`` =
      positions ``k`` and ``k + 1`` predict alike);
    * majority (``majority_only``): each prediction is a majority label (by weight) of the
      samples its rule (or the default) classifies; ties allow both.

5. Constraints: fairness
    On the per-group confusion counts ``TP[g] = sum_p w[p, g, 1] pos[p]``,
    ``FP[g] = sum_p w[p, g, 0] pos[p]`` (``FN``, ``TN`` follow). The cap ``E = epsilon +
    FEASIBILITY_TOL`` (added in floating point, exactly as :func:`fairlist.metrics.is_fair`
    does, then read as an exact fraction; at most the number of rates, since each gap is at
    most 1; lowered for rounded weights, section 1). A rate with a zero denominator is 0.
    Each rate's gap is its largest minus its smallest value over the groups, which is the
    largest difference of a pair of groups: ``gap <= c`` is ``rate_g - rate_h <= c`` for every
    pair, and a sum of two gaps ``<= E`` is the same for every pair of pairs (one per rate).
    Every pair is multiplied out by its own denominators: an lcm over all ``G`` groups
    overflows 64 bits quickly (COMPAS's six races: the lcm of their label counts is ~7e17).
    With two groups there is one pair, and the constraints are the paper's.

    * Linear caps — SP, PE, EOpp, EOdds: every rate is ``num / den`` with a *constant*
      denominator (group weight, label weight per group). For a pair ``g < h`` with ``D`` the
      lcm of their non-zero denominators, ``D (rate_g - rate_h) = num_g D/den_g - num_h
      D/den_h`` is linear and integral (a zero denominator gives coefficient 0, i.e. rate 0).
      SP, PE, EOpp: ``-floor(E D) <= D (rate_g - rate_h) <= floor(E D)`` — exact. With more
      than two groups each numerator is first a variable ``count[i, g]`` (it enters ``G - 1``
      pairs). EOdds: ``gap[i, g, h] >= |D (rate_g - rate_h)|`` for both rates, in units of
      the lcm of *all* the denominators when it fits in 2**61 (then ``gap_T + gap_F <=
      floor(E D)``), else each in its own pair's units, and for every TPR pair and FPR pair
      ``(L/D_T) gap_T + (L/D_F) gap_F <= floor(E L)``, ``L = lcm(D_T, D_F)`` — exact, unless
      ``L`` exceeds 2**61 (then the coefficients are rounded up: conservative, see below).
    * Ratio caps — PP, CUAE: the denominators are variables. ``zero[i, g] <=> den[i, g] = 0``
      and ``dden[i, g] = den[i, g] + zero[i, g] >= 1``, so that ``num / dden`` is the rate under
      the zero-denominator convention (the numerator is 0 then). Products by
      ``add_multiplication_equality``, for each pair ``g < h``: ``gap[i, g, h] >= |num[i,g]
      dden[i,h] - num[i,h] dden[i,g]|`` with ``prod[i, g, h] = dden[i,g] dden[i,h]``; PP: ``q
      gap <= p prod`` for every pair; CUAE, for every PPV pair ``a`` and NPV pair ``b``: ``q
      (gap_a prod_b + gap_b prod_a) <= p prod_a prod_b`` — where ``p / q`` is the largest
      fraction ``<= E`` whose denominator is at most the largest possible reduced denominator
      ``B`` of an attainable value of the left-hand side over the right. No attainable value
      lies in ``(p/q, E]``, so this is exact. When ``q B`` would overflow 64-bit integers
      (two-group CUAE beyond about 800 samples) ``q`` is capped instead; when a CUAE product
      itself would, each of the two gaps is capped at ``E / 2`` instead.

    A capped ``q``, rounded-up coefficients or ``E / 2`` make the model *conservative* (every
    list it accepts is fair, a few fair ones may be cut): ``stats["epsilon_exact"]`` is False
    and the status is never better than ``feasible``.

6. Objective
    ``errors / W + lam * length`` (``errors`` = the integer weight of the misclassified
    samples) with ``lam = a / b`` read exactly from its shortest decimal representation
    (``0.01`` is ``1/100``; a value with more than 9 significant decimals is approximated with
    denominator <= 10**9): minimise the integer ``b * errors + a * W * length`` (divided by
    their gcd), which orders rule lists exactly as the true objective does, ties included. When
    those coefficients would pass 2**61 (lam 1e-12 or 1e300, or many digits on many samples),
    ``W lam`` is replaced by a small ``c`` that orders every pair of lists alike, ties included
    (:func:`length_cost`: ``W + 1`` when ``lam > 1``, else the mediant of the Farey neighbours
    of ``W lam`` of order ``K``); lower bounds are then corrected by at most ``|c - W lam| K /
    W`` (``stats["lam_model"]`` is ``c / W``). The reported objective is always recomputed by
    :meth:`Problem.evaluate`.

7. Hint (optional)
    :meth:`CPSatModel.add_hint` sets every variable from a rule list put in the canonical form
    the cuts of section 4 keep.

Maximum length
    CP-SAT needs a bound ``K``: ``problem.max_length`` if set, else the ``max_length`` option,
    else the exact bound implied by the best fair constant rule list (objective ``U``, in the
    model's integer weights; a list of ``K`` rules costs at least ``lam K``, so ``K <= U /
    lam``), else ``M`` (antecedents are distinct). ``stats["max_length_source"]`` says which
    one applied.

Solving
    Every CP-SAT solver of this model passes its parameters through :func:`guard_presolve`,
    which switches off a CP-SAT presolve step that drops feasible lists from rows whose
    coefficients pass 2**31 (the fairness rows of section 5 with exact sample weights): without
    it CP-SAT certified wrong optima.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

import numpy as np
from ortools.sat.python import cp_model

from ..errors import InvalidParameterError
from ..rulelist import RuleList
from .base import (
    Problem,
)
from .cpsat_data import ModelData, ModelVariables, integer_weights, new_variables
from .cpsat_fairness import add_fairness_cap, fairness_cap, weight_margin
from .exact import INT_LIMIT, lambda_fraction, length_cost
from .runtime import NO_DEADLINE, Deadline


# ---------------------------------------------------------------------------- 3. structure
def _add_structure(model: cp_model.CpModel, data: ModelData, x: ModelVariables) -> None:
    K, m = data.max_length, data.n_antecedents
    for k in range(K):
        model.add_exactly_one([x.use[k, j] for j in range(m)] + [x.unused[k]])
        model.add_implication(x.unused[k], ~x.pred[k])  # symmetry: unused positions predict 0
        if k + 1 < K:
            model.add_implication(x.unused[k], x.unused[k + 1])  # used positions are contiguous
    for j in range(m):
        model.add_at_most_one([x.use[k, j] for k in range(K)])  # no antecedent twice


# ---------------------------------------------------------------------------- 4. capture
def _add_capture(
    model: cp_model.CpModel, data: ModelData, x: ModelVariables, deadline: Deadline = NO_DEADLINE
) -> None:
    K = data.max_length
    for p in range(data.n_patterns):
        deadline.check("capture constraints", p)
        if not data.reaches_rules(p):
            continue
        model.add_exactly_one([x.cap[p, k] for k in range(K + 1)])
        for k in range(K):
            sat = cp_model.LinearExpr.sum([x.use[k, j] for j in data.sat_sets[p]])
            model.add(x.cap[p, k] <= sat)  # captured only where satisfied
            # the first satisfied position captures
            model.add(sat <= sum(x.cap[p, kk] for kk in range(k + 1)))
            model.add(x.pos[p] == x.pred[k]).only_enforce_if(x.cap[p, k])
        model.add(x.pos[p] == x.default).only_enforce_if(x.cap[p, K])


def _add_dominance_cuts(
    model: cp_model.CpModel, data: ModelData, x: ModelVariables, every_list: bool = False
) -> None:
    """``every_list`` (the Rashomon set, fairlist.rashomon): only the first cut, which is part
    of the set's definition; the second drops lists that may lie within its delta."""
    K = data.max_length
    for k in range(K):
        # a used rule captures something
        captures = [x.cap[p, k] for p in range(data.n_patterns) if data.reaches_rules(p)]
        model.add(cp_model.LinearExpr.sum(captures) >= 1).only_enforce_if(~x.unused[k])
        if every_list:
            continue
        # the last rule predicts unlike the default (else drop it)
        last = [~x.unused[k]] + ([x.unused[k + 1]] if k + 1 < K else [])
        model.add(x.pred[k] != x.default).only_enforce_if(last)


def _add_majority_labels(model: cp_model.CpModel, data: ModelData, x: ModelVariables) -> None:
    """Majority space: the captured samples' label balance decides the allowed predictions."""
    K, n_patterns = data.max_length, data.n_patterns
    balance = [
        int(data.weights[p, :, 1].sum() - data.weights[p, :, 0].sum()) for p in range(n_patterns)
    ]
    for k in range(K + 1):
        caught = [p for p in range(n_patterns) if (p, k) in x.cap]
        margin = cp_model.LinearExpr.weighted_sum(
            [x.cap[p, k] for p in caught], [balance[p] for p in caught]
        )
        if k == K:  # the default also classifies the patterns that satisfy nothing
            margin += sum(balance[p] for p in range(n_patterns) if not data.reaches_rules(p))
        label = x.default if k == K else x.pred[k]
        model.add(margin >= 0).only_enforce_if(label)
        model.add(margin <= 0).only_enforce_if(~label)


def _add_order_symmetry(model: cp_model.CpModel, data: ModelData, x: ModelVariables) -> None:
    """Full space: adjacent rules with the same prediction come in increasing antecedent order.

    They can swap without changing any prediction. (Not valid in the majority space: a swap
    changes which samples each rule captures.)
    """
    K, m = data.max_length, data.n_antecedents
    # index[k]: the antecedent at position k (m when unused)
    index = {k: model.new_int_var(0, m, f"index[{k}]") for k in range(K)}
    for k in range(K):
        model.add(index[k] == sum(j * x.use[k, j] for j in range(m)) + m * x.unused[k])
    for k in range(K - 1):
        # same[k]: positions k and k + 1 predict alike
        same = model.new_bool_var(f"same[{k}]")
        model.add(x.pred[k] == x.pred[k + 1]).only_enforce_if(same)
        model.add(x.pred[k] != x.pred[k + 1]).only_enforce_if(~same)
        model.add(index[k] < index[k + 1]).only_enforce_if([same, ~x.unused[k + 1]])


# ---------------------------------------------------------------------------- 6. objective
@dataclass(frozen=True)
class Objective:
    """Section 6: the model minimises ``err_coef * errors + len_coef * length``."""

    errors: cp_model.LinearExpr  # integer weight of the misclassified samples
    err_coef: int
    len_coef: int
    scale: int  # objective / scale = errors / W + lam * length (lam_model * length if scaled)
    lam: Fraction  # the length penalty as read by lambda_fraction
    # lam_model - lam (0: the model's objective is the problem's, scaled): see length_cost
    lam_shift: Fraction = Fraction(0)
    max_length: int = 0

    @property
    def exact(self) -> bool:
        """Whether objective / scale is the problem's objective (else only its order is)."""
        return self.lam_shift == 0

    def lower_bound(self, model_bound: float) -> float:
        """A lower bound on the problem's objective from one on the model's."""
        return model_bound / self.scale - float(max(self.lam_shift, 0) * self.max_length)

    def slack(self) -> float:
        """The most ``objective / scale`` can differ from the problem's objective."""
        slack = abs(self.lam_shift) * self.max_length
        return float(slack) if slack < 2**1000 else math.inf  # lam near 1e308: no float


def _add_objective(
    model: cp_model.CpModel, data: ModelData, x: ModelVariables, lam_value: float
) -> Objective:
    lam = lambda_fraction(lam_value)
    n = data.total_weight
    n_err = data.weights[:, :, :].sum(axis=1)  # (P, 2): weight per pattern and label
    # sum_p n1[p] (1 - pos[p]) + n0[p] pos[p]; patterns sharing a pos variable (the default)
    # are merged by CP-SAT
    errors = cp_model.LinearExpr.weighted_sum(
        [x.pos[p] for p in range(data.n_patterns)], (n_err[:, 0] - n_err[:, 1]).tolist()
    ) + int(n_err[:, 1].sum())
    length = data.max_length - sum(x.unused.values())
    K = data.max_length
    cost = lam * n  # errors + cost * length is n times the objective
    if cost.denominator * n + cost.numerator * K > INT_LIMIT:
        # too many digits (lam 1e-12, 0.1234567890123) or too large (1e300) for 64 bits: an
        # equivalent cost, exact in its order of the lists (see length_cost)
        cost = length_cost(cost, n, K)
    err_coef, len_coef = cost.denominator, cost.numerator
    if err_coef * n + len_coef * K > INT_LIMIT:
        raise InvalidParameterError(
            f"max_length {K} with a total weight of {n} overflows CP-SAT's 64-bit objective "
            f"(lam={lam_value!r}); lower max_length"
        )
    model.minimize(err_coef * errors + len_coef * length)
    return Objective(errors, err_coef, len_coef, n * err_coef, lam, cost / n - lam, K)


# ---------------------------------------------------------------------------- solving it
#: Whether :func:`guard_presolve` switches off CP-SAT's presolve step that drops solutions (for
#: benchmarks/bench_cpsat_presolve.py, which measures what the guard costs; never turn it off to
#: solve: the optimum can then be wrong).
PRESOLVE_GUARD = True


def guard_presolve(params: Any) -> None:
    """Switch off the CP-SAT presolve step that cuts feasible rule lists (OR-Tools 9.15).

    CP-SAT's ``ProcessAtMostOneAndLinear`` extracts enforcement literals from a linear
    constraint and then removes those it finds make the constraint trivial
    (``ActivityBoundHelper::RemoveEnforcementThatMakesConstraintTrivial``, rule ``linear + amo:
    removed enforcement literal``). Its activity bounds can come out wrong, as reported in
    google/or-tools issue 5293 (Boolean terms whose coefficients sum to more than 2**31 wrap a
    32-bit ``int``) and pull request 5294 (a loop that breaks early leaves an empty interval,
    "included" in any right-hand side). ``enf => row`` then becomes ``row``: every list with
    ``enf`` false that breaks the row is lost, and CP-SAT proves a wrong optimum. Seen here:
    that rule fires only in the failing solves, halving the coefficients or this switch makes
    them right, and presolve off agrees with brute force.

    This model writes such rows whenever the pair lcm ``D`` of a fairness cap (section 5) passes
    2**31: each group's counts enter ``D (rate_g - rate_h)`` with coefficients summing to ``D``.
    Exact sample weights make ``D`` a product of two group weights (4-decimal weights on 30
    rows: ``D`` = 1.2e10, coefficients to 4.0e9; CP-SAT said ``optimal`` 0.3203, brute force
    finds 0.2718), and so can two unweighted groups whose sizes' lcm passes 2**31 (coprime
    sizes of about 46,000 each); the Rashomon set's objective row can too.
    ``presolve_inclusion_work_limit = 0`` is the switch CP-SAT reads before running that step
    (it also skips the inclusion detections): the model is then solved as written, exactly.
    Its cost is measured by ``benchmarks/bench_cpsat_presolve.py``.
    """
    if PRESOLVE_GUARD:
        params.presolve_inclusion_work_limit = 0


# ---------------------------------------------------------------------------- the model
@dataclass
class CPSatModel:
    """A built model: the CP-SAT model, its data and variables; adds a hint, reads a solution."""

    model: cp_model.CpModel
    data: ModelData
    variables: ModelVariables
    objective: Objective
    epsilon_exact: bool  # False when the fairness cap had to be made conservative
    majority_only: bool
    feature_names: list[str]  # the problem's, to map a hint's antecedents to columns
    stats: dict[str, Any] = field(default_factory=dict)

    @property
    def max_length(self) -> int:
        return self.data.max_length

    @property
    def exact(self) -> bool:
        """Whether the model is the problem itself: exact cap and exact sample weights, so that
        its optimum (or infeasibility) is the problem's."""
        return self.epsilon_exact and self.data.sample_weights.exact

    def add_hint(self, rule_list: RuleList) -> bool:
        """Hint every variable from ``rule_list`` (a complete assignment); True if it fits.

        The list is first put in the canonical form the model's cuts keep (see
        :func:`canonical_rules`): the same predictions, never a longer list. A list that names
        an antecedent the problem lacks, or that is still longer than K, is not hinted and the
        model is left as it was; otherwise this hint replaces any earlier one.
        """
        try:
            idx = rule_list.antecedent_indices(self.feature_names)
        except ValueError:
            return False
        preds = [r.prediction for r in rule_list.rules]
        rules = canonical_rules(
            list(zip(idx, preds, strict=True)),
            rule_list.default,
            self.data.patterns,
            self.majority_only,
        )
        if len(rules) > self.max_length:
            return False
        self.model.clear_hints()
        self._hint([j for j, _ in rules], [q for _, q in rules], rule_list.default)
        self.stats["hinted"] = True
        return True

    def _hint(self, idx: list[int], preds: list[int], dflt: int) -> None:
        data, x, K = self.data, self.variables, self.max_length
        for k in range(K):
            for j in range(data.n_antecedents):
                self.model.add_hint(x.use[k, j], k < len(idx) and idx[k] == j)
            self.model.add_hint(x.unused[k], k >= len(idx))
            self.model.add_hint(x.pred[k], k < len(idx) and bool(preds[k]))
        self.model.add_hint(x.default, bool(dflt))
        for p in range(data.n_patterns):
            if not data.reaches_rules(p):
                continue
            first = next((k for k, j in enumerate(idx) if data.patterns[p, j]), K)
            for k in range(K + 1):
                self.model.add_hint(x.cap[p, k], k == first)
            self.model.add_hint(x.pos[p], bool(preds[first]) if first < len(idx) else bool(dflt))

    def read(self, solver: cp_model.CpSolver) -> tuple[list[int], list[int], int]:
        """Antecedent indices, predictions and default of the solver's current solution."""
        antecedents, predictions = [], []
        for k in range(self.max_length):
            if solver.boolean_value(self.variables.unused[k]):
                break
            j = next(
                j
                for j in range(self.data.n_antecedents)
                if solver.boolean_value(self.variables.use[k, j])
            )
            antecedents.append(j)
            predictions.append(int(solver.boolean_value(self.variables.pred[k])))
        return antecedents, predictions, int(solver.boolean_value(self.variables.default))


def canonical_rules(
    rules: list[tuple[int, int]], default: int, patterns: np.ndarray, majority_only: bool
) -> list[tuple[int, int]]:
    """``rules`` ((antecedent, prediction) pairs) in the form the model's cuts keep.

    Repeated until nothing changes: in the full space, runs of rules with the same prediction
    are sorted by antecedent; rules that capture no pattern are dropped, and so are last rules
    that predict like ``default``. The predictions are unchanged and the list never grows.
    """
    while True:
        before = list(rules)
        if not majority_only:
            runs: list[list[tuple[int, int]]] = []
            for rule in rules:
                if runs and runs[-1][-1][1] == rule[1]:
                    runs[-1].append(rule)
                else:
                    runs.append([rule])
            rules = [r for run in runs for r in sorted(run)]
        free = np.ones(len(patterns), dtype=bool)
        kept = []
        for j, q in rules:
            hit = free & (patterns[:, j] == 1)
            if hit.any():
                kept.append((j, q))
            free &= ~hit
        while kept and kept[-1][1] == default:
            kept.pop()
        rules = kept
        if rules == before:
            return rules


def build_model(
    problem: Problem,
    max_length: int,
    hint: RuleList | None = None,
    majority_only: bool = False,
    deadline: Deadline = NO_DEADLINE,
    every_list: bool = False,
) -> CPSatModel:
    """The CP-SAT model of ``problem`` restricted to rule lists of length <= ``max_length``.

    ``majority_only`` restricts every prediction to a majority label of the samples it
    classifies (ties allow both), as the branch-and-bound's ``majority_only`` does.
    ``every_list`` keeps every list of the space that the Rashomon set holds (each rule
    capturing a pattern): without the cuts that drop a list for an equivalent or shorter one
    (the last rule predicting like the default, the order of adjacent rules). The
    sections are those of the module docstring. Raises :class:`ModelBuildTimeout` once
    ``deadline`` has passed (checked between sections and inside the loops over patterns).
    """
    # 1. Data
    data = ModelData.of(problem, max_length, deadline)
    deadline.check("data")
    model = cp_model.CpModel()
    # 2. Variables
    x = new_variables(model, data, deadline)
    # 3. Constraints: rule-list structure
    _add_structure(model, data, x)
    # 4. Constraints: capture and predictions, dominance cuts, the searched space
    _add_capture(model, data, x, deadline)
    deadline.check("dominance cuts")
    _add_dominance_cuts(model, data, x, every_list)
    deadline.check("search space")
    if majority_only:
        _add_majority_labels(model, data, x)
    elif not every_list:
        _add_order_symmetry(model, data, x)
    # 5. Constraints: fairness
    deadline.check("fairness")
    cap_e = fairness_cap(problem, data.sample_weights)
    epsilon_exact = add_fairness_cap(model, data, x, problem.metric, cap_e)
    # 6. Objective
    deadline.check("objective")
    objective = _add_objective(model, data, x, problem.lam)
    deadline.check("objective")

    proto = model.proto
    stats = {
        "n_groups": data.n_groups,
        "n_patterns": data.n_patterns,
        "n_points": int(np.count_nonzero(data.weights)),
        "n_variables": len(proto.variables),
        "n_constraints": len(proto.constraints),
        "hinted": False,
        "weights_exact": data.sample_weights.exact,
        "weight_scale": str(data.sample_weights.scale),
        "weight_rounding": str(data.sample_weights.rho),
        "weight_margin": weight_margin(problem, data.sample_weights),
        "weight_error_ratio": data.sample_weights.error_ratio,
        "epsilon_model": None if cap_e is None else str(cap_e),
    }
    built = CPSatModel(
        model,
        data,
        x,
        objective,
        epsilon_exact,
        bool(majority_only),
        list(problem.feature_names),
        stats,
    )
    # 7. Hint
    if hint is not None:
        built.add_hint(hint)
    return built


def _best_constant_objective(problem: Problem) -> Fraction | None:
    """errors / W of the best fair constant rule list (no rules), None if neither is fair.

    Errors and W are the model's integer weights (:func:`integer_weights`).
    """
    weights = integer_weights(problem)
    positive = int(weights.values[problem.y == 1].sum())
    errors = {0: positive, 1: weights.total - positive}  # predict 0: the positives are wrong
    fair = [
        q
        for q in (0, 1)
        if problem.evaluate(RuleList((), q, problem.labels, problem.feature_names)).fair
    ]
    return min((Fraction(errors[q], weights.total) for q in fair), default=None)


def resolve_max_length(problem: Problem, max_length: int | None) -> tuple[int, str]:
    """The length bound K of the model and where it came from (see the module docstring)."""
    m = problem.n_antecedents
    if problem.max_length is not None:
        return min(problem.max_length, m), "problem"
    if max_length is not None:
        return min(int(max_length), m), "option"
    if problem.lam > 0:
        upper = _best_constant_objective(problem)
        if upper is not None:
            return min(m, math.floor(upper / lambda_fraction(problem.lam))), "lambda_bound"
    return m, "n_antecedents"
