/* test_matvec.c: every one-row kernel this processor runs gives the bits
 * of the naive loop (matmul_run_naive) and of the plain loops
 * (matvec_run_plain), on random shapes around the vectors' widths and the
 * blocks of rows, with b given either way and with a row stride larger
 * than the row, with and without a bias (first or last), with +-0, +-inf
 * and NaN among the values, alone and on a pool of threads; on GPT-2
 * small's shapes; and the plain loops write only their slice of columns.
 *
 * Usage: test_matvec [REFERENCE_DIR]   (the argument is not used) */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "numerics/matmul.h"
#include "numerics/matvec.h"
#include "tap.h"
#include "numerics/workers.h"

static uint32_t state = 88172645u;

static uint32_t next_random(void)
{
    state ^= state << 13;
    state ^= state >> 17;
    state ^= state << 5;
    return state;
}

/* Values in [-4, 4) with every bit of the significand in use, so a
 * reordered or fused sum shows in the last bits. */
static void fill(float *v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        v[i] = (float)((double)next_random() / 4294967296.0 * 8.0 - 4.0);
}

static float *alloc_floats(size_t n)
{
    float *v = calloc(n > 0 ? n : 1, sizeof *v);
    if (v == NULL) {
        printf("Bail out! out of memory\n");
        exit(1);
    }
    return v;
}

/* Cells of c (N) whose bits differ from want's; two NaNs count as equal. */
static long differences(const float *c, const float *want, size_t N)
{
    long bad = 0;
    for (size_t j = 0; j < N; j++) {
        uint32_t x, y;
        memcpy(&x, &c[j], sizeof x);
        memcpy(&y, &want[j], sizeof y);
        if (x != y && !(isnan(c[j]) && isnan(want[j])))
            bad++;
    }
    return bad;
}

typedef struct {
    size_t N, K;
    bool transposed, specials;
} shape;

/* One problem of shape s with a random bias and row stride, computed by
 * kernel k on pool, by the naive loop and by the plain loops; returns the
 * cells that differ from the naive loop's. */
static long one_problem(matmul_kernel k, workers *pool, shape s)
{
    const size_t N = s.N, K = s.K;
    const size_t pad = next_random() % 3 == 0 ? next_random() % 9 : 0;
    const size_t ldb = (s.transposed ? K : N) + pad;
    const size_t rows = s.transposed ? N : K;
    const bool with_bias = next_random() % 3 != 0;
    const bool bias_first = with_bias && next_random() % 2 == 0;
    float *a = alloc_floats(K), *b = alloc_floats(rows * ldb);
    float *bias = alloc_floats(N), *c = alloc_floats(N);
    float *want = alloc_floats(N), *plain = alloc_floats(N);
    fill(a, K);
    fill(b, rows * ldb);
    fill(bias, N);
    if (s.specials) { /* zeros of both signs, infinities, NaN */
        const float odd[] = {0.0f, -0.0f, INFINITY, -INFINITY, NAN, 1e30f};
        for (size_t i = 0; i < 6; i++) {
            a[next_random() % K] = odd[i];
            b[next_random() % (rows * ldb)] = odd[i];
            bias[next_random() % N] = odd[i];
        }
    }
    matmul_problem p = {
        .M = 1,
        .N = N,
        .K = K,
        .a = a,
        .lda = K,
        .b = b,
        .ldb = ldb,
        .b_transposed = s.transposed,
        .bias = with_bias ? bias : NULL,
        .bias_first = bias_first,
        .c = want,
        .ldc = N,
        .shape = MATMUL_FULL,
    };
    matmul_run_naive(&p);
    p.c = plain;
    matvec_run_plain(&p, 0, N);
    p.c = c;
    matvec_run(&p, k, pool);
    const long bad = differences(c, want, N) + differences(plain, want, N);
    if (bad != 0)
        printf("# %s: 1 x %zu x %zu%s, ldb %zu%s: %ld cells differ\n",
               matmul_kernel_name(k), N, K, s.transposed ? ", b^T" : "", ldb,
               with_bias ? (bias_first ? ", bias first" : ", bias") : "", bad);
    free(a);
    free(b);
    free(bias);
    free(c);
    free(want);
    free(plain);
    return bad;
}

static shape random_shape(size_t max_n, size_t max_k, bool specials)
{
    return (shape){1 + next_random() % max_n, 1 + next_random() % max_k,
                   next_random() % 2 == 0, specials};
}

static void kernel_cases(matmul_kernel k, workers *pool)
{
    const char *name = matmul_kernel_name(k);
    long bad = 0;
    for (int i = 0; i < 300; i++)
        bad += one_problem(k, NULL, random_shape(100, 40, false));
    ok(bad == 0, "%s: 300 small random shapes equal the naive loop: %ld differ",
       name, bad);
    bad = 0;
    for (int i = 0; i < 40; i++)
        bad += one_problem(k, pool, random_shape(700, 300, false));
    ok(bad == 0, "%s on 2 threads: 40 shapes up to 700 x 300: %ld differ", name,
       bad);
    bad = 0;
    for (int i = 0; i < 100; i++)
        bad += one_problem(k, i % 2 ? pool : NULL, random_shape(80, 30, true));
    ok(bad == 0, "%s: +-0, +-inf, NaN, 1e30 among the values: %ld differ", name,
       bad);
    // GPT-2 small's products of one token: c_attn, c_proj, c_fc and
    // mlp.c_proj (Conv1D, b (K, N)), and a slice of lm_head (b^T)
    const shape gpt2[] = {{2304, 768, false, false},
                          {768, 768, false, false},
                          {3072, 768, false, false},
                          {768, 3072, false, false},
                          {4099, 768, true, false}};
    bad = 0;
    for (size_t i = 0; i < sizeof gpt2 / sizeof *gpt2; i++)
        bad += one_problem(k, pool, gpt2[i]);
    ok(bad == 0, "%s on 2 threads: GPT-2 small's shapes: %ld differ", name,
       bad);
}

/* matvec_run_plain over [j0, j1) writes those columns and no other. */
static void slice_cases(void)
{
    enum { N = 50, K = 7 };
    float a[K], b[N * K], c[N];
    fill(a, K);
    fill(b, N * K);
    long wrong = 0;
    for (int t = 0; t < 2; t++) {
        for (size_t j = 0; j < N; j++)
            c[j] = -1.5f;
        const matmul_problem p = {.M = 1,
                                  .N = N,
                                  .K = K,
                                  .a = a,
                                  .lda = K,
                                  .b = b,
                                  .ldb = t ? K : N,
                                  .b_transposed = t == 1,
                                  .c = c,
                                  .ldc = N};
        matvec_run_plain(&p, 13, 29);
        for (size_t j = 0; j < N; j++)
            wrong += (j >= 13 && j < 29) == (c[j] == -1.5f);
    }
    ok(wrong == 0, "the plain loops write their slice of columns only");
}

int main(void)
{
    mx_error err;
    workers *pool = NULL;
    if (workers_init(&pool, 2, &err) != 0) {
        printf("Bail out! %s\n", err.msg);
        return 1;
    }
    for (int k = 0; k < MATMUL_KERNELS; k++) {
        if (!matmul_kernel_supported((matmul_kernel)k)) {
            printf("ok %d - # SKIP %s: not supported by this processor\n",
                   ++tap_count, matmul_kernel_name((matmul_kernel)k));
            continue;
        }
        kernel_cases((matmul_kernel)k, pool);
    }
    workers_free(pool);
    slice_cases();
    return tap_done();
}
