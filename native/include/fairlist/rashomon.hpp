// The Rashomon mode's store: every fair rule list whose objective is within Config::
// rashomon_delta of the best one found, kept compactly while the search runs (context.hpp holds
// the threshold, SearchContext::cutoff; expander.cpp offers the lists).
//
// Each list is its rules (antecedent << 1 | prediction) in one flat vector, delimited by
// offsets, with its default prediction, errors and objective: 4 bytes a rule and 21 a list.
// The threshold falls as the incumbent improves; lists recorded under an older, larger threshold
// are dropped when the store is compacted (over(), and finish()).  The store belongs to one
// search and is filled by one thread (the Rashomon mode refuses n_jobs != 1).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace fairlist {

struct SearchResult;

class RashomonStore {
 public:
    // max_lists: the search stops (StopReason::MAX_LISTS) once more lists than this lie within
    // the threshold; 0: no cap.
    explicit RashomonStore(std::int64_t max_lists);

    // Records the list prefix[0 .. n) (+ last, unless Incumbent::kNoRule) + default d.
    void add(const std::uint32_t* prefix, std::size_t n, std::uint32_t last, int d,
             std::int64_t errors, double objective);

    // Whether more than max_lists recorded lists have objectives of at most `cutoff`: when the
    // store holds more than max_lists, it first drops the lists above `cutoff` (only when the
    // cutoff fell since it last did, so a full store is not scanned at every node).
    bool over(double cutoff);

    std::size_t size() const { return objectives_.size(); }
    std::size_t bytes() const;

    // Fills r's Rashomon fields with the lists of objective at most `cutoff`, sorted by
    // objective and, among equal objectives, canonically (fewer rules, then antecedent ids,
    // then predictions, then the default: Incumbent's order), keeping the first max_lists.
    // complete_below: every list of the set with a smaller objective was evaluated (the
    // search's bound on the lists it did not evaluate; +inf when it completed); it falls to the
    // first dropped list's objective when the cap drops some.
    void finish(double cutoff, double complete_below, SearchResult* r) const;

 private:
    std::size_t max_lists_;  // 0: none
    double compacted_at_;    // the cutoff of the last compaction (+inf: none yet)
    std::vector<std::uint32_t> rules_;
    std::vector<std::uint64_t> starts_;  // list i's rules: rules_[starts_[i] .. starts_[i + 1])
    std::vector<std::uint8_t> defaults_;
    std::vector<std::int64_t> errors_;
    std::vector<double> objectives_;

    // Drops the lists whose objectives exceed `cutoff`.
    void compact(double cutoff);
    // Whether list a comes before list b: objective, then the canonical order.
    bool before(std::size_t a, std::size_t b) const;
};

}  // namespace fairlist
