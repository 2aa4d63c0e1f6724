"""Sample weights as the integers an exact engine counts with (both engines use this).

* *exact* (:func:`exact_weights`): each weight is read as the fraction of denominator at most
  10**6 nearest to it when that fraction lies within 2**-50 (relative) of the float — integers,
  the decimals a user writes (``0.3``, also when computed as ``3 * 0.1``), simple ratios
  (``1/3``); all are multiplied by the least common multiple of the denominators and divided by
  the greatest common divisor of the results. Used when the integer total stays within the
  engine's limit: the engine then solves the weighted problem for these fractions exactly.
* *rounded* (:func:`rounded_weights`): otherwise, the weights are rounded to multiples of
  ``2**-j``, ``j`` the largest that keeps the integer total within a limit, and ``rho`` is the
  largest relative rounding error of a positive weight; each engine turns ``rho`` into a proven
  margin on its fairness cap (see its module docstring).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

__all__ = ["WEIGHT_LIMIT", "IntegerWeights", "exact_weights", "rounded_weights"]

#: The integer weights add up to at most this: 32-bit counts in the branch-and-bound's trie and
#: map, and the CP-SAT model's coefficients.
WEIGHT_LIMIT = 2**31
_MAX_DENOMINATOR = 10**6
_READ_TOL = 2.0**-50  # a weight is read as a fraction this close to it (relative)


@dataclass(frozen=True)
class IntegerWeights:
    """``values[i] / scale`` is sample ``i``'s weight: exactly when ``exact`` (the fraction its
    float is read as), else within a relative error of ``rho`` (``values[i]`` is 0 only for a
    weight of 0, unless ``rho`` is 1)."""

    values: np.ndarray  # (n,) int64
    scale: Fraction  # integer units per unit of weight
    exact: bool
    rho: Fraction  # largest relative error |values[i] / scale - w[i]| / w[i]; 0 when exact

    @property
    def total(self) -> int:
        return int(self.values.sum())


def _fraction(w: float) -> Fraction | None:
    """The fraction of denominator <= 10**6 nearest to ``w`` if it lies within 2**-50 of it
    (relative), else None."""
    exact = Fraction(w)
    f = exact.limit_denominator(_MAX_DENOMINATOR)
    return f if abs(f - exact) <= _READ_TOL * exact else None


def exact_weights(w: np.ndarray, limit: int = WEIGHT_LIMIT) -> IntegerWeights | None:
    """The weights ``w`` (>= 0) read as exact fractions, scaled to the smallest integers; None
    when one is no simple fraction or their integer total exceeds ``limit``. Equal weights
    (1e-300 each, say) are exactly unit weights scaled."""
    distinct, inverse = np.unique(w, return_inverse=True)
    if len(distinct) == 1 and distinct[0] > 0 and len(w) <= limit:
        return IntegerWeights(np.ones(len(w), np.int64), 1 / Fraction(float(distinct[0])),
                              True, Fraction(0))  # fmt: skip
    inverse = inverse.ravel()
    fractions = []
    for v in distinct:  # stops at the first weight that is no simple fraction
        f = _fraction(float(v))
        if f is None:
            return None
        fractions.append(f)
    den = math.lcm(*(f.denominator for f in fractions))
    ints = [int(f * den) for f in fractions]
    common = math.gcd(*ints) or 1
    counts = np.bincount(inverse, minlength=len(distinct))
    if sum(v // common * int(c) for v, c in zip(ints, counts, strict=True)) > limit:
        return None
    values = np.array([v // common for v in ints], dtype=np.int64)[inverse]
    return IntegerWeights(values, Fraction(den, common), True, Fraction(0))


def rounded_weights(w: np.ndarray, limit: int) -> IntegerWeights:
    """The weights ``w`` (>= 0, not all 0) rounded to multiples of 2**-j, j the largest keeping
    their integer total <= ``limit``, with the largest relative error ``rho``.

    They are first divided by the largest (the problem does not change when every weight is
    multiplied by one number), so that weights of 1e300 or 1e-300 round as 1 does; that
    division's own rounding (2**-53, relative) is added to ``rho``."""
    top = float(w.max())
    w = w / top
    j = math.floor(math.log2(limit / (float(w.sum()) + len(w))))
    while np.rint(np.ldexp(w, j)).sum() > limit:  # rarely more than once
        j -= 1
    x = np.ldexp(w, j)  # exact: a power-of-two scaling
    rounded = np.rint(x)
    positive = x > 0
    # |rint(x) - x| is exact and the division rounds once: bumped to a sure upper bound
    errors = np.abs(rounded[positive] - x[positive]) / x[positive]
    rho = min(Fraction(1), Fraction(float(errors.max()) * (1 + 1e-12)) + Fraction(2) ** -52)
    values = rounded.astype(np.int64)
    common = math.gcd(*np.unique(values).tolist()) or 1
    return IntegerWeights(values // common, Fraction(2) ** j / common / Fraction(top), False, rho)
