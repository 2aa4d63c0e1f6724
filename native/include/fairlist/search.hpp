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
#include "fairlist/config.hpp"
#include "fairlist/result.hpp"
#include "fairlist/stop.hpp"
#include "fairlist/thread_annotations.hpp"

namespace fairlist {

// ProblemSpec, Config and Diagnostics (config.hpp); SearchStatus, Stats, Progress and
// SearchResult (result.hpp).

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
    // integer weights >= 0 adding up to at most 2^31, or nullptr for unit weights;
    // diagnostics: the test switches (config.hpp).  Everything is copied.
    Search(const word_t* rules, const word_t* labels, const std::int32_t* groups,
           const std::int64_t* weights, std::size_t n_samples, std::size_t n_antecedents,
           int n_groups, const ProblemSpec& problem, const Config& config,
           const Diagnostics& diagnostics = Diagnostics());
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

    // The parallel search (parallel.cpp; n_jobs > 1): workers 1 .. n_jobs - 1 (worker_ is 0)
    // and the lock of the shared frontier (null: serial).
    std::vector<std::unique_ptr<Expander>> helpers_;
    std::unique_ptr<FrontierLock> lock_;
    std::atomic<bool> halt_{false};  // one worker stops them all (StopCheck::set_halt)
    // The state of the node loop (node_loop; with workers, under the frontier's lock).
    StopReason halt_reason_ GUARDED_BY(frontier_lock) = StopReason::COMPLETED;  // why this phase stopped (the first reason)
    int busy_ GUARDED_BY(frontier_lock) = 0;                    // workers expanding a node (parallel)
    std::size_t pops_ GUARDED_BY(frontier_lock) = 0;            // nodes popped in this phase
    // What progress() reports: the workers' nodes_expanded and children_evaluated, added up.
    std::int64_t progress_expanded_ GUARDED_BY(frontier_lock) = 0;
    std::int64_t progress_children_ GUARDED_BY(frontier_lock) = 0;
    // The node budget (Config::max_nodes) spent by the deepening phases ended so far: the nodes
    // they expanded or finished by counting (what they added to progress_expanded_).  While
    // one runs (in_deepening_phase_), its own count is progress_expanded_ - phase_spent_start_.
    // A phase stores almost no trie, so its work is counted against the budget (budget_spent).
    std::int64_t phase_spent_ GUARDED_BY(frontier_lock) = 0;
    std::int64_t phase_spent_start_ GUARDED_BY(frontier_lock) = 0;
    bool in_deepening_phase_ GUARDED_BY(frontier_lock) = false;

    std::chrono::steady_clock::time_point start_;
    std::atomic<bool> stop_{false};
    std::atomic<std::int64_t> p_expanded_{0}, p_children_{0}, p_trie_{0}, p_queue_{0}, p_depth_{0},
        p_certified_{0};
    std::atomic<double> p_lower_{0.0};

    // The bound of the node whose expansion or counting a poll cut short (+inf: none): its lists
    // were not all evaluated, so the lower bound at the stop counts it as if it were queued.
    double cut_bound_ GUARDED_BY(frontier_lock);
    // The root's bound on the errors (of the last phase run).
    std::int64_t root_errors_ = 0;
    std::size_t peak_memory_ GUARDED_BY(frontier_lock) = 0;
    std::size_t worker_bytes_ = 0;  // the workers' own tables (Expander::bytes), all together
    Stats stats_;  // the search's own (certified_length, peaks, seconds); the worker's added

    // The workers beyond the first, sharing the frontier (n_jobs > 1).
    void start_workers();
    // The constant lists, then the beam search: the first incumbents.
    void first_incumbents();
    // Grows the trie from the root until the queue is empty or a limit stops it: one node loop,
    // or one on each of n_jobs workers (run_workers).
    StopReason search_tree();
    // The node loop (search.cpp), serial or one worker's of the parallel search (kShared: the
    // frontier under lock_); the differences are listed where it is defined.
    template <bool kShared>
    void node_loop(Expander& worker);
    // Runs node_loop<true> on every worker, each in a thread (worker 0 in this one), and joins
    // them (parallel.cpp).
    void run_workers();
    // Stops the phase (every worker) with this reason, the first one kept (the lock held).
    void halt(StopReason reason) REQUIRES(frontier_lock);
    // Adds what a worker's statistics counted since *seen_expanded / *seen_children to the
    // progress totals (and moves those on); true when the expanded total is a multiple of 16
    // (a report about every 16th node).
    bool tally(const Stats& stats, std::int64_t* seen_expanded, std::int64_t* seen_children)
        REQUIRES(frontier_lock);
    // The Rashomon mode's store before each pop: its budget and list limit, and the cap it sets
    // on the cutoff (serial only).
    void fit_rashomon_store() REQUIRES(frontier_lock);
    // After a phase's node loop: the last progress, the peaks.
    void end_phase() REQUIRES(frontier_lock);
    // The root node: its bound (the fairness bounds of the empty prefix); false when no fair
    // list exists.
    bool push_root() REQUIRES(frontier_lock);
    // What Config::max_nodes is compared with: the live trie plus the deepening phases' nodes
    // expanded or finished by counting (phase_spent_; limit_reached).
    std::int64_t budget_spent() const REQUIRES(frontier_lock);
    // The reason to stop before popping the next node (COMPLETED: none).
    StopReason limit_reached(std::size_t iterations) REQUIRES(frontier_lock);
    // The phases of length deepening, then the full search.
    StopReason run_phases();
    SearchResult make_result(StopReason reason) REQUIRES(frontier_lock);
    // The global lower bound as the search runs (Progress::lower_bound).
    double global_lower_bound() REQUIRES(frontier_lock);
    // At a stop: the least bound of the queued prefixes and the cut node (and, in a deepening
    // phase, of the lists beyond its cap).
    double lower_bound_at_stop() const REQUIRES(frontier_lock);
    double elapsed() const;
    // What the memory limit counts: the frontier's structures, the workers' own tables and
    // the Rashomon mode's store.
    std::size_t memory_bytes() const REQUIRES(frontier_lock);
    void publish_progress(std::size_t depth, std::int64_t expanded, std::int64_t children)
        REQUIRES(frontier_lock);
};

}  // namespace fairlist
