// The frontier of a search: the prefix trie (trie.hpp), the queue of prefixes to expand
// (queue.hpp), the permutation map (permutation_map.hpp) and the bounds of the queued prefixes
// (bound_tracker.hpp).  Every unexplored list of the running phase extends a queued prefix (or
// the node being expanded), which is what makes the least queued bound a lower bound.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

#include "fairlist/bitset.hpp"
#include "fairlist/bound_tracker.hpp"
#include "fairlist/context.hpp"
#include "fairlist/permutation_map.hpp"
#include "fairlist/queue.hpp"
#include "fairlist/result.hpp"
#include "fairlist/trie.hpp"

namespace fairlist {

class Incumbent;  // incumbent.hpp

// The permutation-map key of a child: the counts of SearchContext::key_counts() and the hash of
// those and of its uncaptured classes.
struct MapKey {
    std::uint32_t counts[PermutationMap::kMaxKey];  // the first key_counts() used
    std::uint64_t hash = 0;
};

// A child on its way into the frontier, as add_child, map_child and judge read it: the prefix
// parent_path + rule (rule: antecedent << 1 | prediction) of length k, child of trie node
// `parent`; its errors on the captured samples, its bound on the errors, its map key and its
// uncaptured classes (n_class_words words).  Built by the expander from its Held record or the
// child it evaluates; it refers to them and lives for one call.  The same record carries a child
// through its bounds (fairness_bounds, child_bounds.hpp) and its counting
// (TerminalSolver::finish_child), which read its counts too: the captured samples' confusion
// counts, the uncaptured samples by (group, label) and their equivalent-points errors (null and
// 0 on a held child: the frontier reads none of them).
struct ChildRecord {
    std::uint32_t parent, rule;
    std::size_t k;
    std::int64_t errors, lb_errors;
    const MapKey& key;
    const word_t* classes;
    const std::vector<std::uint32_t>& parent_path;
    const Fixed* fixed = nullptr;
    const SplitCounts* free = nullptr;
    std::int64_t forced_free = 0;
};

// A worker's scratch for the map's comparisons (any contents): an equivalent prefix's classes
// (n_class_words words) and rules.
struct MapScratch {
    word_t* other_classes;
    std::vector<std::uint32_t>* other_path;
};

// A frontier shared by several workers (parallel.cpp): every access to it (trie, queue, map,
// tracker) holds `mutex`; idle workers wait on `wake` (`waiting` of them) for queued prefixes.
struct FrontierLock {
    std::mutex mutex;
    std::condition_variable wake;
    int waiting = 0;
};

// One worker's hold on a FrontierLock, timed into its Stats: acquisitions (frontier_locks), the
// seconds spent waiting to acquire (frontier_wait_seconds; not the idle waits on `wake`) and
// holding (frontier_lock_seconds), which measure how far the one lock lets the search scale.
class FrontierHold {
 public:
    using Clock = std::chrono::steady_clock;

    // Acquires the lock.
    FrontierHold(FrontierLock& lock, Stats* stats)
        : shared_(lock), lock_(lock.mutex, std::defer_lock), stats_(stats) {
        acquire();
    }
    ~FrontierHold() {
        if (lock_.owns_lock()) release();
    }
    FrontierHold(const FrontierHold&) = delete;
    FrontierHold& operator=(const FrontierHold&) = delete;

    void acquire() {
        const Clock::time_point asked = Clock::now();
        lock_.lock();
        since_ = Clock::now();
        stats_->frontier_wait_seconds += std::chrono::duration<double>(since_ - asked).count();
        ++stats_->frontier_locks;
    }
    void release() {
        stats_->frontier_lock_seconds +=
            std::chrono::duration<double>(Clock::now() - since_).count();
        lock_.unlock();
    }
    // Waits (idle, the lock released) for a wake-up.
    void wait() {
        stats_->frontier_lock_seconds +=
            std::chrono::duration<double>(Clock::now() - since_).count();
        ++shared_.waiting;
        shared_.wake.wait(lock_);
        --shared_.waiting;
        since_ = Clock::now();
        ++stats_->frontier_locks;
    }

 private:
    FrontierLock& shared_;
    std::unique_lock<std::mutex> lock_;
    Stats* stats_;
    Clock::time_point since_;
};

class Frontier {
 public:
    explicit Frontier(const SearchContext& ctx);

    // A fresh trie, queue and permutation map (between length-deepening phases).
    void reset();

    Node& node(std::uint32_t i) { return trie_[i]; }
    const Node& node(std::uint32_t i) const { return trie_[i]; }
    std::size_t depth(std::uint32_t i) const { return trie_.depth(i); }
    std::size_t live() const { return trie_.live(); }
    void retire(std::uint32_t i) { trie_.retire(i); }

    // The rules of trie node i's prefix, root first, in *out.
    void path(std::uint32_t i, std::vector<std::uint32_t>* out) const;

    // The root (the empty prefix) with its bound on the errors; queued when `queue`.
    std::uint32_t add_root(std::int64_t lb_errors, bool queue, double bound);

    bool empty() const { return queue_.empty(); }
    std::size_t queue_size() const { return queue_.size(); }
    // Pops the next prefix; `bound` must be the one it was pushed with (queued_bound).
    std::uint32_t pop() { return queue_.pop(); }
    void untrack(double bound) { tracked_.pop(bound); }
    // The least bound of the queued prefixes (bound_tracker.hpp; +inf: none).
    double least_tracked() { return tracked_.least(); }
    // The least queued bound, scanning the queue (exact; at a stop).
    double queued_lower_bound(const SearchContext& ctx, double best) const;

