# distutils: language = c++
"""The fairness lower bound of DESIGN.md §3, exposed alone for tests and benchmarks.

The engine calls the C++ functions directly; this module only converts tuples of counts.
"""

from libc.stdint cimport int64_t

from time import perf_counter


cdef extern from "fairlist/fairness_bound.hpp" namespace "fairlist" nogil:
    cdef enum class Metric(int):
        SP
        PP
        PE
        EOPP
        EODDS
        CUAE

    cdef struct GroupConfusion:
        int64_t tp  # true positives
        int64_t fp  # false positives
        int64_t tn  # true negatives
        int64_t fn  # false negatives

    cdef struct Uncaptured:
        int64_t pos  # uncaptured samples with label 1
        int64_t neg  # uncaptured samples with label 0

    cdef struct FairnessBound:
        bint feasible  # some completion meets epsilon
        int64_t min_errors  # minimum errors on the uncaptured samples (if feasible)

    double c_unfairness "fairlist::unfairness"(
        Metric m, const GroupConfusion& prot, const GroupConfusion& unprot)
    FairnessBound c_fairness_lower_bound "fairlist::fairness_lower_bound"(
        Metric m, double epsilon, const GroupConfusion& fixed_prot,
        const GroupConfusion& fixed_unprot, const Uncaptured& u_prot,
        const Uncaptured& u_unprot)


cdef Metric _metric(int metric) except *:
    if metric < 1 or metric > 6:
        raise ValueError(f"metric={metric!r} must be an integer in 1..6 (fairlist.metrics.Metric)")
    return <Metric>metric


cdef GroupConfusion _group(name, counts) except *:
    cdef GroupConfusion g
    if len(counts) != 4:
        raise ValueError(f"{name} must be a (tp, fp, tn, fn) tuple, got {counts!r}")
    g.tp, g.fp, g.tn, g.fn = [int(c) for c in counts]
    if g.tp < 0 or g.fp < 0 or g.tn < 0 or g.fn < 0:
        raise ValueError(f"{name} must hold non-negative counts, got {counts!r}")
    return g


cdef Uncaptured _uncaptured(name, counts) except *:
    cdef Uncaptured u
    if len(counts) != 2:
        raise ValueError(f"{name} must be a (pos, neg) tuple, got {counts!r}")
    u.pos, u.neg = [int(c) for c in counts]
    if u.pos < 0 or u.neg < 0:
        raise ValueError(f"{name} must hold non-negative counts, got {counts!r}")
    return u


def unfairness(int metric, prot_counts, unprot_counts):
    """Unfairness of complete per-group counts ``(tp, fp, tn, fn)``, computed in C++."""
    cdef Metric m = _metric(metric)
    cdef GroupConfusion p = _group("prot_counts", prot_counts)
    cdef GroupConfusion u = _group("unprot_counts", unprot_counts)
    return c_unfairness(m, p, u)


def fairness_lower_bound(int metric, double epsilon, fixed_prot, fixed_unprot, u_prot, u_unprot):
    """Exact minimum errors on the uncaptured samples over fair completions.

    Parameters
    ----------
    metric : int
        A ``fairlist.metrics.Metric`` value.
    epsilon : float
        The unfairness cap (``>= 0``).
    fixed_prot, fixed_unprot : tuple of int
        ``(tp, fp, tn, fn)`` of the captured samples of the protected / unprotected group.
    u_prot, u_unprot : tuple of int
        ``(pos, neg)``: uncaptured samples of each group by true label.

    Returns
    -------
    (feasible, min_errors) : (bool, int)
        ``min_errors`` is meaningful only when ``feasible``.
    """
    if not epsilon >= 0:
        raise ValueError(f"epsilon={epsilon!r} must be >= 0")
    cdef Metric m = _metric(metric)
    cdef GroupConfusion fp_ = _group("fixed_prot", fixed_prot)
    cdef GroupConfusion fu = _group("fixed_unprot", fixed_unprot)
    cdef Uncaptured up = _uncaptured("u_prot", u_prot)
    cdef Uncaptured uu = _uncaptured("u_unprot", u_unprot)
    cdef FairnessBound r
    with nogil:
        r = c_fairness_lower_bound(m, epsilon, fp_, fu, up, uu)
    return bool(r.feasible), int(r.min_errors) if r.feasible else -1


def time_bound(int metric, double epsilon, fixed_prot, fixed_unprot, u_prot, u_unprot,
               long repeats):
    """Call the bound ``repeats`` times in C++ without the GIL and return the seconds per call
    (the function lives in another translation unit, so the calls are not hoisted)."""
    cdef Metric m = _metric(metric)
    cdef GroupConfusion fp_ = _group("fixed_prot", fixed_prot)
    cdef GroupConfusion fu = _group("fixed_unprot", fixed_unprot)
    cdef Uncaptured up = _uncaptured("u_prot", u_prot)
    cdef Uncaptured uu = _uncaptured("u_unprot", u_unprot)
    cdef FairnessBound r
    cdef long i
    cdef double t0, t1
    if repeats < 1:
        raise ValueError(f"repeats={repeats!r} must be >= 1")
    t0 = perf_counter()
    with nogil:
        for i in range(repeats):
            r = c_fairness_lower_bound(m, epsilon, fp_, fu, up, uu)
    t1 = perf_counter()
    return (t1 - t0) / repeats
