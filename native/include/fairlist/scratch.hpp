// The buffers one worker owns while it expands prefixes: sized once for the data, reused for
// every node (no allocation per node or per child), never shared between threads.
#pragma once

#include <cstdint>
#include <vector>

#include "fairlist/bitset.hpp"
#include "fairlist/counts.hpp"
#include "fairlist/rule_data.hpp"

namespace fairlist {

struct Scratch {
    explicit Scratch(const RuleData& data)
        : free(data.n_words()),
          class_free(data.n_class_words()),
          class_none(data.n_class_words(), 0),
          in_prefix(data.n_antecedents(), 0),
          child_classes(data.n_class_words()),
          other_classes(data.n_class_words()) {}

    std::vector<word_t> free;           // samples not captured by the prefix being expanded
    std::vector<word_t> class_free;     // its uncaptured equivalence classes
    std::vector<word_t> class_none;     // the empty class set
    SplitCounts class_positive;         // ClassFairnessBound::majority_positive(class_free)
    std::vector<std::uint32_t> path;    // its rules, root first (antecedent << 1 | prediction)
    std::vector<std::uint8_t> in_prefix;  // antecedent in the prefix being expanded
    std::vector<word_t> child_classes;  // uncaptured classes of the child being evaluated
    std::vector<word_t> other_classes;  // those of a permutation-map candidate
};

}  // namespace fairlist
