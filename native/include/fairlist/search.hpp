// The fairness-constrained branch-and-bound over rule lists (CORELS with a fairness cap).
//
// A Search owns every structure it uses: no global state, so two searches can run at once in
// two threads.  run() is the one entry point and runs without the Python GIL; request_stop() and
// progress() may be called from another thread while it runs.
//
// Its parts, one concept a file (Search itself only sequences them: constant lists, beam, length
// deepening, the node loop, the result):
//   context.hpp        SearchContext: the data, the problem and the options, and what follows
//                      from them alone (objective, fairness check, bound lengths); shared,
//                      read-only while workers run
//   incumbent.hpp      Incumbent: the best fair list, thread-safe, with a canonical tie-break
//   frontier.hpp       Frontier: the trie, the queue, the permutation map, the queued bounds
//   expander.hpp       Expander: one worker's expansion of a node (children, bounds, map key),
//                      with its scratch (scratch.hpp), statistics and stop check
//   terminal_solver.hpp TerminalSolver: a prefix two rules short of the cap finished by counting
//                      (pair_counts.hpp: its counts)
//   beam.hpp           BeamSearch: the first incumbent
//   child_bounds.hpp   the fairness bounds of one child, shared by the expander and the
//                      terminal solver
//
// Search space.  A node is a prefix of (antecedent, prediction) rules; a rule list is a prefix
// plus a default prediction.  In the full space (the default) every rule and the default may
// predict either label; with majority_only they must predict a label at least as frequent as
// the other among the samples they capture (CORELS' restriction; both labels on a tie).
// Without a constraint the two spaces have the same optimum (relabelling a rule or the default
// with its majority label removes errors and changes nothing else), so the search then keeps to
// the majority space whatever majority_only says: half the children, the same certificate.
//
// Bounds, all valid under the fairness constraint (see bounds.hpp for the arguments):
// hierarchical lower bound, lookahead, maximum useful length, equivalent points, the fairness
// lower bound (fairness_bound.hpp), and — only where safe — the support bounds (no constraint)
// and the permutation map (keyed by the captured samples, plus the per-(group, label) positive
// predictions on them when a constraint is active).
//
// Groups and weights.  The sensitive attribute has k >= 2 groups (codes 0 .. k-1; with two,
// 0 is the protected one) and each sample an integer weight (fairlist.solvers.bnb turns real
// weights into integers); every count is a sum of weights, the objective is weighted errors over
// the total weight plus lam times the length, and the search runs over the distinct weighted rows
// (rule_data.hpp).  With two groups and unit weights the fairness bound is the exact integer one
// of fairness_bound.cpp; otherwise its real-valued relaxation over every group
// (fairness_bound_groups.cpp).
#pragma once

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "fairlist/bitset.hpp"
#include "fairlist/metric.hpp"
#include "fairlist/queue.hpp"
#include "fairlist/stop.hpp"

namespace fairlist {

enum class SearchStatus : int {
    OPTIMAL = 0,     // search completed with a fair rule list: it is optimal (in the space)
    FEASIBLE = 1,    // a limit stopped the search; best fair rule list so far
    INFEASIBLE = 2,  // search completed without a fair rule list: none exists (in the space)
    UNKNOWN = 3,     // a limit stopped the search before any fair rule list was found
};

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
    std::int64_t max_nodes = 0;         // stop when the trie holds this many nodes; 0: none
    double time_limit = 0.0;            // seconds; <= 0: none
    double memory_limit_mb = 0.0;       // MiB held by the search structures; <= 0: none
    std::uint64_t seed = 0;             // 0: ties broken by insertion order; else seeded hash
    // The permutation map keeps its counts in 16 bits below 65,536 samples; true keeps them in
    // 32 bits whatever the size (the layout used above it), so tests can run it on small data.
    bool wide_map_counts = false;
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
    // answer is the same for every value above 1 and for 1 with canonical_ties (below).
    std::int64_t n_jobs = 1;
    // Ties decided canonically (incumbent.hpp): a prefix whose bound equals the incumbent's
    // objective is pruned only when none of its lists can come before the incumbent in the
    // canonical order, and the permutation map keeps the canonically first of two tying
    // prefixes (or drops it when none of its lists can matter: finished_tie_cut), so that a
    // certified list is the canonical first among all optimal lists of the space, whatever the
    // order of the search.  Always on with n_jobs != 1; off, the serial search prunes every tie
    // (fewer nodes) and returns the canonical first of the optimal lists it evaluated.
    bool canonical_ties = false;
    // With canonical ties: a prefix Q that ties an equivalent prefix P (permutation map) already
    // finished by the terminal solver, and comes first canonically, is dropped instead of
    // searched when none of its lists can come before the incumbent given that none of P's
    // does (Incumbent::equivalent_may_precede; the argument is at
    // Frontier::cut_after_finished).  Off: Q's subtree is searched, as before.
    bool finished_tie_cut = true;
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
};

