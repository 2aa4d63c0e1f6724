// The terminal solver (terminal.hpp): PairCounts, and Search::finish_by_counting, which
// evaluates every list of one or two more rules below a prefix from those counts.
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

PairCounts::PairCounts(const RuleData& data) : data_(data), m_(data.n_antecedents()) {
    const std::size_t nc = data.n_classes();
    offsets_.reserve(nc + 1);
    offsets_.push_back(0);
    class_forced_.resize(nc);
    for (std::size_t e = 0; e < nc; ++e) {
        for (std::size_t j = 0; j < m_; ++j) {
            if ((data.class_rule(j)[e / kWordBits] >> (e % kWordBits)) & 1U) {
                features_.push_back(static_cast<std::uint32_t>(j));
            }
        }
        offsets_.push_back(static_cast<std::uint32_t>(features_.size()));
        const SplitCounts& c = data.class_counts(e);
        class_forced_[e] = std::min(c.label(0), c.label(1));
        class_quad_.push_back(Quad{{static_cast<std::int32_t>(c.c[0][0]),
                                    static_cast<std::int32_t>(c.c[0][1]),
                                    static_cast<std::int32_t>(c.c[1][0]),
                                    static_cast<std::int32_t>(c.c[1][1])}});
    }
    // Row i holds the pairs (i, j > i); row_[i] + j is the index of (i, j) (unsigned wrap-around
    // makes row_[0] = -1 harmless: the sum is taken modulo 2^64).
    row_.resize(m_);
    std::size_t start = 0;
    for (std::size_t i = 0; i < m_; ++i) {
        row_[i] = start - (i + 1);
        start += m_ - i - 1;
    }
    pair_.resize(start);
    single_.resize(m_);
    forced_.assign(m_, 0);
    cursor_.resize(nc);
}

void PairCounts::count(const word_t* classes) {
    // Row by row (antecedent a, then each class e that a captures), so that the row of a, where
    // the pairs (a, b > a) add up, stays in the first-level cache.  cursor_[e] walks class e's
    // antecedent list along: at row a it points at a, since every smaller antecedent of e had
    // its row (and moved the cursor) before.
    const std::size_t cw = data_.n_class_words();
    total_ = SplitCounts{};
    total_forced_ = 0;
    for (std::size_t w = 0; w < cw; ++w) {
        for (word_t x = classes[w]; x; x &= x - 1) {
            const std::size_t e = w * kWordBits + static_cast<std::size_t>(__builtin_ctzll(x));
            accumulate(total_, data_.class_counts(e));
            total_forced_ += class_forced_[e];
            cursor_[e] = offsets_[e];
        }
    }
    for (const std::uint32_t a : active_) {  // the last call's
        single_[a] = SplitCounts{};
        forced_[a] = 0;
    }
    active_.clear();
    Quad* const pairs = pair_.data();
    const std::uint32_t* const features = features_.data();
    for (std::uint32_t a = 0; a < m_; ++a) {
        const word_t* r = data_.class_rule(a);
        bool any = false;
        for (std::size_t w = 0; w < cw && !any; ++w) any = (r[w] & classes[w]) != 0;
        if (!any) continue;
        active_.push_back(a);
        Quad* const row = pairs + row_[a];
        std::fill(row + a + 1, row + m_, Quad{});
        SplitCounts single;
        std::int64_t forced = 0;
        for (std::size_t w = 0; w < cw; ++w) {
            for (word_t x = r[w] & classes[w]; x; x &= x - 1) {
                const std::size_t e = w * kWordBits + static_cast<std::size_t>(__builtin_ctzll(x));
                const Quad q = class_quad_[e];
                accumulate(single, data_.class_counts(e));
                forced += class_forced_[e];
                const std::uint32_t* b = features + ++cursor_[e];
                const std::uint32_t* const last = features + offsets_[e + 1];
                for (; b != last; ++b) {
                    Quad& p = row[*b];
                    for (int k = 0; k < 4; ++k) p.v[k] += q.v[k];
                }
            }
        }
        single_[a] = single;
        forced_[a] = forced;
    }
}

void PairCounts::gather_row(std::uint32_t i, SplitCounts* out) const {
    for (const std::uint32_t j : active_) {
        if (j != i) out[j] = pair(i, j);
    }
}

