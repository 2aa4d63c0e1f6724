// The parallel search (Config::n_jobs > 1; docs/design.md §8): several workers, each an Expander
// with its own scratch, class bound, terminal solver, statistics and stop check, share one
// frontier and one incumbent.
//
// Sharing.  The frontier (trie, queue, queued bounds) is one structure under one mutex
// (FrontierLock): a worker holds it to pop a node and load its path, and to mark a node done,
// linking the children it queues; the counting and the bounds of the children, nearly all the
// work, run without it.  The permutation map is shared, so its argument holds globally: its 64
// shards have a lock each (Frontier::share_map), and a worker judges the children it holds
// against the map outside the frontier's lock, each insert-or-compare atomic under its shard's
// lock (Frontier::map_child; it writes each child into a trie slot of its own first, so that
// others can walk its path), the children it finishes by counting too; the finished-tie cut
// reads another node's flags under the frontier's lock, taken inside the shard's (the one
// order in which the two locks are ever nested).  Moving the map out of the frontier's lock cut the share of the workers'
// time spent holding it from 17 % to under 1 % breadth-first on COMPAS (stats
// frontier_lock_seconds; benchmarks/bench_threads.py).  The incumbent is lock-free to read
// (incumbent.hpp); a stale read prunes less.  max_nodes, the memory limit, the time limit and the gap are checked under
// the lock before each pop, on the shared trie; the stop flag and the clock are polled inside
// nodes by each worker, and the first worker to stop halts the others (StopCheck::set_halt),
// each keeping the bound of the node it leaves unfinished.
//
// Lower bound.  A popped node's bound stays tracked until its worker is done with it, so the
// least tracked bound (gap limit, progress) and, at a stop, the queued bounds with those of the
// cut nodes, bound every list not yet evaluated.
//
// Exactness and the answer.  Every bound, cut and dominance argument of the serial search holds
// whatever the order of the nodes, so a completed parallel search certifies the optimum.  With
// several workers ties are decided canonically (Config::canonical_ties): a tie is pruned only
// when none of its lists can come first, the map keeps the first of two tying prefixes, and the
// incumbent keeps the first of the optimal lists, so the certified list is the canonical first
// of all optimal lists: the same for every n_jobs > 1 and for the serial search with
// canonical_ties.  A search stopped by a limit returns the best list it met, which depends on
// the timing.
#include <algorithm>
#include <mutex>
#include <thread>

#include "fairlist/context.hpp"
#include "fairlist/expander.hpp"
#include "fairlist/frontier.hpp"
#include "fairlist/incumbent.hpp"
#include "fairlist/search.hpp"

namespace fairlist {

void Search::start_workers() {
    if (ctx_->n_jobs() <= 1) return;
    lock_ = std::make_unique<FrontierLock>();
    if (ctx_->config().use_permutation_map) frontier_->share_map();
    worker_->set_shared(lock_.get());
    worker_->stop_check().set_halt(&halt_);
    for (std::size_t w = 1; w < ctx_->n_jobs(); ++w) {
        auto helper = std::make_unique<Expander>(*ctx_, *frontier_, *incumbent_, &stop_);
        helper->start(start_);
        helper->set_shared(lock_.get());
        helper->stop_check().set_halt(&halt_);
        helpers_.push_back(std::move(helper));
    }
}

void Search::halt(StopReason reason) {
    if (halt_reason_ == StopReason::COMPLETED) halt_reason_ = reason;
    halt_.store(true, std::memory_order_relaxed);
    lock_->wake.notify_all();
}

StopReason Search::search_tree_parallel() {
    assert_no_workers();  // before the workers start and after they join; they lock (worker_loop)
    push_root();
    halt_reason_ = StopReason::COMPLETED;
    busy_ = 0;
    pops_ = 0;
    std::vector<std::thread> threads;
    threads.reserve(helpers_.size());
    for (auto& helper : helpers_) {
        Expander* w = helper.get();
        threads.emplace_back([this, w] { worker_loop(*w); });
    }
    worker_loop(*worker_);
    for (std::thread& t : threads) t.join();
    incumbent_->reclaim();  // the workers have joined: the replaced lists have no reader
    publish_progress(0, shared_expanded_, shared_children_);
    end_phase();
    return halt_reason_;
}

void Search::worker_loop(Expander& w) {
    Stats& stats = w.stats();
    w.clear_slots();  // this phase's trie is new
    FrontierHold lock(*lock_, &stats);
    std::int64_t children_seen = stats.children_evaluated;
    for (;;) {
        while (frontier_->empty() && busy_ > 0 && halt_reason_ == StopReason::COMPLETED) {
            lock.wait();
        }
        if (halt_reason_ != StopReason::COMPLETED) break;
        if (frontier_->empty()) break;  // and no worker busy: done
        const StopReason limit = limit_reached(++pops_);
        if (limit != StopReason::COMPLETED) {
            halt(limit);
            break;
        }
        const std::uint32_t index = frontier_->pop();
        const Node& node = frontier_->node(index);
        const std::size_t depth = frontier_->depth(index);
        const double bound = ctx_->queued_bound(node.lb_errors, depth);
        if ((node.flags & Node::kSuperseded) || !w.worth_expanding(index, depth)) {
            ++stats.pruned_on_pop;
            frontier_->untrack(bound);
            frontier_->retire(index);
            continue;
        }
        // Its bound stays tracked while it is expanded: the node's lists are not all evaluated.
        const bool count = w.finishes_by_counting(depth);
        w.load(index);
        ++busy_;
        lock.release();
        if (count) {
            w.finish_loaded();
        } else {
            w.expand_loaded();
        }
        lock.acquire();
        --busy_;
        frontier_->untrack(bound);
        shared_children_ += stats.children_evaluated - children_seen;
        children_seen = stats.children_evaluated;
        if (w.stop_check().stopped()) {  // cut short: its bound stays in the lower bound
            cut_bound_ = std::min(cut_bound_, bound);
            halt(w.stop_check().reason());
            break;
        }
        w.mark_done();
        ++stats.nodes_expanded;
        if ((++shared_expanded_ & 15) == 0) {
            publish_progress(depth, shared_expanded_, shared_children_);
        }
        if (frontier_->empty() && busy_ == 0) lock_->wake.notify_all();  // done
    }
    lock_->wake.notify_all();
}

}  // namespace fairlist
