// The terminal solver's counts (pair_counts.hpp).
#include "fairlist/pair_counts.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>

#if FAIRLIST_HAVE_AVX512_POPCOUNT
#include <immintrin.h>
#endif

#if defined(__SSE2__) || defined(_M_X64)
#include <emmintrin.h>
#define FAIRLIST_SSE2_FILTER 1
#else
#define FAIRLIST_SSE2_FILTER 0
#endif

namespace fairlist {

namespace {

// The terminal solver runs with two groups only (TerminalSolver::applies), so every count
// here has k = 2.
inline void accumulate(SplitCounts& into, const SplitCounts& s) {
    for (int g = 0; g < 2; ++g) {
        into.c[g][0] += s.c[g][0];
        into.c[g][1] += s.c[g][1];
    }
    into.n[0] += s.n[0];
    into.n[1] += s.n[1];
}

// Whether packed layouts are used (below, with the packing kernels).
bool packing_pays();

}  // namespace

PairCounts::PairCounts(const RuleData& data, StopCheck* stop, bool bitwise, bool planes,
                       bool packed, bool mirrored)
    : data_(data),
      stop_(stop),
      m_(data.n_antecedents()),
      bitwise_(bitwise),
      planes_on_(bitwise && planes),
      packed_on_(bitwise && packed && packing_pays()),
      mirrored_on_(bitwise && mirrored) {
    const std::size_t nc = data.n_classes();
    bit_any_.assign(data.n_class_words(), 0);
    sums_.assign(bitwise ? 8 * m_ : 0, 0);
    offsets_.reserve(nc + 1);
    offsets_.push_back(0);
    for (std::size_t e = 0; e < nc; ++e) {
        for (std::size_t j = 0; j < m_; ++j) {
            if ((data.class_rule(j)[e / kWordBits] >> (e % kWordBits)) & 1U) {
                features_.push_back(static_cast<std::uint32_t>(j));
            }
        }
        offsets_.push_back(static_cast<std::uint32_t>(features_.size()));
        // Weights of the class by (group, label); the sums over any set of classes stay below
        // the total weight, which TerminalSolver::applies keeps within 32 bits.
        SplitCounts c(2);
        for (int g = 0; g < 2; ++g) {
            for (int y = 0; y < 2; ++y) c.add(g, y, data.class_count(e, g, y));
        }
        class_counts_.push_back(c);
        class_forced_.push_back(std::min(data.class_label(e, 0), data.class_label(e, 1)));
        class_quad_.push_back(Quad{{static_cast<std::int32_t>(c.c[0][0]),
                                    static_cast<std::int32_t>(c.c[0][1]),
                                    static_cast<std::int32_t>(c.c[1][0]),
                                    static_cast<std::int32_t>(c.c[1][1])}});
        const auto d = static_cast<std::int64_t>(offsets_[e + 1] - offsets_[e]);
        class_cost_.push_back(d * d);
    }
    class_bit_cost_ = class_cost_;
    if (bitwise_) lay_out_bits(planes);  // the laid-out classes' class_bit_cost_ too
    for (Table* t : {&base_, &other_}) {
        t->units.assign(bit_words_, 0);
        t->classes.assign(data.n_class_words(), 0);
        t->pair.assign(m_ * m_, Quad{});
        t->single.assign(m_, SplitCounts(2));
        t->forced.assign(m_, 0);
        t->stamp.assign(m_, 0);  // epoch 0: every (zero) row valid
        t->part.assign(m_, 0);
        t->pstamp.assign(m_, 0);
        t->live.assign(m_, 0);
        t->pseg.assign(planes_.size() + 1, 0);
    }
    single_.assign(m_, SplitCounts(2));
    single4_.assign(m_, Four{});
    forced_.assign(m_, 0);
    label_[0].assign(m_, 0);
    label_[1].assign(m_, 0);
}

namespace {

template <class T>
std::size_t vector_bytes(const std::vector<T>& v) {
    return v.capacity() * sizeof(T);
}

}  // namespace

std::size_t PairCounts::bytes() const {
    std::size_t b = vector_bytes(offsets_) + vector_bytes(features_) +
                    vector_bytes(class_counts_) + vector_bytes(class_quad_) +
                    vector_bytes(class_forced_) + vector_bytes(class_cost_) +
                    vector_bytes(class_bit_cost_) +
                    vector_bytes(active_) + vector_bytes(single_) + vector_bytes(single4_) +
                    vector_bytes(forced_) + vector_bytes(label_[0]) + vector_bytes(label_[1]) +
                    vector_bytes(bit_any_) + vector_bytes(bit_rule_) + vector_bytes(bit_off_) +
                    vector_bytes(bit_pos_) + vector_bytes(planes_) + vector_bytes(runs_) +
                    vector_bytes(targets_) + vector_bytes(mirrors_) +
                    vector_bytes(word_masks_) + vector_bytes(seg_) + vector_bytes(sums_);
    for (const Table* t : {&base_, &other_}) {
        b += vector_bytes(t->units) + vector_bytes(t->classes) + vector_bytes(t->pair) + vector_bytes(t->single) +
             vector_bytes(t->forced) + vector_bytes(t->stamp) + vector_bytes(t->part) +
             vector_bytes(t->pplanes) + vector_bytes(t->pwords) + vector_bytes(t->pseg) +
             vector_bytes(t->prow) + vector_bytes(t->pstamp) + vector_bytes(t->rest);
    }
    return b;
}

SplitCounts PairCounts::split(const Quad& q) {
    SplitCounts s(2);
    s.add(0, 0, q.v[0]);
    s.add(0, 1, q.v[1]);
    s.add(1, 0, q.v[2]);
    s.add(1, 1, q.v[3]);
    return s;
}

// Costs.  Class by class, a class of d_e antecedents adds its counts d_e times in each of the
// d_e rows it is in: d_e^2.  By popcounts (pair_counts.cpp's bitwise counting), a laid-out
// class's n bits are in d_e rows, each bit about kUnitWordWork / kBitsPerMaskWord a target
// (a row's mask words hold several bits), for at most m targets: class_bit_cost_; and each
// set costs a fixed set_cost_ (a pass over the pair planes per row and target, m^2 of them).
// Each row takes the less of the two ways, so a set's cost is the less of their sums: on
// COMPAS's few hundred classes the additions, on bench_counting's 100,000 rows the popcounts
// (about 700 a class against d_e^2 = 5,800: only the sum of d_e^2 was counted before).  The
// estimate itself must cost less than the additions it may spare: on COMPAS (550 classes) no
// row takes the popcounts, yet collecting each row's bits and listing its targets doubled
// count_row's time (rdtsc per row: 1,248 cycles median against 468 class by class), so
// count_row checks two floors of the popcounts' work first (the same choice; see there).
void PairCounts::sums(const word_t* classes, std::int64_t* out) const {
    out[0] = out[1] = 0;
    for (std::size_t w = 0; w < data_.n_class_words(); ++w) {
        for (word_t x = classes[w]; x; x &= x - 1) {
            const std::size_t e = w * kWordBits + static_cast<std::size_t>(portable::ctz64(x));
            out[0] += class_cost_[e];
            out[1] += class_bit_cost_[e];
        }
    }
}

std::int64_t PairCounts::cost(const word_t* classes) const {
    std::int64_t s[2];
    sums(classes, s);
    return std::min(s[0], s[1] + set_cost_);
}

bool PairCounts::cheaper_to_remove(const word_t* removed) const {
    std::int64_t s[2];
    sums(removed, s);
    return std::min(s[0], s[1] + set_cost_) <
           std::min(base_cost_[0] - s[0], base_cost_[1] - s[1] + set_cost_);
}

// Bitwise counting (Config::use_class_pair_counts, Config::use_weight_plane_counts).  Class by
// class, a set of C classes costs sum of d_e over them for its single counts and, for a pair
// row a, sum of d_e over the C_a classes a captures: as rows grow nearly every class holds one
// sample or a few, C_a runs to tens of thousands and d_e to a hundred.  Those additions were
// 86 % of the <= 4-rule certificate (perf, 5,000 rows of benchmarks/bench_counting.py); with
// the classes of one sample counted by popcounts, those of more than one, still added one at
// a time, were the largest part left (count_row 36 % and count_singles 12 % at 20,000 rows,
// where they are 8 % of the classes; at 100,000 rows they are a quarter, 17,254 of 69,961).
//
// Bit planes.  Class e weighs w_e[c] in cell c: c = 2 g + y the summed weight of its samples
// of group g and label y, c = 4 its forced errors min(pos, neg).  Write w_e[c] = sum over b of
// 2^b bit_b(w_e[c]) and give e one bit in "plane" (c, b) for each b with bit_b(w_e[c]) = 1,
// each plane in its own words (lay_out_bits).  With S the bits of a set of classes, A and B
// those of the classes antecedents a and b capture (bit_rule_), P_cb plane (c, b)'s words,
//   sum of w_e[c] over the classes e of the set that a and b both capture
//     = sum over b of 2^b popcount(S & A & B & P_cb),
// summed word by word: each class has at most one bit in a plane, and its weight is the sum
// of the place values of its bits.  Exact integers, the same numbers as the additions class by
// class (the test suites run both: tests/test_terminal.py, tests/test_pair_counts.py and the
// others parametrised over Config::use_class_pair_counts); the group and label split is the
// planes' cells, and the single counts are the same sums with B all ones.  A class of one
// sample of weight 1 is one bit in plane (2 g + y, 0); a class of weight w in a cell, popcount
// of w bits there: on bench_counting's table 1.3 bits per class, where class by class it costs
// d_e (about 76) additions per row.  So every class is counted by popcounts, none by a loop
// over classes: one popcount per word of S & A per target, whatever d_e.  (MurTree's depth-two
// solver, and the class-by-class path here, count each sample's pairs of active features: d_e^2
// per class, the cheaper way on few classes of few antecedents; this path is its transpose,
// per pair row and per word of classes, the cheaper way on many classes.)
//
// Memory: bit_rule_ holds m bits per class bit.  lay_out_bits takes the classes in increasing
// order of their number of bits while the total stays within kBitsPerClass bits per class (the
// unit classes, one bit each, first), so the layout is at most kBitsPerClass times a class
// bitset per antecedent; any class left out (very large or spread weights) is added class by
// class.  Without use_weight_plane_counts only the unit classes are laid out (the layout of
// before the planes: one plane per (group, label)).
//
// Order within a plane: sorted lexicographically on the antecedents in order of how evenly
// they split the laid-out classes, so that the classes of a prefix's set (a conjunction of
// antecedents and negations) lie in runs: fewer words to visit, more classes per word.  Each
// single-count pass and each row takes the bitwise path only when its estimated work
// (dense_work per antecedent) is below the additions it replaces (its bits times the mean
// additions a bit replaces): sparse sets keep adding class by class.
namespace {

// Work of the bitwise path per antecedent, in units of one addition of a class's counts to
// one antecedent's (a scattered 16-byte add): per plane with runs, per run of words, and per
// word (per 8 words with the AVX-512 kernel).
constexpr double kPlaneWork = 4.0;
constexpr double kRunWork = 2.0;
constexpr double kWordWork = 1.0;
constexpr double kWordWorkAvx512 = 0.25;
// Zero words a run may cover rather than end (they count nothing).
constexpr std::size_t kRunGap = 3;
// The bits a row's mask holds per word, about (cost()'s estimate; on bench_counting's
// 100,000-row table six unpacked, nine packed).
constexpr double kBitsPerMaskWord = 8.0;
// The bits the planes may hold per class (above).
constexpr std::size_t kBitsPerClass = 2;

// out[stride * b + planes[p].cell] += 2^planes[p].shift times the popcounts of the collected
// runs of plane p against rule b, for each b in targets[0 .. n_targets) and p < n_planes.
// Each sum is at most the total weight, below 2^31 (TerminalSolver::applies).
FAIRLIST_POPCNT_CLONES
void unit_counts_scalar(const word_t* rules, std::size_t uw, const std::uint32_t* targets,
                        std::size_t n_targets, const UnitRun* runs, const word_t* masks,
                        const std::size_t* seg, const BitPlane* planes, std::size_t n_planes,
                        std::int32_t* out, std::size_t stride) {
    for (std::size_t t = 0; t < n_targets; ++t) {
        const word_t* r = rules + targets[t] * uw;
        std::int32_t* o = out + stride * static_cast<std::size_t>(targets[t]);
        for (std::size_t p = 0; p < n_planes; ++p) {
            if (seg[p] == seg[p + 1]) continue;
            std::int64_t s = 0;
            for (std::size_t k = seg[p]; k < seg[p + 1]; ++k) {
                const word_t* rr = r + runs[k].start;
                const word_t* mm = masks + runs[k].at;
                for (std::uint32_t i = 0; i < runs[k].len; ++i) {
                    s += portable::popcount64(mm[i] & rr[i]);
                }
            }
            o[planes[p].cell] += static_cast<std::int32_t>(s << planes[p].shift);
        }
    }
}

#if FAIRLIST_HAVE_AVX512_POPCOUNT
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
// The same, eight words at a time (the last, partial group of a run by masked loads).
__attribute__((target("avx512f,avx512vpopcntdq")))
void unit_counts_avx512(const word_t* rules, std::size_t uw, const std::uint32_t* targets,
                        std::size_t n_targets, const UnitRun* runs, const word_t* masks,
                        const std::size_t* seg, const BitPlane* planes, std::size_t n_planes,
                        std::int32_t* out, std::size_t stride) {
    for (std::size_t t = 0; t < n_targets; ++t) {
        const word_t* r = rules + targets[t] * uw;
        std::int32_t* o = out + stride * static_cast<std::size_t>(targets[t]);
        for (std::size_t p = 0; p < n_planes; ++p) {
            if (seg[p] == seg[p + 1]) continue;
            __m512i acc = _mm512_setzero_si512();
            for (std::size_t k = seg[p]; k < seg[p + 1]; ++k) {
                const word_t* rr = r + runs[k].start;
                const word_t* mm = masks + runs[k].at;
                const std::uint32_t len = runs[k].len;
                std::uint32_t i = 0;
                for (; i + 8 <= len; i += 8) {
                    const __m512i x = _mm512_and_si512(_mm512_loadu_si512(mm + i),
                                                       _mm512_loadu_si512(rr + i));
                    acc = _mm512_add_epi64(acc, _mm512_popcnt_epi64(x));
                }
                if (i < len) {
                    const auto km = static_cast<__mmask8>((1U << (len - i)) - 1U);
                    const __m512i x = _mm512_and_si512(_mm512_maskz_loadu_epi64(km, mm + i),
                                                       _mm512_maskz_loadu_epi64(km, rr + i));
                    acc = _mm512_add_epi64(acc, _mm512_popcnt_epi64(x));
                }
            }
            const std::int64_t s = _mm512_reduce_add_epi64(acc);
            o[planes[p].cell] += static_cast<std::int32_t>(s << planes[p].shift);
        }
    }
}
#pragma GCC diagnostic pop
#endif

using UnitCountFn = void (*)(const word_t*, std::size_t, const std::uint32_t*, std::size_t,
                             const UnitRun*, const word_t*, const std::size_t*, const BitPlane*,
                             std::size_t, std::int32_t*, std::size_t);
// Chosen once, at load time, from what the processor supports (bitset.hpp's test); the
// environment variable FAIRLIST_SCALAR_UNIT_COUNTS (any value) picks the scalar kernel, so that
// tests/test_terminal.py checks it on processors with AVX-512 too.
bool avx512_unit_counts() {
    return has_avx512_popcount() && std::getenv("FAIRLIST_SCALAR_UNIT_COUNTS") == nullptr;
}
UnitCountFn pick_unit_counts() {
#if FAIRLIST_HAVE_AVX512_POPCOUNT
    if (avx512_unit_counts()) return unit_counts_avx512;
#endif
    return unit_counts_scalar;
}
const UnitCountFn unit_counts = pick_unit_counts();
const double kUnitWordWork = avx512_unit_counts() ? kWordWorkAvx512 : kWordWork;
// FAIRLIST_ALWAYS_BITWISE_COUNTS (any value, read at load time): every count takes the bitwise
// path for the classes laid out, whatever the estimates, so that tests/test_pair_counts.py
// checks it on small tables and on weights of many planes, where they would add class by class.
const bool kAlwaysBitwise = std::getenv("FAIRLIST_ALWAYS_BITWISE_COUNTS") != nullptr;

// Bits set in a word array (the bit layout's runs; popcnt where the processor has it).
FAIRLIST_POPCNT_CLONES
std::int64_t count_bits(const word_t* words, std::size_t n) {
    std::int64_t c = 0;
    for (std::size_t i = 0; i < n; ++i) c += portable::popcount64(words[i]);
    return c;
}

// Packed layouts (Diagnostics::packed_pair_counts; PairCounts::fill_bits, pack_rows).  A set's
// pair row a reads, for each target b, every word of b's layout where the set and a share a
// bit: on bench_counting's 100,000-row table a child's set (the classes a first rule takes
// from its parent's) holds about 17,000 bits over 740 of the 1,350 words, and a row's mask
// about 2,350 bits over 390 words, six bits a word: the popcount kernel was 40 % of the
// certificate, memory-bound on those reads.  So the rows of a sparse set S are counted on a
// copy of the layout packed to S's bits: for each antecedent b, the word pext(B[w], S[w]) of
// each word w where S is nonzero, appended bit after bit, each plane from a word boundary (17,000
// bits: about 270 words).  Packing keeps S's bits in order and drops the others, and it is the
// same map for every antecedent, so bit i of packed(X) is X's bit at S's i-th bit, and
//   popcount(packed(A) & packed(B)) over plane p = popcount(S & A & B) over plane p:
// the same sums, read from fewer words.  A row's mask is packed(A) (packed(S) is all ones).  An
// antecedent is packed once per set, when a row first needs it (pack_rows), for as many words
// as S has nonzero (kPackWork each in count_row's estimate).  A set is packed when that shrinks
// its words at least kPackShrink times (a child's: 2.8 times; the sets of an expanded prefix
// are dense and stay as they are).  With FAIRLIST_ALWAYS_BITWISE_COUNTS every set is packed;
// tests/test_pair_counts.py compares the counts with and without, and with brute force.
constexpr double kPackWork = 2.0;
constexpr std::size_t kPackShrink = 2;

// out[0 ..] = the bits of src[w] at the positions of mask[w]'s, for w in words[0 .. n), packed
// in order from bit 0 (the words written: words_for of their number of bits).
using PackFn = void (*)(const word_t*, const word_t*, const std::uint32_t*, std::size_t,
                        word_t*);

// x's bits at m's, packed from bit 0 (the software pext: one step per bit of m).
inline word_t extract_bits(word_t x, word_t m) {
    word_t r = 0;
    for (word_t bit = 1; m != 0; bit <<= 1, m &= m - 1) {
        if ((x & m & (~m + 1)) != 0) r |= bit;
    }
    return r;
}

// The append, without branches (whether a word fills up is data, and mispredicted it cost
// most of the packing): x holds its k bits; acc, the `fill` (< 64) bits of out[at] so far, is
// stored at every step; once full, out[at + 1] starts with x's k - (64 - fill) high bits,
// x >> (64 - fill) written (x >> 1) >> (63 - fill) so that no shift reaches 64.
#define FAIRLIST_PACK_LOOP(EXTRACT)                                          \
    word_t acc = 0;                                                          \
    unsigned fill = 0;                                                       \
    std::size_t at = 0;                                                      \
    for (std::size_t i = 0; i < n; ++i) {                                    \
        const std::uint32_t w = words[i];                                    \
        const word_t x = EXTRACT(src[w], mask[w]);                           \
        const auto k = static_cast<unsigned>(portable::popcount64(mask[w])); \
        acc |= x << fill;                                                    \
        out[at] = acc;                                                       \
        const word_t high = (x >> 1) >> (63U - fill);                        \
        fill += k;                                                           \
        const bool full = fill >= 64U;                                       \
        at += full;                                                          \
        fill -= full ? 64U : 0U;                                             \
        acc = full ? high : acc;                                             \
    }                                                                        \
    if (fill != 0) out[at] = acc;

void pack_bits_portable(const word_t* src, const word_t* mask, const std::uint32_t* words,
                        std::size_t n, word_t* out) {
    FAIRLIST_PACK_LOOP(extract_bits)
}

#if FAIRLIST_HAVE_AVX512_POPCOUNT
// The same with the BMI2 instruction pext.
__attribute__((target("bmi2,popcnt")))
void pack_bits_bmi2(const word_t* src, const word_t* mask, const std::uint32_t* words,
                    std::size_t n, word_t* out) {
    FAIRLIST_PACK_LOOP(_pext_u64)
}
#endif
#undef FAIRLIST_PACK_LOOP

// pext where the processor runs it in a few cycles: BMI2, but not AMD's before Zen 3
// (families 15h and 17h: microcode, hundreds of cycles).
bool fast_pext() {
#if FAIRLIST_HAVE_AVX512_POPCOUNT
    static const bool fast =
        __builtin_cpu_supports("bmi2") &&
        !(__builtin_cpu_is("amd") && (__builtin_cpu_is("amdfam15h") ||
                                      __builtin_cpu_is("znver1") || __builtin_cpu_is("znver2")));
    return fast;
#else
    return false;
#endif
}

// The kernel, chosen at load time: pext where fast, unless FAIRLIST_SCALAR_UNIT_COUNTS asks
// for the portable one (tests/test_pair_counts.py runs both).
PackFn pick_pack_bits() {
#if FAIRLIST_HAVE_AVX512_POPCOUNT
    if (fast_pext() && std::getenv("FAIRLIST_SCALAR_UNIT_COUNTS") == nullptr) {
        return pack_bits_bmi2;
    }
#endif
    return pack_bits_portable;
}
const PackFn pack_bits = pick_pack_bits();

// Packed layouts where pext is fast, or everywhere when the tests force the bitwise path.
bool packing_pays() { return fast_pext() || kAlwaysBitwise; }

}  // namespace

void PairCounts::lay_out_bits(bool with_planes) {
    const std::size_t nc = data_.n_classes();
    // Class e's weight in cell c: (group, label) 2 g + y, then (4) its forced errors.
    auto weight = [&](std::size_t e, int c) -> std::uint64_t {
        if (c == 4) return static_cast<std::uint64_t>(class_forced_[e]);
        return static_cast<std::uint64_t>(class_counts_[e].c[c / 2][c % 2]);
    };
    std::vector<std::uint32_t> n_bits(nc, 0);
    for (std::size_t e = 0; e < nc; ++e) {
        for (int c = 0; c < 5; ++c) n_bits[e] += portable::popcount64(weight(e, c));
    }
    // The classes laid out, ascending.
    std::vector<std::uint32_t> chosen;
    if (with_planes) {
        std::vector<std::uint32_t> order(nc);
        for (std::uint32_t e = 0; e < nc; ++e) order[e] = e;
        std::stable_sort(order.begin(), order.end(),
                         [&](std::uint32_t a, std::uint32_t b) { return n_bits[a] < n_bits[b]; });
        const std::size_t budget = kBitsPerClass * nc;
        std::size_t total = 0;
        for (const std::uint32_t e : order) {
            if (total + n_bits[e] > budget) break;
            total += n_bits[e];
            chosen.push_back(e);
        }
        std::sort(chosen.begin(), chosen.end());
    } else {
        for (std::uint32_t e = 0; e < nc; ++e) {
            if (class_counts_[e].total() == 1) chosen.push_back(e);
        }
    }
    std::vector<std::int64_t> support(m_, 0);
    std::int64_t degrees = 0, bits = 0;
    for (const std::uint32_t e : chosen) {
        bit_any_[e / kWordBits] |= word_t{1} << (e % kWordBits);
        for (std::uint32_t k = offsets_[e]; k < offsets_[e + 1]; ++k) ++support[features_[k]];
        degrees += offsets_[e + 1] - offsets_[e];
        bits += n_bits[e];
    }
    const auto n_chosen = static_cast<std::int64_t>(chosen.size());
    bit_degree_ = bits > 0 ? static_cast<double>(degrees) / static_cast<double>(bits) : 0.0;
    // The popcounts' costs (cost(), "Costs").
    for (const std::uint32_t e : chosen) {
        const auto d = static_cast<double>(offsets_[e + 1] - offsets_[e]);
        const double bitwise = d * n_bits[e] * static_cast<double>(m_) * kUnitWordWork /
                               kBitsPerMaskWord;
        class_bit_cost_[e] = static_cast<std::int64_t>(std::ceil(bitwise));
    }
    // Rank of each antecedent: the most even splits first.
    std::vector<std::uint32_t> by_split(m_), rank(m_);
    for (std::uint32_t j = 0; j < m_; ++j) by_split[j] = j;
    auto unevenness = [&](std::uint32_t j) { return std::abs(2 * support[j] - n_chosen); };
    std::stable_sort(by_split.begin(), by_split.end(), [&](std::uint32_t a, std::uint32_t b) {
        return unevenness(a) < unevenness(b);
    });
    for (std::uint32_t r = 0; r < m_; ++r) rank[by_split[r]] = r;
    // Each class's antecedents as ascending ranks; lexicographic order on those lists puts a
    // class having the first antecedent where two differ before the one lacking it.  One
    // order for all the planes.
    std::vector<std::uint32_t> ranks(features_.size());
    for (std::size_t k = 0; k < features_.size(); ++k) ranks[k] = rank[features_[k]];
    for (std::size_t e = 0; e < nc; ++e) {
        std::sort(ranks.begin() + offsets_[e], ranks.begin() + offsets_[e + 1]);
    }
    std::sort(chosen.begin(), chosen.end(), [&](std::uint32_t a, std::uint32_t b) {
        return std::lexicographical_compare(ranks.begin() + offsets_[a],
                                            ranks.begin() + offsets_[a + 1],
                                            ranks.begin() + offsets_[b],
                                            ranks.begin() + offsets_[b + 1]);
    });
    // The planes, cell by cell ((group, label) first, the forced errors last), each from a
    // word boundary; bit_pos_: each class's bits.
    bit_off_.assign(nc + 1, 0);
    for (const std::uint32_t e : chosen) bit_off_[e + 1] = n_bits[e];
    for (std::size_t e = 0; e < nc; ++e) bit_off_[e + 1] += bit_off_[e];
    bit_pos_.assign(bit_off_[nc], 0);
    std::vector<std::uint32_t> cursor(bit_off_.begin(), bit_off_.end() - 1);
    std::size_t word = 0;
    for (int c = 0; c < 5; ++c) {
        std::uint64_t any = 0;
        for (const std::uint32_t e : chosen) any |= weight(e, c);
        for (int b = 0; b < 64 && (any >> b) != 0; ++b) {
            std::size_t p = 0;
            for (const std::uint32_t e : chosen) {
                if (((weight(e, c) >> b) & 1U) == 0) continue;
                bit_pos_[cursor[e]++] = static_cast<std::uint32_t>(word * kWordBits + p);
                ++p;
            }
            if (p == 0) continue;
            const auto start = static_cast<std::uint32_t>(word);
            word += words_for(p);
            planes_.push_back(BitPlane{start, static_cast<std::uint32_t>(word), c, b});
            if (c < 4) pair_planes_ = planes_.size();
        }
    }
    bit_words_ = word;
    set_cost_ = static_cast<std::int64_t>(kPlaneWork * static_cast<double>(pair_planes_) *
                                          static_cast<double>(m_ * m_));
    seg_.assign(planes_.size() + 1, 0);
    bit_rule_.assign(m_ * bit_words_, 0);
    for (const std::uint32_t e : chosen) {
        for (std::uint32_t i = bit_off_[e]; i < bit_off_[e + 1]; ++i) {
            const std::uint32_t p = bit_pos_[i];
            for (std::uint32_t k = offsets_[e]; k < offsets_[e + 1]; ++k) {
                bit_rule_[features_[k] * bit_words_ + p / kWordBits] |= word_t{1}
                                                                       << (p % kWordBits);
            }
        }
    }
}

std::int64_t PairCounts::collect_units(const word_t* units, const word_t* extra,
                                       const BitPlane* planes, std::size_t first,
                                       std::size_t last) {
    runs_.clear();
    word_masks_.clear();
    busy_planes_ = 0;
    for (std::size_t p = first; p < last; ++p) {
        seg_[p] = runs_.size();
        for (std::size_t w = planes[p].start; w < planes[p].end; ++w) {
            word_t x = units != nullptr ? units[w] : ~word_t{0};
            if (extra != nullptr) x &= extra[w];
            if (x == 0) continue;
            const auto wi = static_cast<std::uint32_t>(w);
            if (runs_.size() > seg_[p] && wi - (runs_.back().start + runs_.back().len) <= kRunGap) {
                UnitRun& run = runs_.back();
                for (std::uint32_t z = run.start + run.len; z < wi; ++z) word_masks_.push_back(0);
                run.len = wi + 1 - run.start;
            } else {
                runs_.push_back(UnitRun{wi, 1, static_cast<std::uint32_t>(word_masks_.size())});
            }
            word_masks_.push_back(x);
        }
        if (runs_.size() > seg_[p]) ++busy_planes_;
    }
    seg_[last] = runs_.size();
    return count_bits(word_masks_.data(), word_masks_.size());
}

double PairCounts::dense_work() const {
    return kPlaneWork * static_cast<double>(busy_planes_) +
           kRunWork * static_cast<double>(runs_.size()) +
           kUnitWordWork * static_cast<double>(word_masks_.size());
}

bool PairCounts::add_units(std::int32_t* out, std::size_t stride, const word_t* rules,
                           std::size_t uw, const BitPlane* planes, std::size_t first,
                           std::size_t last) {
    // In chunks of targets, polling between them.
    constexpr std::size_t kChunk = 16;
    const std::size_t nw = word_masks_.size();
    for (std::size_t lo = 0; lo < targets_.size(); lo += kChunk) {
        const std::size_t n = std::min(kChunk, targets_.size() - lo);
        unit_counts(rules, uw, targets_.data() + lo, n, runs_.data(), word_masks_.data(),
                    seg_.data() + first, planes + first, last - first, out, stride);
        if (stop_ != nullptr && stop_->poll(static_cast<std::int64_t>(n * nw) + 1)) return false;
    }
    return true;
}

void PairCounts::fill_bits(Table& t, const word_t* classes, const word_t* rule_bits) {
    t.rest.clear();
    for (std::size_t w = 0; w < data_.n_class_words(); ++w) {
        if ((classes[w] & ~bit_any_[w]) != 0) t.rest.push_back(static_cast<std::uint32_t>(w));
    }
    if (rule_bits != nullptr) {
        for (std::size_t w = 0; w < bit_words_; ++w) t.units[w] = base_.units[w] & rule_bits[w];
    } else {
        std::fill(t.units.begin(), t.units.end(), 0);
        for (std::size_t w = 0; w < data_.n_class_words(); ++w) {
            for (word_t x = classes[w] & bit_any_[w]; x; x &= x - 1) {
                const std::size_t e =
                    w * kWordBits + static_cast<std::size_t>(portable::ctz64(x));
                for (std::uint32_t i = bit_off_[e]; i < bit_off_[e + 1]; ++i) {
                    const std::uint32_t p = bit_pos_[i];
                    t.units[p / kWordBits] |= word_t{1} << (p % kWordBits);
                }
            }
        }
    }
    const std::size_t pair_end = pair_planes_ > 0 ? planes_[pair_planes_ - 1].end : 0;
    t.pair_bits = count_bits(t.units.data(), pair_end);
    // The packed layout's plan (pair_counts.cpp, "Packed layouts"): the pair planes' nonzero
    // words, and each plane's packed words.
    t.packed = false;
    if (!packed_on_) return;
    t.pwords.clear();
    t.pplanes.clear();
    std::size_t pw = 0;
    for (std::size_t p = 0; p < pair_planes_; ++p) {
        t.pseg[p] = static_cast<std::uint32_t>(t.pwords.size());
        std::size_t bits = 0;
        for (std::uint32_t w = planes_[p].start; w < planes_[p].end; ++w) {
            if (t.units[w] == 0) continue;
            t.pwords.push_back(w);
            bits += static_cast<std::size_t>(portable::popcount64(t.units[w]));
        }
        const auto start = static_cast<std::uint32_t>(pw);
        pw += words_for(bits);
        t.pplanes.push_back(
            BitPlane{start, static_cast<std::uint32_t>(pw), planes_[p].cell, planes_[p].shift});
    }
    t.pseg[pair_planes_] = static_cast<std::uint32_t>(t.pwords.size());
    t.packed = kAlwaysBitwise || pw * kPackShrink <= t.pwords.size();
    if (!t.packed) return;
    t.pw = pw;
    if (t.prow.size() < m_ * pw) t.prow.resize(m_ * pw);
    if (++t.pepoch == 0) {  // wrapped: no row may look packed
        std::fill(t.pstamp.begin(), t.pstamp.end(), 0U);
        t.pepoch = 1;
    }
}

void PairCounts::pack_rows(Table& t, const std::uint32_t* ids, std::size_t n) {
    for (std::size_t k = 0; k < n; ++k) {
        const std::uint32_t b = ids[k];
        if (t.pstamp[b] == t.pepoch) continue;
        const word_t* src = bit_rule_.data() + b * bit_words_;
        word_t* out = t.prow.data() + b * t.pw;
        for (std::size_t p = 0; p < pair_planes_; ++p) {
            pack_bits(src, t.units.data(), t.pwords.data() + t.pseg[p],
                      t.pseg[p + 1] - t.pseg[p], out + t.pplanes[p].start);
        }
        t.pstamp[b] = t.pepoch;
    }
}

// The single counts of the classes R the base's classes Q leave after antecedent `rule`
// captures them (R = Q & rule's classes: finish_child's `removed`): R & b = Q & rule & b, so
// b's counts on R are the base's pair (rule, b), counted for every column by count(), and
// rule's own are its base single counts.  Only the forced errors, which the pair rows do not
// hold, are counted: by their planes (cell 4) where the classes are laid out and that is less
// work (count_singles' estimate; before, always: on COMPAS, where few classes hold forced
// errors, that was a pass of m targets per child for a handful of additions), else class by
// class.  On bench_counting's 100,000-row table the singles of a child were about an eighth
// of the profile, counted over every antecedent and every plane.
void PairCounts::singles_from_row(Table& t, const word_t* classes, std::uint32_t rule) {
    if (++t.epoch == 0) {  // wrapped: no row may look counted
        std::fill(t.stamp.begin(), t.stamp.end(), 0U);
        t.epoch = 1;
        t.live_epoch = 0;
    }
    const std::size_t cw = data_.n_class_words();
    std::copy(classes, classes + cw, t.classes.begin());
    std::fill(t.forced.begin(), t.forced.end(), 0);
    if (base_.single[rule].total() == 0) {  // R is empty (and row `rule` never counted)
        std::fill(t.single.begin(), t.single.end(), SplitCounts(2));
        if (bit_words_ > 0) std::fill(t.units.begin(), t.units.end(), 0);
        t.rest.clear();
        t.packed = false;
        return;
    }
    const Quad* row = base_.pair.data() + rule * m_;
    for (std::size_t b = 0; b < m_; ++b) t.single[b] = split(row[b]);
    t.single[rule] = base_.single[rule];
    bool units = false;
    if (bit_words_ > 0) {
        fill_bits(t, classes, bit_rule_.data() + rule * bit_words_);
        const auto n = static_cast<double>(collect_units(t.units.data(), nullptr,
                                                         planes_.data(), pair_planes_,
                                                         planes_.size()));
        units = kAlwaysBitwise || dense_work() * static_cast<double>(m_) < n * bit_degree_;
    }
    for (std::size_t w = 0; w < cw; ++w) {
        std::int64_t work = 1;
        for (word_t x = units ? classes[w] & ~bit_any_[w] : classes[w]; x; x &= x - 1) {
            const std::size_t e = w * kWordBits + static_cast<std::size_t>(portable::ctz64(x));
            const std::int64_t f = class_forced_[e];
            if (f == 0) continue;
            work += offsets_[e + 1] - offsets_[e];
            for (std::uint32_t k = offsets_[e]; k < offsets_[e + 1]; ++k) {
                t.forced[features_[k]] += f;
            }
        }
        if (stop_ != nullptr && stop_->poll(work)) return;  // partial: the search stops
    }
    if (!units || runs_.empty()) return;
    targets_.resize(m_);
    for (std::uint32_t j = 0; j < m_; ++j) targets_[j] = j;
    std::fill(sums_.begin(), sums_.end(), 0);
    if (!add_units(sums_.data(), 8, bit_rule_.data(), bit_words_, planes_.data(), pair_planes_,
                   planes_.size())) {
        return;  // partial: the search stops
    }
    for (std::size_t j = 0; j < m_; ++j) t.forced[j] += sums_[8 * j + 4];
}

void PairCounts::count_singles(Table& t, const word_t* classes) {
    if (++t.epoch == 0) {  // wrapped: no row may look counted
        std::fill(t.stamp.begin(), t.stamp.end(), 0U);
        t.epoch = 1;
        t.live_epoch = 0;
    }
    const std::size_t cw = data_.n_class_words();
    std::copy(classes, classes + cw, t.classes.begin());
    std::fill(t.single.begin(), t.single.end(), SplitCounts(2));
    std::fill(t.forced.begin(), t.forced.end(), 0);
    // The laid-out classes by popcounts when that is less work (their forced errors in the
    // planes of cell 4).
    bool units = false;
    if (bitwise_ && bit_words_ > 0) {
        fill_bits(t, classes);
        const auto n = static_cast<double>(
            collect_units(t.units.data(), nullptr, planes_.data(), 0, planes_.size()));
        units = kAlwaysBitwise || dense_work() * static_cast<double>(m_) < n * bit_degree_;
    }
    for (std::size_t w = 0; w < cw; ++w) {
        std::int64_t work = 1;
        for (word_t x = units ? classes[w] & ~bit_any_[w] : classes[w]; x; x &= x - 1) {
            const std::size_t e = w * kWordBits + static_cast<std::size_t>(portable::ctz64(x));
            const SplitCounts& c = class_counts_[e];
            const std::int64_t f = class_forced_[e];
            work += offsets_[e + 1] - offsets_[e];
            for (std::uint32_t k = offsets_[e]; k < offsets_[e + 1]; ++k) {
                accumulate(t.single[features_[k]], c);
                t.forced[features_[k]] += f;
            }
        }
        if (stop_ != nullptr && stop_->poll(work)) return;  // partial: the search stops
    }
    if (!units) return;
    targets_.resize(m_);
    for (std::uint32_t j = 0; j < m_; ++j) targets_[j] = j;
    std::fill(sums_.begin(), sums_.end(), 0);
    if (!add_units(sums_.data(), 8, bit_rule_.data(), bit_words_, planes_.data(), 0,
                   planes_.size())) {
        return;  // partial: the search stops
    }
    for (std::size_t j = 0; j < m_; ++j) {
        const std::int32_t* s = sums_.data() + 8 * j;
        accumulate(t.single[j], split(Quad{{s[0], s[1], s[2], s[3]}}));
        t.forced[j] += s[4];
    }
}

void PairCounts::count_row(Table& t, std::uint32_t a, const std::vector<std::uint32_t>* columns,
                           std::size_t share) {
    // Each class of the set that a captures adds its counts to (a, b) for each of its
    // antecedents b: the row of a, where they add up, stays in the first-level cache.
    Quad* const row = t.pair.data() + a * m_;
    std::fill(row, row + m_, Quad{});
    const std::size_t cw = data_.n_class_words();
    const word_t* r = data_.class_rule(a);
    const std::uint32_t* const features = features_.data();
    // The laid-out classes by popcounts when that is less work, against the antecedents the
    // set leaves active (for any other b, no class of the set is b's: (a, b) stays 0); on the
    // set's packed layout where it has one (fill_bits), packing the targets it lacks: a
    // packed target serves every later row of the set, so a row is charged 1 / share of it.
    //
    // Mirrors (Diagnostics::mirrored_pair_rows).  (a, b) and (b, a) count the same samples, those
    // of the set that both capture, so a target b whose row already holds (b, a), in full (the
    // class-by-class additions and the popcounts), is not counted again: (a, b) is copied from
    // it.  Row b holds it when counted for this set (has_row) for every column (part 0), or
    // for the columns of this count_rows call with a among them.  In count(), every row is
    // counted for every column, so row a copies the columns of the rows before it, and half
    // the pairs are counted; in count_rows, the pairs of two first rules that are both
    // candidates.
    bool units = false;
    const bool packed = bitwise_ && bit_words_ > 0 && t.packed;
    mirrors_.clear();
    if (bitwise_ && bit_words_ > 0) {
        // Floors of the popcounts' work, checked before the work they spare ("Costs"): the
        // targets (the set's live antecedents, b != a, among the columns) each cost at least
        // dense_work(), itself at least one plane, one run and one word; the row's bits are
        // at most the set's.  The popcounts are taken only where n * bit_degree_ exceeds
        // dense_work() * max(1, targets), so a row failing a floor would have been added
        // class by class anyway: the same choice, without collecting the row's bits (two
        // scans of the pair planes, and a pext of row a where packed) nor listing the targets
        // (a pass over m SplitCounts of a kilobyte each).  On COMPAS no row takes the
        // popcounts, and these two were half of count_row.
        if (t.live_epoch != t.epoch) {
            t.n_live = 0;
            for (std::size_t b = 0; b < m_; ++b) {
                t.live[b] = t.single[b].total() > 0 ? 1 : 0;
                t.n_live += t.live[b];
            }
            t.live_epoch = t.epoch;
            t.live_call = 0;
        }
        std::size_t n_targets = 0;
        if (columns != nullptr) {
            if (t.live_call != rows_call_) {  // once per count_rows call
                t.n_live_columns = 0;
                for (const std::uint32_t b : *columns) t.n_live_columns += t.live[b];
                t.live_call = rows_call_;
            }
            n_targets = t.n_live_columns;
            if (t.live[a] != 0 && std::binary_search(columns->begin(), columns->end(), a)) {
                --n_targets;
            }
        } else {
            n_targets = t.n_live - t.live[a];
        }
        const auto per_target = static_cast<double>(std::max<std::size_t>(n_targets, 1));
        const bool may_pay = kAlwaysBitwise ||
                             static_cast<double>(t.pair_bits) * bit_degree_ >
                                 (kPlaneWork + kRunWork + kUnitWordWork) * per_target;
        std::int64_t bits = 0;
        if (!may_pay) {
        } else if (packed) {
            pack_rows(t, &a, 1);
            bits = collect_units(nullptr, t.prow.data() + a * t.pw, t.pplanes.data(), 0,
                                 pair_planes_);
        } else {
            bits = collect_units(t.units.data(), bit_rule_.data() + a * bit_words_,
                                 planes_.data(), 0, pair_planes_);
        }
        const auto n = static_cast<double>(bits);
        // Not worth listing the targets when they would cost more than the additions.
        if (kAlwaysBitwise || (may_pay && n * bit_degree_ > dense_work() * per_target)) {
            targets_.clear();
            std::size_t fresh = 0;  // targets not packed yet
            auto add_target = [&](std::uint32_t b) {
                if (b == a || t.live[b] == 0) return;
                targets_.push_back(b);
                if (packed && t.pstamp[b] != t.pepoch) ++fresh;
            };
            if (columns != nullptr) {
                for (const std::uint32_t b : *columns) add_target(b);
            } else {
                for (std::uint32_t b = 0; b < m_; ++b) add_target(b);
            }
            const double work = dense_work() * static_cast<double>(targets_.size()) +
                                kPackWork * static_cast<double>(t.pwords.size()) *
                                    static_cast<double>(fresh) / static_cast<double>(share);
            units = kAlwaysBitwise || work < n * bit_degree_;
        }
    }
    // The mirrors among the targets (estimated as counted: looked for only on the popcounts'
    // path, whose rows are few where additions win).
    if (units && mirrored_on_) {
        const bool a_column =
            columns != nullptr && std::binary_search(columns->begin(), columns->end(), a);
        std::size_t kept = 0;
        for (const std::uint32_t b : targets_) {
            if (t.has_row(b) && (t.part[b] == 0 || (a_column && t.part[b] == rows_call_))) {
                mirrors_.push_back(b);
            } else {
                targets_[kept++] = b;
            }
        }
        targets_.resize(kept);
    }
    // The others class by class: with the popcounts, only the classes not laid out (t.rest's
    // words).
    auto add_classes = [&](std::size_t w, word_t x) {
        std::int64_t work = 1;
        for (; x; x &= x - 1) {
            const std::size_t e = w * kWordBits + static_cast<std::size_t>(portable::ctz64(x));
            const Quad q = class_quad_[e];
            const std::uint32_t* const last = features + offsets_[e + 1];
            work += offsets_[e + 1] - offsets_[e];
            for (const std::uint32_t* b = features + offsets_[e]; b != last; ++b) {
                Quad& p = row[*b];
                for (int k = 0; k < 4; ++k) p.v[k] += q.v[k];
            }
        }
        return work;
    };
    if (units) {
        for (const std::uint32_t w : t.rest) {
            const std::int64_t work = add_classes(w, r[w] & t.classes[w] & ~bit_any_[w]);
            if (stop_ != nullptr && stop_->poll(work)) return;  // partial, not marked counted
        }
    } else {
        for (std::size_t w = 0; w < cw; ++w) {
            const std::int64_t work = add_classes(w, r[w] & t.classes[w]);
            if (stop_ != nullptr && stop_->poll(work)) return;  // partial, not marked counted
        }
    }
    // Partial, and not marked counted, when a poll stops the search.
    if (units) {
        if (packed) pack_rows(t, targets_.data(), targets_.size());
        const bool done =
            packed ? add_units(&row[0].v[0], 4, t.prow.data(), t.pw, t.pplanes.data(), 0,
                               pair_planes_)
                   : add_units(&row[0].v[0], 4, bit_rule_.data(), bit_words_, planes_.data(), 0,
                               pair_planes_);
        if (!done) return;
        for (const std::uint32_t b : mirrors_) row[b] = t.pair[b * m_ + a];
    }
    row[a] = Quad{};  // (a, a) is not a pair
    t.stamp[a] = t.epoch;
    // The class-by-class path counts every column; the bitwise one its targets.
    t.part[a] = units && columns != nullptr ? rows_call_ : 0;
}

void PairCounts::make_view() {
    active_.clear();
    for (std::uint32_t j = 0; j < m_; ++j) {
        SplitCounts s = plus_->single[j];
        std::int64_t f = plus_->forced[j];
        if (minus_ != nullptr) {
            s = minus(s, minus_->single[j]);
            f -= minus_->forced[j];
        }
        single_[j] = s;
        single4_[j] = Four{{s.c[0][0], s.c[0][1], s.c[1][0], s.c[1][1]}};
        forced_[j] = f;
        label_[0][j] = s.label(0);
        label_[1][j] = s.label(1);
        if (s.total() > 0) active_.push_back(j);
    }
}

void PairCounts::count(const word_t* classes) {
    sums(classes, base_cost_);
    count_singles(base_, classes);
    std::size_t left = 0;
    for (std::uint32_t a = 0; a < m_; ++a) left += base_.single[a].total() > 0;
    for (std::uint32_t a = 0; a < m_; ++a) {
        if (base_.single[a].total() > 0) count_row(base_, a, nullptr, left--);
    }
    plus_ = &base_;
    minus_ = nullptr;
    make_view();
}

void PairCounts::remove(const word_t* removed) {
    count_singles(other_, removed);
    plus_ = &base_;
    minus_ = &other_;
    make_view();
}

void PairCounts::remove(const word_t* removed, std::uint32_t rule) {
    if (!planes_on_) return remove(removed);
    singles_from_row(other_, removed, rule);
    plus_ = &base_;
    minus_ = &other_;
    make_view();
}

void PairCounts::count_alone(const word_t* classes) {
    count_singles(other_, classes);
    plus_ = &other_;
    minus_ = nullptr;
    make_view();
}

void PairCounts::count_rows(const std::vector<std::uint32_t>& rows,
                            const std::vector<std::uint32_t>* columns) {
    if (plus_ == &base_ && minus_ == nullptr) return;  // the base has every row
    ++rows_call_;
    std::size_t left = rows.size();
    for (const std::uint32_t a : rows) {
        // A row counted for the columns of an earlier call, or of this one when every column
        // is needed now, is counted again.
        const std::uint64_t part = other_.part[a];
        const bool valid = other_.has_row(a) &&
                           (part == 0 || (columns != nullptr && part == rows_call_));
        if (other_.single[a].total() > 0 && !valid) count_row(other_, a, columns, left);
        --left;
        if (stop_ != nullptr && stop_->stopped()) return;
    }
}

namespace {

// Bit t set where same[t] >= a and net[t] >= b, for t < width <= 64 (four at a time with SSE2,
// the x86-64 baseline; a and b above INT32_MIN).
std::uint64_t pass_mask(const std::int32_t* same, const std::int32_t* net, std::size_t width,
                        std::int32_t a, std::int32_t b) {
    std::uint64_t mask = 0;
    std::size_t t = 0;
#if FAIRLIST_SSE2_FILTER
    const __m128i below_a = _mm_set1_epi32(a - 1), below_b = _mm_set1_epi32(b - 1);
    for (; t + 4 <= width; t += 4) {
        const __m128i s = _mm_loadu_si128(reinterpret_cast<const __m128i*>(same + t));
        const __m128i n = _mm_loadu_si128(reinterpret_cast<const __m128i*>(net + t));
        const __m128i ok =
            _mm_and_si128(_mm_cmpgt_epi32(s, below_a), _mm_cmpgt_epi32(n, below_b));
        mask |= static_cast<std::uint64_t>(_mm_movemask_ps(_mm_castsi128_ps(ok))) << t;
    }
#endif
    for (; t < width; ++t) {
        mask |= static_cast<std::uint64_t>((same[t] >= a) & (net[t] >= b)) << t;
    }
    return mask;
}

}  // namespace

// Rule (j, Q) after i: b = single(j) - pair(i, j) on scalars (the label and the number of
// gaps fixed at compile time), its gain, then the fairness gaps for each first label whose
// need the gain meets.
//
// Which j to examine.  With a = single(i) and o = 1 - Q, the pair's counts lie between 0 and
// a's, so b.Q <= single(j).Q and b.o >= single(j).o - a.o, and the gain b.Q - b.o is at most
//   same(j) = label(Q, j)   and   net(j) + a.o = label(Q, j) - label(o, j) + a.o.
// A j with either bound below need = the least of screen.need cannot pass.  The filter tests
// both bounds on 64 candidates at a time, without branches, into a mask of those to examine.
// (On the <= 5-rule COMPAS certificate at lambda 0.005 a scan of the antecedents in
// decreasing order of same(j), stopping at the first below need, examined 56 j on average, of
// which 16 % reached need; about 24 pass both bounds.)
template <int Q, int Gaps>
std::size_t PairCounts::scan_gainers(std::uint32_t i, const SecondRuleCandidates& candidates,
                                     const SecondRuleScreen& screen,
                                     std::vector<std::uint32_t>* out) const {
    const Quad* const plus = plus_->pair.data() + i * m_;
    const Quad* const minus =
        minus_ != nullptr && minus_->has_row(i) ? minus_->pair.data() + i * m_ : nullptr;
    const std::int64_t need = std::min(screen.need[0], screen.need[1]);
    // Every key is above INT32_MIN (SecondRuleCandidates), so a threshold of INT32_MIN + 1 lets
    // all pass.
    constexpr std::int64_t kLow = std::numeric_limits<std::int32_t>::min() + 1;
    constexpr std::int64_t kHigh = std::numeric_limits<std::int32_t>::max();
    if (need > kHigh) return 0;  // no count reaches it
    const Four& a = single4_[i];
    const auto t_same = static_cast<std::int32_t>(std::max(need, kLow));
    const auto t_net = static_cast<std::int32_t>(
        std::clamp(need - (a.v[1 - Q] + a.v[3 - Q]), kLow, kHigh));
    const std::int32_t* const same = candidates.same.data();
    const std::int32_t* const net = candidates.net.data();
    const std::size_t n = candidates.ids.size();
    std::size_t examined = 0;
    for (std::size_t lo = 0; lo < n; lo += 64) {
        const std::size_t width = std::min<std::size_t>(64, n - lo);
        std::uint64_t mask = pass_mask(same + lo, net + lo, width, t_same, t_net);
        while (mask != 0) {
            const auto t = static_cast<std::size_t>(portable::ctz64(mask));
            const std::uint32_t j = candidates.ids[lo + t];
            mask &= mask - 1;
            if (j == i) continue;
            ++examined;
            // b by (group, label), Quad index 2 g + y.
            const Four& s = single4_[j];
            std::int64_t b[4] = {s.v[0] - plus[j].v[0], s.v[1] - plus[j].v[1],
                                 s.v[2] - plus[j].v[2], s.v[3] - plus[j].v[3]};
            if (minus != nullptr) {
                for (int k = 0; k < 4; ++k) b[k] += minus[j].v[k];
            }
            const std::int64_t gain = (b[Q] + b[2 + Q]) - (b[1 - Q] + b[3 - Q]);
            if (gain < need) continue;
            double u[2] = {0.0, 0.0};
            for (int k = 0; k < Gaps; ++k) {
                for (int c = 0; c < 4; ++c) {
                    u[k] += screen.coef[k][c] * static_cast<double>(b[c]);
                }
                u[k] *= screen.sign;
            }
            bool keep = false;
            for (int q1 = 0; q1 < 2 && !keep; ++q1) {
                if (gain < screen.need[q1]) continue;
                keep = true;
                for (int k = 0; k < Gaps; ++k) {
                    if (std::fabs(screen.base[q1][k] + u[k]) > screen.cap) keep = false;
                }
            }
            if (keep) out->push_back(j);
        }
    }
    return examined;
}

std::size_t PairCounts::gainers(std::uint32_t i, int q, const SecondRuleCandidates& candidates,
                                const SecondRuleScreen& screen,
                                std::vector<std::uint32_t>* out) const {
    // The label and the number of gaps (0, 1 or 2) as template arguments.
    if (screen.n_gaps == 0) {
        return q ? scan_gainers<1, 0>(i, candidates, screen, out)
                 : scan_gainers<0, 0>(i, candidates, screen, out);
    }
    if (screen.n_gaps == 1) {
        return q ? scan_gainers<1, 1>(i, candidates, screen, out)
                 : scan_gainers<0, 1>(i, candidates, screen, out);
    }
    return q ? scan_gainers<1, 2>(i, candidates, screen, out)
             : scan_gainers<0, 2>(i, candidates, screen, out);
}

}  // namespace fairlist
