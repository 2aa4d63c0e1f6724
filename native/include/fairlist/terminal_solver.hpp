// The terminal solver: a prefix two rules short of the length cap finished by counting instead
// of expanded (the argument, and the counts, are in pair_counts.hpp; the enumeration's cuts in
// terminal_solver.cpp).  Each worker owns one: its counts and buffers are scratch of the
// prefix being finished.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "fairlist/bitset.hpp"
#include "fairlist/child_bounds.hpp"
#include "fairlist/class_bound.hpp"
#include "fairlist/context.hpp"
#include "fairlist/counts.hpp"
#include "fairlist/frontier.hpp"
#include "fairlist/incumbent.hpp"
#include "fairlist/list_sink.hpp"
#include "fairlist/pair_counts.hpp"
#include "fairlist/rashomon.hpp"
#include "fairlist/result.hpp"
#include "fairlist/rule_data.hpp"
#include "fairlist/stop.hpp"
#include "fairlist/trie.hpp"

namespace fairlist {

class TerminalSolver {
 public:
    // Above this many antecedents the pair counts (2 tables of 16 bytes a pair, both orders)
    // would pass 32 MiB: the search then expands every prefix.
    static constexpr std::size_t kMaxAntecedents = 1024;
    // Whether the terminal solver can run on these data; where it cannot, Config's
    // use_terminal_solver is ignored and every prefix is expanded (exact either way):
    //  * at most kMaxAntecedents antecedents;
    //  * two groups: its counts, pair rows and fairness screen are laid out for (group, label)
    //    in 2 x 2 (Quad, SecondRuleScreen, ClassFairnessBound::gap_coef of the one pair);
    //  * a total weight below 2^31: a pair count is a sum of weights of distinct samples, kept
    //    in 32 bits (Quad), so it cannot overflow.
    static bool applies(const RuleData& data) {
        return data.n_antecedents() <= kMaxAntecedents && data.n_groups() == 2 &&
               data.total_weight() <= std::int64_t{0x7fffffff};
    }

    // poll and stats: the owning worker's.
    TerminalSolver(const SearchContext& ctx, Incumbent& incumbent, StopCheck& poll, Stats& stats);

    // The Rashomon mode's store (null: off): every fair list within the cutoff is recorded.
    void set_rashomon(RashomonStore* store) {
        rashomon_ = store;
        sink_.set_rashomon(store);
    }

    // A new expanded prefix: its classes are counted afresh by the next finish_child.
    void begin_expansion() {
        base_ = false;
        counted_ = Trie::kNone;
        ++expansion_;
    }
    // Evaluates by counting every list with one or two more rules below a popped prefix (its
    // walk, the floor of its bound, its length, its uncaptured classes, its rules in *path),
    // instead of expanding it.  The stop check says whether a poll cut it short.
    void finish_prefix(const Walk& prefix, std::int64_t floor, std::size_t depth,
                       const word_t* classes, std::vector<std::uint32_t>* path);
    // The same for a child of the prefix being expanded (its rule, k, counts, errors and bound
    // lb_errors; the prefix's uncaptured classes parent_classes), as soon as it is created: it is
    // never queued.  path: the child's parent_path, extended while it counts, then restored.
    void finish_child(const ChildRecord& child, const word_t* parent_classes,
                      std::vector<std::uint32_t>* path);
    // Bytes of its count tables (PairCounts: fixed once constructed; one per worker).
    std::size_t bytes() const { return counts_.bytes(); }

 private:
    // A prefix to finish: its counts, the floor of its bound, its length and its uncaptured
    // classes (its rules are *path).
    struct Finish {
        Fixed fixed;
        std::int64_t errors;
        SplitCounts free;
        std::int64_t forced_free;
        std::int64_t floor;
        std::size_t depth;
        const word_t* classes;
        // The child's last rule (antecedent << 1 | label) when it is a child of the expansion
        // (finish_child), else kNoRule.
        std::uint32_t last = kNoRule;
    };
    static constexpr std::uint32_t kNoRule = 0xffffffffU;
    // A first rule (i, q1) of a completion, per label q1: its errors and counts, and whether a
    // second rule can still beat the incumbent; rest1: the samples it leaves.
    struct First {
        std::uint32_t i;
        SplitCounts rest1;
        bool second[2] = {false, false};
        std::int64_t e1[2] = {0, 0};
        Fixed f1[2];
    };
    // Margin of the fairness screen over epsilon + kFeasibilityTol: far above the rounding of
    // the gaps (about 1e-14), so it never discards a list the exact check would find fair.
    static constexpr double kScreenMargin = 1e-7;

    const SearchContext& ctx_;
    Incumbent& incumbent_;
    StopCheck& poll_;
    Stats& stats_;
    PairCounts counts_;
    // Its own class bound (the expansion's stays prepared for the siblings), prepared for the
    // prefix being finished.
    ClassFairnessBound bound_;
    int screen_gaps_ = 0;  // its linear gaps screening the second rules (0: none)
    SplitCounts positive_;                    // bound_.majority_positive
    SecondRuleCandidates candidates_[2];  // of the second rules (j, q), per q
    std::vector<std::uint32_t> gainers_;  // PairCounts::gainers'
    std::vector<First> firsts_;
    std::vector<std::uint32_t> rows_;         // their antecedents
    std::vector<std::uint32_t> columns_;      // the antecedents of candidates_[0] and [1]
    std::vector<word_t> classes_;             // the classes of the child being finished
    std::vector<word_t> removed_;             // the classes its last rule captures
    RashomonStore* rashomon_ = nullptr;       // the Rashomon mode's store (null: off)
    ListSink sink_;                           // where the lists it counts go (ListSink::offer)
    bool base_ = false;                       // the expanded prefix's classes are counted
    // Per label q and antecedent j: the expansion (expansion_) in which child (j, q) was last
    // finished by finish_child, completely (first_rules' sibling symmetry).
    std::vector<std::uint64_t> finished_in_[2];
    std::uint64_t expansion_ = 0;
    std::uint32_t counted_ = Trie::kNone;     // the child rule's antecedent counted

    // Every list with one or two more rules below p (its rules in *path, its counts in
    // counts_), offered as incumbent when fair and better.
    void enumerate(const Finish& p, std::vector<std::uint32_t>* path);
    // The candidates of the second rules of lists of length k2 after firsts_ (candidates_;
    // see terminal_solver.cpp).
    void collect_candidates(std::size_t k2);
    // The one-rule lists, and the first rules worth a second one (firsts_, rows_).
    bool first_rules(const Finish& p, std::vector<std::uint32_t>* path);
    // The two-rule lists after one first rule.
    void second_rules(const First& first, std::size_t k2, std::vector<std::uint32_t>* path);
    // The Rashomon mode: the two-rule lists after `first` whose default predicts like their
    // last rule (terminal_solver.cpp).
    void same_label_lists(const First& first, std::size_t k2, std::vector<std::uint32_t>* path);
    // The screen of the second rules (q2) after `first`, given the most errors e_max.
    SecondRuleScreen make_screen(const First& first, int q2, std::int64_t e_max) const;
    // The bounds of evaluate_child (fairness_bounds) on a first-rule child of the prefix whose
    // uncaptured classes are `classes` (out of line).
    bool bound_child(const ChildRecord& child, const word_t* classes, ErrorBound* b);
    // The most errors a list of this length can make and still beat the incumbent (-1: none;
    // with canonical ties, or tie it).
    std::int64_t max_errors(std::size_t length) const;
};

}  // namespace fairlist
