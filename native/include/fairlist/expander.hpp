// One worker of a search: expands the prefixes it pops (every child (antecedent, label): its
// lists "child + default" offered as incumbents, its bounds, the permutation map, the trie and
// the queue), or finishes them by counting (terminal_solver.hpp).  It owns what a thread needs
// to itself: its scratch (scratch.hpp), its class bound (prepared per expanded prefix), its
// terminal solver, its statistics and its stop check.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>

#include "fairlist/child_bounds.hpp"
#include "fairlist/class_bound.hpp"
#include "fairlist/context.hpp"
#include "fairlist/frontier.hpp"
#include "fairlist/incumbent.hpp"
#include "fairlist/list_sink.hpp"
#include "fairlist/rashomon.hpp"
#include "fairlist/result.hpp"
#include "fairlist/scratch.hpp"
#include "fairlist/stop.hpp"
#include "fairlist/terminal_solver.hpp"

namespace fairlist {

class Expander {
 public:
    // stop_flag: Search::request_stop's flag.
    Expander(const SearchContext& ctx, Frontier& frontier, Incumbent& incumbent,
             const std::atomic<bool>* stop_flag);

    // The clock of the time limit starts (Search::run).
    void start(StopCheck::Clock::time_point t) { poll_.start(t); }

    // The errors every list must make, from the fairness bounds of the empty prefix (*rest
    // raised from its equivalent-points value); false when no list is fair.
    bool root_bound(std::int64_t* rest);
    // Whether the prefix of a node of this depth is finished by counting.
    bool finishes_by_counting(std::size_t depth) const {
        return terminal_ != nullptr && depth + 2 == ctx_.max_length();
    }
    // The parallel search: shares the frontier under lock (null: serial), holds the children
    // it keeps until mark_done, and wakes idle workers when it queues a prefix.
    void set_shared(FrontierLock* lock) { shared_ = lock; }
    // Forgets its trie slots (a new phase's trie: Frontier::reset).
    void clear_slots() { slots_.clear(); }
    // The steps of the node loop (Search::node_loop) on a popped node.  Loads node `index` for
    // expansion or counting: its rules and bound (the frontier's lock held, if shared).
    void load(std::uint32_t index) REQUIRES(frontier_lock);
    // Expands the loaded node, or finishes it by counting (the lock not held: each access to
    // the frontier takes it); either can be cut short by a poll (stop_check().stopped()).
    void expand_loaded();
    void finish_loaded();
    // Unless a poll cut it short: queues the children held (parallel search), marks the loaded
    // node expanded, and the children it finished by counting (the lock held, if shared).
    void mark_done() REQUIRES(frontier_lock);
    // Whether a popped node of this depth may still hold a list beating the incumbent (or, with
    // canonical ties, tying it and coming first); walks its path on a tie only.
    bool worth_expanding(std::uint32_t index, std::size_t depth) REQUIRES(frontier_lock);
    // Offers the list scratch().path (+ last_rule when length says so) + default d, of these
    // errors and counts (ListSink::offer).
    void offer(std::int64_t errors, std::size_t length, const Fixed& counts,
               std::uint32_t last_rule, int d) {
        sink_.offer(errors, length, counts, scratch_.path, last_rule, d);
    }

    // The Rashomon mode's store (null: off): offer() records there every fair list within
    // the cutoff (SearchContext::cutoff).
    void set_rashomon(RashomonStore* store) {
        sink_.set_rashomon(store);
        if (terminal_ != nullptr) terminal_->set_rashomon(store);
    }

    // Bytes this worker holds for itself, allocated once: its terminal solver's count tables
    // (two of 16 m^2 bytes for m antecedents) and its scratch.
    std::size_t bytes() const;

    Scratch& scratch() { return scratch_; }
    Stats& stats() { return stats_; }
    const Stats& stats() const { return stats_; }
    StopCheck& stop_check() { return poll_; }

