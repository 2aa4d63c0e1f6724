// The fairness-constrained branch-and-bound over rule lists (CORELS with a fairness cap).
//
// A Search owns every structure it uses (data copy, trie, queue, permutation map): no global
// state, so two searches can run at once in two threads.  run() is the one entry point and
// runs without the Python GIL; request_stop() and progress() may be called from another thread
// while it runs.
//
// Search space.  A node is a prefix of (antecedent, prediction) rules; a rule list is a prefix
// plus a default prediction.  In the full space (the default) every rule and the default may
// predict either label; with majority_only they must predict a label at least as frequent as
// the other among the samples they capture (CORELS' restriction; both labels on a tie).
// Without a constraint the two spaces have the same optimum (relabelling a rule or the default
// with its majority label removes errors and changes nothing else), so the search then keeps to
// the majority space whatever majority_only says: half the children, the same certificate.
//
// Bounds, all valid under the fairness constraint (see bounds.hpp for the arguments):
// hierarchical lower bound, lookahead, maximum useful length, equivalent points, the fairness
// lower bound (fairness_bound.hpp), and — only where safe — the support bounds (no constraint)
// and the permutation map (keyed by the captured samples, plus the per-(group, label) positive
// predictions on them when a constraint is active).
//
// Groups and weights.  The sensitive attribute has k >= 2 groups (codes 0 .. k-1; with two,
// 0 is the protected one) and each sample an integer weight (fairlist.solvers.bnb turns real
// weights into integers); every count is a sum of weights, the objective is weighted errors over
// the total weight plus lam times the length, and the search runs over the distinct weighted rows
// (rule_data.hpp).  With two groups and unit weights the fairness bound is the exact integer one
// of fairness_bound.cpp; otherwise its real-valued relaxation over every group
// (fairness_bound_groups.cpp).
#pragma once

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "fairlist/bitset.hpp"
#include "fairlist/bound_tracker.hpp"
#include "fairlist/class_bound.hpp"
#include "fairlist/fairness_bound.hpp"
#include "fairlist/permutation_map.hpp"
#include "fairlist/queue.hpp"
#include "fairlist/rule_data.hpp"
#include "fairlist/stop.hpp"
#include "fairlist/terminal.hpp"
#include "fairlist/trie.hpp"

