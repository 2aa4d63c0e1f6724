# The contract between Python and the C++ core: declarations only, one block per header.
#
# Named after fairlist._core because Cython creates the Python class of a `cpdef enum` only in
# the module named like the .pxd that declares it: the enums below become fairlist._core.Policy,
# .SearchStatus, .StopReason and .Metric (IntEnums with the C++ values).  _bound.pyx cimports
# from here too; the declarations alone import nothing at run time.
#
# The structs are `cdef struct`s so that Cython converts a dict to each of them and back: every
# field must be in the dict (a missing one raises ValueError naming it), so each field is listed
# here as in the header (tests/test_native_boundary.py compares the two).
from libc.stdint cimport int32_t, int64_t, uint8_t, uint32_t, uint64_t
from libcpp.vector cimport vector


cdef extern from "fairlist/bitset.hpp" namespace "fairlist" nogil:
    ctypedef uint64_t word_t
    size_t words_for(size_t n_bits)
    # set bits of a & b
    int64_t count_and(const word_t* a, const word_t* b, size_t n_words)
    # X: row-major n_rows x n_cols bytes -> out: n_cols x words_for(n_rows) words
    void pack_columns(const uint8_t* X, size_t n_rows, size_t n_cols, word_t* out) except +
    # v: n bytes -> out: words_for(n) words
    void pack_vector(const uint8_t* v, size_t n, word_t* out) except +
    # out[0] = |rule & free|, out[k] = |rule & free & masks[k - 1]| (k = 1..4)
    void count_captured(const word_t* rule, const word_t* free, const word_t* const* masks,
                        size_t n_words, int64_t* out)
    void count_captured_scalar(const word_t* rule, const word_t* free,
                               const word_t* const* masks, size_t n_words, int64_t* out)
    void count_captured_avx512(const word_t* rule, const word_t* free,
                               const word_t* const* masks, size_t n_words, int64_t* out)
    bint has_avx512_popcount()


cdef extern from "fairlist/rule_data.hpp" namespace "fairlist" nogil:
    # in: rows x words_for(cols) words -> out: cols x words_for(rows) words, transposed
    void transpose_bits(const word_t* inp, size_t rows, size_t cols, word_t* out)


cdef extern from "fairlist/counts.hpp" namespace "fairlist" nogil:
    # Most groups the search handles.
    const int kMaxGroups

    # Confusion counts of one group (sums of integer sample weights).
    cdef struct GroupConfusion:
        int64_t tp  # true positives
        int64_t fp  # false positives
        int64_t tn  # true negatives
        int64_t fn  # false negatives

    # Uncaptured samples of one group, by true label.
    cdef struct Uncaptured:
        int64_t pos  # uncaptured samples with label 1
        int64_t neg  # uncaptured samples with label 0

    # Per-group confusion counts: k groups, g[0 .. k-1].
    cdef cppclass Fixed:
        int k
        GroupConfusion g[64]
        Fixed()
        Fixed(int groups)


cdef extern from "fairlist/metric.hpp" namespace "fairlist" nogil:
    cpdef enum class Metric(int):
        """Unfairness measures; values equal to fairlist.metrics.Metric."""
        SP     # statistical parity
        PP     # predictive parity
        PE     # predictive equality
        EOPP   # equal opportunity
        EODDS  # equalized odds
        CUAE   # conditional use accuracy equality

    # One row of the metric table (FAIRLIST_METRICS in metric.hpp).
    cdef struct MetricInfo:
        Metric metric     # the measure
        const char* name  # its short name (SP, PP, PE, EOpp, EOdds, CUAE)
        unsigned rates    # bits of the rates it compares, in the order of kRateNames
        int gaps          # 1: one rate's gap; 2: the sum of two rates' gaps
    const MetricInfo kMetricTable[]
    const int kNumMetrics
    const int kNumRates
    const char* const kRateNames[]


