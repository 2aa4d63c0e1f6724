#include "fairlist/rashomon.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

#include "fairlist/incumbent.hpp"
#include "fairlist/result.hpp"

namespace fairlist {

RashomonStore::RashomonStore(std::int64_t max_lists, bool front)
    : max_lists_(max_lists > 0 ? static_cast<std::size_t>(max_lists) : 0),
      front_(front),
      compacted_at_(std::numeric_limits<double>::infinity()),
      cap_(std::numeric_limits<double>::infinity()),
      next_cap_(max_lists_),
      budget_(std::numeric_limits<double>::infinity()),
      memory_cut_(std::numeric_limits<double>::infinity()),
      cutoff_(std::numeric_limits<double>::infinity()) {
    starts_.push_back(0);
}

std::size_t RashomonStore::footprint(std::size_t rule_capacity, std::size_t list_capacity) const {
    const std::size_t arrays = rule_capacity * sizeof(std::uint32_t) +
                               (list_capacity + 1) * sizeof(std::uint64_t) +
                               list_capacity * (1 + sizeof(std::int64_t) + sizeof(double)) +
                               (front_ ? list_capacity * sizeof(double) : 0);
    // Twice the arrays (the store and the sorted copy finish() makes, which becomes the numpy
    // arrays), finish()'s keys and order (32 bytes a list) and the copy of the objectives that
    // trim() and make_way() select in.
    return 2 * arrays + list_capacity * (4 * sizeof(std::size_t) + sizeof(double));
}

bool RashomonStore::make_room(std::size_t n_rules) {
    const std::size_t need_rules = rules_.size() + n_rules, need_lists = size() + 1;
    const bool grow_rules = need_rules > rules_.capacity();
    const bool grow_lists = need_lists > objectives_.capacity();
    if (!grow_rules && !grow_lists) return true;
    // Doubling when it fits, else a smaller step: the store fills at least 1/1.125 of its
    // budget, and the copies stay linear overall.
    for (const double factor : {2.0, 1.5, 1.25, 1.125}) {
        const auto grown = [factor](std::size_t capacity, std::size_t need) {
            return std::max<std::size_t>(
                {need, static_cast<std::size_t>(factor * static_cast<double>(capacity)), 256});
        };
        const std::size_t rule_capacity =
            grow_rules ? grown(rules_.capacity(), need_rules) : rules_.capacity();
        const std::size_t list_capacity =
            grow_lists ? grown(objectives_.capacity(), need_lists) : objectives_.capacity();
        if (static_cast<double>(footprint(rule_capacity, list_capacity)) > budget_) continue;
        rules_.reserve(rule_capacity);
        starts_.reserve(list_capacity + 1);
        defaults_.reserve(list_capacity);
        errors_.reserve(list_capacity);
        objectives_.reserve(list_capacity);
        if (front_) unfairness_.reserve(list_capacity);
        return true;
    }
    return false;
}

void RashomonStore::add(const std::uint32_t* prefix, std::size_t n, std::uint32_t last, int d,
                        std::int64_t errors, double objective, double unfairness) {
    if (objective >= memory_cut_) return;  // dropped for memory: the search prunes there too
    if (front_) {  // the Pareto front: a dominated list is not kept (see rashomon.hpp)
        for (std::size_t i = 0; i < size(); ++i) {
            if (objectives_[i] <= objective && unfairness_[i] <= unfairness) return;
        }
        keep_if([&](std::size_t i) {
            return !(objective <= objectives_[i] && unfairness <= unfairness_[i]);
        });
    }
    const std::size_t n_rules = n + (last != Incumbent::kNoRule ? 1 : 0);
    const bool over_limit = size() >= list_limit_;
    if (over_limit || !make_room(n_rules)) {
        make_way(n_rules, over_limit);
        if (objective >= memory_cut_ || size() >= list_limit_ || !make_room(n_rules)) {
            memory_cut_ = std::min(memory_cut_, objective);  // no room even for one list
            return;
        }
    }
    rules_.insert(rules_.end(), prefix, prefix + n);
    if (last != Incumbent::kNoRule) rules_.push_back(last);
    starts_.push_back(rules_.size());
    defaults_.push_back(static_cast<std::uint8_t>(d));
    errors_.push_back(errors);
    objectives_.push_back(objective);
    if (front_) unfairness_.push_back(unfairness);
}

void RashomonStore::make_way(std::size_t n_rules, bool over_limit) {
    // The lists above the threshold have left the set.
    if (cutoff_ < compacted_at_) compact(std::min(cutoff_, cap_));
    if (size() == 0 || (size() < list_limit_ && make_room(n_rules))) return;
    if (over_limit && size() >= list_limit_) cut_by_time_ = true;
    // The median objective stored: the lists at or above it go (at least half of them,
    // unless many tie at the median, when all the tied ones go too).
    scratch_ = objectives_;
    const auto mid = scratch_.begin() + static_cast<std::ptrdiff_t>(size() / 2);
    std::nth_element(scratch_.begin(), mid, scratch_.end());
    memory_cut_ = std::min(memory_cut_, *mid);
    compact(std::nextafter(memory_cut_, -std::numeric_limits<double>::infinity()));
}

double RashomonStore::trim(double cutoff) {
    cutoff_ = cutoff;
    const double below_cut =
        memory_cut_ < std::numeric_limits<double>::infinity()
            ? std::nextafter(memory_cut_, -std::numeric_limits<double>::infinity())
            : memory_cut_;
    const double cap = std::min(cap_, below_cut);
    const bool over_cap = max_lists_ > 0 && size() > next_cap_;
    // Compacting costs a pass over the store: only once it has doubled (and the threshold fell
    // since the last pass), or grown by max_lists beyond the cap, so at most linear overall.
    const bool stale = size() > next_compaction_ && cutoff < compacted_at_;
    if (!over_cap && !stale) return cap;
    compact(std::min(cutoff, cap));
    if (max_lists_ > 0 && size() > max_lists_) {
        scratch_ = objectives_;
        const auto nth = scratch_.begin() + static_cast<std::ptrdiff_t>(max_lists_ - 1);
        std::nth_element(scratch_.begin(), nth, scratch_.end());
        cap_ = std::min(cap_, *nth);
        compact(cap_);
    }
    next_compaction_ = std::max<std::size_t>(2 * size(), kFirstCompaction);
    next_cap_ = size() + max_lists_;
    return std::min(cap_, below_cut);
}

void RashomonStore::compact(double cutoff) {
    compacted_at_ = cutoff;
    keep_if([&](std::size_t i) { return objectives_[i] <= cutoff; });
}

template <class Keep>
void RashomonStore::keep_if(Keep keep) {
    std::size_t kept = 0, kept_rules = 0;
    for (std::size_t i = 0; i < size(); ++i) {
        if (!keep(i)) continue;
        const std::uint64_t begin = starts_[i], end = starts_[i + 1];
        std::copy(rules_.begin() + static_cast<std::ptrdiff_t>(begin),
                  rules_.begin() + static_cast<std::ptrdiff_t>(end),
                  rules_.begin() + static_cast<std::ptrdiff_t>(kept_rules));
        starts_[kept] = kept_rules;
        kept_rules += end - begin;
        defaults_[kept] = defaults_[i];
        errors_[kept] = errors_[i];
        objectives_[kept] = objectives_[i];
        if (front_) unfairness_[kept] = unfairness_[i];
        ++kept;
    }
    rules_.resize(kept_rules);
    starts_.resize(kept + 1);
    starts_[kept] = kept_rules;
    defaults_.resize(kept);
    errors_.resize(kept);
    objectives_.resize(kept);
    if (front_) unfairness_.resize(kept);
}

bool RashomonStore::before(std::size_t a, std::size_t b) const {
    if (objectives_[a] != objectives_[b]) return objectives_[a] < objectives_[b];
    const std::uint64_t la = starts_[a + 1] - starts_[a], lb = starts_[b + 1] - starts_[b];
    if (la != lb) return la < lb;
    const std::uint32_t* ra = rules_.data() + starts_[a];
    const std::uint32_t* rb = rules_.data() + starts_[b];
    for (std::uint64_t k = 0; k < la; ++k) {  // antecedent ids
        if ((ra[k] >> 1) != (rb[k] >> 1)) return (ra[k] >> 1) < (rb[k] >> 1);
    }
    for (std::uint64_t k = 0; k < la; ++k) {  // then predictions
        if ((ra[k] & 1U) != (rb[k] & 1U)) return (ra[k] & 1U) < (rb[k] & 1U);
    }
    return defaults_[a] < defaults_[b];
}

void RashomonStore::finish(double cutoff, double complete_below, SearchResult* r) {
    // Sorted on keys that sit together in memory (an order of indices compared through the
    // store reads it at random: 78 s for 33.5 million lists of COMPAS): the objective, then a
    // coarsening of the canonical order, the length (8 bits; 255 for all lists of 255 rules or
    // more) and the first two antecedents (28 bits each, when every antecedent fits), and the
    // canonical comparison only between lists whose keys are equal.
    std::uint32_t largest = 0;
    for (const std::uint32_t rule : rules_) largest = std::max(largest, rule >> 1);
    const bool with_ids = largest < (1U << 28);
    struct Keyed {
        double objective;
        std::uint64_t key;
        std::size_t index;
    };
    std::vector<Keyed> keyed;
    keyed.reserve(size());
    for (std::size_t i = 0; i < size(); ++i) {
        if (objectives_[i] > cutoff) continue;
        const std::uint64_t length = starts_[i + 1] - starts_[i];
        std::uint64_t key = std::min<std::uint64_t>(length, 255) << 56;
        if (length < 255 && with_ids) {
            for (std::uint64_t k = 0; k < std::min<std::uint64_t>(length, 2); ++k) {
                key |= static_cast<std::uint64_t>(rules_[starts_[i] + k] >> 1) << (28 * (1 - k));
            }
        }
        keyed.push_back({objectives_[i], key, i});
    }
    std::sort(keyed.begin(), keyed.end(), [&](const Keyed& a, const Keyed& b) {
        if (a.objective != b.objective) return a.objective < b.objective;
        if (a.key != b.key) return a.key < b.key;
        return before(a.index, b.index);
    });
    std::vector<std::size_t> order(keyed.size());
    for (std::size_t k = 0; k < keyed.size(); ++k) order[k] = keyed[k].index;
    std::vector<Keyed>().swap(keyed);
    // Every list of objective at most cap_ was kept (the search pruned only above it).
    if (cap_ < cutoff) complete_below = std::min(complete_below, cap_);
    // Memory dropped or refused the lists from memory_cut_ up, none below.
    complete_below = std::min(complete_below, memory_cut_);
    if (max_lists_ > 0 && order.size() > max_lists_) {
        complete_below = std::min(complete_below, objectives_[order[max_lists_]]);
        order.resize(max_lists_);
    }
    std::size_t n_rules = 0;
    for (const std::size_t i : order) n_rules += starts_[i + 1] - starts_[i];
    r->rashomon_rules.reserve(n_rules);
    r->rashomon_starts.reserve(order.size() + 1);
    r->rashomon_defaults.reserve(order.size());
    r->rashomon_errors.reserve(order.size());
    r->rashomon_objectives.reserve(order.size());
    r->rashomon_starts.assign(1, 0);
    for (const std::size_t i : order) {
        r->rashomon_rules.insert(r->rashomon_rules.end(),
                                 rules_.begin() + static_cast<std::ptrdiff_t>(starts_[i]),
                                 rules_.begin() + static_cast<std::ptrdiff_t>(starts_[i + 1]));
        r->rashomon_starts.push_back(r->rashomon_rules.size());
        r->rashomon_defaults.push_back(defaults_[i]);
        r->rashomon_errors.push_back(errors_[i]);
        r->rashomon_objectives.push_back(objectives_[i]);
    }
    r->rashomon_complete_below = complete_below;
    // Released: the lists live on in the result (and in Python).
    std::vector<std::uint32_t>().swap(rules_);
    std::vector<std::uint64_t>(1, 0).swap(starts_);
    std::vector<std::uint8_t>().swap(defaults_);
    std::vector<std::int64_t>().swap(errors_);
    std::vector<double>().swap(objectives_);
    std::vector<double>().swap(unfairness_);
    std::vector<double>().swap(scratch_);
}

}  // namespace fairlist
