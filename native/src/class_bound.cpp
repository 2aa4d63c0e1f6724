#include "fairlist/class_bound.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace fairlist {

namespace {

constexpr double kCapMargin = 1e-9;    // added to epsilon (beyond kFeasibilityTol)
constexpr double kGapSlack = 1e-10;    // remaining gap regarded as covered (rounding)
constexpr double kCostMargin = 1e-6;   // subtracted before rounding the LP optimum up, plus
constexpr double kCostRelMargin = 1e-12;  // this times the total weight (sums of large weights)

inline bool has(const word_t* set, std::size_t e) {
    return (set[e / kWordBits] >> (e % kWordBits)) & 1U;
}

}  // namespace

void ClassFairnessBound::set_cap(double epsilon) {
    cap_ = epsilon + kFeasibilityTol + kCapMargin;
}

ClassFairnessBound::ClassFairnessBound(const RuleData& data, Metric metric, double epsilon)
    : data_(data),
      cap_(epsilon + kFeasibilityTol + kCapMargin),
      cost_margin_(kCostMargin + kCostRelMargin * static_cast<double>(data.total_weight())) {
    const std::size_t nc = data.n_classes();
    majority_positive_.resize(nc);
    cost_.resize(nc);
    positive_mask_.assign(data.n_class_words(), 0);
    for (std::size_t e = 0; e < nc; ++e) {
        const std::int64_t pos = data.class_label(e, 1), neg = data.class_label(e, 0);
        majority_positive_[e] = pos > neg ? 1 : 0;
        cost_[e] = static_cast<double>(pos > neg ? pos - neg : neg - pos);
        if (pos > neg) positive_mask_[e / kWordBits] |= word_t{1} << (e % kWordBits);
    }
    const int k = data.n_groups();
    for (int ga = 0; ga < k; ++ga) {
        for (int gb = ga + 1; gb < k; ++gb) {
            // The rates of the pair, signed + for ga and - for gb (a[0][y]: ga's, a[1][y]: gb's).
            double a[2][2], b[2][2];
            auto rate_pair = [&](bool label0, bool label1, double out[2][2]) {
                rate_coef(ga, label0, label1, out[0]);
                rate_coef(gb, label0, label1, out[1]);
                out[1][0] = -out[1][0];
                out[1][1] = -out[1][1];
            };
            switch (metric) {
                case Metric::SP:
                    rate_pair(true, true, a);
                    add_gap(ga, gb, a);
                    break;
                case Metric::PE:
                    rate_pair(true, false, a);
                    add_gap(ga, gb, a);
                    break;
                case Metric::EOPP:
                    rate_pair(false, true, a);
                    add_gap(ga, gb, a);
                    break;
                case Metric::EODDS: {
                    rate_pair(false, true, a);  // TPR gap
                    rate_pair(true, false, b);  // FPR gap
                    double sum[2][2], diff[2][2];
                    for (int s = 0; s < 2; ++s) {
                        for (int y = 0; y < 2; ++y) {
                            sum[s][y] = a[s][y] + b[s][y];
                            diff[s][y] = a[s][y] - b[s][y];
                        }
                    }
                    add_gap(ga, gb, sum);
                    add_gap(ga, gb, diff);
                    break;
                }
                case Metric::PP:
                case Metric::CUAE:
                    return;  // not linear: no gap, the bound is inactive
            }
        }
    }
}

void ClassFairnessBound::rate_coef(int g, bool label0, bool label1, double inv[2]) const {
    const SplitCounts& t = data_.totals();
    const std::int64_t den = (label0 ? t.c[g][0] : 0) + (label1 ? t.c[g][1] : 0);
    const double v = den ? 1.0 / static_cast<double>(den) : 0.0;
    inv[0] = label0 ? v : 0.0;
    inv[1] = label1 ? v : 0.0;
}

void ClassFairnessBound::add_gap(int ga, int gb, const double coef[2][2]) {
    Gap gap;
    gap.groups[0] = ga;
    gap.groups[1] = gb;
    for (int s = 0; s < 2; ++s) {
        for (int y = 0; y < 2; ++y) gap.coef[s][y] = coef[s][y];
    }
    gaps_.push_back(std::move(gap));
}

void ClassFairnessBound::build(Gap& gap) const {
    const std::size_t nc = data_.n_classes();
    gap.w.resize(nc);
    for (std::size_t e = 0; e < nc; ++e) {
        double w = 0.0;
        for (int s = 0; s < 2; ++s) {
            for (int y = 0; y < 2; ++y) {
                w += gap.coef[s][y] * static_cast<double>(data_.class_count(e, gap.groups[s], y));
            }
        }
        gap.w[e] = w;
        if (w == 0.0) continue;
        // Turning a class to its other label changes the gap by -w (if now positive) or +w.
        const double change = majority_positive_[e] ? -w : w;
        (change < 0 ? gap.down : gap.up).push_back(static_cast<std::uint32_t>(e));
    }
    auto cheaper = [&](std::uint32_t a, std::uint32_t b) {
        const double ra = cost_[a] / std::fabs(gap.w[a]), rb = cost_[b] / std::fabs(gap.w[b]);
        return ra < rb || (ra == rb && a < b);
    };
    std::sort(gap.down.begin(), gap.down.end(), cheaper);
    std::sort(gap.up.begin(), gap.up.end(), cheaper);
    gap.built = true;
}

