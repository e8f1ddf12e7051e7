/* test_expf_row.c: expf_row (softmax's exponentials), by every path this
 * processor runs (plain, FMA, AVX2, AVX-512), gives the same bits as
 * sleef_expf one value at a time, on edge cases and random values.
 *
 * Usage: test_expf_row [REFERENCE_DIR]   (the argument is not used) */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "tap.h"
#include "numerics/vecmath.h"

static uint32_t bits(float v)
{
    uint32_t u;
    memcpy(&u, &v, sizeof u);
    return u;
}

static const char *const path_names[] = {"plain", "fma", "avx2", "avx512"};

/* Counts the values of x whose expf_row result by path differs from
 * sleef_expf (a NaN gives a NaN: a signalling one comes out quiet). */
static long differences(enum expf_path path, const float *x, size_t n,
                        float shift)
{
    float *w = malloc(n * sizeof *w);
    if (w == NULL) {
        printf("Bail out! out of memory\n");
        exit(1);
    }
    memcpy(w, x, n * sizeof *w);
    expf_row_with(path, w, n, shift);
    long bad = 0;
    for (size_t i = 0; i < n; i++)
        if (bits(w[i]) != bits(sleef_expf(x[i] - shift)) &&
            !(isnan(w[i]) && isnan(x[i])))
            bad++;
    free(w);
    return bad;
}

/* The cases for one path; x holds N random values. */
static void path_cases(enum expf_path path, const float *x, size_t N)
{
    const char *name = path_names[path];
    const float edges[] = {
        0.0f,    -0.0f,    1.0f,    -1.0f,   104.0f,  -104.0f,   104.5f,
        -104.5f, 88.7f,    -87.3f,  -100.0f, -103.9f, INFINITY,  -INFINITY,
        NAN,     1e-30f,   -1e-30f, 0.5f,    -0.5f,   0.693147f, 20.0f,
        -20.0f,  1e-45f,   -1e-45f, -0.3f,   0.3f,    -87.5f,    -88.0f,
        -102.0f, -103.99f, 103.99f, 89.0f};
    const size_t n_edges = sizeof edges / sizeof edges[0];
    ok(differences(path, edges, n_edges, 0.0f) == 0,
       "%s: edge values (0, +-104, +-inf, NaN, tiny): same bits", name);
    ok(differences(path, edges, n_edges, 3.25f) == 0,
       "%s: edge values shifted by 3.25: same bits", name);
    long bad = differences(path, x, N, 0.0f);
    ok(bad == 0, "%s: %zu random values in [-108, 2]: %ld differ", name, N,
       bad);
    /* odd lengths: every tail length of the row */
    long tails = 0;
    for (size_t n = 1; n <= 33; n++)
        tails += differences(path, x + n, n, -0.75f);
    ok(tails == 0, "%s: rows of 1 to 33 values: %ld differ", name, tails);

    /* every 251st float32 bit pattern: all signs, magnitudes, NaNs,
     * subnormal results */
    enum { CHUNK = 65536 };
    float *chunk = malloc(CHUNK * sizeof *chunk);
    if (chunk == NULL) {
        printf("Bail out! out of memory\n");
        exit(1);
    }
    long sweep = 0;
    size_t filled = 0, total = 0;
    for (uint64_t u = 0; u <= UINT32_MAX; u += 251) {
        const uint32_t b = (uint32_t)u;
        memcpy(&chunk[filled++], &b, sizeof b);
        if (filled == CHUNK || u + 251 > UINT32_MAX) {
            sweep += differences(path, chunk, filled, 0.0f);
            total += filled;
            filled = 0;
        }
    }
    free(chunk);
    ok(sweep == 0, "%s: %zu float32 bit patterns (every 251st): %ld differ",
       name, total, sweep);
}

int main(void)
{
    enum { N = 1000000 };
    float *x = malloc(N * sizeof *x);
    if (x == NULL) {
        printf("Bail out! out of memory\n");
        return 1;
    }
    uint32_t state = 88172645u;
    for (size_t i = 0; i < N; i++) {
        state ^= state << 13;
        state ^= state >> 17;
        state ^= state << 5;
        /* softmax inputs: score - max, in [-110, 0], some above 0 */
        x[i] = (float)(state >> 8) / 16777216.0f * -110.0f + 2.0f;
    }
    ok(expf_path_supported(EXPF_PLAIN) && expf_path_supported(expf_path_best()),
       "the best path (%s) is supported", path_names[expf_path_best()]);
    for (int p = EXPF_PLAIN; p <= EXPF_AVX512; p++) {
        if (expf_path_supported((enum expf_path)p))
            path_cases((enum expf_path)p, x, N);
        else
            printf("ok %d - # SKIP %s: not supported by this processor\n",
                   ++tap_count, path_names[p]);
    }
    free(x);
    return tap_done();
}
