// The search's sequence (search.hpp): constant lists, beam, length-deepening phases, the node
// loop, the result.  The work of a node is the Expander's (expander.cpp).
#include "fairlist/search.hpp"

#include <algorithm>
#include <limits>
#include <stdexcept>

#include "fairlist/beam.hpp"
#include "fairlist/bounds.hpp"
#include "fairlist/context.hpp"
#include "fairlist/expander.hpp"
#include "fairlist/frontier.hpp"
#include "fairlist/incumbent.hpp"
#include "fairlist/rashomon.hpp"

namespace fairlist {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
// Seconds a Rashomon list takes to be sorted and handed over (Search::limit_reached).
constexpr double kHandoverSeconds = 1.5e-6;

}  // namespace

Search::Search(const word_t* rules, const word_t* labels, const std::int32_t* groups,
               const std::int64_t* weights, std::size_t n_samples, std::size_t n_antecedents,
               int n_groups, const ProblemSpec& problem, const Config& config,
               const Diagnostics& diagnostics)
    : ctx_(std::make_unique<SearchContext>(rules, labels, groups, weights, n_samples,
                                           n_antecedents, n_groups, problem, config,
                                           diagnostics)),
      incumbent_(std::make_unique<Incumbent>()),
      frontier_(std::make_unique<Frontier>(*ctx_)),
      worker_(std::make_unique<Expander>(*ctx_, *frontier_, *incumbent_, &stop_)),
      cut_bound_(kInf) {
    if (ctx_->rashomon()) {
        rashomon_ = std::make_unique<RashomonStore>(ctx_->config().max_lists,
                                                    ctx_->config().rashomon_front);
        worker_->set_rashomon(rashomon_.get());
    }
}

Search::~Search() = default;

bool Search::set_initial(const std::vector<std::uint32_t>& antecedents,
                         const std::vector<std::uint8_t>& predictions, int default_prediction) {
    if (ran_) throw std::logic_error("set_initial must be called before run");
    if (antecedents.size() != predictions.size()) {
        throw std::invalid_argument("antecedents and predictions differ in length");
    }
    if (default_prediction != 0 && default_prediction != 1) {
        throw std::invalid_argument("default prediction must be 0 or 1");
    }
    const RuleData& data = ctx_->data();
    if (antecedents.size() > ctx_->max_length()) return false;
    // A malformed list raises (all its rules are checked before the walk); a well-formed one
    // is refused when it is outside the searched space or unfair.
    std::vector<std::uint8_t> seen(data.n_antecedents(), 0);
    std::vector<std::uint32_t> rules;
    for (std::size_t k = 0; k < antecedents.size(); ++k) {
        const std::uint32_t j = antecedents[k];
        const int q = predictions[k];
        if (j >= data.n_antecedents()) {
            throw std::invalid_argument("antecedent index out of range");
        }
        if (q != 0 && q != 1) throw std::invalid_argument("predictions must be 0 or 1");
        if (seen[j]++) throw std::invalid_argument("an antecedent appears twice");
        rules.push_back(j << 1 | static_cast<std::uint32_t>(q));
    }
    std::vector<word_t> free(data.n_words());
    Walk w;
    const bool majority_only = ctx_->config().majority_only;
    if (!ctx_->walk_prefix(rules.data(), rules.size(), free.data(), &w, majority_only) ||
        !label_allowed(w.free, default_prediction, majority_only)) {
        return false;
    }
    add_predicted(w.fixed, w.free, default_prediction);
    const std::int64_t errors = w.errors + w.free.label(1 - default_prediction);
    if (!ctx_->fair(w.fixed)) return false;
    if (ctx_->fairest()) {  // within the ceiling, by (unfairness, objective): ListSink::offer
        const double objective = ctx_->objective(errors, rules.size());
        if (!(objective <= ctx_->ceiling())) return false;
        incumbent_->offer_fairest(unfairness(ctx_->problem().metric, w.fixed), objective, errors,
                                  rules.data(), rules.size(), Incumbent::kNoRule,
                                  default_prediction);
        return true;
    }
    incumbent_->offer(ctx_->objective(errors, rules.size()), errors, rules.data(), rules.size(),
                      Incumbent::kNoRule, default_prediction, [] { return true; }, nullptr);
    return true;
}

