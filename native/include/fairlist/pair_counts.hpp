// The counts of the terminal solver (terminal_solver.hpp): the last two rules of a length-capped
// search found by counting.
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
// search finishes P by counting, as soon as P is created: the counts of every antecedent and of
// every pair of antecedents on the samples P leaves uncaptured (PairCounts below), then an
// enumeration of the candidates' labels that checks fairness exactly, with the same fair()
// (unfairness() and is_fair()) as everywhere, on the completed confusion counts.  P is neither
// queued nor expanded, and the prefixes of L - 1 rules are never created: the deepest level of
// the trie, most of it, is not stored.
//
// Counting.  An antecedent captures a class of identical samples (rule_data.hpp) whole, and the
// classes P leaves uncaptured satisfy none of P's antecedents, so the counts are sums of class
// counts: each uncaptured class adds its counts to every antecedent it satisfies and to every
// pair of them, d_e^2 additions for a class satisfying d_e antecedents (on COMPAS, 224 classes
// with d_e about 39: about 150,000 for a prefix of two rules; each pair is kept twice, (i, j)
// and (j, i), so that the scan over j for one i reads one contiguous row).  The prefixes finished
// are the children of one expanded prefix Q, one after the other, and child Q + r leaves
// uncaptured Q's classes minus those r captures; so Q's counts are taken once, and each child's
// are Q's minus those of the classes r captures (the similarity of MurTree, Q being the cached
// neighbour), or counted afresh when that is cheaper (PairCounts::cost tells).  On large tables
// the classes are counted by popcounts of class bitsets instead, where that is less work: those
// of one sample (Config::use_class_pair_counts) and the others through the bit planes of their
// weights (Config::use_weight_plane_counts), and the pair rows of a sparse set on a copy of the
// bit layout packed to that set's bits (Diagnostics::packed_pair_counts); the arguments in
// pair_counts.cpp.
//
// Exactness: the enumeration (terminal_solver.cpp) visits every list of the space below P with
// one or two more rules, except lists it proves no better than one it visits or than the
// incumbent, and offers as incumbent each visited one that is fair and beats it; see the
// argument there.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "fairlist/bitset.hpp"
#include "fairlist/rule_data.hpp"
#include "fairlist/stop.hpp"

namespace fairlist {

// What a second rule (j, q) after the first rule i of a completion must achieve to be worth an
// exact check (PairCounts::gainers), for each label q1 of rule i.  The default predicts 1 - q;
// b = j's samples after i.
struct SecondRuleScreen {
    // Least gain b.label(q) - b.label(1 - q) for the list to beat the incumbent, per q1 (a huge
    // value when rule (i, q1) is not worth a second rule).
    std::int64_t need[2];
    // Linear fairness gaps (ClassFairnessBound::gap_coef; none for PP and CUAE): the list's
    // gap k is base[q1][k] + sign * sum over (g, y) of coef[k][2 g + y] b[g][y], and a list
    // with |gap k| > cap for some k is unfair (cap leaves a margin far above rounding).
    int n_gaps = 0;
    double coef[2][4] = {};
    double base[2][2] = {};
    double sign = 1.0;
    double cap = 0.0;
};

// The antecedents a scan of second rules (j, q) may examine, with two upper bounds on a
// second rule's gain (PairCounts::gainers): same = label(q, j) and net = label(q, j) -
// label(1 - q, j), side by side for a branch-free filter.  Counts and their differences are
// sums of weights of distinct samples, below 2^31 in absolute value (TerminalSolver::applies).
struct SecondRuleCandidates {
    std::vector<std::uint32_t> ids;
    std::vector<std::int32_t> same, net;

