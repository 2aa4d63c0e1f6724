// The training data as the search sees it: distinct weighted rows, bit-packed antecedents over
// them, and the equivalence classes of identical antecedent bits.
//
// Rows.  Samples with identical antecedent bits, group and label are classified alike by every
// rule list and weigh in every count as one sample of their summed weight, so the search runs
// over these distinct weighted rows (samples of weight 0 dropped): the paper's COMPAS file,
// 5,273 samples, becomes 550 rows.  A set of rows is a bit set over them, and the counts the
// search needs of a set x (a rule's newly captured rows) are weighted sums per (group, label):
// the rows are laid out by (group, label, forced error) "cell", each cell starting on a word
// boundary, so every word belongs to one cell, and the weight of x within a word is
//     sum_b 2^b popcount(x & plane_b)
// over the bit planes of the weights of its rows (plane_b: the rows whose weight has bit b set).
// Within a cell the heaviest rows come first, so most words need one or two planes.  Counts are
// exact integers whatever the weights; without weights they are sample counts.
//
// Classes.  Rows with identical antecedent bits form an equivalence class (a class holds the
// rows of several groups and labels): every rule list predicts one label for the whole class.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "fairlist/bitset.hpp"
#include "fairlist/counts.hpp"

namespace fairlist {

// Transposes a bit matrix: in has `rows` rows of words_for(cols) words (bits past `cols` zero);
// out gets `cols` rows of words_for(rows) words, bit r of row c being bit c of in's row r.
// Packed antecedents over samples become samples' antecedent bits and back (rule_data.cpp).
void transpose_bits(const word_t* in, std::size_t rows, std::size_t cols, word_t* out);

class RuleData {
 public:
    // rules: m x words_for(n) words over the samples (antecedent j's samples at
    // rules + j * words_for(n)); labels: words_for(n) words; groups: n codes in [0, n_groups);
    // weights: n integer weights >= 0 (not all 0), or nullptr for unit weights.  Everything is
    // copied.  Throws std::invalid_argument on bad input.
    RuleData(const word_t* rules, const word_t* labels, const std::int32_t* groups,
             const std::int64_t* weights, std::size_t n_samples, std::size_t n_antecedents,
             int n_groups);

    std::size_t n_samples() const { return n_samples_; }
    std::size_t n_antecedents() const { return m_; }
    int n_groups() const { return k_; }
    // Whether every sample weighs 1 or 0 (counts are numbers of samples).
    bool unit_weights() const { return unit_; }
    // Sum of the weights (the number of samples without weights): the objective's denominator.
    std::int64_t total_weight() const { return totals_.total(); }

    // Distinct weighted rows; row sets have n_words() words (bits past the rows are zero).
    std::size_t n_rows() const { return n_rows_; }
    std::size_t n_words() const { return nw_; }
    const word_t* rule(std::size_t j) const { return rules_.data() + j * nw_; }
    const word_t* all() const { return all_.data(); }

    // The rows of rule & free: *s gets their weight per (group, label), *forced the weight of
    // the forced-error rows among them (see n_forced_errors).  The search's innermost loop.
    // (Out of line, compiled for the popcnt instruction where the processor has it.)
    void count(const word_t* rule, const word_t* free, SplitCounts* s, std::int64_t* forced) const;

    // Weight of the errors every rule list makes (the "forced errors"): in every class, the
    // rows carrying its minority label by weight (ties: the positives).
    std::int64_t n_forced_errors() const { return n_forced_; }

    // Equivalence classes: rows with identical antecedent bits.  Class-level bit sets have
    // words_for(n_classes()) words.
    std::size_t n_classes() const { return n_classes_; }
    std::size_t n_class_words() const { return cw_; }
    const word_t* class_rule(std::size_t j) const { return class_rules_.data() + j * cw_; }
    const word_t* class_all() const { return class_all_.data(); }
    // Weight of the samples of class e in group g with label y.
    std::int64_t class_count(std::size_t e, int g, int y) const {
        return class_counts_[(e * static_cast<std::size_t>(k_) + static_cast<std::size_t>(g)) * 2 +
                             static_cast<std::size_t>(y)];
    }
    // All of class e's: class_count(e, g, y) at 2 g + y.
    const std::int64_t* class_counts(std::size_t e) const {
        return class_counts_.data() + e * static_cast<std::size_t>(k_) * 2;
    }
    // Weight of class e per label.
    std::int64_t class_label(std::size_t e, int y) const { return class_labels_[2 * e + y]; }

    // Weights of all samples per (group, label).
    const SplitCounts& totals() const { return totals_; }

 private:
    // What one word of a row set holds: its cell and the bit planes of its rows' weights.
    struct Word {
        std::uint32_t offset;  // planes_[offset .. offset + planes)
        std::uint16_t group;
        std::uint8_t label;
        std::uint8_t forced;   // the cell's rows are forced errors
        int planes;
    };

    struct Row;  // a distinct weighted row (rule_data.cpp)

    // The steps of the constructor, in order.
    // The samples of positive weight (validating groups and weights; sets unit_).
    std::vector<std::uint32_t> kept_samples(const std::int32_t* groups,
                                            const std::int64_t* weights);
    // The kept samples in the order of their antecedent bits (bits: a row of words_for(m)
    // words per sample).
    std::vector<std::uint32_t> sorted_by_bits(const std::vector<word_t>& bits,
                                              const std::vector<std::uint32_t>& kept) const;
    // The classes (a representative sample each) and their distinct weighted rows.
    std::vector<Row> merge_classes(const std::vector<word_t>& bits, const word_t* labels,
                                   const std::int32_t* groups, const std::int64_t* weights,
                                   const std::vector<std::uint32_t>& kept,
                                   std::vector<std::uint32_t>* representative);
    // Class e's counts per (group, label) cell: its forced errors, its counts, its rows.
    void add_class(std::uint32_t e, const std::vector<std::int64_t>& cell,
                   std::vector<Row>* rows);
    // The antecedents over the classes (and, until lay_out_rows, each class's bits).
    void class_bits(const std::vector<word_t>& bits,
                    const std::vector<std::uint32_t>& representative);
    // Sorts the rows by cell and places them (each cell from a word boundary): the row-level
    // antecedents, totals and words; returns each row's position.
    std::vector<std::size_t> lay_out_rows(std::vector<Row>* rows);
    // The bit planes of the rows' weights, word by word.
    void count_planes(const std::vector<Row>& rows, const std::vector<std::size_t>& position);

    std::size_t n_samples_, m_;
    int k_;
    bool unit_ = true;
    std::size_t n_rows_ = 0, nw_ = 0;
    std::vector<word_t> rules_, all_, planes_;
    std::vector<Word> words_;
    std::int64_t n_forced_ = 0;
    SplitCounts totals_;
    std::size_t n_classes_ = 0, cw_ = 0;
    std::vector<word_t> class_rules_, class_all_;
    std::vector<word_t> class_bits_;  // class-major bits, from class_bits to lay_out_rows
    std::vector<std::int64_t> class_counts_, class_labels_;
};

}  // namespace fairlist