cdef extern from "fairlist/fairness_bound.hpp" namespace "fairlist" nogil:
    cdef struct FairnessBound:
        bint feasible       # some completion meets epsilon
        int64_t min_errors  # minimum errors on the uncaptured samples (if feasible)

    # Unfairness of complete counts (same arithmetic as fairlist.metrics): two groups, or f.k.
    double unfairness(Metric m, const GroupConfusion& prot, const GroupConfusion& unprot)
    double unfairness(Metric m, const Fixed& f)
    # Minimum errors on the uncaptured samples over the fair completions (docs/design.md §3), exact
    # (declared without its work_budget argument, which then takes the exact default).
    FairnessBound fairness_lower_bound(
        Metric m, double epsilon, const GroupConfusion& fixed_prot,
        const GroupConfusion& fixed_unprot, const Uncaptured& u_prot,
        const Uncaptured& u_unprot)
    # The same relaxation over f.k >= 2 groups with real-valued completions (u: f.k entries).
    FairnessBound group_fairness_lower_bound(Metric m, double epsilon, const Fixed& fixed,
                                             const Uncaptured* u)


cdef extern from "fairlist/queue.hpp" namespace "fairlist" nogil:
    cpdef enum class Policy(int):
        """Search policies: the order in which prefixes are expanded (queue.hpp)."""
        BFS                  # breadth-first (CORELS order)
        BFS_OBJECTIVE_AWARE  # breadth-first; within a depth, higher objective first (paper)
        LOWER_BOUND          # best-first by lower bound
        CURIOSITY            # best-first by lower bound / normalized support (CORELS)
        DFS                  # depth-first
        OBJECTIVE            # best-first by objective
        BFS_OBJECTIVE_AWARE_LOWEST  # breadth-first; within a depth, lower objective first (ref. code)