struct Stats {
    std::int64_t nodes_expanded = 0;      // nodes whose children were generated
    std::int64_t children_evaluated = 0;  // (antecedent, prediction) children evaluated
    std::int64_t nodes_created = 0;       // children inserted into the trie
    std::int64_t peak_trie_size = 0;      // live trie nodes, at most
    std::int64_t peak_queue_size = 0;
    std::int64_t pruned_by_bound = 0;     // children whose lower bound (+ lookahead) >= best
    std::int64_t pruned_on_pop = 0;       // queued nodes pruned when popped (best improved)
    std::int64_t pruned_infeasible = 0;   // children with no fair completion (fairness bounds)
    std::int64_t pruned_class_bound = 0;  // children pruned thanks to the class bound
    std::int64_t pruned_support = 0;      // children failing the accurate-support bound
    std::int64_t pruned_length = 0;       // children beyond the maximum useful length
    std::int64_t permutation_hits = 0;    // children dropped by the permutation map
    std::int64_t incumbent_updates = 0;   // improvements of the best rule list
    std::int64_t fairness_bound_calls = 0;
    // Acquisitions of the shared frontier's lock (parallel search; 0 in the serial one).
    std::int64_t frontier_locks = 0;
    // Seconds the shared frontier's lock was held, and waited for, all workers together
    // (parallel search; 0 in the serial one).  Held time is serial work: a search of n workers
    // cannot run faster than its held seconds, so (busy seconds) / (held seconds) bounds its
    // speed-up (benchmarks/bench_threads.py prints it).
    double frontier_lock_seconds = 0.0;
    double frontier_wait_seconds = 0.0;
    std::int64_t terminal_prefixes = 0;   // prefixes finished by counting (terminal_solver.hpp)
    std::int64_t terminal_lists = 0;      // their two-rule completions examined (all labels; those
                                          // past the gain filter of PairCounts::gainers)
    std::int64_t lookahead_prefixes = 0;  // of them, finished by the two-rule lookahead
    // trie + queue + permutation map, at most, plus the workers' own tables (below)
    std::int64_t peak_memory_bytes = 0;
    // Bytes every worker holds for itself, allocated once (the terminal solver's count tables,
    // scratch), all workers together: counted in peak_memory_bytes and the memory limit.
    std::int64_t worker_memory_bytes = 0;
    double beam_objective = 0.0;          // best objective after the beam search (inf: none fair)
    double beam_seconds = 0.0;            // time the beam search took
    // No list of at most this many rules beats the result (length deepening; the whole search
    // space when the status is optimal).
    std::int64_t certified_length = 0;
    double seconds = 0.0;
    std::int64_t n_rows = 0;     // distinct weighted rows searched over (rule_data.hpp)
    std::int64_t n_classes = 0;  // classes of identical antecedent bits
};

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

class SearchContext;
class Incumbent;
class Frontier;
class Expander;
class RashomonStore;
struct FrontierLock;

class Search {
 public:
    // rules: n_antecedents x words_for(n_samples) words; labels: words_for(n_samples) words;
    // groups: n_samples codes in [0, n_groups) (two groups: 0 protected); weights: n_samples
    // integer weights >= 0 adding up to at most 2^31, or nullptr for unit weights.  Everything
    // is copied.
    Search(const word_t* rules, const word_t* labels, const std::int32_t* groups,
           const std::int64_t* weights, std::size_t n_samples, std::size_t n_antecedents,
           int n_groups, const ProblemSpec& problem, const Config& config);
    Search(const Search&) = delete;
    Search& operator=(const Search&) = delete;
    ~Search();

