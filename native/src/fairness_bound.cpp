// The fairness lower bound (DESIGN.md §3). Temporary safe placeholder: {feasible, 0} is a valid
// (weak) lower bound while the exact solver is being written.
#include "fairlist/fairness_bound.hpp"

#include <cmath>

namespace fairlist {

namespace {
inline double rate(std::int64_t num, std::int64_t den) {
    return den != 0 ? static_cast<double>(num) / static_cast<double>(den) : 0.0;
}
}  // namespace

double unfairness(Metric m, const GroupConfusion& p, const GroupConfusion& u) {
    switch (m) {
        case Metric::SP:
            return std::fabs(rate(p.tp + p.fp, p.tp + p.fp + p.tn + p.fn) -
                             rate(u.tp + u.fp, u.tp + u.fp + u.tn + u.fn));
        case Metric::PP:
            return std::fabs(rate(p.tp, p.tp + p.fp) - rate(u.tp, u.tp + u.fp));
        case Metric::PE:
            return std::fabs(rate(p.fp, p.fp + p.tn) - rate(u.fp, u.fp + u.tn));
        case Metric::EOPP:
            return std::fabs(rate(p.tp, p.tp + p.fn) - rate(u.tp, u.tp + u.fn));
        case Metric::EODDS:
            return std::fabs(rate(p.tp, p.tp + p.fn) - rate(u.tp, u.tp + u.fn)) +
                   std::fabs(rate(p.fp, p.fp + p.tn) - rate(u.fp, u.fp + u.tn));
        case Metric::CUAE:
        default:
            return std::fabs(rate(p.tp, p.tp + p.fp) - rate(u.tp, u.tp + u.fp)) +
                   std::fabs(rate(p.tn, p.tn + p.fn) - rate(u.tn, u.tn + u.fn));
    }
}

FairnessBound fairness_lower_bound(Metric, double, const GroupConfusion&, const GroupConfusion&,
                                   const Uncaptured&, const Uncaptured&) {
    return {true, 0};
}

}  // namespace fairlist
