/* test_floatfmt.c: float_text (the fast shortest round-trip formatting
 * behind CSV) against its definition, on edge cases and
 * a large fixed-seed random sample of float32 bit patterns; and the
 * textbuf pieces CSV rows are assembled from.
 *
 * Every one of the 2^32 bit patterns is compared by
 * tests/unit/floatfmt_exhaustive.c, run by hand.
 *
 * Usage: test_floatfmt [REFERENCE_DIR]   (the argument is not used) */
#include <float.h>
#include <inttypes.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/csv_guard.h"
#include "numerics/floatfmt.h"
#include "tap.h"
#include "render/textbuf.h"

static float from_bits(uint32_t bits)
{
    float v;
    memcpy(&v, &bits, sizeof v);
    return v;
}

static uint32_t to_bits(float v)
{
    uint32_t bits;
    memcpy(&bits, &v, sizeof bits);
    return bits;
}

/* The definition, kept here as the oracle: whole numbers below 1e9 as
 * "%.0f", else "%.*g" with 1, 2, ... 9 significant digits until the text
 * reads back (strtod, then a cast to float) as v. */
static void definition(char *buf, size_t size, float v, bool comma)
{
    if (isnan(v)) {
        snprintf(buf, size, "nan");
    } else if (isinf(v)) {
        snprintf(buf, size, v < 0 ? "-inf" : "inf");
    } else if (fabsf(v) < 1e9f && v == truncf(v)) {
        snprintf(buf, size, "%.0f", (double)v);
    } else {
        for (int digits = 1; digits <= 9; digits++) {
            snprintf(buf, size, "%.*g", digits, (double)v);
            if ((float)strtod(buf, NULL) == v)
                break;
        }
    }
    char *dot = strchr(buf, '.');
    if (comma && dot != NULL)
        *dot = ',';
}

static long mismatches, undecided;

/* Compares float_text_fast, or float_text where it leaves v undecided,
 * with the definition on v, with the point and with the comma. */
static void check(float v)
{
    for (int comma = 0; comma <= 1; comma++) {
        char fast[FLOAT_TEXT_SIZE], want[64];
        size_t n = float_text_fast(fast, v, comma);
        if (n == 0) {
            undecided++;
            n = float_text(fast, v, comma);
        }
        definition(want, sizeof want, v, comma);
        if (strcmp(fast, want) != 0 || n != strlen(fast)) {
            if (mismatches < 10)
                diag("0x%08" PRIx32 ": float_text \"%s\", definition \"%s\"",
                     to_bits(v), fast, want);
            mismatches++;
        }
    }
}

/* v and its neighbours up to k steps either side (bit patterns) */
static void check_around(float v, int k)
{
    const uint32_t b = to_bits(v);
    for (int i = -k; i <= k; i++)
        check(from_bits(b + (uint32_t)i));
}

/* xorshift32, fixed seed: the same sample on every run */
static uint32_t next_random(uint32_t *state)
{
    uint32_t x = *state;
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    return *state = x;
}

