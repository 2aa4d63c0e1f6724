#include "fairlist/bitset.hpp"

#include <cstring>

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

#if defined(__GNUC__) && defined(__x86_64__) && defined(__linux__) && !defined(__clang__)
#define FAIRLIST_POPCNT_CLONES __attribute__((target_clones("popcnt", "default")))
#else
#define FAIRLIST_POPCNT_CLONES
#endif

FAIRLIST_POPCNT_CLONES
void count_captured(const word_t* rule, const word_t* free, const word_t* const* masks,
                    std::size_t n_words, std::int64_t out[kCaptureMasks + 1]) {
    const word_t* m0 = masks[0];
    const word_t* m1 = masks[1];
    const word_t* m2 = masks[2];
    const word_t* m3 = masks[3];
    std::int64_t c = 0, c0 = 0, c1 = 0, c2 = 0, c3 = 0;
    for (std::size_t i = 0; i < n_words; ++i) {
        const word_t x = rule[i] & free[i];
        c += __builtin_popcountll(x);
        c0 += __builtin_popcountll(x & m0[i]);
        c1 += __builtin_popcountll(x & m1[i]);
        c2 += __builtin_popcountll(x & m2[i]);
        c3 += __builtin_popcountll(x & m3[i]);
    }
    out[0] = c;
    out[1] = c0;
    out[2] = c1;
    out[3] = c2;
    out[4] = c3;
}

void pack_vector(const std::uint8_t* v, std::size_t n, word_t* out) {
    std::memset(out, 0, sizeof(word_t) * words_for(n));
    for (std::size_t i = 0; i < n; ++i) {
        if (v[i]) out[i / kWordBits] |= word_t{1} << (i % kWordBits);
    }
}

}  // namespace fairlist