namespace fairlist {

enum class SearchStatus : int {
    OPTIMAL = 0,     // search completed with a fair rule list: it is optimal (in the space)
    FEASIBLE = 1,    // a limit stopped the search; best fair rule list so far
    INFEASIBLE = 2,  // search completed without a fair rule list: none exists (in the space)
    UNKNOWN = 3,     // a limit stopped the search before any fair rule list was found
};

// The objective and the constraint.
struct ProblemSpec {
    Metric metric = Metric::SP;
    bool constrained = false;  // false: no fairness cap (epsilon ignored)
    double epsilon = 0.0;      // maximum unfairness
    double lam = 0.0;          // length penalty per rule
};

// Options and limits of one search.  Every bound can be switched off (for tests and ablations).
struct Config {
    Policy policy = Policy::BFS;
    bool majority_only = false;         // CORELS' majority-label search space
    std::int64_t max_length = -1;       // longest rule list considered; < 0: no cap
    bool use_hierarchical_bound = true; // errors on the captured samples count in the bound
    bool use_lookahead = true;          // a child has one more rule: lb + lam >= best prunes
    bool use_length_bound = true;       // maximum useful length: lam * length < best
    bool use_equivalent_points = true;  // identical samples with different labels force errors
    bool use_fairness_bound = true;     // fairness lower bound (with a constraint; see use_sample_bound_)
    bool use_class_bound = true;        // its equivalence-class LP version (class_bound.hpp)
    bool use_permutation_map = true;    // safe permutation map (see permutation_map.hpp)
    bool use_support_bounds = true;     // accurate-support bound (only without a constraint)
    // Under a length cap, finish each prefix two rules short of it by counting (terminal.hpp)
    // instead of expanding it and its children; the same lists are evaluated.  Ignored where
    // Search::terminal_applies() is false (more than two groups, a total weight of 2^31 or
    // more, more than 1,024 antecedents).
    bool use_terminal_solver = true;
    std::int64_t max_nodes = 0;         // stop when the trie holds this many nodes; 0: none
    double time_limit = 0.0;            // seconds; <= 0: none
    double memory_limit_mb = 0.0;       // MiB held by the search structures; <= 0: none
    std::uint64_t seed = 0;             // 0: ties broken by insertion order; else seeded hash
    // The permutation map keeps its counts in 16 bits below 65,536 samples; true keeps them in
    // 32 bits whatever the size (the layout used above it), so tests can run it on small data.
    bool wide_map_counts = false;
    // Width of the beam search run before the branch-and-bound for a first incumbent (beam.cpp);
    // 0: none.  It changes what a limited search returns, never a certificate.
    std::int64_t beam_width = 0;
    // Length deepening: before the main search, certify the optimum among lists of at most
    // 1, 2, ..., deepen_length rules (each a search capped at that length, knowing the shorter
    // ones certified); the main search then knows that no list of at most deepen_length rules
    // beats the incumbent, so every prefix's bound counts at least deepen_length + 1 rules.
    // 0: none.  A certificate either way; under limits it trades nodes for better lists.
    std::int64_t deepen_length = 0;
    // Stop (status FEASIBLE, stop reason GAP_LIMIT) once the incumbent's objective is within
    // this of the global lower bound (Progress::lower_bound); <= 0: none.  The result then
    // carries its guaranteed gap: objective - lower_bound <= gap_tolerance.
    double gap_tolerance = 0.0;
};

struct Stats {
    std::int64_t nodes_expanded = 0;      // nodes whose children were generated
    std::int64_t children_evaluated = 0;  // (antecedent, prediction) children evaluated
    std::int64_t nodes_created = 0;       // children inserted into the trie
    std::int64_t peak_trie_size = 0;      // live trie nodes, at most
    std::int64_t peak_queue_size = 0;
    std::int64_t pruned_by_bound = 0;     // children whose lower bound (+ lookahead) >= best
    std::int64_t pruned_on_pop = 0;       // queued nodes pruned when popped (best improved)
    std::int64_t pruned_infeasible = 0;   // children with no fair completion (fairness bounds)
    std::int64_t pruned_class_bound = 0;  // children pruned thanks to the class bound
    std::int64_t pruned_support = 0;      // children failing the accurate-support bound
    std::int64_t pruned_length = 0;       // children beyond the maximum useful length
    std::int64_t permutation_hits = 0;    // children dropped by the permutation map
    std::int64_t incumbent_updates = 0;   // improvements of the best rule list
    std::int64_t fairness_bound_calls = 0;
    std::int64_t terminal_prefixes = 0;   // prefixes finished by counting (terminal.hpp)
    std::int64_t terminal_lists = 0;      // their two-rule completions examined (all labels)
    std::int64_t peak_memory_bytes = 0;   // trie + queue + permutation map, at most
    double beam_objective = 0.0;          // best objective after the beam search (inf: none fair)
    double beam_seconds = 0.0;            // time the beam search took
    // No list of at most this many rules beats the result (length deepening; the whole search
    // space when the status is optimal).
    std::int64_t certified_length = 0;
    double seconds = 0.0;
    std::int64_t n_rows = 0;     // distinct weighted rows searched over (rule_data.hpp)
    std::int64_t n_classes = 0;  // classes of identical antecedent bits
};

// A snapshot of a running search (safe to take from another thread).
struct Progress {
    std::int64_t nodes_expanded = 0;
    std::int64_t children_evaluated = 0;
    std::int64_t trie_size = 0;
    std::int64_t queue_size = 0;
    std::int64_t depth = 0;       // depth of the last expanded node
    double best_objective = 0.0;  // +inf while no fair rule list is known
    double seconds = 0.0;
    std::int64_t certified_length = 0;  // Stats::certified_length so far (length deepening)
    // A proved lower bound on the optimum so far (0 before the search; the optimum once it is
    // certified): best_objective - lower_bound is the gap still open.
    double lower_bound = 0.0;
};

struct SearchResult {
    SearchStatus status = SearchStatus::UNKNOWN;
    StopReason stop_reason = StopReason::COMPLETED;
    bool has_solution = false;
    std::vector<std::uint32_t> antecedents;  // rule k's antecedent index
    std::vector<std::uint8_t> predictions;   // rule k's prediction (0/1)
    int default_prediction = 0;
    std::int64_t errors = 0;   // weight of the misclassified samples (integer weights' units)
    double objective = 0.0;    // errors / total weight + lam * length (+inf without a solution)
    double lower_bound = 0.0;  // proved lower bound on the optimum (== objective if optimal)
    Stats stats;
};

class Search {
 public:
    // rules: n_antecedents x words_for(n_samples) words; labels: words_for(n_samples) words;
    // groups: n_samples codes in [0, n_groups) (two groups: 0 protected); weights: n_samples
    // integer weights >= 0 adding up to at most 2^31, or nullptr for unit weights.  Everything
    // is copied.
    Search(const word_t* rules, const word_t* labels, const std::int32_t* groups,
           const std::int64_t* weights, std::size_t n_samples, std::size_t n_antecedents,
           int n_groups, const ProblemSpec& problem, const Config& config);
    Search(const Search&) = delete;
    Search& operator=(const Search&) = delete;

