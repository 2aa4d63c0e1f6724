# distutils: language = c++
"""Thin binding to the C++ core: converts arrays, calls one entry point without the GIL."""

import numpy as np

from libc.stdint cimport int64_t, uint8_t, uint64_t

from cfairlist cimport count_and, pack_columns, pack_vector, words_for


def pack_matrix(const uint8_t[:, ::1] X):
    """Bit-pack a (n, m) 0/1 matrix column by column into a (m, ceil(n/64)) uint64 array."""
    cdef size_t n = X.shape[0], m = X.shape[1]
    cdef size_t nw = words_for(n)
    out = np.zeros((m, nw), dtype=np.uint64)
    cdef uint64_t[:, ::1] view = out
    if n and m:
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
