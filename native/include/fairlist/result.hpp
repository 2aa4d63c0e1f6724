// The outcome of one search (fairlist::Search, search.hpp): its status, its statistics, the
// progress snapshot and the result.  Declared apart from the facade so that the components
// include this header, not search.hpp.
#pragma once

#include <cstdint>
#include <vector>

#include "fairlist/stop.hpp"

namespace fairlist {

enum class SearchStatus : int {
    OPTIMAL = 0,     // search completed with a fair rule list: it is optimal (in the space)
    FEASIBLE = 1,    // a limit stopped the search; best fair rule list so far
    INFEASIBLE = 2,  // search completed without a fair rule list: none exists (in the space)
    UNKNOWN = 3,     // a limit stopped the search before any fair rule list was found
};

// Stats' fields, each declared once here: the struct's fields and operator+= come from this
// list, and _core.pxd's Stats (the dict Python receives) must declare the same fields in the
// same order (tests/test_native_boundary.py).  X(KIND, type, name); every field starts at 0.
// KIND says how the statistics of several workers combine (operator+=):
//   SUM   a counter: each worker counts its own, the parallel search's figure is the sum.
//         A new counter is a SUM (tests/test_stats.py checks each survives threads).
//   MAX   a peak: the larger value.  The search sets the peaks from its shared structures
//         (Search::end_phase, make_result), not from the workers.
//   ONCE  set once by the search (the beam, the certified length, the seconds, the workers'
//         memory) or the same in every worker (n_rows, n_classes): the left operand's kept.
#define FAIRLIST_STATS_FIELDS(X)                                                               \
    X(SUM, std::int64_t, nodes_expanded)      /* nodes whose children were generated */        \
    X(SUM, std::int64_t, children_evaluated)  /* (antecedent, prediction) children evaluated */ \
    X(SUM, std::int64_t, nodes_created)       /* children inserted into the trie */            \
    X(MAX, std::int64_t, peak_trie_size)      /* live trie nodes, at most */                   \
    X(MAX, std::int64_t, peak_queue_size)                                                      \
    X(SUM, std::int64_t, pruned_by_bound)     /* children whose lower bound (+ lookahead) */   \
                                              /* >= best */                                    \
    X(SUM, std::int64_t, pruned_on_pop)       /* queued nodes pruned when popped (best */      \
                                              /* improved) */                                  \
    X(SUM, std::int64_t, pruned_infeasible)   /* children with no fair completion */           \
    X(SUM, std::int64_t, pruned_class_bound)  /* children pruned thanks to the class bound */  \
    X(SUM, std::int64_t, pruned_support)      /* children failing the accurate-support bound */ \
    X(SUM, std::int64_t, pruned_length)       /* children beyond the maximum useful length */  \
    X(SUM, std::int64_t, permutation_hits)    /* children dropped by the permutation map */    \
    X(SUM, std::int64_t, incumbent_updates)   /* improvements of the best rule list */         \
    X(SUM, std::int64_t, fairness_bound_calls)                                                 \
    /* Acquisitions of the shared frontier's lock (parallel search; 0 in the serial one). */   \
    X(SUM, std::int64_t, frontier_locks)                                                       \
    /* Seconds the shared frontier's lock was held, and waited for, all workers together   */  \
    /* (parallel search; 0 in the serial one).  Held time is serial work: a search of n    */  \
    /* workers cannot run faster than its held seconds, so (busy seconds) / (held seconds) */  \
    /* bounds its speed-up (benchmarks/bench_threads.py prints it).                        */  \
    X(SUM, double, frontier_lock_seconds)                                                      \
    X(SUM, double, frontier_wait_seconds)                                                      \
    /* prefixes finished by counting (terminal_solver.hpp) */                                  \
    X(SUM, std::int64_t, terminal_prefixes)                                                    \
    /* their two-rule completions examined (all labels; those past the gain filter of      */  \
    /* PairCounts::gainers)                                                                */  \
    X(SUM, std::int64_t, terminal_lists)                                                       \
    X(SUM, std::int64_t, lookahead_prefixes)  /* of them, finished by the two-rule lookahead */ \
    /* trie + queue + permutation map, at most, plus the workers' own tables (below) */        \
    X(MAX, std::int64_t, peak_memory_bytes)                                                    \
    /* Bytes every worker holds for itself, allocated once (the terminal solver's count     */ \
    /* tables, scratch), all workers together: counted in peak_memory_bytes and the memory  */ \
    /* limit. */                                                                               \
    X(ONCE, std::int64_t, worker_memory_bytes)                                                 \
    /* best objective after the beam search (inf: none fair) */                                \
    X(ONCE, double, beam_objective)                                                            \
    X(ONCE, double, beam_seconds)             /* time the beam search took */                  \
    /* No list of at most this many rules beats the result (length deepening; the whole     */ \
    /* search space when the status is optimal). */                                            \
    X(ONCE, std::int64_t, certified_length)                                                    \
    X(ONCE, double, seconds)                                                                   \
    /* distinct weighted rows searched over (rule_data.hpp) */                                 \
    X(ONCE, std::int64_t, n_rows)                                                              \
    X(ONCE, std::int64_t, n_classes)          /* classes of identical antecedent bits */

struct Stats {
#define FAIRLIST_STATS_FIELD(kind, type, name) type name = 0;
    FAIRLIST_STATS_FIELDS(FAIRLIST_STATS_FIELD)
#undef FAIRLIST_STATS_FIELD

