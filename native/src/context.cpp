#include "fairlist/context.hpp"

#include <cmath>
#include <stdexcept>
#include <thread>

#include "fairlist/bounds.hpp"

namespace fairlist {

namespace {

// The problem the search runs: the caller's, but in the fairest mode and the Rashomon mode's
// front always constrained (an unconstrained one with the cap kNoUnfairnessCap, which every
// list meets): the fairness bounds, the permutation map's key (the counts the metric reads, so
// that equal keys mean equal unfairness: without a cap the key is the captured samples alone,
// and the map would drop a prefix whose completions are less unfair) and the full space of
// both labels all need a cap (set_fairest).
ProblemSpec searched(const ProblemSpec& problem, const Config& config) {
    ProblemSpec p = problem;
    const bool front = config.rashomon_front && config.rashomon_delta >= 0.0;
    if ((config.fairest_ceiling >= 0.0 || front) && !p.constrained) {
        p.constrained = true;
        p.epsilon = kNoUnfairnessCap;
    }
    return p;
}

}  // namespace

SearchContext::SearchContext(const word_t* rules, const word_t* labels,
                             const std::int32_t* groups, const std::int64_t* weights,
                             std::size_t n_samples, std::size_t n_antecedents, int n_groups,
                             const ProblemSpec& problem, const Config& config,
                             const Diagnostics& diagnostics)
    : data_(rules, labels, groups, weights, n_samples, n_antecedents, n_groups),
      problem_(searched(problem, config)),
      config_(config),
      diagnostics_(diagnostics),
      n_(static_cast<double>(data_.total_weight())),
      use_class_bound_(problem_.constrained && config.use_class_bound &&
                       is_metric(static_cast<int>(problem.metric)) && is_linear(problem.metric)),
      // (The fairest mode applies the class-bound rule to its falling cap: use_sample_bound.)
      use_sample_bound_(problem_.constrained && config.use_fairness_bound &&
                        (config.fairest_ceiling >= 0.0 ||
                         !(use_class_bound_ && problem.epsilon > 0.0))),
      exact_two_groups_(n_groups == 2 && data_.unit_weights()),
      // Without a cap the majority labels dominate (search.hpp): an argument for the optimum
      // only, so the Rashomon mode searches both labels (and so does the fairest mode, whose
      // problem_ is always constrained).
      majority_labels_(config.majority_only ||
                       (!problem_.constrained && !(config.rashomon_delta >= 0.0))) {
    if (n_samples >= (std::size_t{1} << 31)) {
        throw std::invalid_argument("too many samples (>= 2^31)");
    }
    if (n_antecedents >= (std::size_t{1} << 28)) {
        throw std::invalid_argument("too many antecedents (>= 2^28)");
    }
    if (!(problem.lam >= 0.0) || !std::isfinite(problem.lam)) {
        throw std::invalid_argument("lam must be a finite number >= 0");
    }
    if (problem.constrained && !(problem.epsilon >= 0.0)) {
        throw std::invalid_argument("epsilon must be >= 0");
    }
    if (!is_metric(static_cast<int>(problem.metric))) throw std::invalid_argument("unknown metric");
    const int policy = static_cast<int>(config.policy);
    if (policy < 0 || policy > 6) throw std::invalid_argument("unknown policy");
    if (config.n_jobs == 0) throw std::invalid_argument("n_jobs must not be 0");
    if (config.n_jobs > 0) {
        n_jobs_ = static_cast<std::size_t>(config.n_jobs);
    } else {  // -1: every hardware thread, -2: all but one, ...
        const auto threads = static_cast<std::int64_t>(std::thread::hardware_concurrency());
        const std::int64_t hardware = std::max<std::int64_t>(1, threads);
        n_jobs_ = static_cast<std::size_t>(std::max<std::int64_t>(1, hardware + 1 + config.n_jobs));
    }
    canonical_ties_ = diagnostics.canonical_ties || n_jobs_ > 1;
    if (config.rashomon_delta >= 0.0) set_rashomon();
    if (std::isnan(config.fairest_ceiling)) {
        throw std::invalid_argument("fairest_ceiling must not be NaN");
    }
    if (config.fairest_ceiling >= 0.0) set_fairest();
    if (config.rashomon_front && !rashomon_) {
        throw std::invalid_argument("rashomon_front needs the Rashomon mode (rashomon_delta >= 0)");
    }
    // A list never has more rules than antecedents.
    max_length_ = n_antecedents;
    if (config.max_length >= 0) {
        max_length_ =
            std::min<std::size_t>(max_length_, static_cast<std::size_t>(config.max_length));
    }
    full_length_ = max_length_;
}

void SearchContext::set_rashomon() {
    const Config& c = config_;
    if (!std::isfinite(c.rashomon_delta)) throw std::invalid_argument("rashomon_delta must be finite");
    if (c.max_lists < 0) throw std::invalid_argument("max_lists must be >= 0");
    // Refused: each assumes that only the best list matters.
    if (n_jobs_ != 1) throw std::invalid_argument("the Rashomon mode runs with n_jobs = 1 only");
    if (c.deepen_length > 0) {  // its phases prune lists that do not beat the incumbent
        throw std::invalid_argument("the Rashomon mode refuses deepen_length > 0");
    }
    if (c.gap_tolerance > 0) {  // it stops once the best list is certified near-optimal
        throw std::invalid_argument("the Rashomon mode refuses gap_tolerance > 0");
    }
    if (c.majority_only) {  // the set is defined over the full space (both labels)
        throw std::invalid_argument("the Rashomon mode refuses majority_only");
    }
    rashomon_ = true;
    // Switched off: each keeps one list of several, or argues from "cannot beat the best".
    //  * The permutation map keeps one of several prefixes capturing the same samples with the
    //    same counts: their completions differ as lists, and all may lie within delta.
    //    With rashomon_keep_map (a certificate's enumeration) it stays on: the caller needs one
    //    list per key class only (config.hpp).
    //    So does rashomon_front (the fairest list within delta: the arguments of set_fairest).
    if (!c.rashomon_keep_map && !c.rashomon_front) config_.use_permutation_map = false;
    if (c.rashomon_front && c.max_lists > 0) {  // max_lists keeps lists by objective alone
        throw std::invalid_argument("rashomon_front refuses max_lists > 0");
    }
    if (!(c.rashomon_ceiling == c.rashomon_ceiling)) {
        throw std::invalid_argument("rashomon_ceiling must not be NaN");
    }
    list_cap_ = c.rashomon_ceiling;
    //  * The accurate-support bound argues that deleting a rule gives a better list: the worse
    //    list may still lie within delta (and it is off under a cap anyway).
    config_.use_support_bounds = false;
    // Restated, not off: the terminal solver compares with the cutoff (its cuts go through
    // cuts() and cutoff()) and also offers the two-rule lists it skips for predicting like a
    // shorter list (TerminalSolver::same_label_lists).
    //  * Canonical ties pick one of the tying lists; the set keeps them all.
    canonical_ties_ = false;
    // Kept, because each is a lower bound on the objective of every fair completion of a
    // prefix, not a comparison between lists: the hierarchical bound, lookahead, the maximum
    // useful length (against the cutoff: cuts()), equivalent points (identical samples with
    // different labels cost every list the same errors), and the fairness and class bounds.
    // A rule capturing no sample (of positive weight) is never generated (expander.cpp):
    // the set is defined without such rules.
}

// The fairest mode: what each pruning and shortcut of the search becomes when it minimises
// unfairness among the fair lists of objective at most the ceiling T (ties: the lower objective,
// then canonically).  The answer is a list L* with (u*, o*) least lexicographically; a pruning
// is valid when it never skips a list with objective <= T and unfairness <= the incumbent's
// (such a list may still beat or tie it), and a shortcut when it skips only lists some
// evaluated list is at least as good as in (unfairness, objective).
void SearchContext::set_fairest() {
    const Config& c = config_;
    // Refused: each assumes "minimise the objective".
    if (rashomon_) throw std::invalid_argument("the fairest mode refuses the Rashomon mode");
    if (n_jobs_ != 1) throw std::invalid_argument("the fairest mode runs with n_jobs = 1 only");
    if (c.deepen_length > 0) {  // its phases prune lists that do not beat the incumbent's objective
        throw std::invalid_argument("the fairest mode refuses deepen_length > 0");
    }
    if (c.gap_tolerance > 0) {  // a gap on the objective, not on the unfairness
        throw std::invalid_argument("the fairest mode refuses gap_tolerance > 0");
    }
    if (c.majority_only) {  // relabelling by majority changes the unfairness: the full space
        throw std::invalid_argument("the fairest mode refuses majority_only");
    }
    fairest_ = true;
    // Switched off:
    //  * the accurate-support bound: deleting a rule lowers the objective but may raise the
    //    unfairness (and it is off under a cap anyway; problem_ is always constrained here);
    //  * the beam search: it ranks and offers lists by objective (Incumbent::offer); the
    //    fairest incumbent starts from the constant lists and the warm start instead.  It
    //    changes what a limited search returns only, never a certificate;
    //  * canonical ties: tie_may_precede and the map's canonical rule compare objectives with
    //    the incumbent's; the serial search offers every list the prunings keep, and
    //    offer_fairest takes the canonical first of those of least (unfairness, objective).
    config_.use_support_bounds = false;
    config_.beam_width = 0;
    canonical_ties_ = false;
    // Restated against T (cuts(), cutoff()), each a lower bound on the objective of every list
    // of a subtree, so a subtree whose bound exceeds T holds no list of interest: the
    // hierarchical bound, lookahead (the prefix's own lists "prefix + default" are offered when
    // it is created), the maximum useful length (lam times the fewest rules), equivalent points,
    // and the errors the fairness bounds add (every fair completion with unfairness at most the
    // cap makes them), the two-rule lookahead, and the terminal solver's e_max (the most errors
    // of a list within T; T is fixed, so its candidates' floor stays valid).
    // Restated with the falling cap (fair_cap): the class bound, the per-sample fairness bound
    // and the terminal solver's fairness screen; an infeasible relaxation means no completion
    // with unfairness at most the incumbent's.
    // Kept, because each skips a list only for another with the same unfairness and no more
    // objective (so at least as good in (unfairness, objective), and within T when it is):
    //  * the permutation map: equal keys (the captured samples and the counts the metric reads
    //    on them) give completions P + S and Q + S equal unfairness, and the prefix kept has no
    //    more errors and no more rules (frontier.cpp judge);
    //  * the terminal solver's two-rule lists P + (i, q1) + (j, q2) + default q2, which predict
    //    as P + (i, q1) + default q2 with one rule more: the same unfairness, an objective lam
    //    higher (equal with lam = 0, and the shorter comes first canonically);
    //  * its sibling symmetry: Q + (j, q) + (i, q) + R predicts as Q + (i, q) + (j, q) + R, of
    //    the same length, met below the earlier sibling under a cap no lower than today's.
}

NodeQueue::Order SearchContext::queue_order() const {
    if (config_.seed != 0) return NodeQueue::Order::HEAP;
    if (config_.policy == Policy::BFS) return NodeQueue::Order::FIFO;
    if (config_.policy == Policy::DFS) return NodeQueue::Order::LIFO;
    return NodeQueue::Order::HEAP;
}

int SearchContext::key_size() const {
    if (!problem_.constrained) return 0;
    switch (problem_.metric) {
        case Metric::SP:
        case Metric::PE:
        case Metric::EOPP:
            return data_.n_groups();
        case Metric::PP:
        case Metric::EODDS:
        case Metric::CUAE:
            return 2 * data_.n_groups();
    }
    return 2 * data_.n_groups();  // not a Metric value (refused by the constructor)
}

PermutationMap SearchContext::new_map() const {
    // Counts (and errors) reach the total weight; the errors are stored unless the key holds
    // the true and false positives of every group.
    const bool wide =
        diagnostics_.wide_map_counts || data_.total_weight() >= (std::int64_t{1} << 16);
    return PermutationMap(key_size(), wide, key_size() < 2 * data_.n_groups());
}

int SearchContext::key_counts(const Fixed& f, std::uint32_t* out) const {
    if (!problem_.constrained) return 0;
    const int k = f.k;
    auto put = [&](int i, std::int64_t v) { out[i] = static_cast<std::uint32_t>(v); };
    auto every_count = [&] {  // with the captured set, tp and fp fix tn and fn
        for (int g = 0; g < k; ++g) {
            put(2 * g, f.g[g].tp);
            put(2 * g + 1, f.g[g].fp);
        }
        return 2 * k;
    };
    switch (problem_.metric) {
        case Metric::SP:  // positive rate: (tp + fp) / group size
            for (int g = 0; g < k; ++g) put(g, f.g[g].tp + f.g[g].fp);
            return k;
        case Metric::PE:  // false positive rate: fp / group negatives
            for (int g = 0; g < k; ++g) put(g, f.g[g].fp);
            return k;
        case Metric::EOPP:  // true positive rate: tp / group positives
            for (int g = 0; g < k; ++g) put(g, f.g[g].tp);
            return k;
        case Metric::PP:
        case Metric::EODDS:
        case Metric::CUAE:
            return every_count();
    }
    return every_count();  // not a Metric value (refused by the constructor)
}

FairnessBound SearchContext::sample_bound(const Fixed& f, const SplitCounts& u,
                                          std::int64_t work_budget, double cap) const {
    if (exact_two_groups_) {
        return fairness_lower_bound(problem_.metric, cap, f.g[0], f.g[1], u.uncaptured(0),
                                    u.uncaptured(1), work_budget);
    }
    Uncaptured free[kMaxGroups];
    for (int g = 0; g < u.k; ++g) free[g] = u.uncaptured(g);
    return group_fairness_lower_bound(problem_.metric, cap, f, free);
}

bool SearchContext::walk_prefix(const std::uint32_t* rules, std::size_t n, word_t* free,
                                Walk* walk, bool majority_only) const {
    const std::size_t nw = data_.n_words();
    std::copy(data_.all(), data_.all() + nw, free);
    walk->fixed = Fixed(data_.n_groups());
    walk->errors = 0;
    SplitCounts s;
    std::int64_t forced;
    for (std::size_t k = 0; k < n; ++k) {
        const word_t* r = data_.rule(rules[k] >> 1);
        const int q = static_cast<int>(rules[k] & 1U);
        data_.count(r, free, &s, &forced);
        if (!label_allowed(s, q, majority_only)) return false;
        add_predicted(walk->fixed, s, q);
        walk->errors += s.label(1 - q);
        for (std::size_t i = 0; i < nw; ++i) free[i] &= ~r[i];
    }
    data_.count(data_.all(), free, &walk->free, &walk->forced_free);
    return true;
}

double SearchContext::priority(std::int64_t lb_errors, std::int64_t leaf_errors,
                               std::size_t depth, std::int64_t n_captured) const {
    switch (config_.policy) {
        case Policy::BFS:
            return static_cast<double>(depth);
        case Policy::BFS_OBJECTIVE_AWARE:
            // Same depth: the objective differs by the errors only; more errors pop first.
            return static_cast<double>(depth) + 0.5 * (1.0 - static_cast<double>(leaf_errors) / n_);
        case Policy::BFS_OBJECTIVE_AWARE_LOWEST:
            // The reference code's order: same depth, fewer errors (lower objective) pop first.
            return static_cast<double>(depth) + 0.5 * static_cast<double>(leaf_errors) / n_;
        case Policy::LOWER_BOUND:
            return objective(lb_errors, depth);
        case Policy::CURIOSITY:
            return objective(lb_errors, depth) * n_ / static_cast<double>(n_captured);
        case Policy::DFS:
            return -static_cast<double>(depth);
        case Policy::OBJECTIVE:
            return objective(leaf_errors, depth);
    }
    return 0.0;
}

}  // namespace fairlist
