// The fairness lower bound (docs/design.md §3.3).
//
// For a prefix, the predictions of the captured samples are fixed (counts `fixed`); the
// uncaptured samples of group g and label y number u[g][y]. The relaxation chooses how many of
// them are predicted positive, x[g][y] in [0, u[g][y]], and minimises the errors
// sum_g (u[g].pos - x[g][1]) + x[g][0] subject to the canonical check
// is_fair(unfairness(fixed + x), epsilon). Everything below is exact with respect to that double
// computation: every candidate is accepted only by evaluating the same rates in the same order
// as fairlist.metrics, and every jump computed from a continuous formula is followed by +-1 steps
// that re-check the canonical values. Continuous formulas are used only (a) to *start* searches
// near their answer and (b) as lower bounds to stop scans or skip candidates, always with a
// safety margin far larger than the floating-point error, so rounding can only cost time.
//
// Per metric (u = uncaptured counts, C* = the answer):
//  * SP, PE, EOpp: the rate of group g depends on a single integer v_g = (c_g + v)/d_g with cost
//    |v_g - o_g| (SP: v = x1 + x0, o = u.pos; PE: v = x0, o = 0; EOpp: v = x1, o = u.pos; the
//    other variable is set error-free). For a fixed value of one group's variable, the feasible
//    values of the other form an integer interval (the double rate is monotone in v and the
//    double difference is monotone in each rate), found in O(1) from the linear inequality plus
//    +-1 canonical steps. We scan the variable of the group with the larger denominator outward
//    from its optimum in both directions and stop when a lower bound (scan distance plus the
//    continuous cost the partner still needs) reaches the best cost found. Typical scan length
//    O(d_s / (d_s - d_p)) steps; worst case O(u) (lattice-infeasible instances, e.g. epsilon = 0).
//    An O(1) continuous test proves most infeasible instances first.
//  * EOdds: TPR part (x1's) and FPR part (x0's) are independent; h(c) = the minimum canonical gap
//    of one part at total cost exactly c is O(1) (the double gap is monotone along the split of a
//    fixed total, so it is minimal at the sign change, located from the linear root plus +-1
//    steps). The answer is the least total C such that some split c1 + c0 = C has
//    fl(h_tpr(c1) + h_fpr(c0)) <= T (fl addition is monotone, so costs "exactly c" suffice when
//    totals are enumerated in increasing order). C starts at a continuous lower bound
//    (fractional knapsack over the two parts), and splits whose per-part continuous bounds
//    already exceed T are skipped in O(1). Typical cost O(C*) cheap checks plus a few h
//    evaluations; a lattice-infeasible instance triggers an O(u) exact global feasibility test.
//  * PP, CUAE (ratios): for a fixed cost c of one group, its points are x1 = u.pos - j,
//    x0 = c - j, and both PPV and NPV are monotone in j (the derivative of a ratio of two linear
//    functions of j has a constant sign). We enumerate totals C in increasing order from a
//    continuous lower bound (the group whose PPV (NPV) must come down pays at least a fractional
//    knapsack cost), and for each split (c_P, c_U) compare the two monotone chains: PP by a
//    binary search per element of the shorter chain, CUAE by all pairs, after an O(1) test on
//    the chains' value ranges. Typical cost: a few splits with one chain of length 1, i.e.
//    O(log u) for PP. CUAE starts at max(PP optimum, NPV optimum) (the NPV problem is the PP
//    problem with labels and predictions swapped) but its optimum is often far above that start,
//    and every split in between is examined: measured 10-900 us per call on COMPAS-sized states.
//    Worst case O(C*^3) (PP) and O(C*^4) (CUAE). A work budget caps pathological cases:
//    if it is exhausted at total C, the function returns {feasible, C}, which is still a valid
//    lower bound (all totals below C were proved infeasible), never more than the true minimum.
#include "fairlist/fairness_bound.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace fairlist {

