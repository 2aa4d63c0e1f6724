#include "fairlist/rule_data.hpp"

#include <algorithm>
#include <numeric>
#include <stdexcept>
#include <string>

namespace fairlist {

namespace {

inline int bit(const word_t* v, std::size_t i) {
    return static_cast<int>((v[i / kWordBits] >> (i % kWordBits)) & 1U);
}
inline void set_bit(word_t* v, std::size_t i) { v[i / kWordBits] |= word_t{1} << (i % kWordBits); }

// One step of the 64 x 64 transpose: in every 2J x 2J block, bits [J, 2J) of row k trade places
// with bits [0, J) of row k + J (M: the bits [0, J) of every 2J).
template <std::size_t J, word_t M>
inline void swap_quarters(word_t* a) {
    for (std::size_t k0 = 0; k0 < kWordBits; k0 += 2 * J) {
        for (std::size_t k = k0; k < k0 + J; ++k) {
            const word_t t = ((a[k] >> J) ^ a[k + J]) & M;
            a[k] ^= t << J;
            a[k + J] ^= t;
        }
    }
}

// Transposes a 64 x 64 bit block in place: afterwards bit i of a[k] is the old bit k of a[i]
// (Hacker's Delight 7-3, for bits numbered from the least significant: the off-diagonal
// quarters of the whole block trade places, then those of each quarter, down to single bits).
void transpose64(word_t a[kWordBits]) {
    swap_quarters<32, 0x00000000FFFFFFFFULL>(a);
    swap_quarters<16, 0x0000FFFF0000FFFFULL>(a);
    swap_quarters<8, 0x00FF00FF00FF00FFULL>(a);
    swap_quarters<4, 0x0F0F0F0F0F0F0F0FULL>(a);
    swap_quarters<2, 0x3333333333333333ULL>(a);
    swap_quarters<1, 0x5555555555555555ULL>(a);
}

}  // namespace

void transpose_bits(const word_t* in, std::size_t rows, std::size_t cols, word_t* out) {
    // 64 x 64 blocks: O(rows * cols / 64) word operations, where the bit-by-bit loop it
    // replaces made rows * cols (seconds on 200,000 samples x 2,500 antecedents).
    const std::size_t in_words = words_for(cols), out_words = words_for(rows);
    word_t block[kWordBits];
    // Column blocks outer: each writes a contiguous band of out, and the rows' words it reads
    // share cache lines with the next block's.
    for (std::size_t cb = 0; cb < in_words; ++cb) {
        const std::size_t c0 = cb * kWordBits;
        const std::size_t nc = std::min(kWordBits, cols - c0);
        for (std::size_t rb = 0; rb < out_words; ++rb) {
            const std::size_t r0 = rb * kWordBits;
            const std::size_t nr = std::min(kWordBits, rows - r0);
            for (std::size_t i = 0; i < nr; ++i) block[i] = in[(r0 + i) * in_words + cb];
            std::fill(block + nr, block + kWordBits, word_t{0});
            transpose64(block);
            for (std::size_t k = 0; k < nc; ++k) out[(c0 + k) * out_words + rb] = block[k];
        }
    }
}

// One distinct weighted row: a class, a group, a label and the summed weight of its samples.
struct RuleData::Row {
    std::uint32_t e;
    int g, y;
    std::int64_t w;
    bool forced;
    int cell() const { return (g * 2 + y) * 2 + (forced ? 1 : 0); }
};

FAIRLIST_POPCNT_CLONES
void RuleData::count(const word_t* rule, const word_t* free, SplitCounts* s,
                     std::int64_t* forced) const {
    s->k = k_;
    s->n[0] = s->n[1] = 0;
    for (int g = 0; g < k_; ++g) s->c[g][0] = s->c[g][1] = 0;
    std::int64_t f = 0;
    const word_t* planes = planes_.data();
    const Word* words = words_.data();
    for (std::size_t i = 0; i < nw_; ++i) {
        const word_t x = rule[i] & free[i];
        if (!x) continue;
        const Word& w = words[i];
        const word_t* p = planes + w.offset;
        std::int64_t c = portable::popcount64(x & p[0]);
        for (int b = 1; b < w.planes; ++b) {
            c += static_cast<std::int64_t>(portable::popcount64(x & p[b])) << b;
        }
        s->c[w.group][w.label] += c;
        s->n[w.label] += c;
        if (w.forced) f += c;
    }
    *forced = f;
}

RuleData::RuleData(const word_t* rules, const word_t* labels, const std::int32_t* groups,
                   const std::int64_t* weights, std::size_t n_samples, std::size_t n_antecedents,
                   int n_groups)
    : n_samples_(n_samples), m_(n_antecedents), k_(n_groups) {
    if (n_samples == 0) throw std::invalid_argument("RuleData: no samples");
    if (n_groups < 2 || n_groups > kMaxGroups) {
        throw std::invalid_argument("RuleData: the number of groups must be in 2.." +
                                    std::to_string(kMaxGroups));
    }
    const std::vector<std::uint32_t> kept = kept_samples(groups, weights);
    // Each sample's antecedent bits (a row of words_for(m) words): one transpose of the rules.
    std::vector<word_t> bits(n_samples * words_for(m_));
    transpose_bits(rules, m_, n_samples, bits.data());
    std::vector<std::uint32_t> representative;  // a kept sample of each class
    std::vector<Row> rows = merge_classes(bits, labels, groups, weights, kept, &representative);
    class_bits(bits, representative);
    const std::vector<std::size_t> position = lay_out_rows(&rows);
    count_planes(rows, position);
}

std::vector<std::uint32_t> RuleData::kept_samples(const std::int32_t* groups,
                                                  const std::int64_t* weights) {
    // The samples that count (positive weight).
    std::vector<std::uint32_t> kept;
    kept.reserve(n_samples_);
    for (std::size_t i = 0; i < n_samples_; ++i) {
        if (groups[i] < 0 || groups[i] >= k_) {
            throw std::invalid_argument("RuleData: a group code is outside 0..n_groups-1");
        }
        const std::int64_t w = weights ? weights[i] : 1;
        if (w < 0) throw std::invalid_argument("RuleData: a negative sample weight");
        if (w > 1) unit_ = false;  // a weight of 0 only drops the sample
        if (w > 0) kept.push_back(static_cast<std::uint32_t>(i));
    }
    if (kept.empty()) throw std::invalid_argument("RuleData: every sample weight is 0");
    return kept;
}

std::vector<std::uint32_t> RuleData::sorted_by_bits(const std::vector<word_t>& bits,
                                                    const std::vector<std::uint32_t>& kept) const {
    // The kept samples in the order of their antecedent bits (lexicographic; stable).
    const std::size_t mw = words_for(m_);
    std::vector<std::uint32_t> order(kept);
    const word_t* b = bits.data();
    std::stable_sort(order.begin(), order.end(), [&](std::uint32_t x, std::uint32_t y) {
        return std::lexicographical_compare(b + x * mw, b + (x + 1) * mw, b + y * mw,
                                            b + (y + 1) * mw);
    });
    return order;
}

std::vector<RuleData::Row> RuleData::merge_classes(
    const std::vector<word_t>& bits, const word_t* labels, const std::int32_t* groups,
    const std::int64_t* weights, const std::vector<std::uint32_t>& kept,
    std::vector<std::uint32_t>* representative) {
    // Classes: the kept samples grouped by their antecedent bits (compared exactly, no hashing),
    // in lexicographic order of the bits.
    const std::vector<std::uint32_t> order = sorted_by_bits(bits, kept);
    const std::size_t mw = words_for(m_), nk = kept.size();
    auto row_equal = [&](std::uint32_t a, std::uint32_t b) {
        return std::equal(bits.begin() + a * mw, bits.begin() + (a + 1) * mw,
                          bits.begin() + b * mw);
    };
    std::vector<Row> rows;
    const std::size_t k = static_cast<std::size_t>(k_);
    std::vector<std::int64_t> cell(2 * k);
    std::int64_t total = 0;
    for (std::size_t start = 0; start < nk;) {
        std::size_t end = start + 1;
        while (end < nk && row_equal(order[start], order[end])) ++end;
        const auto e = static_cast<std::uint32_t>(representative->size());
        representative->push_back(order[start]);
        std::fill(cell.begin(), cell.end(), 0);
        for (std::size_t s = start; s < end; ++s) {
            const std::uint32_t i = order[s];
            const std::int64_t w = weights ? weights[i] : 1;
            const auto g = static_cast<std::size_t>(groups[i]);
            cell[g * 2 + static_cast<std::size_t>(bit(labels, i))] += w;
            total += w;
            if (total > (std::int64_t{1} << 31)) {
                throw std::invalid_argument(
                    "RuleData: the sample weights add up to more than 2^31");
            }
        }
        add_class(e, cell, &rows);
        start = end;
    }
    return rows;
}

void RuleData::add_class(std::uint32_t e, const std::vector<std::int64_t>& cell,
                         std::vector<Row>* rows) {
    const std::size_t k = static_cast<std::size_t>(k_);
    std::int64_t by_label[2] = {0, 0};
    for (std::size_t g = 0; g < k; ++g) {
        by_label[0] += cell[2 * g];
        by_label[1] += cell[2 * g + 1];
    }
    // Every rule list predicts one label for the whole class: the minority label's weight is
    // an error whatever the list (ties: the positives).
    const int minority = by_label[1] <= by_label[0] ? 1 : 0;
    const bool has_forced = std::min(by_label[0], by_label[1]) > 0;
    if (has_forced) n_forced_ += by_label[minority];
    class_counts_.insert(class_counts_.end(), cell.begin(), cell.end());
    class_labels_.push_back(by_label[0]);
    class_labels_.push_back(by_label[1]);
    for (std::size_t g = 0; g < k; ++g) {
        for (int y = 0; y < 2; ++y) {
            const std::int64_t w = cell[2 * g + static_cast<std::size_t>(y)];
            if (w > 0) {
                rows->push_back(Row{e, static_cast<int>(g), y, w, has_forced && y == minority});
            }
        }
    }
}

void RuleData::class_bits(const std::vector<word_t>& bits,
                          const std::vector<std::uint32_t>& representative) {
    const std::size_t mw = words_for(m_);
    n_classes_ = representative.size();
    cw_ = words_for(n_classes_);
    class_all_.assign(cw_, 0);
    class_bits_.resize(n_classes_ * mw);  // each class's antecedent bits, a row each
    for (std::size_t e = 0; e < n_classes_; ++e) {
        set_bit(class_all_.data(), e);
        const word_t* b = bits.data() + representative[e] * mw;
        std::copy(b, b + mw, class_bits_.begin() + static_cast<std::ptrdiff_t>(e * mw));
    }
    class_rules_.assign(m_ * cw_, 0);
    transpose_bits(class_bits_.data(), n_classes_, m_, class_rules_.data());
}

std::vector<std::size_t> RuleData::lay_out_rows(std::vector<Row>* sorted) {
    // Rows by cell, each cell from a word boundary; heaviest first within a cell.
    std::vector<Row>& rows = *sorted;
    std::stable_sort(rows.begin(), rows.end(), [](const Row& a, const Row& b) {
        if (a.cell() != b.cell()) return a.cell() < b.cell();
        return a.w > b.w;
    });
    n_rows_ = rows.size();
    std::vector<std::size_t> position(rows.size());
    std::size_t next = 0;
    for (std::size_t r = 0; r < rows.size(); ++r) {
        if (r > 0 && rows[r].cell() != rows[r - 1].cell()) next = words_for(next) * kWordBits;
        position[r] = next++;
    }
    nw_ = words_for(next);
    all_.assign(nw_, 0);
    totals_ = SplitCounts(k_);
    // Each position's antecedent bits (its row's class's; none between cells), transposed.
    const std::size_t mw = words_for(m_);
    std::vector<word_t> at(next * mw, 0);
    for (std::size_t r = 0; r < rows.size(); ++r) {
        const std::size_t p = position[r];
        set_bit(all_.data(), p);
        totals_.add(rows[r].g, rows[r].y, rows[r].w);
        const word_t* b = class_bits_.data() + rows[r].e * mw;
        std::copy(b, b + mw, at.begin() + static_cast<std::ptrdiff_t>(p * mw));
    }
    std::vector<word_t>().swap(class_bits_);
    rules_.assign(m_ * nw_, 0);
    transpose_bits(at.data(), next, m_, rules_.data());
    // Each word's cell.
    words_.resize(nw_);
    for (std::size_t r = 0; r < rows.size(); ++r) {
        Word& w = words_[position[r] / kWordBits];
        w.group = static_cast<std::uint16_t>(rows[r].g);
        w.label = static_cast<std::uint8_t>(rows[r].y);
        w.forced = rows[r].forced ? 1 : 0;
    }
    return position;
}

void RuleData::count_planes(const std::vector<Row>& rows,
                            const std::vector<std::size_t>& position) {
    // The bit planes of each word's rows' weights.
    std::vector<int> planes(nw_, 1);
    for (std::size_t r = 0; r < rows.size(); ++r) {
        int& b = planes[position[r] / kWordBits];
        while (b < 63 && (rows[r].w >> b) != 0) ++b;
    }
    std::size_t offset = 0;
    for (std::size_t i = 0; i < nw_; ++i) {
        words_[i].offset = static_cast<std::uint32_t>(offset);
        words_[i].planes = planes[i];
        offset += static_cast<std::size_t>(planes[i]);
    }
    planes_.assign(offset, 0);
    for (std::size_t r = 0; r < rows.size(); ++r) {
        const std::size_t p = position[r];
        const Word& w = words_[p / kWordBits];
        for (int b = 0; b < w.planes; ++b) {
            if ((rows[r].w >> b) & 1) planes_[w.offset + b] |= word_t{1} << (p % kWordBits);
        }
    }
}

}  // namespace fairlist
