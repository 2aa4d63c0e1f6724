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
#include "fairlist/scratch.hpp"
#include "fairlist/search.hpp"
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
    // Expands trie node `index`, or finishes it by counting; either can be cut short by a poll
    // (stop_check().stopped()).
    void expand(std::uint32_t index);
    void finish_by_counting(std::uint32_t index);
    // Offers the list scratch().path (+ last_rule when length says so) + default d, of these
    // errors and counts, as incumbent.
    void offer(std::int64_t errors, std::size_t length, const Fixed& counts,
               std::uint32_t last_rule, int d);

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
    std::unique_ptr<TerminalSolver> terminal_;  // null when it is off or does not apply

    // Recomputes the prefix of trie node `index` from its path: its rules, the samples and
    // classes it leaves uncaptured and its counts (scratch_), and prepares the class bound for
    // its children; returns its length.
    std::size_t load_prefix(std::uint32_t index, Walk* prefix);
    // Child (j, q) of the prefix `prefix` (trie node parent, depth rules): offers its lists
    // "child + default", then bounds it and adds it to the frontier unless a bound prunes it.
    // captured: the samples the rule captures; forced_free: the equivalent-points errors among
    // the samples it leaves uncaptured.
    void evaluate_child(std::uint32_t parent, std::size_t depth, std::uint32_t j, int q,
                        const SplitCounts& captured, std::int64_t forced_free,
                        const Walk& prefix);
    // Offers the fair lists "child + default" as incumbents; returns their fewest errors.
    std::int64_t offer_leaves(const Fixed& f, std::int64_t errors, const SplitCounts& u,
                              std::size_t k, std::uint32_t rule);
    // Fills scratch_.child_classes for child j, hashes them with the key counts, prefetches
    // the map's slot.
    std::uint64_t map_hash(std::uint32_t j, const std::uint32_t* counts, int n_counts);
};

}  // namespace fairlist
