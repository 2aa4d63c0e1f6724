// The terminal solver (terminal.hpp): PairCounts, and the Search members that finish a prefix
// by counting (finish_by_counting for a popped prefix, finish_child for a prefix just created)
// through enumerate_completions, which evaluates every list of one or two more rules below it.
#include "fairlist/terminal.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "fairlist/bounds.hpp"
#include "fairlist/search.hpp"

namespace fairlist {

namespace {

inline void accumulate(SplitCounts& into, const SplitCounts& s) {
    for (int g = 0; g < 2; ++g) {
        into.c[g][0] += s.c[g][0];
        into.c[g][1] += s.c[g][1];
    }
}

}  // namespace

// ---------------------------------------------------------------------------- PairCounts

PairCounts::PairCounts(const RuleData& data) : data_(data), m_(data.n_antecedents()) {
    const std::size_t nc = data.n_classes();
    offsets_.reserve(nc + 1);
    offsets_.push_back(0);
    for (std::size_t e = 0; e < nc; ++e) {
        for (std::size_t j = 0; j < m_; ++j) {
            if ((data.class_rule(j)[e / kWordBits] >> (e % kWordBits)) & 1U) {
                features_.push_back(static_cast<std::uint32_t>(j));
            }
        }
        offsets_.push_back(static_cast<std::uint32_t>(features_.size()));
        const SplitCounts& c = data.class_counts(e);
        class_forced_.push_back(std::min(c.label(0), c.label(1)));
        class_quad_.push_back(Quad{{static_cast<std::int32_t>(c.c[0][0]),
                                    static_cast<std::int32_t>(c.c[0][1]),
                                    static_cast<std::int32_t>(c.c[1][0]),
                                    static_cast<std::int32_t>(c.c[1][1])}});
        const auto d = static_cast<std::int64_t>(offsets_[e + 1] - offsets_[e]);
        class_cost_.push_back(d * d);
    }
    for (Table* t : {&base_, &other_}) {
        t->pair.assign(m_ * m_, Quad{});
        t->single.assign(m_, SplitCounts{});
        t->forced.assign(m_, 0);
        t->stamp.assign(m_, 0);  // epoch 0: every (zero) row valid
    }
    single_.assign(m_, SplitCounts{});
    forced_.assign(m_, 0);
    label_[0].assign(m_, 0);
    label_[1].assign(m_, 0);
}

SplitCounts PairCounts::split(const Quad& q) {
    SplitCounts s;
    s.c[0][0] = q.v[0];
    s.c[0][1] = q.v[1];
    s.c[1][0] = q.v[2];
    s.c[1][1] = q.v[3];
    return s;
}

std::int64_t PairCounts::cost(const word_t* classes) const {
    std::int64_t total = 0;
    for (std::size_t w = 0; w < data_.n_class_words(); ++w) {
        for (word_t x = classes[w]; x; x &= x - 1) {
            total += class_cost_[w * kWordBits + static_cast<std::size_t>(__builtin_ctzll(x))];
        }
    }
    return total;
}

void PairCounts::count_into(Table& t, const word_t* classes) {
    // Row by row (antecedent a, then each class e that a captures, then e's other
    // antecedents), so that the row of a, where the pairs (a, b) add up, stays in the
    // first-level cache.
    if (++t.epoch == 0) {  // wrapped: no stamp may look current
        std::fill(t.stamp.begin(), t.stamp.end(), 0U);
        t.epoch = 1;
    }
    const std::size_t cw = data_.n_class_words();
    const std::uint32_t* const features = features_.data();
    for (std::uint32_t a = 0; a < m_; ++a) {
        const word_t* r = data_.class_rule(a);
        bool any = false;
        for (std::size_t w = 0; w < cw && !any; ++w) any = (r[w] & classes[w]) != 0;
        if (!any) continue;
        t.stamp[a] = t.epoch;
        Quad* const row = t.pair.data() + a * m_;
        std::fill(row, row + m_, Quad{});
        SplitCounts single;
        std::int64_t forced = 0;
        for (std::size_t w = 0; w < cw; ++w) {
            for (word_t x = r[w] & classes[w]; x; x &= x - 1) {
                const std::size_t e = w * kWordBits + static_cast<std::size_t>(__builtin_ctzll(x));
                const Quad q = class_quad_[e];
                accumulate(single, data_.class_counts(e));
                forced += class_forced_[e];
                const std::uint32_t* const last = features + offsets_[e + 1];
                for (const std::uint32_t* b = features + offsets_[e]; b != last; ++b) {
                    Quad& p = row[*b];
                    for (int k = 0; k < 4; ++k) p.v[k] += q.v[k];
                }
            }
        }
        row[a] = Quad{};  // (a, a) is not a pair
        t.single[a] = single;
        t.forced[a] = forced;
    }
}

void PairCounts::make_view() {
    active_.clear();
    for (std::uint32_t j = 0; j < m_; ++j) {
        SplitCounts s = plus_->valid(j) ? plus_->single[j] : SplitCounts{};
        std::int64_t f = plus_->valid(j) ? plus_->forced[j] : 0;
        if (minus_ != nullptr && minus_->valid(j)) {
            s = minus(s, minus_->single[j]);
            f -= minus_->forced[j];
        }
        single_[j] = s;
        forced_[j] = f;
        label_[0][j] = s.label(0);
        label_[1][j] = s.label(1);
        if (s.total() > 0) active_.push_back(j);
    }
}

void PairCounts::count(const word_t* classes) {
    count_into(base_, classes);
    plus_ = &base_;
    minus_ = nullptr;
    make_view();
}

void PairCounts::remove(const word_t* removed) {
    count_into(other_, removed);
    plus_ = &base_;
    minus_ = &other_;
    make_view();
}

void PairCounts::count_alone(const word_t* classes) {
    count_into(other_, classes);
    plus_ = &other_;
    minus_ = nullptr;
    make_view();
}

// The gain of rule (j, Q) after i: its samples of label Q minus the others, from the single
// counts minus the pair counts, on scalars (the label fixed at compile time).
template <int Q>
std::size_t PairCounts::scan_gainers(std::uint32_t i, const std::vector<std::uint32_t>& order,
                                     std::int64_t need, std::vector<std::uint32_t>* out) const {
    const Quad* const plus = plus_->pair.data() + i * m_;
    const Quad* const minus =
        minus_ != nullptr && minus_->valid(i) ? minus_->pair.data() + i * m_ : nullptr;
    const std::int64_t* const same = label_[Q].data();
    const std::int64_t* const other = label_[1 - Q].data();
    std::size_t examined = 0;
    for (const std::uint32_t j : order) {
        if (same[j] < need) break;
        if (j == i) continue;
        ++examined;
        // Quad index 2 g + y: (group g, label y).
        std::int64_t both_same = plus[j].v[Q] + plus[j].v[2 + Q];
        std::int64_t both_other = plus[j].v[1 - Q] + plus[j].v[3 - Q];
        if (minus != nullptr) {
            both_same -= minus[j].v[Q] + minus[j].v[2 + Q];
            both_other -= minus[j].v[1 - Q] + minus[j].v[3 - Q];
        }
        if ((same[j] - both_same) - (other[j] - both_other) >= need) out->push_back(j);
    }
    return examined;
}

std::size_t PairCounts::gainers(std::uint32_t i, int q, const std::vector<std::uint32_t>& order,
                                std::int64_t need, std::vector<std::uint32_t>* out) const {
    return q == 0 ? scan_gainers<0>(i, order, need, out) : scan_gainers<1>(i, order, need, out);
}

// ---------------------------------------------------------------------------- the search's side

void Search::finish_by_counting(std::uint32_t index) {
    Walk prefix;
    const std::size_t depth = load_prefix(index, &prefix);
    pair_counts_->count(class_free_.data());
    const Finish p{prefix.fixed, prefix.errors, prefix.free, prefix.forced_free,
                   trie_[index].lb_errors, depth, class_free_.data()};
    enumerate_completions(p);
    Node& node = trie_[index];
    node.flags |= Node::kExpanded;
    if (node.n_children == 0) trie_.retire(index);
}

void Search::finish_child(std::uint32_t child, std::uint32_t j, const Fixed& f,
                          std::int64_t errors, const SplitCounts& u, std::int64_t forced_free,
                          std::int64_t lb_errors, std::size_t k) {
    // The child's classes: the expanded prefix's (class_free_) minus those j captures.
    const std::size_t cw = data_.n_class_words();
    const word_t* r = data_.class_rule(j);
    for (std::size_t w = 0; w < cw; ++w) {
        terminal_classes_[w] = class_free_[w] & ~r[w];
        removed_classes_[w] = class_free_[w] & r[w];
    }
    // Its counts: the expanded prefix's (counted once per expansion) minus those of the
    // classes j captures, or its own classes counted afresh when that is less work.  The two
    // labels of j share them.
    PairCounts& pc = *pair_counts_;
    if (j != terminal_counted_) {
        if (!terminal_base_) {
            pc.count(class_free_.data());
            terminal_base_ = true;
        }
        if (pc.cost(removed_classes_.data()) < pc.cost(terminal_classes_.data())) {
            pc.remove(removed_classes_.data());
        } else {
            pc.count_alone(terminal_classes_.data());
        }
        terminal_counted_ = j;
    }
    path_.push_back(j << 1 | (trie_[child].rule & 1U));
    const Finish p{f, errors, u, forced_free, lb_errors, k, terminal_classes_.data()};
    enumerate_completions(p);
    path_.pop_back();
    trie_[child].flags |= Node::kExpanded;
    trie_.retire(child);
    ++stats_.nodes_expanded;
}

// Every list of the space with one or two more rules below the prefix p (its rules in path_,
// its counts in *pair_counts_), offered as incumbent when fair and better.
//
// One-rule lists P + (i, q1) + default d: all of them (each label the space allows).
//
// Two-rule lists.  P + (i, q1) + (j, q2) + default q2 predicts as P + (i, q1) + default q2 (j's
// samples and the default's get the same label), which has one rule less, is in the space too
// (a label at least as frequent as the other on two sets is so on their union) and is evaluated
// here: it is skipped.  A rule j that captures nothing after i is skipped too (the list
// predicts as P + (i, q1) + default, one rule shorter).  So the default is d = 1 - q2, and with
// b = j's samples after i and rest1 = the samples i leaves,
//
//   errors = e1 + rest1.label(q2) - gain,   gain = b.label(q2) - b.label(1 - q2),
//
// where e1 counts the errors up to (i, q1).  Three cuts, each skipping only lists whose
// objective is at least the incumbent's:
//  * the bounds of evaluate_child on the child P + (i, q1) (equivalent points, the class and
//    fairness bounds, with the child's length k2 = |P| + 2 and P's bound as a floor: every
//    list here is a completion of that child and of P; see bounds.hpp);
//  * a list beats the incumbent only if errors <= e_max (the largest count with
//    objective(e_max, k2) < best), i.e. gain >= need = e1 + rest1.label(q2) - e_max;
//  * gain <= b.label(q2) <= single(j).label(q2) (b is part of j's samples), so with the
//    antecedents sorted by single(j).label(q2), decreasing, the scan over j stops at the first
//    whose count is below need: no later j can reach it.
// Every list left is checked exactly: offer_incumbent compares its objective and calls fair().
void Search::enumerate_completions(const Finish& p) {
    ++stats_.terminal_prefixes;
    PairCounts& pc = *pair_counts_;
    const std::size_t k1 = p.depth + 1, k2 = p.depth + 2;
    const bool maj = majority_labels_;
    const bool hierarchical = config_.use_hierarchical_bound;
    if (use_class_bound_) {
        terminal_positive_ = terminal_bound_->majority_positive(p.classes);
        terminal_bound_->prepare(p.classes);
    }
    // The active antecedents by their samples of label q, decreasing.
    for (int q = 0; q < 2; ++q) {
        std::vector<std::uint32_t>& order = by_label_[q];
        order = pc.active();
        std::sort(order.begin(), order.end(), [&](std::uint32_t x, std::uint32_t y) {
            const std::int64_t cx = pc.label(q, x), cy = pc.label(q, y);
            return cx > cy || (cx == cy && x < y);
        });
    }
    for (const std::uint32_t i : pc.active()) {
        const SplitCounts& a = pc.single(i);
        const SplitCounts rest1 = minus(p.free, a);
        // Per label q1 of rule (i, q1): its errors and counts, and whether a second rule can
        // still beat the incumbent.
        bool second[2] = {false, false};
        std::int64_t e1[2] = {0, 0};
        Fixed f1[2];
        for (int q1 = 0; q1 < 2; ++q1) {
            if (!label_allowed(a, q1, maj)) continue;
            ++stats_.children_evaluated;
            const std::uint32_t rule = i << 1 | static_cast<std::uint32_t>(q1);
            e1[q1] = p.errors + a.label(1 - q1);
            f1[q1] = p.fixed;
            add_predicted(f1[q1].g, a, q1);
            for (int d = 0; d < 2; ++d) {  // P + (i, q1) + default d
                if (!label_allowed(rest1, d, maj)) continue;
                const std::int64_t e = e1[q1] + rest1.label(1 - d);
                if (!(objective(e, k1) < best_objective_)) continue;
                Fixed full = f1[q1];
                add_predicted(full.g, rest1, d);
                offer_incumbent(e, k1, full, rule, d);
            }
            if (rest1.total() == 0) continue;
            const std::int64_t forced_rest = p.forced_free - pc.forced(i);
            ErrorBound b{hierarchical ? e1[q1] : 0, config_.use_equivalent_points ? forced_rest : 0,
                         hierarchical ? p.floor : 0, k2};
            if (objective(b.errors(), k2) >= best_objective_) {
                ++stats_.pruned_by_bound;
                continue;
            }
            second[q1] = bound_child(terminal_bound_.get(), p.classes, terminal_positive_, f1[q1],
                                     i, rest1, forced_rest, &b) &&
                         objective(b.errors(), k2) < best_objective_;
        }
        if (!second[0] && !second[1]) continue;
        pc.set_row(i);
        const std::int64_t e_max = max_errors(k2);
        for (int q2 = 0; q2 < 2; ++q2) {
            const int d = 1 - q2;
            std::int64_t need[2], need_min = std::numeric_limits<std::int64_t>::max();
            for (int q1 = 0; q1 < 2; ++q1) {
                need[q1] = e1[q1] + rest1.label(q2) - e_max;
                if (second[q1]) need_min = std::min(need_min, need[q1]);
            }
            gainers_.clear();
            stats_.terminal_lists += static_cast<std::int64_t>(
                pc.gainers(i, q2, by_label_[q2], need_min, &gainers_));
            for (const std::uint32_t j : gainers_) {
                const SplitCounts b = minus(pc.single(j), pc.pair(j));
                const std::int64_t gain = b.label(q2) - b.label(1 - q2);
                if (b.total() == 0 || !label_allowed(b, q2, maj)) continue;
                const SplitCounts rest = minus(rest1, b);
                if (!label_allowed(rest, d, maj)) continue;
                for (int q1 = 0; q1 < 2; ++q1) {  // P + (i, q1) + (j, q2) + default d
                    if (!second[q1] || gain < need[q1]) continue;
                    const std::int64_t e = e1[q1] + rest1.label(q2) - gain;
                    if (!(objective(e, k2) < best_objective_)) continue;
                    Fixed full = f1[q1];
                    add_predicted(full.g, b, q2);
                    add_predicted(full.g, rest, d);
                    path_.push_back(i << 1 | static_cast<std::uint32_t>(q1));
                    offer_incumbent(e, k2, full, j << 1 | static_cast<std::uint32_t>(q2), d);
                    path_.pop_back();
                }
            }
        }
    }
}

std::int64_t Search::max_errors(std::size_t length) const {
    if (!(best_objective_ < std::numeric_limits<double>::infinity())) {
        return std::numeric_limits<std::int64_t>::max() / 4;
    }
    // From the continuous answer, then +-1 steps on the very comparison the search makes.
    auto e = static_cast<std::int64_t>(
        std::floor((best_objective_ - problem_.lam * static_cast<double>(length)) * n_));
    while (e >= 0 && !(objective(e, length) < best_objective_)) --e;
    while (objective(e + 1, length) < best_objective_) ++e;
    return e;
}

}  // namespace fairlist