    void clear() {
        ids.clear();
        same.clear();
        net.clear();
    }
    void add(std::uint32_t j, std::int64_t same_j, std::int64_t net_j) {
        ids.push_back(j);
        same.push_back(static_cast<std::int32_t>(same_j));
        net.push_back(static_cast<std::int32_t>(net_j));
    }
};

// A run of words of a set of classes in the bit order (PairCounts' bitwise counting): the words
// [start, start + len) of the bit order, their bits at at, at + 1, ... of a side array.
struct UnitRun {
    std::uint32_t start, len, at;
};

// One bit plane of the bitwise counting: the words [start, end) of the bit order hold the
// classes whose weight in `cell` (2 g + y for (group, label); 4: the class's forced errors)
// has bit `shift` set.
struct BitPlane {
    std::uint32_t start, end;
    int cell, shift;
};

// Counts of the samples of a set of classes captured by each antecedent and by each pair of
// antecedents, by (group, label), and the equivalent-points errors each antecedent captures:
// those of one set ("base"), or of a base minus a subset of its classes.
class PairCounts {
 public:
    // stop: polled while counting (may be null); once it has stopped, the counts are partial and
    // must not be used (count() starts afresh).  bitwise: count the unit classes by popcounts
    // where that is less work (Config::use_class_pair_counts); planes: with bitwise, the
    // classes of more than one sample or weight too, by the bit planes of their weights
    // (Config::use_weight_plane_counts); packed: with bitwise, the pair rows of a set whose
    // bits are sparse in the layout on the layout packed to its bits (Diagnostics::
    // packed_pair_counts); mirrored: with bitwise, a pair (a, b) whose (b, a) is counted
    // copied, not counted again (Diagnostics::mirrored_pair_rows).  The same counts whatever
    // the switches.
    PairCounts(const RuleData& data, StopCheck* stop, bool bitwise = true, bool planes = true,
               bool packed = true, bool mirrored = true);

    // Counts the classes in `classes` (words_for(n_classes) words) as the base, with every
    // pair row.  An antecedent of the prefix that left them uncaptured captures none of them,
    // so it is not active().
    void count(const word_t* classes);
    // From now on the counts are the base's minus those of `removed` (a subset of the base's
    // classes); replaces an earlier removal.  Single counts at once, pair rows by count_rows.
    void remove(const word_t* removed);
    // The same where removed is the base's classes that antecedent `rule` captures: their
    // single counts are then the base's pair row of `rule` (with the planes, see
    // pair_counts.cpp), not counted again.
    void remove(const word_t* removed, std::uint32_t rule);
    // Counts `classes` afresh, without touching the base; until the next count() or remove(),
    // the counts are theirs.  Single counts at once, pair rows by count_rows.
    void count_alone(const word_t* classes);
    // Makes the pair rows of these active antecedents available to set_row (after remove or
    // count_alone: only the rows a scan needs are counted).  columns (ascending; null: all):
    // the only pairs (a, b) read until the next count_rows, count or remove (pair(b) and the
    // scans of gainers); the others of these rows may then be left wrong.
    void count_rows(const std::vector<std::uint32_t>& rows,
                    const std::vector<std::uint32_t>* columns = nullptr);
    // The work of counting these classes' pair rows (pair_counts.cpp, "Costs"): the less of
    // class by class (sum of d_e^2) and by popcounts where the classes are laid out.
    std::int64_t cost(const word_t* classes) const;
    // After count(): whether the base's classes in `removed` cost less than the others of the
    // base (cost(removed) < cost(base's classes minus removed)), scanning `removed` only.
    bool cheaper_to_remove(const word_t* removed) const;
    // Bytes its tables hold (allocated once, in the constructor: two pair tables of m^2 Quads).
    std::size_t bytes() const;

    // Antecedents that capture at least one of the counted samples, ascending.
    const std::vector<std::uint32_t>& active() const { return active_; }
    // Samples antecedent j captures.
    const SplitCounts& single(std::uint32_t j) const { return single_[j]; }
    // Equivalent-points errors among them (sum of min(pos, neg) over their classes).
    std::int64_t forced(std::uint32_t j) const { return forced_[j]; }
    // Samples of label y that antecedent j captures (single(j).label(y)).
    std::int64_t label(int y, std::uint32_t j) const { return label_[y][j]; }
    // Appends to *out, in the order of `candidates`, those j != i that pass `screen` as second
    // rule (j, q) after i for some first label (candidates: active antecedents, with every one
    // that can pass; see pair_counts.cpp).  Returns how many it examined.
    std::size_t gainers(std::uint32_t i, int q, const SecondRuleCandidates& candidates,
                        const SecondRuleScreen& screen, std::vector<std::uint32_t>* out) const;
    // The samples i and j both capture (i != j, both active), through i's row (counted):
    // set_row(i) first, then pair(j) for each j.
    void set_row(std::uint32_t i) {
        plus_row_ = plus_->pair.data() + i * m_;
        minus_row_ = minus_ != nullptr && minus_->has_row(i) ? minus_->pair.data() + i * m_
                                                             : nullptr;
    }
    SplitCounts pair(std::uint32_t j) const {
        const Quad& p = plus_row_[j];
        if (minus_row_ == nullptr) return split(p);
        const Quad& q = minus_row_[j];
        return split(Quad{{p.v[0] - q.v[0], p.v[1] - q.v[1], p.v[2] - q.v[2], p.v[3] - q.v[3]}});
    }

