// Counts of samples by (group, label) and confusion counts by group: the numbers every bound
// and every fairness check reads.
//
// Groups are the codes 0 .. k-1 of the sensitive attribute (k >= 2; with two groups, 0 is the
// protected one).  Every count is a sum of integer sample weights (the number of samples when the
// data are unweighted): fairlist.solvers.bnb turns real weights into integers first.
//
// SplitCounts and Fixed have room for kMaxGroups groups but only their first k entries are
// meaningful; every operation (the copies included) touches those k only, so a two-group search
// moves no more bytes than before these had room for more groups.
#pragma once

#include <algorithm>
#include <cstdint>

namespace fairlist {

// Most groups the search handles (fairlist.solvers.bnb refuses more, naming the remedy).
constexpr int kMaxGroups = 64;

// Confusion counts of one group.  No default member initializers: an array of them (in Fixed)
// must cost nothing to create; write GroupConfusion{} for zeros.
struct GroupConfusion { std::int64_t tp, fp, tn, fn; };

// Uncaptured (not yet classified) samples of one group, by true label (Uncaptured{}: zeros).
struct Uncaptured { std::int64_t pos, neg; };

// Copies the first k entries of a per-group array.  Two groups (the paper's case, and nearly
// every search) are copied by two assignments: std::copy of a run whose length is known only
// at run time compiles to a call of memmove, and those calls, of 32 or 64 bytes each, were
// 19 % of the <= 5-rule lambda 0.015 certificate (perf; PairCounts::make_view copies 163 of
// these per finished child, TerminalSolver::first_rules several per first rule).
template <class T>
inline void copy_groups(const T* from, T* to, int k) {
    if (k == 2) {
        to[0] = from[0];
        to[1] = from[1];
    } else {
        std::copy(from, from + k, to);
    }
}
// The same for a per-group pair of counts (SplitCounts::c).
inline void copy_groups(const std::int64_t (*from)[2], std::int64_t (*to)[2], int k) {
    if (k == 2) {
        to[0][0] = from[0][0];
        to[0][1] = from[0][1];
        to[1][0] = from[1][0];
        to[1][1] = from[1][1];
    } else {
        std::copy(&from[0][0], &from[0][0] + 2 * k, &to[0][0]);
    }
}

// Samples split by (group, label): c[g][y] for g < k, y the true label; n[y] = sum over g.
struct SplitCounts {
    int k = 0;
    std::int64_t n[2] = {0, 0};
    std::int64_t c[kMaxGroups][2];

    SplitCounts() = default;
    explicit SplitCounts(int groups) : k(groups) {
        for (int g = 0; g < k; ++g) c[g][0] = c[g][1] = 0;
    }
    SplitCounts(const SplitCounts& o) : k(o.k), n{o.n[0], o.n[1]} { copy_groups(o.c, c, k); }
    SplitCounts& operator=(const SplitCounts& o) {
        k = o.k;
        n[0] = o.n[0];
        n[1] = o.n[1];
        copy_groups(o.c, c, k);
        return *this;
    }

    std::int64_t total() const { return n[0] + n[1]; }
    std::int64_t label(int y) const { return n[y]; }
    void add(int g, int y, std::int64_t w) {
        c[g][y] += w;
        n[y] += w;
    }
    Uncaptured uncaptured(int g) const { return Uncaptured{c[g][1], c[g][0]}; }
};

// a - b, group by group (b a subset of a).
inline SplitCounts minus(const SplitCounts& a, const SplitCounts& b) {
    SplitCounts r;
    r.k = a.k;
    r.n[0] = a.n[0] - b.n[0];
    r.n[1] = a.n[1] - b.n[1];
    for (int g = 0; g < a.k; ++g) {
        r.c[g][0] = a.c[g][0] - b.c[g][0];
        r.c[g][1] = a.c[g][1] - b.c[g][1];
    }
    return r;
}

// Per-group confusion counts of the samples whose predictions are fixed (those a prefix
// captures, or all of them for a complete rule list).
struct Fixed {
    int k = 0;
    GroupConfusion g[kMaxGroups];

    Fixed() = default;
    explicit Fixed(int groups) : k(groups) {
        for (int i = 0; i < k; ++i) g[i] = GroupConfusion{};
    }
    Fixed(const Fixed& o) : k(o.k) { copy_groups(o.g, g, k); }
    Fixed& operator=(const Fixed& o) {
        k = o.k;
        copy_groups(o.g, g, k);
        return *this;
    }
};

}  // namespace fairlist
