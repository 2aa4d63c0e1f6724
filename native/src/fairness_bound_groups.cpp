// The fairness lower bound over k >= 2 groups, for sample weights (group_fairness_lower_bound,
// fairness_bound.hpp).
//
// The relaxation is that of fairness_bound.cpp, over every group: for a prefix, group g's
// captured samples have fixed confusion counts (tp, fp, tn, fn) and its uncaptured ones weigh a
// (label 1) and b (label 0); a completion predicts positive a weight x1 in [0, a] of the first and
// x0 in [0, b] of the second, at a cost of (a - x1) + x0 errors.  Here x1 and x0 are real: a
// completion's weights are sums of sample weights, hence points of this box, so the least cost
// over the box of the fair points bounds the errors of every fair completion from below, and an
// empty fair set proves that no completion is fair.  Unlike the two-group integer program this
// stays cheap whatever the weights and the number of groups: no scan over counts.
//
// Windows.  max_g r_g - min_g r_g <= e holds exactly when some window [t, s] with s - t <= e holds
// every group's rate.  A rate moves one way from its value at the error-free completion
// (x1 = a, x0 = 0), r0, or both ways; moving it costs a constant per unit of rate (below).
//
// * SP, PE, EOpp (one rate, constant denominator d_g: the group's weight, its negatives, its
//   positives).  Group g reaches any rate in [lo_g, hi_g] at cost d_g |r - r0_g| (SP: the
//   positive predictions v = x1 + x0 in [0, a + b] at cost |v - a|; PE: v = x0 at cost v, so
//   lo = r0; EOpp: v = x1 at cost a - v, so hi = r0).  With t0 = min r0, s0 = max r0, a window
//   [t, s] inside [t0, s0] costs A(t) + B(s): A(t) = sum_g d_g (t - r0_g)^+ raises the groups
//   below t (needs t <= min hi), B(s) = sum_g d_g (r0_g - s)^+ lowers those above s (needs
//   s >= max lo); no group pays both, as t <= s.  A and B are convex staircases whose slopes,
//   the weight of the groups passed, change at the sorted r0: the cheapest way to shrink the
//   width from s0 - t0 to the cap takes their segments in increasing order of slope (a
//   fractional knapsack over two convex pieces): O(k log k), exact for the real relaxation.
// * EOdds = gapTPR + gapFPR.  TPRs only fall (x1 <= a) and FPRs only rise (x0 >= 0), and the
//   two parts cost separately (x1 for one, x0 for the other), so the least cost is the cheapest
//   total shrink of both windows, G_tpr + G_fpr - cap, each window shrinking by at most its
//   width: the same greedy over the staircases of both parts, each part capped at its width
//   (separable convex costs under one budget constraint and boxes): exact as well.
// * PP (PPV = TP / (TP + FP), 0 when TP + FP = 0).  PPV_g is at most p0_g, its error-free value
//   (TP at most tp + a, FP at least fp; a zero denominator gives 0), so min_h PPV_h <= min_h p0_h
//   and a fair completion has every PPV_g <= min_h p0_h + cap =: s.  PPV_g <= s is the linear
//   constraint (1 - s) j + s i >= (1 - s)(tp + a) - s fp with j = a - x1, i = x0 (it holds at a
//   zero denominator too), so each group pays at least a fractional knapsack, and the sum bounds
//   the errors.  Exact for the real relaxation (each group then lands at PPV = s, inside the
//   window [min p0, s]) except when a group's cheapest point predicts nothing positive (PPV 0
//   by the convention); valid in every case.
// * CUAE = gapPPV + gapNPV.  NPV_g is at most its error-free value n0_g as well, so with
//   e1 + e2 <= cap the widths of the two windows, every PPV_g <= min p0 + e1 and NPV_g <= min n0
//   + e2.  Cut [0, cap] into kCuaeWindows pieces [e_lo, e_hi]: a fair completion's e1 lies in
//   one, and then satisfies PPV_g <= min p0 + e_hi and NPV_g <= min n0 + cap - e_lo.  Per
//   group, those two linear constraints bound the cost by a 2-variable linear program; every
//   non-negative combination of the two is one constraint whose knapsack is a lower bound of it
//   (surrogate relaxation), and the largest over a few combinations is taken.  The bound is the
//   smallest over the pieces of the sum over the groups: valid, close to the real relaxation's
//   optimum but not equal to it (finer pieces and more combinations would approach it).
//
// Rounding.  The cap is loosened by kRateMargin (rates and gaps carry errors ~1e-16), every
// linear constraint in counts by kCountSlack times the group's weight, and the cost is lowered
// by a margin before it is rounded up to whole errors (weights are integers): floating point can
// only weaken the bound, never cut a fair completion.
#include <algorithm>
#include <cmath>
#include <limits>

