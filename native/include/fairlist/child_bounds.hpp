// The bound on the errors of a child's completions, and its fairness bounds: shared by the
// expansion (expander.cpp) and the terminal solver (terminal_solver.cpp), which bound the same
// children (see bounds.hpp for why each bound holds under the fairness cap).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>

#include "fairlist/bitset.hpp"
#include "fairlist/class_bound.hpp"
#include "fairlist/context.hpp"
#include "fairlist/counts.hpp"
#include "fairlist/incumbent.hpp"
#include "fairlist/search.hpp"

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

// The class bound (class_bound.hpp), then the per-sample fairness bound (fairness_bound.hpp),
// on child j of a prefix whose uncaptured classes are `classes` (the class bound `cb` prepared
// for them, `positive` its majority_positive): each relaxes the completions of the child; when
// none is fair the child goes, otherwise the fewest errors a fair one makes on the uncaptured
// samples bound those of every completion.  False when one prunes the child (against the
// incumbent's objective), else raises b->rest.
inline bool fairness_bounds(const SearchContext& ctx, const Incumbent& incumbent,
                            ClassFairnessBound* cb, const word_t* classes,
                            const SplitCounts& positive, const Fixed& f, std::uint32_t j,
                            const SplitCounts& u, std::int64_t forced_free, ErrorBound* b,
                            Stats* stats) {
    if (ctx.use_class_bound()) {
        std::int64_t e;
        if (!cb->bound(f, classes, ctx.data().class_rule(j), positive, forced_free, &e)) {
            ++stats->pruned_infeasible;
            ++stats->pruned_class_bound;
            return false;
        }
        if (e > b->rest && ctx.objective(b->fixed + e, b->length) >= incumbent.objective()) {
            ++stats->pruned_by_bound;
            ++stats->pruned_class_bound;
            return false;
        }
        b->rest = std::max(b->rest, e);
    }
    if (ctx.use_sample_bound()) {
        ++stats->fairness_bound_calls;
        const FairnessBound fb = ctx.sample_bound(f, u, kSearchWorkBudget);
        if (!fb.feasible) {
            ++stats->pruned_infeasible;
            return false;
        }
        if (fb.min_errors > b->rest &&
            ctx.objective(b->fixed + fb.min_errors, b->length) >= incumbent.objective()) {
            ++stats->pruned_by_bound;
            return false;
        }
        b->rest = std::max(b->rest, fb.min_errors);
    }
    return true;
}

}  // namespace fairlist
