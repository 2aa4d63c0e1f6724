#include "fairlist/trie.hpp"

#include <stdexcept>

namespace fairlist {

std::uint32_t Trie::add(std::uint32_t parent, std::uint32_t rule, std::int32_t lb_errors) {
    std::uint32_t i;
    if (free_head_ != kNone) {
        i = free_head_;
        free_head_ = (*this)[i].parent;
    } else {
        if (slots_ >= kNone) throw std::length_error("trie: more than 2^32 - 1 nodes");
        if ((slots_ >> kBlockBits) >= blocks_.size()) {
            blocks_.emplace_back(new Node[std::size_t{1} << kBlockBits]);
        }
        i = static_cast<std::uint32_t>(slots_++);
    }
    Node& node = (*this)[i];
    node.parent = parent;
    node.rule = rule;
    node.lb_errors = lb_errors;
    node.n_children = 0;
    node.flags = 0;
    if (parent != kNone) ++(*this)[parent].n_children;
    if (++live_ > peak_live_) peak_live_ = live_;
    return i;
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
