/* floatfmt_exhaustive.c: float_text on every float32 bit pattern in
 * [FIRST, END), against one of two oracles:
 *
 *   floatfmt_exhaustive FIRST END
 *       the definition (%.Pg with the fewest digits P that reads back);
 *   floatfmt_exhaustive --against-double FIRST END
 *       the previous method (tests/unit/floatfmt_double.c), itself compared
 *       with the definition on every bit pattern; about 3 times faster.
 *
 * Too long for the test suite (the definition costs about 0.5 us of CPU
 * per value); run by hand, in ranges over the cores, e.g.
 *
 *   floatfmt_exhaustive 0x0 0x80000000 & floatfmt_exhaustive 0x80000000 0x100000000
 *
 * Prints the mismatches (at most 20) and a count, and how many values
 * float_text_fast left to float_text_printf; exits 1 on any mismatch.
 * Every value the two disagree on is also compared with the definition.
 *
 * To save time, most values are checked against the definition with two
 * printf/strtod pairs instead of up to nine: when float_text gives P
 * significant digits, the text must be "%.Pg" and read back as v, and
 * "%.(P-1)g" must not. That equals the definition (first P that reads
 * back) because reading back is monotone in P when v's two rounding
 * half-gaps are equal: the nearest (P+1)-digit decimal is no farther from
 * v than the nearest P-digit one. The half-gaps differ only at powers of
 * two (mantissa bits zero); those, the whole numbers, infinities and NaNs
 * get the full definition. */
#include <ctype.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "numerics/floatfmt.h"
#include "floatfmt_double.h"

/* Significant digits in a %g text: the digits before any exponent,
 * leading zeros not counted. */
static int significant_digits(const char *s)
{
    int n = 0;
    bool started = false;
    for (; *s != '\0' && *s != 'e'; s++) {
        if (!isdigit((unsigned char)*s))
            continue;
        if (*s != '0')
            started = true;
        if (started)
            n++;
    }
    return n;
}

static bool reads_back(const char *s, float v)
{
    return (float)strtod(s, NULL) == v;
}

static bool agrees(float v, uint32_t bits, const char *fast)
{
    char want[64];
    if ((bits & 0x7fffffu) == 0 || isnan(v) || isinf(v) || v == truncf(v)) {
        float_text_printf(want, sizeof want, v, false);
        return strcmp(fast, want) == 0;
    }
    const int p = significant_digits(fast);
    if (p < 1 || p > 9)
        return false;
    snprintf(want, sizeof want, "%.*g", p, (double)v);
    if (strcmp(fast, want) != 0 || !reads_back(fast, v))
        return false;
    if (p > 1) {
        snprintf(want, sizeof want, "%.*g", p - 1, (double)v);
        if (reads_back(want, v))
            return false;
    }
    return true;
}

int main(int argc, char **argv)
{
    const bool against_double =
        argc == 4 && strcmp(argv[1], "--against-double") == 0;
    if (argc != 3 && !against_double) {
        fprintf(stderr,
                "usage: floatfmt_exhaustive [--against-double] FIRST END\n");
        return 2;
    }
    const uint64_t first = strtoull(argv[argc - 2], NULL, 0);
    const uint64_t end = strtoull(argv[argc - 1], NULL, 0);
    if (end > UINT64_C(0x100000000) || first > end) {
        fprintf(stderr, "floatfmt_exhaustive: bad range\n");
        return 2;
    }
    uint64_t bad = 0, undecided = 0;
    for (uint64_t b = first; b < end; b++) {
        const uint32_t bits = (uint32_t)b;
        float v;
        memcpy(&v, &bits, sizeof v);
        char fast[FLOAT_TEXT_SIZE], old[FLOAT_TEXT_SIZE];
        if (float_text_fast(fast, v, false) == 0)
            undecided++;
        const size_t n = float_text(fast, v, false);
        bool same = n == strlen(fast);
        if (same && against_double)
            same = float_text_double(old, v, false) == n &&
                   memcmp(old, fast, n + 1) == 0;
        if (same && !against_double)
            same = agrees(v, bits, fast);
        if (!same && against_double) /* which of the two is wrong */
            same = n == strlen(fast) && agrees(v, bits, fast);
        if (!same) {
            if (bad < 20) {
                char want[64];
                float_text_printf(want, sizeof want, v, false);
                printf("0x%08" PRIx32
                       ": float_text \"%s\", definition \"%s\"\n",
                       bits, fast, want);
            }
            bad++;
        }
    }
    printf("[0x%" PRIx64 ", 0x%" PRIx64 "): %" PRIu64 " values, %" PRIu64
           " mismatches (against %s), %" PRIu64 " left to float_text_printf\n",
           first, end, end - first, bad,
           against_double ? "the previous method" : "the definition",
           undecided);
    return bad == 0 ? 0 : 1;
}
