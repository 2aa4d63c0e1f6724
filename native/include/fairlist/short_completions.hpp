// The two-rule lookahead by counting (Config::use_two_rule_lookahead): a child whose lists of
// three or more further rules cannot beat the incumbent is finished by the terminal solver at
// once instead of queued.
//
// Argument.  Let C be a child of k rules with lower bound lb on the errors of every completion
// (captured errors plus the class and fairness bounds on its uncaptured samples, floored by the
// parent's: child_bounds.hpp).  Every list that starts with C is C + default (evaluated when C
// is created), or has k + 1 or k + 2 rules, or has at least k + 3.  The last pay lam (k + 3)
// at least, so their objective is at least objective(lb, k + 3) (and at least
// objective(lb, bound_length(k)) under length deepening, which certified the shorter lists).
// When that bound prunes against the incumbent (prunes(): with canonical ties, only when none of
// those lists can come before it), the lists still of interest below C are those of one or two
// more rules, and TerminalSolver::finish_child evaluates exactly those (every first and second
// rule and default, its cuts skipping only lists that cannot beat the incumbent or are unfair:
// terminal_solver.cpp).  So C need not be queued: nothing of interest below it is lost.  The
// incumbent only improves meanwhile, so a decision taken against it stays valid.
//
// Why (issue 23's measurement, benchmarks/bench_bound_gaps.py): on COMPAS the queued prefixes'
// best completions of at most two more rules were all worse than the incumbent, by 0.04 to 0.06,
// while the class bound, for which every class takes its own label, cannot tell a list of three
// more rules from one of thirty; integer programming on it moves the bound by 0.0003 at most.
// Knowing that the next two levels are counted exactly raises such a child's bound by 2 lam.
//
// It does not pay in time (measured with benchmarks/bench_certify.py --compare lookahead, hence
// off by default): counting a child's pairs of rules costs about as much as the expansions it
// saves, since the class bound already prunes most of a band child's children; and best-first
// search would reach those children last, while this counts them at once.  It stores 7 to 480
// times fewer trie nodes, but more memory per stored node (the permutation map keeps the
// children it counted).  Counting them when popped instead of when created was tried and was
// slower still (2.4x the CPU time for the same bound breadth-first).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "fairlist/child_bounds.hpp"
#include "fairlist/context.hpp"
#include "fairlist/incumbent.hpp"

namespace fairlist {

// Whether child path + rule of k rules, lower bound lb_errors, is finished by counting under the
// two-rule lookahead (the terminal solver present; its caller checks that).  Under a cap the
// child must be more than two rules short of it (two short: the terminal solver's own case).
inline bool finishes_short(const SearchContext& ctx, const Incumbent& incumbent,
                           std::int64_t lb_errors, std::size_t k,
                           const std::vector<std::uint32_t>& path, std::uint32_t rule) {
    if (!ctx.config().use_two_rule_lookahead || k + 2 >= ctx.max_length()) return false;
    const std::size_t longer = std::max(k + 3, ctx.bound_length(k));
    return prunes(ctx, incumbent, ctx.objective(lb_errors, longer), longer, path, rule);
}

}  // namespace fairlist