 private:
    const SearchContext& ctx_;
    Frontier& frontier_;
    Incumbent& incumbent_;
    Scratch scratch_;
    Stats stats_;
    StopCheck poll_;
    ClassFairnessBound class_bound_;
    ListSink sink_;                             // where its lists "child + default" go
    std::unique_ptr<TerminalSolver> terminal_;  // null when it is off or does not apply
    FrontierLock* shared_ = nullptr;            // the parallel search's lock (null: serial)
    // The node being expanded: its index, walk, length and bound on the errors.
    std::uint32_t index_ = 0;
    Walk prefix_;
    std::size_t depth_ = 0;
    std::int64_t prefix_lb_ = 0;
    std::vector<std::uint32_t> other_path_;  // a permutation-map candidate's rules
    // Children finished by counting, to mark done; with the map shared, each with the node it
    // superseded in the map, and linked then.
    struct Finished {
        std::uint32_t node, superseded;
    };
    std::vector<Finished> finished_;
    // The parallel search's children to queue, held until the node is done (mark_done) so that
    // one acquisition of the frontier's lock adds them all (before: one per child, 115 a node
    // breadth-first on COMPAS).  Their order, and so the map's decisions between siblings, is
    // the serial search's; another worker sees them only once the node is done, which delays
    // nothing it could prune (a child's bounds and offers are done when it is held).
    struct Held {
        std::uint32_t rule;
        std::int64_t errors, lb_errors;
        double priority, bound;
        MapKey key;
        std::size_t classes;  // its uncaptured classes at held_classes_[classes ..]
        // With the map shared (map_held): its trie slot, and the node it superseded in the map.
        std::uint32_t node, superseded;
    };
    std::vector<Held> held_;
    std::vector<word_t> held_classes_;
    // With the map shared: fresh trie slots of this worker (a stack, the lowest on top), taken
    // kSlotChunk at a time under the frontier's lock (load), at least one per possible child.
    static constexpr std::size_t kSlotChunk = 4096;
    std::vector<std::uint32_t> slots_;

    // Recomputes the loaded prefix from its rules: the samples and classes it leaves
    // uncaptured and its counts (scratch_, prefix_), and prepares the class bound for its
    // children.
    void prepare_prefix();
    // The scratch of the map's comparisons (Frontier::add_child, map_child).
    MapScratch map_scratch() { return {scratch_.other_classes.data(), &other_path_}; }
    // Child (j, q) of the loaded prefix: offers its lists "child + default", then bounds it and
    // adds it to the frontier unless a bound prunes it.  captured: the samples the rule
    // captures; forced_free: the equivalent-points errors among the samples it leaves
    // uncaptured.
    void evaluate_child(std::uint32_t j, int q, const SplitCounts& captured,
                        std::int64_t forced_free);
    // The child's node in the frontier (Frontier::add_child), and its terminal counting;
    // leaf_errors: the fewest errors of its lists "child + default" (the queue's order).
    void add_child(const ChildRecord& child, std::int64_t leaf_errors);
    // Holds a child to queue (parallel search), with its classes (scratch_.child_classes).
    void hold_child(const ChildRecord& child, double priority, double bound);
    // The class bound as prepared for the loaded prefix's children (prepare_prefix).
    PreparedClassBound prepared_class_bound() {
        return {&class_bound_, scratch_.class_free.data(), scratch_.class_positive};
    }
    // Judges the held children against the shared permutation map, outside the frontier's
    // lock (Frontier::map_child), keeping those the map does not drop.
    void map_held();
    // Queues the held children (the lock held).
    void queue_held() REQUIRES(frontier_lock);
    // Offers the fair lists "child + default" as incumbents; returns their fewest errors.
    std::int64_t offer_leaves(const Fixed& f, std::int64_t errors, const SplitCounts& u,
                              std::size_t k, std::uint32_t rule);
    // Fills scratch_.child_classes for child j, hashes them with the key counts, prefetches
    // the map's slot.
    std::uint64_t map_hash(std::uint32_t j, const std::uint32_t* counts, int n_counts);
};

}  // namespace fairlist
