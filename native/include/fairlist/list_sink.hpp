// Where a complete rule list the search evaluates goes: offered to the incumbent (kept when it is
// fair and better, or, with canonical ties, an equal list that comes first: incumbent.hpp) and,
// in the Rashomon mode, to the store (kept when it is fair and within the cutoff: rashomon.hpp);
// in the fairest mode, to the incumbent as the least unfair list within the ceiling.
// The one offer of the expander (the constant lists, the lists "child + default") and of the
// terminal solver (the lists of one or two more rules it counts); each owns a ListSink, counting
// into its worker's statistics.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "fairlist/context.hpp"
#include "fairlist/counts.hpp"
#include "fairlist/incumbent.hpp"
#include "fairlist/rashomon.hpp"
#include "fairlist/result.hpp"

namespace fairlist {

class ListSink {
 public:
    // stats: the owning worker's.
    ListSink(const SearchContext& ctx, Incumbent& incumbent, Stats& stats)
        : ctx_(ctx), incumbent_(incumbent), stats_(stats) {}

    // The Rashomon mode's store (null: off).
    void set_rashomon(RashomonStore* store) { rashomon_ = store; }

    // Offers the list path (+ last_rule when length > path.size()) + default d, of these errors
    // and complete confusion counts.  Its fairness is checked only where it matters: when it
    // would become the incumbent, or enter the store.
    void offer(std::int64_t errors, std::size_t length, const Fixed& counts,
               const std::vector<std::uint32_t>& path, std::uint32_t last_rule, int d) {
        bool improved = false;
        const double objective = ctx_.objective(errors, length);
        const std::uint32_t last = length > path.size() ? last_rule : Incumbent::kNoRule;
        if (ctx_.fairest()) {  // the least unfair fair list within the ceiling (context.hpp)
            if (!(objective <= ctx_.ceiling())) return;
            const double u = unfairness(ctx_.problem().metric, counts);
            if (u > incumbent_.unfairness() || !ctx_.fair_value(u)) return;
            if (incumbent_.offer_fairest(u, objective, errors, path.data(), path.size(), last, d)) {
                ++stats_.incumbent_updates;
            }
            return;
        }
        incumbent_.offer(objective, errors, path.data(), path.size(), last, d,
                         [&] { return ctx_.fair(counts); }, &improved);
        if (improved) ++stats_.incumbent_updates;
        // The Rashomon mode keeps every fair list within the cutoff (of the incumbent as updated
        // by this very list, when it improved it).
        if (rashomon_ != nullptr && objective <= ctx_.cutoff(incumbent_.objective()) &&
            ctx_.fair(counts)) {
            const bool front = ctx_.config().rashomon_front;  // (the store's front mode)
            rashomon_->add(path.data(), path.size(), last, d, errors, objective,
                           front ? unfairness(ctx_.problem().metric, counts) : 0.0);
        }
    }

 private:
    const SearchContext& ctx_;
    Incumbent& incumbent_;
    Stats& stats_;
    RashomonStore* rashomon_ = nullptr;
};

}  // namespace fairlist
