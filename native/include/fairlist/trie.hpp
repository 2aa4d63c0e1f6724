// The prefix trie: one compact node per prefix (a sequence of (antecedent, prediction) rules).
//
// A node stores only what the search cannot recompute cheaply: its parent, its own rule, the
// integer part of its lower bound, and how many live children it has (16 bytes).  The samples
// a prefix captures and its confusion counts are recomputed from the path when the node is
// expanded (a few AND-NOT / popcount passes), so no bit vector is stored per node; its depth is
// the length of that path (depth()), a walk of a few steps, cheaper than 2 bytes a node.
//
// Nodes live in fixed-size blocks (no reallocation copies, no allocation per child).  A node is
// "live" while it is queued or has live descendants; the live count is the trie size that the
// node limit caps, as in CORELS.  Retired slots are reused unless the caller keeps references to
// them elsewhere (the permutation map does; then slots are never reused).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

namespace fairlist {

struct Node {
    std::uint32_t parent;          // index of the parent node (Trie::kNone for the root)
    std::uint32_t rule;            // antecedent << 1 | prediction (unused for the root)
    std::int32_t lb_errors;        // errors every completion of the prefix must make (lower bound)
    std::uint32_t n_children : 29; // live children (at most 2 per antecedent: < 2^29)
    std::uint32_t flags : 3;       // Node::kExpanded | kRetired | kSuperseded

    static constexpr std::uint8_t kExpanded = 1;    // children were generated
    static constexpr std::uint8_t kRetired = 2;     // no longer in the trie
    static constexpr std::uint8_t kSuperseded = 4;  // a better equivalent prefix replaced it

    std::uint32_t antecedent() const { return rule >> 1; }
};
static_assert(sizeof(Node) == 16, "Node must stay compact");

class Trie {
 public:
    static constexpr std::uint32_t kNone = 0xffffffffU;
    static constexpr std::size_t kBlockBits = 16;  // 65,536 nodes (1 MiB) per block

    // reuse_slots: whether retired nodes' slots may be handed out again.  The table of blocks
    // is reserved whole (64 Ki pointers, address space only) so that it never moves: the
    // parallel search reads nodes (parent, rule) while another worker adds a block.
    explicit Trie(bool reuse_slots) : reuse_(reuse_slots) {
        blocks_.reserve(std::size_t{1} << (32 - kBlockBits));
    }

    // Adds a node below parent (kNone: the root); returns its index.
    std::uint32_t add(std::uint32_t parent, std::uint32_t rule, std::int32_t lb_errors);

    // The parallel search's way to add a node in two steps (only without slot reuse): a worker
    // takes `count` fresh consecutive slots at once (reserve, under the frontier's lock), writes
    // a node into one of its own slots without any lock (init: the node is not in the trie
    // yet, only its parent and rule may be read once it is published, e.g. through the
    // permutation map), and adds it to the trie later, under the lock (link).
    std::uint32_t reserve(std::size_t count);
    void init(std::uint32_t i, std::uint32_t parent, std::uint32_t rule, std::int32_t lb_errors) {
        Node& node = (*this)[i];
        node.parent = parent;
        node.rule = rule;
        node.lb_errors = lb_errors;
        node.n_children = 0;
        node.flags = 0;
    }
    void link(std::uint32_t i) {
        const std::uint32_t parent = (*this)[i].parent;
        if (parent != kNone) ++(*this)[parent].n_children;
        if (++live_ > peak_live_) peak_live_ = live_;
    }

    Node& operator[](std::uint32_t i) {
        return blocks_[i >> kBlockBits][i & ((1U << kBlockBits) - 1)];
    }
    const Node& operator[](std::uint32_t i) const {
        return blocks_[i >> kBlockBits][i & ((1U << kBlockBits) - 1)];
    }

    // Number of rules in the prefix of a live (or superseded) node.
    std::size_t depth(std::uint32_t i) const {
        std::size_t d = 0;
        for (; (*this)[i].parent != kNone; i = (*this)[i].parent) ++d;
        return d;
    }

    // Removes a node that will not be expanded (again), then every ancestor that was expanded
    // and is left without live children.
    void retire(std::uint32_t i);

    std::size_t live() const { return live_; }
    std::size_t peak_live() const { return peak_live_; }
    std::size_t bytes() const { return blocks_.size() * (sizeof(Node) << kBlockBits); }

 private:
    std::vector<std::unique_ptr<Node[]>> blocks_;
    std::size_t slots_ = 0;  // slots handed out so far (including retired ones)
    std::size_t live_ = 0, peak_live_ = 0;
    std::uint32_t free_head_ = kNone;  // reusable slots, linked through Node::parent
    bool reuse_;
};

}  // namespace fairlist
