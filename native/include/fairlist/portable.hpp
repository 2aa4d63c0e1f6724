// Bit-counting and prefetch helpers written once for GCC, clang and MSVC, each with a plain C++
// fallback. The core calls these instead of compiler builtins.
//
//   popcount64(x)  set bits of x
//   ctz64(x)       index of the lowest set bit of x (x != 0)
//   prefetch(p)    a hint to fetch *p into the cache (may do nothing)
//
// Which path each takes, first match:
//   FAIRLIST_PORTABLE_BUILTINS=1 (meson -Dportable_builtins=true)  the fallback, everywhere
//   C++20 <bit> (std::popcount, std::countr_zero)
//   GCC / clang                                                     __builtin_*
//   MSVC x64                                                        __popcnt64, _BitScanForward64
//   otherwise                                                       the fallback
// The fallbacks are constexpr functions in fairlist::portable::fallback, always compiled, so a
// test can compare them with the builtin path on any compiler (native/tests/portable_check.cpp,
// run by tests/test_portable.py).
//
// Also here: FAIRLIST_POPCNT_CLONES (GCC's target_clones for the popcnt instruction, where it
// exists) and FAIRLIST_HAVE_AVX512_POPCOUNT (whether the AVX-512 kernel of bitset.cpp is
// compiled); both are off with FAIRLIST_PORTABLE_BUILTINS.
#pragma once

#include <cstdint>

#ifndef FAIRLIST_PORTABLE_BUILTINS
#define FAIRLIST_PORTABLE_BUILTINS 0
#endif

#if defined(__has_include)
#if __has_include(<bit>)
#include <bit>
#endif
#endif

#if defined(_MSC_VER) && !defined(__clang__)
#include <intrin.h>
#if defined(_M_X64) || defined(_M_IX86)
#include <xmmintrin.h>  // _mm_prefetch
#endif
#endif

#if !FAIRLIST_PORTABLE_BUILTINS && defined(__cpp_lib_bitops) && __cpp_lib_bitops >= 201907L
#define FAIRLIST_BITS_STD 1
#else
#define FAIRLIST_BITS_STD 0
#endif

#if !FAIRLIST_PORTABLE_BUILTINS && (defined(__GNUC__) || defined(__clang__))
#define FAIRLIST_BITS_GNU 1
#else
#define FAIRLIST_BITS_GNU 0
#endif

#if !FAIRLIST_PORTABLE_BUILTINS && defined(_MSC_VER) && !defined(__clang__) && defined(_M_X64)
#define FAIRLIST_BITS_MSVC 1
#else
#define FAIRLIST_BITS_MSVC 0
#endif

// GCC on x86-64 Linux: a function compiled twice, with and without the popcnt instruction, the
// right one picked at load time (clang and other systems: compiled once, for the baseline).
#if !FAIRLIST_PORTABLE_BUILTINS && defined(__GNUC__) && !defined(__clang__) && \
    defined(__x86_64__) && defined(__linux__)
#define FAIRLIST_POPCNT_CLONES __attribute__((target_clones("popcnt", "default")))
#else
#define FAIRLIST_POPCNT_CLONES
#endif

// The AVX-512 VPOPCNTDQ kernel needs GCC-style target attributes and __builtin_cpu_supports
// (GCC and clang, not MSVC or clang-cl, which does not define __GNUC__).
#if !FAIRLIST_PORTABLE_BUILTINS && defined(__GNUC__) && defined(__x86_64__)
#define FAIRLIST_HAVE_AVX512_POPCOUNT 1
#else
#define FAIRLIST_HAVE_AVX512_POPCOUNT 0
#endif

namespace fairlist::portable {

namespace fallback {

// Sideways addition (Hacker's Delight 5-2): bit counts of pairs, nibbles, bytes, then a sum of
// the eight byte counts by one multiplication.
constexpr int popcount64(std::uint64_t x) {
    x = x - ((x >> 1) & 0x5555555555555555ULL);
    x = (x & 0x3333333333333333ULL) + ((x >> 2) & 0x3333333333333333ULL);
    x = (x + (x >> 4)) & 0x0F0F0F0F0F0F0F0FULL;
    return static_cast<int>((x * 0x0101010101010101ULL) >> 56);
}

// The lowest set bit isolated (x & -x), then the bits below it counted. x != 0.
constexpr int ctz64(std::uint64_t x) { return popcount64((x & (~x + 1)) - 1); }

}  // namespace fallback

inline int popcount64(std::uint64_t x) {
#if FAIRLIST_BITS_STD
    return std::popcount(x);
#elif FAIRLIST_BITS_GNU
    return __builtin_popcountll(x);
#elif FAIRLIST_BITS_MSVC
    // The POPCNT instruction (every x86-64 processor since 2008; Windows 11 requires it).
    return static_cast<int>(__popcnt64(x));
#else
    return fallback::popcount64(x);
#endif
}

// x != 0 (the builtins leave ctz64(0) undefined).
inline int ctz64(std::uint64_t x) {
#if FAIRLIST_BITS_STD
    return std::countr_zero(x);
#elif FAIRLIST_BITS_GNU
    return __builtin_ctzll(x);
#elif FAIRLIST_BITS_MSVC
    unsigned long i;
    _BitScanForward64(&i, x);
    return static_cast<int>(i);
#else
    return fallback::ctz64(x);
#endif
}

inline void prefetch(const void* p) {
#if FAIRLIST_PORTABLE_BUILTINS
    (void)p;
#elif defined(__GNUC__) || defined(__clang__)
    __builtin_prefetch(p);
#elif defined(_MSC_VER) && (defined(_M_X64) || defined(_M_IX86))
    _mm_prefetch(static_cast<const char*>(p), _MM_HINT_T0);
#else
    (void)p;
#endif
}

}  // namespace fairlist::portable
