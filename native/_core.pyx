# distutils: language = c++
"""Thin binding to the C++ core: converts arrays, calls one entry point without the GIL."""

import sys

import numpy as np

from libc.stdint cimport int32_t, int64_t, uint8_t, uint32_t, uint64_t
from libc.string cimport memcpy
from libcpp.vector cimport vector

# The C++ declarations come from _core.pxd (this module's own .pxd, so its `cpdef enum`s are
# this module's Python enums: Metric, Policy, SearchStatus, StopReason).


def _metric_table():
    cdef int i, r
    rows = []
    for i in range(kNumMetrics):
        info = kMetricTable[i]
        rates = tuple(kRateNames[r].decode() for r in range(kNumRates) if info.rates & (1U << r))
        rows.append((int(info.metric), info.name.decode(), rates, info.gaps))
    return tuple(rows)


#: The C++ metric table (native/include/fairlist/metric.hpp), one row per measure:
#: ``(value, short name, rates compared, gaps added)``, e.g. ``(5, "EOdds", ("tpr", "fpr"), 2)``.
METRIC_TABLE = _metric_table()


ctypedef fused _flat:
    uint8_t
    uint32_t
    int64_t
    uint64_t
    double


cdef object _take(vector[_flat]* v, object dtype):
    """The contents of *v as a new numpy array of ``dtype``; *v is emptied and freed."""
    cdef size_t n = v.size()
    out = np.empty(n, dtype=dtype)
    cdef _flat[::1] view = out
    if n:
        memcpy(&view[0], v.data(), n * sizeof(_flat))
    cdef vector[_flat] empty
    empty.swap(v[0])
    return out