void Search::first_incumbents() {
    const SplitCounts& totals = ctx_->data().totals();
    worker_->scratch().path.clear();
    for (int d = 0; d < 2; ++d) {  // the constant lists
        if (!label_allowed(totals, d, ctx_->majority_labels())) continue;
        Fixed f(ctx_->data().n_groups());
        add_predicted(f, totals, d);
        worker_->offer(totals.label(1 - d), 0, f, 0, d);
    }
    BeamSearch beam(*ctx_, *incumbent_, worker_->stop_check(), worker_->stats());
    beam.run(static_cast<std::size_t>(std::max<std::int64_t>(ctx_->config().beam_width, 0)));
    stats_.beam_objective = incumbent_->objective();
    stats_.beam_seconds = elapsed();
}

std::size_t Search::memory_bytes() const {
    const std::size_t store = rashomon_ != nullptr ? rashomon_->bytes() : 0;
    return frontier_->memory_bytes() + worker_bytes_ + store;
}

double Search::elapsed() const {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
}

void Search::publish_progress(std::size_t depth, std::int64_t expanded, std::int64_t children) {
    p_expanded_.store(expanded, std::memory_order_relaxed);
    p_children_.store(children, std::memory_order_relaxed);
    p_trie_.store(static_cast<std::int64_t>(frontier_->live()), std::memory_order_relaxed);
    p_queue_.store(static_cast<std::int64_t>(frontier_->queue_size()), std::memory_order_relaxed);
    p_depth_.store(static_cast<std::int64_t>(depth), std::memory_order_relaxed);
    p_lower_.store(global_lower_bound(), std::memory_order_relaxed);
}

double Search::global_lower_bound() {
    double lb = std::min({incumbent_->objective(), frontier_->least_tracked(), cut_bound_});
    if (ctx_->max_length() < ctx_->full_length()) {
        lb = std::min(lb, ctx_->objective(root_errors_, ctx_->max_length() + 1));
    }
    return lb;
}

Progress Search::progress() const noexcept {
    Progress p;
    p.nodes_expanded = p_expanded_.load(std::memory_order_relaxed);
    p.children_evaluated = p_children_.load(std::memory_order_relaxed);
    p.trie_size = p_trie_.load(std::memory_order_relaxed);
    p.queue_size = p_queue_.load(std::memory_order_relaxed);
    p.depth = p_depth_.load(std::memory_order_relaxed);
    p.best_objective = incumbent_->objective();
    p.seconds = ran_.load(std::memory_order_acquire) ? elapsed() : 0.0;
    p.certified_length = p_certified_.load(std::memory_order_relaxed);
    p.lower_bound = p_lower_.load(std::memory_order_relaxed);
    return p;
}

bool Search::push_root() {
    std::int64_t rest = 0;
    const bool feasible = worker_->root_bound(&rest);
    root_errors_ = rest;
    frontier_->add_root(rest, feasible, ctx_->queued_bound(rest, 0));
    if (!feasible) ++worker_->stats().pruned_infeasible;
    return feasible;
}

std::int64_t Search::budget_spent() const {
    // The trie bounds the memory of the plain search, and its time with it.  A deepening phase
    // finishes the prefixes two rules short of its cap by counting, so its trie stays small
    // (at most 13,607-50,365 nodes in 5-15 CPU s on COMPAS) and the trie alone would not stop it:
    // its nodes expanded or finished by counting are counted too (Stats::nodes_expanded, as the
    // node loop and Expander::add_child count them), in every phase run so far.  Those track
    // its time: 33-83 CPU us each on COMPAS, against 30-112 per expansion in the plain search
    // (docs/performance.md, "Length deepening under a node budget").  The budget is checked
    // before each pop, so a phase ends at most one node's count past it per worker: the node
    // and its children finished by counting, 2 n_antecedents + 1.
    std::int64_t spent = static_cast<std::int64_t>(frontier_->live()) + phase_spent_;
    if (in_deepening_phase_) spent += progress_expanded_ - phase_spent_start_;
    return spent;
}

StopReason Search::limit_reached(std::size_t iterations) {
    const Config& config = ctx_->config();
    if (stop_.load(std::memory_order_relaxed)) return StopReason::INTERRUPTED;
    // The Rashomon mode's lists are sorted and handed over after the search: the time limit
    // keeps room for that, kHandoverSeconds a list (measured 1.5 us on a loaded machine:
    // 22.4 million lists of COMPAS in 34 s; without it a 4 s limit took 38 s).
    if (rashomon_ != nullptr && config.time_limit > 0 &&
        elapsed() + kHandoverSeconds * static_cast<double>(rashomon_->size()) >=
            config.time_limit) {
        return StopReason::TIME_LIMIT;
    }
    if (config.max_nodes > 0 && budget_spent() >= config.max_nodes) return StopReason::NODE_LIMIT;
    if (config.gap_tolerance > 0 && incumbent_->has() &&
        incumbent_->objective() - global_lower_bound() <= config.gap_tolerance) {
        return StopReason::GAP_LIMIT;
    }
    if ((iterations & 63U) == 0) {
        const std::size_t bytes = memory_bytes();
        peak_memory_ = std::max(peak_memory_, bytes);
        const double memory_limit = config.memory_limit_mb * 1024.0 * 1024.0;
        if (memory_limit > 0 && static_cast<double>(bytes) > memory_limit) {
            return StopReason::MEMORY_LIMIT;
        }
        if (config.time_limit > 0 && elapsed() >= config.time_limit) return StopReason::TIME_LIMIT;
        if (ctx_->n_jobs() == 1) incumbent_->reclaim();  // no other thread reads it
    }
    return StopReason::COMPLETED;
}

