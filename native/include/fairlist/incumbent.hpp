// The incumbent: the best fair rule list found so far, shared by everything that finds lists
// (constant lists, warm start, beam, expansion, terminal solver) and, in a parallel search, by
// every worker (docs/design.md §8.5).
//
// Reads are lock-free: objective() is an atomic, and a stale value only prunes less; the list
// itself is published immutable behind an atomic pointer, so the canonical comparisons of ties
// take no lock either (before, every tying list offered and every tie check took the mutex:
// 1.4 million times in the <= 4-rule COMPAS certificate, a point of contention for many
// threads).  Writes take a mutex, re-check and publish the list, then store its objective, so
// the objective read is always that of a published list or an older, larger one.
//
// Tie-break.  Among lists of equal objective the incumbent keeps the first in a canonical order:
// fewer rules first, then the antecedent ids lexicographically, then the rules' predictions,
// then the default prediction (precedes()).  The order in which the lists are offered then does
// not decide among the ties that were offered: a search that offers the same set of lists, in
// any order and from any number of threads, returns the same list.  (Which lists of the optimal
// objective get offered depends on the pruning, which drops a prefix whose bound equals the
// incumbent's objective: see docs/design.md §7.8 and the parallel search's note.)
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <memory>
#include <vector>

#include "fairlist/thread_annotations.hpp"

namespace fairlist {

class Incumbent {
 public:
    Incumbent();

    // The objective of the best list so far; +inf while there is none.
    double objective() const { return objective_.load(std::memory_order_relaxed); }
    bool has() const { return objective() < std::numeric_limits<double>::infinity(); }

    // Offers the list prefix[0 .. n) (+ last, unless kNoRule) + default_prediction, of this
    // objective and errors (rules: antecedent << 1 | prediction).  fair() is called, only when
    // the list would become the incumbent, to check it (the caller's counts); true when it did
    // become the incumbent, improving the objective or equal to it and earlier in the canonical
    // order.  *improved (may be null): whether it improved the objective.  A tie that does not
    // come first is refused on the published list (below), without the mutex.
    static constexpr std::uint32_t kNoRule = 0xffffffffU;
    template <class Fair>
    bool offer(double objective, std::int64_t errors, const std::uint32_t* prefix, std::size_t n,
               std::uint32_t last, int default_prediction, Fair&& fair, bool* improved)
        EXCLUDES(mutex_) {
        if (objective > this->objective()) return false;
        if (!may_take(objective, prefix, n, last, default_prediction, *published())) return false;
        MutexLock lock(mutex_);
        const List& now = *published();
        if (!may_take(objective, prefix, n, last, default_prediction, now)) return false;
        if (!fair()) return false;
        const bool better = objective < now.objective;
        publish(make_list(objective, errors, prefix, n, last, default_prediction));
        objective_.store(objective, std::memory_order_relaxed);
        if (improved != nullptr) *improved = better;
        return true;
    }

    // The fairest mode (Config::fairest_ceiling; the caller has checked the list's objective
    // against the ceiling and its fairness): offers the list as offer() does, ordered by
    // (unfairness, objective, canonical order) instead of (objective, canonical order).  Lists
    // of equal unfairness (equal doubles: the metric's value, computed alike everywhere) tie on
    // it and are decided by the objective.  True when it became the incumbent.  The fairest
    // mode is serial (context.cpp), but the list is published the same way.
    bool offer_fairest(double unfairness, double objective, std::int64_t errors,
                       const std::uint32_t* prefix, std::size_t n, std::uint32_t last,
                       int default_prediction) EXCLUDES(mutex_) {
        if (unfairness > this->unfairness()) return false;
        MutexLock lock(mutex_);
        const List& now = *published();
        if (unfairness != now.unfairness) {
            if (unfairness > now.unfairness) return false;
        } else if (!may_take(objective, prefix, n, last, default_prediction, now)) {
            return false;
        }
        auto list = make_list(objective, errors, prefix, n, last, default_prediction);
        list->unfairness = unfairness;
        publish(std::move(list));
        objective_.store(objective, std::memory_order_relaxed);
        unfairness_.store(unfairness, std::memory_order_relaxed);
        return true;
    }
    // The fairest mode: the incumbent's unfairness (+inf while there is none; set by
    // offer_fairest only).  It only falls: the falling cap of the fairness bounds.
    double unfairness() const { return unfairness_.load(std::memory_order_relaxed); }

