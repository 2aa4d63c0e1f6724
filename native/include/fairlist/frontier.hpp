// The frontier of a search: the prefix trie (trie.hpp), the queue of prefixes to expand
// (queue.hpp), the permutation map (permutation_map.hpp) and the bounds of the queued prefixes
// (bound_tracker.hpp).  Every unexplored list of the running phase extends a queued prefix (or
// the node being expanded), which is what makes the least queued bound a lower bound.
#pragma once

#include <cassert>
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
#include "fairlist/thread_annotations.hpp"
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

// A frontier shared by several workers (parallel.cpp): every access to it (trie, queue,
// tracker; the map has its shards' locks) holds `mutex`, through a FrontierHold, which the
// analysis knows as the role `frontier_lock` (thread_annotations.hpp); idle workers wait on
// `wake` (`waiting` of them) for queued prefixes.
struct FrontierLock {
    std::mutex mutex;
    std::condition_variable wake;
    int waiting GUARDED_BY(frontier_lock) = 0;
};

// One worker's hold on a FrontierLock, timed into its Stats: acquisitions (frontier_locks), the
// seconds spent waiting to acquire (frontier_wait_seconds; not the idle waits on `wake`) and
// holding (frontier_lock_seconds), which measure how far the one lock lets the search scale.
// With no lock (null: the serial search, which has none) it takes nothing and counts nothing:
// the one thread owns the frontier.  With no stats (null) it times nothing.
class SCOPED_CAPABILITY FrontierHold {
 public:
    using Clock = std::chrono::steady_clock;

    // Acquires the lock.
    FrontierHold(FrontierLock* lock, Stats* stats) ACQUIRE(frontier_lock)
        : shared_(lock), stats_(stats) {
        acquire();
    }
    FrontierHold(FrontierLock& lock, Stats* stats) ACQUIRE(frontier_lock)
        : FrontierHold(&lock, stats) {}
    ~FrontierHold() RELEASE() {
        if (held_) release();
    }
    FrontierHold(const FrontierHold&) = delete;
    FrontierHold& operator=(const FrontierHold&) = delete;

    void acquire() ACQUIRE() NO_THREAD_SAFETY_ANALYSIS {
        held_ = true;
        if (shared_ == nullptr) return;
        if (stats_ == nullptr) {
            shared_->mutex.lock();
            return;
        }
        const Clock::time_point asked = Clock::now();
        shared_->mutex.lock();
        since_ = Clock::now();
        stats_->frontier_wait_seconds += std::chrono::duration<double>(since_ - asked).count();
        ++stats_->frontier_locks;
    }
    void release() RELEASE() NO_THREAD_SAFETY_ANALYSIS {
        held_ = false;
        if (shared_ == nullptr) return;
        if (stats_ != nullptr) {
            stats_->frontier_lock_seconds +=
                std::chrono::duration<double>(Clock::now() - since_).count();
        }
        shared_->mutex.unlock();
    }
    // Waits (idle, the lock released) for a wake-up (a worker's hold: a lock and stats).
    void wait() NO_THREAD_SAFETY_ANALYSIS {
        stats_->frontier_lock_seconds +=
            std::chrono::duration<double>(Clock::now() - since_).count();
        ++shared_->waiting;
        std::unique_lock<std::mutex> lock(shared_->mutex, std::adopt_lock);
        shared_->wake.wait(lock);
        lock.release();  // still held: this hold's
        --shared_->waiting;
        since_ = Clock::now();
        ++stats_->frontier_locks;
    }

 private:
    FrontierLock* shared_;
    Stats* stats_;
    bool held_ = false;
    Clock::time_point since_;
};

// The locks of the permutation map's shards when the map is shared (share_map; none in the
// serial search), which the analysis knows as the role `map_shard_lock`.
class ShardLocks {
 public:
    void share() {
        if (locks_ == nullptr) locks_ = std::make_unique<std::mutex[]>(PermutationMap::kShards);
    }
    bool shared() const { return locks_ != nullptr; }
    // Tells the analysis the caller owns the map: it is not shared (the serial search).
    void assert_unshared() const ASSERT_CAPABILITY(map_shard_lock) { assert(!shared()); }

 private:
    friend class ShardHold;
    std::unique_ptr<std::mutex[]> locks_;
};

