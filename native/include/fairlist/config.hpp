// The problem and the options of one search (fairlist::Search, search.hpp), and its test and
// diagnostic switches: what every component reads (SearchContext keeps them, context.hpp),
// declared apart from the facade so that the components include this header, not search.hpp.
#pragma once

#include <cstdint>
#include <limits>

#include "fairlist/metric.hpp"
#include "fairlist/queue.hpp"

namespace fairlist {

// The objective and the constraint.
struct ProblemSpec {
    Metric metric = Metric::SP;
    bool constrained = false;  // false: no fairness cap (epsilon ignored)
    double epsilon = 0.0;      // maximum unfairness
    double lam = 0.0;          // length penalty per rule
};

// Options and limits of one search.  Every bound can be switched off (for tests and ablations).
struct Config {
    Policy policy = Policy::BFS;
    bool majority_only = false;         // CORELS' majority-label search space
    std::int64_t max_length = -1;       // longest rule list considered; < 0: no cap
    bool use_hierarchical_bound = true; // errors on the captured samples count in the bound
    bool use_lookahead = true;          // a child has one more rule: lb + lam >= best prunes
    bool use_length_bound = true;       // maximum useful length: lam * length < best
    bool use_equivalent_points = true;  // identical samples with different labels force errors
    bool use_fairness_bound = true;     // fairness lower bound (with a constraint; context.hpp)
    bool use_class_bound = true;        // its equivalence-class LP version (class_bound.hpp)
    bool use_permutation_map = true;    // safe permutation map (see permutation_map.hpp)
    bool use_support_bounds = true;     // accurate-support bound (only without a constraint)
    // Under a length cap, finish each prefix two rules short of it by counting
    // (terminal_solver.hpp) instead of expanding it and its children; the same lists are
    // evaluated.  Ignored where TerminalSolver::applies() is false (more than two groups, a
    // total weight of 2^31 or more, more than 1,024 antecedents).
    bool use_terminal_solver = true;
    // With the terminal solver: finish by counting (instead of queueing) a child whose lists of
    // three or more further rules cannot beat the incumbent (short_completions.hpp).  Off by
    // default: it stores far fewer nodes but spends more time (docs/performance.md).
    bool use_two_rule_lookahead = false;
    // With the terminal solver: below a finished child Q + (j, q), skip the first rules (i, q)
    // whose sibling Q + (i, q) was finished earlier in the same expansion (its lists starting
    // with (j, q) predict the same; terminal_solver.cpp).  Full space, not the Rashomon mode.
    bool use_terminal_symmetry = true;
    // With the terminal solver: count its pair rows by popcounts of the classes' (group, label)
    // bitsets against each antecedent's (pair_counts.cpp) when that is less work than adding
    // class by class; false: always class by class.  The same counts either way.
    bool use_class_pair_counts = true;
    // With use_class_pair_counts: the classes of more than one sample (or of a weight above 1)
    // by popcounts too, through the bit planes of their weights (pair_counts.cpp); false: only
    // the classes of one sample of weight 1.  The same counts either way.
    bool use_weight_plane_counts = true;
    // Stop when the trie holds this many nodes, less the nodes the length-deepening phases
    // expanded or finished by counting (their trie stays small; Search::budget_spent); 0: none.
    std::int64_t max_nodes = 0;
    double time_limit = 0.0;            // seconds; <= 0: none
    double memory_limit_mb = 0.0;       // MiB held by the search structures; <= 0: none
    std::uint64_t seed = 0;             // 0: ties broken by insertion order; else seeded hash
    // Width of the beam search run before the branch-and-bound for a first incumbent (beam.cpp);
    // 0: none.  It changes what a limited search returns, never a certificate.
    std::int64_t beam_width = 0;
    // Length deepening: before the main search, certify the optimum among lists of at most
    // 1, 2, ..., deepen_length rules (each a search capped at that length, knowing the shorter
    // ones certified); the main search then knows that no list of at most deepen_length rules
    // beats the incumbent, so every prefix's bound counts at least deepen_length + 1 rules.
    // 0: none.  A certificate either way; under limits it trades nodes for better lists.
    std::int64_t deepen_length = 0;
    // Stop (status FEASIBLE, stop reason GAP_LIMIT) once the incumbent's objective is within
    // this of the global lower bound (Progress::lower_bound); <= 0: none.  The result then
    // carries its guaranteed gap: objective - lower_bound <= gap_tolerance.
    double gap_tolerance = 0.0;
    // Worker threads of the search (parallel.cpp): 1 is the serial search; < 0 counts back
    // from the machine's hardware threads (-1: all of them); 0 is refused.  A certified
    // answer is the same for every value above 1 and for 1 with Diagnostics::canonical_ties.
    std::int64_t n_jobs = 1;
    // The Rashomon mode (rashomon.hpp; >= 0: on): the search keeps every fair list of the space
    // whose objective is at most the optimum + rashomon_delta (+ kRashomonSlack), not only the
    // best one, and prunes a subtree only when its bound exceeds the incumbent's objective +
    // rashomon_delta (SearchContext::cutoff).  The shortcuts that keep one of several lists are
    // off in this mode (context.cpp says which and why); it refuses n_jobs != 1,
    // deepen_length > 0, gap_tolerance > 0 and majority_only.  < 0: off.
    double rashomon_delta = -1.0;
    // The Rashomon mode returns the max_lists lists of least objective (ties canonical) and
    // prunes above the max_lists-th it holds (rashomon.hpp); a set it cut has stop reason
    // StopReason::MAX_LISTS and a finite rashomon_complete_below.  0: no cap.
    std::int64_t max_lists = 0;
    // The Rashomon mode for a certificate (fairlist.dual, docs/design.md §10.2): one list per
    // prediction count class is enough there, so the permutation map stays on (of two prefixes
    // capturing the same samples with equal key counts it keeps the one with fewer rules: with
    // the key fine enough, their completions predict alike count by count), and the terminal
    // solver skips the orders of two same-label rules a finished sibling covered
    // (use_terminal_symmetry) and the two-rule lists that predict like a shorter one.  Valid
    // only where equal key counts mean equal predictions' worth for the caller; false: every
    // list within the cutoff, as above.
    bool rashomon_keep_map = false;
    // The Rashomon mode: no list whose objective exceeds this is kept, and subtrees whose bound
    // exceeds it are pruned (an absolute threshold beside optimum + rashomon_delta; +inf: none).
    double rashomon_ceiling = std::numeric_limits<double>::infinity();
    // The Rashomon mode for the least unfair list within delta (fairlist.fairest_within): the
    // store keeps only the Pareto front of (objective, unfairness) of the set (rashomon.hpp),
    // and, as with rashomon_keep_map, the permutation map and the terminal solver's shortcuts
    // stay on (each skips a list only for one of the same unfairness and no more objective:
    // context.cpp set_fairest gives the arguments).  One search gives the optimum (certified)
    // and, among the front's lists within optimum + delta, the fairest.  Refuses max_lists > 0.
    bool rashomon_front = false;
    // The fairest mode (>= 0: on; context.cpp set_fairest): the search minimises unfairness
    // (under the problem's metric) among the fair lists whose objective is at most this
    // ceiling T (+inf: any objective), ties of unfairness broken by the lower objective, then
    // canonically (Incumbent::offer_fairest).  Subtrees are pruned when their objective bound
    // exceeds T, and the fairness bounds run with a falling cap, the incumbent's unfairness.
    // fairlist.fairest_within sets T = optimum + delta + slack.  It refuses the Rashomon mode,
    // n_jobs != 1, deepen_length > 0, gap_tolerance > 0 and majority_only.  < 0: off.
    double fairest_ceiling = -1.0;
};

// Switches for tests, benchmarks and diagnostics only, apart from Config: no user-facing option
// sets them (fairlist.solvers.bnb hands over Config alone), and their defaults are what every
// search runs with.  Each makes a code path reachable on small data, or turns a shortcut off or
// a behaviour on to check an argument against brute force.  Tests and benchmarks pass them in
// the same dict as the Config fields; the binding (native/_core.pyx) splits them off, each one
// absent keeping its default.
struct Diagnostics {
    // The permutation map keeps its counts in 16 bits below 65,536 samples; true keeps them in
    // 32 bits whatever the size (the layout used above it), so tests can run it on small data.
    bool wide_map_counts = false;
    // Ties decided canonically (incumbent.hpp) with one worker, as always with n_jobs != 1: a
    // prefix whose bound equals the incumbent's objective is pruned only when none of its lists
    // can come before the incumbent in the canonical order, and the permutation map keeps the
    // canonically first of two tying prefixes (or drops it when none of its lists can matter:
    // finished_tie_cut), so that a certified list is the canonical first among all optimal
    // lists of the space, whatever the order of the search.  Off (the serial default), the
    // serial search prunes every tie (fewer nodes) and returns the canonical first of the
    // optimal lists it evaluated.  Tests compare the serial and parallel certificates with it.
    bool canonical_ties = false;
    // With canonical ties: a prefix Q that ties an equivalent prefix P (permutation map) already
    // finished by the terminal solver, and comes first canonically, is dropped instead of
    // searched when none of its lists can come before the incumbent given that none of P's
    // does (Incumbent::equivalent_may_precede; the argument is at
    // Frontier::cut_after_finished).  Off: Q's subtree is searched, as before the cut.
    bool finished_tie_cut = true;
    // The fairest mode's falling cap (SearchContext::fair_cap): false keeps the fairness bounds
    // at epsilon, so that tests can check that the cap changes the work and not the answer.
    bool fairest_falling_cap = true;
    // The terminal solver's pair rows of a set whose bits are sparse in the bit layout counted
    // on a copy of the layout packed to that set's bits (pair_counts.cpp, "Packed layouts"),
    // where the processor runs pext fast; false: on the whole layout.  The same counts.
    bool packed_pair_counts = true;
    // The terminal solver's popcounts skip a pair (a, b) whose (b, a) is already counted for the
    // same set, and copy it (pair_counts.cpp, "Mirrors"); false: every pair counted.  The same
    // counts.
    bool mirrored_pair_rows = true;
};

}  // namespace fairlist
