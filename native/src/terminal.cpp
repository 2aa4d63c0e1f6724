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

// The terminal solver runs with two groups only (Search::terminal_applies), so every count
// here has k = 2.
inline void accumulate(SplitCounts& into, const SplitCounts& s) {
    for (int g = 0; g < 2; ++g) {
        into.c[g][0] += s.c[g][0];
        into.c[g][1] += s.c[g][1];
    }
    into.n[0] += s.n[0];
    into.n[1] += s.n[1];
}

}  // namespace

// ---------------------------------------------------------------------------- PairCounts

PairCounts::PairCounts(const RuleData& data, StopCheck* stop)
    : data_(data), stop_(stop), m_(data.n_antecedents()) {
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
        // Weights of the class by (group, label); the sums over any set of classes stay below
        // the total weight, which Search::terminal_applies keeps within 32 bits.
        SplitCounts c(2);
        for (int g = 0; g < 2; ++g) {
            for (int y = 0; y < 2; ++y) c.add(g, y, data.class_count(e, g, y));
        }
        class_counts_.push_back(c);
        class_forced_.push_back(std::min(data.class_label(e, 0), data.class_label(e, 1)));
        class_quad_.push_back(Quad{{static_cast<std::int32_t>(c.c[0][0]),
                                    static_cast<std::int32_t>(c.c[0][1]),
                                    static_cast<std::int32_t>(c.c[1][0]),
                                    static_cast<std::int32_t>(c.c[1][1])}});
        const auto d = static_cast<std::int64_t>(offsets_[e + 1] - offsets_[e]);
        class_cost_.push_back(d * d);
    }
    for (Table* t : {&base_, &other_}) {
        t->classes.assign(data.n_class_words(), 0);
        t->pair.assign(m_ * m_, Quad{});
        t->single.assign(m_, SplitCounts(2));
        t->forced.assign(m_, 0);
        t->stamp.assign(m_, 0);  // epoch 0: every (zero) row valid
    }
    single_.assign(m_, SplitCounts(2));
    single4_.assign(m_, Four{});
    forced_.assign(m_, 0);
    label_[0].assign(m_, 0);
    label_[1].assign(m_, 0);
}

SplitCounts PairCounts::split(const Quad& q) {
    SplitCounts s(2);
    s.add(0, 0, q.v[0]);
    s.add(0, 1, q.v[1]);
    s.add(1, 0, q.v[2]);
    s.add(1, 1, q.v[3]);
    return s;
}

std::int64_t PairCounts::cost(const word_t* classes) const {
    std::int64_t total = 0;
    for (std::size_t w = 0; w < data_.n_class_words(); ++w) {
        for (word_t x = classes[w]; x; x &= x - 1) {
            total += class_cost_[w * kWordBits + static_cast<std::size_t>(portable::ctz64(x))];
        }
    }
    return total;
}

void PairCounts::count_singles(Table& t, const word_t* classes) {
    if (++t.epoch == 0) {  // wrapped: no row may look counted
        std::fill(t.stamp.begin(), t.stamp.end(), 0U);
        t.epoch = 1;
    }
    const std::size_t cw = data_.n_class_words();
    std::copy(classes, classes + cw, t.classes.begin());
    std::fill(t.single.begin(), t.single.end(), SplitCounts(2));
    std::fill(t.forced.begin(), t.forced.end(), 0);
    for (std::size_t w = 0; w < cw; ++w) {
        std::int64_t work = 1;
        for (word_t x = classes[w]; x; x &= x - 1) {
            const std::size_t e = w * kWordBits + static_cast<std::size_t>(portable::ctz64(x));
            const SplitCounts& c = class_counts_[e];
            const std::int64_t f = class_forced_[e];
            work += offsets_[e + 1] - offsets_[e];
            for (std::uint32_t k = offsets_[e]; k < offsets_[e + 1]; ++k) {
                accumulate(t.single[features_[k]], c);
                t.forced[features_[k]] += f;
            }
        }
        if (stop_ != nullptr && stop_->poll(work)) return;  // partial: the search stops
    }
}