namespace {

using i64 = std::int64_t;
constexpr i64 kInf = std::numeric_limits<i64>::max() / 4;
constexpr double kInfD = std::numeric_limits<double>::infinity();
// Margin on continuous lower bounds measured in samples (errors); rounding errors are ~1e-10.
constexpr double kCostMargin = 1e-6;
// Margin on rates/gaps for continuous reasoning; double rounding errors are ~1e-16.
constexpr double kGapMargin = 1e-12;

inline double rate(i64 num, i64 den) {
    return den != 0 ? static_cast<double>(num) / static_cast<double>(den) : 0.0;
}

// ceil(x - margin) as an integer, clamped to [0, kInf].
inline i64 ceil_lb(double x) {
    double v = std::ceil(x - kCostMargin);
    if (!(v > 0)) return 0;
    if (v >= 1e17) return kInf;
    return static_cast<i64>(v);
}

// Minimum (continuous) cost of alpha*j + beta*i >= need with j in [0, cap_a], i in [0, cap_b];
// +inf when impossible even continuously (with a small slack).
double knapsack_lb(double need, double alpha, double cap_a, double beta, double cap_b) {
    if (need <= 0) return 0.0;
    if (alpha < beta) {
        std::swap(alpha, beta);
        std::swap(cap_a, cap_b);
    }
    if (alpha > 0 && need <= alpha * cap_a) return need / alpha;
    double rest = need - alpha * cap_a;
    if (beta > 0 && rest <= beta * cap_b) return cap_a + rest / beta;
    if (rest <= kGapMargin) return cap_a + cap_b;
    return kInfD;
}

// ---------------------------------------------------------------------------------------------
// Linear metrics: rate of a group as a function of one integer variable.
struct Lin {
    i64 c;  // numerator at v = 0
    i64 d;  // denominator (constant)
    i64 R;  // v in [0, R]
    i64 o;  // error-free value of v; cost |v - o|
};

inline double lrate(const Lin& g, i64 v) { return rate(g.c + v, g.d); }

// Cheapest |v - p.o| over v in [0, p.R] with fabs(rs - rate(p, v)) <= T; kInf if none.
// f(v) = fl(rs - rate(p, v)) is non-increasing in v, so the feasible v form an interval.
i64 partner_cost(const Lin& p, double rs, double T) {
    auto f = [&](i64 v) { return rs - lrate(p, v); };
    double fo = f(p.o);
    if (std::fabs(fo) <= T) return 0;
    if (p.d == 0) return kInf;
    const double d = static_cast<double>(p.d), c = static_cast<double>(p.c);
    if (fo > T) {  // rate too low: first v > o with f(v) <= T
        if (p.o >= p.R) return kInf;
        double est = std::ceil((rs - T) * d - c);
        i64 v = est <= static_cast<double>(p.o + 1) ? p.o + 1
                : est >= static_cast<double>(p.R) ? p.R : static_cast<i64>(est);
        while (v > p.o + 1 && f(v - 1) <= T) --v;
        while (v <= p.R && f(v) > T) ++v;
        if (v > p.R || f(v) < -T) return kInf;
        return v - p.o;
    }
    // rate too high: last v < o with f(v) >= -T
    if (p.o <= 0) return kInf;
    double est = std::floor((rs + T) * d - c);
    i64 v = est >= static_cast<double>(p.o - 1) ? p.o - 1 : est <= 0 ? 0 : static_cast<i64>(est);
    while (v < p.o - 1 && f(v + 1) >= -T) ++v;
    while (v >= 0 && f(v) < -T) --v;
    if (v < 0 || f(v) > T) return kInf;
    return p.o - v;
}

// Minimum sum_g |v_g - o_g| subject to fabs(rate(P, vP) - rate(U, vU)) <= T; kInf if none.
i64 lin_solve(const Lin& P, const Lin& U, double T) {
    const double D = lrate(P, P.o) - lrate(U, U.o);
    if (std::fabs(D) <= T) return 0;
    // O(1) continuous infeasibility test: the largest reduction of |D| that the helpful moves
    // of both groups can make (P helps by moving against sign(D), U by moving with it).
    {
        const i64 helpP = D > 0 ? P.o : P.R - P.o;
        const i64 helpU = D > 0 ? U.R - U.o : U.o;
        double reach = (P.d ? static_cast<double>(helpP) / static_cast<double>(P.d) : 0.0) +
                       (U.d ? static_cast<double>(helpU) / static_cast<double>(U.d) : 0.0);
        if (std::fabs(D) - reach > T + kGapMargin) return kInf;
    }
    // Scan the group with the larger denominator (slower rate); the partner jumps in O(1).
    bool scan_prot;
    if (P.R == 0) scan_prot = true;
    else if (U.R == 0) scan_prot = false;
    else scan_prot = P.d >= U.d;
    const Lin& s = scan_prot ? P : U;
    const Lin& p = scan_prot ? U : P;
    const double Ds = scan_prot ? D : -D;  // rate(s) - rate(p) at the optimum
    const double E = std::fabs(Ds) - T - kGapMargin;  // excess the moves must remove
    i64 best = partner_cost(p, lrate(s, s.o), T);
    if (s.d == 0) return best;
    const double ds = static_cast<double>(s.d), dp = static_cast<double>(p.d);
    for (int dir = 1; dir >= -1; dir -= 2) {
        // Moving s by +1 adds 1/d_s to rate(s) - rate(p): helpful iff that reduces |Ds|.
        const double e = (dir > 0) == (Ds < 0) ? 1.0 : -1.0;
        // The partner can shift the difference by at most `reach` in the helpful direction, so
        // scan distances where E - e k / d_s > reach are infeasible: skip them (helpful
        // direction) or stop there (unhelpful direction).
        const i64 helpp = Ds > 0 ? p.R - p.o : p.o;
        const double reach = p.d ? static_cast<double>(helpp) / dp : 0.0;
        i64 kfirst = 1, klast = kInf;
        if (e > 0) {
            kfirst = std::max<i64>(1, ceil_lb((E - reach) * ds));
        } else {
            const double kl = std::floor((reach - E) * ds + kCostMargin);
            klast = kl < 0 ? 0 : kl >= 1e17 ? kInf : static_cast<i64>(kl);
        }
        for (i64 k = kfirst; k <= klast; ++k) {
            const i64 v = s.o + dir * k;
            if (v < 0 || v > s.R || k >= best) break;
            // Any point with scan distance k' >= k costs at least k' + d_p (E - e k'/d_s)^+,
            // non-decreasing in k' because d_p <= d_s (or e = -1).
            const double need = dp * (E - e * static_cast<double>(k) / ds);
            if (need > 0 && static_cast<double>(k) + need - kCostMargin >= static_cast<double>(best))
                break;
            const i64 pc = partner_cost(p, lrate(s, v), T);
            if (pc < kInf) best = std::min(best, k + pc);
        }
    }
    return best;
}

// ---------------------------------------------------------------------------------------------
// EOdds: one part (TPR or FPR); both groups move their variable in the same direction `dir`
// from o (TPR: v = x1 = o - j, dir = -1; FPR: v = x0 = j, dir = +1), j_g in [0, m_g].
struct Part {
    Lin P, U;
    int dir;
    i64 mP, mU;
    double absD;     // |rate gap| at j = 0
    double kappa;    // 1 / d of the group whose move reduces the gap (0 if none)
    double cap;      // its moves, capped at what removes the gap entirely
};

inline double part_diff(const Part& t, i64 jP, i64 jU) {
    return lrate(t.P, t.P.o + t.dir * jP) - lrate(t.U, t.U.o + t.dir * jU);
}

Part make_part(const Lin& P, const Lin& U, int dir) {
    Part t{P, U, dir, dir < 0 ? P.o : P.R - P.o, dir < 0 ? U.o : U.R - U.o, 0.0, 0.0, 0.0};
    const double D = part_diff(t, 0, 0);
    t.absD = std::fabs(D);
    // Moving P by j adds dir*j/dP to D; moving U adds -dir*j/dU.
    if (D != 0) {
        const bool p_helps = (dir > 0) == (D < 0);
        const Lin& h = p_helps ? P : U;
        const i64 m = p_helps ? t.mP : t.mU;
        if (h.d > 0 && m > 0) {
            t.kappa = 1.0 / static_cast<double>(h.d);
            t.cap = std::min(static_cast<double>(m), t.absD * static_cast<double>(h.d));
        }
    }
    return t;
}

// Continuous lower bound on the gap of a part at cost c (with margin).
inline double part_lb(const Part& t, i64 c) {
    double r = t.absD - kGapMargin - t.kappa * std::min(static_cast<double>(c), t.cap);
    return r > 0 ? r : 0.0;
}

// Minimum canonical gap of a part over all splits jP + jU = c (+inf if c is out of range).
double part_h(const Part& t, i64 c, i64& work) {
    if (c > t.mP + t.mU) return kInfD;
    const i64 lo = std::max<i64>(0, c - t.mU), hi = std::min(t.mP, c);
    // s(j) is the difference oriented to be non-decreasing in j.
    auto s = [&](i64 j) {
        ++work;
        double d = part_diff(t, j, c - j);
        return t.dir > 0 ? d : -d;
    };
    if (lo == hi) return std::fabs(s(lo));
    const double slo = s(lo);
    i64 j = lo;
    if (slo < 0) {
        const double slope = 1.0 / static_cast<double>(t.P.d) + 1.0 / static_cast<double>(t.U.d);
        double est = std::ceil(-slo / slope) + static_cast<double>(lo);
        j = est >= static_cast<double>(hi + 1) ? hi + 1 : est <= lo ? lo : static_cast<i64>(est);
    }
    while (j > lo && s(j - 1) >= 0) --j;
    while (j <= hi && s(j) < 0) ++j;
    double best = kInfD;
    if (j <= hi) best = std::fabs(s(j));
    if (j - 1 >= lo) best = std::min(best, std::fabs(s(j - 1)));
    return best;
}

// Minimum canonical gap of a part over its whole box (every jP, jU), O(mP) evaluations.
double part_global_min(const Part& t, i64& work) {
    double best = kInfD;
    const Lin& U = t.U;
    for (i64 jP = 0; jP <= t.mP; ++jP) {
        const double r = lrate(t.P, t.P.o + t.dir * jP);
        // rate(U) at jU is monotone in jU (direction dir); q(jU) oriented non-decreasing.
        auto q = [&](i64 jU) {
            ++work;
            double d = lrate(U, U.o + t.dir * jU) - r;
            return t.dir > 0 ? d : -d;
        };
        i64 j = 0;
        if (U.d > 0 && t.mU > 0) {
            double target = t.dir > 0 ? r * static_cast<double>(U.d) - static_cast<double>(U.c + U.o)
                                      : static_cast<double>(U.c + U.o) - r * static_cast<double>(U.d);
            double est = std::ceil(target);
            j = est >= static_cast<double>(t.mU + 1) ? t.mU + 1 : est <= 0 ? 0 : static_cast<i64>(est);
            while (j > 0 && q(j - 1) >= 0) --j;
            while (j <= t.mU && q(j) < 0) ++j;
        }
        if (j <= t.mU) best = std::min(best, std::fabs(q(j)));
        if (j - 1 >= 0) best = std::min(best, std::fabs(q(j - 1)));
    }
    return best;
}

FairnessBound eodds_solve(const Part& A, const Part& B, double T, i64 budget) {
    i64 work = 0;
    if (A.absD + B.absD <= T) {  // cheap pre-test, then the canonical one
        if (part_h(A, 0, work) + part_h(B, 0, work) <= T) return {true, 0};
    } else if (part_h(A, 0, work) + part_h(B, 0, work) <= T) {
        return {true, 0};
    }
    // Continuous lower bound on the total: fractional knapsack over the two parts.
    const double need = A.absD + B.absD - 2 * kGapMargin - T;
    const double lb = knapsack_lb(need, A.kappa, A.cap, B.kappa, B.cap);
    if (lb == kInfD) return {false, 0};
    const i64 MA = A.mP + A.mU, MB = B.mP + B.mU;
    bool global_checked = false;
    i64 rounds = 0;
    for (i64 C = ceil_lb(lb); C <= MA + MB; ++C, ++rounds) {
        if (!global_checked && rounds >= 16) {
            global_checked = true;
            if (part_global_min(A, work) + part_global_min(B, work) > T) return {false, 0};
        }
        if (work > budget) return {true, C};
        for (i64 c1 = std::max<i64>(0, C - MB), hi = std::min(MA, C); c1 <= hi; ++c1) {
            const i64 c0 = C - c1;
            if (part_lb(A, c1) + part_lb(B, c0) > T) continue;
            const double ha = part_h(A, c1, work);
            if (ha > T) continue;
            if (ha + part_h(B, c0, work) <= T) return {true, C};
        }
    }
    return {false, 0};
}

// ---------------------------------------------------------------------------------------------
// PP and CUAE. For group g with fixed counts and uncaptured a positives, b negatives, a point at
// cost c is j positives predicted negative and i = c - j negatives predicted positive.
struct Ratio {
    i64 tp, fn, fp, tn;  // fixed (captured) counts
    i64 a, b;            // uncaptured pos, neg
    double ppv(i64 c, i64 j) const { return rate(tp + a - j, tp + a + fp + c - 2 * j); }
    double npv(i64 c, i64 j) const { return rate(tn + b - c + j, tn + b - c + j + fn + j); }
    i64 lo(i64 c) const { return std::max<i64>(0, c - b); }
    i64 hi(i64 c) const { return std::min(a, c); }
};

// Continuous minimum cost for group g to bring its PPV down to <= r (inf if impossible).
double ppv_down_lb(const Ratio& g, double r) {
    // (tp + a - j) <= r (tp + a + fp - j + i)  <=>  (1 - r) j + r i >= (1 - r)(tp + a) - r fp
    const double need = (1 - r) * static_cast<double>(g.tp + g.a) - r * static_cast<double>(g.fp);
    return knapsack_lb(need, 1 - r, static_cast<double>(g.a), r, static_cast<double>(g.b));
}

// Continuous minimum cost for group g to bring its NPV down to <= r (inf if impossible).
double npv_down_lb(const Ratio& g, double r) {
    // (tn + b - i) <= r (tn + b - i + fn + j)  <=>  (1 - r) i + r j >= (1 - r)(tn + b) - r fn
    const double need = (1 - r) * static_cast<double>(g.tn + g.b) - r * static_cast<double>(g.fn);
    return knapsack_lb(need, r, static_cast<double>(g.a), 1 - r, static_cast<double>(g.b));
}

// Lower bounds on the cost of each group implied by one rate (PPV or NPV): each rate is at most
// its error-free value, so the group whose error-free rate exceeds the other's by more than T must
// pay to come down. Returns false when that is impossible.
template <class DownLb>
bool rate_lbs(double r0P, double r0U, double T, const Ratio& P, const Ratio& U, DownLb down,
              double& lbP, double& lbU) {
    if (r0P - r0U > T) {
        double v = down(P, r0U + T + kGapMargin);
        if (v == kInfD) return false;
        lbP = std::max(lbP, v);
    } else if (r0U - r0P > T) {
        double v = down(U, r0P + T + kGapMargin);
        if (v == kInfD) return false;
        lbU = std::max(lbU, v);
    }
    return true;
}

// Smallest canonical |x - ppv_g(c, j)| over the chain of cost c (monotone in j): binary search.
double nearest_ppv(const Ratio& g, i64 c, double x, i64& work) {
    i64 lo = g.lo(c), hi = g.hi(c);
    const bool inc = g.ppv(c, lo) <= g.ppv(c, hi);
    work += 2;
    auto key = [&](i64 j) { ++work; double v = g.ppv(c, j); return inc ? v : -v; };
    const double target = inc ? x : -x;
    // first j with key(j) >= target
    i64 L = lo, H = hi + 1;
    while (L < H) {
        i64 mid = L + (H - L) / 2;
        if (key(mid) >= target) H = mid; else L = mid + 1;
    }
    double best = kInfD;
    if (L <= hi) best = std::fabs(x - g.ppv(c, L));
    if (L - 1 >= lo) best = std::min(best, std::fabs(x - g.ppv(c, L - 1)));
    return best;
}

inline void chain_range(double a, double b, double& mn, double& mx) {
    mn = std::min(a, b);
    mx = std::max(a, b);
}

// Distance between intervals [a1, b1] and [a2, b2] (0 if they meet).
inline double interval_dist(double a1, double b1, double a2, double b2) {
    return std::max(0.0, std::max(a1 - b2, a2 - b1));
}

// The same group with labels and predictions swapped: its PPV is the original NPV, and the
// errors of every completion are unchanged.
inline Ratio swapped(const Ratio& g) { return Ratio{g.tn, g.fp, g.fn, g.tp, g.b, g.a}; }

FairnessBound ratio_solve(bool cuae, const Ratio& P, const Ratio& U, double T, i64 budget) {
    i64 work = 0;
    i64 start = 0;
    if (cuae) {
        // CUAE >= PPV gap and >= NPV gap: both single-rate optima bound the total from below.
        const FairnessBound pp = ratio_solve(false, P, U, T, budget);
        if (!pp.feasible) return pp;
        const FairnessBound np = ratio_solve(false, swapped(P), swapped(U), T, budget);
        if (!np.feasible) return np;
        start = std::max(pp.min_errors, np.min_errors);
    }
    const double p0P = P.ppv(0, 0), p0U = U.ppv(0, 0);
    const double n0P = P.npv(0, 0), n0U = U.npv(0, 0);
    const double g0 = cuae ? std::fabs(p0P - p0U) + std::fabs(n0P - n0U) : std::fabs(p0P - p0U);
    if (g0 <= T) return {true, 0};
    double lbP = 0, lbU = 0;
    auto pdown = [](const Ratio& g, double r) { return ppv_down_lb(g, r); };
    auto ndown = [](const Ratio& g, double r) { return npv_down_lb(g, r); };
    if (!rate_lbs(p0P, p0U, T, P, U, pdown, lbP, lbU)) return {false, 0};
    if (cuae && !rate_lbs(n0P, n0U, T, P, U, ndown, lbP, lbU)) return {false, 0};
    const i64 cP0 = ceil_lb(lbP), cU0 = ceil_lb(lbU);
    const i64 MP = P.a + P.b, MU = U.a + U.b;
    if (cP0 > MP || cU0 > MU) return {false, 0};
    for (i64 C = std::max(start, cP0 + cU0); C <= MP + MU; ++C) {
        if (work > budget) return {true, C};
        for (i64 cP = std::max(cP0, C - MU), hiP = std::min(MP, C - cU0); cP <= hiP; ++cP) {
            const i64 cU = C - cP;
            const i64 loP = P.lo(cP), hiPj = P.hi(cP), loU = U.lo(cU), hiUj = U.hi(cU);
            double pminP, pmaxP, pminU, pmaxU;
            chain_range(P.ppv(cP, loP), P.ppv(cP, hiPj), pminP, pmaxP);
            chain_range(U.ppv(cU, loU), U.ppv(cU, hiUj), pminU, pmaxU);
            work += 4;
            double lbgap = interval_dist(pminP, pmaxP, pminU, pmaxU);
            if (cuae) {
                double nminP, nmaxP, nminU, nmaxU;
                chain_range(P.npv(cP, loP), P.npv(cP, hiPj), nminP, nmaxP);
                chain_range(U.npv(cU, loU), U.npv(cU, hiUj), nminU, nmaxU);
                work += 4;
                lbgap += interval_dist(nminP, nmaxP, nminU, nmaxU);
            }
            if (lbgap - kGapMargin > T) continue;
            if (!cuae) {
                // Walk the shorter chain, binary-search the longer one.
                const bool walkP = hiPj - loP <= hiUj - loU;
                const Ratio& w = walkP ? P : U;
                const Ratio& o = walkP ? U : P;
                const i64 cw = walkP ? cP : cU, co = walkP ? cU : cP;
                for (i64 j = w.lo(cw), jh = w.hi(cw); j <= jh; ++j) {
                    if (nearest_ppv(o, co, w.ppv(cw, j), work) <= T) return {true, C};
                }
            } else {
                for (i64 jP = loP; jP <= hiPj; ++jP) {
                    const double pp = P.ppv(cP, jP), np = P.npv(cP, jP);
                    for (i64 jU = loU; jU <= hiUj; ++jU) {
                        ++work;
                        if (std::fabs(pp - U.ppv(cU, jU)) + std::fabs(np - U.npv(cU, jU)) <= T)
                            return {true, C};
                    }
                }
            }
        }
    }
    return {false, 0};
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
            return std::fabs(rate(p.tp, p.tp + p.fp) - rate(u.tp, u.tp + u.fp)) +
                   std::fabs(rate(p.tn, p.tn + p.fn) - rate(u.tn, u.tn + u.fn));
    }
    return std::numeric_limits<double>::quiet_NaN();  // not a Metric value: never fair
}

