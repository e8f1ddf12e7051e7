/* floatfmt.c: float32 -> shortest round-trip decimal text, as %g writes
 * it (see floatfmt.h).
 *
 * The definition (float_text_printf) tries %.1g, %.2g, ... %.9g and keeps
 * the first text that reads back as v: decimal -> double -> float32, as
 * strtod then a cast (or Python's float() then torch.tensor()) read it.
 *
 * float_text gets the same text with integer arithmetic, in the manner of
 * Ryu and Schubfach (shortest digits from one scaled product):
 *
 * 1. v = m * 2^e exactly (whole numbers below 1e9 are written as
 *    integers). Its decimal exponent x (10^x <= v < 10^(x+1)) comes
 *    from e, and V = v * 10^(8 - x), 10^8 <= V < 10^9, is computed as m
 *    times a 64-bit 10^k (a table) in fixed point with FRAC_BITS
 *    fraction bits: its integer part N holds v's first nine significant
 *    digits. So do the points halfway to v's neighbouring floats, H above
 *    and L below: a decimal reads back as v exactly when it lies between
 *    them (on them too when v's last bit is even: reading rounds ties to
 *    even).
 * 2. A P-digit decimal is a multiple of 10^j in these units, j = 9 - P.
 *    Of the integers in [L, H], count the most trailing zeros one has
 *    (j*, found as Ryu does, by dividing both ends by 10): no decimal
 *    with fewer than 9 - j* digits reads back as v.
 * 3. From P = 9 - j* on, round V to P digits (half to even, as printf
 *    does) and keep the first that lies in [L, H]. When the gaps to both
 *    neighbours are equal, the first P already does: the nearest P-digit
 *    decimal is no farther than any other. At a power of two, where the
 *    gap below is half the gap above, a few more P may be tried.
 *
 * The products are exact when 0 <= k <= 27 (10^k = 5^k * 2^k, 5^k below
 * 2^63) and no bits are shifted out, or when k < 0 and the point is a
 * whole number; otherwise they are within 2 units of 2^-FRAC_BITS. An
 * inexact decision closer than NEAR (2^-20) to a boundary is left to
 * float_text_printf: N next to an integer or a half, and any integer
 * within NEAR of H or L, which also covers the decimals that reading
 * through double would round onto a midpoint (within 2^-23 of it here).
 * That is a few values in a million bit patterns, none of the usual
 * attention values. tests/unit/floatfmt_exhaustive.c compares float_text with
 * the definition on every float32 bit pattern. */
#include "numerics/floatfmt.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void use_decimal_comma(char *buf, bool decimal_comma)
{
    char *dot = strchr(buf, '.');
    if (decimal_comma && dot != NULL)
        *dot = ',';
}

void float_text_printf(char *buf, size_t size, float v, bool decimal_comma)
{
    if (buf == NULL || size == 0)
        return;
    if (isnan(v)) {
        snprintf(buf, size, "nan");
        return;
    }
    if (isinf(v)) {
        snprintf(buf, size, v < 0 ? "-inf" : "inf");
        return;
    }
    /* whole numbers (ids, zeros) without an exponent */
    if (fabsf(v) < 1e9f && v == truncf(v)) {
        snprintf(buf, size, "%.0f", (double)v);
        return;
    }
    /* 9 significant digits always read back as the same float32; most
     * values need fewer. Read back as --embeddings, --weights and
     * float() then torch.tensor() read: decimal -> double -> float32 */
    for (int digits = 1; digits <= 9; digits++) {
        snprintf(buf, size, "%.*g", digits, (double)v);
        if ((float)strtod(buf, NULL) == v)
            break;
    }
    use_decimal_comma(buf, decimal_comma);
}

/* ---- the scaled value ------------------------------------------------ */

