/* test_expf_row.c: expf_row (softmax's exponentials, with the FMA
 * instruction where the processor has it) gives the same bits as
 * sleef_expf one value at a time, on edge cases and random values.
 *
 * Usage: test_expf_row [REFERENCE_DIR]   (the argument is not used) */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "tap.h"
#include "vecmath.h"

static uint32_t bits(float v)
{
    uint32_t u;
    memcpy(&u, &v, sizeof u);
    return u;
}

/* Counts the values of x whose expf_row result differs from sleef_expf. */
static long differences(const float *x, size_t n, float shift)
{
    float *w = malloc(n * sizeof *w);
    if (w == NULL) {
        printf("Bail out! out of memory\n");
        exit(1);
    }
    memcpy(w, x, n * sizeof *w);
    expf_row(w, n, shift);
    long bad = 0;
    for (size_t i = 0; i < n; i++)
        if (bits(w[i]) != bits(sleef_expf(x[i] - shift)))
            bad++;
    free(w);
    return bad;
}

int main(void)
{
    const float edges[] = {0.0f,    -0.0f,   1.0f,     -1.0f,     104.0f,
                           -104.0f, 104.5f,  -104.5f,  88.7f,     -87.3f,
                           -100.0f, -103.9f, INFINITY, -INFINITY, NAN,
                           1e-30f,  -1e-30f, 0.5f,     -0.5f,     0.693147f,
                           20.0f,   -20.0f,  1e-45f,   -1e-45f};
    const size_t n_edges = sizeof edges / sizeof edges[0];
    ok(differences(edges, n_edges, 0.0f) == 0,
       "edge values (0, +-104, +-inf, NaN, tiny): same bits");
    ok(differences(edges, n_edges, 3.25f) == 0,
       "edge values shifted by 3.25: same bits");

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
    long bad = differences(x, N, 0.0f);
    ok(bad == 0, "1000000 random values in [-108, 2]: %ld differ", bad);
    /* odd lengths: every tail length of the row */
    long tails = 0;
    for (size_t n = 1; n <= 33; n++)
        tails += differences(x + n, n, -0.75f);
    ok(tails == 0, "rows of 1 to 33 values: %ld differ", tails);
    free(x);
    return tap_done();
}