    // Adds another worker's statistics: each field by its KIND (above).
    Stats& operator+=(const Stats& other) {
#define FAIRLIST_STATS_ADD(kind, type, name) combine_##kind(name, other.name);
        FAIRLIST_STATS_FIELDS(FAIRLIST_STATS_ADD)
#undef FAIRLIST_STATS_ADD
        return *this;
    }

 private:
    template <typename T>
    static void combine_SUM(T& into, T value) { into += value; }
    template <typename T>
    static void combine_MAX(T& into, T value) { into = into < value ? value : into; }
    template <typename T>
    static void combine_ONCE(T&, T) {}
};

// a += b as a value (_core.pyx's add_stats, for tests/test_stats.py).
inline Stats add_stats(Stats a, const Stats& b) {
    a += b;
    return a;
}

// A snapshot of a running search (safe to take from another thread).
struct Progress {
    std::int64_t nodes_expanded = 0;
    std::int64_t children_evaluated = 0;
    std::int64_t trie_size = 0;
    std::int64_t queue_size = 0;
    std::int64_t depth = 0;       // depth of the last expanded node
    double best_objective = 0.0;  // +inf while no fair rule list is known
    double seconds = 0.0;
    std::int64_t certified_length = 0;  // Stats::certified_length so far (length deepening)
    // A proved lower bound on the optimum so far (0 before the search; the optimum once it is
    // certified): best_objective - lower_bound is the gap still open.
    double lower_bound = 0.0;
};

struct SearchResult {
    SearchStatus status = SearchStatus::UNKNOWN;
    StopReason stop_reason = StopReason::COMPLETED;
    bool has_solution = false;
    std::vector<std::uint32_t> antecedents;  // rule k's antecedent index
    std::vector<std::uint8_t> predictions;   // rule k's prediction (0/1)
    int default_prediction = 0;
    std::int64_t errors = 0;   // weight of the misclassified samples (integer weights' units)
    double objective = 0.0;    // errors / total weight + lam * length (+inf without a solution)
    double lower_bound = 0.0;  // proved lower bound on the optimum (== objective if optimal)
    // The list's unfairness under the problem's metric (+inf without a solution).  The fairest
    // mode (Config::fairest_ceiling >= 0) minimises it: lower_bound is then a proved lower
    // bound on the unfairness of every fair list within the ceiling (== unfairness if optimal,
    // 0 when a limit stopped the search: the list is a witness only).
    double unfairness = 0.0;
    Stats stats;
    // The Rashomon mode (Config::rashomon_delta >= 0; empty otherwise): the fair lists of
    // objective at most objective + rashomon_delta (+ kRashomonSlack), sorted by objective and
    // canonically among equal ones (rashomon.hpp).  List i's rules (antecedent << 1 |
    // prediction) are rashomon_rules[rashomon_starts[i] .. rashomon_starts[i + 1]).
    std::vector<std::uint32_t> rashomon_rules;
    std::vector<std::uint64_t> rashomon_starts;  // one more than the lists
    std::vector<std::uint8_t> rashomon_defaults;
    std::vector<std::int64_t> rashomon_errors;
    std::vector<double> rashomon_objectives;
    // Every list of the set whose objective is below this is among them (+inf: the set is
    // complete; below when a limit or max_lists stopped the search or max_lists cut the set).
    double rashomon_complete_below = 0.0;
};

}  // namespace fairlist
