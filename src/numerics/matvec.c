/* matvec.c: one row times a matrix, every sum in index order (see
 * matvec.h).
 *
 * A task takes one slice of columns [j0, j1) of c. The kernels compute
 * the columns their vectors cover; the plain loops finish the rest (the
 * slice's last columns, and for b^T the last K % 4 terms of each sum,
 * added after the vectors' terms, in order). Vector and scalar
 * instructions round every product and every sum alike, so which one
 * computes a column changes no bit.
 */
#include "numerics/matvec.h"

#include <stdbool.h>
#include <stddef.h>

#include "numerics/simd.h"

#if SIMD_X86
#include <immintrin.h>
#endif
#if SIMD_WASM128
#include <wasm_simd128.h>
#endif

#ifdef __clang__
/* gcc never contracts with -ffp-contract=off (meson.build); clang is told
 * here as well */
#pragma STDC FP_CONTRACT OFF
#endif

enum {
    ROWS = 32,             /* columns of c per block of the b^T kernels */
    SLICES_PER_TASKER = 4, /* slices per thread: a thread slowed down by
                              another program takes fewer */
};

/* ---- the plain loops ----------------------------------------------------- */

void matvec_run_plain(const matmul_problem *p, size_t j0, size_t j1)
{
    const bool first = p->bias != NULL && p->bias_first;
    float *c = p->c;
    if (!p->b_transposed) {
        // b (K, N): row k adds a[k] * b[k][j] to every sum j
        for (size_t j = j0; j < j1; j++)
            c[j] = first ? p->bias[j] : 0.0f;
        for (size_t k = 0; k < p->K; k++) {
            const float ak = p->a[k];
            const float *bk = p->b + k * p->ldb;
            for (size_t j = j0; j < j1; j++)
                c[j] += ak * bk[j];
        }
    } else {
        // b^T (N, K): eight rows j at a time, each its own sum along k
        enum { R = 8 };
        for (size_t r0 = j0; r0 < j1; r0 += R) {
            const size_t n = r0 + R <= j1 ? (size_t)R : j1 - r0;
            float sum[R];
            const float *row[R];
            for (size_t r = 0; r < n; r++) {
                sum[r] = first ? p->bias[r0 + r] : 0.0f;
                row[r] = p->b + (r0 + r) * p->ldb;
            }
            for (size_t k = 0; k < p->K; k++)
                for (size_t r = 0; r < n; r++)
                    sum[r] += p->a[k] * row[r][k];
            for (size_t r = 0; r < n; r++)
                c[r0 + r] = sum[r];
        }
    }
    if (p->bias != NULL && !first)
        for (size_t j = j0; j < j1; j++)
            c[j] += p->bias[j];
}

/* Where a kernel stops: columns [j0, done) computed, the plain loops do
 * [done, j1). */
typedef size_t (*slice_fn)(const matmul_problem *p, size_t j0, size_t j1);

#if SIMD_X86 || SIMD_WASM128

/* The sums of rows [j0, j0 + n) of b^T from the terms k >= k0 on, their
 * first terms already in c[j0 ..]; then the bias when it comes last. */
static void rows_finish(const matmul_problem *p, size_t j0, size_t n, size_t k0)
{
    for (size_t r = 0; r < n; r++) {
        const float *row = p->b + (j0 + r) * p->ldb;
        float sum = p->c[j0 + r];
        for (size_t k = k0; k < p->K; k++)
            sum += p->a[k] * row[k];
        if (p->bias != NULL && !p->bias_first)
            sum += p->bias[j0 + r];
        p->c[j0 + r] = sum;
    }
}

#endif

/* ---- b (K, N): vectors of sums along a row of b --------------------------- */

/* c[j] += a[k] * b[k][j], then a[k + 1] * b[k + 1][j], ...: four rows of
 * b per pass over the slice, each sum loaded and stored once per pass
 * and added to in order of k. ATTRS: the function's attributes (its
 * instruction set). */
