// The fairness lower bound of docs/design.md §3.3: for a prefix whose captured samples have fixed
// predictions, the minimum number of errors on the uncaptured samples over every completion
// (ignoring the rule structure) that meets the fairness cap, or "infeasible".
//
// The relaxation has four integer variables: x[g][y] in [0, u[g][y]] uncaptured samples of
// group g and label y predicted positive. It is solved exactly with respect to the canonical
// double-precision check is_fair(unfairness(completed counts), epsilon), with no allocation
// and no external solver (see fairness_bound.cpp for the algorithm per metric).
//
// With more than two groups, or sample weights, the search uses group_fairness_lower_bound instead: the
// same relaxation over every group, solved for real-valued x (see fairness_bound_groups.cpp).
#pragma once
#include <cstdint>

#include "fairlist/counts.hpp"
#include "fairlist/metric.hpp"

namespace fairlist {

// Values equal to fairlist.metrics.Metric.
constexpr double kFeasibilityTol = 1e-9;

// Unfairness of complete confusion counts: same arithmetic as fairlist.metrics
// (rate = num/den or 0 if den == 0; gap = |rate_prot - rate_unprot|; EOdds = gapTPR + gapFPR;
//  CUAE = gapPPV + gapNPV). Must be bit-identical to the Python value.
double unfairness(Metric m, const GroupConfusion& prot, const GroupConfusion& unprot);

// Unfairness over the k = f.k groups: each rate's gap is its largest minus its smallest value
// over the groups (EOdds: gapTPR + gapFPR; CUAE: gapPPV + gapNPV), the arithmetic of
// fairlist.metrics.unfairness_from_counts.  With two groups it equals the function above bit for
// bit (max - min of two doubles is |a - b| exactly).
double unfairness(Metric m, const Fixed& f);

// value <= epsilon + kFeasibilityTol
inline bool is_fair(double value, double epsilon) { return value <= epsilon + kFeasibilityTol; }

struct FairnessBound {
    bool feasible;            // some completion of the uncaptured samples meets epsilon
    std::int64_t min_errors;  // minimum errors on the uncaptured samples over fair completions
                              // (undefined when !feasible)
};

// The relaxation: x[g][y] in [0, u[g][y]] uncaptured samples of group g and label y are
// predicted positive (any split, ignoring the rule structure); the completed counts are
// fixed + x. Minimise sum_g (u[g].pos - x[g][1]) + x[g][0] subject to
// is_fair(unfairness(completed), epsilon). Exact for this 4-variable integer program, unless
// the enumerations of EOdds, PP and CUAE pass work_budget inner evaluations: then it returns the
// (valid, smaller) lower bound reached so far, and "feasible".
constexpr std::int64_t kExactWorkBudget = 250000;  // exact on every tested case, <= ~0.3 ms
constexpr std::int64_t kSearchWorkBudget = 4000;   // per child of the search: a few microseconds
FairnessBound fairness_lower_bound(Metric m, double epsilon,
                                   const GroupConfusion& fixed_prot, const GroupConfusion& fixed_unprot,
                                   const Uncaptured& u_prot, const Uncaptured& u_unprot,
                                   std::int64_t work_budget = kExactWorkBudget);

// The relaxation above over k >= 2 groups, with x[g][y] real in [0, u[g][y]] (counts may be sums
// of sample weights): the minimum errors on the uncaptured samples over the completions whose
// unfairness is at most epsilon (+ kFeasibilityTol), rounded up, or "infeasible".  Valid for the
// integer problem (every completion is a point of the relaxation); exact for the real-valued
// relaxation for SP, PE, EOpp, EOdds and PP, a valid lower bound of it for CUAE; O(k log k)
// (CUAE: O(k) times a fixed number of windows).  fairness_bound_groups.cpp gives the argument
// per metric.  fixed.k groups; u[g] the uncaptured samples of group g.
FairnessBound group_fairness_lower_bound(Metric m, double epsilon, const Fixed& fixed,
                                         const Uncaptured* u);

}  // namespace fairlist
