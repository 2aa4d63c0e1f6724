// The beam search that gives the branch-and-bound its first incumbent (Search::run_beam).
//
// Under a node budget the branch-and-bound returns the best list it has met, and breadth-first
// order meets long lists late; a good incumbent early also prunes more.  The beam builds lists
// rule by rule and keeps, at each length, the `width` prefixes whose best fair "prefix +
// default" list is cheapest (prefixes with no fair such list come after, by objective plus
// excess unfairness).  Every list it meets goes through offer_incumbent, so only fair lists of
// the searched space become the incumbent; it proves nothing and changes no certificate.
//
// Memory is O(width * length) whatever the data size: a prefix keeps only its rules; its
// uncaptured samples and counts are recomputed from them when it is extended (walk_prefix:
// length AND-NOT and counting passes, against the 2 * n_antecedents counting passes its children
// cost anyway); the candidates of a level are kept in a bounded heap of the `width` best.
#include <algorithm>
#include <cstdint>
#include <limits>
#include <vector>

#include "fairlist/bounds.hpp"
#include "fairlist/search.hpp"

namespace fairlist {

namespace {

struct Candidate {
    double score;
    std::uint32_t parent;  // index in the current beam
    std::uint32_t rule;    // antecedent << 1 | prediction
};

// Lower score first; ties by beam position, then rule: deterministic.
bool better(const Candidate& a, const Candidate& b) {
    if (a.score != b.score) return a.score < b.score;
    if (a.parent != b.parent) return a.parent < b.parent;
    return a.rule < b.rule;
}

}  // namespace

void Search::run_beam() {
    const std::size_t width = static_cast<std::size_t>(config_.beam_width);
    const std::size_t limit = std::min<std::size_t>(max_length_, kBeamMaxLength);
    if (width == 0 || limit == 0) return;
    const std::size_t nw = data_.n_words();
    const std::size_t m = data_.n_antecedents();
    constexpr double kInf = std::numeric_limits<double>::infinity();

    // The beam: prefix b has rules [b * limit, b * limit + length - 1).
    std::vector<std::uint32_t> rules(limit), next_rules;
    std::size_t beam_size = 1;
    std::vector<Candidate> heap;  // the best candidates so far, worst on top
    std::vector<word_t> free(nw);
    std::vector<std::uint8_t> used(m, 0);
    SplitCounts captured;
    std::int64_t forced;

    for (std::size_t length = 1; length <= limit; ++length) {
        heap.clear();
        for (std::size_t b = 0; b < beam_size; ++b) {
            // Ctrl-C and the time limit hold during the beam too (the search then stops at once).
            if (stop_.load(std::memory_order_relaxed) ||
                (config_.time_limit > 0 && elapsed() >= config_.time_limit)) {
                return;
            }
            const std::uint32_t* rb = rules.data() + b * limit;
            Walk prefix;
            walk_prefix(rb, length - 1, free.data(), &prefix);
            for (std::size_t k = 0; k + 1 < length; ++k) used[rb[k] >> 1] = 1;
            path_.assign(rb, rb + length - 1);
            for (std::uint32_t j = 0; j < m; ++j) {
                if (used[j]) continue;
                data_.count(data_.rule(j), free.data(), &captured, &forced);
                if (captured.total() == 0) continue;
                const SplitCounts u = minus(prefix.free, captured);
                for (int q = 0; q < 2; ++q) {
                    if (!label_allowed(captured, q, majority_labels_)) continue;
                    Fixed f = prefix.fixed;
                    add_predicted(f, captured, q);
                    const std::int64_t err = prefix.errors + captured.label(1 - q);
                    const std::uint32_t rule = j << 1 | static_cast<std::uint32_t>(q);
                    double best_fair = kInf, least_excess = kInf;
                    for (int d = 0; d < 2; ++d) {
                        if (!label_allowed(u, d, majority_labels_)) continue;
                        Fixed full = f;
                        add_predicted(full, u, d);
                        const std::int64_t e = err + u.label(1 - d);
                        const double obj = objective(e, length);
                        if (fair(full)) {
                            best_fair = std::min(best_fair, obj);
                            offer_incumbent(e, length, full, rule, d);
                        } else {
                            const double unf = unfairness(problem_.metric, full);
                            least_excess = std::min(least_excess, obj + unf - problem_.epsilon);
                        }
                    }
                    // A longer list has one more rule and at least these errors.
                    if (length == limit || u.total() == 0 ||
                        objective(err, length + 1) >= best_objective_) {
                        continue;
                    }
                    const Candidate c{best_fair < kInf ? best_fair : 10.0 + least_excess,
                                      static_cast<std::uint32_t>(b), rule};
                    if (heap.size() < width) {
                        heap.push_back(c);
                        std::push_heap(heap.begin(), heap.end(), better);
                    } else if (better(c, heap.front())) {
                        std::pop_heap(heap.begin(), heap.end(), better);
                        heap.back() = c;
                        std::push_heap(heap.begin(), heap.end(), better);
                    }
                }
            }
            for (std::size_t k = 0; k + 1 < length; ++k) used[rb[k] >> 1] = 0;
        }
        if (heap.empty() || best_objective_ <= problem_.lam * static_cast<double>(length + 1)) {
            return;
        }
        std::sort_heap(heap.begin(), heap.end(), better);  // best first
        beam_size = heap.size();
        next_rules.assign(beam_size * limit, 0);
        for (std::size_t c = 0; c < beam_size; ++c) {
            std::copy_n(rules.data() + heap[c].parent * limit, length - 1,
                        next_rules.data() + c * limit);
            next_rules[c * limit + length - 1] = heap[c].rule;
        }
        rules.swap(next_rules);
    }
}

}  // namespace fairlist
