/* floattext_cases.c N: float32 bit patterns and their float_text, one
 * "bits text" line each: edge cases (zeros, infinities, NaN, subnormals,
 * the largest floats, whole numbers around 1e9, values halfway between
 * two shortest decimals), then N patterns of a fixed xorshift sequence.
 * tests/cli/html_browser_test.py compares the page's mhaFloatText with them. */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "numerics/floatfmt.h"

static void print_bits(uint32_t bits)
{
    float v;
    char text[FLOAT_TEXT_SIZE];
    memcpy(&v, &bits, sizeof v);
    float_text(text, v, false);
    printf("%" PRIu32 " %s\n", bits, text);
}

static void print_float(float v)
{
    uint32_t bits;
    memcpy(&bits, &v, sizeof bits);
    print_bits(bits);
}

int main(int argc, char **argv)
{
    const unsigned long n = argc > 1 ? strtoul(argv[1], NULL, 10) : 0;
    const uint32_t edges[] = {
        0x00000000, 0x80000000, 0x7f800000, 0xff800000, 0x7fc00000,
        0xffc00000, 0x00000001, 0x80000001, 0x007fffff, 0x00800000,
        0x7f7fffff, 0xff7fffff, 0x3f800000, 0x3f800001, 0x3f7fffff,
    };
    for (size_t i = 0; i < sizeof edges / sizeof edges[0]; i++)
        print_bits(edges[i]);
    const float values[] = {
        0.1f,         0.2f,         0.3f,        1e-5f,        1.5e-5f,
        1e-4f,        9.999999e-5f, 123456.7f,   999999936.0f, 1e9f,
        1.0000001e9f, 16777217.0f,  1234567.25f, 1234567.375f, 0.25f,
        2.5f,         -2.5f,        100.0f,      1e10f,        3.4e38f,
    };
    for (size_t i = 0; i < sizeof values / sizeof values[0]; i++)
        print_float(values[i]);
    /* every float between 2^20 and 2^20 + 2^14 steps of 1/8: many are
     * exactly halfway between two 8-digit decimals */
    for (uint32_t b = 0x49800000u; b < 0x49800000u + 4096u; b++)
        print_bits(b);
    uint64_t x = 88172645463325252u;
    for (unsigned long i = 0; i < n; i++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        print_bits((uint32_t)x);
    }
    return 0;
}