/* 10^k = g * 2^t, 2^63 <= g < 2^64, for k = POW10_FIRST .. POW10_LAST:
 * g is 10^k * 2^-t rounded to the nearest integer, exactly 10^k * 2^-t
 * for 0 <= k <= 27. Made with exact fractions (Python):
 *     p = Fraction(10) ** k; t = floor(log2(p)) - 63; g = round(p / 2**t) */
#define POW10_FIRST (-30)
#define POW10_LAST 53
#define POW10_EXACT_LAST 27
static const struct {
    uint64_t g;
    int t;
} pow10_table[POW10_LAST - POW10_FIRST + 1] = {
    {UINT64_C(0xa2425ff75e14fc32), -163}, {UINT64_C(0xcad2f7f5359a3b3e), -160},
    {UINT64_C(0xfd87b5f28300ca0e), -157}, {UINT64_C(0x9e74d1b791e07e48), -153},
    {UINT64_C(0xc612062576589ddb), -150}, {UINT64_C(0xf79687aed3eec551), -147},
    {UINT64_C(0x9abe14cd44753b53), -143}, {UINT64_C(0xc16d9a0095928a27), -140},
    {UINT64_C(0xf1c90080baf72cb1), -137}, {UINT64_C(0x971da05074da7bef), -133},
    {UINT64_C(0xbce5086492111aeb), -130}, {UINT64_C(0xec1e4a7db69561a5), -127},
    {UINT64_C(0x9392ee8e921d5d07), -123}, {UINT64_C(0xb877aa3236a4b449), -120},
    {UINT64_C(0xe69594bec44de15b), -117}, {UINT64_C(0x901d7cf73ab0acd9), -113},
    {UINT64_C(0xb424dc35095cd80f), -110}, {UINT64_C(0xe12e13424bb40e13), -107},
    {UINT64_C(0x8cbccc096f5088cc), -103}, {UINT64_C(0xafebff0bcb24aaff), -100},
    {UINT64_C(0xdbe6fecebdedd5bf), -97},  {UINT64_C(0x89705f4136b4a597), -93},
    {UINT64_C(0xabcc77118461cefd), -90},  {UINT64_C(0xd6bf94d5e57a42bc), -87},
    {UINT64_C(0x8637bd05af6c69b6), -83},  {UINT64_C(0xa7c5ac471b478423), -80},
    {UINT64_C(0xd1b71758e219652c), -77},  {UINT64_C(0x83126e978d4fdf3b), -73},
    {UINT64_C(0xa3d70a3d70a3d70a), -70},  {UINT64_C(0xcccccccccccccccd), -67},
    {UINT64_C(0x8000000000000000), -63},  {UINT64_C(0xa000000000000000), -60},
    {UINT64_C(0xc800000000000000), -57},  {UINT64_C(0xfa00000000000000), -54},
    {UINT64_C(0x9c40000000000000), -50},  {UINT64_C(0xc350000000000000), -47},
    {UINT64_C(0xf424000000000000), -44},  {UINT64_C(0x9896800000000000), -40},
    {UINT64_C(0xbebc200000000000), -37},  {UINT64_C(0xee6b280000000000), -34},
    {UINT64_C(0x9502f90000000000), -30},  {UINT64_C(0xba43b74000000000), -27},
    {UINT64_C(0xe8d4a51000000000), -24},  {UINT64_C(0x9184e72a00000000), -20},
    {UINT64_C(0xb5e620f480000000), -17},  {UINT64_C(0xe35fa931a0000000), -14},
    {UINT64_C(0x8e1bc9bf04000000), -10},  {UINT64_C(0xb1a2bc2ec5000000), -7},
    {UINT64_C(0xde0b6b3a76400000), -4},   {UINT64_C(0x8ac7230489e80000), 0},
    {UINT64_C(0xad78ebc5ac620000), 3},    {UINT64_C(0xd8d726b7177a8000), 6},
    {UINT64_C(0x878678326eac9000), 10},   {UINT64_C(0xa968163f0a57b400), 13},
    {UINT64_C(0xd3c21bcecceda100), 16},   {UINT64_C(0x84595161401484a0), 20},
    {UINT64_C(0xa56fa5b99019a5c8), 23},   {UINT64_C(0xcecb8f27f4200f3a), 26},
    {UINT64_C(0x813f3978f8940984), 30},   {UINT64_C(0xa18f07d736b90be5), 33},
    {UINT64_C(0xc9f2c9cd04674edf), 36},   {UINT64_C(0xfc6f7c4045812296), 39},
    {UINT64_C(0x9dc5ada82b70b59e), 43},   {UINT64_C(0xc5371912364ce305), 46},
    {UINT64_C(0xf684df56c3e01bc7), 49},   {UINT64_C(0x9a130b963a6c115c), 53},
    {UINT64_C(0xc097ce7bc90715b3), 56},   {UINT64_C(0xf0bdc21abb48db20), 59},
    {UINT64_C(0x96769950b50d88f4), 63},   {UINT64_C(0xbc143fa4e250eb31), 66},
    {UINT64_C(0xeb194f8e1ae525fd), 69},   {UINT64_C(0x92efd1b8d0cf37be), 73},
    {UINT64_C(0xb7abc627050305ae), 76},   {UINT64_C(0xe596b7b0c643c719), 79},
    {UINT64_C(0x8f7e32ce7bea5c70), 83},   {UINT64_C(0xb35dbf821ae4f38c), 86},
    {UINT64_C(0xe0352f62a19e306f), 89},   {UINT64_C(0x8c213d9da502de45), 93},
    {UINT64_C(0xaf298d050e4395d7), 96},   {UINT64_C(0xdaf3f04651d47b4c), 99},
    {UINT64_C(0x88d8762bf324cd10), 103},  {UINT64_C(0xab0e93b6efee0054), 106},
    {UINT64_C(0xd5d238a4abe98068), 109},  {UINT64_C(0x85a36366eb71f041), 113},
};

