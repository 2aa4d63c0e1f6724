// The training data as the search sees it: bit-packed antecedents, labels, groups, and the
// per-sample masks prepared once (protected, positive, protected-and-positive, and the
// equivalent-points "forced error" samples).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "fairlist/bitset.hpp"

namespace fairlist {

// Confusion-free counts of a sample set split by (group, label):
// c[g][y] with g = 0 protected, 1 unprotected and y the true label.
struct SplitCounts {
    std::int64_t c[2][2] = {{0, 0}, {0, 0}};

    std::int64_t total() const { return c[0][0] + c[0][1] + c[1][0] + c[1][1]; }
    std::int64_t label(int y) const { return c[0][y] + c[1][y]; }
};

inline SplitCounts minus(const SplitCounts& a, const SplitCounts& b) {
    SplitCounts r;
    for (int g = 0; g < 2; ++g) {
        for (int y = 0; y < 2; ++y) r.c[g][y] = a.c[g][y] - b.c[g][y];
    }
    return r;
}

class RuleData {
 public:
    // rules: m x words_for(n) words (antecedent j's samples at rules + j * n_words);
    // labels, protected_group: words_for(n) words each. The data are copied.
    RuleData(const word_t* rules, const word_t* labels, const word_t* protected_group,
             std::size_t n_samples, std::size_t n_antecedents);
    // capture_masks() points into the members: not copyable, not movable.
    RuleData(const RuleData&) = delete;
    RuleData& operator=(const RuleData&) = delete;

    std::size_t n_samples() const { return n_; }
    std::size_t n_antecedents() const { return m_; }
    std::size_t n_words() const { return nw_; }

    const word_t* rule(std::size_t j) const { return rules_.data() + j * nw_; }
    const word_t* all() const { return all_.data(); }
    // Number of samples that are errors whatever the rule list (the "forced errors" mask): in
    // every class of samples with identical antecedent bits, the ones carrying the minority
    // label (ties: the positives).
    std::int64_t n_forced_errors() const { return n_forced_; }

    // Equivalence classes: samples with identical antecedent bits (every rule list classifies
    // them alike).  Class-level bit sets have words_for(n_classes()) words.
    std::size_t n_classes() const { return n_classes_; }
    std::size_t n_class_words() const { return cw_; }
    const word_t* class_rule(std::size_t j) const { return class_rules_.data() + j * cw_; }
    const word_t* class_all() const { return class_all_.data(); }
    // Samples of class e in group g (0 protected) with label y.
    const SplitCounts& class_counts(std::size_t e) const { return class_counts_[e]; }

    // Counts of all samples per (group, label).
    const SplitCounts& totals() const { return totals_; }

    // Splits the counts of out[] produced by count_captured with the masks of capture_masks().
    static SplitCounts split(const std::int64_t out[kCaptureMasks + 1]) {
        SplitCounts s;
        const std::int64_t total = out[0], prot = out[1], pos = out[2], prot_pos = out[3];
        s.c[0][1] = prot_pos;
        s.c[0][0] = prot - prot_pos;
        s.c[1][1] = pos - prot_pos;
        s.c[1][0] = total - prot - pos + prot_pos;
        return s;
    }
    // masks for count_captured: protected, positive, protected-positive, forced errors.
    const word_t* const* capture_masks() const { return masks_; }

 private:
    std::size_t n_, m_, nw_;
    std::vector<word_t> rules_, all_, labels_, prot_, prot_pos_, forced_;
    const word_t* masks_[kCaptureMasks];
    std::int64_t n_forced_ = 0;
    SplitCounts totals_;
    std::size_t n_classes_ = 0, cw_ = 0;
    std::vector<word_t> class_rules_, class_all_;
    std::vector<SplitCounts> class_counts_;

    void compute_classes();
};

}  // namespace fairlist
