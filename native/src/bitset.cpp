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

void pack_vector(const std::uint8_t* v, std::size_t n, word_t* out) {
    std::memset(out, 0, sizeof(word_t) * words_for(n));
    for (std::size_t i = 0; i < n; ++i) {
        if (v[i]) out[i / kWordBits] |= word_t{1} << (i % kWordBits);
    }
}

}  // namespace fairlist
