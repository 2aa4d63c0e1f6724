# The contract between Python and the C++ core: declarations only.
from libc.stdint cimport int64_t, uint8_t, uint32_t, uint64_t
from libcpp.vector cimport vector


cdef extern from "fairlist/bitset.hpp" namespace "fairlist" nogil:
    ctypedef uint64_t word_t
    size_t words_for(size_t n_bits)
    # set bits of a (n_words words)
    int64_t count(const word_t* a, size_t n_words)
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


cdef extern from "fairlist/search.hpp" namespace "fairlist" nogil:
    # Values equal to fairlist.metrics.Metric.
    cdef enum class Metric(int):
        SP
        PP
        PE
        EOPP
        EODDS
        CUAE

    # Search policies (fairlist.solvers.bnb.POLICIES maps names to these values).
    cdef enum class Policy(int):
        BFS
        BFS_OBJECTIVE_AWARE
        LOWER_BOUND
        CURIOSITY
        DFS
        OBJECTIVE
        BFS_OBJECTIVE_AWARE_LOWEST

    cdef enum class SearchStatus(int):
        OPTIMAL
        FEASIBLE
        INFEASIBLE
        UNKNOWN

    cdef enum class StopReason(int):
        COMPLETED
        NODE_LIMIT
        TIME_LIMIT
        MEMORY_LIMIT
        INTERRUPTED

    cdef cppclass ProblemSpec:
        Metric metric          # unfairness measure
        bint constrained       # False: no cap (epsilon ignored)
        double epsilon         # maximum unfairness
        double lam             # length penalty per rule

    cdef cppclass Config:
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
        int64_t max_nodes            # trie size limit; 0: none
        double time_limit            # seconds; <= 0: none
        double memory_limit_mb       # MiB of search structures; <= 0: none
        uint64_t seed                # 0: insertion-order ties
        bint wide_map_counts         # 32-bit permutation-map counts on any size (tests)
        int64_t beam_width           # beam search for a first incumbent; 0: none
        int64_t deepen_length        # length deepening: certify 1..this many rules first

    cdef cppclass Stats:
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
        int64_t peak_memory_bytes
        double beam_objective          # best objective after the beam search (inf: none)
        double beam_seconds
        int64_t certified_length       # no list of at most this many rules beats the result
        double seconds

    cdef cppclass Progress:
        int64_t nodes_expanded
        int64_t children_evaluated
        int64_t trie_size
        int64_t queue_size
        int64_t depth              # depth of the last expanded node
        double best_objective      # inf while no fair rule list is known
        double seconds
        int64_t certified_length   # length deepening: lists of at most this many rules done

    cdef cppclass SearchResult:
        SearchStatus status
        StopReason stop_reason
        bint has_solution
        vector[uint32_t] antecedents   # rule k's antecedent index
        vector[uint8_t] predictions    # rule k's prediction
        int default_prediction
        int64_t errors
        double objective               # inf without a solution
        double lower_bound
        Stats stats

    cdef cppclass Search:
        # rules: (m, words_for(n)) words; labels, protected_group: words_for(n) words
        Search(const word_t* rules, const word_t* labels, const word_t* protected_group,
               size_t n_samples, size_t n_antecedents, const ProblemSpec& problem,
               const Config& config) except +
        bint set_initial(const vector[uint32_t]& antecedents, const vector[uint8_t]& predictions,
                         int default_prediction) except +
        SearchResult run() except +
        void request_stop()
        Progress progress()
