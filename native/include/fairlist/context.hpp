// What a search knows before it starts: the data, the objective and the constraint, the options,
// and what follows from them alone (the objective of a count, whether counts are fair, the
// permutation map's key, the lengths the bounds count).  Read-only while a phase runs, so every
// worker of a search reads one SearchContext; Search sets the phase (the length cap of a
// length-deepening phase) between phases.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>

#include "fairlist/config.hpp"
#include "fairlist/counts.hpp"
#include "fairlist/fairness_bound.hpp"
#include "fairlist/incumbent.hpp"
#include "fairlist/permutation_map.hpp"
#include "fairlist/queue.hpp"
#include "fairlist/rule_data.hpp"
#include "fairlist/trie.hpp"

namespace fairlist {

// The Rashomon mode's slack: a list whose objective exceeds the optimum + rashomon_delta by at
// most this is in the set (objectives are sums of floating-point terms).
constexpr double kRashomonSlack = 1e-9;

// The fairest mode's cap without a constraint: no metric's unfairness exceeds 2 (at most two
// gaps between rates in [0, 1]), so every list meets it (context.cpp set_fairest).
constexpr double kNoUnfairnessCap = 2.0;

// A prefix walked from the root (SearchContext::walk_prefix).
struct Walk {
    Fixed fixed;                   // confusion counts of the samples it captures
    std::int64_t errors = 0;       // errors on them
    SplitCounts free;              // the samples it leaves uncaptured, by (group, label)
    std::int64_t forced_free = 0;  // equivalent-points errors among those
};

class SearchContext {
 public:
    // The arguments of Search's constructor; validates them (std::invalid_argument).
    SearchContext(const word_t* rules, const word_t* labels, const std::int32_t* groups,
                  const std::int64_t* weights, std::size_t n_samples, std::size_t n_antecedents,
                  int n_groups, const ProblemSpec& problem, const Config& config,
                  const Diagnostics& diagnostics = Diagnostics());

    const RuleData& data() const { return data_; }
    const ProblemSpec& problem() const { return problem_; }
    const Config& config() const { return config_; }
    const Diagnostics& diagnostics() const { return diagnostics_; }
    double n() const { return n_; }  // total weight (the number of samples without weights)

    // The class bound: constrained, switched on, and the metric is linear (class_bound.hpp).
    bool use_class_bound() const { return use_class_bound_; }
    // The per-sample fairness bound on each child: constrained and switched on, and not
    // redundant with the class bound.  With the class bound active and epsilon > 0 it is
    // skipped: on COMPAS (SP, EOdds at 0.05, 4M nodes) it pruned nothing the class bound had
    // not, while costing 15-25% of the time; over the six races and the twelve race x sex groups
    // (SP, EOpp, EOdds at 0.02-0.1, 300,000 nodes) it changed no lower bound, at 10% of the
    // time.  At epsilon = 0 integrality matters (the class bound is a linear relaxation), so
    // both run.
    // In the fairest mode the cap falls (fair_cap): the rule above is applied to the cap of the
    // moment, so both run once it reaches 0.
    bool use_sample_bound(double cap) const {
        return use_sample_bound_ && !(fairest_ && use_class_bound_ && cap > 0.0);
    }
    // Predictions keep to majority labels: majority_only, or no constraint (search.hpp).
    bool majority_labels() const { return majority_labels_; }
    // Worker threads (Config::n_jobs resolved: at least 1).
    std::size_t n_jobs() const { return n_jobs_; }
    // Ties decided canonically (Diagnostics::canonical_ties, or more than one worker).
    bool canonical_ties() const { return canonical_ties_; }

    // The threshold of the search, in one place: every pruning comparison against the
    // incumbent's objective `best` goes through cuts(), and a list is offered (recorded, in the
    // Rashomon mode) when its objective is at most cutoff(best).
    //  * Optimum: cutoff = best (a tie is offered: Incumbent keeps the canonical one), and a
    //    subtree whose lists all have objectives >= best is skipped (with canonical ties a tie
    //    is then examined further: child_bounds.hpp prunes()).
    //  * Rashomon mode: cutoff = best + delta + kRashomonSlack, and a subtree is skipped only
    //    when its bound exceeds it.  best only falls, so the threshold only falls: what it
    //    skipped stays outside the final set, and lists recorded under a larger one are dropped
    //    (rashomon.hpp).
    bool rashomon() const { return rashomon_; }
    //  * Fairest mode (Config::fairest_ceiling): cutoff = the ceiling T whatever `best`, and a
    //    subtree is skipped only when its bound exceeds T.  The incumbent is the least unfair
    //    list within T (Incumbent::offer_fairest), which no objective comparison can tell
    //    apart from a less unfair one; its unfairness prunes through the fairness bounds
    //    instead (fair_cap).  T is fixed, so every decision against it stays valid.
    bool fairest() const { return fairest_; }
    double ceiling() const { return config_.fairest_ceiling; }
    //    With max_lists, the cutoff is also at most the store's cap (rashomon.hpp): the
    //    max_lists-th least objective stored, above which no list can be among the first
    //    max_lists of the set.
    double cutoff(double best) const {
        if (fairest_) return config_.fairest_ceiling;
        return rashomon_ ? std::min(best + config_.rashomon_delta + kRashomonSlack, list_cap_)
                         : best;
    }
    // The store's cap (Search sets it between nodes; +inf: none).
    // (Never above Config::rashomon_ceiling.)
    void set_list_cap(double cap) { list_cap_ = std::min(cap, config_.rashomon_ceiling); }
    // The Rashomon mode keeps every spelling of its lists (not rashomon_keep_map: config.hpp).
    // (Nor with rashomon_front: one list of each (objective, unfairness) is enough there.)
    bool all_spellings() const {
        return rashomon_ && !config_.rashomon_keep_map && !config_.rashomon_front;
    }
    bool cuts(double bound, double best) const {
        return rashomon_ || fairest_ ? bound > cutoff(best) : bound >= best;
    }