#define COLUMNS_KERNEL(name, ATTRS, V, W, load, store, add, mul, set1, zero)  \
    ATTRS static size_t name(const matmul_problem *p, size_t j0, size_t j1)   \
    {                                                                         \
        const bool first = p->bias != NULL && p->bias_first;                  \
        const size_t end = j0 + (j1 - j0) / W * W, K = p->K, ldb = p->ldb;    \
        float *c = p->c;                                                      \
        for (size_t j = j0; j < end; j += W)                                  \
            store(c + j, first ? load(p->bias + j) : zero());                 \
        size_t k = 0;                                                         \
        for (; k + 4 <= K; k += 4) {                                          \
            const V a0 = set1(p->a[k]), a1 = set1(p->a[k + 1]);               \
            const V a2 = set1(p->a[k + 2]), a3 = set1(p->a[k + 3]);           \
            const float *b0 = p->b + k * ldb, *b1 = b0 + ldb, *b2 = b1 + ldb, \
                        *b3 = b2 + ldb;                                       \
            for (size_t j = j0; j < end; j += W) {                            \
                V s = load(c + j);                                            \
                s = add(s, mul(a0, load(b0 + j)));                            \
                s = add(s, mul(a1, load(b1 + j)));                            \
                s = add(s, mul(a2, load(b2 + j)));                            \
                s = add(s, mul(a3, load(b3 + j)));                            \
                store(c + j, s);                                              \
            }                                                                 \
        }                                                                     \
        for (; k < K; k++) {                                                  \
            const V ak = set1(p->a[k]);                                       \
            const float *bk = p->b + k * ldb;                                 \
            for (size_t j = j0; j < end; j += W)                              \
                store(c + j, add(load(c + j), mul(ak, load(bk + j))));        \
        }                                                                     \
        if (p->bias != NULL && !first)                                        \
            for (size_t j = j0; j < end; j += W)                              \
                store(c + j, add(load(c + j), load(p->bias + j)));            \
        return end;                                                           \
    }

#if SIMD_X86

/* target avx2 without fma: the compiler has no fused multiply-add to
 * reach for */
COLUMNS_KERNEL(columns_avx2, __attribute__((target("avx2"))), __m256, 8,
               _mm256_loadu_ps, _mm256_storeu_ps, _mm256_add_ps, _mm256_mul_ps,
               _mm256_set1_ps, _mm256_setzero_ps)
COLUMNS_KERNEL(columns_avx512, __attribute__((target("avx512f"))), __m512, 16,
               _mm512_loadu_ps, _mm512_storeu_ps, _mm512_add_ps, _mm512_mul_ps,
               _mm512_set1_ps, _mm512_setzero_ps)

/* ---- b^T (N, K): rows turned into vectors --------------------------------- */

/* Four terms k .. k + 3 of the sums s (vector of W rows): t0 .. t3 hold
 * the rows' terms at k .. k + 3, each product added in order. */
#define ADD_FOUR(add, mul, s, a, t0, t1, t2, t3) \
    do {                                         \
        s = add(s, mul(a[0], t0));               \
        s = add(s, mul(a[1], t1));               \
        s = add(s, mul(a[2], t2));               \
        s = add(s, mul(a[3], t3));               \
    } while (0)

/* v0 .. v3 hold, in each 128 bits L, rows 4L + q's b[.][k .. k + 3] (q =
 * 0 .. 3): after the 4 x 4 transpose in each 128 bits, t_i holds rows 4L
 * .. 4L + 3 at k + i, lane for lane the rows in order. */
#define TRANSPOSE4(V, unpacklo, unpackhi, shuffle, v0, v1, v2, v3, t0, t1, t2, \
                   t3)                                                         \
    do {                                                                       \
        const V u0 = unpacklo(v0, v1), u1 = unpackhi(v0, v1);                  \
        const V u2 = unpacklo(v2, v3), u3 = unpackhi(v2, v3);                  \
        t0 = shuffle(u0, u2, _MM_SHUFFLE(1, 0, 1, 0));                         \
        t1 = shuffle(u0, u2, _MM_SHUFFLE(3, 2, 3, 2));                         \
        t2 = shuffle(u1, u3, _MM_SHUFFLE(1, 0, 1, 0));                         \
        t3 = shuffle(u1, u3, _MM_SHUFFLE(3, 2, 3, 2));                         \
    } while (0)

/* Rows q and q + 4 (of eight from r) at k .. k + 3, one in each half. */
__attribute__((target("avx2"))) static inline __m256
two_rows(const float *r, size_t ldb, size_t q)
{
    return _mm256_insertf128_ps(
        _mm256_castps128_ps256(_mm_loadu_ps(r + q * ldb)),
        _mm_loadu_ps(r + (q + 4) * ldb), 1);
}

/* Rows q, q + 4, q + 8, q + 12 (of sixteen from r) at k .. k + 3. */
__attribute__((target("avx512f"))) static inline __m512
four_rows(const float *r, size_t ldb, size_t q)
{
    __m512 x = _mm512_castps128_ps512(_mm_loadu_ps(r + q * ldb));
    x = _mm512_insertf32x4(x, _mm_loadu_ps(r + (q + 4) * ldb), 1);
    x = _mm512_insertf32x4(x, _mm_loadu_ps(r + (q + 8) * ldb), 2);
    return _mm512_insertf32x4(x, _mm_loadu_ps(r + (q + 12) * ldb), 3);
}

