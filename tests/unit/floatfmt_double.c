/* floatfmt_double.c: the previous float_text, kept as an oracle for
 * tests/unit/floatfmt_exhaustive.c. It finds the same text as float_text by
 * another method, arithmetic in double: for P = 1, 2, ... 9 significant
 * digits it scales |v| by a power of ten so that the P-digit decimal
 * nearest v is the integer D nearest y = |v| * 10^s, and D reads back as
 * v when D * 10^-s lies clearly between the midpoints to v's neighbours.
 * Any decision closer than MARGIN to a boundary goes to
 * float_text_printf. It was compared with the definition on every float32
 * bit pattern (0 mismatches) before float_text replaced it. */
#include "floatfmt_double.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

#include "numerics/floatfmt.h"

/* Decisions closer than this to a boundary, in units of the last digit,
 * go to float_text_printf. */
#define MARGIN 1e-5

/* 10^-64 .. 10^64, each the double nearest it (one rounding) */
static const double pow10_table[129] = {
    1e-64, 1e-63, 1e-62, 1e-61, 1e-60, 1e-59, 1e-58, 1e-57, 1e-56, 1e-55, 1e-54,
    1e-53, 1e-52, 1e-51, 1e-50, 1e-49, 1e-48, 1e-47, 1e-46, 1e-45, 1e-44, 1e-43,
    1e-42, 1e-41, 1e-40, 1e-39, 1e-38, 1e-37, 1e-36, 1e-35, 1e-34, 1e-33, 1e-32,
    1e-31, 1e-30, 1e-29, 1e-28, 1e-27, 1e-26, 1e-25, 1e-24, 1e-23, 1e-22, 1e-21,
    1e-20, 1e-19, 1e-18, 1e-17, 1e-16, 1e-15, 1e-14, 1e-13, 1e-12, 1e-11, 1e-10,
    1e-9,  1e-8,  1e-7,  1e-6,  1e-5,  1e-4,  1e-3,  1e-2,  1e-1,  1e0,   1e1,
    1e2,   1e3,   1e4,   1e5,   1e6,   1e7,   1e8,   1e9,   1e10,  1e11,  1e12,
    1e13,  1e14,  1e15,  1e16,  1e17,  1e18,  1e19,  1e20,  1e21,  1e22,  1e23,
    1e24,  1e25,  1e26,  1e27,  1e28,  1e29,  1e30,  1e31,  1e32,  1e33,  1e34,
    1e35,  1e36,  1e37,  1e38,  1e39,  1e40,  1e41,  1e42,  1e43,  1e44,  1e45,
    1e46,  1e47,  1e48,  1e49,  1e50,  1e51,  1e52,  1e53,  1e54,  1e55,  1e56,
    1e57,  1e58,  1e59,  1e60,  1e61,  1e62,  1e63,  1e64,
};

/* a * 10^s for |s| <= 64: two roundings at most */
static double scale10(double a, int s)
{
    return a * pow10_table[s + 64];
}

static size_t copy_fallback(char *buf, float v, bool decimal_comma)
{
    float_text_printf(buf, FLOAT_TEXT_SIZE, v, decimal_comma);
    return strlen(buf);
}

/* Writes the decimal digits of n (n > 0) to the end of out, which has
 * room for 10; returns the count. */
static int digits_of(char *out, uint32_t n)
{
    char tmp[10];
    int k = 0;
    do {
        tmp[k++] = (char)('0' + n % 10);
        n /= 10;
    } while (n > 0);
    for (int i = 0; i < k; i++)
        out[i] = tmp[k - 1 - i];
    return k;
}

/* Whole numbers below 1e9: "%.0f" */
static size_t integer_text(char *buf, float v)
{
    size_t n = 0;
    if (signbit(v))
        buf[n++] = '-';
    n += (size_t)digits_of(buf + n, (uint32_t)fabsf(v));
    buf[n] = '\0';
    return n;
}

/* The %.Pg text of the P-digit decimal D * 10^(x - P + 1), where
 * 10^(P-1) <= D < 10^P and x is its decimal exponent: the exponent form
 * when x < -4 or x >= P, the fraction's trailing zeros removed. */
