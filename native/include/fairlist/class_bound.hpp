// The equivalent-points fairness bound: the fairness lower bound made aware of the classes of
// identical samples, by linear programming.
//
// Samples with identical antecedent bits (an equivalence class e) get one prediction in every
// rule list.  The fairness bound of fairness_bound.hpp lets every uncaptured sample take its own
// prediction, so it can fix a fairness gap by mislabelling just the minority-label samples of a
// class, for free.  On real data (COMPAS: 5,273 samples in 224 classes) that makes it barely
// stronger than the equivalent-points bound.  Here each uncaptured class has a fraction
// t_e in [0, 1] predicted positive, at cost pos_e (1 - t_e) + neg_e t_e: the linear relaxation of
// "one prediction per class".  For the metrics whose rates have constant denominators (SP, PE,
// EOpp, and EOdds through two linear gaps, below) the fairness gap is linear in t, so the LP
// with one gap is a fractional knapsack: start from the
// majority labelling (cost = the equivalent-points errors) and, if its gap exceeds epsilon, move
// classes towards the other label in increasing order of cost per unit of gap.  The orders are
// node-independent and sorted once; per node the walk skips the captured classes.
//
// Each such knapsack keeps one linear constraint |gap| <= cap and drops the others, so it is a
// relaxation and the bound is the largest of their optima.  For EOdds, with a the TPR gap and b
// the FPR gap, |a| + |b| <= cap is exactly |a + b| <= cap and |a - b| <= cap, so those two gaps
// are used; each alone already charges both rates, where |a| <= cap alone lets b use the whole
// cap too.  On COMPAS at 4M nodes (lambda 0.001, EOdds 0.05) the lower bound at exit rose from
// 0.348 (gaps a and b) to 0.368; adding a and b back changed no bound and cost 70% more time.
//
// Validity: every completion of the prefix is an integral point of this LP (the rule structure
// is relaxed away), so its errors on the uncaptured samples are at least the LP optimum, and an
// infeasible LP means no fair completion.  The cap is loosened by a margin far above rounding
// error, and the optimum is rounded up only after subtracting a margin, so floating point can only
// weaken the bound.  PP and CUAE (rates with variable denominators) are not handled: the bound
// then returns the equivalent-points errors.
#pragma once

#include <cstdint>
#include <vector>

#include "fairlist/bitset.hpp"
#include "fairlist/fairness_bound.hpp"
#include "fairlist/rule_data.hpp"

namespace fairlist {

class ClassFairnessBound {
 public:
    ClassFairnessBound(const RuleData& data, Metric metric, double epsilon);

    // Whether the metric is handled (SP, PE, EOpp, EOdds).
    bool active() const { return !gaps_.empty(); }

    // The linear gaps whose largest absolute value is the metric's unfairness in exact
    // arithmetic (SP, PE, EOpp: one rate difference; EOdds: the sum and the difference of the
    // TPR and FPR gaps; none for PP and CUAE): gap k = sum over g, y of gap_coef(k)[g][y] times
    // the positive predictions on the samples of group g and label y.
    std::size_t n_gaps() const { return gaps_.size(); }
    const double (&gap_coef(std::size_t k) const)[2][2] { return gaps_[k].coef; }

    // Counts of the samples of the classes in `classes` that the majority labelling predicts
    // positive (computed once per expanded prefix).
    SplitCounts majority_positive(const word_t* classes) const;

    // Keeps, for bound(), the moves of the classes in class_free, in order, with their gap
    // changes and costs side by side: called once per expanded prefix, it saves bound() (called
    // per child) two indirect loads and a bit test per move.
    void prepare(const word_t* class_free);

    // Lower bound on the errors of every fair completion on the uncaptured classes
    // (class_free & ~class_rule), given the confusion counts fixed by the captured samples,
    // free_positive = majority_positive(class_free), and forced = the equivalent-points errors
    // of the uncaptured samples.  Returns false when no completion can be fair.  prepare()
    // must have been called with the same class_free.
    bool bound(const GroupConfusion fixed[2], const word_t* class_free, const word_t* class_rule,
               const SplitCounts& free_positive, std::int64_t forced, std::int64_t* errors) const;

 private:
    // One linear gap: sum over group g and label y of coef[g][y] times the positive predictions
    // on the samples of group g with label y (a rate difference, or a sum of two of them).
    struct Gap {
        double coef[2][2];
        std::vector<double> w;           // per class: change of the gap when it turns positive
        std::vector<std::uint32_t> down;  // moves that lower the gap, cheapest per unit first
        std::vector<std::uint32_t> up;    // moves that raise the gap, cheapest per unit first
    };

    struct Move {
        double w;     // |change of the gap| when the class turns to its other label
        double cost;  // errors that adds
        std::uint32_t e;
    };

    const RuleData& data_;
    std::vector<Move> prepared_[2][2];  // per gap (at most 2), down then up: prepare()'s moves
    double cap_;  // epsilon loosened by the feasibility tolerance and a rounding margin
    std::vector<Gap> gaps_;
    std::vector<std::uint8_t> majority_positive_;  // t*_e: the majority labelling
    std::vector<double> cost_;                     // |pos_e - neg_e|: cost of flipping class e
    std::vector<word_t> positive_mask_;            // classes with t*_e = 1

    // The rate of group g counting positive predictions on labels y with label[y], over a
    // constant denominator: its coefficients, signed +1 for the protected group, -1 otherwise.
    void rate_gap(bool label0, bool label1, double coef[2][2]) const;
    void add_gap(const double coef[2][2]);
};

}  // namespace fairlist
