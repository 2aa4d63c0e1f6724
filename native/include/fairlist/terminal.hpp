// The terminal solver: the last two rules of a length-capped search found by counting.
//
// Under a length cap L the search spends most of its work on prefixes of L - 1 rules, which it
// stores, queues and expands only to evaluate their leaves "prefix + rule + default".  For a
// prefix P of L - 2 rules, every list still to evaluate below it is P + (i, q1) + default or
// P + (i, q1) + (j, q2) + default, and what decides its errors and its fairness is counts only:
//
//   a = the uncaptured samples antecedent i captures, by (group, label),
//   b = those j captures after i: single(j) - pair(i, j),
//   rest = the uncaptured samples minus a and b (the default's),
//
// (MurTree's specialised depth-2 solver, Demirović et al., JMLR 2022, for a rule list).  So the
// search finishes P by counting: the counts of every antecedent and of every pair of
// antecedents on the samples P leaves uncaptured (PairCounts below), then an enumeration of the
// candidates' labels that checks fairness exactly, with the same fair() (unfairness() and
// is_fair()) as everywhere, on the completed confusion counts.  The prefixes of L - 1 rules are
// never created: the deepest level of the trie, most of it, is not stored.
//
// Counting.  An antecedent captures a class of identical samples (rule_data.hpp) whole, and the
// classes P leaves uncaptured satisfy none of P's antecedents, so the counts are sums of class
// counts: each uncaptured class adds its counts to every antecedent it satisfies and to every
// pair of them.  That is sum over the uncaptured classes of d_e^2 / 2 additions (d_e: the
// antecedents class e satisfies), against the (L - 1)-rule children's one counting pass over
// the sample words per (antecedent, label) each.  On COMPAS (224 classes, d_e about 39) a
// prefix's pair counts take about 10^5 additions.
//
// Exactness: the enumeration visits every list of the space below P with one or two more rules
// (every label each position allows; rules that capture nothing new are skipped: such a list
// has the predictions of the list without that rule and one rule more), and offers as
// incumbent each one that is fair and beats the incumbent.  What it skips without checking
// fairness has an objective >= the incumbent's: its exact errors (the sum of the counts above),
// or a lower bound on them — the equivalent-points errors of the samples left after the first
// rule (each uncaptured class is predicted alike, so it makes at least min(pos, neg) errors).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "fairlist/bitset.hpp"
#include "fairlist/rule_data.hpp"

namespace fairlist {

// Counts of the samples of a set of classes captured by each antecedent and by each pair of
// antecedents, by (group, label), and the equivalent-points errors each antecedent captures.
class PairCounts {
 public:
    explicit PairCounts(const RuleData& data);

    // Counts the classes in `classes` (words_for(n_classes) words).  An antecedent of the
    // prefix that left them uncaptured captures none of them, so it is not active().
    void count(const word_t* classes);

    // Antecedents that capture at least one of the counted samples, ascending.
    const std::vector<std::uint32_t>& active() const { return active_; }
    // Samples antecedent j captures.
    const SplitCounts& single(std::uint32_t j) const { return single_[j]; }
    // Equivalent-points errors among them (sum of min(pos, neg) over their classes).
    std::int64_t forced(std::uint32_t j) const { return forced_[j]; }
    // Samples both i and j capture (i != j).
    SplitCounts pair(std::uint32_t i, std::uint32_t j) const {
        return (i < j ? pair_[row_[i] + j] : pair_[row_[j] + i]).split();
    }
    // out[j] = pair(i, j) for every active j != i (out has n_antecedents entries): one row,
    // contiguous, for a scan over j.
    void gather_row(std::uint32_t i, SplitCounts* out) const;
    // The whole counted set, and its equivalent-points errors.
    const SplitCounts& total() const { return total_; }
    std::int64_t total_forced() const { return total_forced_; }

 private:
    const RuleData& data_;
    std::size_t m_;
    // The antecedents each class satisfies, ascending: class e's are
    // features_[offsets_[e] .. offsets_[e + 1]).
    std::vector<std::uint32_t> offsets_, features_;
    std::vector<std::int64_t> class_forced_;  // min(pos, neg) of each class
    // The counts of one class or pair in 16 bytes (one vector addition): (group, label)
    // 00, 01, 10, 11.  32 bits suffice: the search has fewer than 2^31 samples.
    struct alignas(16) Quad {
        std::int32_t v[4];
        SplitCounts split() const {
            SplitCounts s;
            s.c[0][0] = v[0];
            s.c[0][1] = v[1];
            s.c[1][0] = v[2];
            s.c[1][1] = v[3];
            return s;
        }
    };
    std::vector<Quad> class_quad_;  // each class's counts
    // Dense upper triangle: pair (i, j), i < j, at row_[i] + j.
    std::vector<std::size_t> row_;
    std::vector<Quad> pair_;
    std::vector<SplitCounts> single_;
    std::vector<std::int64_t> forced_;
    std::vector<std::uint32_t> active_;
    std::vector<std::uint32_t> cursor_;  // per class, during count(): the row being summed
    SplitCounts total_;
    std::int64_t total_forced_ = 0;
};

}  // namespace fairlist
