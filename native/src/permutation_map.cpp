#include "fairlist/permutation_map.hpp"

#include <algorithm>

namespace fairlist {

void PermutationMap::place(const std::uint32_t* entry) {
    const std::uint64_t hash = entry[0] | (std::uint64_t{entry[1]} << 32);
    for (std::size_t i = hash & mask_;; i = (i + 1) & mask_) {
        std::uint32_t* e = &table_[i * stride_];
        if (e[2] == kEmpty) {
            std::copy(entry, entry + stride_, e);
            return;
        }
    }
}

void PermutationMap::insert(std::uint64_t hash, std::uint32_t node, const std::uint32_t* payload) {
    if ((size_ + 1) * 10 > (mask_ + 1) * 7) {  // keep the load factor under 0.7
        std::vector<std::uint32_t> old;
        old.swap(table_);
        const std::size_t capacity = (mask_ + 1) * 2;
        table_.assign(capacity * stride_, kEmpty);
        mask_ = capacity - 1;
        for (std::size_t k = 0; k + stride_ <= old.size(); k += stride_) {
            if (old[k + 2] != kEmpty) place(&old[k]);
        }
    }
    std::uint32_t entry[kMaxStride];
    entry[0] = static_cast<std::uint32_t>(hash);
    entry[1] = static_cast<std::uint32_t>(hash >> 32);
    entry[2] = node;
    std::copy(payload, payload + (stride_ - 3), entry + 3);
    place(entry);
    ++size_;
}

}  // namespace fairlist