/* ROWS rows of b^T at a time in G vectors of W sums (several chains of
 * additions in flight), over the terms k < K / 4 * 4; rows_finish adds
 * the rest. */
#define ROWS_KERNEL(name, isa, V, W, gather, load, store, add, mul, set1,    \
                    zero, unpacklo, unpackhi, shuffle)                       \
    __attribute__((target(isa))) static size_t name(const matmul_problem *p, \
                                                    size_t j0, size_t j1)    \
    {                                                                        \
        enum { G = ROWS / W };                                               \
        const bool first = p->bias != NULL && p->bias_first;                 \
        const size_t K4 = p->K / 4 * 4, ldb = p->ldb;                        \
        size_t j = j0;                                                       \
        for (; j + ROWS <= j1; j += ROWS) {                                  \
            V s[G];                                                          \
            for (size_t g = 0; g < G; g++)                                   \
                s[g] = first ? load(p->bias + j + g * W) : zero();           \
            const float *rows = p->b + j * ldb;                              \
            for (size_t k = 0; k < K4; k += 4) {                             \
                const V a[4] = {set1(p->a[k]), set1(p->a[k + 1]),            \
                                set1(p->a[k + 2]), set1(p->a[k + 3])};       \
                for (size_t g = 0; g < G; g++) {                             \
                    const float *r = rows + g * W * ldb + k;                 \
                    V t0, t1, t2, t3;                                        \
                    TRANSPOSE4(V, unpacklo, unpackhi, shuffle,               \
                               gather(r, ldb, 0), gather(r, ldb, 1),         \
                               gather(r, ldb, 2), gather(r, ldb, 3), t0, t1, \
                               t2, t3);                                      \
                    ADD_FOUR(add, mul, s[g], a, t0, t1, t2, t3);             \
                }                                                            \
            }                                                                \
            for (size_t g = 0; g < G; g++)                                   \
                store(p->c + j + g * W, s[g]);                               \
            rows_finish(p, j, ROWS, K4);                                     \
        }                                                                    \
        return j;                                                            \
    }

ROWS_KERNEL(rows_avx2, "avx2", __m256, 8, two_rows, _mm256_loadu_ps,
            _mm256_storeu_ps, _mm256_add_ps, _mm256_mul_ps, _mm256_set1_ps,
            _mm256_setzero_ps, _mm256_unpacklo_ps, _mm256_unpackhi_ps,
            _mm256_shuffle_ps)
ROWS_KERNEL(rows_avx512, "avx512f", __m512, 16, four_rows, _mm512_loadu_ps,
            _mm512_storeu_ps, _mm512_add_ps, _mm512_mul_ps, _mm512_set1_ps,
            _mm512_setzero_ps, _mm512_unpacklo_ps, _mm512_unpackhi_ps,
            _mm512_shuffle_ps)

#endif

#if SIMD_WASM128

/* ---- WebAssembly SIMD: 4 sums a vector ------------------------------------ */

static inline v128_t zero_simd128(void)
{
    return wasm_f32x4_splat(0.0f);
}

/* f32x4.mul then f32x4.add: each product rounded before its add */
COLUMNS_KERNEL(columns_simd128, , v128_t, 4, wasm_v128_load, wasm_v128_store,
               wasm_f32x4_add, wasm_f32x4_mul, wasm_f32x4_splat, zero_simd128)

/* b^T (N, K), eight rows at a time in two vectors of 4 sums, over the
 * terms k < K / 4 * 4; rows_finish adds the rest. Each row's four terms
 * at k .. k + 3 are one load; a 4 x 4 transpose of four rows makes t_i
 * the four rows' terms at k + i, added to their sums in order of k. */
