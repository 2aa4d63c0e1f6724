// The global lower bound of a running search, kept as it runs (GOSDT-style [lower, upper]).
//
// Every rule list not yet evaluated extends a queued prefix, so the least bound among the queued
// prefixes (with the incumbent and, in a length-deepening phase, the bound on the lists beyond
// its cap) bounds the optimum.  Scanning the queue for it costs a walk per node; instead each
// queued prefix is counted in a bin of its bound when pushed and uncounted when popped, and the
// lowest non-empty bin is found by moving a cursor up (bounds along a path never fall, so a push
// below the cursor is rare: it moves the cursor down).  A bin also keeps the least bound pushed
// into it since it was last empty, which is at most the least bound it holds: the answer is a
// valid lower bound, exact whenever that least prefix is still queued, and at worst one bin
// width (the range over 2^16) below the true least bound.  O(1) amortised per push and pop.
// Not thread-safe: the parallel search keeps it under the frontier lock (Frontier::tracked_,
// GUARDED_BY(frontier_lock); docs/design.md §8.3).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <vector>

namespace fairlist {

class BoundTracker {
 public:
    static constexpr std::size_t kBins = std::size_t{1} << 16;

    // Bounds are expected in [0, max_value]; larger ones share the last bin.
    void reset(double max_value) {
        scale_ = max_value > 0 ? static_cast<double>(kBins - 1) / max_value : 0.0;
        count_.assign(kBins, 0);
        low_.assign(kBins, kInf);
        first_ = kBins;
        size_ = 0;
    }
    void push(double bound) {
        const std::size_t b = bin(bound);
        ++count_[b];
        low_[b] = std::min(low_[b], bound);
        first_ = std::min(first_, b);
        ++size_;
    }
    // Uncounts a prefix pushed with this bound.
    void pop(double bound) {
        const std::size_t b = bin(bound);
        if (--count_[b] == 0) low_[b] = kInf;
        --size_;
    }
    // The least bound counted (at most it; +inf when none is).
    double least() {
        if (size_ == 0) return kInf;
        while (first_ < kBins && count_[first_] == 0) ++first_;
        return low_[first_];
    }

 private:
    static constexpr double kInf = std::numeric_limits<double>::infinity();
    double scale_ = 0.0;
    std::vector<std::uint64_t> count_;
    std::vector<double> low_;
    std::size_t first_ = kBins;  // no non-empty bin below it
    std::size_t size_ = 0;

    std::size_t bin(double bound) const {
        const double x = std::floor(bound * scale_);
        if (!(x > 0)) return 0;
        return x >= static_cast<double>(kBins - 1) ? kBins - 1 : static_cast<std::size_t>(x);
    }
};

}  // namespace fairlist
