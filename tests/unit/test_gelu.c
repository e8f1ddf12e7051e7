/* test_gelu.c: gelu_new, by the fastest path this processor runs (on x86
 * with AVX-512, sixteen values at a time; with FMA, fmaf as one
 * instruction), gives the same bits as its steps
 * one value at a time with sleef_tanhf (fmaf from the C library), on edge
 * cases, random values and a sweep of float32 bit patterns. And the
 * feed-forward network's GELU (mlp_forward, gelu_new and BERT's
 * gelu_erf) shared out in slices over a pool of two threads gives the
 * bits of one call over all the values.
 *
 * Usage: test_gelu [REFERENCE_DIR]   (the argument is not used) */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "model/layers/mlp.h"
#include "numerics/gelu.h"
#include "numerics/gelu_erf.h"
#include "tap.h"

static uint32_t bits(float v)
{
    uint32_t u;
    memcpy(&u, &v, sizeof u);
    return u;
}

/* gelu_new of v written out step by step, as gelu.h defines it. */
static float gelu_one(float v)
{
    const float cube = 0.044715f;
    const float root = (float)0.7978845608028654;
    const float inner = root * (v + cube * (v * v * v));
    return 0.5f * v * (1.0f + sleef_tanhf(inner));
}

/* The values of x (n) whose gelu_new differs from gelu_one (two NaNs
 * count as equal). */
static long differences(const float *x, size_t n)
{
    float *w = malloc(n * sizeof *w);
    if (w == NULL) {
        printf("Bail out! out of memory\n");
        exit(1);
    }
    memcpy(w, x, n * sizeof *w);
    gelu_new(w, n);
    long bad = 0;
    for (size_t i = 0; i < n; i++) {
        const float want = gelu_one(x[i]);
        if (bits(w[i]) != bits(want) && !(isnan(w[i]) && isnan(want)))
            bad++;
    }
    free(w);
    return bad;
}

/* mlp_forward over x (1, 1) with fc (1 -> F) and act, two threads: its
 * ffn_hidden equals fc's output through one call of the activation over
 * all F values (F = 2 x 16384 + 1: slices of a fixed width would leave
 * one value over, which gelu_erf takes another way). */
static bool mlp_split_same(activation act)
{
    enum { T = 1, F = 2 * 16384 + 1 };
    float *w = malloc(F * sizeof *w), *proj = calloc(F, sizeof *proj);
    // the last value -3.96875: one of those gelu_erf takes apart
    float xs[T] = {-3.96875f}, out_v[T] = {0};
    matrix x = {T, 1, xs}, out = {T, 1, out_v}, hidden = {0}, want = {0};
    workers *pool = NULL;
    mx_error err;
    bool same = false;
    if (w != NULL && proj != NULL &&
        matrix_alloc(&hidden, T, F, "test", &err) == 0 &&
        matrix_alloc(&want, T, F, "test", &err) == 0 &&
        workers_init(&pool, 2, &err) == 0) {
        for (size_t j = 0; j < F; j++)
            w[j] = (float)((int)(j % 97) - 48) * 0.0625f;
        w[F - 1] = 1.0f;
        const mlp f = {{w, NULL, 1, F, true}, {proj, NULL, F, 1, true}, act};
        const table_key at = {VARIANT_ID_BLOCK, 0, NO_HEAD, TABLE_FFN_HIDDEN,
                              false};
        dense_forward(&want, &x, &f.fc, NULL);
        if (act == ACT_GELU_NEW)
            gelu_new(want.v, T * F);
        else
            gelu_erf(want.v, T * F);
        same = mlp_forward(&out, &hidden, &x, &f, NULL, &at, pool, &err) == 0 &&
               memcmp(hidden.v, want.v, T * F * sizeof *want.v) == 0;
    }
    workers_free(pool);
    matrix_free(&hidden);
    matrix_free(&want);
    free(w);
    free(proj);
    return same;
}

int main(void)
{
    ok(mlp_split_same(ACT_GELU_NEW),
       "mlp_forward's gelu_new over two threads: the bits of one call");
    ok(mlp_split_same(ACT_GELU_ERF),
       "mlp_forward's gelu_erf over two threads: the bits of one call");
    const float edges[] = {0.0f,   -0.0f,   1.0f,     -1.0f,     8.66f,
                           -8.66f, 8.67f,   -8.67f,   20.0f,     -20.0f,
                           1e-30f, -1e-30f, INFINITY, -INFINITY, NAN,
                           3.5f,   -3.5f,   1e30f,    -1e30f,    0.125f};
    ok(differences(edges, sizeof edges / sizeof *edges) == 0,
       "edge values (0, +-8.67, +-inf, NaN, huge): same bits");
    enum { N = 200000 };
    float *x = malloc(N * sizeof *x);
    if (x == NULL) {
        printf("Bail out! out of memory\n");
        return 1;
    }
    uint32_t state = 2463534242u;
    for (size_t i = 0; i < N; i++) {
        state ^= state << 13;
        state ^= state >> 17;
        state ^= state << 5;
        /* a feed-forward layer's values: mostly within [-12, 12] */
        x[i] = (float)(state >> 8) / 16777216.0f * 24.0f - 12.0f;
    }
    long bad = differences(x, N);
    ok(bad == 0, "%d random values in [-12, 12]: %ld differ", N, bad);
    free(x);
    /* every 4099th float32 bit pattern: all signs, magnitudes, NaNs */
    enum { CHUNK = 65536 };
    float *chunk = malloc(CHUNK * sizeof *chunk);
    if (chunk == NULL) {
        printf("Bail out! out of memory\n");
        return 1;
    }
    long sweep = 0;
    size_t filled = 0, total = 0;
    for (uint64_t u = 0; u <= UINT32_MAX; u += 4099) {
        const uint32_t b = (uint32_t)u;
        memcpy(&chunk[filled++], &b, sizeof b);
        if (filled == CHUNK || u + 4099 > UINT32_MAX) {
            sweep += differences(chunk, filled);
            total += filled;
            filled = 0;
        }
    }
    free(chunk);
    ok(sweep == 0, "%zu float32 bit patterns (every 4099th): %ld differ", total,
       sweep);
    return tap_done();
}
