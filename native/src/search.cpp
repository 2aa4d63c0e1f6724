#include "fairlist/search.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "fairlist/bounds.hpp"

namespace fairlist {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

std::uint64_t mix64(std::uint64_t z) {
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

}  // namespace

Search::Search(const word_t* rules, const word_t* labels, const std::int32_t* groups,
               const std::int64_t* weights, std::size_t n_samples, std::size_t n_antecedents,
               int n_groups, const ProblemSpec& problem, const Config& config)
    : data_(rules, labels, groups, weights, n_samples, n_antecedents, n_groups),
      problem_(problem),
      config_(config),
      n_(static_cast<double>(data_.total_weight())),
      trie_(!config.use_permutation_map),
      queue_(queue_order(config), config.policy == Policy::DFS, config.seed),
      pmap_(new_map()),
      class_bound_(data_, problem.metric, problem.epsilon),
      use_class_bound_(problem.constrained && config.use_class_bound && class_bound_.active()),
      use_sample_bound_(problem.constrained && config.use_fairness_bound &&
                        !(use_class_bound_ && problem.epsilon > 0.0)),
      exact_two_groups_(n_groups == 2 && data_.unit_weights()),
      majority_labels_(config.majority_only || !problem.constrained),
      best_objective_(kInf),
      poll_(&stop_, config.time_limit),
      cut_bound_(kInf),
      p_best_(kInf) {
    if (n_samples >= (std::size_t{1} << 31)) throw std::invalid_argument("too many samples (>= 2^31)");
    if (n_antecedents >= (std::size_t{1} << 28)) {
        throw std::invalid_argument("too many antecedents (>= 2^28)");
    }
    if (!(problem.lam >= 0.0) || !std::isfinite(problem.lam)) {
        throw std::invalid_argument("lam must be a finite number >= 0");
    }
    if (problem.constrained && !(problem.epsilon >= 0.0)) {
        throw std::invalid_argument("epsilon must be >= 0");
    }
    const int metric = static_cast<int>(problem.metric);
    if (metric < 1 || metric > 6) throw std::invalid_argument("unknown metric");
    const int policy = static_cast<int>(config.policy);
    if (policy < 0 || policy > 6) throw std::invalid_argument("unknown policy");
    // A list never has more rules than antecedents.
    max_length_ = n_antecedents;
    if (config.max_length >= 0) {
        max_length_ = std::min<std::size_t>(max_length_, static_cast<std::size_t>(config.max_length));
    }
    stats_.n_rows = static_cast<std::int64_t>(data_.n_rows());
    stats_.n_classes = static_cast<std::int64_t>(data_.n_classes());
    free_.resize(data_.n_words());
    class_free_.resize(data_.n_class_words());
    class_none_.assign(data_.n_class_words(), 0);
    child_classes_.resize(data_.n_class_words());
    other_classes_.resize(data_.n_class_words());
    in_prefix_.assign(n_antecedents, 0);
    if (config.use_terminal_solver && terminal_applies()) {
        pair_counts_ = std::make_unique<PairCounts>(data_, &poll_);
        terminal_bound_ =
            std::make_unique<ClassFairnessBound>(data_, problem.metric, problem.epsilon);
        if (problem.constrained) screen_gaps_ = static_cast<int>(terminal_bound_->n_gaps());
        terminal_classes_.resize(data_.n_class_words());
        removed_classes_.resize(data_.n_class_words());
    }
}

NodeQueue::Order Search::queue_order(const Config& config) {
    if (config.seed != 0) return NodeQueue::Order::HEAP;
    if (config.policy == Policy::BFS) return NodeQueue::Order::FIFO;
    if (config.policy == Policy::DFS) return NodeQueue::Order::LIFO;
    return NodeQueue::Order::HEAP;
}

int Search::key_size() const {
    if (!problem_.constrained) return 0;
    switch (problem_.metric) {
        case Metric::SP:
        case Metric::PE:
        case Metric::EOPP:
            return data_.n_groups();
        default:
            return 2 * data_.n_groups();
    }
}

PermutationMap Search::new_map() const {
    // Counts (and errors) reach the total weight; the errors are stored unless the key holds
    // the true and false positives of every group.
    return PermutationMap(key_size(),
                          config_.wide_map_counts || data_.total_weight() >= (std::int64_t{1} << 16),
                          key_size() < 2 * data_.n_groups());
}

int Search::key_counts(const Fixed& f, std::uint32_t* out) const {
    if (!problem_.constrained) return 0;
    const int k = f.k;
    auto put = [&](int i, std::int64_t v) { out[i] = static_cast<std::uint32_t>(v); };
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
        default:  // every count matters (with the captured set, tp and fp fix tn and fn)
            for (int g = 0; g < k; ++g) {
                put(2 * g, f.g[g].tp);
                put(2 * g + 1, f.g[g].fp);
            }
            return 2 * k;
    }
}