    // Offers a starting rule list (warm start).  Returns false (and ignores it) when it is not
    // fair, is longer than max_length, or is not in the searched space; call before run().
    bool set_initial(const std::vector<std::uint32_t>& antecedents,
                     const std::vector<std::uint8_t>& predictions, int default_prediction);

    // Runs the search to completion or to a limit.  Call once.
    SearchResult run();

    // Asks a running search to stop at the next node (thread-safe).
    void request_stop() noexcept { stop_.store(true, std::memory_order_relaxed); }

    Progress progress() const noexcept;

 private:
    // Per-group confusion counts of the samples a prefix captures (counts.hpp).
    using Fixed = fairlist::Fixed;
    // A prefix walked from the root (walk_prefix).
    struct Walk {
        Fixed fixed;                   // confusion counts of the samples it captures
        std::int64_t errors = 0;       // errors on them
        SplitCounts free;              // the samples it leaves uncaptured, by (group, label)
        std::int64_t forced_free = 0;  // equivalent-points errors among those
    };
    // A child's lower bound on the errors of its completions (evaluate_child): the captured
    // samples' errors plus the best bound so far on the uncaptured ones, and at least the
    // parent's bound.
    struct ErrorBound {
        std::int64_t fixed;  // errors on the captured samples (0 without the hierarchical bound)
        std::int64_t rest;   // errors forced on the uncaptured samples: the best bound so far
        std::int64_t floor;  // the parent's bound (0 without the hierarchical bound)
        std::size_t length;  // fewest rules of a completion of interest (bound_length)
        std::int64_t errors() const { return std::max(fixed + rest, floor); }
    };
    // The permutation-map key of a child: the counts of key_counts() and the hash of those and
    // of its uncaptured classes (child_classes_).
    struct MapKey {
        std::uint32_t counts[PermutationMap::kMaxKey];  // the first key_counts() used
        std::uint64_t hash = 0;
    };

