// The beam search that gives the branch-and-bound its first incumbent.
//
// Under a node budget the branch-and-bound returns the best list it has met, and breadth-first
// order meets long lists late; a good incumbent early also prunes more.  The beam builds lists
// rule by rule and keeps, at each length, the `width` prefixes whose best fair "prefix +
// default" list is cheapest (prefixes with no fair such list come after, by objective plus
// excess unfairness).  Every list it meets is offered to the Incumbent, so only fair lists of
// the searched space become the incumbent; it proves nothing and changes no certificate.
//
// Memory is O(width * length) whatever the data size: a prefix keeps only its rules; its
// uncaptured samples and counts are recomputed from them when it is extended (walk_prefix:
// length AND-NOT and counting passes, against the 2 * n_antecedents counting passes its children
// cost anyway); the candidates of a level are kept in a bounded heap of the `width` best.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "fairlist/context.hpp"
#include "fairlist/incumbent.hpp"
#include "fairlist/result.hpp"
#include "fairlist/stop.hpp"

namespace fairlist {

class BeamSearch {
 public:
    static constexpr std::size_t kMaxLength = 8;

    // poll: read for Ctrl-C and the time limit (the search then stops at once); stats: where
    // its incumbent updates count.
    BeamSearch(const SearchContext& ctx, Incumbent& incumbent, const StopCheck& poll,
               Stats& stats);

    // Runs a beam of this width over lists of up to min(max_length, kMaxLength) rules.
    void run(std::size_t width);

 private:
    struct Candidate {
        double score;
        std::uint32_t parent;  // index in the current beam
        std::uint32_t rule;    // antecedent << 1 | prediction
    };
    // Lower score first; ties by beam position, then rule: deterministic.
    static bool better(const Candidate& a, const Candidate& b);

    const SearchContext& ctx_;
    Incumbent& incumbent_;
    const StopCheck& poll_;
    Stats& stats_;
    std::size_t width_ = 0, limit_ = 0;
    std::vector<std::uint32_t> rules_, next_rules_;  // the beam: prefix b at b * limit_
    std::vector<Candidate> heap_;  // the best candidates so far, worst on top
    std::vector<word_t> free_;
    std::vector<std::uint8_t> used_;
    std::vector<std::uint32_t> path_;

    // Offers the lists "prefix b + (j, q) + default" (prefix b of length - 1 rules) and keeps
    // the children worth extending in heap_.
    void extend(std::size_t b, std::size_t length);
    // One child (rule) of the prefix walked in `prefix`: its two lists, then its candidacy.
    void child(std::size_t b, std::size_t length, const Walk& prefix,
               const SplitCounts& captured, std::uint32_t rule);
    void keep(const Candidate& c);
    // The next beam from heap_ (best first).
    void next_beam(std::size_t length);
};

}  // namespace fairlist