/* Fixed point: V and the half-gaps carry this many fraction bits. V is
 * below 10^10 < 2^34 even before x is corrected, so all fits in 64 bits. */
#define FRAC_BITS 28
#define ONE ((uint64_t)1 << FRAC_BITS)
/* 2^-20: decisions closer than this are left to float_text_printf */
#define NEAR ((uint64_t)1 << (FRAC_BITS - 20))

/* 10^0 .. 10^9 */
static const uint32_t pow10_u32[10] = {
    1, 10, 100, 1000, 10000, 100000, 1000000, 10000000, 100000000, 1000000000,
};

/* 5^0 .. 5^11 (5^11 < 2^26) */
static const uint32_t pow5_u32[12] = {
    1, 5, 25, 125, 625, 3125, 15625, 78125, 390625, 1953125, 9765625, 48828125,
};

/* floor(c * g / 2^s), for c < 2^26 and a result below 2^64; *exact tells
 * whether nothing was cut off */
static uint64_t mul_shift(uint32_t c, uint64_t g, int s, bool *exact)
{
    const uint64_t low = (uint64_t)c * (g & 0xffffffffu);
    const uint64_t mid = (uint64_t)c * (g >> 32) + (low >> 32);
    /* c * g = mid * 2^32 + low mod 2^32 */
    if (s >= 32) {
        *exact = (low & 0xffffffffu) == 0 &&
                 (mid & (((uint64_t)1 << (s - 32)) - 1)) == 0;
        return mid >> (s - 32);
    }
    *exact = (low & (((uint64_t)1 << s) - 1)) == 0;
    return (mid << (32 - s)) | ((low & 0xffffffffu) >> s);
}

/* A point c * 2^(e-2) * 10^k (v, or a point halfway to a neighbour) in
 * fixed point, and whether that is its exact value. */
typedef struct {
    uint64_t at;
    bool exact;
} fixed_point;

