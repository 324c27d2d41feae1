/* SPDX-License-Identifier: MIT */
/* bitmap.h - fixed-size bitmaps of uint64_t words with find-first-set over a range.
 *
 * The caller owns the storage: `uint64_t bits[TBITMAP_WORDS(704)];`, zeroed
 * (or tbitmap_zero) before use. Used by timer_wheel.h to skip empty slots.
 *
 *     uint64_t occ[TBITMAP_WORDS(100)];
 *     tbitmap_zero(occ, 100);
 *     tbitmap_set(occ, 42);
 *     size_t i = tbitmap_find_first(occ, 0, 100);   // 42; 100 when none
 *
 * API (all static inline; bit i lives in word i / 64 at position i % 64):
 *   TBITMAP_WORDS(nbits)                           words needed for nbits
 *   void   tbitmap_zero(uint64_t *bits, size_t nbits);
 *   void   tbitmap_set(uint64_t *bits, size_t i);
 *   void   tbitmap_clear(uint64_t *bits, size_t i);
 *   bool   tbitmap_test(const uint64_t *bits, size_t i);
 *   size_t tbitmap_find_first(const uint64_t *bits, size_t from, size_t to);
 *          lowest set bit in [from, to), or `to` when there is none;
 *          O((to - from) / 64) word reads
 *   unsigned tbitmap_lowest(uint64_t x);    index of the lowest set bit; x != 0
 *   unsigned tbitmap_highest(uint64_t x);   index of the highest set bit; x != 0
 *
 * The two bit scans are the single portable helper the library uses: gcc
 * and clang builtins, MSVC's _BitScanForward64/_BitScanReverse64, or plain
 * C. Define TBITMAP_NO_BUILTINS before including to force the plain C path
 * (the tests do, to keep it honest).
 */
#ifndef TIMER_BITMAP_H
#define TIMER_BITMAP_H

#include <assert.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "list.h" /* only for the version macros, which every header carries */

/* Pick the bit-scan path: gcc/clang builtins, 64-bit MSVC intrinsics, or
 * plain C for every other compiler (and on request). */
#if !defined(TBITMAP_NO_BUILTINS)
#if defined(__GNUC__) || defined(__clang__)
#define TBITMAP_GNU_
#elif defined(_MSC_VER) && (defined(_M_X64) || defined(_M_ARM64))
#include <intrin.h>
#define TBITMAP_MSVC_
#endif
#endif

#if defined(__GNUC__) || defined(__clang__)
#define TBITMAP_INLINE_ static inline __attribute__((unused))
#else
#define TBITMAP_INLINE_ static inline
#endif

#define TBITMAP_WORDS(nbits) (((nbits) + 63) / 64)

/* C++ with -Wold-style-cast: these functions' casts are C; keep them quiet. */
#if defined(__cplusplus) && (defined(__GNUC__) || defined(__clang__))
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wold-style-cast"
#endif

TBITMAP_INLINE_ unsigned tbitmap_lowest(uint64_t x)
{
    assert(x != 0);
#if !defined(TBITMAP_GNU_) && !defined(TBITMAP_MSVC_)
    {
        /* Isolate the lowest bit; a de Bruijn multiply puts a unique 6-bit
         * pattern in the top bits for each of the 64 possible positions. */
        static const unsigned char pos[64] = {
            0,  1,  2,  53, 3,  7,  54, 27, 4,  38, 41, 8,  34, 55, 48, 28,
            62, 5,  39, 46, 44, 42, 22, 9,  24, 35, 59, 56, 49, 18, 29, 11,
            63, 52, 6,  26, 37, 40, 33, 47, 61, 45, 43, 21, 23, 58, 17, 10,
            51, 25, 36, 32, 60, 20, 57, 16, 50, 31, 19, 15, 30, 14, 13, 12};
        return pos[((x & (~x + 1)) * UINT64_C(0x022fdd63cc95386d)) >> 58];
    }
#elif defined(TBITMAP_MSVC_)
    {
        unsigned long i;
        _BitScanForward64(&i, x);
        return (unsigned)i;
    }
#else
    return (unsigned)__builtin_ctzll(x);
#endif
}

TBITMAP_INLINE_ unsigned tbitmap_highest(uint64_t x)
{
    assert(x != 0);
#if !defined(TBITMAP_GNU_) && !defined(TBITMAP_MSVC_)
    {
        /* Binary search on halves: six steps, no table. */
        unsigned n = 0;
        if (x >> 32) { n += 32; x >>= 32; }
        if (x >> 16) { n += 16; x >>= 16; }
        if (x >> 8)  { n += 8;  x >>= 8; }
        if (x >> 4)  { n += 4;  x >>= 4; }
        if (x >> 2)  { n += 2;  x >>= 2; }
        if (x >> 1)  { n += 1; }
        return n;
    }
#elif defined(TBITMAP_MSVC_)
    {
        unsigned long i;
        _BitScanReverse64(&i, x);
        return (unsigned)i;
    }
#else
    /* Written as clz ^ 63, the form gcc folds back into a single bsr (it
     * computes clz as bsr ^ 63); 63 - clz left two more instructions in the
     * wheel's slot computation on every insert (callgrind: 51 -> 47 per
     * ordered insert). */
    return (unsigned)__builtin_clzll(x) ^ 63u;
#endif
}

TBITMAP_INLINE_ void tbitmap_zero(uint64_t *bits, size_t nbits)
{
    size_t i;
    for (i = 0; i < TBITMAP_WORDS(nbits); i++)
        bits[i] = 0;
}

TBITMAP_INLINE_ void tbitmap_set(uint64_t *bits, size_t i)
{
    bits[i >> 6] |= UINT64_C(1) << (i & 63);
}

TBITMAP_INLINE_ void tbitmap_clear(uint64_t *bits, size_t i)
{
    bits[i >> 6] &= ~(UINT64_C(1) << (i & 63));
}

TBITMAP_INLINE_ bool tbitmap_test(const uint64_t *bits, size_t i)
{
    return (bits[i >> 6] >> (i & 63)) & 1;
}

TBITMAP_INLINE_ size_t tbitmap_find_first(const uint64_t *bits, size_t from, size_t to)
{
    size_t w, last;
    uint64_t word;
    if (from >= to)
        return to;
    w = from >> 6;
    last = (to - 1) >> 6;
    word = bits[w] & (~UINT64_C(0) << (from & 63));    /* drop bits below from */
    while (word == 0) {
        if (++w > last)
            return to;
        word = bits[w];
    }
    from = (w << 6) + tbitmap_lowest(word);
    return from < to ? from : to;
}

#if defined(__cplusplus) && (defined(__GNUC__) || defined(__clang__))
#pragma GCC diagnostic pop
#endif

#endif /* TIMER_BITMAP_H */