void PairCounts::count_row(Table& t, std::uint32_t a) {
    // Each class of the set that a captures adds its counts to (a, b) for each of its
    // antecedents b: the row of a, where they add up, stays in the first-level cache.
    Quad* const row = t.pair.data() + a * m_;
    std::fill(row, row + m_, Quad{});
    const std::size_t cw = data_.n_class_words();
    const word_t* r = data_.class_rule(a);
    const std::uint32_t* const features = features_.data();
    for (std::size_t w = 0; w < cw; ++w) {
        std::int64_t work = 1;
        for (word_t x = r[w] & t.classes[w]; x; x &= x - 1) {
            const std::size_t e = w * kWordBits + static_cast<std::size_t>(portable::ctz64(x));
            const Quad q = class_quad_[e];
            const std::uint32_t* const last = features + offsets_[e + 1];
            work += offsets_[e + 1] - offsets_[e];
            for (const std::uint32_t* b = features + offsets_[e]; b != last; ++b) {
                Quad& p = row[*b];
                for (int k = 0; k < 4; ++k) p.v[k] += q.v[k];
            }
        }
        if (stop_ != nullptr && stop_->poll(work)) return;  // partial, and not marked counted
    }
    row[a] = Quad{};  // (a, a) is not a pair
    t.stamp[a] = t.epoch;
}

void PairCounts::make_view() {
    active_.clear();
    for (std::uint32_t j = 0; j < m_; ++j) {
        SplitCounts s = plus_->single[j];
        std::int64_t f = plus_->forced[j];
        if (minus_ != nullptr) {
            s = minus(s, minus_->single[j]);
            f -= minus_->forced[j];
        }
        single_[j] = s;
        single4_[j] = Four{{s.c[0][0], s.c[0][1], s.c[1][0], s.c[1][1]}};
        forced_[j] = f;
        label_[0][j] = s.label(0);
        label_[1][j] = s.label(1);
        if (s.total() > 0) active_.push_back(j);
    }
}

void PairCounts::count(const word_t* classes) {
    count_singles(base_, classes);
    for (std::uint32_t a = 0; a < m_; ++a) {
        if (base_.single[a].total() > 0) count_row(base_, a);
    }
    plus_ = &base_;
    minus_ = nullptr;
    make_view();
}

void PairCounts::remove(const word_t* removed) {
    count_singles(other_, removed);
    plus_ = &base_;
    minus_ = &other_;
    make_view();
}

void PairCounts::count_alone(const word_t* classes) {
    count_singles(other_, classes);
    plus_ = &other_;
    minus_ = nullptr;
    make_view();
}

void PairCounts::count_rows(const std::vector<std::uint32_t>& rows) {
    if (plus_ == &base_ && minus_ == nullptr) return;  // the base has every row
    for (const std::uint32_t a : rows) {
        if (other_.single[a].total() > 0 && !other_.has_row(a)) count_row(other_, a);
        if (stop_ != nullptr && stop_->stopped()) return;
    }
}

// Rule (j, Q) after i: b = single(j) - pair(i, j) on scalars (the label and the number of
// gaps fixed at compile time), its gain, then the fairness gaps for each first label whose
// need the gain meets.
template <int Q, int Gaps>
std::size_t PairCounts::scan_gainers(std::uint32_t i, const std::vector<std::uint32_t>& order,
                                     const SecondRuleScreen& screen,
                                     std::vector<std::uint32_t>* out) const {
    const Quad* const plus = plus_->pair.data() + i * m_;
    const Quad* const minus =
        minus_ != nullptr && minus_->has_row(i) ? minus_->pair.data() + i * m_ : nullptr;
    const std::int64_t* const same = label_[Q].data();
    const std::int64_t need = std::min(screen.need[0], screen.need[1]);
    std::size_t examined = 0;
    for (const std::uint32_t j : order) {
        if (same[j] < need) break;
        if (j == i) continue;
        ++examined;
        // b by (group, label), Quad index 2 g + y.
        const Four& s = single4_[j];
        std::int64_t b[4] = {s.v[0] - plus[j].v[0], s.v[1] - plus[j].v[1],
                             s.v[2] - plus[j].v[2], s.v[3] - plus[j].v[3]};
        if (minus != nullptr) {
            for (int k = 0; k < 4; ++k) b[k] += minus[j].v[k];
        }
        const std::int64_t gain = (b[Q] + b[2 + Q]) - (b[1 - Q] + b[3 - Q]);
        if (gain < need) continue;
        double t[2] = {0.0, 0.0};
        for (int k = 0; k < Gaps; ++k) {
            for (int c = 0; c < 4; ++c) t[k] += screen.coef[k][c] * static_cast<double>(b[c]);
            t[k] *= screen.sign;
        }
        bool keep = false;
        for (int q1 = 0; q1 < 2 && !keep; ++q1) {
            if (gain < screen.need[q1]) continue;
            keep = true;
            for (int k = 0; k < Gaps; ++k) {
                if (std::fabs(screen.base[q1][k] + t[k]) > screen.cap) keep = false;
            }
        }
        if (keep) out->push_back(j);
    }
    return examined;
}

