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
#include <utility>

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

    static constexpr std::size_t kMaxBlocks = std::size_t{1} << (32 - kBlockBits);

    // reuse_slots: whether retired nodes' slots may be handed out again.
    //
    // The block table never moves and no field operator[] reads is written after a node of
    // its block exists.  The parallel search reads nodes (parent, rule, flags) without the
    // frontier's lock (walking a path found in the permutation map, under a map shard's lock
    // only) while another worker, holding the frontier's lock, takes fresh slots (reserve) and
    // may add a block.  The table was a std::vector reserved whole: its buffer did not move,
    // but emplace_back wrote its end pointer, which an assertion build's operator[] reads for
    // its bounds check (-D_GLIBCXX_ASSERTIONS, on by default in Meson's debug builds): a data
    // race (ThreadSanitizer, issue 37).  Now the table is an array of kMaxBlocks pointers
    // allocated here (512 KiB of address space: new[] of pointers writes nothing, so only the
    // pages of the blocks in use are ever touched), and entry b is written once, by the
    // reserve that creates block b, before any index in block b is handed out.  Such an index
    // reaches another thread only through a lock released after that reserve (the frontier's,
    // or a map shard's taken by the worker that wrote the node after reserving its slot), so
    // the write happens before every read of entry b; later reserves write other entries and
    // n_blocks_ (read by bytes() under the frontier's lock, or once the workers joined).
    explicit Trie(bool reuse_slots)
        : blocks_(new Node*[kMaxBlocks]), reuse_(reuse_slots) {}
    ~Trie() { release(); }
    Trie(const Trie&) = delete;
    Trie& operator=(const Trie&) = delete;
    Trie(Trie&& other) noexcept { *this = std::move(other); }
    Trie& operator=(Trie&& other) noexcept {
        if (this != &other) {
            release();
            blocks_ = std::move(other.blocks_);
            n_blocks_ = other.n_blocks_;
            slots_ = other.slots_;
            live_ = other.live_;
            peak_live_ = other.peak_live_;
            free_head_ = other.free_head_;
            reuse_ = other.reuse_;
            other.n_blocks_ = other.slots_ = other.live_ = other.peak_live_ = 0;
            other.free_head_ = kNone;
        }
        return *this;
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
    std::size_t bytes() const { return n_blocks_ * (sizeof(Node) << kBlockBits); }

 private:
    // Frees the blocks in use (the table itself goes with blocks_).
    void release() {
        for (std::size_t b = 0; b < n_blocks_; ++b) delete[] blocks_[b];
        n_blocks_ = 0;
    }

    std::unique_ptr<Node*[]> blocks_;  // kMaxBlocks entries; the first n_blocks_ are blocks
    std::size_t n_blocks_ = 0;         // blocks allocated (written under the frontier's lock)
    std::size_t slots_ = 0;  // slots handed out so far (including retired ones)
    std::size_t live_ = 0, peak_live_ = 0;
    std::uint32_t free_head_ = kNone;  // reusable slots, linked through Node::parent
    bool reuse_ = false;
};

}  // namespace fairlist
