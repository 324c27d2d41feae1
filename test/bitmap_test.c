/* bitmap_test.c - the bit scans of bitmap.h against naive loops.
 *
 * Built twice by run.sh: as is (compiler builtins) and with
 * -DTBITMAP_NO_BUILTINS (the plain C fallback: a de Bruijn multiply and a
 * binary search), and both again with -m32. Checks tbitmap_lowest and
 * tbitmap_highest on every single-bit word, every two-bit word, every
 * run of ones from either end, and random words of every density; and
 * tbitmap_find_first over a wheel-sized bitmap (705 bits) for every
 * single set bit with every range around it, and random bitmaps with every
 * (from, to) range, against a loop over tbitmap_test.
 */
#include "bitmap.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#if defined(TBITMAP_NO_BUILTINS)
#define BT_PATH "fallback (TBITMAP_NO_BUILTINS)"
#else
#define BT_PATH "builtins"
#endif

static long bt_checks, bt_failures;

static void bt_fail(const char *what, uint64_t x, unsigned got, unsigned want)
{
    if (bt_failures++ < 20)
        printf("FAIL %s: %s(0x%016" PRIx64 ") = %u, want %u\n", BT_PATH, what, x, got, want);
}

static unsigned bt_naive_lowest(uint64_t x)
{
    unsigned i = 0;
    while (!((x >> i) & 1))
        i++;
    return i;
}

static unsigned bt_naive_highest(uint64_t x)
{
    unsigned i = 63;
    while (!((x >> i) & 1))
        i--;
    return i;
}

static void bt_word(uint64_t x)
{
    unsigned lo, hi;
    if (x == 0)
        return;
    lo = tbitmap_lowest(x);
    hi = tbitmap_highest(x);
    bt_checks += 2;
    if (lo != bt_naive_lowest(x))
        bt_fail("tbitmap_lowest", x, lo, bt_naive_lowest(x));
    if (hi != bt_naive_highest(x))
        bt_fail("tbitmap_highest", x, hi, bt_naive_highest(x));
}

static uint64_t bt_rng = 0x243F6A8885A308D3u;

static uint64_t bt_rand(void)
{
    uint64_t z = (bt_rng += UINT64_C(0x9E3779B97F4A7C15));
    z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
    return z ^ (z >> 31);
}

static void bt_words(void)
{
    unsigned i, j;
    long r;
    for (i = 0; i < 64; i++) {
        bt_word(UINT64_C(1) << i);
        bt_word(~UINT64_C(0) << i);   /* ones from bit i up */
        bt_word(~UINT64_C(0) >> i);   /* ones from bit 63 - i down */
        for (j = i + 1; j < 64; j++)
            bt_word((UINT64_C(1) << i) | (UINT64_C(1) << j));
    }
    for (r = 0; r < 2000000; r++) {
        uint64_t x = bt_rand();
        switch (r % 4) {
        case 0:
            break;                      /* half the bits */
        case 1:
            x &= bt_rand() & bt_rand(); /* sparse */
            break;
        case 2:
            x >>= bt_rand() % 64;       /* a random highest bit */
            break;
        default:
            x <<= bt_rand() % 64;       /* a random lowest bit */
            break;
        }
        bt_word(x);
    }
}

#define BT_BITS 705 /* the wheel's 11 x 64 slots and its overdue list */

static size_t bt_naive_find(const uint64_t *bits, size_t from, size_t to)
{
    size_t i;
    for (i = from; i < to; i++)
        if (tbitmap_test(bits, i))
            return i;
    return to;
}

static void bt_find(const uint64_t *bits, size_t from, size_t to)
{
    size_t got = tbitmap_find_first(bits, from, to), want = from >= to ? to : bt_naive_find(bits, from, to);
    bt_checks++;
    if (got != want && bt_failures++ < 20)
        printf("FAIL %s: tbitmap_find_first(from %zu, to %zu) = %zu, want %zu\n", BT_PATH, from, to, got, want);
}

static void bt_find_first(void)
{
    uint64_t bits[TBITMAP_WORDS(BT_BITS)];
    size_t b, from, to, round;

    /* one bit set: every range that starts or ends near it, or spans it */
    for (b = 0; b < BT_BITS; b++) {
        tbitmap_zero(bits, BT_BITS);
        tbitmap_set(bits, b);
        if (!tbitmap_test(bits, b) && bt_failures++ < 20)
            printf("FAIL %s: tbitmap_set(%zu) then tbitmap_test is false\n", BT_PATH, b);
        for (from = b >= 65 ? b - 65 : 0; from <= b + 1 && from <= BT_BITS; from++)
            for (to = from; to <= BT_BITS; to++)
                bt_find(bits, from, to);
        tbitmap_clear(bits, b);
        bt_find(bits, 0, BT_BITS);
    }
    /* random bitmaps of several densities: every (from, to) */
    for (round = 0; round < 12; round++) {
        size_t w;
        for (w = 0; w < TBITMAP_WORDS(BT_BITS); w++) {
            uint64_t x = bt_rand();
            if (round % 3 == 1)
                x &= bt_rand() & bt_rand() & bt_rand();
            else if (round % 3 == 2)
                x = (bt_rand() % 16 == 0) ? UINT64_C(1) << (bt_rand() % 64) : 0;
            bits[w] = x;
        }
        for (from = 0; from <= BT_BITS; from++)
            for (to = from; to <= BT_BITS; to += 1 + (to % 7))
                bt_find(bits, from, to);
    }
}

int main(void)
{
    bt_words();
    bt_find_first();
    printf("bitmap %s, %u-bit pointers: %ld checks, %ld failed\n", BT_PATH, (unsigned)(8 * sizeof(void *)), bt_checks,
           bt_failures);
    return bt_failures != 0;
}
