#include "fairlist/frontier.hpp"

#include "fairlist/incumbent.hpp"

#include <algorithm>
#include <limits>

namespace fairlist {

Frontier::Frontier(const SearchContext& ctx)
    : ctx_(ctx),
      trie_(!ctx.config().use_permutation_map),
      queue_(ctx.queue_order(), ctx.config().policy == Policy::DFS, ctx.config().seed),
      pmap_(ctx.new_map()) {}

void Frontier::reset() {
    assert_no_workers();  // between phases
    const Config& config = ctx_.config();
    trie_ = Trie(!config.use_permutation_map);
    queue_ = NodeQueue(ctx_.queue_order(), config.policy == Policy::DFS, config.seed);
    pmap_ = ctx_.new_map();
}

std::uint32_t Frontier::add_root(std::int64_t lb_errors, bool queue, double bound) {
    const std::uint32_t root = trie_.add(Trie::kNone, 0, static_cast<std::int32_t>(lb_errors));
    tracked_.reset(ctx_.objective(ctx_.data().total_weight(), ctx_.max_length() + 1));
    if (queue) {
        queue_.push(0.0, root);
        tracked_.push(bound);
    } else {
        trie_.retire(root);
    }
    return root;
}

double Frontier::queued_lower_bound(const SearchContext& ctx, double best) const {
    // Every unexplored rule list within the running phase's cap extends a queued prefix, hence
    // has one more rule (and at least min_length).
    double lb = best;
    const Trie& trie = held_trie();  // for the lambda, which the analysis checks apart
    queue_.for_each([&](std::uint32_t index) {
        const Node& node = trie[index];
        const std::size_t depth = trie.depth(index);
        if ((node.flags & Node::kSuperseded) || depth >= ctx.max_length()) return;
        lb = std::min(lb, ctx.queued_bound(node.lb_errors, depth));
    });
    return lb;
}

void Frontier::path(std::uint32_t index, std::vector<std::uint32_t>* out) const {
    out->clear();
    const Trie& trie = published();
    for (std::uint32_t i = index; trie[i].parent != Trie::kNone; i = trie[i].parent) {
        out->push_back(trie[i].rule);
    }
    std::reverse(out->begin(), out->end());
}

bool Frontier::comes_first(const std::vector<std::uint32_t>& parent_path, std::uint32_t rule,
                           std::uint32_t i, std::vector<std::uint32_t>* other_path) const {
    path(i, other_path);
    const std::size_t k = other_path->size();
    auto mine = [&](std::size_t t) { return t < parent_path.size() ? parent_path[t] : rule; };
    const std::vector<std::uint32_t>& other = *other_path;
    for (std::size_t t = 0; t < k; ++t) {  // antecedent ids
        if ((mine(t) >> 1) != (other[t] >> 1)) return (mine(t) >> 1) < (other[t] >> 1);
    }
    for (std::size_t t = 0; t < k; ++t) {  // then predictions
        if ((mine(t) & 1U) != (other[t] & 1U)) return (mine(t) & 1U) < (other[t] & 1U);
    }
    return false;
}

// Canonical ties: the new prefix Q (parent_path + rule) ties the stored prefix P (trie node
// `other`, rules other_path: the same uncaptured samples and key counts, the same errors on
// the captured samples, the same length k) and comes first canonically.  Q is dropped, not
// searched, when P was finished by the terminal solver and Incumbent::equivalent_may_precede
// says no list below Q can come before the incumbent.  `incumbent` is passed (non-null) only
// for a prefix two rules short of the cap, which is never queued: a stored one flagged expanded
// was finished by counting, completely (a finish cut short by a poll is never flagged).
//  * Pairing.  For every suffix S (one or two more rules and a default), Q S and P S have the
//    same errors (equal on the captured samples, and S meets the same uncaptured samples), the
//    same length and the same unfairness (the key holds every count the metric reads on the
//    captured samples): the same objective and fairness.  (Q + default, S empty, was offered
//    before this call: Expander::offer_leaves.)
//  * P's lists.  The incumbent only moves down in (objective, canonical order).  P's finish
//    offered, or pruned soundly against the incumbent of that moment (the cuts of
//    terminal_solver.cpp and prunes(): a tie kept while one of its lists may come first), every
//    fair P S; lists it skipped as predicting like a shorter one are worse than that one.  So
//    every fair P S is at or after every later incumbent, in particular the one read now, Z.
//  * So a fair Q S before Z ties it and is as long, and Z's ids lie between those of Q S and
//    P S: the test of equivalent_may_precede, which is necessary; when it fails no list below
//    Q can become the incumbent, and none is better than Z (P S would be), so dropping Q changes
//    neither the answer nor the lower bound.
// Diagnostics::finished_tie_cut.  Measured in docs/performance.md.
bool Frontier::cut_after_finished(const std::vector<std::uint32_t>& parent_path,
                                  std::uint32_t rule, std::uint32_t other,
                                  const std::vector<std::uint32_t>& other_path,
                                  const Incumbent* incumbent) const {
    if (incumbent == nullptr || !(trie_[other].flags & Node::kExpanded)) return false;
    std::vector<std::uint32_t>& mine = mine_;
    mine.assign(parent_path.begin(), parent_path.end());
    mine.push_back(rule);
    return !incumbent->equivalent_may_precede(mine.data(), other_path.data(), mine.size());
}

std::size_t Frontier::stored_classes(std::uint32_t index, word_t* out) const {
    const RuleData& data = ctx_.data();
    const std::size_t cw = data.n_class_words();
    std::copy(data.class_all(), data.class_all() + cw, out);
    std::size_t length = 0;
    const Trie& trie = published();
    for (std::uint32_t i = index; trie[i].parent != Trie::kNone; i = trie[i].parent) {
        const word_t* r = data.class_rule(trie[i].antecedent());
        for (std::size_t w = 0; w < cw; ++w) out[w] &= ~r[w];
        ++length;
    }
    return length;
}

void Frontier::prefetch(std::uint64_t hash) const {
    const ShardHold shard(map_locks_, hash);
    pmap_.prefetch(hash);
}

// Key: the captured samples (as the uncaptured classes) plus the counts the metric's value
// depends on (see key_counts()); the entry also keeps the errors on the captured samples.  The
// stored prefix's classes and length are recomputed from its path (its nodes' parent and rule,
// which never change once a node is published).
Frontier::Verdict Frontier::judge(const ChildRecord& child, MapScratch scratch,
                                  const Incumbent* finished_cut, FrontierLock* lock,
                                  PermutationMap::Slot* hit) const {
    const std::size_t k = child.k;
    const MapKey& key = child.key;
    const word_t* child_classes = child.classes;
    word_t* other_classes = scratch.other_classes;
    const std::size_t cw = ctx_.data().n_class_words();
    std::size_t other_length = 0;
    *hit = pmap_.find(key.hash, key.counts, [&](std::uint32_t other) {
        other_length = stored_classes(other, other_classes);
        return std::equal(other_classes, other_classes + cw, child_classes);
    });
    if (!hit->found()) return Verdict::INSERT;
    // Same uncaptured samples and counts: every completion of one is a completion of the other
    // with the same unfairness, and the objectives differ by the errors on the captured samples
    // and the lengths.  Keep the prefix with no more of both (on a tie the earlier one, or
    // with canonical ties the one first in the canonical order: the completions of each come
    // in the order of the prefixes); when neither has, keep both, the new one outside the map.
    const auto captured_errors = static_cast<std::uint32_t>(child.errors);
    const std::uint32_t other_errors = pmap_.stores_errors() ? pmap_.errors(*hit) : captured_errors;
    const bool tie = other_errors == captured_errors && other_length == k;
    const bool new_first = tie && ctx_.canonical_ties() &&
                           comes_first(child.parent_path, child.rule, pmap_.node(*hit),
                                             scratch.other_path);
    if (other_errors <= captured_errors && other_length <= k) {
        if (!new_first) return Verdict::DROP;
        // cut_after_finished reads the stored node's flags: under the frontier lock, inside the
        // shard's (the lock order); lock null: add_child's, whose caller owns the frontier.
        const FrontierHold flags(finished_cut != nullptr ? lock : nullptr, nullptr);
        if (cut_after_finished(child.parent_path, child.rule, pmap_.node(*hit),
                               *scratch.other_path, finished_cut)) {
            return Verdict::DROP;
        }
    }
    return captured_errors <= other_errors && k <= other_length ? Verdict::REPLACE
                                                                : Verdict::KEEP;
}

std::uint32_t Frontier::apply(Verdict verdict, PermutationMap::Slot hit, std::uint32_t child,
                              std::int64_t errors, const MapKey& key) {
    const auto captured_errors = static_cast<std::uint32_t>(errors);
    if (verdict == Verdict::INSERT) pmap_.insert(key.hash, child, captured_errors, key.counts);
    if (verdict != Verdict::REPLACE) return Trie::kNone;
    const std::uint32_t old = pmap_.node(hit);
    pmap_.replace(hit, child, captured_errors);
    return old;
}

void Frontier::supersede(std::uint32_t node) {
    Node& old = trie_[node];
    if (!(old.flags & (Node::kExpanded | Node::kRetired))) old.flags |= Node::kSuperseded;
}

std::uint32_t Frontier::add_child(const ChildRecord& child, double priority, double bound,
                                  MapScratch scratch, bool enqueue, Stats* stats,
                                  const Incumbent* finished_cut) {
    auto insert = [&]() REQUIRES(frontier_lock) {
        const std::uint32_t node =
            trie_.add(child.parent, child.rule, static_cast<std::int32_t>(child.lb_errors));
        ++stats->nodes_created;
        if (enqueue) {
            queue_.push(priority, node);
            tracked_.push(bound);
        }
        return node;
    };
    if (!ctx_.config().use_permutation_map) return insert();
    PermutationMap::Slot hit;  // the map is not shared (map_child when it is)
    map_locks_.assert_unshared();  // the caller owns the map too
    const Verdict verdict = judge(child, scratch, finished_cut, nullptr, &hit);
    if (verdict == Verdict::DROP) {
        ++stats->permutation_hits;
        return Trie::kNone;
    }
    const std::uint32_t node = insert();
    const std::uint32_t old = apply(verdict, hit, node, child.errors, child.key);
    if (old != Trie::kNone) supersede(old);
    return node;
}

// The two steps of add_child for a child of the parallel search.  Between them the child is in
// the map but not yet in the trie or the queue: another worker may drop an equivalent prefix
// for it, or replace it in the map and flag it superseded (under the frontier's lock, before or
// after link_child: either way it is never expanded), or, not seeing it flagged finished, keep
// a tying newcomer that the finished-tie cut could drop (searched again: never wrong); if the
// search stops in between, the node it came from keeps its bound in the lower bound
// (parallel.cpp), which covers it.
bool Frontier::map_child(std::uint32_t slot, const ChildRecord& child, MapScratch scratch,
                         Stats* stats, std::uint32_t* superseded, const Incumbent* finished_cut,
                         FrontierLock* lock) {
    init_slot(slot, child);
    const ShardHold shard(map_locks_, child.key.hash);
    PermutationMap::Slot hit;
    const Verdict verdict = judge(child, scratch, finished_cut, lock, &hit);
    if (verdict == Verdict::DROP) {
        ++stats->permutation_hits;
        return false;
    }
    *superseded = apply(verdict, hit, slot, child.errors, child.key);
    return true;
}

void Frontier::link_child(std::uint32_t child, double priority, double bound,
                          std::uint32_t superseded, bool enqueue, Stats* stats) {
    trie_.link(child);
    ++stats->nodes_created;
    if (enqueue) {
        queue_.push(priority, child);
        tracked_.push(bound);
    }
    if (superseded != Trie::kNone) supersede(superseded);
}

}  // namespace fairlist
