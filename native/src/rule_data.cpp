#include "fairlist/rule_data.hpp"

#include <algorithm>
#include <numeric>
#include <stdexcept>

namespace fairlist {

RuleData::RuleData(const word_t* rules, const word_t* labels, const word_t* protected_group,
                   std::size_t n_samples, std::size_t n_antecedents)
    : n_(n_samples), m_(n_antecedents), nw_(words_for(n_samples)) {
    if (n_ == 0) throw std::invalid_argument("RuleData: no samples");
    rules_.assign(rules, rules + m_ * nw_);
    labels_.assign(labels, labels + nw_);
    prot_.assign(protected_group, protected_group + nw_);
    all_.assign(nw_, ~word_t{0});
    if (n_ % kWordBits) all_[nw_ - 1] = (word_t{1} << (n_ % kWordBits)) - 1;
    // Bits past the last sample must be zero everywhere: the counts rely on it.
    for (std::size_t i = 0; i < nw_; ++i) {
        labels_[i] &= all_[i];
        prot_[i] &= all_[i];
    }
    for (std::size_t j = 0; j < m_; ++j) {
        for (std::size_t i = 0; i < nw_; ++i) rules_[j * nw_ + i] &= all_[i];
    }
    prot_pos_.resize(nw_);
    for (std::size_t i = 0; i < nw_; ++i) prot_pos_[i] = prot_[i] & labels_[i];
    compute_classes();
    masks_[0] = prot_.data();
    masks_[1] = labels_.data();
    masks_[2] = prot_pos_.data();
    masks_[3] = forced_.data();
    std::int64_t out[kCaptureMasks + 1];
    count_captured(all_.data(), all_.data(), masks_, nw_, out);
    totals_ = split(out);
}

void RuleData::compute_classes() {
    // Group the samples by their antecedent bits (rows compared exactly, no hashing).
    const std::size_t mw = words_for(m_);
    std::vector<word_t> rows(n_ * mw, 0);
    for (std::size_t j = 0; j < m_; ++j) {
        const word_t* r = rule(j);
        for (std::size_t i = 0; i < n_; ++i) {
            if ((r[i / kWordBits] >> (i % kWordBits)) & 1U) {
                rows[i * mw + j / kWordBits] |= word_t{1} << (j % kWordBits);
            }
        }
    }
    std::vector<std::uint32_t> order(n_);
    std::iota(order.begin(), order.end(), 0U);
    auto row_less = [&](std::uint32_t a, std::uint32_t b) {
        return std::lexicographical_compare(rows.begin() + a * mw, rows.begin() + (a + 1) * mw,
                                            rows.begin() + b * mw, rows.begin() + (b + 1) * mw);
    };
    auto row_equal = [&](std::uint32_t a, std::uint32_t b) {
        return std::equal(rows.begin() + a * mw, rows.begin() + (a + 1) * mw,
                          rows.begin() + b * mw);
    };
    std::stable_sort(order.begin(), order.end(), row_less);
    forced_.assign(nw_, 0);
    auto bit = [](const std::vector<word_t>& v, std::size_t i) {
        return static_cast<int>((v[i / kWordBits] >> (i % kWordBits)) & 1U);
    };
    auto label_of = [&](std::uint32_t i) { return bit(labels_, i); };
    std::vector<std::uint32_t> representative;
    for (std::size_t start = 0; start < n_;) {
        std::size_t end = start + 1;
        while (end < n_ && row_equal(order[start], order[end])) ++end;
        SplitCounts cc;
        for (std::size_t k = start; k < end; ++k) {
            ++cc.c[1 - bit(prot_, order[k])][label_of(order[k])];
        }
        class_counts_.push_back(cc);
        representative.push_back(order[start]);
        std::int64_t pos = 0;
        for (std::size_t k = start; k < end; ++k) pos += label_of(order[k]);
        const std::int64_t neg = static_cast<std::int64_t>(end - start) - pos;
        // Every rule list predicts one label for the whole class: min(pos, neg) errors.
        const int minority = pos <= neg ? 1 : 0;
        if (std::min(pos, neg) > 0) {
            for (std::size_t k = start; k < end; ++k) {
                const std::uint32_t i = order[k];
                if (label_of(i) == minority) forced_[i / kWordBits] |= word_t{1} << (i % kWordBits);
            }
            n_forced_ += std::min(pos, neg);
        }
        start = end;
    }
    n_classes_ = class_counts_.size();
    cw_ = words_for(n_classes_);
    class_all_.assign(cw_, 0);
    class_rules_.assign(m_ * cw_, 0);
    for (std::size_t e = 0; e < n_classes_; ++e) {
        class_all_[e / kWordBits] |= word_t{1} << (e % kWordBits);
        const std::uint32_t i = representative[e];
        for (std::size_t j = 0; j < m_; ++j) {
            if ((rule(j)[i / kWordBits] >> (i % kWordBits)) & 1U) {
                class_rules_[j * cw_ + e / kWordBits] |= word_t{1} << (e % kWordBits);
            }
        }
    }
}

}  // namespace fairlist