    // The running phase: lists of at most max_length() rules; lists shorter than min_length()
    // are known not to beat the incumbent (length deepening), so a prefix's completions of
    // interest have at least that many rules.  full_length(): the whole run's cap.
    std::size_t max_length() const { return max_length_; }
    std::size_t min_length() const { return min_length_; }
    std::size_t full_length() const { return full_length_; }
    void set_phase(std::size_t max_length, std::size_t min_length) {
        max_length_ = max_length;
        min_length_ = min_length;
    }

    double objective(std::int64_t errors, std::size_t length) const {
        return static_cast<double>(errors) / n_ + problem_.lam * static_cast<double>(length);
    }
    bool fair(const Fixed& f) const {
        return !problem_.constrained || is_fair(unfairness(problem_.metric, f), problem_.epsilon);
    }
    // Whether an unfairness meets the cap (constrained).
    bool fair_value(double u) const { return is_fair(u, problem_.epsilon); }
    // The cap of the fairness bounds (fairness_bounds, the class bound, the terminal solver's
    // screen): epsilon, and in the fairest mode the incumbent's unfairness once it is lower.
    // Argument: a list can become the fairest incumbent only if its unfairness is at most the
    // incumbent's u (equal ones are wanted for the objective's tie-break), and the bounds keep
    // every completion whose unfairness is at most the cap + kFeasibilityTol, so a subtree
    // they prune holds no such list within the ceiling.  u only falls: a cap read earlier is
    // larger and prunes less, so each decision stays valid.
    double fair_cap(const Incumbent& incumbent) const {
        return fairest_ && diagnostics_.fairest_falling_cap
                   ? std::min(problem_.epsilon, incumbent.unfairness())
                   : problem_.epsilon;
    }
    // The permutation map's key counts: what the metric's value depends on among the captured
    // samples' confusion counts, given the captured set (none without a constraint).
    int key_size() const;
    int key_counts(const Fixed& f, std::uint32_t* out) const;
    // An empty permutation map, and the queue's order, for this problem.
    PermutationMap new_map() const;
    NodeQueue::Order queue_order() const;

    // The fairness lower bound of fairness_bound.hpp on completions of fixed counts f with
    // uncaptured samples u: with two groups and unit weights the exact integer one
    // (fairness_bound.cpp), otherwise the real-valued one over k groups
    // (fairness_bound_groups.cpp).
    // cap: fair_cap() (epsilon outside the fairest mode).
    FairnessBound sample_bound(const Fixed& f, const SplitCounts& u, std::int64_t work_budget,
                               double cap) const;

    // Walks a prefix from the root (rules: antecedent << 1 | prediction, n of them): leaves in
    // free (n_words words) the samples it does not capture and counts both sides in *walk.
    // Returns false, the walk unfinished, at the first rule that predicts the minority label of
    // the samples it captures when majority_only.
    bool walk_prefix(const std::uint32_t* rules, std::size_t n, word_t* free, Walk* walk,
                     bool majority_only = false) const;

    // The fewest rules of a list of interest below a prefix of k rules (lookahead, min_length).
    std::size_t bound_length(std::size_t k) const {
        return std::max(k + (config_.use_lookahead ? 1 : 0), min_length_);
    }
    // Maximum useful length (bounds.hpp): the lists not yet evaluated below a prefix of k rules
    // have at least k + 1 rules (and min_length), so none beats the incumbent `best` once lam
    // times that many reaches it.
    // (Rashomon mode: once it exceeds the cutoff, cuts().)
    bool beyond_useful_length(std::size_t k, double best) const {
        return config_.use_length_bound &&
               cuts(problem_.lam * static_cast<double>(std::max(k + 1, min_length_)), best);
    }
    // The bound counted for a queued prefix of `depth` rules (its lists not yet evaluated have
    // one more rule, and at least min_length).
    double queued_bound(std::int64_t lb_errors, std::size_t depth) const {
        return objective(lb_errors, std::max(depth + 1, min_length_));
    }
    // Whether a popped prefix of k rules may still have a list beating `best` (Rashomon mode:
    // within the cutoff).
    bool worth_expanding(const Node& node, std::size_t k, double best) const {
        if (k >= max_length_ || beyond_useful_length(k, best)) return false;
        return !cuts(objective(node.lb_errors, bound_length(k)), best);
    }
    // The queue key of a child (the policy's order; lower pops first).
    double priority(std::int64_t lb_errors, std::int64_t leaf_errors, std::size_t depth,
                    std::int64_t n_captured) const;

 private:
    RuleData data_;
    ProblemSpec problem_;
    Config config_;
    Diagnostics diagnostics_;
    double n_;
    bool use_class_bound_;
    bool use_sample_bound_;
    // Two groups and unit weights: the exact integer fairness bound.
    bool exact_two_groups_;
    bool majority_labels_;
    std::size_t n_jobs_ = 1;
    bool canonical_ties_ = false;
    bool rashomon_ = false;
    bool fairest_ = false;
    double list_cap_ = std::numeric_limits<double>::infinity();
    std::size_t max_length_;   // effective cap on the length (of the running phase)
    std::size_t min_length_ = 0;
    std::size_t full_length_;  // the whole run's cap

    // Validates the Rashomon mode's options and switches off what it must (context.cpp).
    void set_rashomon();
    // Validates the fairest mode's options and switches off what it must (context.cpp).
    void set_fairest();
};

}  // namespace fairlist
