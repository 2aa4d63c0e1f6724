#include "fairlist/incumbent.hpp"

#include <algorithm>

namespace fairlist {

Incumbent::List Incumbent::get() const {
    std::lock_guard<std::mutex> lock(mutex_);
    List list;
    list.rules = rules_;
    list.default_prediction = default_;
    list.errors = errors_;
    list.objective = objective_.load(std::memory_order_relaxed);
    return list;
}

bool Incumbent::tie_may_precede(double bound, const std::uint32_t* prefix, std::size_t n,
                                std::uint32_t last, std::size_t min_length) const {
    std::lock_guard<std::mutex> lock(mutex_);
    const double best = objective_.load(std::memory_order_relaxed);
    if (bound != best) return bound < best;
    // A tie needs as many rules as the incumbent or fewer; fewer always come first.
    if (min_length != rules_.size()) return min_length < rules_.size();
    const std::size_t k = std::min(n + (last != kNoRule ? 1 : 0), rules_.size());
    for (std::size_t t = 0; t < k; ++t) {
        const std::uint32_t id = (t < n ? prefix[t] : last) >> 1, other = rules_[t] >> 1;
        if (id != other) return id < other;
    }
    return true;  // the same ids so far: the rest (or the predictions) may come first
}

bool Incumbent::precedes(const std::uint32_t* prefix, std::size_t n, std::uint32_t last,
                         int default_prediction) const {
    const std::size_t length = n + (last != kNoRule ? 1 : 0);
    if (length != rules_.size()) return length < rules_.size();
    auto rule = [&](std::size_t k) { return k < n ? prefix[k] : last; };
    for (std::size_t k = 0; k < length; ++k) {  // antecedent ids
        if ((rule(k) >> 1) != (rules_[k] >> 1)) return (rule(k) >> 1) < (rules_[k] >> 1);
    }
    for (std::size_t k = 0; k < length; ++k) {  // then predictions
        if ((rule(k) & 1U) != (rules_[k] & 1U)) return (rule(k) & 1U) < (rules_[k] & 1U);
    }
    return default_prediction < default_;
}

}  // namespace fairlist
