// The Rashomon mode's store: every fair rule list whose objective is within Config::
// rashomon_delta of the best one found, kept compactly while the search runs (context.hpp holds
// the threshold, SearchContext::cutoff; expander.cpp offers the lists).
//
// Each list is its rules (antecedent << 1 | prediction) in one flat vector, delimited by
// offsets, with its default prediction, errors and objective: 4 bytes a rule and 21 a list.
// The threshold falls as the incumbent improves; lists recorded under an older, larger threshold
// are dropped when the store is compacted (trim(), and finish()).  The store belongs to one
// search and is filled by one thread (the Rashomon mode refuses n_jobs != 1).
//
// Memory (issue 37): bytes() counts what the store holds and what it will take to hand the
// lists over, twice the arrays (finish() copies them, sorted, into the result, and the binding
// copies those into numpy arrays one at a time, freeing each) plus the sort's keys and trim()'s
// copy of the objectives, so that Config::memory_limit_mb bounds the lists Python receives too.
// The store grows its arrays itself, by a factor it can afford within the budget Search gives it
// (set_budget: the limit less the other structures).  When no growth fits, it first drops the
// lists above the latest threshold, then, as a cap on the lists chosen by memory, keeps only
// those below the median objective it holds: the median becomes memory_cut(), no list at or
// above it is stored again, and the search prunes there (trim() returns below it).  The search
// goes on: every member of objective below memory_cut() is stored when it ends, and a search
// that completes reports StopReason::MEMORY_LIMIT with that bound as rashomon_complete_below.
// Halving keeps the copies linear and the store at least a quarter full.
//
// The cap on the lists (Config::max_lists) keeps the max_lists lists of least objective: once
// more are stored, the objective of the max_lists-th least (cap()) bounds every list that can
// still be among them, and the search prunes above it too (SearchContext::cutoff).  It is
// never below the true max_lists-th objective of the set: the stored lists within the
// threshold are members, or lie above every member.
//
// The front mode (Config::rashomon_front, for fairlist.fairest_within): the store keeps only the
// Pareto front of the lists offered, in (objective, unfairness): a list is dropped (or not
// stored) when another stored list has no more of both (an equal one: the first offered is
// kept).  The question it answers is "the least unfair list within the final threshold T (ties:
// the least objective)": a list L within T dominated by M has M within T too (no more
// objective) and M is at least as good in (unfairness, objective), so the front restricted to
// T holds an answer; and a list above the threshold dominates only lists above it, so compacting
// by the threshold loses none.  The front is small (at most one list per objective value), so
// add() scans it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace fairlist {

struct SearchResult;

class RashomonStore {
 public:
    // max_lists: the most lists the set returns (those of least objective); 0: no cap.
    // front: keep the Pareto front only (Config::rashomon_front, below).
    explicit RashomonStore(std::int64_t max_lists, bool front = false);

    // Records the list prefix[0 .. n) (+ last, unless Incumbent::kNoRule) + default d
    // (unfairness: its metric's value, read in the front mode only).
    void add(const std::uint32_t* prefix, std::size_t n, std::uint32_t last, int d,
             std::int64_t errors, double objective, double unfairness = 0.0);

    // Called before each node with the search's threshold: drops the lists above it once the
    // store has doubled (and the threshold fell since it last did), and, beyond max_lists
    // lists, all but those of objective at most the max_lists-th least.  Returns cap(), or
    // just below memory_cut() when that is less.
    double trim(double cutoff);
    // The max_lists-th least objective stored when the store last held more than max_lists
    // lists (+inf: never): no list above it is among the first max_lists of the set.
    double cap() const { return cap_; }

    // The bytes the store may take (+inf: no limit; Search sets it before each node).
    void set_budget(double bytes) { budget_ = bytes; }
    // The objective at and above which memory made the store drop or refuse lists (+inf:
    // never): every list below it that was offered is stored.
    double memory_cut() const { return memory_cut_; }
    // The most lists the time left can sort and hand over (Search sets it before each node
    // from the time limit): beyond it the store cuts as when memory runs out, and the cut
    // is then the time limit's (cut_by_time()).
    void set_list_limit(std::size_t n) { list_limit_ = n; }
    bool cut_by_time() const { return cut_by_time_; }

    std::size_t size() const { return objectives_.size(); }
    // The store's footprint with the room for its hand-over (see above).
    std::size_t bytes() const { return footprint(rules_.capacity(), objectives_.capacity()); }

    // Fills r's Rashomon fields with the lists of objective at most `cutoff` (the set's
    // threshold, without the cap: cap() below it means the cap cut the set), sorted by
    // objective and, among equal objectives, canonically (fewer rules, then antecedent ids,
    // then predictions, then the default: Incumbent's order), keeping the first max_lists.
    // complete_below: every list of the set with a smaller objective was evaluated (the
    // search's bound on the lists it did not evaluate; +inf when it completed); it falls to the
    // first dropped list's objective when the cap drops some, and to cap() when the cap cut
    // the search.
    // complete_below also falls to memory_cut().  The store's arrays are released once
    // copied (the store is then empty).
    void finish(double cutoff, double complete_below, SearchResult* r);

 private:
    static constexpr std::size_t kFirstCompaction = 4096;
    std::size_t max_lists_;  // 0: none
    bool front_;             // the Pareto front only
    double compacted_at_;    // the cutoff of the last compaction (+inf: none yet)
    double cap_;             // cap() (+inf: none)
    std::size_t next_compaction_ = kFirstCompaction;  // compact beyond this many lists
    std::size_t next_cap_;                            // apply the cap beyond this many lists
    std::vector<double> scratch_;                     // objectives, for the cap's selection
    std::vector<std::uint32_t> rules_;
    std::vector<std::uint64_t> starts_;  // list i's rules: rules_[starts_[i] .. starts_[i + 1])
    std::vector<std::uint8_t> defaults_;
    std::vector<std::int64_t> errors_;
    std::vector<double> objectives_;
    std::vector<double> unfairness_;  // the front mode's (empty otherwise)
    double budget_;          // set_budget() (+inf: none)
    double memory_cut_;      // memory_cut() (+inf: none)
    double cutoff_;          // the threshold trim() was last given (+inf: none yet)
    std::size_t list_limit_ = static_cast<std::size_t>(-1);  // set_list_limit()
    bool cut_by_time_ = false;                                // cut_by_time()

    // The bytes counted for arrays of these capacities (rules, lists), with the hand-over.
    std::size_t footprint(std::size_t rule_capacity, std::size_t list_capacity) const;
    // Grows the arrays for one more list of n_rules rules, within the budget; false (nothing
    // changed) when no growth fits.
    bool make_room(std::size_t n_rules);
    // No growth fits: drops the lists above the latest threshold and, if that is not enough,
    // those at or above the median objective (memory_cut()).
    void make_way(std::size_t n_rules, bool over_limit);
    // Drops the lists whose objectives exceed `cutoff`.
    void compact(double cutoff);
    // Keeps the lists i for which keep(i) holds, in order.
    template <class Keep>
    void keep_if(Keep keep);
    // Whether list a comes before list b: objective, then the canonical order.
    bool before(std::size_t a, std::size_t b) const;
};

}  // namespace fairlist
