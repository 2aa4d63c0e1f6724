// The objective bounds of the search and why each one stays valid under a fairness cap.
//
// Notation: a prefix P of K rules captures the samples C(P); U(P) are the others.  Every rule
// list that starts with P (a "completion": P plus more rules plus a default) predicts exactly as
// P on C(P); only the predictions on U(P) are still open.  objective = errors / n + lam * length,
// where with sample weights "errors" is the weight of the misclassified samples and n the total
// weight: every argument below holds word for word with counts read as sums of weights.
//
// * Hierarchical lower bound.  Every completion makes at least the errors of P on C(P) and has
//   at least K rules.  It bounds the objective only, so the constraint does not affect it.  A
//   child's completions are completions of its parent, so the child also inherits the parent's
//   bound on the errors: it never falls along a path.
// * Lookahead.  The completions of P that are not yet evaluated (P's own "P + default" lists
//   are evaluated when P is created) have at least K + 1 rules: if lb(P) + lam >= best, none
//   can improve.  Objective-only as well.
// * Maximum useful length.  A list of length L costs at least lam * L: if lam * L >= best it
//   cannot improve.  Objective-only.
// * Equivalent points.  Samples with identical antecedent bits are classified alike by every
//   rule list, so each class of such samples in U(P) contributes min(weight of its positives,
//   weight of its negatives) errors to every completion.  Objective-only; it combines with the
//   fairness bound by max.
// * Fairness lower bound (fairness_bound.hpp).  Relaxes the completions of P to "any prediction
//   on each uncaptured sample": if no such relaxed completion is fair, no completion is and P is
//   pruned; otherwise its minimum errors bound the errors on U(P) of every fair completion.
// * Accurate-support bound (CORELS), only WITHOUT a constraint: if a rule predicts correctly
//   fewer than lam * n of the samples it captures, deleting it (and re-labelling the later rules
//   by majority) lowers the objective, so no list containing it at that position is optimal.
//   With a cap the shorter list may be unfair, so the argument fails and the bound is off.
// * Permutation map (permutation_map.hpp): keyed by the captured samples, plus, with a
//   constraint, the positive predictions on them per (group, label) that the metric depends on,
//   which makes equal keys have completions of equal unfairness.
#pragma once

#include <cstdint>

#include "fairlist/fairness_bound.hpp"
#include "fairlist/rule_data.hpp"

namespace fairlist {

// Whether a rule (or the default) predicting q on samples with these counts is in the space.
inline bool label_allowed(const SplitCounts& s, int q, bool majority_only) {
    return !majority_only || s.label(q) >= s.label(1 - q);
}

// Adds the confusion counts of samples s predicted q to every group of f.
inline void add_predicted(Fixed& f, const SplitCounts& s, int q) {
    for (int g = 0; g < s.k; ++g) {
        if (q) {
            f.g[g].tp += s.c[g][1];
            f.g[g].fp += s.c[g][0];
        } else {
            f.g[g].fn += s.c[g][1];
            f.g[g].tn += s.c[g][0];
        }
    }
}

// The accurate-support bound: a rule predicting q on samples s is useful only if it predicts
// correctly at least lam * n of them (strictly fewer: deleting the rule is strictly better); n is
// the total weight.
inline bool support_too_small(const SplitCounts& s, int q, double lam, double n) {
    return static_cast<double>(s.label(q)) < lam * n;
}

}  // namespace fairlist