    // Offers a starting rule list (warm start).  Returns false (and ignores it) when it is not
    // fair, is longer than max_length, or is not in the searched space; call before run().
    bool set_initial(const std::vector<std::uint32_t>& antecedents,
                     const std::vector<std::uint8_t>& predictions, int default_prediction);

    // Runs the search to completion or to a limit.  Call once.
    SearchResult run();

    // Asks a running search to stop at the next node (thread-safe).
    void request_stop() noexcept { stop_.store(true, std::memory_order_relaxed); }

    Progress progress() const noexcept;

 private:
    std::unique_ptr<SearchContext> ctx_;
    std::unique_ptr<Incumbent> incumbent_;
    std::unique_ptr<Frontier> frontier_;
    std::unique_ptr<Expander> worker_;
    std::unique_ptr<RashomonStore> rashomon_;  // the Rashomon mode's lists (null: off)
    // Set (release) once start_ is, in run(); progress() reads it (acquire) from another thread
    // and start_ only when it is true.
    std::atomic<bool> ran_{false};

    // The parallel search (parallel.cpp; n_jobs > 1): workers 1 .. n_jobs - 1 (worker_ is 0),
    // the lock of the shared frontier, and the state of the node loop (under the lock).
    std::vector<std::unique_ptr<Expander>> helpers_;
    std::unique_ptr<FrontierLock> lock_;
    std::atomic<bool> halt_{false};  // one worker stops them all (StopCheck::set_halt)
    StopReason halt_reason_ = StopReason::COMPLETED;  // the first worker's reason
    int busy_ = 0;                    // workers expanding a node
    std::size_t pops_ = 0;            // nodes popped in this phase
    std::int64_t shared_expanded_ = 0, shared_children_ = 0;  // for progress()

    std::chrono::steady_clock::time_point start_;
    std::atomic<bool> stop_{false};
    std::atomic<std::int64_t> p_expanded_{0}, p_children_{0}, p_trie_{0}, p_queue_{0}, p_depth_{0},
        p_certified_{0};
    std::atomic<double> p_lower_{0.0};

    // The bound of the node whose expansion or counting a poll cut short (+inf: none): its lists
    // were not all evaluated, so the lower bound at the stop counts it as if it were queued.
    double cut_bound_;
    // The root's bound on the errors (of the last phase run).
    std::int64_t root_errors_ = 0;
    std::size_t peak_memory_ = 0;
    std::size_t worker_bytes_ = 0;  // the workers' own tables (Expander::bytes), all together
    Stats stats_;  // the search's own (certified_length, peaks, seconds); the worker's added

    // The workers beyond the first, sharing the frontier (n_jobs > 1).
    void start_workers();
    // The constant lists, then the beam search: the first incumbents.
    void first_incumbents();
    // Grows the trie from the root until the queue is empty or a limit stops it (in parallel
    // with n_jobs > 1).
    StopReason search_tree();
    StopReason search_tree_parallel();
    // One worker's node loop (parallel.cpp).
    void worker_loop(Expander& worker);
    // Stops every worker of the parallel search with this reason (lock held).
    void halt(StopReason reason);
    // After a phase's node loop: the last progress, the peaks.
    void end_phase();
    // The root node: its bound (the fairness bounds of the empty prefix); false when no fair
    // list exists.
    bool push_root();
    // The reason to stop before popping the next node (COMPLETED: none).
    StopReason limit_reached(std::size_t iterations);
    // The phases of length deepening, then the full search.
    StopReason run_phases();
    SearchResult make_result(StopReason reason);
    // The global lower bound as the search runs (Progress::lower_bound).
    double global_lower_bound();
    // At a stop: the least bound of the queued prefixes and the cut node (and, in a deepening
    // phase, of the lists beyond its cap).
    double lower_bound_at_stop() const;
    double elapsed() const;
    // What the memory limit counts: the frontier's structures, the workers' own tables and
    // the Rashomon mode's store.
    std::size_t memory_bytes() const;
    void publish_progress(std::size_t depth, std::int64_t expanded, std::int64_t children);
};

}  // namespace fairlist
