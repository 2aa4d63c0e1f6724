#include "fairlist/expander.hpp"

#include <algorithm>
#include <limits>
#include <mutex>
#include <stdexcept>

#include "fairlist/bounds.hpp"
#include "fairlist/short_completions.hpp"

namespace fairlist {

namespace {

std::uint64_t mix64(std::uint64_t z) {
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

}  // namespace

Expander::Expander(const SearchContext& ctx, Frontier& frontier, Incumbent& incumbent,
                   const std::atomic<bool>* stop_flag)
    : ctx_(ctx),
      frontier_(frontier),
      incumbent_(incumbent),
      scratch_(ctx.data()),
      poll_(stop_flag, ctx.config().time_limit),
      class_bound_(ctx.data(), ctx.problem().metric, ctx.problem().epsilon),
      sink_(ctx, incumbent, stats_) {
    stats_.n_rows = static_cast<std::int64_t>(ctx.data().n_rows());
    stats_.n_classes = static_cast<std::int64_t>(ctx.data().n_classes());
    if (ctx.config().use_terminal_solver && TerminalSolver::applies(ctx.data())) {
        terminal_ = std::make_unique<TerminalSolver>(ctx, incumbent, poll_, stats_);
    }
}

bool Expander::root_bound(std::int64_t* rest) {
    const RuleData& data = ctx_.data();
    const ProblemSpec& problem = ctx_.problem();
    *rest = ctx_.config().use_equivalent_points ? data.n_forced_errors() : 0;
    if (!problem.constrained || !ctx_.config().use_fairness_bound) return true;
    ++stats_.fairness_bound_calls;
    const Fixed none(data.n_groups());
    const double cap = ctx_.fair_cap(incumbent_);
    const FairnessBound fb = ctx_.sample_bound(none, data.totals(), kExactWorkBudget, cap);
    bool feasible = fb.feasible;
    if (fb.feasible) *rest = std::max(*rest, fb.min_errors);
    if (fb.feasible && ctx_.use_class_bound()) {
        std::int64_t cb;
        class_bound_.set_cap(cap);
        class_bound_.prepare(data.class_all());
        if (class_bound_.bound(none, data.class_all(), scratch_.class_none.data(),
                               class_bound_.majority_positive(data.class_all()),
                               data.n_forced_errors(), &cb)) {
            *rest = std::max(*rest, cb);
        } else {
            feasible = false;
        }
    }
    if (!feasible && incumbent_.has()) {
        throw std::logic_error("fairness_lower_bound reports no fair completion of the empty "
                               "prefix, but a fair rule list is known");
    }
    return feasible;
}

std::size_t Expander::bytes() const {
    const std::size_t words = 2 * scratch_.free.size() + 5 * scratch_.class_free.size();
    return (terminal_ != nullptr ? terminal_->bytes() : 0) + words * sizeof(word_t) +
           scratch_.in_prefix.size();
}

void Expander::load(std::uint32_t index) {
    if (frontier_.map_shared()) {  // a trie slot for each child it may keep (map_held)
        const std::size_t most = 2 * ctx_.data().n_antecedents();
        if (slots_.size() < most) {
            const std::size_t count = std::max<std::size_t>(most, kSlotChunk);
            const std::uint32_t first = frontier_.reserve_slots(count);
            for (std::size_t i = count; i-- > 0;) {
                slots_.push_back(first + static_cast<std::uint32_t>(i));
            }
        }
    }
    frontier_.path(index, &scratch_.path);
    index_ = index;
    finished_.clear();
    held_.clear();
    held_classes_.clear();
    depth_ = scratch_.path.size();
    prefix_lb_ = frontier_.node(index).lb_errors;
}

void Expander::prepare_prefix() {
    const std::vector<std::uint32_t>& path = scratch_.path;
    ctx_.walk_prefix(path.data(), path.size(), scratch_.free.data(), &prefix_);
    const RuleData& data = ctx_.data();
    const std::size_t cw = data.n_class_words();
    std::copy(data.class_all(), data.class_all() + cw, scratch_.class_free.begin());
    for (const std::uint32_t rule : path) {
        const word_t* r = data.class_rule(rule >> 1);
        for (std::size_t i = 0; i < cw; ++i) scratch_.class_free[i] &= ~r[i];
    }
    if (ctx_.use_class_bound()) {
        scratch_.class_positive = class_bound_.majority_positive(scratch_.class_free.data());
        class_bound_.set_cap(ctx_.fair_cap(incumbent_));  // for this expansion's children
        class_bound_.prepare(scratch_.class_free.data());
    }
}

void Expander::expand_loaded() {
    prepare_prefix();
    if (terminal_ != nullptr) terminal_->begin_expansion();  // its counts are taken afresh
    for (const std::uint32_t rule : scratch_.path) scratch_.in_prefix[rule >> 1] = 1;
    const RuleData& data = ctx_.data();
    const auto poll_work = static_cast<std::int64_t>(data.n_words());
    SplitCounts captured;
    std::int64_t forced_captured;
    for (std::uint32_t j = 0; j < data.n_antecedents(); ++j) {
        if (scratch_.in_prefix[j]) continue;
        if (poll_.poll(poll_work)) break;  // the caller stops
        data.count(data.rule(j), scratch_.free.data(), &captured, &forced_captured);
        if (captured.total() == 0) continue;  // captures nothing new: never useful
        const std::int64_t forced_child = prefix_.forced_free - forced_captured;
        for (int q = 0; q < 2; ++q) {
            if (!label_allowed(captured, q, ctx_.majority_labels())) continue;
            evaluate_child(j, q, captured, forced_child);
        }
    }
    for (const std::uint32_t rule : scratch_.path) scratch_.in_prefix[rule >> 1] = 0;
    if (frontier_.map_shared() && !poll_.stopped()) map_held();
}

void Expander::finish_loaded() {
    prepare_prefix();
    terminal_->finish_prefix(prefix_, prefix_lb_, depth_, scratch_.class_free.data(),
                             &scratch_.path);
}

void Expander::hold_child(const ChildRecord& child, double priority, double bound) {
    held_.push_back(Held{child.rule, child.errors, child.lb_errors, priority, bound, child.key,
                         held_classes_.size(), Trie::kNone, Trie::kNone});
    const std::vector<word_t>& classes = scratch_.child_classes;
    held_classes_.insert(held_classes_.end(), classes.begin(), classes.end());
}

void Expander::map_held() {
    // Every slot first: the cache misses of the held children overlap.
    for (const Held& h : held_) frontier_.prefetch(h.key.hash);
    const std::size_t k = depth_ + 1;
    std::size_t kept = 0;
    for (Held& h : held_) {
        h.node = slots_.back();
        const ChildRecord child{index_, h.rule, k, h.errors, h.lb_errors, h.key,
                                held_classes_.data() + h.classes, scratch_.path};
        if (!frontier_.map_child(h.node, child, map_scratch(), &stats_, &h.superseded, nullptr,
                                 nullptr)) {
            continue;  // dropped: the slot stays free
        }
        slots_.pop_back();
        held_[kept++] = h;
    }
    held_.resize(kept);
}

void Expander::queue_held() {
    bool queued = false;
    if (frontier_.map_shared()) {  // mapped outside the lock (map_held): link the survivors
        for (const Held& h : held_) {
            frontier_.link_child(h.node, h.priority, h.bound, h.superseded, true, &stats_);
        }
        queued = !held_.empty();
    } else {
        const std::size_t k = depth_ + 1;
        for (const Held& h : held_) {
            const ChildRecord child{index_, h.rule, k, h.errors, h.lb_errors, h.key,
                                    held_classes_.data() + h.classes, scratch_.path};
            const std::uint32_t node =
                frontier_.add_child(child, h.priority, h.bound, map_scratch(), true, &stats_);
            queued = queued || node != Trie::kNone;
        }
    }
    held_.clear();
    held_classes_.clear();
    if (queued && shared_->waiting > 0) shared_->wake.notify_all();
}

void Expander::mark_done() {
    if (!held_.empty()) queue_held();
    for (const Finished& child : finished_) {
        if (frontier_.map_shared()) {  // judged outside the lock (add_child): in the trie now
            frontier_.link_child(child.node, 0.0, 0.0, child.superseded, false, &stats_);
        }
        frontier_.node(child.node).flags |= Node::kExpanded;
        frontier_.retire(child.node);
    }
    finished_.clear();
    Node& node = frontier_.node(index_);
    node.flags |= Node::kExpanded;
    if (node.n_children == 0) frontier_.retire(index_);
}

bool Expander::worth_expanding(std::uint32_t index, std::size_t depth) {
    const Node& node = frontier_.node(index);
    const double best = incumbent_.objective();
    if (!ctx_.canonical_ties()) return ctx_.worth_expanding(node, depth, best);
    if (depth >= ctx_.max_length()) return false;
    // As SearchContext::worth_expanding, a tie kept when its lists may come first.
    std::vector<std::uint32_t>& path = other_path_;
    bool walked = false;
    auto keep = [&](double bound, std::size_t length) {
        if (bound != incumbent_.objective()) return bound < incumbent_.objective();
        if (!walked) frontier_.path(index, &path);
        walked = true;
        return incumbent_.tie_may_precede(bound, path.data(), path.size(), Incumbent::kNoRule,
                                          length);
    };
    const std::size_t useful = std::max(depth + 1, ctx_.min_length());
    if (ctx_.config().use_length_bound && !keep(ctx_.objective(0, useful), useful)) return false;
    return keep(ctx_.objective(node.lb_errors, ctx_.bound_length(depth)),
                ctx_.bound_length(depth));
}

void Expander::evaluate_child(std::uint32_t j, int q, const SplitCounts& captured,
                              std::int64_t forced_free) {
    ++stats_.children_evaluated;
    const ProblemSpec& problem = ctx_.problem();
    const Config& config = ctx_.config();
    const std::size_t k = depth_ + 1;
    if (!problem.constrained && config.use_support_bounds &&
        support_too_small(captured, q, problem.lam, ctx_.n())) {
        ++stats_.pruned_support;
        return;
    }
    Fixed f = prefix_.fixed;
    add_predicted(f, captured, q);
    const std::int64_t errors = prefix_.errors + captured.label(1 - q);
    const SplitCounts u = minus(prefix_.free, captured);
    const std::uint32_t rule = j << 1 | static_cast<std::uint32_t>(q);
    const std::int64_t leaf_errors = offer_leaves(f, errors, u, k, rule);

    // The prefix as a node to extend later.
    if (k >= ctx_.max_length() || u.total() == 0) return;
    // Maximum useful length (SearchContext::beyond_useful_length: lam times the fewest rules
    // of a list not yet evaluated, which is objective(0, that many)).
    const std::size_t useful = std::max(k + 1, ctx_.min_length());
    if (config.use_length_bound &&
        prunes(ctx_, incumbent_, ctx_.objective(0, useful), useful, scratch_.path, rule)) {
        ++stats_.pruned_length;
        return;
    }
    // Errors every completion makes on the uncaptured samples: the best of the bounds, from
    // the cheapest to the most expensive, stopping as soon as the child is pruned.  Every
    // completion of the child is a completion of the parent, so the parent's bound on the errors
    // holds for it too (the floor, with the hierarchical bound on; see bounds.hpp).  It prunes
    // the children of a parent within one rule of the incumbent before their fairness bounds run.
    const bool hierarchical = config.use_hierarchical_bound;
    ErrorBound b{hierarchical ? errors : 0, config.use_equivalent_points ? forced_free : 0,
                 hierarchical ? prefix_lb_ : 0, ctx_.bound_length(k)};
    if (prunes(ctx_, incumbent_, ctx_.objective(b.errors(), b.length), b.length, scratch_.path,
               rule)) {
        ++stats_.pruned_by_bound;
        return;
    }
    // The permutation map's key and hash (see Frontier::add_child), computed now so that the
    // map's slot is fetched from memory while the fairness bounds run.
    MapKey key;
    const int n_counts = ctx_.key_counts(f, key.counts);
    if (config.use_permutation_map) key.hash = map_hash(j, key.counts, n_counts);
    ChildRecord child{index_, rule, k, errors, 0, key, scratch_.child_classes.data(),
                      scratch_.path, &f, &u, forced_free};
    if (!fairness_bounds(ctx_, incumbent_, prepared_class_bound(), child, &b, &stats_)) return;
    child.lb_errors = b.errors();
    add_child(child, leaf_errors);
}

void Expander::add_child(const ChildRecord& child, std::int64_t leaf_errors) {
    const std::size_t k = child.k;
    const std::uint32_t rule = child.rule;
    const std::int64_t lb_errors = child.lb_errors;
    const std::int64_t n_captured = ctx_.data().total_weight() - child.free->total();
    // The hook of the terminal solver: a child two rules short of the length cap is finished
    // by counting at once, never queued; so is one whose lists of three or more further rules
    // cannot beat the incumbent (the two-rule lookahead, short_completions.hpp).
    const bool at_cap = finishes_by_counting(k);
    const bool finish =
        at_cap || (terminal_ != nullptr &&
                   finishes_short(ctx_, incumbent_, lb_errors, k, scratch_.path, rule));
    if (shared_ != nullptr && !finish) {  // queued with the others at the end (mark_done)
        hold_child(child, ctx_.priority(lb_errors, leaf_errors, k, n_captured),
                   ctx_.queued_bound(lb_errors, k));
        return;
    }
    const bool tie_cut = at_cap && ctx_.canonical_ties() && ctx_.diagnostics().finished_tie_cut;
    const Incumbent* cut = tie_cut ? &incumbent_ : nullptr;
    Finished done{Trie::kNone, Trie::kNone};
    if (frontier_.map_shared()) {  // parallel, finished: judged like a held child, linked later
        if (!frontier_.map_child(slots_.back(), child, map_scratch(), &stats_, &done.superseded,
                                 cut, shared_)) {
            return;
        }
        done.node = slots_.back();
        slots_.pop_back();
    } else {
        const FrontierHold lock(shared_, &stats_);  // serial (null): takes nothing
        done.node = frontier_.add_child(
            child, ctx_.priority(lb_errors, leaf_errors, k, n_captured),
            ctx_.queued_bound(lb_errors, k), map_scratch(), !finish, &stats_, cut);
        if (shared_ != nullptr && !finish && done.node != Trie::kNone && shared_->waiting > 0) {
            shared_->wake.notify_one();
        }
    }
    if (!finish || done.node == Trie::kNone) return;
    if (!at_cap) ++stats_.lookahead_prefixes;
    terminal_->finish_child(child, scratch_.class_free.data(), &scratch_.path);
    if (poll_.stopped()) return;  // cut short: the search keeps the expanded node's bound
    // Marked done with the expanded node (mark_done), under one lock for all of them: until
    // then it is a live, unexpanded node, which only a permutation-map tie can flag superseded
    // (harmless: it is never queued) while the expanded node's bound stays tracked.
    finished_.push_back(done);
    ++stats_.nodes_expanded;
}

// Offers "child + default" for each default label the space allows.  Lists tying the incumbent
// are offered too: Incumbent keeps the canonical one among them.
inline std::int64_t Expander::offer_leaves(const Fixed& f, std::int64_t errors,
                                           const SplitCounts& u, std::size_t k,
                                           std::uint32_t rule) {
    std::int64_t leaf_errors = std::numeric_limits<std::int64_t>::max();
    for (int d = 0; d < 2; ++d) {
        if (!label_allowed(u, d, ctx_.majority_labels())) continue;
        const std::int64_t e = errors + u.label(1 - d);
        leaf_errors = std::min(leaf_errors, e);
        if (ctx_.objective(e, k) <= ctx_.cutoff(incumbent_.objective())) {
            Fixed full = f;
            add_predicted(full, u, d);
            offer(e, k, full, rule, d);
        }
    }
    return leaf_errors;
}

inline std::uint64_t Expander::map_hash(std::uint32_t j, const std::uint32_t* counts,
                                        int n_counts) {
    const RuleData& data = ctx_.data();
    const word_t* r = data.class_rule(j);
    std::uint64_t hash = 0x2545f4914f6cdd1dULL;
    for (std::size_t i = 0; i < data.n_class_words(); ++i) {
        scratch_.child_classes[i] = scratch_.class_free[i] & ~r[i];
        hash = mix64(hash ^ scratch_.child_classes[i]);
    }
    // Each count is tagged with a bit of its position above its 32 bits before it is mixed in.
    // Positions repeat every 32 (i & 31): a key holds up to 128 counts (2 per group, 64
    // groups), and 1 << (32 + i) for i >= 32 shifted by 64 or more (undefined; UBSan, issue
    // 37).  The chain of mix64 already tells positions apart; the hashes of keys of at most 32
    // counts are unchanged.
    for (int i = 0; i < n_counts; ++i) {
        hash = mix64(hash ^ (counts[i] + (std::uint64_t{1} << (32 + (i & 31)))));
    }
    hash = mix64(hash);
    if (shared_ == nullptr) frontier_.prefetch(hash);  // shared: the map may be resizing
    return hash;
}

}  // namespace fairlist
