// The equivalent-points fairness bound: the fairness lower bound made aware of the classes of
// identical samples, by linear programming.
//
// Samples with identical antecedent bits (an equivalence class e) get one prediction in every
// rule list.  The fairness bound of fairness_bound.hpp lets every uncaptured sample take its own
// prediction, so it can fix a fairness gap by mislabelling just the minority-label samples of a
// class, for free.  On real data (COMPAS: 5,273 samples in 224 classes) that makes it barely
// stronger than the equivalent-points bound.  Here each uncaptured class has a fraction
// t_e in [0, 1] predicted positive, at cost pos_e (1 - t_e) + neg_e t_e (weights, with sample
// weights): the linear relaxation of "one prediction per class".  For the metrics whose rates
// have constant denominators (SP, PE, EOpp, and EOdds through two linear gaps, below) the
// difference of two groups' rates is linear in t, so the LP with one such gap is a fractional
// knapsack: start from the majority labelling (cost = the equivalent-points errors) and, if its
// gap exceeds epsilon, move classes towards the other label in increasing order of cost per unit
// of gap.  The orders are node-independent and sorted once; per node the walk skips the captured
// classes.
//
// Each such knapsack keeps one linear constraint |gap| <= cap and drops the others, so it is a
// relaxation and the bound is the largest of their optima.  With k groups the constraint
// max_g r_g - min_g r_g <= cap is the set of pairwise constraints |r_g - r_h| <= cap: there is one
// gap per pair of groups (one in all with two groups), and a node pays for those its majority
// labelling violates (the others cost nothing).  Keeping pairs one at a time is a relaxation of
// the window that all groups share (fairness_bound_groups.cpp couples them, for the samples):
// valid, weaker when several groups pull apart.  For EOdds, with a the TPR gap and b the FPR gap
// of a pair, |a| + |b| <= cap is exactly |a + b| <= cap and |a - b| <= cap, so those two gaps are
// used (and EOdds over all groups implies them for every pair); each alone already charges both
// rates, where |a| <= cap alone lets b use the whole cap too.  On COMPAS at 4M nodes (lambda
// 0.001, EOdds 0.05) the lower bound at exit rose from 0.348 (gaps a and b) to 0.368; adding a
// and b back changed no bound and cost 70% more time.  A pair's gaps are built (their orders
// sorted) the first time a node violates them, and prepared per expanded prefix the first time
// a child needs them, so many groups cost only for the pairs that matter.
//
// Validity: every completion of the prefix is an integral point of this LP (the rule structure
// is relaxed away), so its errors on the uncaptured samples are at least the LP optimum, and an
// infeasible LP means no fair completion.  The cap is loosened by a margin far above rounding
// error, and the optimum is rounded up only after subtracting a margin, so floating point can only
// weaken the bound.  PP and CUAE (rates with variable denominators) are not handled: the bound
// then returns the equivalent-points errors.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "fairlist/bitset.hpp"
#include "fairlist/fairness_bound.hpp"
#include "fairlist/rule_data.hpp"

namespace fairlist {

class ClassFairnessBound {
 public:
    ClassFairnessBound(const RuleData& data, Metric metric, double epsilon);

    // The cap of the next bound() calls (the fairest mode's falling cap, SearchContext::
    // fair_cap; the constructor's epsilon otherwise): only bound() reads it.
    void set_cap(double epsilon);

    // Whether the metric is handled (SP, PE, EOpp, EOdds).
    bool active() const { return !gaps_.empty(); }

    // The linear gaps of a two-group problem (k == 2: one pair of groups, 0 and 1), whose
    // largest absolute value is the metric's unfairness in exact arithmetic (SP, PE, EOpp: one
    // rate difference; EOdds: the sum and the difference of the TPR and FPR gaps; none for PP
    // and CUAE): gap k = sum over g, y of gap_coef(k)[g][y] times the positive predictions
    // (weights) on the samples of group g and label y.  Not meaningful with more groups.
    std::size_t n_gaps() const { return gaps_.size(); }
    const double (&gap_coef(std::size_t k) const)[2][2] { return gaps_[k].coef; }

    // Weights of the samples of the classes in `classes` that the majority labelling predicts
    // positive, per (group, label) (computed once per expanded prefix).
    SplitCounts majority_positive(const word_t* classes) const;

    // Starts a new expanded prefix whose uncaptured classes are class_free (kept until the next
    // call): bound() prepares, the first time it needs a gap, the moves of the classes in
    // class_free, in order, with their gap changes and costs side by side (it saves the
    // per-child walk two indirect loads and a bit test per move).
    void prepare(const word_t* class_free);

    // Lower bound on the errors of every fair completion on the uncaptured classes
    // (class_free & ~class_rule), given the confusion counts fixed by the captured samples,
    // free_positive = majority_positive(class_free), and forced = the equivalent-points errors
    // of the uncaptured samples.  Returns false when no completion can be fair.  prepare()
    // must have been called with the same class_free.
    bool bound(const Fixed& fixed, const word_t* class_free, const word_t* class_rule,
               const SplitCounts& free_positive, std::int64_t forced, std::int64_t* errors);

 private:
    struct Move {
        double w;     // |change of the gap| when the class turns to its other label
        double cost;  // errors that adds
        std::uint32_t e;
    };

    // One linear gap between two groups: coef[0][y] times the positive predictions on the
    // samples of group `groups[0]` with label y plus coef[1][y] times those of `groups[1]` (a
    // rate difference, or a sum or difference of two of them).
    struct Gap {
        int groups[2];
        double coef[2][2];
        bool built = false;
        std::vector<double> w;            // per class: change of the gap when it turns positive
        std::vector<std::uint32_t> down;  // moves that lower the gap, cheapest per unit first
        std::vector<std::uint32_t> up;    // moves that raise the gap, cheapest per unit first
        std::uint64_t prepared_for = 0;   // the prepare() call its moves were prepared for
        std::vector<Move> moves[2];       // down then up: the prepared moves
    };

    const RuleData& data_;
    double cap_;  // epsilon loosened by the feasibility tolerance and a rounding margin
    double cost_margin_;  // subtracted from the optimum before it is rounded up
    std::vector<Gap> gaps_;
    std::vector<std::uint8_t> majority_positive_;  // t*_e: the majority labelling
    std::vector<double> cost_;                     // |pos_e - neg_e|: cost of flipping class e
    std::vector<word_t> positive_mask_;            // classes with t*_e = 1
    const word_t* class_free_ = nullptr;           // of the current prepare()
    std::uint64_t epoch_ = 0;                      // prepare() calls so far

    // Group g's rate counting positive predictions on labels y with counted[y], over its
    // constant denominator: inv[y] = 1 / denominator where counted, else 0.
    void rate_coef(int g, bool label0, bool label1, double inv[2]) const;
    void add_gap(int ga, int gb, const double coef[2][2]);
    void build(Gap& gap) const;
    void prepare_gap(Gap& gap) const;
};

}  // namespace fairlist