 private:
    // The counts of one class or pair in 16 bytes (one vector addition): (group, label)
    // 00, 01, 10, 11.  32 bits suffice: TerminalSolver::applies requires a total weight below
    // 2^31, and every count here is a sum of weights of distinct samples.
    struct alignas(16) Quad {
        std::int32_t v[4];
    };
    // The counts of one set of classes (`classes`).  The single counts are all valid; row a
    // (the pairs (a, b), all b, at a * m + b) only once counted for this set (stamp[a] ==
    // epoch), else it reads as zero.  Both (a, b) and (b, a) are stored, so that a scan over b
    // for one a reads one contiguous row.
    struct Table {
        std::vector<word_t> classes;
        std::vector<Quad> pair;
        std::vector<SplitCounts> single;
        std::vector<std::int64_t> forced;
        std::vector<std::uint32_t> stamp;
        std::uint32_t epoch = 0;
        std::vector<word_t> units;  // its classes' bits in the bit order (bitwise counting)
        // Per row: 0 when counted for every column, else the count_rows call (rows_call_)
        // that counted it for its columns only.
        std::vector<std::uint64_t> part;
        bool has_row(std::uint32_t a) const { return stamp[a] == epoch; }
        // The packed layout of these classes (pair_counts.cpp, Diagnostics::packed_pair_counts):
        // antecedent b's bits of the pair planes at the positions of `units`' bits, plane by
        // plane, each plane from a word boundary (pplanes: the pair planes' words there), in
        // prow[b * pw .. (b + 1) * pw), valid once pstamp[b] == pepoch (packed on demand).
        // pwords: the nonzero words of units in the pair planes, ascending; pseg[p]: where
        // plane p's begin.  packed: the pair rows of this set are counted on it.
        bool packed = false;
        std::vector<BitPlane> pplanes;
        std::vector<std::uint32_t> pwords, pseg;
        std::size_t pw = 0;
        std::vector<word_t> prow;
        std::vector<std::uint32_t> pstamp;
        std::uint32_t pepoch = 0;
        // Words of `classes` holding a class not laid out (added class by class), ascending.
        std::vector<std::uint32_t> rest;
        // live[b]: single[b].total() > 0, n_live of them, valid once live_epoch == epoch
        // (count_row's; a byte per antecedent, where a SplitCounts spans a kilobyte).
        std::vector<std::uint8_t> live;
        std::size_t n_live = 0;
        std::uint32_t live_epoch = 0;
        // n_live_columns: those among the columns of count_rows call live_call (0: none).
        std::size_t n_live_columns = 0;
        std::uint64_t live_call = 0;
        // pair_bits: the bits of `units` in the pair planes (fill_bits).
        std::int64_t pair_bits = 0;
    };