std::size_t PairCounts::gainers(std::uint32_t i, int q, const std::vector<std::uint32_t>& order,
                                const SecondRuleScreen& screen,
                                std::vector<std::uint32_t>* out) const {
    switch (screen.n_gaps * 2 + q) {
        case 0: return scan_gainers<0, 0>(i, order, screen, out);
        case 1: return scan_gainers<1, 0>(i, order, screen, out);
        case 2: return scan_gainers<0, 1>(i, order, screen, out);
        case 3: return scan_gainers<1, 1>(i, order, screen, out);
        case 4: return scan_gainers<0, 2>(i, order, screen, out);
        default: return scan_gainers<1, 2>(i, order, screen, out);
    }
}

// ---------------------------------------------------------------------------- the search's side

void Search::finish_by_counting(std::uint32_t index) {
    Walk prefix;
    const std::size_t depth = load_prefix(index, &prefix);
    pair_counts_->count(class_free_.data());
    if (poll_.stopped()) return;  // cut short: search_tree keeps the node's bound
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
    // A count cut short leaves partial counts (and the base uncounted): the search stops.
    if (poll_.stopped()) {
        terminal_base_ = false;
        terminal_counted_ = Trie::kNone;
        return;
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
// objective is at least the incumbent's, and a fourth skipping only unfair lists:
//  * the bounds of evaluate_child on the child P + (i, q1) (equivalent points, the class and
//    fairness bounds, with the child's length k2 = |P| + 2 and P's bound as a floor: every
//    list here is a completion of that child and of P; see bounds.hpp);
//  * a list beats the incumbent only if errors <= e_max (the largest count with
//    objective(e_max, k2) < best), i.e. gain >= need = e1 + rest1.label(q2) - e_max;
//  * gain <= b.label(q2) <= single(j).label(q2) (b is part of j's samples), so with the
//    antecedents sorted by single(j).label(q2), decreasing, the scan over j stops at the first
//    whose count is below need: no later j can reach it;
//  * the fairness screen (SecondRuleScreen, with a constraint on SP, PE, EOpp or EOdds and two
//    groups): the list's positive predictions per (group, label) are f1's plus b's (q2 = 1) or
//    f1's plus rest1's minus b's (q2 = 0, the default predicting 1), so each linear gap of
//    ClassFairnessBound::gap_coef is base + sign * (coef . b); the metric's unfairness is the
//    largest |gap| (SP, PE, EOpp: the one rate gap; EOdds: |a| + |b| = max(|a + b|, |a - b|)),
//    so a list with some |gap| above epsilon + kFeasibilityTol is unfair.  The screen's cap adds
//    kScreenMargin (1e-7), far above the rounding of these sums of products (about 1e-14), so
//    it skips no list that fair() would accept.  Switched off with the terminal solver.
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
    // First rules: the one-rule lists, and the rules (i, q1) worth a second rule.
    firsts_.clear();
    rows_.clear();
    const auto n_active = static_cast<std::int64_t>(pc.active().size());
    for (const std::uint32_t i : pc.active()) {
        // cut short: the caller's node keeps its bound
        if (poll_.poll(static_cast<std::int64_t>(data_.n_class_words()) + 1)) return;
        const SplitCounts& a = pc.single(i);
        const SplitCounts rest1 = minus(p.free, a);
        // Per label q1 of rule (i, q1): its errors and counts, and whether a second rule can
        // still beat the incumbent.
        First first;
        first.i = i;
        first.rest1 = rest1;
        bool* second = first.second;
        std::int64_t* e1 = first.e1;
        Fixed* f1 = first.f1;
        for (int q1 = 0; q1 < 2; ++q1) {
            if (!label_allowed(a, q1, maj)) continue;
            ++stats_.children_evaluated;
            const std::uint32_t rule = i << 1 | static_cast<std::uint32_t>(q1);
            e1[q1] = p.errors + a.label(1 - q1);
            f1[q1] = p.fixed;
            add_predicted(f1[q1], a, q1);
            for (int d = 0; d < 2; ++d) {  // P + (i, q1) + default d
                if (!label_allowed(rest1, d, maj)) continue;
                const std::int64_t e = e1[q1] + rest1.label(1 - d);
                if (!(objective(e, k1) < best_objective_)) continue;
                Fixed full = f1[q1];
                add_predicted(full, rest1, d);
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
        firsts_.push_back(first);
        rows_.push_back(i);
    }
    // Second rules, after the rows of the first ones are counted.
    pc.count_rows(rows_);
    if (poll_.stopped()) return;
    for (const First& first : firsts_) {
        if (poll_.poll(n_active)) return;
        const std::uint32_t i = first.i;
        const SplitCounts& rest1 = first.rest1;
        const bool* second = first.second;
        const std::int64_t* e1 = first.e1;
        const Fixed* f1 = first.f1;
        pc.set_row(i);
        const std::int64_t e_max = max_errors(k2);
        for (int q2 = 0; q2 < 2; ++q2) {
            const int d = 1 - q2;
            SecondRuleScreen screen;
            screen.n_gaps = screen_gaps_;
            screen.sign = q2 == 1 ? 1.0 : -1.0;
            screen.cap = problem_.epsilon + kFeasibilityTol + kScreenMargin;
            for (int k = 0; k < screen_gaps_; ++k) {
                const auto& c = terminal_bound_->gap_coef(static_cast<std::size_t>(k));
                for (int g = 0; g < 2; ++g) {
                    for (int y = 0; y < 2; ++y) screen.coef[k][2 * g + y] = c[g][y];
                }
            }
            for (int q1 = 0; q1 < 2; ++q1) {
                screen.need[q1] = second[q1] ? e1[q1] + rest1.label(q2) - e_max
                                             : std::numeric_limits<std::int64_t>::max();
                if (!second[q1]) continue;
                // The gaps without b: the positives of the prefix and rule i, and with q2 = 0
                // those of rest1 (the default's, b's being taken off through the sign).
                for (int k = 0; k < screen_gaps_; ++k) {
                    double v = 0.0;
                    for (int g = 0; g < 2; ++g) {
                        const double* c = screen.coef[k] + 2 * g;
                        v += c[0] * static_cast<double>(f1[q1].g[g].fp) +
                             c[1] * static_cast<double>(f1[q1].g[g].tp);
                        if (q2 == 0) {
                            v += c[0] * static_cast<double>(rest1.c[g][0]) +
                                 c[1] * static_cast<double>(rest1.c[g][1]);
                        }
                    }
                    screen.base[q1][k] = v;
                }
            }
            gainers_.clear();
            stats_.terminal_lists += static_cast<std::int64_t>(
                pc.gainers(i, q2, by_label_[q2], screen, &gainers_));
            for (const std::uint32_t j : gainers_) {
                const SplitCounts b = minus(pc.single(j), pc.pair(j));
                const std::int64_t gain = b.label(q2) - b.label(1 - q2);
                if (b.total() == 0 || !label_allowed(b, q2, maj)) continue;
                const SplitCounts rest = minus(rest1, b);
                if (!label_allowed(rest, d, maj)) continue;
                for (int q1 = 0; q1 < 2; ++q1) {  // P + (i, q1) + (j, q2) + default d
                    if (!second[q1] || gain < screen.need[q1]) continue;
                    const std::int64_t e = e1[q1] + rest1.label(q2) - gain;
                    if (!(objective(e, k2) < best_objective_)) continue;
                    Fixed full = f1[q1];
                    add_predicted(full, b, q2);
                    add_predicted(full, rest, d);
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