    // Canonical ties (context.hpp): whether a subtree whose lists have objectives of
    // at least `bound`, at least min_length rules, and start with the rules prefix[0 .. n)
    // (+ last, unless kNoRule) may hold a list that becomes the incumbent: bound below the
    // incumbent's objective, or equal to it and one of its lists able to come first in the
    // canonical order (shorter, or as long and of smaller antecedent ids; kept when the ids
    // agree as far as the prefix goes).  Reads the published list: no mutex.
    bool tie_may_precede(double bound, const std::uint32_t* prefix, std::size_t n,
                         std::uint32_t last, std::size_t min_length) const;

    // Canonical ties, two prefixes `first` and `second` of k rules (first before second in the
    // canonical order) whose lists pair up, first + S with second + S, with equal objectives
    // and fairness.  Given that no fair second + S comes before the published list Z (in
    // (objective, canonical order)), whether some first + S with S not empty may: false only
    // when none can.  Such a list ties Z and is as long (a shorter one would put second + S,
    // as short, before Z; a longer one comes after Z), so Z's antecedent ids lie between
    // those of first + S and second + S, lexicographically, and Z's first k ids between those
    // of first and second.  Reads the published list: no mutex.
    bool equivalent_may_precede(const std::uint32_t* first, const std::uint32_t* second,
                                std::size_t k) const;

    // A copy of the list (call when no thread offers: after the search).
    struct List {
        std::vector<std::uint32_t> rules;  // antecedent << 1 | prediction
        int default_prediction = 0;
        std::int64_t errors = 0;
        double objective = std::numeric_limits<double>::infinity();
        // Set by offer_fairest only (+inf otherwise: offer() does not compute it).
        double unfairness = std::numeric_limits<double>::infinity();
    };
    List get() const EXCLUDES(mutex_);

    // Frees the lists replaced so far (call when no thread reads the incumbent: between the
    // phases of a search, after its workers have joined).
    void reclaim() EXCLUDES(mutex_);

 private:
    // The list is published as an immutable List behind an atomic pointer (release on store,
    // acquire on load), so readers (ties, the pre-check of offer) need no mutex.  A replaced
    // list stays allocated until reclaim(): a reader may still hold it.  Writers hold mutex_.
    // docs/design.md §8.5.  mutex_ is a leaf: nothing else is locked while it is held.
    mutable Mutex mutex_;
    // Atomics, no guard: objective_ relaxed (stored under mutex_ after the publish; a stale,
    // larger value prunes less), published_ release / acquire (the List it points to is
    // immutable).
    std::atomic<double> objective_{std::numeric_limits<double>::infinity()};
    std::atomic<double> unfairness_{std::numeric_limits<double>::infinity()};
    std::atomic<const List*> published_;
    std::vector<std::unique_ptr<const List>> lists_ GUARDED_BY(mutex_);  // the published one last

    const List* published() const { return published_.load(std::memory_order_acquire); }
    void publish(std::unique_ptr<List> list) REQUIRES(mutex_);
    // The list offered: the rules prefix[0 .. n) (+ last, unless kNoRule).
    static std::unique_ptr<List> make_list(double objective, std::int64_t errors,
                                           const std::uint32_t* prefix, std::size_t n,
                                           std::uint32_t last, int default_prediction) {
        auto list = std::make_unique<List>();
        list->rules.assign(prefix, prefix + n);
        if (last != kNoRule) list->rules.push_back(last);
        list->default_prediction = default_prediction;
        list->errors = errors;
        list->objective = objective;
        return list;
    }
    // Whether a list of this objective may replace `now`: better, or as good and first in the
    // canonical order.
    static bool may_take(double objective, const std::uint32_t* prefix, std::size_t n,
                         std::uint32_t last, int default_prediction, const List& now) {
        if (objective != now.objective) return objective < now.objective;
        return precedes(prefix, n, last, default_prediction, now);
    }
    // Whether the candidate comes before `now` in the canonical order.
    static bool precedes(const std::uint32_t* prefix, std::size_t n, std::uint32_t last,
                         int default_prediction, const List& now);
};

}  // namespace fairlist