StopReason Search::search_tree() {
    assert_no_workers();  // before the workers start and after they join; they lock (node_loop)
    push_root();
    halt_reason_ = StopReason::COMPLETED;
    busy_ = 0;
    pops_ = 0;
    if (ctx_->n_jobs() > 1) {
        run_workers();
    } else {
        node_loop<false>(*worker_);
    }
    publish_progress(0, progress_expanded_, progress_children_);
    end_phase();
    return halt_reason_;
}

void Search::fit_rashomon_store() {
    // Its budget: what the memory limit leaves the other structures (it compacts to fit).
    const double limit = ctx_->config().memory_limit_mb * 1024.0 * 1024.0;
    rashomon_->set_budget(
        limit > 0 ? limit - static_cast<double>(frontier_->memory_bytes() + worker_bytes_) : kInf);
    // As many lists as the time left can sort and hand over (one node can add millions).
    const double left = ctx_->config().time_limit - elapsed();
    if (ctx_->config().time_limit > 0) {
        rashomon_->set_list_limit(static_cast<std::size_t>(std::max(left, 0.0) / kHandoverSeconds));
    }
    // Its cap (max_lists) tightens the cutoff.
    ctx_->set_list_cap(rashomon_->trim(ctx_->cutoff(incumbent_->objective())));
}

void Search::halt(StopReason reason) {
    if (halt_reason_ == StopReason::COMPLETED) halt_reason_ = reason;
    halt_.store(true, std::memory_order_relaxed);
    if (lock_ != nullptr) lock_->wake.notify_all();
}

bool Search::tally(const Stats& stats, std::int64_t* seen_expanded, std::int64_t* seen_children) {
    progress_expanded_ += stats.nodes_expanded - *seen_expanded;
    progress_children_ += stats.children_evaluated - *seen_children;
    *seen_expanded = stats.nodes_expanded;
    *seen_children = stats.children_evaluated;
    return (progress_expanded_ & 15) == 0;
}

