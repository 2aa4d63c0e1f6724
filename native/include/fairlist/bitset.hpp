// Bit-packed sample sets: one bit per sample, 64 samples per word.
//
// The hot path of the search is AND / AND-NOT / popcount over these word arrays; everything is
// inline so the compiler can vectorise the loops.  Bits past the last sample are always zero.
#pragma once

#include <cstddef>
#include <cstdint>

namespace fairlist {

using word_t = std::uint64_t;
constexpr std::size_t kWordBits = 64;

inline std::size_t words_for(std::size_t n_bits) { return (n_bits + kWordBits - 1) / kWordBits; }

inline int popcount(word_t w) { return __builtin_popcountll(w); }

// Number of set bits of a.
inline std::int64_t count(const word_t* a, std::size_t n_words) {
    std::int64_t c = 0;
    for (std::size_t i = 0; i < n_words; ++i) c += popcount(a[i]);
    return c;
}

// Number of set bits of a & b.
inline std::int64_t count_and(const word_t* a, const word_t* b, std::size_t n_words) {
    std::int64_t c = 0;
    for (std::size_t i = 0; i < n_words; ++i) c += popcount(a[i] & b[i]);
    return c;
}

// Number of set bits of a & b & c.
inline std::int64_t count_and3(const word_t* a, const word_t* b, const word_t* m,
                               std::size_t n_words) {
    std::int64_t c = 0;
    for (std::size_t i = 0; i < n_words; ++i) c += popcount(a[i] & b[i] & m[i]);
    return c;
}

// Counts of the samples captured by one rule, split by the masks the search needs.
//   out[0] = |x|, out[1] = |x & m1|, ..., out[k] = |x & mk|  with x = rule & free
// where free is the set of samples not captured yet.  One pass over the words; compiled for the
// popcnt instruction where the CPU has it (runtime dispatch), since this is the innermost loop
// of the branch-and-bound.
constexpr int kCaptureMasks = 4;
void count_captured(const word_t* rule, const word_t* free, const word_t* const* masks,
                    std::size_t n_words, std::int64_t out[kCaptureMasks + 1]);

// Packs a row-major (n_rows x n_cols) 0/1 byte matrix column by column:
// out[j * words_for(n_rows) + i / 64] bit (i % 64) is X[i, j].  out must hold
// n_cols * words_for(n_rows) words.
void pack_columns(const std::uint8_t* X, std::size_t n_rows, std::size_t n_cols, word_t* out);

// Packs a 0/1 byte vector of length n into words_for(n) words.
void pack_vector(const std::uint8_t* v, std::size_t n, word_t* out);

}  // namespace fairlist