static size_t g_text(char *buf, bool negative, uint32_t d, int p, int x,
                     bool decimal_comma)
{
    char digits[10];
    digits_of(digits, d);
    int kept = p; /* significant digits left after the trailing zeros */
    while (kept > 1 && digits[kept - 1] == '0')
        kept--;
    const char point = decimal_comma ? ',' : '.';
    size_t n = 0;
    if (negative)
        buf[n++] = '-';
    if (x < -4 || x >= p) {
        buf[n++] = digits[0];
        if (kept > 1) {
            buf[n++] = point;
            memcpy(buf + n, digits + 1, (size_t)(kept - 1));
            n += (size_t)(kept - 1);
        }
        int e = x < 0 ? -x : x;
        buf[n++] = 'e';
        buf[n++] = x < 0 ? '-' : '+';
        buf[n++] = (char)('0' + e / 10);
        buf[n++] = (char)('0' + e % 10);
    } else if (x >= 0) {
        /* x + 1 integer digits, then the rest as the fraction */
        memcpy(buf + n, digits, (size_t)(x + 1));
        n += (size_t)(x + 1);
        if (kept > x + 1) {
            buf[n++] = point;
            memcpy(buf + n, digits + x + 1, (size_t)(kept - x - 1));
            n += (size_t)(kept - x - 1);
        }
    } else {
        /* 0.000ddd: -x - 1 zeros after the point */
        buf[n++] = '0';
        buf[n++] = point;
        for (int i = 0; i < -x - 1; i++)
            buf[n++] = '0';
        memcpy(buf + n, digits, (size_t)kept);
        n += (size_t)kept;
    }
    buf[n] = '\0';
    return n;
}

/* How a scaled value stands against a boundary b: clearly below (-1),
 * clearly above (1), or too close to tell (0). */
static int side(double y, double b)
{
    if (y < b - MARGIN)
        return -1;
    if (y > b + MARGIN)
        return 1;
    return 0;
}

size_t float_text_double(char *buf, float v, bool decimal_comma)
{
    if (isnan(v)) {
        memcpy(buf, "nan", 4);
        return 3;
    }
    if (isinf(v)) {
        if (v < 0) {
            memcpy(buf, "-inf", 5);
            return 4;
        }
        memcpy(buf, "inf", 4);
        return 3;
    }
    const float f = fabsf(v);
    if (f < 1e9f && v == truncf(v))
        return integer_text(buf, v);

    /* f is finite, non-zero, not a whole number below 1e9. Its
     * neighbours' bit patterns are one below and one above; the midpoints
     * to them are exact in double. Above FLT_MAX the gap is as below. */
    uint32_t bits;
    memcpy(&bits, &f, sizeof bits);
    const uint32_t below_bits = bits - 1, above_bits = bits + 1;
    float below, above;
    memcpy(&below, &below_bits, sizeof below);
    memcpy(&above, &above_bits, sizeof above);
    const double a = f;
    const double lo = (a + (double)below) / 2;
    const double hi =
        isinf(above) ? a + (a - (double)below) / 2 : (a + (double)above) / 2;

    /* x0: the decimal exponent of f, 10^x0 <= f < 10^(x0 + 1) */
    int x0 = (int)floor(ilogbf(f) * 0.30102999566398120);
    const double t = scale10(a, -x0);
    if (t >= 10)
        x0++;
    if ((t != 1 && fabs(t - 1) < 1e-12) || (t != 10 && fabs(t - 10) < 1e-11))
        return copy_fallback(buf, v, decimal_comma);

    for (int p = 1; p <= 9; p++) {
        const double scale = pow10_table[p - 1 - x0 + 64];
        const double y = a * scale; /* 10^(p-1) <= y < 10^p */
        const double d = floor(y + 0.5);
        if (fabs(y - floor(y) - 0.5) < MARGIN)
            return copy_fallback(buf, v, decimal_comma);
        /* strtof reads d * 10^-s as f when lo < d * 10^-s < hi */
        const int above_lo = side(d, lo * scale);
        const int below_hi = -side(d, hi * scale);
        if (above_lo == 0 || below_hi == 0)
            return copy_fallback(buf, v, decimal_comma);
        if (above_lo > 0 && below_hi > 0) {
            uint32_t di = (uint32_t)d;
            int x = x0;
            /* 9.99.. rounded up to 10 */
            if (di == (uint32_t)pow10_table[p + 64]) {
                di /= 10;
                x++;
            }
            return g_text(buf, v < 0, di, p, x, decimal_comma);
        }
    }
    /* 9 digits always read back; not reached */
    return copy_fallback(buf, v, decimal_comma);
}
