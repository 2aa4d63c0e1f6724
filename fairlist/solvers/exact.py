"""Exact arithmetic for the CP-SAT model: reading floats as fractions, the best fraction below a
value with a bounded denominator, and a length cost that orders lists exactly as ``lam`` does
when scaling ``lam`` exactly would overflow 64 bits.
"""

from __future__ import annotations

import math
from fractions import Fraction

#: Every product and linear bound of the model stays below this (well inside int64).
INT_LIMIT = 2**61
_LAM_MAX_DENOMINATOR = 10**9
_LAM_READ_TOL = Fraction(2) ** -50


# ---------------------------------------------------------------------------- exact arithmetic
def floor_fraction(x: Fraction, bound: int) -> Fraction:
    """The largest fraction ``p / q <= x`` with ``1 <= q <= bound`` (Stern–Brocot descent).

    Parameters
    ----------
    x : Fraction
        A non-negative number.
    bound : int
        Largest denominator allowed (>= 1).
    """
    if bound < 1:
        raise ValueError(f"bound must be >= 1, got {bound}")
    if x < 0:
        raise ValueError(f"x must be >= 0, got {x}")
    if x.denominator <= bound:
        return x
    return farey_neighbours(x, bound)[0]


def farey_neighbours(x: Fraction, bound: int) -> tuple[Fraction, Fraction]:
    """``lo <= x < hi``: the fractions nearest ``x`` from below and from above among those of
    denominator at most ``bound`` (``x >= 0`` whose denominator exceeds ``bound``; then
    ``lo < x``, and no fraction of denominator <= ``bound`` lies strictly between them)."""
    a, b = math.floor(x), 1  # lower end a/b <= x
    c, d = a + 1, 1  # upper end c/d > x
    while b + d <= bound:
        if Fraction(a + c, b + d) <= x:
            # Raise the lower end as far as possible: (a + k c) / (b + k d) <= x.
            k = min(math.floor((x * b - a) / (c - x * d)), (bound - b) // d)
            a, b = a + k * c, b + k * d
        else:
            # Lower the upper end: (c + k a) / (d + k b) > x (x != a/b since its denominator
            # exceeds the bound).
            k = min(math.ceil((c - x * d) / (x * b - a)) - 1, (bound - d) // b)
            c, d = c + k * a, d + k * b
    return Fraction(a, b), Fraction(c, d)


def lambda_fraction(lam: float) -> Fraction:
    """``lam`` as an exact fraction: its shortest decimal form (``0.01`` is 1/100), or the
    fraction of denominator at most 10**9 nearest to it when that lies within 2**-50 of it
    (relative; ``1/3`` is 1/3). Never 0 for a positive ``lam``."""
    f = Fraction(repr(float(lam)))
    if f.denominator > _LAM_MAX_DENOMINATOR:
        near = f.limit_denominator(_LAM_MAX_DENOMINATOR)
        if abs(near - f) <= _LAM_READ_TOL * f:
            f = near
    return f


def length_cost(x: Fraction, total: int, max_length: int) -> Fraction:
    """A simple ``c`` such that ``errors + c * length`` orders every pair of lists (errors in
    ``0 .. total``, lengths in ``0 .. max_length``) exactly as ``errors + x * length`` does,
    ties included; ``x`` itself when its denominator is at most ``max_length``.

    Two lists compare by the sign of ``de + x dl`` (``de`` an integer in ``[-total, total]``,
    ``dl`` in ``1 .. max_length``). For ``x > total`` any ``c > total`` gives the same signs
    (length decides): ``total + 1``. Otherwise ``x dl`` is never an integer when x's
    denominator exceeds ``max_length``, and any ``c`` strictly between the Farey neighbours of
    ``x`` of order ``max_length`` has ``floor(c dl) = floor(x dl)`` and no integer ``c dl``
    either: the signs agree. Their mediant is the simplest such ``c`` (denominator at most
    ``2 max_length``).
    """
    if max_length == 0:
        return Fraction(0)  # every list has length 0
    if x > total:
        return Fraction(total + 1)
    if x.denominator <= max_length:
        return x
    lo, hi = farey_neighbours(x, max_length)
    return Fraction(lo.numerator + hi.numerator, lo.denominator + hi.denominator)