    // Inserts a child that passed the bounds into the trie and (when enqueue) the queue, with
    // `bound` its queued bound, unless the permutation map holds an equivalent prefix that
    // dominates it; returns its node, or Trie::kNone when it is dropped.  Not with the map
    // shared (map_child, link_child then).  The child's parent_path is compared on a tie with
    // canonical ties.  finished_cut
    // (null: off): for a child two rules short of the cap with canonical ties, the incumbent
    // against which a tying equivalent of a finished prefix may be dropped
    // (Diagnostics::finished_tie_cut, cut_after_finished).
    std::uint32_t add_child(const ChildRecord& child, double priority, double bound,
                            MapScratch scratch, bool enqueue, Stats* stats,
                            const Incumbent* finished_cut = nullptr);
    // Asks the processor to fetch the map's slot for this hash (under its shard's lock when
    // the map is shared).
    void prefetch(std::uint64_t hash) const;

    // The parallel search's permutation map (docs/design.md §8.4): one lock per map shard, so that
    // the lookups of the children a worker holds run outside the frontier's lock, which then
    // only links the survivors (link_child).  Called before the workers start; the map stays
    // shared for the rest of the search.  prefetch then locks the shard too.
    void share_map();
    bool map_shared() const { return map_locks_ != nullptr; }
    // Fresh trie slots for a worker's children (the frontier's lock held; Trie::reserve).
    std::uint32_t reserve_slots(std::size_t count) { return trie_.reserve(count); }
    // A child, written into the worker's own trie slot `slot`, against the shared map (the
    // frontier's lock NOT held; only its shard's): add_child's map step.  Returns false when
    // the map drops the child (the slot stays the worker's); else true, with *superseded the
    // equivalent node it replaced in the map (Trie::kNone: none), to flag when the child is
    // linked.  finished_cut as add_child's; its check reads another worker's node flags, so it
    // takes `lock` (the frontier's) inside the shard's: the lock order is a shard's, then the
    // frontier's.
    bool map_child(std::uint32_t slot, const ChildRecord& child, MapScratch scratch, Stats* stats,
                   std::uint32_t* superseded, const Incumbent* finished_cut, FrontierLock* lock);
    // Adds a child that map_child kept to the trie and (when enqueue) the queue (the
    // frontier's lock held), and flags the node it superseded.
    void link_child(std::uint32_t child, double priority, double bound,
                    std::uint32_t superseded, bool enqueue, Stats* stats);

    std::size_t memory_bytes() const { return trie_.bytes() + queue_.bytes() + pmap_.bytes(); }
    std::size_t peak_live() const { return trie_.peak_live(); }
    std::size_t peak_queue() const { return queue_.peak(); }

 private:
    const SearchContext& ctx_;
    Trie trie_;
    NodeQueue queue_;
    PermutationMap pmap_;
    BoundTracker tracked_;

    // Whether the prefix parent_path + rule comes before trie node i's in the canonical order
    // (antecedent ids, then predictions; the two have the same length).
    bool comes_first(const std::vector<std::uint32_t>& parent_path, std::uint32_t rule,
                     std::uint32_t i, std::vector<std::uint32_t>* other_path) const;
    // Whether the new prefix parent_path + rule, first in the canonical order, may be dropped:
    // its equivalent `other` (rules other_path) was finished and none of its lists can come
    // before the incumbent (see frontier.cpp).
    bool cut_after_finished(const std::vector<std::uint32_t>& parent_path, std::uint32_t rule,
                            std::uint32_t other, const std::vector<std::uint32_t>& other_path,
                            const Incumbent* incumbent) const;
    mutable std::vector<std::uint32_t> mine_;  // cut_after_finished's scratch (under the lock)
    std::unique_ptr<std::mutex[]> map_locks_;  // one per map shard (share_map; null: serial)

    // The map's verdict on a new prefix of length k: dropped (an equivalent prefix in the map
    // dominates it), inserted (no equivalent), kept outside the map (neither dominates), or
    // replacing the equivalent entry `hit` (it dominates).
    enum class Verdict { DROP, INSERT, KEEP, REPLACE };
    // finished_cut: add_child's; lock (null: none needed) is taken for its check.
    Verdict judge(const ChildRecord& child, MapScratch scratch, const Incumbent* finished_cut,
                  FrontierLock* lock, PermutationMap::Slot* hit) const;
    // Carries out a verdict other than DROP for node `child`; returns the node it replaced in
    // the map (Trie::kNone: none).
    std::uint32_t apply(Verdict verdict, PermutationMap::Slot hit, std::uint32_t child,
                        std::int64_t errors, const MapKey& key);
    // Flags a node replaced in the map as superseded unless it was expanded or retired (the
    // frontier's lock held).
    void supersede(std::uint32_t node);
    // The lock of the hash's map shard when the map is shared (else an empty lock).
    std::unique_lock<std::mutex> lock_shard(std::uint64_t hash) const;
    // Leaves in `out` the classes that trie node i's prefix leaves uncaptured; returns its
    // length.
    std::size_t stored_classes(std::uint32_t i, word_t* out) const;
};

}  // namespace fairlist
