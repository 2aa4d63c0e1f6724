#include "fairlist/bitset.hpp"

#include <cstring>

#if FAIRLIST_HAVE_AVX512_POPCOUNT
#include <immintrin.h>
#endif

namespace fairlist {

void pack_columns(const std::uint8_t* X, std::size_t n_rows, std::size_t n_cols, word_t* out) {
    const std::size_t nw = words_for(n_rows);
    std::memset(out, 0, sizeof(word_t) * nw * n_cols);
    for (std::size_t i = 0; i < n_rows; ++i) {
        const std::uint8_t* row = X + i * n_cols;
        const word_t bit = word_t{1} << (i % kWordBits);
        const std::size_t w = i / kWordBits;
        for (std::size_t j = 0; j < n_cols; ++j) {
            if (row[j]) out[j * nw + w] |= bit;
        }
    }
}

// FAIRLIST_POPCNT_CLONES: portable.hpp.
FAIRLIST_POPCNT_CLONES
void count_captured_scalar(const word_t* rule, const word_t* free, const word_t* const* masks,
                           std::size_t n_words, std::int64_t out[kCaptureMasks + 1]) {
    const word_t* m0 = masks[0];
    const word_t* m1 = masks[1];
    const word_t* m2 = masks[2];
    const word_t* m3 = masks[3];
    std::int64_t c = 0, c0 = 0, c1 = 0, c2 = 0, c3 = 0;
    for (std::size_t i = 0; i < n_words; ++i) {
        const word_t x = rule[i] & free[i];
        c += portable::popcount64(x);
        c0 += portable::popcount64(x & m0[i]);
        c1 += portable::popcount64(x & m1[i]);
        c2 += portable::popcount64(x & m2[i]);
        c3 += portable::popcount64(x & m3[i]);
    }
    out[0] = c;
    out[1] = c0;
    out[2] = c1;
    out[3] = c2;
    out[4] = c3;
}

#if FAIRLIST_HAVE_AVX512_POPCOUNT
// GCC 12's _mm512_reduce_add_epi64 reads an "undefined" vector on purpose and warns about it.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
// Eight words at a time with the AVX-512 VPOPCNTDQ instruction; the last, partial group of
// words through masked loads (which read nothing past the arrays).
__attribute__((target("avx512f,avx512vpopcntdq")))
void count_captured_avx512(const word_t* rule, const word_t* free, const word_t* const* masks,
                           std::size_t n_words, std::int64_t out[kCaptureMasks + 1]) {
    const word_t* m0 = masks[0];
    const word_t* m1 = masks[1];
    const word_t* m2 = masks[2];
    const word_t* m3 = masks[3];
    __m512i c = _mm512_setzero_si512(), c0 = c, c1 = c, c2 = c, c3 = c;
#define FAIRLIST_STEP(x, a0, a1, a2, a3)                                               \
    do {                                                                                 \
        c = _mm512_add_epi64(c, _mm512_popcnt_epi64(x));                                 \
        c0 = _mm512_add_epi64(c0, _mm512_popcnt_epi64(_mm512_and_si512(x, a0)));         \
        c1 = _mm512_add_epi64(c1, _mm512_popcnt_epi64(_mm512_and_si512(x, a1)));         \
        c2 = _mm512_add_epi64(c2, _mm512_popcnt_epi64(_mm512_and_si512(x, a2)));         \
        c3 = _mm512_add_epi64(c3, _mm512_popcnt_epi64(_mm512_and_si512(x, a3)));         \
    } while (0)
    std::size_t i = 0;
    for (; i + 8 <= n_words; i += 8) {
        const __m512i x = _mm512_and_si512(_mm512_loadu_si512(rule + i), _mm512_loadu_si512(free + i));
        FAIRLIST_STEP(x, _mm512_loadu_si512(m0 + i), _mm512_loadu_si512(m1 + i),
                      _mm512_loadu_si512(m2 + i), _mm512_loadu_si512(m3 + i));
    }
    if (i < n_words) {
        const auto k = static_cast<__mmask8>((1U << (n_words - i)) - 1U);
        const __m512i x = _mm512_and_si512(_mm512_maskz_loadu_epi64(k, rule + i),
                                           _mm512_maskz_loadu_epi64(k, free + i));
        FAIRLIST_STEP(x, _mm512_maskz_loadu_epi64(k, m0 + i), _mm512_maskz_loadu_epi64(k, m1 + i),
                      _mm512_maskz_loadu_epi64(k, m2 + i), _mm512_maskz_loadu_epi64(k, m3 + i));
    }
#undef FAIRLIST_STEP
    out[0] = _mm512_reduce_add_epi64(c);
    out[1] = _mm512_reduce_add_epi64(c0);
    out[2] = _mm512_reduce_add_epi64(c1);
    out[3] = _mm512_reduce_add_epi64(c2);
    out[4] = _mm512_reduce_add_epi64(c3);
}
#pragma GCC diagnostic pop
#else
void count_captured_avx512(const word_t* rule, const word_t* free, const word_t* const* masks,
                           std::size_t n_words, std::int64_t out[kCaptureMasks + 1]) {
    count_captured_scalar(rule, free, masks, n_words, out);
}
#endif

bool has_avx512_popcount() {
#if FAIRLIST_HAVE_AVX512_POPCOUNT
    static const bool has = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vpopcntdq");
    return has;
#else
    return false;
#endif
}

namespace {
using CountFn = void (*)(const word_t*, const word_t*, const word_t* const*, std::size_t,
                         std::int64_t*);
// Chosen once, on first use, from what the processor supports.
CountFn pick_count_captured() {
    return has_avx512_popcount() ? count_captured_avx512 : count_captured_scalar;
}
const CountFn count_captured_impl = pick_count_captured();
}  // namespace

void count_captured(const word_t* rule, const word_t* free, const word_t* const* masks,
                    std::size_t n_words, std::int64_t out[kCaptureMasks + 1]) {
    count_captured_impl(rule, free, masks, n_words, out);
}

void pack_vector(const std::uint8_t* v, std::size_t n, word_t* out) {
    std::memset(out, 0, sizeof(word_t) * words_for(n));
    for (std::size_t i = 0; i < n; ++i) {
        if (v[i]) out[i / kWordBits] |= word_t{1} << (i % kWordBits);
    }
}

}  // namespace fairlist