static fixed_point scaled(uint32_t c, int e, int k)
{
    const uint64_t g = pow10_table[k - POW10_FIRST].g;
    /* 2^(e-2) * 10^k * 2^FRAC_BITS = g * 2^-s, with 0 <= s < 64 */
    const int s = 2 - e - pow10_table[k - POW10_FIRST].t - FRAC_BITS;
    fixed_point p;
    bool whole;
    p.at = mul_shift(c, g, s, &whole);
    p.exact = whole && k >= 0 && k <= POW10_EXACT_LAST;
    /* For k < 0 the point is c * 2^(e-2+k) / 5^-k with e-2+k > 0: a whole
     * number when 5^-k divides c, else at least 5^k from one. */
    if (k < 0 && -k < 12 && c % pow5_u32[-k] == 0) {
        p.at = (uint64_t)(c / pow5_u32[-k]) << (e - 2 + k + FRAC_BITS);
        p.exact = true;
    }
    return p;
}

/* floor(b * log10(2)) for |b| < 1650 (78913 / 2^18 is close enough) */
static int floor_log10_pow2(int b)
{
    if (b >= 0)
        return (int)(((uint32_t)b * 78913u) >> 18);
    return -(int)(((uint32_t)-b * 78913u + 262143u) >> 18);
}

static bool near(uint64_t a, uint64_t b)
{
    return (a > b ? a - b : b - a) < NEAR;
}

/* The integers that read back as v run up to *last (from the upper
 * boundary hi) or from *first (from lo); false when an integer lies too
 * close to the boundary to decide. */
static bool last_inside(uint64_t hi, bool exact, bool inclusive, uint64_t *last)
{
    const uint64_t n = hi >> FRAC_BITS, f = hi & (ONE - 1);
    if (exact && f == 0)
        *last = inclusive ? n : n - 1;
    else if (near(f, 0) || near(f, ONE))
        return false;
    else
        *last = n;
    return true;
}

static bool first_inside(uint64_t lo, bool exact, bool inclusive,
                         uint64_t *first)
{
    const uint64_t n = lo >> FRAC_BITS, f = lo & (ONE - 1);
    if (exact && f == 0)
        *first = inclusive ? n : n + 1;
    else if (near(f, 0) || near(f, ONE))
        return false;
    else
        *first = n + 1;
    return true;
}

/* ---- the text -------------------------------------------------------- */

/* "00", "01", ... "99" */
static const char two_digits[] = "0001020304050607080910111213141516171819"
                                 "2021222324252627282930313233343536373839"
                                 "4041424344454647484950515253545556575859"
                                 "6061626364656667686970717273747576777879"
                                 "8081828384858687888990919293949596979899";

/* How many decimal digits n has (n < 10^10). */
static int digit_count(uint32_t n)
{
    int k = 1;
    while (k < 10 && n >= pow10_u32[k])
        k++;
    return k;
}

/* Writes the last `count` decimal digits of n to out. */
static void put_digits(char *out, uint32_t n, int count)
{
    while (count >= 2) {
        count -= 2;
        memcpy(out + count, two_digits + 2 * (n % 100), 2);
        n /= 100;
    }
    if (count == 1)
        out[0] = (char)('0' + n % 10);
}

/* Whole numbers below 1e9: "%.0f" */
static size_t integer_text(char *buf, bool negative, uint32_t whole)
{
    size_t n = 0;
    if (negative)
        buf[n++] = '-';
    const int count = digit_count(whole);
    put_digits(buf + n, whole, count);
    n += (size_t)count;
    buf[n] = '\0';
    return n;
}

/* The %.Pg text of the P-digit decimal D * 10^(x - P + 1), where
 * 10^(P-1) <= D < 10^P and x is its decimal exponent: the exponent form
 * when x < -4 or x >= P, the fraction's trailing zeros removed. */