static size_t rows_simd128(const matmul_problem *p, size_t j0, size_t j1)
{
    enum { R = 8 };
    const bool first = p->bias != NULL && p->bias_first;
    const size_t K4 = p->K / 4 * 4, ldb = p->ldb;
    size_t j = j0;
    for (; j + R <= j1; j += R) {
        v128_t s0 = first ? wasm_v128_load(p->bias + j) : zero_simd128();
        v128_t s1 = first ? wasm_v128_load(p->bias + j + 4) : zero_simd128();
        const float *rows = p->b + j * ldb;
        for (size_t k = 0; k < K4; k += 4) {
            const v128_t a0 = wasm_f32x4_splat(p->a[k]);
            const v128_t a1 = wasm_f32x4_splat(p->a[k + 1]);
            const v128_t a2 = wasm_f32x4_splat(p->a[k + 2]);
            const v128_t a3 = wasm_f32x4_splat(p->a[k + 3]);
            for (size_t g = 0; g < 2; g++) {
                const float *r = rows + g * 4 * ldb + k;
                const v128_t v0 = wasm_v128_load(r);
                const v128_t v1 = wasm_v128_load(r + ldb);
                const v128_t v2 = wasm_v128_load(r + 2 * ldb);
                const v128_t v3 = wasm_v128_load(r + 3 * ldb);
                const v128_t u0 = wasm_i32x4_shuffle(v0, v1, 0, 4, 1, 5);
                const v128_t u1 = wasm_i32x4_shuffle(v0, v1, 2, 6, 3, 7);
                const v128_t u2 = wasm_i32x4_shuffle(v2, v3, 0, 4, 1, 5);
                const v128_t u3 = wasm_i32x4_shuffle(v2, v3, 2, 6, 3, 7);
                v128_t s = g == 0 ? s0 : s1;
                s = wasm_f32x4_add(
                    s,
                    wasm_f32x4_mul(a0, wasm_i32x4_shuffle(u0, u2, 0, 1, 4, 5)));
                s = wasm_f32x4_add(
                    s,
                    wasm_f32x4_mul(a1, wasm_i32x4_shuffle(u0, u2, 2, 3, 6, 7)));
                s = wasm_f32x4_add(
                    s,
                    wasm_f32x4_mul(a2, wasm_i32x4_shuffle(u1, u3, 0, 1, 4, 5)));
                s = wasm_f32x4_add(
                    s,
                    wasm_f32x4_mul(a3, wasm_i32x4_shuffle(u1, u3, 2, 3, 6, 7)));
                if (g == 0)
                    s0 = s;
                else
                    s1 = s;
            }
        }
        wasm_v128_store(p->c + j, s0);
        wasm_v128_store(p->c + j + 4, s1);
        rows_finish(p, j, R, K4);
    }
    return j;
}

#endif

/* ---- slices over the threads ---------------------------------------------- */

/* The kernels of each matmul_kernel: b (K, N), b^T (N, K); NULL: the
 * plain loops alone. */
static const slice_fn columns_of[MATMUL_KERNELS] = {
    [MATMUL_PORTABLE] = NULL,
#if SIMD_X86
    [MATMUL_AVX2] = columns_avx2,
    [MATMUL_AVX512] = columns_avx512,
#endif
#if SIMD_WASM128
    [MATMUL_SIMD128] = columns_simd128,
#endif
};
static const slice_fn rows_of[MATMUL_KERNELS] = {
    [MATMUL_PORTABLE] = NULL,
#if SIMD_X86
    [MATMUL_AVX2] = rows_avx2,
    [MATMUL_AVX512] = rows_avx512,
#endif
#if SIMD_WASM128
    [MATMUL_SIMD128] = rows_simd128,
#endif
};

typedef struct {
    const matmul_problem *p;
    slice_fn kernel; /* or NULL */
    size_t width;    /* columns per slice, a multiple of ROWS */
} slices;

static void slice_task(void *ctx, size_t i)
{
    const slices *s = ctx;
    const size_t j0 = i * s->width;
    const size_t j1 = s->p->N - j0 < s->width ? s->p->N : j0 + s->width;
    const size_t done = s->kernel != NULL ? s->kernel(s->p, j0, j1) : j0;
    if (done < j1)
        matvec_run_plain(s->p, done, j1);
}

void matvec_run(const matmul_problem *p, matmul_kernel k, workers *pool)
{
    if (p->N == 0)
        return;
    const size_t N = p->N, threads = workers_threads(pool);
    const size_t want = threads > 1 ? threads * SLICES_PER_TASKER : 1;
    size_t width = (N + want - 1) / want;
    width = (width + ROWS - 1) / ROWS * ROWS;
    slices s = {p, NULL, width};
    if (k < MATMUL_KERNELS)
        s.kernel = p->b_transposed ? rows_of[k] : columns_of[k];
    // each term reads 4 bytes of b from memory, which takes longer than
    // its multiply and add: the work is counted as 8 flops a term
    const double work = 8.0 * (double)N * (double)p->K;
    workers_run(pool, (N + width - 1) / width, work, slice_task, &s);
}