namespace {

// Largest minus smallest of one rate over the groups; rate(g) the rate of group g.
template <class Rate>
inline double gap(int k, Rate rate) {
    double lo = rate(0), hi = lo;
    for (int g = 1; g < k; ++g) {
        const double r = rate(g);
        lo = std::min(lo, r);
        hi = std::max(hi, r);
    }
    return hi - lo;
}

}  // namespace

double unfairness(Metric m, const Fixed& f) {
    const GroupConfusion* c = f.g;
    auto positive_rate = [c](int g) {
        return rate(c[g].tp + c[g].fp, c[g].tp + c[g].fp + c[g].tn + c[g].fn);
    };
    auto tpr = [c](int g) { return rate(c[g].tp, c[g].tp + c[g].fn); };
    auto fpr = [c](int g) { return rate(c[g].fp, c[g].fp + c[g].tn); };
    auto ppv = [c](int g) { return rate(c[g].tp, c[g].tp + c[g].fp); };
    auto npv = [c](int g) { return rate(c[g].tn, c[g].tn + c[g].fn); };
    switch (m) {
        case Metric::SP:
            return gap(f.k, positive_rate);
        case Metric::PP:
            return gap(f.k, ppv);
        case Metric::PE:
            return gap(f.k, fpr);
        case Metric::EOPP:
            return gap(f.k, tpr);
        case Metric::EODDS:
            return gap(f.k, tpr) + gap(f.k, fpr);
        case Metric::CUAE:
            return gap(f.k, ppv) + gap(f.k, npv);
    }
    return std::numeric_limits<double>::quiet_NaN();  // not a Metric value: never fair
}