// Every list of the space with one or two more rules below the prefix of trie node `index`
// (terminal.hpp), offered as incumbent when fair and better; the prefix is then done.
//
// Two-rule lists.  P + (i, q1) + (j, q2) + default q2 predicts as P + (i, q1) + default q2 (j's
// samples and the default's get the same label), which has one rule less, is in the space too
// (a label at least as frequent as the other on two sets is so on their union) and is evaluated
// here: it is skipped.  So the default is d = 1 - q2, and with b = j's samples after i and
// rest1 = the samples i leaves,
//
//   errors = e1 + rest1.label(q2) - gain,   gain = b.label(q2) - b.label(1 - q2),
//
// where e1 counts the errors up to (i, q1).  A list can beat the incumbent only if its errors are
// at most e_max (the largest count with objective(e_max, k2) < best), i.e. gain >= need =
// e1 + rest1.label(q2) - e_max.  gain <= b.label(q2) <= single(j).label(q2) (b is part of j's
// samples), so with the antecedents sorted by single(j).label(q2), decreasing, the scan over j
// stops at the first whose count is below need: no later j can reach it.
void Search::finish_by_counting(std::uint32_t index) {
    Walk prefix;
    const std::size_t depth = load_prefix(index, &prefix);
    ++stats_.terminal_prefixes;
    PairCounts& pc = *pair_counts_;
    pc.count(class_free_.data());
    pair_row_.resize(data_.n_antecedents());
    const SplitCounts& u = prefix.free;
    const std::size_t k1 = depth + 1, k2 = depth + 2;
    const bool maj = majority_labels_;
    const bool hierarchical = config_.use_hierarchical_bound;
    // The active antecedents by their samples of label q, decreasing.
    for (int q = 0; q < 2; ++q) {
        std::vector<std::uint32_t>& order = by_label_[q];
        order = pc.active();
        std::sort(order.begin(), order.end(), [&](std::uint32_t x, std::uint32_t y) {
            const std::int64_t cx = pc.single(x).label(q), cy = pc.single(y).label(q);
            return cx > cy || (cx == cy && x < y);
        });
    }
    std::int64_t e_max = max_errors(k2);
    for (const std::uint32_t i : pc.active()) {
        const SplitCounts& a = pc.single(i);
        const SplitCounts rest1 = minus(u, a);
        // Per label q1 of rule (i, q1): its errors and counts, and whether a second rule can
        // still beat the incumbent.
        bool second[2] = {false, false};
        std::int64_t e1[2] = {0, 0};
        Fixed f1[2];
        for (int q1 = 0; q1 < 2; ++q1) {
            if (!label_allowed(a, q1, maj)) continue;
            ++stats_.children_evaluated;
            const std::uint32_t rule = i << 1 | static_cast<std::uint32_t>(q1);
            e1[q1] = prefix.errors + a.label(1 - q1);
            f1[q1] = prefix.fixed;
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
            // The bounds of the child (i, q1) (evaluate_child's), for its lists of k2 rules.
            const std::int64_t forced_rest = prefix.forced_free - pc.forced(i);
            ErrorBound b{hierarchical ? e1[q1] : 0, config_.use_equivalent_points ? forced_rest : 0,
                         hierarchical ? trie_[index].lb_errors : 0, k2};
            if (objective(b.errors(), k2) >= best_objective_) {
                ++stats_.pruned_by_bound;
                continue;
            }
            second[q1] = bound_child(f1[q1], i, rest1, forced_rest, &b) &&
                         objective(b.errors(), k2) < best_objective_;
        }
        if (!second[0] && !second[1]) continue;
        pc.gather_row(i, pair_row_.data());
        e_max = max_errors(k2);
        for (int q2 = 0; q2 < 2; ++q2) {
            const int d = 1 - q2;
            std::int64_t need[2], need_min = std::numeric_limits<std::int64_t>::max();
            for (int q1 = 0; q1 < 2; ++q1) {
                need[q1] = e1[q1] + rest1.label(q2) - e_max;
                if (second[q1]) need_min = std::min(need_min, need[q1]);
            }
            for (const std::uint32_t j : by_label_[q2]) {
                if (pc.single(j).label(q2) < need_min) break;  // nor any later j
                if (j == i) continue;
                ++stats_.terminal_lists;
                const SplitCounts b = minus(pc.single(j), pair_row_[j]);
                const std::int64_t gain = b.label(q2) - b.label(1 - q2);
                if (gain < need_min || b.total() == 0 || !label_allowed(b, q2, maj)) continue;
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
    Node& node = trie_[index];
    node.flags |= Node::kExpanded;
    if (node.n_children == 0) trie_.retire(index);
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
