# distutils: language = c++
"""The fairness lower bound of docs/design.md §3, exposed alone for tests and benchmarks: the exact
two-group one and the real-valued one over k groups (``group_*``).

The engine calls the C++ functions directly; this module only converts tuples of counts.
"""

from libc.stdint cimport int64_t

from time import perf_counter

# Declarations only (_core.pxd is the one contract with the C++ core); nothing of _core is
# imported at run time.
from _core cimport (
    FairnessBound,
    Fixed,
    GroupConfusion,
    Metric,
    Uncaptured,
    fairness_lower_bound as c_fairness_lower_bound,
    group_fairness_lower_bound as c_group_fairness_lower_bound,
    kMaxGroups,
    unfairness as c_unfairness,
)


cdef Metric _metric(int metric) except *:
    # The C++ enum is contiguous from SP to CUAE (metric.hpp).
    if metric < <int>Metric.SP or metric > <int>Metric.CUAE:
        raise ValueError(
            f"metric={metric!r} must be an integer in {<int>Metric.SP}..{<int>Metric.CUAE} "
            "(fairlist.metrics.Metric)"
        )
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


cdef Fixed _groups(name, counts) except *:
    counts = list(counts)
    if not 2 <= len(counts) <= kMaxGroups:
        raise ValueError(f"{name} must hold 2..{kMaxGroups} groups, got {len(counts)}")
    cdef Fixed f = Fixed(len(counts))
    cdef int g
    for g in range(len(counts)):
        f.g[g] = _group(f"{name}[{g}]", counts[g])
    return f


def group_unfairness(int metric, counts):
    """Unfairness of complete counts ``(tp, fp, tn, fn)`` of k groups, computed in C++ (each
    rate's gap is its largest minus its smallest value)."""
    cdef Metric m = _metric(metric)
    cdef Fixed f = _groups("counts", counts)
    return c_unfairness(m, f)


def group_fairness_lower_bound(int metric, double epsilon, fixed, uncaptured):
    """Lower bound on the errors of the uncaptured samples over fair completions, k groups.

    The relaxation of :func:`fairness_lower_bound` over every group, with real-valued
    completions (``native/src/fairness_bound_groups.cpp``): a valid bound, exact for that
    relaxation except for CUAE.

    Parameters
    ----------
    fixed : sequence of (tp, fp, tn, fn)
        Counts of the captured samples of each group.
    uncaptured : sequence of (pos, neg)
        Uncaptured samples of each group by true label (as many as ``fixed``).

    Returns
    -------
    (feasible, min_errors) : (bool, int)
    """
    if not epsilon >= 0:
        raise ValueError(f"epsilon={epsilon!r} must be >= 0")
    cdef Metric m = _metric(metric)
    cdef Fixed f = _groups("fixed", fixed)
    uncaptured = list(uncaptured)
    if len(uncaptured) != f.k:
        raise ValueError(f"uncaptured has {len(uncaptured)} groups, fixed has {f.k}")
    cdef Uncaptured u[64]
    cdef int g
    for g in range(f.k):
        u[g] = _uncaptured(f"uncaptured[{g}]", uncaptured[g])
    cdef FairnessBound r
    with nogil:
        r = c_group_fairness_lower_bound(m, epsilon, f, u)
    return bool(r.feasible), int(r.min_errors) if r.feasible else -1


def time_group_bound(int metric, double epsilon, fixed, uncaptured, long repeats):
    """Seconds per call of :func:`group_fairness_lower_bound` (``repeats`` calls in C++)."""
    cdef Metric m = _metric(metric)
    cdef Fixed f = _groups("fixed", fixed)
    cdef Uncaptured u[64]
    cdef int g
    for g in range(f.k):
        u[g] = _uncaptured(f"uncaptured[{g}]", uncaptured[g])
    cdef FairnessBound r
    cdef long i
    cdef double t0, t1
    if repeats < 1:
        raise ValueError(f"repeats={repeats!r} must be >= 1")
    t0 = perf_counter()
    with nogil:
        for i in range(repeats):
            r = c_group_fairness_lower_bound(m, epsilon, f, u)
    t1 = perf_counter()
    return (t1 - t0) / repeats