bool Search::fair(const Fixed& f) const {
    return !problem_.constrained || is_fair(unfairness(problem_.metric, f), problem_.epsilon);
}

bool Search::walk_prefix(const std::uint32_t* rules, std::size_t n, word_t* free, Walk* walk,
                         bool majority_only) const {
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

bool Search::set_initial(const std::vector<std::uint32_t>& antecedents,
                         const std::vector<std::uint8_t>& predictions, int default_prediction) {
    if (ran_) throw std::logic_error("set_initial must be called before run");
    if (antecedents.size() != predictions.size()) {
        throw std::invalid_argument("antecedents and predictions differ in length");
    }
    if (default_prediction != 0 && default_prediction != 1) {
        throw std::invalid_argument("default prediction must be 0 or 1");
    }
    if (antecedents.size() > max_length_) return false;
    // A malformed list raises (all its rules are checked before the walk); a well-formed one
    // is refused when it is outside the searched space or unfair.
    std::vector<std::uint8_t> seen(data_.n_antecedents(), 0);
    std::vector<std::uint32_t> rules;
    for (std::size_t k = 0; k < antecedents.size(); ++k) {
        const std::uint32_t j = antecedents[k];
        const int q = predictions[k];
        if (j >= data_.n_antecedents()) {
            throw std::invalid_argument("antecedent index out of range");
        }
        if (q != 0 && q != 1) throw std::invalid_argument("predictions must be 0 or 1");
        if (seen[j]++) throw std::invalid_argument("an antecedent appears twice");
        rules.push_back(j << 1 | static_cast<std::uint32_t>(q));
    }
    std::vector<word_t> free(data_.n_words());
    Walk w;
    if (!walk_prefix(rules.data(), rules.size(), free.data(), &w, config_.majority_only) ||
        !label_allowed(w.free, default_prediction, config_.majority_only)) {
        return false;
    }
    add_predicted(w.fixed, w.free, default_prediction);
    const std::int64_t errors = w.errors + w.free.label(1 - default_prediction);
    if (!fair(w.fixed)) return false;
    const double obj = objective(errors, rules.size());
    if (obj < best_objective_) {
        has_best_ = true;
        best_objective_ = obj;
        best_errors_ = errors;
        best_rules_ = rules;
        best_default_ = default_prediction;
        p_best_.store(obj, std::memory_order_relaxed);
    }
    return true;
}

void Search::offer_incumbent(std::int64_t errors, std::size_t length, const Fixed& counts,
                             std::uint32_t last_rule, int default_prediction) {
    const double obj = objective(errors, length);
    if (!(obj < best_objective_) || !fair(counts)) return;
    has_best_ = true;
    best_objective_ = obj;
    best_errors_ = errors;
    best_rules_.assign(path_.begin(), path_.end());
    if (length > path_.size()) best_rules_.push_back(last_rule);
    best_default_ = default_prediction;
    ++stats_.incumbent_updates;
    p_best_.store(obj, std::memory_order_relaxed);
}

bool Search::worth_expanding(const Node& node, std::size_t k) const {
    if (k >= max_length_ || beyond_useful_length(k)) return false;
    return objective(node.lb_errors, bound_length(k)) < best_objective_;
}

double Search::priority(std::int64_t lb_errors, std::int64_t leaf_errors, std::size_t depth,
                        std::int64_t n_captured) const {
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

void Search::evaluate_child(std::uint32_t parent, std::size_t depth, std::uint32_t j, int q,
                            const SplitCounts& captured, std::int64_t forced_free,
                            const Walk& prefix) {
    ++stats_.children_evaluated;
    const std::size_t k = depth + 1;
    if (!problem_.constrained && config_.use_support_bounds &&
        support_too_small(captured, q, problem_.lam, n_)) {
        ++stats_.pruned_support;
        return;
    }
    Fixed f = prefix.fixed;
    add_predicted(f, captured, q);
    const std::int64_t errors = prefix.errors + captured.label(1 - q);
    const SplitCounts u = minus(prefix.free, captured);
    const std::uint32_t rule = j << 1 | static_cast<std::uint32_t>(q);
    const std::int64_t leaf_errors = offer_leaves(f, errors, u, k, rule);

    // The prefix as a node to extend later.
    if (k >= max_length_ || u.total() == 0) return;
    if (beyond_useful_length(k)) {
        ++stats_.pruned_length;
        return;
    }
    // Errors every completion makes on the uncaptured samples: the best of the bounds, from
    // the cheapest to the most expensive, stopping as soon as the child is pruned.  Every
    // completion of the child is a completion of the parent, so the parent's bound on the errors
    // holds for it too (the floor, with the hierarchical bound on; see bounds.hpp).  It prunes
    // the children of a parent within one rule of the incumbent before their fairness bounds run.
    const bool hierarchical = config_.use_hierarchical_bound;
    ErrorBound b{hierarchical ? errors : 0, config_.use_equivalent_points ? forced_free : 0,
                 hierarchical ? trie_[parent].lb_errors : 0, bound_length(k)};
    if (objective(b.errors(), b.length) >= best_objective_) {
        ++stats_.pruned_by_bound;
        return;
    }
    // The permutation map's key and hash (see add_child), computed now so that the map's slot
    // is fetched from memory while the fairness bounds run.
    MapKey key;
    const int n_counts = key_counts(f, key.counts);
    if (config_.use_permutation_map) key.hash = map_hash(j, key.counts, n_counts);
    if (!fairness_bounds(&class_bound_, class_free_.data(), class_positive_, f, j, u, forced_free,
                         &b)) {
        return;
    }
    const std::int64_t lb_errors = b.errors();
    const std::int64_t n_captured = data_.total_weight() - u.total();
    // The hook of the terminal solver (terminal.hpp): a child two rules short of the length cap
    // is finished by counting at once, never queued.
    const bool finish = finishes_by_counting(k);
    const std::uint32_t child =
        add_child(parent, rule, k, errors, lb_errors,
                  priority(lb_errors, leaf_errors, k, n_captured), key, !finish);
    if (finish && child != Trie::kNone) {
        finish_child(child, j, f, errors, u, forced_free, lb_errors, k);
    }
}

// The helpers of evaluate_child are `inline` (this file alone calls them) so that the compiler
// folds them back into it: a child costs no more calls than when it was one function.
inline std::int64_t Search::offer_leaves(const Fixed& f, std::int64_t errors,
                                         const SplitCounts& u, std::size_t k, std::uint32_t rule) {
    std::int64_t leaf_errors = std::numeric_limits<std::int64_t>::max();
    for (int d = 0; d < 2; ++d) {
        if (!label_allowed(u, d, majority_labels_)) continue;
        const std::int64_t e = errors + u.label(1 - d);
        leaf_errors = std::min(leaf_errors, e);
        if (objective(e, k) < best_objective_) {
            Fixed full = f;
            add_predicted(full, u, d);
            offer_incumbent(e, k, full, rule, d);
        }
    }
    return leaf_errors;
}

// The class bound (class_bound.hpp), then the per-sample fairness bound (fairness_bound.hpp):
// each relaxes the completions of the child; when none is fair the child goes, otherwise the
// fewest errors a fair one makes on the uncaptured samples bound those of every completion.
inline bool Search::fairness_bounds(ClassFairnessBound* bound, const word_t* classes,
                                    const SplitCounts& positive, const Fixed& f, std::uint32_t j,
                                    const SplitCounts& u, std::int64_t forced_free,
                                    ErrorBound* b) {
    if (use_class_bound_) {
        std::int64_t cb;
        if (!bound->bound(f, classes, data_.class_rule(j), positive, forced_free, &cb)) {
            ++stats_.pruned_infeasible;
            ++stats_.pruned_class_bound;
            return false;
        }
        if (cb > b->rest && objective(b->fixed + cb, b->length) >= best_objective_) {
            ++stats_.pruned_by_bound;
            ++stats_.pruned_class_bound;
            return false;
        }
        b->rest = std::max(b->rest, cb);
    }
    if (use_sample_bound_) {
        ++stats_.fairness_bound_calls;
        const FairnessBound fb = sample_bound(f, u, kSearchWorkBudget);
        if (!fb.feasible) {
            ++stats_.pruned_infeasible;
            return false;
        }
        if (fb.min_errors > b->rest &&
            objective(b->fixed + fb.min_errors, b->length) >= best_objective_) {
            ++stats_.pruned_by_bound;
            return false;
        }
        b->rest = std::max(b->rest, fb.min_errors);
    }
    return true;
}

FairnessBound Search::sample_bound(const Fixed& f, const SplitCounts& u,
                                   std::int64_t work_budget) const {
    if (exact_two_groups_) {
        return fairness_lower_bound(problem_.metric, problem_.epsilon, f.g[0], f.g[1],
                                    u.uncaptured(0), u.uncaptured(1), work_budget);
    }
    Uncaptured free[kMaxGroups];
    for (int g = 0; g < u.k; ++g) free[g] = u.uncaptured(g);
    return group_fairness_lower_bound(problem_.metric, problem_.epsilon, f, free);
}

inline std::uint64_t Search::map_hash(std::uint32_t j, const std::uint32_t* counts, int n_counts) {
    const word_t* r = data_.class_rule(j);
    std::uint64_t hash = 0x2545f4914f6cdd1dULL;
    for (std::size_t i = 0; i < data_.n_class_words(); ++i) {
        child_classes_[i] = class_free_[i] & ~r[i];
        hash = mix64(hash ^ child_classes_[i]);
    }
    for (int i = 0; i < n_counts; ++i) {
        hash = mix64(hash ^ (counts[i] + (std::uint64_t{1} << (32 + i))));
    }
    hash = mix64(hash);
    pmap_.prefetch(hash);
    return hash;
}

std::size_t Search::stored_classes(std::uint32_t index) {
    const std::size_t cw = data_.n_class_words();
    std::copy(data_.class_all(), data_.class_all() + cw, other_classes_.begin());
    std::size_t length = 0;
    for (std::uint32_t i = index; trie_[i].parent != Trie::kNone; i = trie_[i].parent) {
        const word_t* r = data_.class_rule(trie_[i].antecedent());
        for (std::size_t w = 0; w < cw; ++w) other_classes_[w] &= ~r[w];
        ++length;
    }
    return length;
}

inline std::uint32_t Search::add_child(std::uint32_t parent, std::uint32_t rule, std::size_t k,
                                       std::int64_t errors, std::int64_t lb_errors,
                                       double priority, const MapKey& key, bool enqueue) {
    auto insert = [&] {
        const std::uint32_t child = trie_.add(parent, rule, static_cast<std::int32_t>(lb_errors));
        ++stats_.nodes_created;
        if (enqueue) {
            queue_.push(priority, child);
            tracked_.push(queued_bound(lb_errors, k));
        }
        return child;
    };
    if (!config_.use_permutation_map) return insert();
    // Key: the captured samples (as the uncaptured classes) plus the counts the metric's value
    // depends on (see key_counts()); the entry also keeps the errors on the captured samples.
    // The stored prefix's classes and length are recomputed from its path.
    std::size_t other_length = 0;
    const PermutationMap::Slot hit = pmap_.find(key.hash, key.counts, [&](std::uint32_t other) {
        other_length = stored_classes(other);
        return std::equal(other_classes_.begin(), other_classes_.end(), child_classes_.begin());
    });
    const auto captured_errors = static_cast<std::uint32_t>(errors);
    if (!hit.found()) {
        const std::uint32_t child = insert();
        pmap_.insert(key.hash, child, captured_errors, key.counts);
        return child;
    }
    // Same uncaptured samples and counts: every completion of one is a completion of the other
    // with the same unfairness, and the objectives differ by the errors on the captured samples
    // and the lengths.  Keep the prefix with no more of both (the earlier one on a tie); when
    // neither has, keep both, the new one outside the map.
    const std::uint32_t other_errors = pmap_.stores_errors() ? pmap_.errors(hit) : captured_errors;
    if (other_errors <= captured_errors && other_length <= k) {
        ++stats_.permutation_hits;
        return Trie::kNone;
    }
    const std::uint32_t child = insert();
    if (captured_errors <= other_errors && k <= other_length) {
        Node& old = trie_[pmap_.node(hit)];
        if (!(old.flags & (Node::kExpanded | Node::kRetired))) old.flags |= Node::kSuperseded;
        pmap_.replace(hit, child, captured_errors);
    }
    return child;
}

std::size_t Search::load_prefix(std::uint32_t index, Walk* prefix) {
    path_.clear();
    for (std::uint32_t i = index; trie_[i].parent != Trie::kNone; i = trie_[i].parent) {
        path_.push_back(trie_[i].rule);
    }
    std::reverse(path_.begin(), path_.end());
    walk_prefix(path_.data(), path_.size(), free_.data(), prefix);
    const std::size_t cw = data_.n_class_words();
    std::copy(data_.class_all(), data_.class_all() + cw, class_free_.begin());
    for (const std::uint32_t rule : path_) {
        const word_t* r = data_.class_rule(rule >> 1);
        for (std::size_t i = 0; i < cw; ++i) class_free_[i] &= ~r[i];
    }
    if (use_class_bound_) {
        class_positive_ = class_bound_.majority_positive(class_free_.data());
        class_bound_.prepare(class_free_.data());
    }
    return path_.size();
}

bool Search::bound_child(ClassFairnessBound* cb, const word_t* classes,
                         const SplitCounts& positive, const Fixed& f, std::uint32_t j,
                         const SplitCounts& u, std::int64_t forced_free, ErrorBound* b) {
    return fairness_bounds(cb, classes, positive, f, j, u, forced_free, b);
}

void Search::expand(std::uint32_t index) {
    Walk prefix;
    const std::size_t depth = load_prefix(index, &prefix);
    terminal_base_ = false;  // the terminal solver counts this prefix's classes afresh
    terminal_counted_ = Trie::kNone;
    for (const std::uint32_t rule : path_) in_prefix_[rule >> 1] = 1;

    SplitCounts captured;
    std::int64_t forced_captured;
    for (std::uint32_t j = 0; j < data_.n_antecedents(); ++j) {
        if (in_prefix_[j]) continue;
        if (poll_.poll(static_cast<std::int64_t>(data_.n_words()))) break;  // the caller stops
        data_.count(data_.rule(j), free_.data(), &captured, &forced_captured);
        if (captured.total() == 0) continue;  // captures nothing new: never useful
        const std::int64_t forced_child = prefix.forced_free - forced_captured;
        for (int q = 0; q < 2; ++q) {
            if (!label_allowed(captured, q, majority_labels_)) continue;
            evaluate_child(index, depth, j, q, captured, forced_child, prefix);
        }
    }
    for (const std::uint32_t rule : path_) in_prefix_[rule >> 1] = 0;
    if (poll_.stopped()) return;  // cut short: search_tree keeps its bound
    Node& node = trie_[index];
    node.flags |= Node::kExpanded;
    if (node.n_children == 0) trie_.retire(index);
}

std::size_t Search::memory_bytes() const {
    return trie_.bytes() + queue_.bytes() + pmap_.bytes();
}

double Search::elapsed() const {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
}

void Search::publish_progress(std::size_t depth) {
    p_expanded_.store(stats_.nodes_expanded, std::memory_order_relaxed);
    p_children_.store(stats_.children_evaluated, std::memory_order_relaxed);
    p_trie_.store(static_cast<std::int64_t>(trie_.live()), std::memory_order_relaxed);
    p_queue_.store(static_cast<std::int64_t>(queue_.size()), std::memory_order_relaxed);
    p_depth_.store(static_cast<std::int64_t>(depth), std::memory_order_relaxed);
    p_lower_.store(global_lower_bound(), std::memory_order_relaxed);
}

double Search::global_lower_bound() {
    double lb = std::min({best_objective_, tracked_.least(), cut_bound_});
    if (max_length_ < full_length_) lb = std::min(lb, objective(root_errors_, max_length_ + 1));
    return lb;
}

Progress Search::progress() const noexcept {
    Progress p;
    p.nodes_expanded = p_expanded_.load(std::memory_order_relaxed);
    p.children_evaluated = p_children_.load(std::memory_order_relaxed);
    p.trie_size = p_trie_.load(std::memory_order_relaxed);
    p.queue_size = p_queue_.load(std::memory_order_relaxed);
    p.depth = p_depth_.load(std::memory_order_relaxed);
    p.best_objective = p_best_.load(std::memory_order_relaxed);
    p.seconds = ran_ ? elapsed() : 0.0;
    p.certified_length = p_certified_.load(std::memory_order_relaxed);
    p.lower_bound = p_lower_.load(std::memory_order_relaxed);
    return p;
}

StopReason Search::search_tree(std::int64_t* root_errors, std::size_t* peak_memory) {
    // The root: the empty prefix.
    const SplitCounts& totals = data_.totals();
    StopReason reason = StopReason::COMPLETED;
    bool root_feasible = true;
    std::int64_t root_rest = config_.use_equivalent_points ? data_.n_forced_errors() : 0;
    if (problem_.constrained && config_.use_fairness_bound) {
        ++stats_.fairness_bound_calls;
        const FairnessBound fb = sample_bound(Fixed(data_.n_groups()), totals, kExactWorkBudget);
        root_feasible = fb.feasible;
        if (fb.feasible) root_rest = std::max(root_rest, fb.min_errors);
        if (fb.feasible && use_class_bound_) {
            std::int64_t cb;
            const Fixed none(data_.n_groups());
            class_bound_.prepare(data_.class_all());
            if (class_bound_.bound(none, data_.class_all(), class_none_.data(),
                                   class_bound_.majority_positive(data_.class_all()),
                                   data_.n_forced_errors(), &cb)) {
                root_rest = std::max(root_rest, cb);
            } else {
                root_feasible = false;
            }
        }
        if (!root_feasible && has_best_) {
            throw std::logic_error("fairness_lower_bound reports no fair completion of the empty "
                                   "prefix, but a fair rule list is known");
        }
    }
    const std::uint32_t root = trie_.add(Trie::kNone, 0, static_cast<std::int32_t>(root_rest));
    root_errors_ = root_rest;
    tracked_.reset(objective(data_.total_weight(), max_length_ + 1));
    if (root_feasible) {
        queue_.push(0.0, root);
        tracked_.push(queued_bound(root_rest, 0));
    } else {
        ++stats_.pruned_infeasible;
        trie_.retire(root);
    }

    *root_errors = root_rest;
    std::size_t iterations = 0;
    const double memory_limit = config_.memory_limit_mb * 1024.0 * 1024.0;
    while (!queue_.empty()) {
        if (stop_.load(std::memory_order_relaxed)) {
            reason = StopReason::INTERRUPTED;
            break;
        }
        if (config_.max_nodes > 0 && static_cast<std::int64_t>(trie_.live()) >= config_.max_nodes) {
            reason = StopReason::NODE_LIMIT;
            break;
        }
        if (config_.gap_tolerance > 0 && has_best_ &&
            best_objective_ - global_lower_bound() <= config_.gap_tolerance) {
            reason = StopReason::GAP_LIMIT;
            break;
        }
        if ((++iterations & 63U) == 0) {
            const std::size_t bytes = memory_bytes();
            *peak_memory = std::max(*peak_memory, bytes);
            if (memory_limit > 0 && static_cast<double>(bytes) > memory_limit) {
                reason = StopReason::MEMORY_LIMIT;
                break;
            }
            if (config_.time_limit > 0 && elapsed() >= config_.time_limit) {
                reason = StopReason::TIME_LIMIT;
                break;
            }
        }
        const std::uint32_t index = queue_.pop();
        const Node& node = trie_[index];
        const std::size_t depth = trie_.depth(index);
        const double bound = queued_bound(node.lb_errors, depth);
        tracked_.pop(bound);
        if ((node.flags & Node::kSuperseded) || !worth_expanding(node, depth)) {
            ++stats_.pruned_on_pop;
            trie_.retire(index);
            continue;
        }
        // The hook of the terminal solver (terminal.hpp): a prefix two rules short of the
        // length cap is finished by counting instead of expanded.
        if (finishes_by_counting(depth)) {
            finish_by_counting(index);
        } else {
            expand(index);
        }
        // A poll inside the node stopped it: the node's lists are not all evaluated, so its
        // bound stays in the lower bound (its children already queued keep theirs).
        if (poll_.stopped()) {
            reason = poll_.reason();
            cut_bound_ = std::min(cut_bound_, bound);
            break;
        }
        ++stats_.nodes_expanded;
        if ((stats_.nodes_expanded & 15) == 0) publish_progress(depth);
    }
    publish_progress(0);
    *peak_memory = std::max(*peak_memory, memory_bytes());
    stats_.peak_trie_size = std::max(stats_.peak_trie_size,
                                     static_cast<std::int64_t>(trie_.peak_live()));
    stats_.peak_queue_size = std::max(stats_.peak_queue_size,
                                      static_cast<std::int64_t>(queue_.peak()));
    return reason;
}

void Search::reset_tree() {
    trie_ = Trie(!config_.use_permutation_map);
    queue_ = NodeQueue(queue_order(config_), config_.policy == Policy::DFS, config_.seed);
    pmap_ = new_map();
}

SearchResult Search::run() {
    if (ran_) throw std::logic_error("Search::run may be called only once");
    start_ = std::chrono::steady_clock::now();
    poll_.start(start_);
    ran_ = true;
    const SplitCounts& totals = data_.totals();

    // The constant rule lists.
    path_.clear();
    for (int d = 0; d < 2; ++d) {
        if (!label_allowed(totals, d, majority_labels_)) continue;
        Fixed f(data_.n_groups());
        add_predicted(f, totals, d);
        offer_incumbent(totals.label(1 - d), 0, f, 0, d);
    }
    run_beam();
    path_.clear();
    stats_.beam_objective = best_objective_;
    stats_.beam_seconds = elapsed();

    // Length deepening: certify the lists of at most 1, 2, ... rules first (see Config).
    const std::size_t cap = max_length_;
    full_length_ = cap;
    const std::size_t deepen = std::min<std::size_t>(
        static_cast<std::size_t>(std::max<std::int64_t>(config_.deepen_length, 0)),
        cap > 0 ? cap - 1 : 0);
    std::size_t peak_memory = memory_bytes();
    std::int64_t root_errors = 0;
    StopReason reason = StopReason::COMPLETED;
    for (std::size_t length = 1; length <= deepen; ++length) {
        max_length_ = length;
        min_length_ = length;  // the shorter lists are certified
        reason = search_tree(&root_errors, &peak_memory);
        if (reason != StopReason::COMPLETED) break;
        stats_.certified_length = static_cast<std::int64_t>(length);
        p_certified_.store(stats_.certified_length, std::memory_order_relaxed);
        reset_tree();
    }
    if (reason == StopReason::COMPLETED) {
        max_length_ = cap;
        min_length_ = static_cast<std::size_t>(stats_.certified_length) + 1;
        reason = search_tree(&root_errors, &peak_memory);
    }

    SearchResult result;
    result.stop_reason = reason;
    result.has_solution = has_best_;
    if (has_best_) {
        for (const std::uint32_t rule : best_rules_) {
            result.antecedents.push_back(rule >> 1);
            result.predictions.push_back(static_cast<std::uint8_t>(rule & 1U));
        }
        result.default_prediction = best_default_;
        result.errors = best_errors_;
        result.objective = best_objective_;
    } else {
        result.objective = kInf;
    }
    if (reason == StopReason::COMPLETED) {
        result.status = has_best_ ? SearchStatus::OPTIMAL : SearchStatus::INFEASIBLE;
        result.lower_bound = best_objective_;
    } else {
        result.status = has_best_ ? SearchStatus::FEASIBLE : SearchStatus::UNKNOWN;
        // Every unexplored rule list within the running phase's cap extends a queued prefix,
        // hence has one more rule (and at least min_length_); a list beyond a deepening
        // phase's cap has more rules than it, and at least the root's errors.
        double lb = best_objective_;
        queue_.for_each([&](std::uint32_t index) {
            const Node& node = trie_[index];
            const std::size_t depth = trie_.depth(index);
            if ((node.flags & Node::kSuperseded) || depth >= max_length_) return;
            lb = std::min(lb, objective(node.lb_errors, std::max(depth + 1, min_length_)));
        });
        if (max_length_ < cap) lb = std::min(lb, objective(root_errors, max_length_ + 1));
        result.lower_bound = std::min(lb, cut_bound_);
    }
    max_length_ = cap;
    p_lower_.store(result.lower_bound, std::memory_order_relaxed);
    stats_.peak_memory_bytes = static_cast<std::int64_t>(peak_memory);
    stats_.seconds = elapsed();
    result.stats = stats_;
    return result;
}

}  // namespace fairlist