void ClassFairnessBound::prepare(const word_t* class_free) {
    class_free_ = class_free;
    ++epoch_;
}

void ClassFairnessBound::prepare_gap(Gap& gap) const {
    if (!gap.built) build(gap);
    const std::vector<std::uint32_t>* orders[2] = {&gap.down, &gap.up};
    for (int d = 0; d < 2; ++d) {
        std::vector<Move>& out = gap.moves[d];
        out.clear();
        for (const std::uint32_t e : *orders[d]) {
            if (has(class_free_, e)) out.push_back(Move{std::fabs(gap.w[e]), cost_[e], e});
        }
    }
    gap.prepared_for = epoch_;
}

SplitCounts ClassFairnessBound::majority_positive(const word_t* classes) const {
    const int k = data_.n_groups();
    SplitCounts positive(k);
    const std::size_t cw = data_.n_class_words();
    for (std::size_t i = 0; i < cw; ++i) {
        word_t x = classes[i] & positive_mask_[i];
        while (x) {
            const std::size_t e = i * kWordBits + static_cast<std::size_t>(portable::ctz64(x));
            x &= x - 1;
            for (int g = 0; g < k; ++g) {
                positive.add(g, 0, data_.class_count(e, g, 0));
                positive.add(g, 1, data_.class_count(e, g, 1));
            }
        }
    }
    return positive;
}

bool ClassFairnessBound::bound(const Fixed& fixed, const word_t* class_free,
                               const word_t* class_rule, const SplitCounts& free_positive,
                               std::int64_t forced, std::int64_t* errors) {
    *errors = forced;
    if (gaps_.empty()) return true;
    // Weights of the uncaptured samples the majority labelling predicts positive: those of the
    // prefix minus those the new rule captures.
    const int k = data_.n_groups();
    const std::size_t cw = data_.n_class_words();
    SplitCounts positive = free_positive;
    if (k == 2) {
        // The usual case, summed in four registers (a sum kept in `positive` would make each
        // class wait for the previous one's store).
        std::int64_t sum[4] = {0, 0, 0, 0};
        for (std::size_t i = 0; i < cw; ++i) {
            word_t x = class_free[i] & class_rule[i] & positive_mask_[i];
            while (x) {
                const std::size_t e = i * kWordBits + static_cast<std::size_t>(portable::ctz64(x));
                x &= x - 1;
                const std::int64_t* c = data_.class_counts(e);
                for (int t = 0; t < 4; ++t) sum[t] += c[t];
            }
        }
        for (int g = 0; g < 2; ++g) {
            positive.c[g][0] -= sum[2 * g];
            positive.c[g][1] -= sum[2 * g + 1];
        }
    } else {
        for (std::size_t i = 0; i < cw; ++i) {
            word_t x = class_free[i] & class_rule[i] & positive_mask_[i];
            while (x) {
                const std::size_t e = i * kWordBits + static_cast<std::size_t>(portable::ctz64(x));
                x &= x - 1;
                for (int g = 0; g < k; ++g) {
                    positive.c[g][0] -= data_.class_count(e, g, 0);
                    positive.c[g][1] -= data_.class_count(e, g, 1);
                }
            }
        }
    }
    double worst_extra = 0.0;
    for (Gap& gap : gaps_) {
        double s = 0.0;
        for (int side = 0; side < 2; ++side) {
            // Positive predictions per label: the prefix's, then the majority labelling's.
            const int g = gap.groups[side];
            s += gap.coef[side][0] * static_cast<double>(fixed.g[g].fp + positive.c[g][0]) +
                 gap.coef[side][1] * static_cast<double>(fixed.g[g].tp + positive.c[g][1]);
        }
        double need;
        int direction;
        if (s > cap_) {
            need = s - cap_;
            direction = 0;
        } else if (s < -cap_) {
            need = -cap_ - s;
            direction = 1;
        } else {
            continue;
        }
        if (gap.prepared_for != epoch_) prepare_gap(gap);
        // The walk, without a branch on whether the rule captures a class: a captured move
        // counts with weight and cost zero (need stays positive until the walk ends, so a zero
        // weight never ends it).
        double extra = 0.0;
        for (const Move& m : gap.moves[direction]) {
            const auto kept =
                static_cast<double>(~class_rule[m.e / kWordBits] >> (m.e % kWordBits) & 1U);
            const double w = m.w * kept;
            if (w >= need) {
                extra += m.cost * (need / w);
                need = 0.0;
                break;
            }
            extra += m.cost * kept;
            need -= w;
        }
        if (need > kGapSlack) return false;
        worst_extra = std::max(worst_extra, extra);
    }
    const double rounded = std::ceil(worst_extra - cost_margin_);
    if (rounded > 0) *errors = forced + static_cast<std::int64_t>(rounded);
    return true;
}

}  // namespace fairlist