// The node loop, one for the serial search (kShared false: worker 0, no lock) and for each
// worker of the parallel search (kShared true: the frontier's lock held except while the node
// is expanded or counted; docs/design.md §8.4).  Each turn: wait for a node (parallel), check
// the limits, pop a node, prune it again, expand it or finish it by counting, then, unless a
// poll cut it short, mark it done, count it and publish progress.  What differs with kShared:
//  * the lock: taken here (FrontierHold), released around the node's work (load takes the
//    trie slots and path under it; busy_ counts the workers holding a node), and idle workers
//    wait on FrontierLock::wake while the queue is empty and another worker may still queue
//    children (the phase ends when the queue is empty and no worker is busy);
//  * the popped node's bound: the serial loop untracks it at once (nothing reads the tracked
//    bounds until the node is done; the BoundTracker's bin then drops the stale least bound
//    sooner), the parallel loop only once the node is done, because other workers read the
//    global lower bound (gap limit, progress) meanwhile;
//  * the children: the serial Expander adds each to the frontier as it goes, a parallel one
//    holds them and links them in mark_done (Expander::set_shared);
//  * the incumbent's replaced lists are reclaimed every 64 pops serially (limit_reached), after
//    the join in parallel (run_workers);
//  * the Rashomon mode's store is fitted before each pop (serial only: the mode refuses
//    n_jobs != 1).
// The progress totals add up every worker's counts (tally), so the serial ones are its stats'.
template <bool kShared>
void Search::node_loop(Expander& w) {
    Stats& stats = w.stats();
    if constexpr (kShared) w.clear_slots();  // this phase's trie is new
    FrontierHold lock(kShared ? lock_.get() : nullptr, &stats);  // serial: takes nothing
    std::int64_t seen_expanded = stats.nodes_expanded, seen_children = stats.children_evaluated;
    for (;;) {
        if constexpr (kShared) {
            while (frontier_->empty() && busy_ > 0 && halt_reason_ == StopReason::COMPLETED) {
                lock.wait();
            }
        }
        if (halt_reason_ != StopReason::COMPLETED || frontier_->empty()) break;
        if (rashomon_ != nullptr) fit_rashomon_store();
        const StopReason limit = limit_reached(++pops_);
        if (limit != StopReason::COMPLETED) {
            halt(limit);
            break;
        }
        const std::uint32_t index = frontier_->pop();
        const Node& node = frontier_->node(index);
        const std::size_t depth = frontier_->depth(index);
        const double bound = ctx_->queued_bound(node.lb_errors, depth);
        if constexpr (!kShared) frontier_->untrack(bound);
        if ((node.flags & Node::kSuperseded) || !w.worth_expanding(index, depth)) {
            ++stats.pruned_on_pop;
            if constexpr (kShared) frontier_->untrack(bound);
            frontier_->retire(index);
            continue;
        }
        // The hook of the terminal solver (terminal_solver.hpp): a prefix two rules short of
        // the length cap is finished by counting instead of expanded.
        const bool count = w.finishes_by_counting(depth);
        w.load(index);
        if constexpr (kShared) {
            ++busy_;
            lock.release();
        }
        if (count) {
            w.finish_loaded();
        } else {
            w.expand_loaded();
        }
        if constexpr (kShared) {
            lock.acquire();
            --busy_;
            frontier_->untrack(bound);
        }
        // A poll inside the node stopped it: the node's lists are not all evaluated, so its
        // bound stays in the lower bound (its children already queued keep theirs).
        if (w.stop_check().stopped()) {
            cut_bound_ = std::min(cut_bound_, bound);
            halt(w.stop_check().reason());
            break;
        }
        w.mark_done();
        ++stats.nodes_expanded;
        if (tally(stats, &seen_expanded, &seen_children)) {
            publish_progress(depth, progress_expanded_, progress_children_);
        }
        if constexpr (kShared) {
            if (frontier_->empty() && busy_ == 0) lock_->wake.notify_all();  // done
        }
    }
    tally(stats, &seen_expanded, &seen_children);  // a node cut short: what it counted
    if constexpr (kShared) lock_->wake.notify_all();
}

template void Search::node_loop<true>(Expander& w);

void Search::end_phase() {
    peak_memory_ = std::max(peak_memory_, memory_bytes());
    stats_.peak_trie_size = std::max(stats_.peak_trie_size,
                                     static_cast<std::int64_t>(frontier_->peak_live()));
    stats_.peak_queue_size = std::max(stats_.peak_queue_size,
                                      static_cast<std::int64_t>(frontier_->peak_queue()));
}

StopReason Search::run_phases() {
    // Length deepening: certify the lists of at most 1, 2, ... rules first (see Config).
    const std::size_t cap = ctx_->full_length();
    const std::size_t deepen = std::min<std::size_t>(
        static_cast<std::size_t>(std::max<std::int64_t>(ctx_->config().deepen_length, 0)),
        cap > 0 ? cap - 1 : 0);
    StopReason reason = StopReason::COMPLETED;
    assert_no_workers();  // the workers run only inside a phase's node loop
    for (std::size_t length = 1; length <= deepen; ++length) {
        ctx_->set_phase(length, length);  // the shorter lists are certified
        in_deepening_phase_ = true;  // its nodes count against the node budget (budget_spent)
        phase_spent_start_ = progress_expanded_;
        reason = search_tree();
        phase_spent_ += progress_expanded_ - phase_spent_start_;
        in_deepening_phase_ = false;
        if (reason != StopReason::COMPLETED) return reason;
        stats_.certified_length = static_cast<std::int64_t>(length);
        p_certified_.store(stats_.certified_length, std::memory_order_relaxed);
        frontier_->reset();
    }
    ctx_->set_phase(cap, static_cast<std::size_t>(stats_.certified_length) + 1);
    return search_tree();
}

double Search::lower_bound_at_stop() const {
    // Every unexplored rule list within the running phase's cap extends a queued prefix (or
    // the cut node); a list beyond a deepening phase's cap has more rules than it, and at
    // least the root's errors.
    double lb = std::min(frontier_->queued_lower_bound(*ctx_, incumbent_->objective()),
                         cut_bound_);
    if (ctx_->max_length() < ctx_->full_length()) {
        lb = std::min(lb, ctx_->objective(root_errors_, ctx_->max_length() + 1));
    }
    return lb;
}

