#include "fairlist/incumbent.hpp"

#include <algorithm>

namespace fairlist {

Incumbent::Incumbent() : published_(nullptr) {  // no other thread sees it yet
    lists_.push_back(std::make_unique<const List>());  // no list: objective +inf
    published_.store(lists_.back().get(), std::memory_order_release);
}

void Incumbent::publish(std::unique_ptr<List> list) {
    const List* p = list.get();
    lists_.push_back(std::move(list));
    published_.store(p, std::memory_order_release);
}

void Incumbent::reclaim() {
    MutexLock lock(mutex_);
    if (lists_.size() > 1) lists_.erase(lists_.begin(), lists_.end() - 1);
}

Incumbent::List Incumbent::get() const {
    MutexLock lock(mutex_);
    return *published();
}

bool Incumbent::tie_may_precede(double bound, const std::uint32_t* prefix, std::size_t n,
                                std::uint32_t last, std::size_t min_length) const {
    const List& now = *published();
    const double best = now.objective;
    if (bound != best) return bound < best;
    const std::vector<std::uint32_t>& rules = now.rules;
    // A tie needs as many rules as the incumbent or fewer; fewer always come first.
    if (min_length != rules.size()) return min_length < rules.size();
    const std::size_t k = std::min(n + (last != kNoRule ? 1 : 0), rules.size());
    for (std::size_t t = 0; t < k; ++t) {
        const std::uint32_t id = (t < n ? prefix[t] : last) >> 1, other = rules[t] >> 1;
        if (id != other) return id < other;
    }
    return true;  // the same ids so far: the rest (or the predictions) may come first
}

bool Incumbent::precedes(const std::uint32_t* prefix, std::size_t n, std::uint32_t last,
                         int default_prediction, const List& now) {
    const std::vector<std::uint32_t>& rules = now.rules;
    const std::size_t length = n + (last != kNoRule ? 1 : 0);
    if (length != rules.size()) return length < rules.size();
    auto rule = [&](std::size_t k) { return k < n ? prefix[k] : last; };
    for (std::size_t k = 0; k < length; ++k) {  // antecedent ids
        if ((rule(k) >> 1) != (rules[k] >> 1)) return (rule(k) >> 1) < (rules[k] >> 1);
    }
    for (std::size_t k = 0; k < length; ++k) {  // then predictions
        if ((rule(k) & 1U) != (rules[k] & 1U)) return (rule(k) & 1U) < (rules[k] & 1U);
    }
    return default_prediction < now.default_prediction;
}

}  // namespace fairlist

namespace fairlist {

bool Incumbent::equivalent_may_precede(const std::uint32_t* first, const std::uint32_t* second,
                                       std::size_t k) const {
    const List& z = *published();
    if (!(z.objective < std::numeric_limits<double>::infinity())) return true;
    if (z.rules.size() <= k) return false;  // first + S has more rules than Z
    // ids(first) <= ids(Z)[0 .. k) <= ids(second), lexicographically.
    auto below = [](const std::uint32_t* x, const std::uint32_t* y, std::size_t n) {
        for (std::size_t t = 0; t < n; ++t) {
            if ((x[t] >> 1) != (y[t] >> 1)) return (x[t] >> 1) < (y[t] >> 1);
        }
        return false;
    };
    const std::uint32_t* ids = z.rules.data();
    return !below(ids, first, k) && !below(second, ids, k);
}

}  // namespace fairlist
