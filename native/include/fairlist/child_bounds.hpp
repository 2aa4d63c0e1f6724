// The bound on the errors of a child's completions, and its fairness bounds: shared by the
// expansion (expander.cpp) and the terminal solver (terminal_solver.cpp), which bound the same
// children (see bounds.hpp for why each bound holds under the fairness cap).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "fairlist/bitset.hpp"
#include "fairlist/class_bound.hpp"
#include "fairlist/context.hpp"
#include "fairlist/counts.hpp"
#include "fairlist/frontier.hpp"
#include "fairlist/incumbent.hpp"
#include "fairlist/result.hpp"

namespace fairlist {

// A child's lower bound on the errors of its completions: the captured samples' errors plus the
// best bound so far on the uncaptured ones, and at least the parent's bound.
struct ErrorBound {
    std::int64_t fixed;  // errors on the captured samples (0 without the hierarchical bound)
    std::int64_t rest;   // errors forced on the uncaptured samples: the best bound so far
    std::int64_t floor;  // the parent's bound (0 without the hierarchical bound)
    std::size_t length;  // fewest rules of a completion of interest (bound_length)
    std::int64_t errors() const { return std::max(fixed + rest, floor); }
};

// Whether the lists of a subtree can be skipped: their objectives are at least `bound`, they
// have at least `length` rules and start with the rules path (+ last, unless
// Incumbent::kNoRule).  Without canonical ties: SearchContext::cuts (bound >= the incumbent's
// objective; Rashomon mode: bound > its cutoff).  With them, a tie is skipped only when none of
// those lists can come first (Incumbent::tie_may_precede).
inline bool prunes(const SearchContext& ctx, const Incumbent& incumbent, double bound,
                   std::size_t length, const std::vector<std::uint32_t>& path,
                   std::uint32_t last) {
    const double best = incumbent.objective();
    if (!ctx.cuts(bound, best)) return false;
    if (bound > best || !ctx.canonical_ties()) return true;
    return !incumbent.tie_may_precede(bound, path.data(), path.size(), last, length);
}

// The class bound prepared for the uncaptured classes of the prefix whose children are bounded
// (ClassFairnessBound::prepare(classes)), with their majority_positive.
struct PreparedClassBound {
    ClassFairnessBound* bound;
    const word_t* classes;
    const SplitCounts& positive;
};

// The class bound (class_bound.hpp), then the per-sample fairness bound (fairness_bound.hpp),
// on a child (its rule, parent_path, counts and equivalent-points errors) of the prefix whose
// uncaptured classes `prefix` was prepared for: each relaxes the completions of the child; when
// none is fair the child goes, otherwise the fewest errors a fair one makes on the uncaptured
// samples bound those of every completion.  False when one prunes the child (prunes() against
// the incumbent), else raises b->rest.  The cap is SearchContext::fair_cap (the class bound's
// was set by the caller when it prepared it: ClassFairnessBound::set_cap).
inline bool fairness_bounds(const SearchContext& ctx, const Incumbent& incumbent,
                            const PreparedClassBound& prefix, const ChildRecord& child,
                            ErrorBound* b, Stats* stats) {
    const std::vector<std::uint32_t>& path = child.parent_path;
    const std::uint32_t rule = child.rule;
    const Fixed& f = *child.fixed;
    const std::uint32_t j = rule >> 1;
    if (ctx.use_class_bound()) {
        std::int64_t e;
        if (!prefix.bound->bound(f, prefix.classes, ctx.data().class_rule(j), prefix.positive,
                                 child.forced_free, &e)) {
            ++stats->pruned_infeasible;
            ++stats->pruned_class_bound;
            return false;
        }
        if (e > b->rest &&
            prunes(ctx, incumbent, ctx.objective(b->fixed + e, b->length), b->length, path, rule)) {
            ++stats->pruned_by_bound;
            ++stats->pruned_class_bound;
            return false;
        }
        b->rest = std::max(b->rest, e);
    }
    const double cap = ctx.fair_cap(incumbent);  // (the fairest mode's falls: context.hpp)
    if (ctx.use_sample_bound(cap)) {
        ++stats->fairness_bound_calls;
        const FairnessBound fb = ctx.sample_bound(f, *child.free, kSearchWorkBudget, cap);
        if (!fb.feasible) {
            ++stats->pruned_infeasible;
            return false;
        }
        if (fb.min_errors > b->rest &&
            prunes(ctx, incumbent, ctx.objective(b->fixed + fb.min_errors, b->length), b->length,
                   path, rule)) {
            ++stats->pruned_by_bound;
            return false;
        }
        b->rest = std::max(b->rest, fb.min_errors);
    }
    return true;
}

}  // namespace fairlist