// cp, cu: the counts of the captured samples of the protected and unprotected groups; up, uu:
// their uncaptured samples.
FairnessBound fairness_lower_bound(Metric m, double epsilon, const GroupConfusion& cp,
                                   const GroupConfusion& cu, const Uncaptured& up,
                                   const Uncaptured& uu, std::int64_t work_budget) {
    const double T = epsilon + kFeasibilityTol;  // is_fair(value, epsilon) <=> value <= T
    // Fast path: the error-free completion.
    {
        const GroupConfusion ep{cp.tp + up.pos, cp.fp, cp.tn + up.neg, cp.fn};
        const GroupConfusion eu{cu.tp + uu.pos, cu.fp, cu.tn + uu.neg, cu.fn};
        if (unfairness(m, ep, eu) <= T) return {true, 0};
    }
    switch (m) {
        case Metric::SP: {
            const Lin P{cp.tp + cp.fp, cp.tp + cp.fp + cp.tn + cp.fn + up.pos + up.neg,
                        up.pos + up.neg, up.pos};
            const Lin U{cu.tp + cu.fp, cu.tp + cu.fp + cu.tn + cu.fn + uu.pos + uu.neg,
                        uu.pos + uu.neg, uu.pos};
            const i64 r = lin_solve(P, U, T);
            return r < kInf ? FairnessBound{true, r} : FairnessBound{false, 0};
        }
        case Metric::PE: {
            const Lin P{cp.fp, cp.fp + cp.tn + up.neg, up.neg, 0};
            const Lin U{cu.fp, cu.fp + cu.tn + uu.neg, uu.neg, 0};
            const i64 r = lin_solve(P, U, T);
            return r < kInf ? FairnessBound{true, r} : FairnessBound{false, 0};
        }
        case Metric::EOPP: {
            const Lin P{cp.tp, cp.tp + cp.fn + up.pos, up.pos, up.pos};
            const Lin U{cu.tp, cu.tp + cu.fn + uu.pos, uu.pos, uu.pos};
            const i64 r = lin_solve(P, U, T);
            return r < kInf ? FairnessBound{true, r} : FairnessBound{false, 0};
        }
        case Metric::EODDS: {
            const Part A = make_part(Lin{cp.tp, cp.tp + cp.fn + up.pos, up.pos, up.pos},
                                     Lin{cu.tp, cu.tp + cu.fn + uu.pos, uu.pos, uu.pos}, -1);
            const Part B = make_part(Lin{cp.fp, cp.fp + cp.tn + up.neg, up.neg, 0},
                                     Lin{cu.fp, cu.fp + cu.tn + uu.neg, uu.neg, 0}, +1);
            return eodds_solve(A, B, T, work_budget);
        }
        case Metric::PP:
        case Metric::CUAE: {
            const Ratio P{cp.tp, cp.fn, cp.fp, cp.tn, up.pos, up.neg};
            const Ratio U{cu.tp, cu.fn, cu.fp, cu.tn, uu.pos, uu.neg};
            return ratio_solve(m == Metric::CUAE, P, U, T, work_budget);
        }
    }
    return {false, 0};  // not a Metric value (its unfairness is NaN: the fast path failed)
}

}  // namespace fairlist
