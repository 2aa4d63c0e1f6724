// The parallel search (Config::n_jobs > 1; docs/design.md §8): several workers, each an Expander
// with its own scratch, class bound, terminal solver, statistics and stop check, share one
// frontier and one incumbent.  Each worker runs the serial search's node loop
// (Search::node_loop<true>, search.cpp, which lists what the lock changes in it); this file
// starts the workers and joins them.
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
// several workers ties are decided canonically (SearchContext::canonical_ties): a tie is pruned
// only when none of its lists can come first, the map keeps the first of two tying prefixes, and
// the incumbent keeps the first of the optimal lists, so the certified list is the canonical
// first of all optimal lists: the same for every n_jobs > 1 and for the serial search with
// Diagnostics::canonical_ties.  A search stopped by a limit returns the best list it met, which
// depends on the timing.
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

void Search::run_workers() {
    std::vector<std::thread> threads;
    threads.reserve(helpers_.size());
    for (auto& helper : helpers_) {
        Expander* w = helper.get();
        threads.emplace_back([this, w] { node_loop<true>(*w); });
    }
    node_loop<true>(*worker_);
    for (std::thread& t : threads) t.join();
    incumbent_->reclaim();  // the workers have joined: the replaced lists have no reader
}

}  // namespace fairlist
