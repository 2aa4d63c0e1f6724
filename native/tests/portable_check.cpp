// Checks native/include/fairlist/portable.hpp: the helpers the core calls (whichever path this
// compiler and FAIRLIST_PORTABLE_BUILTINS select) against the plain C++ fallbacks and a bit-by-bit
// count, on edge cases and on random words. Compiled and run by tests/test_portable.py; prints the
// path taken and the number of words checked, exits 1 on the first disagreement.
#include <cstdint>
#include <cstdio>
#include <initializer_list>

#include "fairlist/portable.hpp"

namespace {

using fairlist::portable::ctz64;
using fairlist::portable::popcount64;
namespace fallback = fairlist::portable::fallback;

int popcount_reference(std::uint64_t x) {
    int c = 0;
    for (int b = 0; b < 64; ++b) c += static_cast<int>((x >> b) & 1U);
    return c;
}

int ctz_reference(std::uint64_t x) {
    int b = 0;
    while (!((x >> b) & 1U)) ++b;
    return b;
}

// SplitMix64: a fixed sequence of well-mixed words.
std::uint64_t next(std::uint64_t& state) {
    std::uint64_t z = (state += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

bool check(std::uint64_t x) {
    const int p = popcount_reference(x);
    if (popcount64(x) != p || fallback::popcount64(x) != p) {
        std::printf("popcount64(%016llx): helper %d, fallback %d, reference %d\n",
                    static_cast<unsigned long long>(x), popcount64(x), fallback::popcount64(x), p);
        return false;
    }
    if (x != 0) {
        const int t = ctz_reference(x);
        if (ctz64(x) != t || fallback::ctz64(x) != t) {
            std::printf("ctz64(%016llx): helper %d, fallback %d, reference %d\n",
                        static_cast<unsigned long long>(x), ctz64(x), fallback::ctz64(x), t);
            return false;
        }
    }
    fairlist::portable::prefetch(&x);
    return true;
}

// The fallbacks are constexpr: these hold at compile time on every compiler.
static_assert(fallback::popcount64(0) == 0, "popcount64(0)");
static_assert(fallback::popcount64(~std::uint64_t{0}) == 64, "popcount64(~0)");
static_assert(fallback::ctz64(std::uint64_t{1} << 63) == 63, "ctz64(2^63)");
static_assert(fallback::ctz64(0x50) == 4, "ctz64(0x50)");

}  // namespace

int main() {
    const char* path = FAIRLIST_PORTABLE_BUILTINS ? "fallback"
                       : FAIRLIST_BITS_STD        ? "std"
                       : FAIRLIST_BITS_GNU        ? "gnu"
                       : FAIRLIST_BITS_MSVC       ? "msvc"
                                                  : "fallback";
    long long n = 0;
    for (int b = 0; b < 64; ++b) {  // single bits, their complements, low and high masks
        const std::uint64_t one = std::uint64_t{1} << b;
        for (std::uint64_t x : {one, ~one, one - 1, ~(one - 1), one | 1U}) {
            if (!check(x)) return 1;
            ++n;
        }
    }
    std::uint64_t state = 20190909;
    for (int i = 0; i < 1000000; ++i) {
        std::uint64_t x = next(state);
        // Sparse and dense words as well as uniform ones.
        if (i % 3 == 1) x &= next(state) & next(state);
        if (i % 3 == 2) x |= next(state) | next(state);
        if (!check(x)) return 1;
        ++n;
    }
    std::printf("path=%s words=%lld\n", path, n);
    return 0;
}
