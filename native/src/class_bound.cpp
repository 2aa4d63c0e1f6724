#include "fairlist/class_bound.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace fairlist {

namespace {

constexpr double kCapMargin = 1e-9;    // added to epsilon (beyond kFeasibilityTol)
constexpr double kGapSlack = 1e-10;    // remaining gap regarded as covered (rounding)
constexpr double kCostMargin = 1e-6;   // subtracted before rounding the LP optimum up

}  // namespace

ClassFairnessBound::ClassFairnessBound(const RuleData& data, Metric metric, double epsilon)
    : data_(data), cap_(epsilon + kFeasibilityTol + kCapMargin) {
    const std::size_t nc = data.n_classes();
    majority_positive_.resize(nc);
    cost_.resize(nc);
    positive_mask_.assign(data.n_class_words(), 0);
    for (std::size_t e = 0; e < nc; ++e) {
        const SplitCounts& c = data.class_counts(e);
        const std::int64_t pos = c.label(1), neg = c.label(0);
        majority_positive_[e] = pos > neg ? 1 : 0;
        cost_[e] = static_cast<double>(pos > neg ? pos - neg : neg - pos);
        if (pos > neg) positive_mask_[e / kWordBits] |= word_t{1} << (e % kWordBits);
    }
    double a[2][2], b[2][2];
    switch (metric) {
        case Metric::SP:
            rate_gap(true, true, a);
            add_gap(a);
            break;
        case Metric::PE:
            rate_gap(true, false, a);
            add_gap(a);
            break;
        case Metric::EOPP:
            rate_gap(false, true, a);
            add_gap(a);
            break;
        case Metric::EODDS: {
            rate_gap(false, true, a);  // TPR gap
            rate_gap(true, false, b);  // FPR gap
            double sum[2][2], diff[2][2];
            for (int g = 0; g < 2; ++g) {
                for (int y = 0; y < 2; ++y) {
                    sum[g][y] = a[g][y] + b[g][y];
                    diff[g][y] = a[g][y] - b[g][y];
                }
            }
            add_gap(sum);
            add_gap(diff);
            break;
        }
        default:
            break;  // PP, CUAE: not linear
    }
}

void ClassFairnessBound::rate_gap(bool label0, bool label1, double coef[2][2]) const {
    const SplitCounts& t = data_.totals();
    const bool counted[2] = {label0, label1};
    for (int g = 0; g < 2; ++g) {
        const std::int64_t den = (label0 ? t.c[g][0] : 0) + (label1 ? t.c[g][1] : 0);
        const double inv = den ? 1.0 / static_cast<double>(den) : 0.0;
        for (int y = 0; y < 2; ++y) coef[g][y] = counted[y] ? (g == 0 ? inv : -inv) : 0.0;
    }
}

void ClassFairnessBound::add_gap(const double coef[2][2]) {
    if (gaps_.size() >= 2) throw std::logic_error("class bound: at most two gaps");
    Gap gap;
    for (int g = 0; g < 2; ++g) {
        for (int y = 0; y < 2; ++y) gap.coef[g][y] = coef[g][y];
    }
    const std::size_t nc = data_.n_classes();
    gap.w.resize(nc);
    for (std::size_t e = 0; e < nc; ++e) {
        const SplitCounts& c = data_.class_counts(e);
        double w = 0.0;
        for (int g = 0; g < 2; ++g) {
            for (int y = 0; y < 2; ++y) w += gap.coef[g][y] * static_cast<double>(c.c[g][y]);
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
    gaps_.push_back(std::move(gap));
}

void ClassFairnessBound::prepare(const word_t* class_free) {
    for (std::size_t k = 0; k < gaps_.size(); ++k) {
        const Gap& gap = gaps_[k];
        const std::vector<std::uint32_t>* orders[2] = {&gap.down, &gap.up};
        for (int d = 0; d < 2; ++d) {
            std::vector<Move>& out = prepared_[k][d];
            out.clear();
            for (const std::uint32_t e : *orders[d]) {
                if ((class_free[e / kWordBits] >> (e % kWordBits)) & 1U) {
                    out.push_back(Move{std::fabs(gap.w[e]), cost_[e], e});
                }
            }
        }
    }
}

SplitCounts ClassFairnessBound::majority_positive(const word_t* classes) const {
    SplitCounts positive;
    const std::size_t cw = data_.n_class_words();
    for (std::size_t i = 0; i < cw; ++i) {
        word_t x = classes[i] & positive_mask_[i];
        while (x) {
            const std::size_t e = i * kWordBits + static_cast<std::size_t>(__builtin_ctzll(x));
            x &= x - 1;
            const SplitCounts& c = data_.class_counts(e);
            for (int g = 0; g < 2; ++g) {
                positive.c[g][0] += c.c[g][0];
                positive.c[g][1] += c.c[g][1];
            }
        }
    }
    return positive;
}

bool ClassFairnessBound::bound(const GroupConfusion fixed[2], const word_t* class_free,
                               const word_t* class_rule, const SplitCounts& free_positive,
                               std::int64_t forced, std::int64_t* errors) const {
    *errors = forced;
    if (gaps_.empty()) return true;
    // Counts of the uncaptured samples the majority labelling predicts positive: those of the
    // prefix minus those the new rule captures.
    const std::size_t cw = data_.n_class_words();
    SplitCounts positive = free_positive;
    for (std::size_t i = 0; i < cw; ++i) {
        word_t x = class_free[i] & class_rule[i] & positive_mask_[i];
        while (x) {
            const std::size_t e = i * kWordBits + static_cast<std::size_t>(__builtin_ctzll(x));
            x &= x - 1;
            const SplitCounts& c = data_.class_counts(e);
            for (int g = 0; g < 2; ++g) {
                positive.c[g][0] -= c.c[g][0];
                positive.c[g][1] -= c.c[g][1];
            }
        }
    }
    double worst_extra = 0.0;
    for (std::size_t k = 0; k < gaps_.size(); ++k) {
        const Gap& gap = gaps_[k];
        double s = 0.0;
        for (int g = 0; g < 2; ++g) {
            // Positive predictions per label: the prefix's, then the majority labelling's.
            s += gap.coef[g][0] * static_cast<double>(fixed[g].fp + positive.c[g][0]) +
                 gap.coef[g][1] * static_cast<double>(fixed[g].tp + positive.c[g][1]);
        }
        double need;
        const std::vector<Move>* moves;
        if (s > cap_) {
            need = s - cap_;
            moves = &prepared_[k][0];
        } else if (s < -cap_) {
            need = -cap_ - s;
            moves = &prepared_[k][1];
        } else {
            continue;
        }
        double extra = 0.0;
        for (const Move& m : *moves) {
            if ((class_rule[m.e / kWordBits] >> (m.e % kWordBits)) & 1U) continue;  // captured
            if (m.w >= need) {
                extra += m.cost * (need / m.w);
                need = 0.0;
                break;
            }
            extra += m.cost;
            need -= m.w;
        }
        if (need > kGapSlack) return false;
        worst_extra = std::max(worst_extra, extra);
    }
    const double rounded = std::ceil(worst_extra - kCostMargin);
    if (rounded > 0) *errors = forced + static_cast<std::int64_t>(rounded);
    return true;
}

}  // namespace fairlist
