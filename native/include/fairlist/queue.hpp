// The search frontier: a binary heap of node indices ordered by a policy-defined priority.
//
// Every policy of the paper (and of CORELS) is a priority: breadth-first is "smallest depth
// first, then first in", depth-first is "largest depth first, then last in", best-first orders
// by lower bound, curiosity or objective.  Ties are broken by insertion order, or by a seeded
// hash of it when a seed is given, so the search is deterministic for a given input and seed.
//
// Breadth-first and depth-first without a seed need no priority at all: a node's depth is one
// more than its parent's, so a first-in-first-out (or last-in-first-out) sequence of node
// indices pops in exactly the heap's order.  They use a std::deque of 4-byte indices (blocks, no
// reallocation copies) instead of the 16-byte heap entries; with the trie holding millions of
// queued leaves, that is a quarter of the search's memory.  Not thread-safe: the parallel
// search keeps it under the frontier lock (Frontier::queue_, GUARDED_BY(frontier_lock);
// docs/design.md §8.3).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <vector>

namespace fairlist {

enum class Policy : int {
    BFS = 0,                  // breadth-first (CORELS order)
    BFS_OBJECTIVE_AWARE = 1,  // breadth-first; within a depth, higher objective first (paper)
    LOWER_BOUND = 2,          // best-first by lower bound
    CURIOSITY = 3,            // best-first by lower bound / normalized support (CORELS)
    DFS = 4,                  // depth-first
    OBJECTIVE = 5,            // best-first by objective
    BFS_OBJECTIVE_AWARE_LOWEST = 6,  // as BFS_OBJECTIVE_AWARE, lower objective first (ref. code)
};

struct QueueEntry {
    double key;          // priority: smaller pops first
    std::uint32_t seq;   // insertion number (wraps after 2^32 pushes): the tie-break
    std::uint32_t node;  // trie index
};
static_assert(sizeof(QueueEntry) == 16, "QueueEntry must stay compact");

class NodeQueue {
 public:
    enum class Order { HEAP, FIFO, LIFO };

    // order: HEAP pops the smallest key (ties: insertion order, newest first when lifo, or a
    // seeded hash of it when seed != 0); FIFO and LIFO ignore the keys.
    NodeQueue(Order order, bool lifo, std::uint64_t seed) : order_(order), after_{lifo, seed} {}

    void push(double key, std::uint32_t node) {
        if (order_ == Order::HEAP) {
            heap_.push_back(QueueEntry{key, seq_++, node});
            std::push_heap(heap_.begin(), heap_.end(), after_);
        } else {
            seq_list_.push_back(node);
        }
        if (size() > peak_) peak_ = size();
    }
    // The node that pops first; the queue must not be empty.
    std::uint32_t pop() {
        std::uint32_t node;
        switch (order_) {
            case Order::HEAP:
                std::pop_heap(heap_.begin(), heap_.end(), after_);
                node = heap_.back().node;
                heap_.pop_back();
                return node;
            case Order::FIFO:
                node = seq_list_.front();
                seq_list_.pop_front();
                return node;
            case Order::LIFO:
                node = seq_list_.back();
                seq_list_.pop_back();
                return node;
        }
        return 0;
    }
    bool empty() const { return size() == 0; }
    std::size_t size() const { return order_ == Order::HEAP ? heap_.size() : seq_list_.size(); }
    std::size_t peak() const { return peak_; }
    std::size_t bytes() const {
        return heap_.capacity() * sizeof(QueueEntry) + seq_list_.size() * sizeof(std::uint32_t);
    }
    // Calls f(node) for every queued node, in no particular order.
    template <class F>
    void for_each(F&& f) const {
        for (const QueueEntry& e : heap_) f(e.node);
        for (const std::uint32_t node : seq_list_) f(node);
    }

 private:
    // "a pops after b": the heap keeps the entry that pops first at the front.
    struct After {
        bool lifo;
        std::uint64_t seed;

        std::uint64_t tie(std::uint32_t seq) const {
            if (seed == 0) return lifo ? ~std::uint64_t{seq} : seq;
            std::uint64_t z = seq + seed * 0x9e3779b97f4a7c15ULL;
            z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
            z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
            return z ^ (z >> 31);
        }
        bool operator()(const QueueEntry& a, const QueueEntry& b) const {
            if (a.key != b.key) return a.key > b.key;
            return tie(a.seq) > tie(b.seq);
        }
    };
    Order order_;
    std::vector<QueueEntry> heap_;
    std::deque<std::uint32_t> seq_list_;
    std::size_t peak_ = 0;
    std::uint32_t seq_ = 0;
    After after_;
};

}  // namespace fairlist
