// The search frontier: a binary heap of node indices ordered by a policy-defined priority.
//
// Every policy of the paper (and of CORELS) is a priority: breadth-first is "smallest depth
// first, then first in", depth-first is "largest depth first, then last in", best-first orders
// by lower bound, curiosity or objective.  Ties are broken by insertion order, or by a seeded
// hash of it when a seed is given, so the search is deterministic for a given input and seed.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace fairlist {

enum class Policy : int {
    BFS = 0,                  // breadth-first (CORELS order)
    BFS_OBJECTIVE_AWARE = 1,  // breadth-first; within a depth, higher objective first (paper)
    LOWER_BOUND = 2,          // best-first by lower bound
    CURIOSITY = 3,            // best-first by lower bound / normalized support (CORELS)
    DFS = 4,                  // depth-first
    OBJECTIVE = 5,            // best-first by objective
};

struct QueueEntry {
    double key;          // priority: smaller pops first
    std::uint32_t seq;   // insertion number (wraps after 2^32 pushes): the tie-break
    std::uint32_t node;  // trie index
};
static_assert(sizeof(QueueEntry) == 16, "QueueEntry must stay compact");

class NodeQueue {
 public:
    // lifo: on full ties pop the newest node first (depth-first); seed != 0 replaces insertion
    // order by a seeded hash of it as the last tie-break.
    NodeQueue(bool lifo, std::uint64_t seed) : after_{lifo, seed} {}

    void push(double key, std::uint32_t node) {
        heap_.push_back(QueueEntry{key, seq_++, node});
        std::push_heap(heap_.begin(), heap_.end(), after_);
        if (heap_.size() > peak_) peak_ = heap_.size();
    }
    QueueEntry pop() {
        std::pop_heap(heap_.begin(), heap_.end(), after_);
        QueueEntry e = heap_.back();
        heap_.pop_back();
        return e;
    }
    bool empty() const { return heap_.empty(); }
    std::size_t size() const { return heap_.size(); }
    std::size_t peak() const { return peak_; }
    std::size_t bytes() const { return heap_.capacity() * sizeof(QueueEntry); }
    const std::vector<QueueEntry>& entries() const { return heap_; }

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
    std::vector<QueueEntry> heap_;
    std::size_t peak_ = 0;
    std::uint32_t seq_ = 0;
    After after_;
};

}  // namespace fairlist
