// The terminal solver (terminal_solver.hpp): finish_prefix for a popped prefix, finish_child for
// a prefix just created, through enumerate(), which evaluates every list of one or two more
// rules below it.
#include "fairlist/terminal_solver.hpp"

#include <algorithm>
#include <cmath>
#include <iterator>
#include <limits>

#include "fairlist/bounds.hpp"

namespace fairlist {

namespace {

// The map key of the first-rule children it bounds (fairness_bounds reads none: they are never
// in the trie or the map).
const MapKey kNoKey{};

}  // namespace

TerminalSolver::TerminalSolver(const SearchContext& ctx, Incumbent& incumbent, StopCheck& poll,
                               Stats& stats)
    : ctx_(ctx),
      incumbent_(incumbent),
      poll_(poll),
      stats_(stats),
      counts_(ctx.data(), &poll, ctx.config().use_class_pair_counts,
              ctx.config().use_weight_plane_counts, ctx.diagnostics().packed_pair_counts,
              ctx.diagnostics().mirrored_pair_rows),
      bound_(ctx.data(), ctx.problem().metric, ctx.problem().epsilon),
      classes_(ctx.data().n_class_words()),
      removed_(ctx.data().n_class_words()),
      sink_(ctx, incumbent, stats) {
    for (auto& f : finished_in_) f.assign(ctx.data().n_antecedents(), 0);
    if (ctx.problem().constrained) screen_gaps_ = static_cast<int>(bound_.n_gaps());
}

void TerminalSolver::finish_prefix(const Walk& prefix, std::int64_t floor, std::size_t depth,
                                   const word_t* classes, std::vector<std::uint32_t>* path) {
    counts_.count(classes);
    if (poll_.stopped()) return;  // cut short: the search keeps the node's bound
    const Finish p{prefix.fixed, prefix.errors, prefix.free, prefix.forced_free,
                   floor, depth, classes};
    enumerate(p, path);
}

void TerminalSolver::finish_child(const ChildRecord& child, const word_t* parent_classes,
                                  std::vector<std::uint32_t>* path) {
    const std::uint32_t j = child.rule >> 1;
    const auto q = static_cast<int>(child.rule & 1U);
    // The child's classes: the expanded prefix's minus those j captures.
    const std::size_t cw = ctx_.data().n_class_words();
    const word_t* r = ctx_.data().class_rule(j);
    for (std::size_t w = 0; w < cw; ++w) {
        classes_[w] = parent_classes[w] & ~r[w];
        removed_[w] = parent_classes[w] & r[w];
    }
    // Its counts: the expanded prefix's (counted once per expansion) minus those of the
    // classes j captures, or its own classes counted afresh when that is less work.  The two
    // labels of j share them.
    if (j != counted_) {
        if (!base_) {
            counts_.count(parent_classes);
            base_ = true;
        }
        if (counts_.cheaper_to_remove(removed_.data())) {
            counts_.remove(removed_.data(), j);
        } else {
            counts_.count_alone(classes_.data());
        }
        counted_ = j;
    }
    // A count cut short leaves partial counts (and the base uncounted): the search stops.
    if (poll_.stopped()) {
        begin_expansion();
        return;
    }
    path->push_back(child.rule);
    const Finish p{*child.fixed, child.errors, *child.free, child.forced_free,
                   child.lb_errors, child.k, classes_.data(), child.rule};
    enumerate(p, path);
    path->pop_back();
    if (!poll_.stopped()) finished_in_[q][j] = expansion_;
}

// Every list of the space with one or two more rules below the prefix p, offered as incumbent
// when fair and no worse.
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
//  * gain <= single(j).label(q2) (b is part of j's samples) and gain <= single(j).label(q2) -
//    single(j).label(1 - q2) + single(i).label(1 - q2) (the pair's counts lie between 0 and
//    i's), so a j with either bound below need cannot reach it: collect_candidates and
//    PairCounts::gainers filter on both;
//  * the fairness screen (SecondRuleScreen, with a constraint on SP, PE, EOpp or EOdds and two
//    groups): the list's positive predictions per (group, label) are f1's plus b's (q2 = 1) or
//    f1's plus rest1's minus b's (q2 = 0, the default predicting 1), so each linear gap of
//    ClassFairnessBound::gap_coef is base + sign * (coef . b); the metric's unfairness is the
//    largest |gap| (SP, PE, EOpp: the one rate gap; EOdds: |a| + |b| = max(|a + b|, |a - b|)),
//    so a list with some |gap| above epsilon + kFeasibilityTol is unfair.  The screen's cap adds
//    kScreenMargin (1e-7), far above the rounding of these sums of products (about 1e-14), so
//    it skips no list that fair() would accept.  Switched off with the terminal solver.
// Every list left is checked exactly: ListSink::offer compares its objective and calls fair().
// First rules that a finished sibling already covered are skipped (the terminal symmetry,
// first_rules).
// In the Rashomon mode "the incumbent" reads "the cutoff" throughout (SearchContext::cutoff),
// and the lists skipped as predicting like a shorter one are offered too (same_label_lists).
void TerminalSolver::enumerate(const Finish& p, std::vector<std::uint32_t>* path) {
    ++stats_.terminal_prefixes;
    if (ctx_.use_class_bound()) {
        positive_ = bound_.majority_positive(p.classes);
        bound_.set_cap(ctx_.fair_cap(incumbent_));  // for this prefix's first rules
        bound_.prepare(p.classes);
    }
    if (!first_rules(p, path)) return;  // cut short: the caller's node keeps its bound
    if (firsts_.empty()) return;        // no first rule is worth a second one
    collect_candidates(p.depth + 2);
    // Second rules, after the rows of the first ones are counted: only their columns that a
    // scan of candidates or pair() can read (the candidates of either label), except in the
    // Rashomon mode, whose same_label_lists reads every active one.
    const std::vector<std::uint32_t>* columns = nullptr;
    if (!ctx_.all_spellings()) {
        columns_.clear();
        std::set_union(candidates_[0].ids.begin(), candidates_[0].ids.end(),
                       candidates_[1].ids.begin(), candidates_[1].ids.end(),
                       std::back_inserter(columns_));
        columns = &columns_;
    }
    counts_.count_rows(rows_, columns);
    if (poll_.stopped()) return;
    const auto n_active = static_cast<std::int64_t>(counts_.active().size());
    for (const First& first : firsts_) {
        if (poll_.poll(n_active)) return;
        second_rules(first, p.depth + 2, path);
    }
}

// The candidates of the second rules' scans (PairCounts::gainers), per label q of the second
// rule: the active antecedents, in increasing order, with same(j) = label(q, j) at least the
// `floor`, the least need = min over q1 of screen.need[q1] = e1[q1] + rest1.label(q) - e_max
// (make_screen) over every first rule, with e_max read now.  The incumbent (or the Rashomon
// cutoff) only falls, so e_max only falls and every later need is at least the floor: an
// antecedent below it can pass no scan, and leaving it out changes nothing a scan finds.
// (The scans once walked the antecedents sorted by same(j) and stopped at the first below
// need; the sorts and the scans' unpredictable stops were a third of the <= 5-rule
// certificate.  A floor on the scans' other bound, net(j), left out a few more: too rarely
// tight for the test suites to check it, so it is not used.)
void TerminalSolver::collect_candidates(std::size_t k2) {
    const std::int64_t e_max = max_errors(k2);
    for (int q = 0; q < 2; ++q) {
        std::int64_t floor = std::numeric_limits<std::int64_t>::max();
        for (const First& first : firsts_) {
            for (int q1 = 0; q1 < 2; ++q1) {
                if (first.second[q1]) {
                    floor = std::min(floor, first.e1[q1] + first.rest1.label(q) - e_max);
                }
            }
        }
        SecondRuleCandidates& c = candidates_[q];
        c.clear();
        for (const std::uint32_t x : counts_.active()) {
            const std::int64_t same = counts_.label(q, x);
            if (same >= floor) c.add(x, same, same - counts_.label(1 - q, x));
        }
    }
}

bool TerminalSolver::first_rules(const Finish& p, std::vector<std::uint32_t>* path) {
    const std::size_t k1 = p.depth + 1, k2 = p.depth + 2;
    const bool maj = ctx_.majority_labels();
    const bool hierarchical = ctx_.config().use_hierarchical_bound;
    // The sibling symmetry (Config::use_terminal_symmetry).  Let P = Q + (j, q) be a child of
    // the expanded prefix Q, finished here, and (i, q) a first rule of the same label.  Every
    // list Q + (j, q) + (i, q) + R predicts as Q + (i, q) + (j, q) + R: rules of one label in a
    // row give that label to the union of what they capture, whatever their order, and R sees
    // the same uncaptured samples.  The two have the same length, so the same errors, fairness
    // and objective.  When the sibling P' = Q + (i, q) was finished, completely, earlier in
    // this expansion, its enumeration met every such list with first rule (j, q) there: it
    // offered it, or cut it by a bound or a screen that holds for the list's predictions and
    // length and an incumbent no lower than today's.  If (j, q) captures nothing after (i, q),
    // the list predicts as Q + (i, q) + R, a list of one rule less below P', met there too.
    // So below P, first rule (i, q) leads to no list better than one already met: skipped.
    //  * P' was finished before P, and (j, q) was not yet finished then, so P' skipped nothing
    //    because of P: no list is skipped in both orders.
    //  * Canonical ties: siblings are finished in increasing antecedent order, so i < j and
    //    the list met below P' comes first among the two (same length, smaller ids).
    //  * Full space only: with majority labels, whether (i, q) may follow (j, q) depends on
    //    the order.  Not in the Rashomon mode listing every spelling, which lists both orders
    //    (with rashomon_keep_map one spelling suffices: context.hpp all_spellings()).
    //  * Only children finished by finish_child (a popped prefix has no such sibling record).
    const bool symmetric = ctx_.config().use_terminal_symmetry && p.last != kNoRule && !maj &&
                           !ctx_.all_spellings();
    const int last_q = static_cast<int>(p.last & 1U);
    const auto poll_work = static_cast<std::int64_t>(ctx_.data().n_class_words()) + 1;
    firsts_.clear();
    rows_.clear();
    for (const std::uint32_t i : counts_.active()) {
        if (poll_.poll(poll_work)) return false;
        const SplitCounts& a = counts_.single(i);
        First first;
        first.i = i;
        first.rest1 = minus(p.free, a);
        const SplitCounts& rest1 = first.rest1;
        for (int q1 = 0; q1 < 2; ++q1) {
            if (!label_allowed(a, q1, maj)) continue;
            if (symmetric && q1 == last_q && finished_in_[q1][i] == expansion_) continue;
            ++stats_.children_evaluated;
            const std::uint32_t rule = i << 1 | static_cast<std::uint32_t>(q1);
            std::int64_t& e1 = first.e1[q1];
            Fixed& f1 = first.f1[q1];
            e1 = p.errors + a.label(1 - q1);
            f1 = p.fixed;
            add_predicted(f1, a, q1);
            for (int d = 0; d < 2; ++d) {  // P + (i, q1) + default d
                if (!label_allowed(rest1, d, maj)) continue;
                const std::int64_t e = e1 + rest1.label(1 - d);
                if (ctx_.objective(e, k1) > ctx_.cutoff(incumbent_.objective())) continue;
                Fixed full = f1;
                add_predicted(full, rest1, d);
                sink_.offer(e, k1, full, *path, rule, d);
            }
            if (rest1.total() == 0) continue;
            // Whether a second rule can still beat the incumbent.
            const std::int64_t forced_rest = p.forced_free - counts_.forced(i);
            ErrorBound b{hierarchical ? e1 : 0,
                         ctx_.config().use_equivalent_points ? forced_rest : 0,
                         hierarchical ? p.floor : 0, k2};
            if (prunes(ctx_, incumbent_, ctx_.objective(b.errors(), k2), k2, *path, rule)) {
                ++stats_.pruned_by_bound;
                continue;
            }
            const ChildRecord child{Trie::kNone, rule, k1, e1, 0, kNoKey, nullptr, *path,
                                    &f1, &rest1, forced_rest};
            first.second[q1] =
                bound_child(child, p.classes, &b) &&
                !prunes(ctx_, incumbent_, ctx_.objective(b.errors(), k2), k2, *path, rule);
        }
        if (!first.second[0] && !first.second[1]) continue;
        firsts_.push_back(first);
        rows_.push_back(i);
    }
    return true;
}

void TerminalSolver::second_rules(const First& first, std::size_t k2,
                                  std::vector<std::uint32_t>* path) {
    const std::uint32_t i = first.i;
    const SplitCounts& rest1 = first.rest1;
    const bool maj = ctx_.majority_labels();
    counts_.set_row(i);
    if (ctx_.all_spellings()) same_label_lists(first, k2, path);
    const std::int64_t e_max = max_errors(k2);
    for (int q2 = 0; q2 < 2; ++q2) {
        const int d = 1 - q2;
        const SecondRuleScreen screen = make_screen(first, q2, e_max);
        gainers_.clear();
        stats_.terminal_lists +=
            static_cast<std::int64_t>(counts_.gainers(i, q2, candidates_[q2], screen, &gainers_));
        for (const std::uint32_t j : gainers_) {
            const SplitCounts b = minus(counts_.single(j), counts_.pair(j));
            const std::int64_t gain = b.label(q2) - b.label(1 - q2);
            if (b.total() == 0 || !label_allowed(b, q2, maj)) continue;
            const SplitCounts rest = minus(rest1, b);
            if (!label_allowed(rest, d, maj)) continue;
            for (int q1 = 0; q1 < 2; ++q1) {  // P + (i, q1) + (j, q2) + default d
                if (!first.second[q1] || gain < screen.need[q1]) continue;
                const std::int64_t e = first.e1[q1] + rest1.label(q2) - gain;
                if (ctx_.objective(e, k2) > ctx_.cutoff(incumbent_.objective())) continue;
                Fixed full = first.f1[q1];
                add_predicted(full, b, q2);
                add_predicted(full, rest, d);
                path->push_back(i << 1 | static_cast<std::uint32_t>(q1));
                sink_.offer(e, k2, full, *path, j << 1 | static_cast<std::uint32_t>(q2), d);
                path->pop_back();
            }
        }
    }
}

SecondRuleScreen TerminalSolver::make_screen(const First& first, int q2,
                                             std::int64_t e_max) const {
    SecondRuleScreen screen;
    screen.n_gaps = screen_gaps_;
    screen.sign = q2 == 1 ? 1.0 : -1.0;
    // (The fairest mode's cap falls: SearchContext::fair_cap.)
    screen.cap = ctx_.fair_cap(incumbent_) + kFeasibilityTol + kScreenMargin;
    for (int k = 0; k < screen_gaps_; ++k) {
        const auto& c = bound_.gap_coef(static_cast<std::size_t>(k));
        for (int g = 0; g < 2; ++g) {
            for (int y = 0; y < 2; ++y) screen.coef[k][2 * g + y] = c[g][y];
        }
    }
    const SplitCounts& rest1 = first.rest1;
    for (int q1 = 0; q1 < 2; ++q1) {
        screen.need[q1] = first.second[q1] ? first.e1[q1] + rest1.label(q2) - e_max
                                           : std::numeric_limits<std::int64_t>::max();
        if (!first.second[q1]) continue;
        // The gaps without b: the positives of the prefix and rule i, and with q2 = 0 those of
        // rest1 (the default's, b's being taken off through the sign).
        const Fixed& f1 = first.f1[q1];
        for (int k = 0; k < screen_gaps_; ++k) {
            double v = 0.0;
            for (int g = 0; g < 2; ++g) {
                const double* c = screen.coef[k] + 2 * g;
                v += c[0] * static_cast<double>(f1.g[g].fp) +
                     c[1] * static_cast<double>(f1.g[g].tp);
                if (q2 == 0) {
                    v += c[0] * static_cast<double>(rest1.c[g][0]) +
                         c[1] * static_cast<double>(rest1.c[g][1]);
                }
            }
            screen.base[q1][k] = v;
        }
    }
    return screen;
}

bool TerminalSolver::bound_child(const ChildRecord& child, const word_t* classes,
                                 ErrorBound* b) {
    return fairness_bounds(ctx_, incumbent_, {&bound_, classes, positive_}, child, b, &stats_);
}

std::int64_t TerminalSolver::max_errors(std::size_t length) const {
    const double best = incumbent_.objective();
    // (The fairest mode's threshold is its ceiling from the start, incumbent or not.)
    if (!ctx_.fairest() && !(best < std::numeric_limits<double>::infinity())) {
        return std::numeric_limits<std::int64_t>::max() / 4;
    }
    // From the continuous answer, then +-1 steps on the very comparison the search makes
    // (with canonical ties a tie may still become the incumbent: offer() decides).
    // (Rashomon mode: within the cutoff, SearchContext::cuts.)
    auto beats = [&](std::int64_t e) {
        const double v = ctx_.objective(e, length);
        return !ctx_.cuts(v, best) || (ctx_.canonical_ties() && v == best);
    };
    // The estimate starts from the cutoff, not `best`: in the Rashomon mode they differ by
    // delta, and the steps from one to the other were delta * n (issue 37: 7 s for delta 1e6 on
    // 80 rows).  No list has more errors than the total weight n, so the answer is clamped to
    // it: any larger e_max admits the same lists, and the steps stay a few.
    const auto total = static_cast<std::int64_t>(ctx_.n());
    const double estimate =
        std::floor((ctx_.cutoff(best) - ctx_.problem().lam * static_cast<double>(length)) *
                   ctx_.n());
    auto e = static_cast<std::int64_t>(std::clamp(estimate, -1.0, static_cast<double>(total)));
    while (e >= 0 && !beats(e)) --e;
    while (e < total && beats(e + 1)) ++e;
    return e;
}

// The Rashomon mode's two-rule lists that enumerate() skips: P + (i, q1) + (j, q2) + default
// q2 predicts as P + (i, q1) + default q2, so every such list with j capturing something after
// i has that list's errors and counts and one more rule.  They are set members when within the
// cutoff (and fair): one check per (q1, q2), then one list per such j.
void TerminalSolver::same_label_lists(const First& first, std::size_t k2,
                                      std::vector<std::uint32_t>* path) {
    const std::uint32_t i = first.i;
    const SplitCounts& rest1 = first.rest1;
    for (int q1 = 0; q1 < 2; ++q1) {
        if (!first.second[q1]) continue;  // the bounds of child P + (i, q1) prune them
        for (int q2 = 0; q2 < 2; ++q2) {
            const std::int64_t e = first.e1[q1] + rest1.label(1 - q2);
            if (ctx_.objective(e, k2) > ctx_.cutoff(incumbent_.objective())) continue;
            Fixed full = first.f1[q1];
            add_predicted(full, rest1, q2);
            if (!ctx_.fair(full)) continue;
            path->push_back(i << 1 | static_cast<std::uint32_t>(q1));
            for (const std::uint32_t j : counts_.active()) {
                if (j == i || minus(counts_.single(j), counts_.pair(j)).total() == 0) continue;
                ++stats_.terminal_lists;
                sink_.offer(e, k2, full, *path, j << 1 | static_cast<std::uint32_t>(q2), q2);
            }
            path->pop_back();
        }
    }
}

}  // namespace fairlist