SearchResult Search::make_result(StopReason reason) {
    SearchResult result;
    result.stop_reason = reason;
    const Incumbent::List best = incumbent_->get();
    result.has_solution = best.objective < kInf;
    if (result.has_solution) {
        for (const std::uint32_t rule : best.rules) {
            result.antecedents.push_back(rule >> 1);
            result.predictions.push_back(static_cast<std::uint8_t>(rule & 1U));
        }
        result.default_prediction = best.default_prediction;
        result.errors = best.errors;
        // Its unfairness, from its counts (the fairest mode's incumbent knows it already).
        std::vector<word_t> free(ctx_->data().n_words());
        Walk w;
        ctx_->walk_prefix(best.rules.data(), best.rules.size(), free.data(), &w);
        add_predicted(w.fixed, w.free, best.default_prediction);
        result.unfairness = unfairness(ctx_->problem().metric, w.fixed);
    } else {
        result.unfairness = kInf;
    }
    result.objective = best.objective;
    if (reason == StopReason::COMPLETED) {
        result.status = result.has_solution ? SearchStatus::OPTIMAL : SearchStatus::INFEASIBLE;
        result.lower_bound = best.objective;
    } else {
        result.status = result.has_solution ? SearchStatus::FEASIBLE : SearchStatus::UNKNOWN;
        result.lower_bound = lower_bound_at_stop();
    }
    if (ctx_->fairest()) {
        // The bound on the unfairness: the list's own when the search completed (every list
        // within the ceiling less unfair was pruned soundly or evaluated: context.cpp
        // set_fairest), none otherwise (the queued prefixes carry bounds on the objective
        // only): the list is then a witness.
        result.lower_bound = reason == StopReason::COMPLETED ? result.unfairness : 0.0;
    }
    if (rashomon_ != nullptr) {
        // Every list not evaluated extends a queued prefix or the cut node: below the least of
        // their bounds every list was evaluated, hence recorded when within the cutoff.
        const double evaluated_below =
            reason == StopReason::COMPLETED
                ? kInf
                : std::min(frontier_->queued_lower_bound(*ctx_, kInf), cut_bound_);
        // finish() gets the set's own threshold, the cutoff without the store's cap: the capped
        // cutoff is never above the cap, so against it a cap that cut the set (cap below the
        // threshold, members above it pruned) went unseen when the store held exactly max_lists
        // lists at the end, and the cut set was reported complete (tests/test_rashomon.py,
        // test_core_max_lists_cut_at_exactly_max_lists_is_reported_cut).  The store holds no list
        // above its cap.
        ctx_->set_list_cap(kInf);
        rashomon_->finish(ctx_->cutoff(best.objective), evaluated_below, &result);
        // A complete search whose set memory or max_lists cut (its optimum stays certified).
        if (reason == StopReason::COMPLETED && rashomon_->memory_cut() < kInf) {
            result.stop_reason =
                rashomon_->cut_by_time() ? StopReason::TIME_LIMIT : StopReason::MEMORY_LIMIT;
        } else if (reason == StopReason::COMPLETED && result.rashomon_complete_below < kInf) {
            result.stop_reason = StopReason::MAX_LISTS;
        }
    }
    return result;
}

SearchResult Search::run() {
    if (ran_) throw std::logic_error("Search::run may be called only once");
    start_ = std::chrono::steady_clock::now();
    worker_->start(start_);
    ran_.store(true, std::memory_order_release);
    start_workers();
    first_incumbents();
    worker_bytes_ = worker_->bytes();
    for (const auto& helper : helpers_) worker_bytes_ += helper->bytes();
    assert_no_workers();  // the workers run only inside a phase's node loop
    peak_memory_ = memory_bytes();
    const StopReason reason = run_phases();
    SearchResult result = make_result(reason);
    ctx_->set_phase(ctx_->full_length(), ctx_->min_length());
    p_lower_.store(result.lower_bound, std::memory_order_relaxed);
    // The statistics: the workers' counts, the search's own.
    Stats stats = worker_->stats();
    for (const auto& helper : helpers_) stats += helper->stats();  // counters summed (result.hpp)
    stats.peak_trie_size = stats_.peak_trie_size;
    stats.peak_queue_size = stats_.peak_queue_size;
    stats.beam_objective = stats_.beam_objective;
    stats.beam_seconds = stats_.beam_seconds;
    stats.certified_length = stats_.certified_length;
    stats.peak_memory_bytes = static_cast<std::int64_t>(peak_memory_);
    stats.worker_memory_bytes = static_cast<std::int64_t>(worker_bytes_);
    stats.seconds = elapsed();
    result.stats = stats;
    return result;
}

}  // namespace fairlist
