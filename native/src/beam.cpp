// The beam search (beam.hpp).
#include "fairlist/beam.hpp"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <vector>

#include "fairlist/bounds.hpp"

namespace fairlist {

namespace {
constexpr double kInf = std::numeric_limits<double>::infinity();
}  // namespace

BeamSearch::BeamSearch(const SearchContext& ctx, Incumbent& incumbent, const StopCheck& poll,
                       Stats& stats)
    : ctx_(ctx), incumbent_(incumbent), poll_(poll), stats_(stats) {}

bool BeamSearch::better(const Candidate& a, const Candidate& b) {
    if (a.score != b.score) return a.score < b.score;
    if (a.parent != b.parent) return a.parent < b.parent;
    return a.rule < b.rule;
}

void BeamSearch::run(std::size_t width) {
    width_ = width;
    limit_ = std::min<std::size_t>(ctx_.max_length(), kMaxLength);
    if (width_ == 0 || limit_ == 0) return;
    rules_.assign(limit_, 0);
    free_.resize(ctx_.data().n_words());
    used_.assign(ctx_.data().n_antecedents(), 0);
    std::size_t beam_size = 1;
    for (std::size_t length = 1; length <= limit_; ++length) {
        heap_.clear();
        for (std::size_t b = 0; b < beam_size; ++b) {
            // Ctrl-C and the time limit hold during the beam too (the search then stops at once).
            if (poll_.flagged() || poll_.time_up()) return;
            extend(b, length);
        }
        if (heap_.empty() ||
            incumbent_.objective() <= ctx_.problem().lam * static_cast<double>(length + 1)) {
            return;
        }
        next_beam(length);
        beam_size = heap_.size();
    }
}

void BeamSearch::extend(std::size_t b, std::size_t length) {
    const RuleData& data = ctx_.data();
    const std::uint32_t* rb = rules_.data() + b * limit_;
    Walk prefix;
    ctx_.walk_prefix(rb, length - 1, free_.data(), &prefix);
    for (std::size_t k = 0; k + 1 < length; ++k) used_[rb[k] >> 1] = 1;
    path_.assign(rb, rb + length - 1);
    SplitCounts captured;
    std::int64_t forced;
    for (std::uint32_t j = 0; j < data.n_antecedents(); ++j) {
        if (used_[j]) continue;
        data.count(data.rule(j), free_.data(), &captured, &forced);
        if (captured.total() == 0) continue;
        for (int q = 0; q < 2; ++q) {
            if (!label_allowed(captured, q, ctx_.majority_labels())) continue;
            child(b, length, prefix, captured, j << 1 | static_cast<std::uint32_t>(q));
        }
    }
    for (std::size_t k = 0; k + 1 < length; ++k) used_[rb[k] >> 1] = 0;
}

void BeamSearch::child(std::size_t b, std::size_t length, const Walk& prefix,
                       const SplitCounts& captured, std::uint32_t rule) {
    const ProblemSpec& problem = ctx_.problem();
    const int q = static_cast<int>(rule & 1U);
    const SplitCounts u = minus(prefix.free, captured);
    Fixed f = prefix.fixed;
    add_predicted(f, captured, q);
    const std::int64_t err = prefix.errors + captured.label(1 - q);
    double best_fair = kInf, least_excess = kInf;
    for (int d = 0; d < 2; ++d) {
        if (!label_allowed(u, d, ctx_.majority_labels())) continue;
        Fixed full = f;
        add_predicted(full, u, d);
        const std::int64_t e = err + u.label(1 - d);
        const double obj = ctx_.objective(e, length);
        if (ctx_.fair(full)) {
            best_fair = std::min(best_fair, obj);
            bool improved = false;
            incumbent_.offer(obj, e, path_.data(), path_.size(), rule, d, [] { return true; },
                             &improved);
            if (improved) ++stats_.incumbent_updates;
        } else {
            const double unf = unfairness(problem.metric, full);
            least_excess = std::min(least_excess, obj + unf - problem.epsilon);
        }
    }
    // A longer list has one more rule and at least these errors.
    if (length == limit_ || u.total() == 0 ||
        ctx_.objective(err, length + 1) >= incumbent_.objective()) {
        return;
    }
    keep(Candidate{best_fair < kInf ? best_fair : 10.0 + least_excess,
                   static_cast<std::uint32_t>(b), rule});
}

void BeamSearch::keep(const Candidate& c) {
    if (heap_.size() < width_) {
        heap_.push_back(c);
        std::push_heap(heap_.begin(), heap_.end(), better);
    } else if (better(c, heap_.front())) {
        std::pop_heap(heap_.begin(), heap_.end(), better);
        heap_.back() = c;
        std::push_heap(heap_.begin(), heap_.end(), better);
    }
}

void BeamSearch::next_beam(std::size_t length) {
    std::sort_heap(heap_.begin(), heap_.end(), better);  // best first
    const std::size_t beam_size = heap_.size();
    next_rules_.assign(beam_size * limit_, 0);
    for (std::size_t c = 0; c < beam_size; ++c) {
        std::copy_n(rules_.data() + heap_[c].parent * limit_, length - 1,
                    next_rules_.data() + c * limit_);
        next_rules_[c * limit_ + length - 1] = heap_[c].rule;
    }
    rules_.swap(next_rules_);
}

}  // namespace fairlist
