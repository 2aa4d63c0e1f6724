#include "fairlist/trie.hpp"

#include <stdexcept>

namespace fairlist {

std::uint32_t Trie::add(std::uint32_t parent, std::uint32_t rule, std::int32_t lb_errors) {
    std::uint32_t i;
    if (free_head_ != kNone) {
        i = free_head_;
        free_head_ = (*this)[i].parent;
    } else {
        i = reserve(1);
    }
    init(i, parent, rule, lb_errors);
    link(i);
    return i;
}

std::uint32_t Trie::reserve(std::size_t count) {
    if (slots_ + count > kNone) throw std::length_error("trie: more than 2^32 - 1 nodes");
    const std::size_t first = slots_;
    slots_ += count;
    // slots_ <= 2^32 - 1, so the last block index is below kMaxBlocks.  Entry n_blocks_ is
    // written before any of its indices is returned (see the constructor).
    while (((slots_ - 1) >> kBlockBits) >= n_blocks_) {
        blocks_[n_blocks_] = new Node[std::size_t{1} << kBlockBits];
        ++n_blocks_;
    }
    return static_cast<std::uint32_t>(first);
}

void Trie::retire(std::uint32_t i) {
    while (i != kNone) {
        Node& node = (*this)[i];
        const std::uint32_t parent = node.parent;
        node.flags |= Node::kRetired;
        --live_;
        if (reuse_) {
            node.parent = free_head_;
            free_head_ = i;
        }
        if (parent == kNone) return;
        Node& p = (*this)[parent];
        if (--p.n_children != 0 || !(p.flags & Node::kExpanded)) return;
        i = parent;
    }
}

}  // namespace fairlist
