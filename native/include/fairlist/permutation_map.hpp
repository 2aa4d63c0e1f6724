// The prefix-permutation map, made safe under a fairness constraint (docs/design.md §3.5).
//
// Two prefixes made of the same set of antecedents capture the same samples.  Without a
// constraint their completions are the same, so only the one with fewer errors on the captured
// samples needs to be kept (CORELS).  With a constraint that is wrong: their completions differ
// in fairness, because the two prefixes predict differently on the captured samples.  Keying
// the map by the captured samples *and* the numbers of positive predictions on them per
// (group, label) makes it exact again: equal keys mean equal confusion counts on the captured
// samples, hence completions with the same unfairness.  Sharper still, only the counts the metric
// depends on are needed (the positives per group for statistical parity, the false positives per
// group for predictive equality, the true positives per group for equal opportunity; both of
// those per group for the others): completions then have the same unfairness and the same errors on the
// uncaptured samples.
//
// The key is the captured *samples*, not the antecedent set (CORELS' key): prefixes with
// different antecedents may capture the same samples (with conjunctions and negations among the
// antecedents, (A and B, A) captures what (A) does).  Their useful completions are the same: a
// rule whose antecedent is in one prefix captures nothing new after the other, and rules that
// capture nothing are never added.  So of two prefixes with equal keys, one with no more errors
// on the captured samples and no more rules makes every completion at least as good; the other
// is dropped.  When neither does (fewer errors but more rules), both are kept.  Completeness: if
// an optimal list's prefix P r is dropped for Q, then Q followed by the rest of the list is also
// optimal (and no longer, so within any length cap): an optimal list whose remaining suffix is
// shorter starts at an inserted prefix, and by induction on that length an optimal list is
// evaluated.  The captured samples are stored as the uncaptured classes of
// identical samples (an antecedent captures a class whole), a few words.
//
// Layout.  Open addressing with linear probing over flat arrays of 16-bit cells; an entry is
// [node (2 cells), hash (2 cells), key counts..., errors].  The captured set is not stored: the
// entry's trie node is its prefix, and the caller checks a candidate's set by walking that path
// (the trie keeps every node a map entry names).  The 32 stored hash bits choose the slot (so the
// table can grow without the sets) and make that walk rare on a mismatch; the counts are compared
// exactly, so the map is exact whatever the hash collisions.  When every count fits in 16 bits
// (a total weight below 65,536: the number of samples without weights) a count takes one cell,
// otherwise two (every count is a sum of integer weights, at most 2^31).  The key holds the counts
// the metric depends on in every group (k of them, or 2k); with the true and false positives of
// every group (equalized odds, predictive parity, conditional use accuracy) the errors are a
// function of the key and the captured set, so they are not stored and an equal key always
// dominates.
//
// The table is cut into 64 shards chosen by the hash's top bits, each grown by half when its load
// passes 3/4: growing copies one shard at a time (no moment with the whole old and new tables
// alive) and the load stays between 1/2 and 3/4.  On COMPAS under statistical parity an entry is
// 14 bytes, against 24 with 32-bit cells and a 64-bit hash, and the peak memory of the map fell
// from about 200 to about 100 MB at 4 million prefixes: it was the largest of the search's
// structures.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include "fairlist/counts.hpp"
#include "fairlist/portable.hpp"

namespace fairlist {

class PermutationMap {
 public:
    static constexpr std::uint32_t kEmpty = 0xffffffffU;
    static constexpr int kMaxKey = 2 * kMaxGroups;  // a true and a false positive count per group

    // n_key: key counts per entry (at most kMaxKey); wide: counts (and errors) may reach 2^16;
    // store_errors: false when the key counts determine the errors on the captured samples.
    PermutationMap(int n_key, bool wide, bool store_errors);

    // The entry with this hash whose key counts equal key[0..n_key) and whose node same_set
    // accepts, or an invalid Slot.
    struct Slot {
        std::uint32_t shard = 0;
        std::uint32_t index = kEmpty;
        bool found() const { return index != kEmpty; }
    };
    template <class SameSet>
    Slot find(std::uint64_t hash, const std::uint32_t* key, SameSet&& same_set) const {
        const auto h = static_cast<std::uint32_t>(hash >> 32);
        const Shard& t = shards_[h >> kIndexBits];
        for (std::size_t i = t.home(h);; i = i + 1 == t.capacity ? 0 : i + 1) {
            const std::uint16_t* e = &t.cells[i * stride_];
            const std::uint32_t n = pair_at(e);
            if (n == kEmpty) return Slot{};
            if (pair_at(e + 2) == h && key_equal(e, key) && same_set(n)) {
                return Slot{h >> kIndexBits, static_cast<std::uint32_t>(i)};
            }
        }
    }

