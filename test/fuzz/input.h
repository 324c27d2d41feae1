/* input.h - how the fuzz targets read their input (target.c, the
 * differential fuzzer; bound.c, the complexity fuzzer): a byte at a time,
 * zeros once it runs out, so that every input, however short, is a whole
 * program. The target sets fz_in and fz_left, then decodes with these. */
#ifndef TEST_FUZZ_INPUT_H
#define TEST_FUZZ_INPUT_H

#include <stddef.h>
#include <stdint.h>

static const uint8_t *fz_in;
static size_t fz_left;

static unsigned fz_byte(void)
{
    if (fz_left == 0)
        return 0;
    fz_left--;
    return *fz_in++;
}

/* k little-endian bytes */
static uint64_t fz_bytes(int k)
{
    uint64_t v = 0;
    int i;
    for (i = 0; i < k; i++)
        v |= (uint64_t)fz_byte() << (8 * i);
    return v;
}

#endif