    const RuleData& data_;
    StopCheck* stop_;
    std::size_t m_;
    bool bitwise_;
    bool planes_on_;  // Config::use_weight_plane_counts (with bitwise_)
    bool packed_on_;    // Diagnostics::packed_pair_counts (with bitwise_)
    bool mirrored_on_;  // Diagnostics::mirrored_pair_rows (with bitwise_)
    // The classes counted by popcounts (pair_counts.cpp): each has one bit in each bit plane
    // of its weights (planes_, in their own words; the unit classes, one sample of weight 1,
    // one bit in the plane 0 of their (group, label)).  bit_any_: these classes, in the class
    // order; class e's bits are bit_pos_[bit_off_[e] .. bit_off_[e + 1]); bit_rule_: per
    // antecedent, the bits of the classes it captures (bit_words_ words each).  planes_: those
    // of the cells (group, label) first (the first pair_planes_: the pair rows' counts), then
    // those of the forced errors (the single counts' only).  Each plane sorted so that the
    // classes of one prefix's sets lie close together.
    std::vector<word_t> bit_any_, bit_rule_;
    std::vector<std::uint32_t> bit_off_, bit_pos_;
    std::size_t bit_words_ = 0;
    std::vector<BitPlane> planes_;
    std::size_t pair_planes_ = 0;
    double bit_degree_ = 0.0;  // additions class by class that one bit replaces (mean d_e / bits)
    // Scratch of the bitwise counts: the words of a bit set, as runs of consecutive words
    // (gaps of a few zero words filled) with their bits side by side in word_masks_, where
    // each plane's runs start (seg_), the planes with runs, and the antecedents to count on them.
    std::vector<UnitRun> runs_;
    std::vector<std::uint32_t> targets_, mirrors_;  // mirrors_: copied, not counted
    std::vector<word_t> word_masks_;
    std::vector<std::size_t> seg_;
    std::size_t busy_planes_ = 0;
    std::uint64_t rows_call_ = 0;  // count_rows calls so far
    std::vector<std::int32_t> sums_;  // m x 8: count_singles' bitwise counts (cells 0..4)
    // The antecedents each class satisfies, ascending: class e's are
    // features_[offsets_[e] .. offsets_[e + 1]).
    std::vector<std::uint32_t> offsets_, features_;
    std::vector<SplitCounts> class_counts_;   // each class's counts (k = 2)
    std::vector<Quad> class_quad_;            // the same in 32 bits
    std::vector<std::int64_t> class_forced_;  // min(pos, neg) of each class
    std::vector<std::int64_t> class_cost_;    // d_e^2
    std::vector<std::int64_t> class_bit_cost_;  // the same by popcounts where laid out
    std::int64_t set_cost_ = 0;               // the popcounts' fixed work on a set
    std::int64_t base_cost_[2] = {0, 0};      // sums() of the base's classes
    // Sums of class_cost_ and class_bit_cost_ over these classes.
    void sums(const word_t* classes, std::int64_t* out) const;
    Table base_, other_;
    const Table* plus_ = &base_;    // the counts are plus_'s
    const Table* minus_ = nullptr;  // minus minus_'s, when not null
    std::vector<std::uint32_t> active_;
    std::vector<SplitCounts> single_;  // the view's (plus_ - minus_)
    // The same, packed (group, label) 00, 01, 10, 11 for the scan of gainers (a SplitCounts has
    // room for kMaxGroups groups: a row of them would spread over a kilobyte per antecedent).
    struct Four {
        std::int64_t v[4];
    };
    std::vector<Four> single4_;
    std::vector<std::int64_t> forced_;
    std::vector<std::int64_t> label_[2];  // single_[j].label(y)
    const Quad* plus_row_ = nullptr;   // set_row's
    const Quad* minus_row_ = nullptr;

    void count_singles(Table& t, const word_t* classes);
    // count_singles on the base's classes that `rule` captures: from the base's row of `rule`
    // (the forced errors by their planes, or class by class).
    void singles_from_row(Table& t, const word_t* classes, std::uint32_t rule);
    // t.units: the bits of these classes (bitwise counting); t.rest; and t's packed layout
    // planned (pack_rows fills it).  rule_bits (not null): an antecedent's bit_rule_, where
    // `classes` are the base's that it captures: their bits are then the base's units & its
    // bits (a class's bits are where bit_rule_ marks the classes it captures), one AND a word.
    void fill_bits(Table& t, const word_t* classes, const word_t* rule_bits = nullptr);
    // Packs the rows of these antecedents that t's packed layout lacks.
    void pack_rows(Table& t, const std::uint32_t* ids, std::size_t n);
    // Row a of t: every column, or (columns not null) at least those columns.  share: the rows
    // of t left to count in this pass, a included (the packing's cost is shared among them).
    void count_row(Table& t, std::uint32_t a, const std::vector<std::uint32_t>* columns,
                   std::size_t share);
    // The constructor's, with bitwise counting: the classes counted by popcounts and their
    // planes (with_planes: every class within a memory budget; else the unit classes).
    void lay_out_bits(bool with_planes);
    // The bitwise path: collects into runs_ / word_masks_ / seg_ the bits of units & extra
    // (either null: all ones; extra: an antecedent's row) in the planes [first, last) of
    // `planes` (planes_, or a packed layout's), and returns their number.  The work per
    // antecedent of counting them is dense_work().
    std::int64_t collect_units(const word_t* units, const word_t* extra, const BitPlane* planes,
                               std::size_t first, std::size_t last);
    // Adds to out[stride * b + cell] (for b in targets_) the weights of the collected classes
    // that b captures in each of the planes [first, last)'s cells, reading b's bits in
    // rules[b * uw ..] (bit_rule_, or a packed layout's rows) laid out as `planes`.  False when
    // a poll stopped the search (out partial).
    bool add_units(std::int32_t* out, std::size_t stride, const word_t* rules, std::size_t uw,
                   const BitPlane* planes, std::size_t first, std::size_t last);
    double dense_work() const;
    template <int Q, int Gaps>
    std::size_t scan_gainers(std::uint32_t i, const SecondRuleCandidates& candidates,
                             const SecondRuleScreen& screen,
                             std::vector<std::uint32_t>* out) const;
    void make_view();
    static SplitCounts split(const Quad& q);
};

}  // namespace fairlist