static void test_known_texts(void)
{
    static const struct {
        float v;
        bool comma;
        const char text[16]; /* an array: never a null pointer */
    } cases[] = {
        {0.3367f, false, "0.3367"},
        {0.3367f, true, "0,3367"},
        {12.0f, false, "12"},
        {-0.0f, false, "-0"},
        {0.0f, false, "0"},
        {1234567.0f, false, "1234567"},
        {1.5e-5f, false, "1.5e-05"},
        {1e9f, false, "1e+09"},
        {-2.5e10f, true, "-2,5e+10"},
        {0.0001f, false, "0.0001"},
        {FLT_MAX, false, "3.4028235e+38"},
        {FLT_TRUE_MIN, false, "1e-45"},
        {INFINITY, false, "inf"},
        {-INFINITY, false, "-inf"},
        {NAN, false, "nan"},
        {-NAN, false, "nan"},
        {0.1f, false, "0.1"},
        {1.0f / 3.0f, false, "0.33333334"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char buf[FLOAT_TEXT_SIZE];
        float_text(buf, cases[i].v, cases[i].comma);
        ok(strcmp(buf, cases[i].text) == 0,
           "float_text gives \"%s\" (got \"%s\")", cases[i].text, buf);
    }
}

static void test_edges(void)
{
    mismatches = 0;
    long n0 = 0;
    /* every power of two, normal and subnormal, both signs, and the
     * values beside them (where the rounding gaps are unequal) */
    for (int e = -149; e <= 127; e++) {
        check_around(ldexpf(1.0f, e), 3);
        check_around(-ldexpf(1.0f, e), 3);
        n0 += 28;
    }
    /* beside every power of ten a float32 can come near */
    for (int e = -45; e <= 38; e++) {
        check_around((float)pow(10.0, e), 3);
        n0 += 14;
    }
    /* the first and last subnormals, the extremes, whole-number limits */
    for (uint32_t b = 1; b <= 20000; b++)
        check(from_bits(b));
    for (uint32_t b = 0x007fffffu; b > 0x007fffffu - 20000; b--)
        check(from_bits(b));
    n0 += 80000;
    const float specials[] = {
        0.0f,     -0.0f,   INFINITY, -INFINITY,    NAN,  -NAN,        FLT_MAX,
        -FLT_MAX, FLT_MIN, -FLT_MIN, 999999999.0f, 1e9f, 16777216.0f, 0.5f};
    for (size_t i = 0; i < sizeof specials / sizeof specials[0]; i++)
        check_around(specials[i], 2);
    n0 += 14 * 10;
    ok(mismatches == 0, "edge cases: %ld of about %ld texts differ", mismatches,
       n0);
}

static void test_random(void)
{
    mismatches = undecided = 0;
    uint32_t state = 2463534242u;
    const long n = 400000;
    for (long i = 0; i < n; i++)
        check(from_bits(next_random(&state)));
    ok(mismatches == 0, "random bit patterns: %ld of %ld differ", mismatches,
       n);
    /* texts, so two per value; a few in a million are expected */
    ok(undecided <= 2 * n / 10000,
       "random bit patterns: %ld of %ld texts left to float_text_printf",
       undecided, 2 * n);
    /* values in the ranges attention tables hold */
    mismatches = undecided = 0;
    for (long i = 0; i < n; i++) {
        const float u = (float)(next_random(&state) >> 8) / 16777216.0f;
        check(u * 4.0f - 2.0f);
    }
    ok(mismatches == 0, "random values in [-2, 2): %ld of %ld differ",
       mismatches, n);
    ok(undecided <= 10,
       "random values in [-2, 2): %ld of %ld texts left to float_text_printf",
       undecided, 2 * n);
}

/* float_fixed_text against printf's "%.*f" of the same value, or 0 where
 * it leaves the value to printf; returns the number of differences. */
static long check_fixed(float v, int digits)
{
    char fast[FLOAT_TEXT_SIZE], slow[64];
    snprintf(slow, sizeof slow, "%.*f", digits, (double)v);
    const size_t n = float_fixed_text(fast, v, digits);
    const bool in_range = isfinite(v) && fabsf(v) < 8589934592.0f &&
                          digits >= 0 && digits <= FLOAT_FIXED_MAX_DIGITS;
    if (n == 0)
        return in_range ? 1 : 0;
    if (!in_range || n != strlen(fast) || strcmp(fast, slow) != 0) {
        if (mismatches++ < 5)
            printf("# %.9g with %d decimals: \"%s\", printf \"%s\"\n",
                   (double)v, digits, fast, slow);
        return 1;
    }
    return 0;
}

static void test_fixed(void)
{
    long bad = 0, n = 0;
    mismatches = 0;
    /* ties at every digit count: k / 2^j for small j, and their
     * neighbours; the largest and smallest values it takes */
    const float specials[] = {
        0.0f,          -0.0f,    0.5f,     1.5f,          2.5f,
        -2.5f,         0.125f,   0.375f,   0.00005f,      -0.00005f,
        1e-45f,        -1e-45f,  FLT_MIN,  8589934591.0f, 8589934592.0f,
        4294967296.0f, 9.99995f, 0.99995f, INFINITY,      NAN};
    for (size_t i = 0; i < sizeof specials / sizeof specials[0]; i++)
        for (int d = -1; d <= FLOAT_FIXED_MAX_DIGITS + 1; d++) {
            bad += check_fixed(specials[i], d);
            bad += check_fixed(nextafterf(specials[i], 0.0f), d);
            n += 2;
        }
    for (uint32_t k = 0; k < 4096; k++)
        for (int j = 1; j <= 14; j++)
            for (int d = 0; d <= 4; d++) {
                bad += check_fixed(ldexpf((float)k, -j), d);
                n++;
            }
    uint32_t state = 88172645u;
    for (long i = 0; i < 300000; i++) {
        const float v = from_bits(next_random(&state));
        bad += check_fixed(v, (int)(i % (FLOAT_FIXED_MAX_DIGITS + 1)));
        const float u = (float)(next_random(&state) >> 8) / 16777216.0f;
        bad += check_fixed(u * 8.0f - 4.0f, (int)(i % 7));
        n += 2;
    }
    ok(bad == 0, "float_fixed_text equals printf's %%.*f: %ld of %ld differ",
       bad, n);
}

static void test_textbuf(void)
{
    textbuf b = {0};
    int rc = textbuf_add_size(&b, 0);
    rc |= textbuf_add_char(&b, ',');
    rc |= textbuf_add_size(&b, 4294967295u);
    rc |= textbuf_add_char(&b, ',');
    rc |= textbuf_add_csv_field(&b, "plain", ',');
    rc |= textbuf_add_char(&b, ',');
    rc |= textbuf_add_csv_field(&b, "a,b", ',');
    rc |= textbuf_add_char(&b, ';');
    rc |= textbuf_add_csv_field(&b, "say \"hi\"", ';');
    rc |= textbuf_add_char(&b, ';');
    rc |= textbuf_add_csv_field(&b, "a,b", ';');
    rc |= textbuf_add_char(&b, ';');
    rc |= textbuf_add_float(&b, 0.25f, true);
    char *room = textbuf_reserve(&b, 1000);
    rc |= room == b.s + b.len && b.cap - b.len >= 1000 ? 0 : -1;
    if (room != NULL) {
        memcpy(room, ";x", 2);
        b.len += 2;
    }
    const char want[] = "0,4294967295,plain,\"a,b\";"
                        "\"say \"\"hi\"\"\";a,b;0,25;x";
    ok(rc == 0 && b.len == strlen(want) && memcmp(b.s, want, b.len) == 0,
       "textbuf assembles numbers, quoted and plain fields and reserved room: "
       "%.*s",
       (int)b.len, b.s);

    FILE *f = tmpfile();
    if (f == NULL) {
        printf("Bail out! no temporary file\n");
        exit(1);
    }
    ok(textbuf_flush(&b, f) == 0 && b.len == 0 &&
           ftell(f) == (long)strlen(want),
       "textbuf_flush writes everything and empties the buffer");
    fclose(f);
    textbuf_free(&b);
    ok(b.s == NULL && b.len == 0 && b.cap == 0, "textbuf_free leaves it empty");
}

/* Text cells a spreadsheet would run as formulas (base/csv_guard.h):
 * each as written, and read back as it was (a quoted cell: after libcsv
 * has unquoted it). */
static void test_csv_guard(void)
{
    static const char *const cells[][2] = {
        {"=a", "'=a"},   {"+a", "'+a"},     {"-", "'-"},
        {"@a", "'@a"},   {"\tx", "'\tx"},   {"\r=x", "\"'\r=x\""},
        {"'=a", "''=a"}, {"''@a", "'''@a"}, {"=a,b", "\"'=a,b\""},
        {"'s", "'s"},    {"'", "'"},        {"", ""},
        {"a=b", "a=b"},  {"K:-1", "K:-1"},
    };
    int bad = 0;
    for (size_t i = 0; i < sizeof cells / sizeof cells[0]; i++) {
        textbuf b = {0};
        const int rc = textbuf_add_csv_field(&b, cells[i][0], ',');
        const size_t n = strlen(cells[i][1]);
        if (rc != 0 || b.len != n ||
            (n > 0 && memcmp(b.s, cells[i][1], n) != 0)) {
            bad++;
            diag("'%s' written as '%.*s'", cells[i][0], (int)b.len, b.s);
        }
        if (cells[i][1][0] != '"' &&
            strcmp(csv_unguard(cells[i][1]), cells[i][0]) != 0) {
            bad++;
            diag("'%s' read back as '%s'", cells[i][1],
                 csv_unguard(cells[i][1]));
        }
        textbuf_free(&b);
    }
    ok(bad == 0, "a text cell that starts a formula gets one apostrophe "
                 "more, read back without it");
}

int main(void)
{
    test_known_texts();
    test_edges();
    test_random();
    test_fixed();
    test_textbuf();
    test_csv_guard();
    return tap_done();
}