// Holds the lock of a hash's map shard for its scope (none when the map is not shared).
class SCOPED_CAPABILITY ShardHold {
 public:
    ShardHold(const ShardLocks& locks, std::uint64_t hash) ACQUIRE(map_shard_lock)
        : mutex_(locks.shared() ? &locks.locks_[PermutationMap::shard_of(hash)] : nullptr) {
        if (mutex_ != nullptr) mutex_->lock();
    }
    ~ShardHold() RELEASE() NO_THREAD_SAFETY_ANALYSIS {
        if (mutex_ != nullptr) mutex_->unlock();
    }
    ShardHold(const ShardHold&) = delete;
    ShardHold& operator=(const ShardHold&) = delete;

 private:
    std::mutex* mutex_;
};

// What each member is guarded by, and the why of each exception, is docs/design.md §8.3: the
// trie, the queue, the tracker and mine_ by the frontier lock; the map by its shards' locks;
// the immutable fields of published trie nodes are read under a shard's lock only (published()),
// and a worker writes its own slots with no lock (init_slot).  The methods say which lock they
// need (REQUIRES); in the serial search the one thread holds both roles (FrontierHold with no
// lock, assert_no_workers).
class Frontier {
 public:
    explicit Frontier(const SearchContext& ctx);

    // A fresh trie, queue and permutation map (between length-deepening phases: no worker
    // runs).
    void reset();

    Node& node(std::uint32_t i) REQUIRES(frontier_lock) { return trie_[i]; }
    const Node& node(std::uint32_t i) const REQUIRES(frontier_lock) { return trie_[i]; }
    std::size_t depth(std::uint32_t i) const REQUIRES(frontier_lock) { return trie_.depth(i); }
    std::size_t live() const REQUIRES(frontier_lock) { return trie_.live(); }
    void retire(std::uint32_t i) REQUIRES(frontier_lock) { trie_.retire(i); }

    // The rules of trie node i's prefix, root first, in *out (a published node: its parents
    // and rules never change, so no lock is needed).
    void path(std::uint32_t i, std::vector<std::uint32_t>* out) const;

    // The root (the empty prefix) with its bound on the errors; queued when `queue`.
    std::uint32_t add_root(std::int64_t lb_errors, bool queue, double bound) REQUIRES(frontier_lock);