cdef extern from "fairlist/search.hpp" namespace "fairlist" nogil:
    cpdef enum class SearchStatus(int):
        """How a search ended (mirrors CP-SAT; fairlist.solvers.Status by name)."""
        OPTIMAL     # search completed with a fair rule list: optimal (in the space)
        FEASIBLE    # a limit stopped the search; best fair rule list so far
        INFEASIBLE  # search completed without a fair rule list: none exists (in the space)
        UNKNOWN     # a limit stopped the search before any fair rule list was found

    cpdef enum class StopReason(int):
        """Why a search stopped (fairlist.solvers.StopReason by name)."""
        COMPLETED
        NODE_LIMIT
        TIME_LIMIT
        MEMORY_LIMIT
        INTERRUPTED
        GAP_LIMIT     # the incumbent came within gap_tolerance of the global lower bound
        MAX_LISTS     # the search completed, but max_lists cut its Rashomon set

    cdef struct ProblemSpec:
        Metric metric          # unfairness measure
        bint constrained       # False: no cap (epsilon ignored)
        double epsilon         # maximum unfairness
        double lam             # length penalty per rule

    cdef struct Config:
        Policy policy
        bint majority_only           # CORELS' majority-label search space
        int64_t max_length           # < 0: no cap
        bint use_hierarchical_bound
        bint use_lookahead
        bint use_length_bound
        bint use_equivalent_points
        bint use_fairness_bound      # only with a constraint
        bint use_class_bound         # equivalence-class LP fairness bound (SP, PE, EOpp, EOdds)
        bint use_permutation_map     # keyed safely when constrained
        bint use_support_bounds      # only without a constraint
        bint use_terminal_solver     # finish prefixes two rules short of the cap by counting
        bint use_two_rule_lookahead  # count a child's 1-2 rule completions when 3+ cannot win
        bint use_terminal_symmetry   # skip first rules a finished sibling already covered
        bint use_class_pair_counts   # terminal pair rows by popcounts of class bitsets
        bint use_weight_plane_counts  # ... every class, by the bit planes of its weights
        int64_t max_nodes            # trie size limit; 0: none
        double time_limit            # seconds; <= 0: none
        double memory_limit_mb       # MiB of search structures; <= 0: none
        uint64_t seed                # 0: insertion-order ties
        int64_t beam_width           # beam search for a first incumbent; 0: none
        int64_t deepen_length        # length deepening: certify 1..this many rules first
        double gap_tolerance         # stop once objective - global lower bound <= this; <= 0: none
        int64_t n_jobs               # worker threads; < 0: hardware threads + 1 + n_jobs; 0 refused
        double rashomon_delta        # Rashomon mode: keep every list within this of the best; < 0: off
        int64_t max_lists            # Rashomon mode: keep the max_lists of least objective; 0: all
        bint rashomon_keep_map       # Rashomon mode for a certificate: map and symmetry stay on
        double rashomon_ceiling      # Rashomon mode: no list above this objective; +inf: none
        bint rashomon_front          # Rashomon mode: keep the (objective, unfairness) front only
        double fairest_ceiling       # fairest mode: least unfair list of objective <= this; < 0: off

    # The test and diagnostic switches (config.hpp), apart from Config.
    cdef struct Diagnostics:
        bint wide_map_counts         # 32-bit permutation-map counts on any size
        bint canonical_ties          # ties decided canonically with one worker too
        bint finished_tie_cut        # canonical ties: drop a tying equivalent of a finished prefix
        bint fairest_falling_cap     # fairest mode: the incumbent's unfairness caps the bounds
        bint packed_pair_counts      # terminal pair rows of sparse sets on a packed bit layout
        bint mirrored_pair_rows      # terminal pair (a, b) copied from (b, a) where counted

    cdef struct Stats:
        int64_t nodes_expanded
        int64_t children_evaluated
        int64_t nodes_created
        int64_t peak_trie_size
        int64_t peak_queue_size
        int64_t pruned_by_bound
        int64_t pruned_on_pop
        int64_t pruned_infeasible
        int64_t pruned_class_bound
        int64_t pruned_support
        int64_t pruned_length
        int64_t permutation_hits
        int64_t incumbent_updates
        int64_t fairness_bound_calls
        int64_t frontier_locks         # acquisitions of the shared frontier lock (parallel)
        double frontier_lock_seconds   # seconds it was held, all workers (parallel)
        double frontier_wait_seconds   # seconds workers waited to acquire it (parallel)
        int64_t terminal_prefixes      # prefixes finished by counting (terminal solver)
        int64_t terminal_lists         # their two-rule completions examined
        int64_t lookahead_prefixes     # of them, finished by the two-rule lookahead
        int64_t peak_memory_bytes      # frontier + the workers' own tables, at most
        int64_t worker_memory_bytes    # the workers' own tables (terminal counts, scratch)
        double beam_objective          # best objective after the beam search (inf: none)
        double beam_seconds
        int64_t certified_length       # no list of at most this many rules beats the result
        double seconds
        int64_t n_rows                 # distinct weighted rows searched over
        int64_t n_classes              # classes of identical antecedent bits

    # a += b (Stats::operator+=, result.hpp): counters summed, peaks maximized, the rest a's
    Stats add_stats(const Stats& a, const Stats& b)

    cdef struct Progress:
        int64_t nodes_expanded
        int64_t children_evaluated
        int64_t trie_size
        int64_t queue_size
        int64_t depth              # depth of the last expanded node
        double best_objective      # inf while no fair rule list is known
        double seconds
        int64_t certified_length   # length deepening: lists of at most this many rules done
        double lower_bound         # proved lower bound on the optimum so far

    cdef struct SearchResult:
        SearchStatus status
        StopReason stop_reason
        bint has_solution
        vector[uint32_t] antecedents   # rule k's antecedent index
        vector[uint8_t] predictions    # rule k's prediction
        int default_prediction
        int64_t errors                 # weight of the misclassified samples (integer units)
        double objective               # inf without a solution
        double lower_bound
        double unfairness              # the list's (fairest mode: minimised; lower_bound bounds it)
        Stats stats
        vector[uint32_t] rashomon_rules       # Rashomon mode: every list's rules, concatenated
        vector[uint64_t] rashomon_starts      # list i: rashomon_rules[starts[i]:starts[i + 1]]
        vector[uint8_t] rashomon_defaults     # list i's default prediction
        vector[int64_t] rashomon_errors       # list i's errors (integer units)
        vector[double] rashomon_objectives    # list i's objective (sorted, ties canonical)
        double rashomon_complete_below        # every member below this is listed (inf: all)

    cdef cppclass Search:
        # rules: (m, words_for(n)) words; labels: words_for(n) words; groups: n codes in
        # [0, n_groups); weights: n integer weights (total <= 2^31) or NULL for unit weights
        Search(const word_t* rules, const word_t* labels, const int32_t* groups,
               const int64_t* weights, size_t n_samples, size_t n_antecedents, int n_groups,
               const ProblemSpec& problem, const Config& config,
               const Diagnostics& diagnostics) except +
        bint set_initial(const vector[uint32_t]& antecedents, const vector[uint8_t]& predictions,
                         int default_prediction) except +
        SearchResult run() except +
        void request_stop()
        Progress progress()
