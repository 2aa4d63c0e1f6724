#include "fairlist/permutation_map.hpp"

#include <algorithm>
#include <stdexcept>

namespace fairlist {

namespace {
constexpr std::size_t kFirstCapacity = 64;  // slots per shard at the start
}

PermutationMap::PermutationMap(int n_key, bool wide, bool store_errors)
    : n_key_(n_key), width_(wide ? 2 : 1), store_errors_(store_errors), stride_(0),
      shards_(std::size_t{1} << kShardBits) {
    if (n_key < 0 || n_key > kMaxKey) throw std::invalid_argument("permutation map: bad key size");
    stride_ = 4 + static_cast<std::size_t>((n_key + (store_errors_ ? 1 : 0)) * width_);
    for (Shard& t : shards_) resize(t, kFirstCapacity);
}

void PermutationMap::replace(Slot s, std::uint32_t node, std::uint32_t errors) {
    std::uint16_t* e = &shards_[s.shard].cells[s.index * stride_];
    set_pair(e, node);
    if (store_errors_) set(e, n_key_, errors);
}

void PermutationMap::place(Shard& t, const std::uint16_t* entry) {
    for (std::size_t i = t.home(pair_at(entry + 2));; i = i + 1 == t.capacity ? 0 : i + 1) {
        std::uint16_t* e = &t.cells[i * stride_];
        if (pair_at(e) == kEmpty) {
            std::copy(entry, entry + stride_, e);
            return;
        }
    }
}

void PermutationMap::resize(Shard& t, std::size_t capacity) {
    if (capacity >= (std::size_t{1} << kIndexBits)) {
        throw std::length_error("permutation map: a shard needs more than 2^26 slots");
    }
    std::vector<std::uint16_t> old;
    old.swap(t.cells);
    t.cells.assign(capacity * stride_, 0xffffU);
    t.capacity = capacity;
    bytes_.fetch_add((t.cells.size() - old.size()) * sizeof(std::uint16_t),
                     std::memory_order_relaxed);
    for (std::size_t k = 0; k + stride_ <= old.size(); k += stride_) {
        if (pair_at(&old[k]) != kEmpty) place(t, &old[k]);
    }
}

void PermutationMap::insert(std::uint64_t hash, std::uint32_t node, std::uint32_t errors,
                            const std::uint32_t* key) {
    const auto h = static_cast<std::uint32_t>(hash >> 32);
    Shard& t = shards_[h >> kIndexBits];
    if ((t.size + 1) * 4 > t.capacity * 3) resize(t, t.capacity + t.capacity / 2);
    std::uint16_t entry[4 + 2 * (1 + kMaxKey)];
    set_pair(entry, node);
    set_pair(entry + 2, h);
    for (int k = 0; k < n_key_; ++k) set(entry, k, key[k]);
    if (store_errors_) set(entry, n_key_, errors);
    place(t, entry);
    ++t.size;
    size_.fetch_add(1, std::memory_order_relaxed);
}

}  // namespace fairlist