    RuleData data_;
    ProblemSpec problem_;
    Config config_;
    std::size_t max_length_;  // effective cap on the length (of the running phase)
    // Lists shorter than this are known not to beat the incumbent (length deepening), so a
    // prefix's completions of interest have at least this many rules.
    std::size_t min_length_ = 0;
    double n_;                // total weight (the number of samples without weights)
    Trie trie_;
    NodeQueue queue_;
    PermutationMap pmap_;
    ClassFairnessBound class_bound_;
    // The terminal solver's counts (null when it is off; see kMaxTerminalAntecedents).
    std::unique_ptr<PairCounts> pair_counts_;
    std::vector<std::uint32_t> by_label_[2];  // its active antecedents by samples of label q
    std::vector<std::uint32_t> gainers_;      // PairCounts::gainers'
    // A first rule (i, q1) of a completion, per label q1: its errors and counts, and whether a
    // second rule can still beat the incumbent; rest1: the samples it leaves.
    struct First {
        std::uint32_t i;
        SplitCounts rest1;
        bool second[2] = {false, false};
        std::int64_t e1[2] = {0, 0};
        Fixed f1[2];
    };
    std::vector<First> firsts_;
    std::vector<std::uint32_t> rows_;  // their antecedents
    // Its own class bound (the expansion's stays prepared for the siblings), prepared for the
    // prefix being finished; null without the class bound.
    std::unique_ptr<ClassFairnessBound> terminal_bound_;
    int screen_gaps_ = 0;  // its linear gaps screening the second rules (0: none)
    // Margin of that screen over epsilon + kFeasibilityTol: far above the rounding of the
    // gaps (about 1e-14), so it never discards a list the exact check would find fair.
    static constexpr double kScreenMargin = 1e-7;
    SplitCounts terminal_positive_;           // terminal_bound_->majority_positive
    std::vector<word_t> terminal_classes_;    // the classes of the child being finished
    std::vector<word_t> removed_classes_;     // the classes its last rule captures
    bool terminal_base_ = false;              // the expanded prefix's classes are counted
    std::uint32_t terminal_counted_ = Trie::kNone;  // the child rule's antecedent counted
    // Above this many antecedents the pair counts (2 tables of 16 bytes a pair, both orders)
    // would pass 32 MiB: the search then expands every prefix.
    static constexpr std::size_t kMaxTerminalAntecedents = 1024;
    // Whether the terminal solver can run on these data; where it cannot, Config's
    // use_terminal_solver is ignored and every prefix is expanded (exact either way):
    //  * at most kMaxTerminalAntecedents antecedents;
    //  * two groups: its counts, pair rows and fairness screen are laid out for (group, label)
    //    in 2 x 2 (Quad, SecondRuleScreen, ClassFairnessBound::gap_coef of the one pair);
    //  * a total weight below 2^31: a pair count is a sum of weights of distinct samples, kept
    //    in 32 bits (Quad), so it cannot overflow.
    bool terminal_applies() const {
        return data_.n_antecedents() <= kMaxTerminalAntecedents && data_.n_groups() == 2 &&
               data_.total_weight() <= std::int64_t{0x7fffffff};
    }
    bool use_class_bound_;  // constrained, switched on, and the metric is handled
    // The per-sample fairness bound on each child: constrained and switched on, and not
    // redundant with the class bound.  With the class bound active and epsilon > 0 it is
    // skipped: on COMPAS (SP, EOdds at 0.05, 4M nodes) it pruned nothing the class bound had
    // not, while costing 15-25% of the time; over the six races and the twelve race x sex groups
    // (SP, EOpp, EOdds at 0.02-0.1, 300,000 nodes) it changed no lower bound, at 10% of the
    // time.  At epsilon = 0 integrality matters (the class bound is a linear relaxation), so
    // both run.
    bool use_sample_bound_;
    // Two groups and unit weights: the exact integer fairness bound (fairness_bound.cpp);
    // otherwise the real-valued one over k groups (fairness_bound_groups.cpp).
    bool exact_two_groups_;
    // Predictions keep to majority labels: majority_only, or no constraint (see the top).
    bool majority_labels_;
    Stats stats_;
    bool ran_ = false;

    // Incumbent.
    bool has_best_ = false;
    double best_objective_;
    std::int64_t best_errors_ = 0;
    std::vector<std::uint32_t> best_rules_;  // antecedent << 1 | prediction
    int best_default_ = 0;

    // Scratch space of one expansion (no allocation per child).
    std::vector<word_t> free_;           // samples not captured by the prefix being expanded
    std::vector<word_t> class_free_;     // its uncaptured equivalence classes
    std::vector<word_t> class_none_;     // the empty class set
    SplitCounts class_positive_;         // ClassFairnessBound::majority_positive(class_free_)
    std::vector<std::uint32_t> path_;    // its rules, root first
    std::vector<std::uint8_t> in_prefix_;  // antecedent in the prefix being expanded
    std::vector<word_t> child_classes_;  // uncaptured classes of the child being evaluated
    std::vector<word_t> other_classes_;  // those of a permutation-map candidate

