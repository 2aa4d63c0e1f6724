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

// One distinct weighted row: a class, a group, a label and the summed weight of its samples.
struct Row {
    std::uint32_t e;
    int g, y;
    std::int64_t w;
    bool forced;
    int cell() const { return (g * 2 + y) * 2 + (forced ? 1 : 0); }
};

}  // namespace

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
    const std::size_t n = n_samples, snw = words_for(n);
    // The samples that count (positive weight).
    std::vector<std::uint32_t> kept;
    kept.reserve(n);
    for (std::size_t i = 0; i < n; ++i) {
        if (groups[i] < 0 || groups[i] >= n_groups) {
            throw std::invalid_argument("RuleData: a group code is outside 0..n_groups-1");
        }
        const std::int64_t w = weights ? weights[i] : 1;
        if (w < 0) throw std::invalid_argument("RuleData: a negative sample weight");
        if (w > 1) unit_ = false;  // a weight of 0 only drops the sample
        if (w > 0) kept.push_back(static_cast<std::uint32_t>(i));
    }
    if (kept.empty()) throw std::invalid_argument("RuleData: every sample weight is 0");
    auto weight = [weights](std::uint32_t i) -> std::int64_t { return weights ? weights[i] : 1; };

    // Classes: the kept samples grouped by their antecedent bits (compared exactly, no hashing),
    // in lexicographic order of the bits.
    const std::size_t mw = words_for(m_);
    const std::size_t nk = kept.size();
    std::vector<word_t> bits(nk * mw, 0);
    for (std::size_t j = 0; j < m_; ++j) {
        const word_t* r = rules + j * snw;
        for (std::size_t s = 0; s < nk; ++s) {
            if (bit(r, kept[s])) bits[s * mw + j / kWordBits] |= word_t{1} << (j % kWordBits);
        }
    }
    std::vector<std::uint32_t> order(nk);
    std::iota(order.begin(), order.end(), 0U);
    auto row_less = [&](std::uint32_t a, std::uint32_t b) {
        return std::lexicographical_compare(bits.begin() + a * mw, bits.begin() + (a + 1) * mw,
                                            bits.begin() + b * mw, bits.begin() + (b + 1) * mw);
    };
    auto row_equal = [&](std::uint32_t a, std::uint32_t b) {
        return std::equal(bits.begin() + a * mw, bits.begin() + (a + 1) * mw,
                          bits.begin() + b * mw);
    };
    std::stable_sort(order.begin(), order.end(), row_less);

    std::vector<Row> rows;
    std::vector<std::uint32_t> representative;  // a kept sample of each class
    const std::size_t k = static_cast<std::size_t>(k_);
    std::vector<std::int64_t> cell(2 * k);
    std::int64_t total = 0;
    for (std::size_t start = 0; start < nk;) {
        std::size_t end = start + 1;
        while (end < nk && row_equal(order[start], order[end])) ++end;
        const auto e = static_cast<std::uint32_t>(representative.size());
        representative.push_back(kept[order[start]]);
        std::fill(cell.begin(), cell.end(), 0);
        for (std::size_t s = start; s < end; ++s) {
            const std::uint32_t i = kept[order[s]];
            const std::int64_t w = weight(i);
            cell[static_cast<std::size_t>(groups[i]) * 2 + static_cast<std::size_t>(bit(labels, i))] += w;
            total += w;
            if (total > (std::int64_t{1} << 31)) {
                throw std::invalid_argument("RuleData: the sample weights add up to more than 2^31");
            }
        }
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
                if (w > 0) rows.push_back(Row{e, static_cast<int>(g), y, w, has_forced && y == minority});
            }
        }
        start = end;
    }
    n_classes_ = representative.size();
    cw_ = words_for(n_classes_);
    class_all_.assign(cw_, 0);
    class_rules_.assign(m_ * cw_, 0);
    for (std::size_t e = 0; e < n_classes_; ++e) {
        set_bit(class_all_.data(), e);
        for (std::size_t j = 0; j < m_; ++j) {
            if (bit(rules + j * snw, representative[e])) set_bit(class_rules_.data() + j * cw_, e);
        }
    }

    // Rows by cell, each cell from a word boundary; heaviest first within a cell.
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
    rules_.assign(m_ * nw_, 0);
    totals_ = SplitCounts(k_);
    for (std::size_t r = 0; r < rows.size(); ++r) {
        const std::size_t p = position[r];
        set_bit(all_.data(), p);
        totals_.add(rows[r].g, rows[r].y, rows[r].w);
        for (std::size_t j = 0; j < m_; ++j) {
            if (bit(class_rules_.data() + j * cw_, rows[r].e)) set_bit(rules_.data() + j * nw_, p);
        }
    }
    // Each word's cell and the bit planes of its rows' weights.
    words_.resize(nw_);
    for (std::size_t r = 0; r < rows.size(); ++r) {
        Word& w = words_[position[r] / kWordBits];
        w.group = static_cast<std::uint16_t>(rows[r].g);
        w.label = static_cast<std::uint8_t>(rows[r].y);
        w.forced = rows[r].forced ? 1 : 0;
    }
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