    // Asks the processor to fetch the home slot of this hash (find() on it follows soon).
    void prefetch(std::uint64_t hash) const {
        const auto h = static_cast<std::uint32_t>(hash >> 32);
        const Shard& t = shards_[h >> kIndexBits];
        portable::prefetch(&t.cells[t.home(h) * stride_]);
    }

    std::uint32_t node(Slot s) const { return pair_at(cell(s)); }
    // Errors on the captured samples of the entry's prefix (0 when they are not stored, i.e.
    // when the key determines them: then an equal key always dominates).
    std::uint32_t errors(Slot s) const { return store_errors_ ? get(cell(s), n_key_) : 0; }
    bool stores_errors() const { return store_errors_; }
    // Points an existing entry at a better prefix with the same key.
    void replace(Slot s, std::uint32_t node, std::uint32_t errors);

    void insert(std::uint64_t hash, std::uint32_t node, std::uint32_t errors, const std::uint32_t* key);

    std::size_t size() const { return size_.load(std::memory_order_relaxed); }
    // Atomic: the parallel search reads it under the frontier's lock while a shard grows.
    std::size_t bytes() const { return bytes_.load(std::memory_order_relaxed); }

    // The shards, and the one a hash falls in: the parallel search locks one shard at a time
    // (Frontier::map_child); find, insert and replace touch only the hash's shard.
    static constexpr int kShardBits = 6;
    static constexpr std::size_t kShards = std::size_t{1} << kShardBits;
    static std::size_t shard_of(std::uint64_t hash) {
        return static_cast<std::uint32_t>(hash >> 32) >> kIndexBits;
    }

    PermutationMap(PermutationMap&& other) noexcept { *this = std::move(other); }
    PermutationMap& operator=(PermutationMap&& other) noexcept {
        n_key_ = other.n_key_;
        width_ = other.width_;
        store_errors_ = other.store_errors_;
        stride_ = other.stride_;
        shards_ = std::move(other.shards_);
        size_.store(other.size(), std::memory_order_relaxed);
        bytes_.store(other.bytes(), std::memory_order_relaxed);
        return *this;
    }

 private:
    static constexpr int kIndexBits = 32 - kShardBits;

    struct Shard {
        std::vector<std::uint16_t> cells;
        std::size_t capacity = 0;  // slots
        std::size_t size = 0;
        // The home slot of a 32-bit hash: its low kIndexBits bits scaled to the capacity.
        std::size_t home(std::uint32_t h) const {
            return static_cast<std::size_t>(
                (std::uint64_t{h & ((1U << kIndexBits) - 1)} * capacity) >> kIndexBits);
        }
    };

    int n_key_;
    int width_;          // cells per count: 1 or 2
    bool store_errors_;  // false when the key counts determine the errors
    std::size_t stride_; // cells per entry
    std::vector<Shard> shards_;
    std::atomic<std::size_t> size_{0}, bytes_{0};

    const std::uint16_t* cell(Slot s) const { return &shards_[s.shard].cells[s.index * stride_]; }
    static std::uint32_t pair_at(const std::uint16_t* c) { return c[0] | (std::uint32_t{c[1]} << 16); }
    static void set_pair(std::uint16_t* c, std::uint32_t v) {
        c[0] = static_cast<std::uint16_t>(v);
        c[1] = static_cast<std::uint16_t>(v >> 16);
    }
    // Value k of an entry: 0..n_key-1 the key counts, n_key the errors.
    std::uint32_t get(const std::uint16_t* e, int k) const {
        const std::uint16_t* c = e + 4 + k * width_;
        return width_ == 1 ? c[0] : pair_at(c);
    }
    void set(std::uint16_t* e, int k, std::uint32_t v) const {
        std::uint16_t* c = e + 4 + k * width_;
        c[0] = static_cast<std::uint16_t>(v);
        if (width_ == 2) c[1] = static_cast<std::uint16_t>(v >> 16);
    }
    bool key_equal(const std::uint16_t* e, const std::uint32_t* key) const {
        for (int k = 0; k < n_key_; ++k) {
            if (get(e, k) != key[k]) return false;
        }
        return true;
    }
    void resize(Shard& t, std::size_t capacity);
    void place(Shard& t, const std::uint16_t* entry);
};

}  // namespace fairlist
