/* test_matmul.c: every matrix-product kernel this processor runs (with
 * AVX-512, matmul_wide.c's for the full shape) gives the naive loop's
 * bits, on random shapes (odd sizes, sizes around the
 * tiles and the blocks of K), with b given either way, with and without a
 * bias, with the causal shapes, alone and on a pool of threads; and the
 * thread pool runs every task exactly once.
 *
 * Usage: test_matmul [REFERENCE_DIR]   (the argument is not used) */
#define _GNU_SOURCE /* sched_setaffinity, CPU_SET */
#include <math.h>
#include <sched.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "numerics/matmul.h"
#include "tap.h"
#include "numerics/workers.h"

static uint32_t state = 2463534242u;

static uint32_t next_random(void)
{
    state ^= state << 13;
    state ^= state >> 17;
    state ^= state << 5;
    return state;
}

static size_t random_size(size_t max)
{
    return 1 + next_random() % max;
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

static uint32_t bits(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return u;
}

/* Cells of c (M, N) that differ from want; with lower, only cells j <= i
 * are compared. Two NaNs count as equal. */
static long differences(const float *c, const float *want, size_t M, size_t N,
                        bool lower)
{
    long bad = 0;
    for (size_t i = 0; i < M; i++)
        for (size_t j = 0; j < N && (!lower || j <= i); j++) {
            const float x = c[i * N + j], y = want[i * N + j];
            if (bits(x) != bits(y) && !(isnan(x) && isnan(y)))
                bad++;
        }
    return bad;
}

/* One random problem of at most max_m x max_n x max_k, computed by kernel
 * k on pool and by the naive loop; returns the differing cells. */
static long one_problem(matmul_kernel k, workers *pool, size_t max_m,
                        size_t max_n, size_t max_k, matmul_shape shape,
                        bool specials)
{
    const size_t M = random_size(max_m), K = random_size(max_k);
    const size_t N = random_size(max_n);
    const bool transposed = next_random() % 2 == 0;
    const bool with_bias = shape != MATMUL_LOWER_C && next_random() % 2 == 0;
    // GPT-2's Conv1D: each sum starts at its bias
    const bool bias_first = with_bias && next_random() % 2 == 0;
    float *a = alloc_floats(M * K), *b = alloc_floats(K * N);
    float *bias = alloc_floats(N), *c = alloc_floats(M * N);
    float *want = alloc_floats(M * N);
    fill(a, M * K);
    fill(b, K * N);
    fill(bias, N);
    if (specials) { /* zeros of both signs, infinities, NaN */
        const float odd[] = {0.0f, -0.0f, INFINITY, -INFINITY, NAN, 1e30f};
        for (size_t i = 0; i < 6; i++) {
            a[next_random() % (M * K)] = odd[i];
            b[next_random() % (K * N)] = odd[i];
        }
    }
    if (shape == MATMUL_LOWER_A) /* weights: exactly 0 past the diagonal */
        for (size_t i = 0; i < M; i++)
            for (size_t j = i + 1; j < K; j++)
                a[i * K + j] = next_random() % 2 ? 0.0f : -0.0f;
    matmul_problem p = {
        .M = M,
        .N = N,
        .K = K,
        .a = a,
        .lda = K,
        .b = b,
        .ldb = transposed ? K : N,
        .b_transposed = transposed,
        .bias = with_bias ? bias : NULL,
        .bias_first = bias_first,
        .c = want,
        .ldc = N,
        .shape = shape,
    };
    matmul_run_naive(&p);
    p.c = c;
    matmul_run(&p, k, pool);
    long bad = differences(c, want, M, N, shape == MATMUL_LOWER_C);
    if (bad != 0)
        printf("# %s: %zu x %zu x %zu%s%s: %ld cells differ\n",
               matmul_kernel_name(k), M, N, K, transposed ? ", b^T" : "",
               with_bias ? (bias_first ? ", bias first" : ", bias") : "", bad);
    free(a);
    free(b);
    free(bias);
    free(c);
    free(want);
    return bad;
}

/* A random product a (M, K) @ b^T (N, K), as the lm_head's over a
 * pass's rows, computed by kernel k whole and then each row of a alone
 * (M = 1: a single row's path, matvec.h); returns the cells of the rows
 * alone that differ from the whole product's: each row's sums must not
 * depend on the other rows (lm_runs.h computes a pass's last row of
 * logits alone). */
static long rows_alone(matmul_kernel k, workers *pool)
{
    const size_t M = 1 + random_size(40), K = random_size(100);
    const size_t N = random_size(600);
    float *a = alloc_floats(M * K), *b = alloc_floats(K * N);
    float *whole = alloc_floats(M * N), *row = alloc_floats(N);
    fill(a, M * K);
    fill(b, K * N);
    matmul_problem p = {
        .M = M,
        .N = N,
        .K = K,
        .a = a,
        .lda = K,
        .b = b,
        .ldb = K,
        .b_transposed = true,
        .c = whole,
        .ldc = N,
        .shape = MATMUL_FULL,
    };
    matmul_run(&p, k, pool);
    long bad = 0;
    for (size_t i = 0; i < M; i++) {
        p.M = 1;
        p.a = a + i * K;
        p.c = row;
        matmul_run(&p, k, pool);
        bad += differences(row, whole + i * N, 1, N, false);
    }
    free(a);
    free(b);
    free(whole);
    free(row);
    return bad;
}

static void kernel_cases(matmul_kernel k, workers *pool, const char *on)
{
    long alone = 0;
    for (int i = 0; i < 40; i++)
        alone += rows_alone(k, i % 2 ? pool : NULL);
    ok(alone == 0,
       "%s%s: each row of a product alone equals that row of the whole "
       "product: %ld cells differ",
       matmul_kernel_name(k), on, alone);

    long bad = 0;
    for (int i = 0; i < 300; i++)
        bad += one_problem(k, NULL, 40, 70, 40, MATMUL_FULL, false);
    ok(bad == 0, "%s: 300 small random shapes equal the naive loop: %ld differ",
       matmul_kernel_name(k), bad);
    bad = 0;
    for (int i = 0; i < 12; i++)
        bad += one_problem(k, pool, 150, 150, 700, MATMUL_FULL, false);
    ok(bad == 0, "%s%s: 12 shapes with K past the block of 256: %ld differ",
       matmul_kernel_name(k), on, bad);
    bad = 0;
    for (int i = 0; i < 8; i++)
        bad += one_problem(k, i % 2 ? pool : NULL, 40, 60, 1300, MATMUL_FULL,
                           false);
    ok(bad == 0,
       "%s%s: 8 shapes with K up to past two blocks of 512 (matmul_wide.c): "
       "%ld differ",
       matmul_kernel_name(k), on, bad);
    bad = 0;
    for (int i = 0; i < 100; i++)
        bad += one_problem(k, NULL, 30, 30, 30, MATMUL_FULL, true);
    ok(bad == 0, "%s: +-0, +-inf, NaN, 1e30 among the values: %ld differ",
       matmul_kernel_name(k), bad);
    bad = 0;
    for (int i = 0; i < 40; i++)
        bad += one_problem(k, i % 2 ? pool : NULL, 200, 200, 80, MATMUL_LOWER_C,
                           false);
    ok(bad == 0,
       "%s%s: causal scores, cells on and below the diagonal: %ld "
       "differ",
       matmul_kernel_name(k), on, bad);
    bad = 0;
    for (int i = 0; i < 40; i++)
        bad += one_problem(k, i % 2 ? pool : NULL, 200, 70, 200, MATMUL_LOWER_A,
                           false);
    ok(bad == 0,
       "%s%s: causal context, terms past the diagonal left out: "
       "%ld differ",
       matmul_kernel_name(k), on, bad);
}

/* A task that counts how often it ran. */
static void count_task(void *ctx, size_t i)
{
    int *seen = ctx;
    __atomic_add_fetch(&seen[i], 1, __ATOMIC_RELAXED);
}

/* A task that runs the pool again from inside: it must run inline. */
typedef struct {
    workers *pool;
    int *seen;
} nested;

static void nested_task(void *ctx, size_t i)
{
    nested *n = ctx;
    workers_run(n->pool, 4, 1e9, count_task, n->seen + 4 * i);
}

static void pool_cases(void)
{
#ifdef __wasm__
    /* built for WebAssembly (the kernels' test in node), with the page's
     * core's stand-in for the pool: one thread, no pool to test */
    printf(
        "ok %d - # SKIP no threads in WebAssembly (numerics/workers_serial.c)\n",
        ++tap_count);
    return;
#endif
    mx_error err;
    workers *pool = NULL;
    ok(workers_init(&pool, 0, &err) == 0 && workers_threads(pool) == 1,
       "a pool asked for 0 threads has 1");
    workers_free(pool);
    ok(workers_init(&pool, MAX_THREADS + 1, &err) == 0 &&
           workers_threads(pool) == MAX_THREADS,
       "a pool asked for %d threads has %d", MAX_THREADS + 1, MAX_THREADS);
    workers_free(pool);
    ok(workers_available() >= 1, "available processors: %zu",
       workers_available());
    ok(workers_threads(NULL) == 1, "no pool is one thread");
#ifdef __linux__
    /* the affinity mask limits the default: pinned to one CPU, one thread */
    cpu_set_t all, one;
    if (sched_getaffinity(0, sizeof all, &all) == 0 && CPU_COUNT(&all) > 1) {
        CPU_ZERO(&one);
        for (int c = 0; c < CPU_SETSIZE; c++)
            if (CPU_ISSET(c, &all)) {
                CPU_SET(c, &one);
                break;
            }
        const int pinned = sched_setaffinity(0, sizeof one, &one) == 0;
        const size_t n = workers_available();
        if (pinned)
            sched_setaffinity(0, sizeof all, &all);
        ok(pinned && n == 1, "pinned to one CPU: %zu available", n);
    } else {
        printf("ok %d - # SKIP one CPU only: the affinity mask cannot "
               "shrink\n",
               ++tap_count);
    }
#endif

    if (workers_init(&pool, 3, &err) != 0) {
        printf("Bail out! %s\n", err.msg);
        exit(1);
    }
    enum { TASKS = 1000 };
    int *seen = calloc(TASKS, sizeof *seen);
    if (seen == NULL) {
        printf("Bail out! out of memory\n");
        exit(1);
    }
    int wrong = 0;
    for (int round = 0; round < 50; round++) {
        memset(seen, 0, TASKS * sizeof *seen);
        workers_run(pool, TASKS, 1e9, count_task, seen);
        for (size_t i = 0; i < TASKS; i++)
            wrong += seen[i] != 1;
    }
    ok(wrong == 0,
       "3 threads, 50 rounds of 1000 tasks: each ran once (%d "
       "did not)",
       wrong);
    memset(seen, 0, TASKS * sizeof *seen);
    nested n = {pool, seen};
    workers_run(pool, 10, 1e9, nested_task, &n);
    wrong = 0;
    for (size_t i = 0; i < 40; i++)
        wrong += seen[i] != 1;
    ok(wrong == 0, "a task that runs the pool again runs its tasks inline");
    memset(seen, 0, TASKS * sizeof *seen);
    workers_run(pool, 5, 10.0, count_task, seen);
    workers_run(pool, 0, 1e9, count_task, seen);
    wrong = 0;
    for (size_t i = 0; i < 5; i++)
        wrong += seen[i] != 1;
    ok(wrong == 0 && seen[5] == 0, "small and empty runs: each task once");
    free(seen);
    workers_free(pool);
    workers_free(NULL);
}

int main(void)
{
    mx_error err;
    workers *pool = NULL;
    if (workers_init(&pool, 2, &err) != 0) {
        printf("Bail out! %s\n", err.msg);
        return 1;
    }
    ok(matmul_kernel_supported(MATMUL_PORTABLE) &&
           matmul_kernel_supported(matmul_kernel_best()),
       "the best kernel (%s) is supported",
       matmul_kernel_name(matmul_kernel_best()));
    for (int k = 0; k < MATMUL_KERNELS; k++) {
        if (!matmul_kernel_supported((matmul_kernel)k)) {
            printf("ok %d - # SKIP %s: not supported by this processor\n",
                   ++tap_count, matmul_kernel_name((matmul_kernel)k));
            continue;
        }
        kernel_cases((matmul_kernel)k, pool, " on 2 threads");
    }
    workers_free(pool);
    pool_cases();
    return tap_done();
}