static size_t g_text(char *buf, bool negative, uint32_t d, int p, int x,
                     bool decimal_comma)
{
    int kept = p; /* significant digits left after the trailing zeros */
    while (kept > 1 && d % 10 == 0) {
        d /= 10;
        kept--;
    }
    char digits[10];
    put_digits(digits, d, kept);
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
        buf[n++] = 'e';
        buf[n++] = x < 0 ? '-' : '+';
        memcpy(buf + n, two_digits + 2 * (x < 0 ? -x : x), 2);
        n += 2;
    } else if (x >= 0) {
        /* x + 1 integer digits (zeros after the kept ones), then the
         * rest as the fraction */
        if (kept >= x + 1) {
            memcpy(buf + n, digits, (size_t)(x + 1));
            n += (size_t)(x + 1);
        } else {
            memcpy(buf + n, digits, (size_t)kept);
            n += (size_t)kept;
            for (int i = kept; i < x + 1; i++)
                buf[n++] = '0';
        }
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

size_t float_text_fast(char *buf, float v, bool decimal_comma)
{
    uint32_t bits;
    memcpy(&bits, &v, sizeof bits);
    const bool negative = bits >> 31;
    const uint32_t field = (bits >> 23) & 0xffu, fraction = bits & 0x7fffffu;
    if (field == 0xffu) {
        const char *text = fraction != 0 ? "nan" : negative ? "-inf" : "inf";
        memcpy(buf, text, strlen(text) + 1);
        return strlen(text);
    }
    /* v = m * 2^e, 2^b <= |v| < 2^(b+1) */
    uint32_t m = fraction;
    int e = -149, b = -150;
    if (field > 0) {
        m |= 0x800000u;
        e = (int)field - 150;
        b = (int)field - 127;
    } else {
        for (uint32_t rest = m; rest > 0; rest >>= 1)
            b++;
    }
    /* whole numbers below 1e9 (zeros too) as integers */
    if (m == 0 ||
        (b < 30 && e >= -23 && (e >= 0 || (m & ((1u << -e) - 1)) == 0))) {
        const uint32_t whole = m == 0 ? 0 : e >= 0 ? m << e : m >> -e;
        if (whole < pow10_u32[9])
            return integer_text(buf, negative, whole);
    }
    const bool inclusive = (m & 1) == 0; /* ties read back as v */

    /* V = v * 10^(8 - x): x from b is the decimal exponent or one less */
    int x = floor_log10_pow2(b);
    fixed_point mid = scaled(4 * m, e, 8 - x);
    if (mid.at >= (uint64_t)pow10_u32[9] << FRAC_BITS) {
        x++;
        mid = scaled(4 * m, e, 8 - x);
    }
    const uint64_t frac = mid.at & (ONE - 1);
    const uint32_t n = (uint32_t)(mid.at >> FRAC_BITS);
    if (n < pow10_u32[8] || n >= pow10_u32[9])
        return 0;
    if (!mid.exact && (near(frac, 0) || near(frac, ONE / 2) || near(frac, ONE)))
        return 0;

    /* the points halfway to the neighbours; the gap below is half the
     * gap above at a power of two (not at the smallest normal) */
    const bool narrow_below = fraction == 0 && field > 1;
    const fixed_point hi = scaled(4 * m + 2, e, 8 - x);
    const fixed_point lo =
        scaled(narrow_below ? 4 * m - 1 : 4 * m - 2, e, 8 - x);
    /* the integers in [first, last] read back as v */
    uint64_t first, last;
    if (!first_inside(lo.at, lo.exact, inclusive, &first) ||
        !last_inside(hi.at, hi.exact, inclusive, &last))
        return 0;

    /* j: the most trailing zeros of an integer in [first, last]; q: n
     * without its last j digits, the last of them `removed`, `zeros` when
     * those after it are all 0 */
    int j = 0;
    uint32_t q = n, removed = 0;
    bool zeros = true;
    for (uint32_t top = (uint32_t)last, bottom = (uint32_t)first - 1;
         j < 8 && top / 10 > bottom / 10; j++) {
        top /= 10;
        bottom /= 10;
        zeros = zeros && removed == 0;
        removed = q % 10;
        q /= 10;
    }
    /* V rounded to 9 - j digits, half to even; with unequal gaps it may
     * miss [first, last] where a longer one does not */
    for (const int shortest = j; j >= 0; j--) {
        const uint32_t unit = pow10_u32[j];
        if (j < shortest) {
            q = n / unit;
            removed = j > 0 ? n / (unit / 10) % 10 : 0;
            zeros = j > 0 && n % (unit / 10) == 0;
        }
        bool up;
        if (j == 0)
            up = frac > ONE / 2 || (frac == ONE / 2 && (q & 1));
        else
            up = removed > 5 ||
                 (removed == 5 && (!zeros || frac > 0 || (q & 1)));
        const uint32_t d = q + up;
        const uint64_t decimal = (uint64_t)d * unit;
        if (decimal >= first && decimal <= last)
            return d == pow10_u32[9 - j] /* 9.99.. rounded up to 10 */
                       ? g_text(buf, negative, d / 10, 9 - j, x + 1,
                                decimal_comma)
                       : g_text(buf, negative, d, 9 - j, x, decimal_comma);
    }
    return 0;
}

size_t float_text(char *buf, float v, bool decimal_comma)
{
    const size_t n = float_text_fast(buf, v, decimal_comma);
    if (n > 0)
        return n;
    float_text_printf(buf, FLOAT_TEXT_SIZE, v, decimal_comma);
    return strlen(buf);
}

/* ---- "%.*f" of a float, in integer arithmetic ------------------------- */

/* v = m * 2^e exactly, with m below 2^24 and digits at most 9: v * 10^digits
 * is m * 10^digits (below 2^54) shifted by e. Shifted left by at most 9 it
 * stays below 2^63, so the whole product is exact; shifted right, the bits
 * shifted out decide the rounding, half to even as printf rounds. */
size_t float_fixed_text(char *buf, float v, int digits)
{
    static const uint64_t pow10[FLOAT_FIXED_MAX_DIGITS + 1] = {
        1u,      10u,      100u,      1000u,      10000u,
        100000u, 1000000u, 10000000u, 100000000u, 1000000000u};
    if (digits < 0 || digits > FLOAT_FIXED_MAX_DIGITS || !isfinite(v))
        return 0;
    uint32_t bits;
    memcpy(&bits, &v, sizeof bits);
    const bool negative = (bits >> 31) != 0;
    const int field = (int)((bits >> 23) & 0xffu);
    const uint64_t m =
        field == 0 ? (bits & 0x7fffffu) : ((bits & 0x7fffffu) | 0x800000u);
    const int e = field == 0 ? -149 : field - 150;
    if (e > 9)
        return 0; /* |v| >= 2^33 */
    const uint64_t product = m * pow10[digits];
    uint64_t q;
    if (e >= 0) {
        q = product << e;
    } else if (-e >= 64) {
        q = 0; /* below 2^54 / 2^64: under half a unit */
    } else {
        const int s = -e;
        q = product >> s;
        const uint64_t rest = product & ((UINT64_C(1) << s) - 1);
        const uint64_t half = UINT64_C(1) << (s - 1);
        if (rest > half || (rest == half && (q & 1u) != 0))
            q++;
    }
    const uint64_t whole = q / pow10[digits];
    uint64_t frac = q % pow10[digits];

    /* at most 1 + 11 + 1 + 9 bytes and the '\0' */
    char *p = buf;
    if (negative)
        *p++ = '-';
    char tmp[24];
    size_t n = 0;
    uint64_t w = whole;
    do {
        tmp[n++] = (char)('0' + w % 10);
        w /= 10;
    } while (w != 0);
    while (n > 0)
        *p++ = tmp[--n];
    if (digits > 0) {
        *p++ = '.';
        for (int i = digits - 1; i >= 0; i--) {
            p[i] = (char)('0' + frac % 10);
            frac /= 10;
        }
        p += digits;
    }
    *p = '\0';
    return (size_t)(p - buf);
}
