// Bit-packed sample sets: one bit per sample, 64 samples per word.
//
// The hot path of the search is AND / AND-NOT / popcount over these word arrays; everything is
// inline so the compiler can vectorise the loops.  Bits past the last sample are always zero.
#pragma once

#include <cstddef>
#include <cstdint>

#include "fairlist/portable.hpp"

namespace fairlist {

using word_t = std::uint64_t;
constexpr std::size_t kWordBits = 64;

inline std::size_t words_for(std::size_t n_bits) { return (n_bits + kWordBits - 1) / kWordBits; }

inline int popcount(word_t w) { return portable::popcount64(w); }

// Number of set bits of a & b.
inline std::int64_t count_and(const word_t* a, const word_t* b, std::size_t n_words) {
    std::int64_t c = 0;
    for (std::size_t i = 0; i < n_words; ++i) c += popcount(a[i] & b[i]);
    return c;
}

// Counts of the samples captured by one rule, split by the masks the search needs.
//   out[0] = |x|, out[1] = |x & m1|, ..., out[k] = |x & mk|  with x = rule & free
// where free is the set of samples not captured yet.  One pass over the words; this is the
// innermost loop of the branch-and-bound, so it is dispatched once, at load time, to the
// AVX-512 VPOPCNTDQ version where the processor has it, else to the scalar one (itself compiled
// for the popcnt instruction where available).  Both give identical counts.
constexpr int kCaptureMasks = 4;
void count_captured(const word_t* rule, const word_t* free, const word_t* const* masks,
                    std::size_t n_words, std::int64_t out[kCaptureMasks + 1]);

// The two implementations behind count_captured, for tests and benchmarks
// (FAIRLIST_HAVE_AVX512_POPCOUNT, from portable.hpp: whether the AVX-512 one is compiled).
void count_captured_scalar(const word_t* rule, const word_t* free, const word_t* const* masks,
                           std::size_t n_words, std::int64_t out[kCaptureMasks + 1]);
// Runs the scalar version where the AVX-512 one is not compiled (not x86-64 or not GCC/clang);
// call it only where has_avx512_popcount().
void count_captured_avx512(const word_t* rule, const word_t* free, const word_t* const* masks,
                           std::size_t n_words, std::int64_t out[kCaptureMasks + 1]);
// Whether the processor runs count_captured_avx512 (and count_captured uses it).
bool has_avx512_popcount();

// Packs a row-major (n_rows x n_cols) 0/1 byte matrix column by column:
// out[j * words_for(n_rows) + i / 64] bit (i % 64) is X[i, j].  out must hold
// n_cols * words_for(n_rows) words.
void pack_columns(const std::uint8_t* X, std::size_t n_rows, std::size_t n_cols, word_t* out);

// Packs a 0/1 byte vector of length n into words_for(n) words.
void pack_vector(const std::uint8_t* v, std::size_t n, word_t* out);

}  // namespace fairlist
