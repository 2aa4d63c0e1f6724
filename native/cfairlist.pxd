# The contract between Python and the C++ core: declarations only.
from libc.stdint cimport int64_t, uint8_t, uint64_t


cdef extern from "fairlist/bitset.hpp" namespace "fairlist" nogil:
    ctypedef uint64_t word_t
    size_t words_for(size_t n_bits)
    # set bits of a (n_words words)
    int64_t count(const word_t* a, size_t n_words)
    # set bits of a & b
    int64_t count_and(const word_t* a, const word_t* b, size_t n_words)
    # X: row-major n_rows x n_cols bytes -> out: n_cols x words_for(n_rows) words
    void pack_columns(const uint8_t* X, size_t n_rows, size_t n_cols, word_t* out) except +
    # v: n bytes -> out: words_for(n) words
    void pack_vector(const uint8_t* v, size_t n, word_t* out) except +