    std::chrono::steady_clock::time_point start_;
    std::atomic<bool> stop_{false};
    // Polled inside a node (expansion, counting): the stop flag and the clock (stop.hpp).
    StopCheck poll_;
    // The bound of the node whose expansion or counting a poll cut short (+inf: none): its lists
    // were not all evaluated, so the lower bound at the stop counts it as if it were queued.
    double cut_bound_;
    std::atomic<std::int64_t> p_expanded_{0}, p_children_{0}, p_trie_{0}, p_queue_{0}, p_depth_{0},
        p_certified_{0};
    std::atomic<double> p_best_, p_lower_{0.0};

    // The global lower bound as the search runs (bound_tracker.hpp): the queued prefixes'
    // bounds, the root's errors and the whole run's length cap (lists beyond a
    // length-deepening phase's cap).
    BoundTracker tracked_;
    std::int64_t root_errors_ = 0;
    std::size_t full_length_ = 0;
    // The bound counted for a queued prefix of `depth` rules (the one run() reports at a stop).
    double queued_bound(std::int64_t lb_errors, std::size_t depth) const {
        return objective(lb_errors, std::max(depth + 1, min_length_));
    }
    double global_lower_bound();

    double objective(std::int64_t errors, std::size_t length) const {
        return static_cast<double>(errors) / n_ + problem_.lam * static_cast<double>(length);
    }
    bool fair(const Fixed& f) const;
    // The permutation map's key counts: what the metric's value depends on among the captured
    // samples' confusion counts, given the captured set (none without a constraint).
    int key_size() const;
    // An empty permutation map for this problem.
    PermutationMap new_map() const;
    static NodeQueue::Order queue_order(const Config& config);
    int key_counts(const Fixed& f, std::uint32_t* out) const;
    void offer_incumbent(std::int64_t errors, std::size_t length, const Fixed& counts,
                         std::uint32_t last_rule, int default_prediction);
    bool worth_expanding(const Node& node, std::size_t depth) const;
    // The fewest rules of a list of interest below a prefix of k rules (lookahead, min_length_).
    std::size_t bound_length(std::size_t k) const {
        return std::max(k + (config_.use_lookahead ? 1 : 0), min_length_);
    }
    // Maximum useful length (bounds.hpp): the lists not yet evaluated below a prefix of k rules
    // have at least k + 1 rules (and min_length_), so none beats the incumbent once lam times
    // that many reaches it.
    bool beyond_useful_length(std::size_t k) const {
        return config_.use_length_bound &&
               problem_.lam * static_cast<double>(std::max(k + 1, min_length_)) >= best_objective_;
    }
    // Walks a prefix from the root (rules: antecedent << 1 | prediction, n of them): leaves in
    // free (n_words words) the samples it does not capture and counts both sides in *walk.
    // Returns false, the walk unfinished, at the first rule that predicts the minority label of
    // the samples it captures when majority_only.
    bool walk_prefix(const std::uint32_t* rules, std::size_t n, word_t* free, Walk* walk,
                     bool majority_only = false) const;
    // Grows the trie from the root until the queue is empty or a limit stops it.  Sets
    // *root_errors to the root's bound on the errors; *peak_memory keeps the largest footprint.
    StopReason search_tree(std::int64_t* root_errors, std::size_t* peak_memory);
    // A fresh trie, queue and permutation map (between length-deepening phases).
    void reset_tree();
    // Recomputes the prefix of trie node `index` from its path: its rules (path_), the samples
    // and classes it leaves uncaptured (free_, class_free_) and its counts, and prepares the
    // class bound for its children; returns its length.
    std::size_t load_prefix(std::uint32_t index, Walk* prefix);
    void expand(std::uint32_t index);
    // The terminal solver (terminal.hpp).  A prefix to finish: its counts, the floor of its
    // bound, its length and its uncaptured classes (its rules are path_).
    struct Finish {
        Fixed fixed;
        std::int64_t errors;
        SplitCounts free;
        std::int64_t forced_free;
        std::int64_t floor;
        std::size_t depth;
        const word_t* classes;
    };
    // Evaluates by counting every list with one or two more rules below the popped prefix of
    // trie node `index`, instead of expanding it.
    void finish_by_counting(std::uint32_t index);
    // The same for child `child` (rule j, counts f, errors, u, forced_free, bound lb_errors,
    // k rules) of the prefix being expanded, as soon as it is created: it is never queued.
    void finish_child(std::uint32_t child, std::uint32_t j, const Fixed& f, std::int64_t errors,
                      const SplitCounts& u, std::int64_t forced_free, std::int64_t lb_errors,
                      std::size_t k);
    void enumerate_completions(const Finish& p);
    // The most errors a list of this length can make and still beat the incumbent (-1: none).
    std::int64_t max_errors(std::size_t length) const;
    // Whether the prefix of a node of this depth is finished by counting.
    bool finishes_by_counting(std::size_t depth) const {
        return pair_counts_ != nullptr && depth + 2 == max_length_;
    }
    // The beam search of beam.cpp: offers the fair lists it meets as incumbents.
    static constexpr std::size_t kBeamMaxLength = 8;
    void run_beam();
    // Child (j, q) of the prefix `prefix` (trie node parent, depth rules): offers its lists
    // "child + default", then bounds it and adds it to the trie unless a bound prunes it.
    // captured: the samples the rule captures; forced_free: the equivalent-points errors among
    // the samples it leaves uncaptured.
    void evaluate_child(std::uint32_t parent, std::size_t depth, std::uint32_t j, int q,
                        const SplitCounts& captured, std::int64_t forced_free,
                        const Walk& prefix);
    // Offers the fair lists "child + default" as incumbents; returns their fewest errors.
    std::int64_t offer_leaves(const Fixed& f, std::int64_t errors, const SplitCounts& u,
                              std::size_t k, std::uint32_t rule);
    // The fairness lower bound of fairness_bound.hpp on completions of fixed counts f with
    // uncaptured samples u: the exact two-group one or the k-group one (exact_two_groups_).
    FairnessBound sample_bound(const Fixed& f, const SplitCounts& u, std::int64_t work_budget) const;
    // The fairness bounds of child j of a prefix whose uncaptured classes are `classes` (the
    // class bound `cb` prepared for them, `positive` its majority_positive): false when one
    // prunes the child, else raises b->rest.
    bool fairness_bounds(ClassFairnessBound* cb, const word_t* classes,
                         const SplitCounts& positive, const Fixed& f, std::uint32_t j,
                         const SplitCounts& u, std::int64_t forced_free, ErrorBound* b);
    // The same, out of line, for the terminal solver.
    bool bound_child(ClassFairnessBound* cb, const word_t* classes,
                     const SplitCounts& positive, const Fixed& f, std::uint32_t j,
                     const SplitCounts& u, std::int64_t forced_free, ErrorBound* b);
    // Fills child_classes_ for child j, hashes them with the key counts, prefetches the slot.
    std::uint64_t map_hash(std::uint32_t j, const std::uint32_t* counts, int n_counts);
    // Leaves in other_classes_ the classes that trie node i's prefix leaves uncaptured; returns
    // its length.
    std::size_t stored_classes(std::uint32_t i);
    // Inserts a child that passed the bounds into the trie and (when enqueue) the queue, unless
    // the permutation map holds an equivalent prefix that dominates it; returns its node, or
    // Trie::kNone when it is dropped.
    std::uint32_t add_child(std::uint32_t parent, std::uint32_t rule, std::size_t k,
                            std::int64_t errors, std::int64_t lb_errors, double priority,
                            const MapKey& key, bool enqueue);
    double priority(std::int64_t lb_errors, std::int64_t leaf_errors, std::size_t depth,
                    std::int64_t n_captured) const;
    std::size_t memory_bytes() const;
    double elapsed() const;
    void publish_progress(std::size_t depth);
};

}  // namespace fairlist
