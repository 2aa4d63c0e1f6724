// The prefix-permutation map, made safe under a fairness constraint (DESIGN.md §3).
//
// Two prefixes made of the same set of antecedents capture the same samples.  Without a
// constraint their completions are the same, so only the one with fewer errors on the captured
// samples needs to be kept (CORELS).  With a constraint that is wrong: their completions differ
// in fairness, because the two prefixes predict differently on the captured samples.  Keying
// the map by the antecedent set *and* the numbers of positive predictions on the captured
// samples per (group, label) makes it exact again: equal keys mean equal captured sets and equal
// confusion counts on them, hence the same set of completions with the same objectives and the
// same unfairness.  Sharper still, only the counts the metric depends on are needed (the
// positives per group for statistical parity, the false positives per group for predictive
// equality, the true positives per group for equal opportunity; all four for the others): then
// completions have the same unfairness and the same errors on the uncaptured samples, and the
// prefix with fewer errors on the captured samples dominates.
//
// Open addressing with linear probing over a flat array of 32-bit words; an entry is
// [hash low, hash high, node, payload...].  The caller verifies a candidate (same antecedent
// set, same payload) with a predicate, so the map is exact whatever the hash collisions.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace fairlist {

class PermutationMap {
 public:
    static constexpr std::uint32_t kEmpty = 0xffffffffU;
    static constexpr std::size_t kMaxPayload = 5;
    static constexpr std::size_t kMaxStride = 3 + kMaxPayload;

    // payload_words (at most kMaxPayload): 32-bit words stored with each entry.
    explicit PermutationMap(std::size_t payload_words)
        : stride_(3 + (payload_words < kMaxPayload ? payload_words : kMaxPayload)),
          table_(stride_ * 1024, kEmpty),
          mask_(1023) {}

    // The entry with this hash that same(node, payload) accepts: pointer to its node word (the
    // payload follows it), or nullptr.
    template <class Same>
    std::uint32_t* find(std::uint64_t hash, Same&& same) {
        const auto lo = static_cast<std::uint32_t>(hash), hi = static_cast<std::uint32_t>(hash >> 32);
        for (std::size_t i = hash & mask_;; i = (i + 1) & mask_) {
            std::uint32_t* e = &table_[i * stride_];
            if (e[2] == kEmpty) return nullptr;
            if (e[0] == lo && e[1] == hi && same(e[2], e + 3)) return e + 2;
        }
    }

    void insert(std::uint64_t hash, std::uint32_t node, const std::uint32_t* payload);

    std::size_t size() const { return size_; }
    std::size_t bytes() const { return table_.capacity() * sizeof(std::uint32_t); }

 private:
    std::size_t stride_;
    std::vector<std::uint32_t> table_;
    std::size_t mask_;
    std::size_t size_ = 0;

    void place(const std::uint32_t* entry);
};

}  // namespace fairlist