    bool empty() const REQUIRES(frontier_lock) { return queue_.empty(); }
    std::size_t queue_size() const REQUIRES(frontier_lock) { return queue_.size(); }
    // Pops the next prefix; `bound` must be the one it was pushed with (queued_bound).
    std::uint32_t pop() REQUIRES(frontier_lock) { return queue_.pop(); }
    void untrack(double bound) REQUIRES(frontier_lock) { tracked_.pop(bound); }
    // The least bound of the queued prefixes (bound_tracker.hpp; +inf: none).
    double least_tracked() REQUIRES(frontier_lock) { return tracked_.least(); }
    // The least queued bound, scanning the queue (exact; at a stop).
    double queued_lower_bound(const SearchContext& ctx, double best) const REQUIRES(frontier_lock);

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
                            const Incumbent* finished_cut = nullptr) REQUIRES(frontier_lock);
    // Asks the processor to fetch the map's slot for this hash (under its shard's lock when
    // the map is shared).
    void prefetch(std::uint64_t hash) const EXCLUDES(frontier_lock);

    // The parallel search's permutation map (docs/design.md §8.4): one lock per map shard, so that
    // the lookups of the children a worker holds run outside the frontier's lock, which then
    // only links the survivors (link_child).  Called before the workers start; the map stays
    // shared for the rest of the search.  prefetch then locks the shard too.
    void share_map() { map_locks_.share(); }
    bool map_shared() const { return map_locks_.shared(); }
    // Fresh trie slots for a worker's children (the frontier's lock held; Trie::reserve).
    std::uint32_t reserve_slots(std::size_t count) REQUIRES(frontier_lock) {
        return trie_.reserve(count);
    }
    // A child, written into the worker's own trie slot `slot`, against the shared map (the
    // frontier's lock NOT held; only its shard's): add_child's map step.  Returns false when
    // the map drops the child (the slot stays the worker's); else true, with *superseded the
    // equivalent node it replaced in the map (Trie::kNone: none), to flag when the child is
    // linked.  finished_cut as add_child's; its check reads another worker's node flags, so it
    // takes `lock` (the frontier's) inside the shard's: the lock order is a shard's, then the
    // frontier's.
    bool map_child(std::uint32_t slot, const ChildRecord& child, MapScratch scratch, Stats* stats,
                   std::uint32_t* superseded, const Incumbent* finished_cut, FrontierLock* lock)
        EXCLUDES(frontier_lock);
    // Adds a child that map_child kept to the trie and (when enqueue) the queue (the
    // frontier's lock held), and flags the node it superseded.
    void link_child(std::uint32_t child, double priority, double bound,
                    std::uint32_t superseded, bool enqueue, Stats* stats) REQUIRES(frontier_lock);

    std::size_t memory_bytes() const REQUIRES(frontier_lock) {
        return trie_.bytes() + queue_.bytes() + map_bytes();
    }
    std::size_t peak_live() const REQUIRES(frontier_lock) { return trie_.peak_live(); }
    std::size_t peak_queue() const REQUIRES(frontier_lock) { return queue_.peak(); }

 private:
    const SearchContext& ctx_;
    Trie trie_ GUARDED_BY(frontier_lock);
    NodeQueue queue_ GUARDED_BY(frontier_lock);
    PermutationMap pmap_ GUARDED_BY(map_shard_lock);
    BoundTracker tracked_ GUARDED_BY(frontier_lock);

    // The trie for reading the immutable fields (parent, rule, lb_errors) of published nodes
    // without the frontier lock: under a shard's lock, walking a map entry's path (judge,
    // stored_classes, comes_first; docs/design.md §8.3 "trie nodes' parent, rule").  Never
    // for flags or n_children.
    const Trie& published() const NO_THREAD_SAFETY_ANALYSIS { return trie_; }
    // Writes a node into a worker's own slot (reserve_slots), not yet published: no lock
    // (§8.3 "a worker's trie slots").
    void init_slot(std::uint32_t slot, const ChildRecord& child) NO_THREAD_SAFETY_ANALYSIS {
        trie_.init(slot, child.parent, child.rule, static_cast<std::int32_t>(child.lb_errors));
    }
    // The trie, to a lambda run inside a method that holds the frontier lock (the analysis
    // checks a lambda apart from the method it is written in).
    const Trie& held_trie() const REQUIRES(frontier_lock) { return trie_; }
    // The map's bytes: an atomic count, read under the frontier lock while a shard grows.
    std::size_t map_bytes() const NO_THREAD_SAFETY_ANALYSIS { return pmap_.bytes(); }

    // Whether the prefix parent_path + rule comes before trie node i's in the canonical order
    // (antecedent ids, then predictions; the two have the same length).
    bool comes_first(const std::vector<std::uint32_t>& parent_path, std::uint32_t rule,
                     std::uint32_t i, std::vector<std::uint32_t>* other_path) const;
    // Whether the new prefix parent_path + rule, first in the canonical order, may be dropped:
    // its equivalent `other` (rules other_path) was finished and none of its lists can come
    // before the incumbent (see frontier.cpp).
    bool cut_after_finished(const std::vector<std::uint32_t>& parent_path, std::uint32_t rule,
                            std::uint32_t other, const std::vector<std::uint32_t>& other_path,
                            const Incumbent* incumbent) const REQUIRES(frontier_lock);
    // cut_after_finished's scratch
    mutable std::vector<std::uint32_t> mine_ GUARDED_BY(frontier_lock);
    ShardLocks map_locks_;  // one per map shard (share_map; none: serial)

    // The map's verdict on a new prefix of length k: dropped (an equivalent prefix in the map
    // dominates it), inserted (no equivalent), kept outside the map (neither dominates), or
    // replacing the equivalent entry `hit` (it dominates).
    enum class Verdict { DROP, INSERT, KEEP, REPLACE };
    // finished_cut: add_child's; lock (null: none needed) is taken for its check.
    Verdict judge(const ChildRecord& child, MapScratch scratch, const Incumbent* finished_cut,
                  FrontierLock* lock, PermutationMap::Slot* hit) const REQUIRES(map_shard_lock);
    // Carries out a verdict other than DROP for node `child`; returns the node it replaced in
    // the map (Trie::kNone: none).
    std::uint32_t apply(Verdict verdict, PermutationMap::Slot hit, std::uint32_t child,
                        std::int64_t errors, const MapKey& key) REQUIRES(map_shard_lock);
    // Flags a node replaced in the map as superseded unless it was expanded or retired (the
    // frontier's lock held).
    void supersede(std::uint32_t node) REQUIRES(frontier_lock);
    // Leaves in `out` the classes that trie node i's prefix leaves uncaptured; returns its
    // length.
    std::size_t stored_classes(std::uint32_t i, word_t* out) const;
};

}  // namespace fairlist