def pack_matrix(const uint8_t[:, ::1] X):
    """Bit-pack a (n, m) 0/1 matrix column by column into a (m, ceil(n/64)) uint64 array (a
    nonzero byte is a 1).

    Each row is packed by numpy (``packbits``, vectorised) into words over the antecedents, and
    the (n, m) bit matrix is then transposed by 64 x 64 blocks (``transpose_bits``): 0.1 s on
    200,000 x 2,500 where the byte-by-byte ``pack_columns`` took 0.5 s (its reference, kept for
    big-endian machines, on which a row's bytes are not its words' bits in order)."""
    cdef size_t n = X.shape[0], m = X.shape[1]
    cdef size_t nw = words_for(n), mw = words_for(m)
    out = np.zeros((m, nw), dtype=np.uint64)
    cdef uint64_t[:, ::1] view = out
    cdef const uint64_t[:, ::1] rows
    if n and m:
        if sys.byteorder == "little":
            row_bytes = np.zeros((n, mw * 8), dtype=np.uint8)
            row_bytes[:, : (m + 7) // 8] = np.packbits(np.asarray(X), axis=1, bitorder="little")
            rows = row_bytes.view(np.uint64)
            with nogil:
                transpose_bits(&rows[0, 0], n, m, &view[0, 0])
        else:
            with nogil:
                pack_columns(&X[0, 0], n, m, &view[0, 0])
    return out


def pack_bits(const uint8_t[::1] v):
    """Bit-pack a 0/1 vector of length n into ceil(n/64) uint64 words."""
    cdef size_t n = v.shape[0]
    out = np.zeros(words_for(n), dtype=np.uint64)
    cdef uint64_t[::1] view = out
    if n:
        with nogil:
            pack_vector(&v[0], n, &view[0])
    return out


def transpose_packed(const uint64_t[:, ::1] packed, size_t n_bits):
    """The bit-matrix transpose the search's set-up uses (for tests): ``packed`` holds ``r`` rows
    of ``n_bits`` bits (``pack_matrix``'s layout, shape (r, words_for(n_bits))); the result has
    ``n_bits`` rows of ``r`` bits, shape (n_bits, words_for(r))."""
    cdef size_t r = packed.shape[0]
    if r and packed.shape[1] != words_for(n_bits):
        raise ValueError(f"packed rows must have {words_for(n_bits)} words, got {packed.shape[1]}")
    out = np.zeros((n_bits, words_for(r)), dtype=np.uint64)
    cdef uint64_t[:, ::1] view = out
    if r and n_bits:
        with nogil:
            transpose_bits(&packed[0, 0], r, n_bits, &view[0, 0])
    return out


def count_captures(const uint64_t[:, ::1] packed, const uint64_t[::1] mask):
    """Number of samples of ``mask`` that each packed antecedent captures (int64, shape (m,))."""
    cdef size_t m = packed.shape[0], nw = packed.shape[1], j
    if mask.shape[0] != nw:
        raise ValueError(f"mask has {mask.shape[0]} words, the matrix rows have {nw}")
    out = np.zeros(m, dtype=np.int64)
    cdef int64_t[::1] res = out
    if nw:
        with nogil:
            for j in range(m):
                res[j] = count_and(&packed[j, 0], &mask[0], nw)
    return out


def capture_counts(const uint64_t[::1] rule, const uint64_t[::1] free,
                   const uint64_t[:, ::1] masks, str implementation="dispatch"):
    """The search's innermost count, for tests: ``[|x|, |x & masks[0]|, ..., |x & masks[3]|]``
    with ``x = rule & free``. ``implementation``: "dispatch" (what the search uses), "scalar"
    or "avx512" (only where :func:`avx512_popcount` is True)."""
    cdef size_t nw = rule.shape[0], k
    if free.shape[0] != nw or masks.shape[0] != 4 or masks.shape[1] != nw:
        raise ValueError(f"free must have {nw} words and masks shape (4, {nw})")
    if implementation == "avx512" and not has_avx512_popcount():
        raise ValueError("this processor has no AVX-512 VPOPCNTDQ")
    if implementation not in ("dispatch", "scalar", "avx512"):
        raise ValueError(f"unknown implementation {implementation!r}")
    cdef const uint64_t* mask_ptrs[4]
    for k in range(4):
        mask_ptrs[k] = &masks[k, 0] if nw else NULL
    cdef int64_t out[5]
    cdef const uint64_t* r = &rule[0] if nw else NULL
    cdef const uint64_t* f = &free[0] if nw else NULL
    if implementation == "scalar":
        count_captured_scalar(r, f, mask_ptrs, nw, out)
    elif implementation == "avx512":
        count_captured_avx512(r, f, mask_ptrs, nw, out)
    else:
        count_captured(r, f, mask_ptrs, nw, out)
    return [out[k] for k in range(5)]


def avx512_popcount():
    """Whether the search counts with the AVX-512 VPOPCNTDQ instruction on this processor."""
    return bool(has_avx512_popcount())


def _add_stats(dict a, dict b):
    """``fairlist::Stats`` a += b (``result.hpp``) on two stats dicts, for tests: counters are
    summed, peaks maximized, the fields set once kept from ``a``. Every field is required."""
    cdef Stats x = a
    cdef Stats y = b
    return add_stats(x, y)


def _diagnostics_defaults():
    """``fairlist::Diagnostics`` (``config.hpp``) as constructed, as a dict: the defaults of the
    test and diagnostic switches."""
    cdef Diagnostics d = Diagnostics()
    return d


#: The fields of ``fairlist::Diagnostics``: test switches that ``BranchAndBound`` takes in its
#: config dict besides ``fairlist::Config``'s.
DIAGNOSTICS = tuple(_diagnostics_defaults())


cdef class BranchAndBound:
    """One branch-and-bound search (the C++ ``fairlist::Search``).

    Arguments are validated by ``fairlist.solvers.bnb``; this class only converts them.
    ``run`` releases the GIL, so ``progress`` and ``request_stop`` can be called from another
    thread while it runs.

    Parameters
    ----------
    rules : uint64 array, shape (m, words_for(n))
        Bit-packed antecedents (``pack_matrix``).
    labels : uint64 array, shape (words_for(n),)
        Bit-packed labels (``pack_bits``).
    groups : int32 array, shape (n,)
        Group codes ``0 .. n_groups-1`` (two groups: 0 is the protected one).
    weights : int64 array of shape (n,), or None
        Integer sample weights (>= 0, total <= 2**31); None for unit weights.
    n_samples : int
    n_groups : int
    problem : dict
        Every field of ``fairlist::ProblemSpec`` (``_core.pxd``): metric (a :class:`Metric` or
        its value), constrained, epsilon, lam.
    config : dict
        Every field of ``fairlist::Config`` (``_core.pxd``); policy a :class:`Policy` or its
        value. A missing field raises ``ValueError`` naming it. Tests and benchmarks may add
        the fields of ``fairlist::Diagnostics`` (``DIAGNOSTICS``: wide_map_counts,
        canonical_ties, finished_tie_cut, fairest_falling_cap, packed_pair_counts,
        mirrored_pair_rows), which are split off; an absent one keeps its default.
    """

    cdef Search* search
    cdef bint started

    def __cinit__(self, const uint64_t[:, ::1] rules, const uint64_t[::1] labels,
                  const int32_t[::1] groups, const int64_t[::1] weights, size_t n_samples,
                  int n_groups, dict problem, dict config):
        cdef size_t nw = words_for(n_samples)
        if labels.shape[0] != nw:
            raise ValueError(f"labels must have {nw} words for {n_samples} samples")
        if groups.shape[0] != n_samples or (weights is not None and weights.shape[0] != n_samples):
            raise ValueError(f"groups and weights must have {n_samples} entries")
        if rules.shape[0] and rules.shape[1] != nw:
            raise ValueError(f"rules must have {nw} words per antecedent, got {rules.shape[1]}")
        # Dicts to structs: every field is required (a missing one raises ValueError naming it),
        # but the test switches, which keep their C++ defaults unless given.
        cdef ProblemSpec spec = problem
        config = dict(config)
        cdef Diagnostics diagnostics = {**_diagnostics_defaults(),
                                        **{k: config.pop(k) for k in DIAGNOSTICS if k in config}}
        cdef Config c = config
        cdef const uint64_t* rules_ptr = NULL
        cdef const int64_t* weights_ptr = NULL
        if rules.shape[0]:
            rules_ptr = &rules[0, 0]
        if weights is not None:
            weights_ptr = &weights[0]
        self.search = new Search(rules_ptr, &labels[0], &groups[0], weights_ptr, n_samples,
                                 rules.shape[0], n_groups, spec, c, diagnostics)
        self.started = False

    def __dealloc__(self):
        del self.search

    def set_initial(self, antecedents, predictions, int default_prediction):
        """Offer a warm-start rule list; False when it is unfair or outside the space."""
        cdef vector[uint32_t] ants = antecedents
        cdef vector[uint8_t] preds = predictions
        return self.search.set_initial(ants, preds, default_prediction)

    def run(self):
        """Search (without the GIL) and return ``fairlist::SearchResult`` as a dict: status and
        stop_reason as :class:`SearchStatus` and :class:`StopReason`, stats as a dict."""
        if self.started:
            raise RuntimeError("a BranchAndBound search runs only once")
        self.started = True
        cdef SearchResult r
        with nogil:
            r = self.search.run()
        # The Rashomon mode's lists as numpy arrays, each vector freed once copied (not Python
        # lists: their memory is counted in memory_limit_mb, rashomon.hpp).
        lists = {
            "rashomon_rules": _take[uint32_t](&r.rashomon_rules, np.uint32),
            "rashomon_starts": _take[uint64_t](&r.rashomon_starts, np.uint64),
            "rashomon_defaults": _take[uint8_t](&r.rashomon_defaults, np.uint8),
            "rashomon_errors": _take[int64_t](&r.rashomon_errors, np.int64),
            "rashomon_objectives": _take[double](&r.rashomon_objectives, np.float64),
        }
        cdef dict result = r
        result.update(lists)
        return result

    def request_stop(self):
        """Ask the running search to stop at the next node (thread-safe)."""
        self.search.request_stop()

    def progress(self):
        """A snapshot of the running search (thread-safe): ``fairlist::Progress`` as a dict."""
        return self.search.progress()
