// The six unfairness measures (docs/design.md §1), declared once.
//
// FAIRLIST_METRICS lists each measure with its value (equal to fairlist.metrics.Metric), its
// short name, the rates of a group that it compares (Rate bits, as fairlist.metrics.METRIC_RATES)
// and how many rate gaps its value adds up (1: the gap of one rate; 2: the sum of two gaps,
// EOdds and CUAE).  The enum and kMetricTable are generated from that one list; the binding
// exposes the table as fairlist._core.METRIC_TABLE, so the Python side can test against it.
//
// Every switch over Metric names each measure and has no default: meson.build compiles with
// -Werror=switch, so a measure added here and forgotten in a switch is a compile error.  A value
// outside the list (only reachable through a cast) is refused where the problem is built
// (SearchContext) and answered "unfair" / "no fair completion" past the switches.
#pragma once

#include <cstddef>

namespace fairlist {

// The rates of one group that a measure compares (bits).
enum RateBits : unsigned {
    kPositiveRate = 1U << 0,  // P(y_pred = 1)
    kTpr = 1U << 1,           // P(y_pred = 1 | y = 1)
    kFpr = 1U << 2,           // P(y_pred = 1 | y = 0)
    kPpv = 1U << 3,           // P(y = 1 | y_pred = 1)
    kNpv = 1U << 4,           // P(y = 0 | y_pred = 0)
};
constexpr int kNumRates = 5;
// The rates' names in bit order (fairlist.metrics.GroupRates' properties).
constexpr const char* kRateNames[kNumRates] = {"positive_rate", "tpr", "fpr", "ppv", "npv"};

//         enum    value  short name  rates         gaps added
#define FAIRLIST_METRICS(X)                          \
    X(SP,    1, "SP",    kPositiveRate, 1)           \
    X(PP,    2, "PP",    kPpv,          1)           \
    X(PE,    3, "PE",    kFpr,          1)           \
    X(EOPP,  4, "EOpp",  kTpr,          1)           \
    X(EODDS, 5, "EOdds", kTpr | kFpr,   2)           \
    X(CUAE,  6, "CUAE",  kPpv | kNpv,   2)

enum class Metric : int {
#define FAIRLIST_METRIC_ENUM(id, value, name, rates, gaps) id = value,
    FAIRLIST_METRICS(FAIRLIST_METRIC_ENUM)
#undef FAIRLIST_METRIC_ENUM
};

struct MetricInfo {
    Metric metric;
    const char* name;  // short name (fairlist.metrics.Metric.short_name)
    unsigned rates;    // RateBits of the rates it compares
    int gaps;          // 1: one rate's gap; 2: the sum of two rates' gaps
};

constexpr MetricInfo kMetricTable[] = {
#define FAIRLIST_METRIC_INFO(id, value, name, rates, gaps) {Metric::id, name, rates, gaps},
    FAIRLIST_METRICS(FAIRLIST_METRIC_INFO)
#undef FAIRLIST_METRIC_INFO
};
constexpr int kNumMetrics = static_cast<int>(sizeof(kMetricTable) / sizeof(kMetricTable[0]));

// The table lists the values 1 .. kNumMetrics in order.
constexpr bool metric_table_in_order() {
    for (int i = 0; i < kNumMetrics; ++i) {
        if (static_cast<int>(kMetricTable[i].metric) != i + 1) return false;
    }
    return true;
}
static_assert(metric_table_in_order(), "FAIRLIST_METRICS must list the values 1, 2, ... in order");

constexpr bool is_metric(int value) { return value >= 1 && value <= kNumMetrics; }
// The entry of a valid measure.
constexpr const MetricInfo& metric_info(Metric m) {
    return kMetricTable[static_cast<int>(m) - 1];
}
// Whether its value is a linear function of the positive predictions per (group, label) over
// constant denominators (positive rate, TPR, FPR): the class bound and the terminal solver's
// fairness screen handle these (PPV and NPV are ratios).
constexpr bool is_linear(Metric m) { return (metric_info(m).rates & (kPpv | kNpv)) == 0; }

}  // namespace fairlist