#include "fairlist/fairness_bound.hpp"

namespace fairlist {

namespace {

using i64 = std::int64_t;
constexpr double kInfD = std::numeric_limits<double>::infinity();
constexpr double kRateMargin = 1e-12;     // on the cap and on rate targets
constexpr double kShortfall = 1e-10;      // width still to remove that proves infeasibility
constexpr double kCountSlack = 1e-9;      // times a group's weight: on linear constraints
constexpr double kCostMargin = 1e-7;      // plus kCostRelMargin times the weight: on the cost
constexpr double kCostRelMargin = 1e-12;
constexpr int kCuaeWindows = 8;
constexpr double kCuaeMix[] = {0.0, 0.25, 0.5, 0.75, 1.0};

inline double rate(i64 num, i64 den) {
    return den != 0 ? static_cast<double>(num) / static_cast<double>(den) : 0.0;
}

// The least whole number of errors at least `cost` (up to the margin), `weight` the total
// weight involved.
inline i64 round_up(double cost, double weight) {
    const double v = std::ceil(cost - kCostMargin - kCostRelMargin * weight);
    if (!(v > 0)) return 0;
    if (v >= 9e18) return std::numeric_limits<i64>::max() / 4;
    return static_cast<i64>(v);
}

// ---------------------------------------------------------------------------------------------
// Rates with constant denominators (SP, PE, EOpp, the two parts of EOdds).

// One group's rate: cost per unit of rate (the denominator), error-free value, reachable range.
struct RateGroup {
    double d, r0, lo, hi;
};

// A piece of a convex staircase: cost per unit of window width removed, and how much.
struct Segment {
    double slope, length;
    int part;
};

// One rate's staircases A (raise the window's bottom from min r0) and B (lower its top from
// max r0), each cut where it can go no further, as runs of segments of increasing slope
// appended to out (*n_out of them so far; the runs' ends go to run_end); returns the rate's gap
// max r0 - min r0 (how much its window can shrink).
double add_staircases(const RateGroup* rg, int k, int part, Segment* out, int* n_out,
                      int* run_end) {
    int order[kMaxGroups];
    for (int g = 0; g < k; ++g) order[g] = g;
    std::sort(order, order + k, [rg](int x, int y) { return rg[x].r0 < rg[y].r0; });
    const double t0 = rg[order[0]].r0, s0 = rg[order[k - 1]].r0;
    double tmax = s0, smin = t0;  // the bottom never passes the top: cut both at the other end
    for (int g = 0; g < k; ++g) {
        tmax = std::min(tmax, rg[g].hi);
        smin = std::max(smin, rg[g].lo);
    }
    // A: above r0 of the i + 1 lowest groups the slope is their weight.
    double slope = 0.0;
    for (int i = 0; i < k; ++i) {
        slope += rg[order[i]].d;
        const double from = rg[order[i]].r0;
        const double to = std::min(i + 1 < k ? rg[order[i + 1]].r0 : tmax, tmax);
        if (to > from) out[(*n_out)++] = Segment{slope, to - from, part};
    }
    run_end[0] = *n_out;
    // B: below r0 of the i + 1 highest groups the slope is their weight.
    slope = 0.0;
    for (int i = k - 1; i >= 0; --i) {
        slope += rg[order[i]].d;
        const double from = rg[order[i]].r0;
        const double to = std::max(i > 0 ? rg[order[i - 1]].r0 : smin, smin);
        if (from > to) out[(*n_out)++] = Segment{slope, from - to, part};
    }
    run_end[1] = *n_out;
    return s0 - t0;
}

// Least cost of shrinking the windows of `parts` rates (their groups rg[p][0..k)) until their
// widths add up to at most cap: the staircases' segments taken in increasing order of slope
// (merging the runs, each already in that order), each part shrinking by at most its width.
FairnessBound shrink_windows(const RateGroup* const* rg, int parts, int k, double cap,
                             double weight) {
    Segment segments[2 * 2 * kMaxGroups];
    int n = 0, run_end[4], next[4];
    double width[2] = {0.0, 0.0};
    double need = -cap;
    for (int p = 0; p < parts; ++p) {
        next[2 * p] = n;
        width[p] = add_staircases(rg[p], k, p, segments, &n, run_end + 2 * p);
        next[2 * p + 1] = run_end[2 * p];
        need += width[p];
    }
    if (need <= 0) return {true, 0};
    double used[2] = {0.0, 0.0}, cost = 0.0;
    while (need > 0) {
        int pick = -1;  // the run whose next segment is cheapest
        for (int r = 0; r < 2 * parts; ++r) {
            if (next[r] < run_end[r] &&
                (pick < 0 || segments[next[r]].slope < segments[next[pick]].slope)) {
                pick = r;
            }
        }
        if (pick < 0) break;
        const Segment& s = segments[next[pick]++];
        const double take = std::min({s.length, width[s.part] - used[s.part], need});
        if (take <= 0) continue;
        cost += take * s.slope;
        used[s.part] += take;
        need -= take;
    }
    if (need > kShortfall) return {false, 0};
    return {true, round_up(cost, weight)};
}

// The rates whose numerator is linear in the completion: SP's, PE's and EOpp's (and EOdds' two).
enum class LinearRate { POSITIVE, FPR, TPR };

// Group g's linear rate.
RateGroup rate_group(LinearRate r, const GroupConfusion& c, const Uncaptured& u) {
    // Denominator, fixed numerator, how far the numerator can fall / rise from it.
    i64 d = 0, fixed = 0, down = 0, up = 0;
    switch (r) {
        case LinearRate::POSITIVE:  // SP
            d = c.tp + c.fp + c.tn + c.fn + u.pos + u.neg;
            fixed = c.tp + c.fp + u.pos;
            down = u.pos;
            up = u.neg;
            break;
        case LinearRate::FPR:  // PE, EOdds' second gap
            d = c.fp + c.tn + u.neg;
            fixed = c.fp;
            down = 0;
            up = u.neg;
            break;
        case LinearRate::TPR:  // EOpp, EOdds' first gap
            d = c.tp + c.fn + u.pos;
            fixed = c.tp + u.pos;
            down = u.pos;
            up = 0;
            break;
    }
    if (d == 0) return RateGroup{0.0, 0.0, 0.0, 0.0};  // the rate is 0 whatever happens
    return RateGroup{static_cast<double>(d), rate(fixed, d), rate(fixed - down, d),
                     rate(fixed + up, d)};
}

// ---------------------------------------------------------------------------------------------
// Ratios (PP, CUAE).

// Least j + i with alpha j + beta i >= need, j in [0, a], i in [0, b] (real), the constraint
// loosened by slack; +inf when even the loosened one cannot be met.
double knapsack(double need, double alpha, double a, double beta, double b, double slack) {
    need -= slack;
    if (need <= 0) return 0.0;
    if (alpha < beta) {
        std::swap(alpha, beta);
        std::swap(a, b);
    }
    if (alpha * a >= need) return need / alpha;  // alpha > 0 here
    const double rest = need - alpha * a;
    if (beta * b >= rest) return a + rest / beta;
    return kInfD;
}

// One group for the ratio metrics: fixed counts and uncaptured weights as doubles.
struct RatioGroup {
    double tp, fp, tn, fn, a, b, slack;
    double p0, n0;  // error-free PPV and NPV (the largest each can be)
};

// The constraint PPV <= s as alpha j + beta i >= need (j = a - x1, i = x0).
inline void ppv_below(const RatioGroup& g, double s, double* alpha, double* beta, double* need) {
    *alpha = 1.0 - s;
    *beta = s;
    *need = (1.0 - s) * (g.tp + g.a) - s * g.fp;
}

// The constraint NPV <= s (TN = tn + b - i, FN = fn + j).
inline void npv_below(const RatioGroup& g, double s, double* alpha, double* beta, double* need) {
    *alpha = s;
    *beta = 1.0 - s;
    *need = (1.0 - s) * (g.tn + g.b) - s * g.fn;
}

FairnessBound ratio_groups(bool cuae, const Fixed& f, const Uncaptured* u, double cap) {
    const int k = f.k;
    RatioGroup rg[kMaxGroups];
    double weight = 0.0, p0min = kInfD, n0min = kInfD, p0max = 0.0, n0max = 0.0;
    for (int g = 0; g < k; ++g) {
        const GroupConfusion& c = f.g[g];
        const double w = static_cast<double>(c.tp + c.fp + c.tn + c.fn + u[g].pos + u[g].neg);
        rg[g] = RatioGroup{static_cast<double>(c.tp), static_cast<double>(c.fp),
                           static_cast<double>(c.tn), static_cast<double>(c.fn),
                           static_cast<double>(u[g].pos), static_cast<double>(u[g].neg),
                           kCountSlack * (w + 1.0),
                           rate(c.tp + u[g].pos, c.tp + u[g].pos + c.fp),
                           rate(c.tn + u[g].neg, c.tn + u[g].neg + c.fn)};
        weight += w;
        p0min = std::min(p0min, rg[g].p0);
        p0max = std::max(p0max, rg[g].p0);
        n0min = std::min(n0min, rg[g].n0);
        n0max = std::max(n0max, rg[g].n0);
    }
    if ((p0max - p0min) + (cuae ? n0max - n0min : 0.0) <= cap) return {true, 0};
    if (!cuae) {
        const double s = p0min + cap + kRateMargin;
        double cost = 0.0;
        for (int g = 0; g < k; ++g) {
            double alpha, beta, need;
            ppv_below(rg[g], s, &alpha, &beta, &need);
            const double c = knapsack(need, alpha, rg[g].a, beta, rg[g].b, rg[g].slack);
            if (c == kInfD) return {false, 0};
            cost += c;
        }
        return {true, round_up(cost, weight)};
    }
    double best = kInfD;
    for (int piece = 0; piece < kCuaeWindows; ++piece) {
        const double e_lo = cap * piece / kCuaeWindows;
        const double e_hi = piece + 1 == kCuaeWindows ? cap : cap * (piece + 1) / kCuaeWindows;
        const double sp = p0min + e_hi + kRateMargin, sn = n0min + (cap - e_lo) + kRateMargin;
        double cost = 0.0;
        for (int g = 0; g < k && cost < best; ++g) {
            double pa, pb, pn, na, nb, nn;
            ppv_below(rg[g], sp, &pa, &pb, &pn);
            npv_below(rg[g], sn, &na, &nb, &nn);
            double group = 0.0;  // the largest surrogate knapsack
            for (const double mu : kCuaeMix) {
                const double c = knapsack(mu * pn + (1 - mu) * nn, mu * pa + (1 - mu) * na,
                                          rg[g].a, mu * pb + (1 - mu) * nb, rg[g].b, rg[g].slack);
                group = std::max(group, c);
                if (group == kInfD) break;
            }
            cost += group;
        }
        best = std::min(best, cost);
    }
    if (best == kInfD) return {false, 0};
    return {true, round_up(best, weight)};
}

}  // namespace

FairnessBound group_fairness_lower_bound(Metric m, double epsilon, const Fixed& f,
                                         const Uncaptured* u) {
    const int k = f.k;
    // Every fair completion's exact unfairness is at most the canonical cap plus the rounding
    // of the double check (~1e-15), below this.
    const double cap = epsilon + kFeasibilityTol + kRateMargin;
    double weight = 0.0;
    for (int g = 0; g < k; ++g) {
        weight += static_cast<double>(f.g[g].tp + f.g[g].fp + f.g[g].tn + f.g[g].fn + u[g].pos +
                                      u[g].neg);
    }
    RateGroup first[kMaxGroups], second[kMaxGroups];
    const RateGroup* parts[2] = {first, second};
    auto one_rate = [&](LinearRate r) {
        for (int g = 0; g < k; ++g) first[g] = rate_group(r, f.g[g], u[g]);
        return shrink_windows(parts, 1, k, cap, weight);
    };
    switch (m) {
        case Metric::PP:
        case Metric::CUAE:
            return ratio_groups(m == Metric::CUAE, f, u, cap);
        case Metric::SP:
            return one_rate(LinearRate::POSITIVE);
        case Metric::PE:
            return one_rate(LinearRate::FPR);
        case Metric::EOPP:
            return one_rate(LinearRate::TPR);
        case Metric::EODDS:
            for (int g = 0; g < k; ++g) {
                first[g] = rate_group(LinearRate::TPR, f.g[g], u[g]);
                second[g] = rate_group(LinearRate::FPR, f.g[g], u[g]);
            }
            return shrink_windows(parts, 2, k, cap, weight);
    }
    return {false, 0};  // not a Metric value
}

}  // namespace fairlist
