/* matmul.c: blocked matrix products that keep every sum in index order
 * (see matmul.h).
 *
 * A task takes one panel of NR columns of c: it packs b's panel (K rows of
 * NR floats, zero past column N), then walks the rows of c in tiles of
 * MR rows, K in blocks of KC. A kernel loads an MR x NR tile of sums (or
 * starts it at 0), and for each k adds a[i][k] * b[k][j] to every sum:
 * one multiply, rounded, then one add, as in the naive loop. Between
 * blocks of K a tile rests in c as float32, exactly what the register
 * held, so blocking changes no bit. The bias is added when the last block
 * is stored.
 */
#include "numerics/matmul.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "numerics/matmul_wide.h"
#include "numerics/matvec.h"
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
    MR_MAX = 8,  /* rows of the largest tile */
    NR_MAX = 32, /* columns of the largest tile */
    KC = 256,    /* terms per block: a panel of b, KC x NR, stays in L1/L2 */
};

/* tile (MR, NR) = (load ? tile : 0) + sum over k < kc of arow[r][k] *
 * bp[k][0..NR), in order of k. */
typedef void (*kernel_fn)(float *tile, const float *const *arow,
                          const float *bp, size_t kc, bool load);

/* ---- portable C: 4 x 8 --------------------------------------------------- */

static void kernel_portable(float *tile, const float *const *arow,
                            const float *bp, size_t kc, bool load)
{
    enum { MR = 4, NR = 8 };
    float acc[MR][NR];
    for (size_t r = 0; r < MR; r++)
        for (size_t j = 0; j < NR; j++)
            acc[r][j] = load ? tile[r * NR + j] : 0.0f;
    for (size_t k = 0; k < kc; k++) {
        const float *b = bp + k * NR;
        for (size_t r = 0; r < MR; r++) {
            const float a = arow[r][k];
            for (size_t j = 0; j < NR; j++) {
                const float product = a * b[j];
                acc[r][j] = acc[r][j] + product;
            }
        }
    }
    for (size_t r = 0; r < MR; r++)
        for (size_t j = 0; j < NR; j++)
            tile[r * NR + j] = acc[r][j];
}

/* One step of a tile row: acc0, acc1 += a * (b0, b1), each product
 * rounded before the add. */
#define STEP2(add, mul, acc0, acc1, a) \
    do {                               \
        acc0 = add(acc0, mul(a, b0));  \
        acc1 = add(acc1, mul(a, b1));  \
    } while (0)

#if SIMD_X86

/* ---- AVX2: 6 x 16, twelve vectors of 8 sums ------------------------------ */

/* The kernels start from the tile, so a first block zeroes it first. The
 * sums live in named variables: the compiler keeps every one in a
 * register. */

/* target avx2 without fma: the compiler has no fused multiply-add to
 * reach for */
__attribute__((target("avx2"))) static void
kernel_avx2(float *tile, const float *const *arow, const float *bp, size_t kc,
            bool load)
{
    enum { NR = 16 };
    if (!load)
        memset(tile, 0, 6 * NR * sizeof *tile);
    __m256 c00 = _mm256_loadu_ps(tile + 0 * NR),
           c01 = _mm256_loadu_ps(tile + 0 * NR + 8);
    __m256 c10 = _mm256_loadu_ps(tile + 1 * NR),
           c11 = _mm256_loadu_ps(tile + 1 * NR + 8);
    __m256 c20 = _mm256_loadu_ps(tile + 2 * NR),
           c21 = _mm256_loadu_ps(tile + 2 * NR + 8);
    __m256 c30 = _mm256_loadu_ps(tile + 3 * NR),
           c31 = _mm256_loadu_ps(tile + 3 * NR + 8);
    __m256 c40 = _mm256_loadu_ps(tile + 4 * NR),
           c41 = _mm256_loadu_ps(tile + 4 * NR + 8);
    __m256 c50 = _mm256_loadu_ps(tile + 5 * NR),
           c51 = _mm256_loadu_ps(tile + 5 * NR + 8);
    const float *a0 = arow[0], *a1 = arow[1], *a2 = arow[2], *a3 = arow[3],
                *a4 = arow[4], *a5 = arow[5];
    for (size_t k = 0; k < kc; k++) {
        const __m256 b0 = _mm256_loadu_ps(bp + k * NR);
        const __m256 b1 = _mm256_loadu_ps(bp + k * NR + 8);
        STEP2(_mm256_add_ps, _mm256_mul_ps, c00, c01,
              _mm256_broadcast_ss(a0 + k));
        STEP2(_mm256_add_ps, _mm256_mul_ps, c10, c11,
              _mm256_broadcast_ss(a1 + k));
        STEP2(_mm256_add_ps, _mm256_mul_ps, c20, c21,
              _mm256_broadcast_ss(a2 + k));
        STEP2(_mm256_add_ps, _mm256_mul_ps, c30, c31,
              _mm256_broadcast_ss(a3 + k));
        STEP2(_mm256_add_ps, _mm256_mul_ps, c40, c41,
              _mm256_broadcast_ss(a4 + k));
        STEP2(_mm256_add_ps, _mm256_mul_ps, c50, c51,
              _mm256_broadcast_ss(a5 + k));
    }
    _mm256_storeu_ps(tile + 0 * NR, c00);
    _mm256_storeu_ps(tile + 0 * NR + 8, c01);
    _mm256_storeu_ps(tile + 1 * NR, c10);
    _mm256_storeu_ps(tile + 1 * NR + 8, c11);
    _mm256_storeu_ps(tile + 2 * NR, c20);
    _mm256_storeu_ps(tile + 2 * NR + 8, c21);
    _mm256_storeu_ps(tile + 3 * NR, c30);
    _mm256_storeu_ps(tile + 3 * NR + 8, c31);
    _mm256_storeu_ps(tile + 4 * NR, c40);
    _mm256_storeu_ps(tile + 4 * NR + 8, c41);
    _mm256_storeu_ps(tile + 5 * NR, c50);
    _mm256_storeu_ps(tile + 5 * NR + 8, c51);
}

/* ---- AVX-512: 8 x 32, sixteen vectors of 16 sums ------------------------ */

__attribute__((target("avx512f"))) static void
kernel_avx512(float *tile, const float *const *arow, const float *bp, size_t kc,
              bool load)
{
    enum { MR = 8, NR = 32 };
    __m512 acc[MR][2];
    for (size_t r = 0; r < MR; r++)
        for (size_t h = 0; h < 2; h++)
            acc[r][h] = load ? _mm512_loadu_ps(tile + r * NR + h * 16)
                             : _mm512_setzero_ps();
    for (size_t k = 0; k < kc; k++) {
        const __m512 b0 = _mm512_loadu_ps(bp + k * NR);
        const __m512 b1 = _mm512_loadu_ps(bp + k * NR + 16);
        for (size_t r = 0; r < MR; r++)
            STEP2(_mm512_add_ps, _mm512_mul_ps, acc[r][0], acc[r][1],
                  _mm512_set1_ps(arow[r][k]));
    }
    for (size_t r = 0; r < MR; r++)
        for (size_t h = 0; h < 2; h++)
            _mm512_storeu_ps(tile + r * NR + h * 16, acc[r][h]);
}

#endif

#if SIMD_WASM128

/* ---- WebAssembly SIMD: 4 x 8, eight vectors of 4 sums -------------------- */

/* f32x4.mul then f32x4.add: each product rounded before its add, as the
 * portable kernel's (WebAssembly has no fused multiply-add but relaxed
 * SIMD's, which is not used) */
static void kernel_simd128(float *tile, const float *const *arow,
                           const float *bp, size_t kc, bool load)
{
    enum { NR = 8 };
    if (!load)
        memset(tile, 0, 4 * NR * sizeof *tile);
    v128_t c00 = wasm_v128_load(tile + 0 * NR),
           c01 = wasm_v128_load(tile + 0 * NR + 4);
    v128_t c10 = wasm_v128_load(tile + 1 * NR),
           c11 = wasm_v128_load(tile + 1 * NR + 4);
    v128_t c20 = wasm_v128_load(tile + 2 * NR),
           c21 = wasm_v128_load(tile + 2 * NR + 4);
    v128_t c30 = wasm_v128_load(tile + 3 * NR),
           c31 = wasm_v128_load(tile + 3 * NR + 4);
    const float *a0 = arow[0], *a1 = arow[1], *a2 = arow[2], *a3 = arow[3];
    for (size_t k = 0; k < kc; k++) {
        const v128_t b0 = wasm_v128_load(bp + k * NR);
        const v128_t b1 = wasm_v128_load(bp + k * NR + 4);
        STEP2(wasm_f32x4_add, wasm_f32x4_mul, c00, c01,
              wasm_f32x4_splat(a0[k]));
        STEP2(wasm_f32x4_add, wasm_f32x4_mul, c10, c11,
              wasm_f32x4_splat(a1[k]));
        STEP2(wasm_f32x4_add, wasm_f32x4_mul, c20, c21,
              wasm_f32x4_splat(a2[k]));
        STEP2(wasm_f32x4_add, wasm_f32x4_mul, c30, c31,
              wasm_f32x4_splat(a3[k]));
    }
    wasm_v128_store(tile + 0 * NR, c00);
    wasm_v128_store(tile + 0 * NR + 4, c01);
    wasm_v128_store(tile + 1 * NR, c10);
    wasm_v128_store(tile + 1 * NR + 4, c11);
    wasm_v128_store(tile + 2 * NR, c20);
    wasm_v128_store(tile + 2 * NR + 4, c21);
    wasm_v128_store(tile + 3 * NR, c30);
    wasm_v128_store(tile + 3 * NR + 4, c31);
}

#endif

typedef struct {
    size_t mr, nr;
    kernel_fn run;
    const char *name;
} kernel_info;

static const kernel_info kernels[MATMUL_KERNELS] = {
    [MATMUL_PORTABLE] = {4, 8, kernel_portable, "portable"},
#if SIMD_X86
    [MATMUL_AVX2] = {6, 16, kernel_avx2, "avx2"},
    [MATMUL_AVX512] = {8, 32, kernel_avx512, "avx512"},
#else
    [MATMUL_AVX2] = {4, 8, kernel_portable, "avx2"},
    [MATMUL_AVX512] = {4, 8, kernel_portable, "avx512"},
#endif
#if SIMD_WASM128
    [MATMUL_SIMD128] = {4, 8, kernel_simd128, "simd128"},
#else
    [MATMUL_SIMD128] = {4, 8, kernel_portable, "simd128"},
#endif
};

const char *matmul_kernel_name(matmul_kernel k)
{
    return k < MATMUL_KERNELS ? kernels[k].name : "?";
}

/* ---- the plain loop ------------------------------------------------------ */

static float b_at(const matmul_problem *p, size_t k, size_t j)
{
    return p->b_transposed ? p->b[j * p->ldb + k] : p->b[k * p->ldb + j];
}

void matmul_run_naive(const matmul_problem *p)
{
    for (size_t i = 0; i < p->M; i++) {
        for (size_t j = 0; j < p->N; j++) {
            const bool first = p->bias != NULL && p->bias_first;
            float sum = first ? p->bias[j] : 0.0f;
            for (size_t k = 0; k < p->K; k++)
                sum += p->a[i * p->lda + k] * b_at(p, k, j);
            if (p->bias != NULL && !first)
                sum += p->bias[j];
            p->c[i * p->ldc + j] = sum;
        }
    }
}

/* ---- the blocked product ------------------------------------------------- */

typedef struct {
    const matmul_problem *p;
    const kernel_info *kern;
    float *packed; /* panels of b: panel j at packed + j * K * nr */
} job;

/* dst = src (n floats), four at a time: a copy of a constant size is a
 * load and a store where memcpy of a panel's row would be a call (in
 * WebAssembly, without bulk memory, a loop in the C library), once for
 * each k of every panel. */
static void copy_floats(float *dst, const float *src, size_t n)
{
    size_t j = 0;
    for (; j + 4 <= n; j += 4)
        memcpy(dst + j, src + j, 4 * sizeof *dst);
    for (; j < n; j++)
        dst[j] = src[j];
}

/* bp (K, nr) = columns [j0, j0 + nr) of b, zero past column N. */
static void pack_panel(float *bp, const matmul_problem *p, size_t j0, size_t nr)
{
    const size_t cols = p->N - j0 < nr ? p->N - j0 : nr;
    if (p->b_transposed) {
        // b^T (N, K): column j of b is row j, read along k, 16 k at a
        // time so that the 16 rows of bp being written stay in cache
        for (size_t k0 = 0; k0 < p->K; k0 += 16) {
            const size_t k1 = p->K - k0 < 16 ? p->K : k0 + 16;
            for (size_t j = 0; j < cols; j++) {
                const float *src = p->b + (j0 + j) * p->ldb;
                for (size_t k = k0; k < k1; k++)
                    bp[k * nr + j] = src[k];
            }
        }
    } else {
        for (size_t k = 0; k < p->K; k++)
            copy_floats(bp + k * nr, p->b + k * p->ldb + j0, cols);
    }
    for (size_t k = 0; k < p->K; k++)
        for (size_t j = cols; j < nr; j++)
            bp[k * nr + j] = 0.0f;
}

/* One panel of columns: every tile of it, block of K by block. */
static void panel_task(void *ctx, size_t panel)
{
    const job *jb = ctx;
    const matmul_problem *p = jb->p;
    const size_t mr = jb->kern->mr, nr = jb->kern->nr;
    const size_t j0 = panel * nr;
    const size_t cols = p->N - j0 < nr ? p->N - j0 : nr;
    float *bp = jb->packed + panel * p->K * nr;
    pack_panel(bp, p, j0, nr);

    float tile[MR_MAX * NR_MAX];
    for (size_t k0 = 0; k0 < p->K; k0 += KC) {
        for (size_t i0 = 0; i0 < p->M; i0 += mr) {
            const size_t rows = p->M - i0 < mr ? p->M - i0 : mr;
            const size_t last = i0 + rows - 1; /* the tile's last row */
            if (p->shape == MATMUL_LOWER_C && j0 > last)
                continue; /* every cell has j > i: masked */
            size_t kend = p->K;
            if (p->shape == MATMUL_LOWER_A && last + 1 < kend)
                kend = last + 1; /* a[i][k] == 0 for k > last */
            if (k0 >= kend)
                continue;
            const size_t kc = kend - k0 < KC ? kend - k0 : KC;
            const float *arow[MR_MAX];
            for (size_t r = 0; r < mr; r++)
                arow[r] = p->a + (i0 + (r < rows ? r : rows - 1)) * p->lda + k0;
            const bool first = p->bias != NULL && p->bias_first;
            if (k0 > 0)
                for (size_t r = 0; r < rows; r++)
                    copy_floats(tile + r * nr, p->c + (i0 + r) * p->ldc + j0,
                                cols);
            else if (first)
                for (size_t r = 0; r < mr; r++)
                    for (size_t j = 0; j < nr; j++)
                        tile[r * nr + j] = j < cols ? p->bias[j0 + j] : 0.0f;
            jb->kern->run(tile, arow, bp + k0 * nr, kc, k0 > 0 || first);
            const bool final = k0 + kc == kend && !first;
            for (size_t r = 0; r < rows; r++) {
                float *dst = p->c + (i0 + r) * p->ldc + j0;
                const float *src = tile + r * nr;
                if (final && p->bias != NULL)
                    for (size_t j = 0; j < cols; j++)
                        dst[j] = src[j] + p->bias[j0 + j];
                else
                    copy_floats(dst, src, cols);
            }
        }
    }
}

void matmul_run(const matmul_problem *p, matmul_kernel k, workers *pool)
{
    if (p->M == 0 || p->N == 0)
        return;
    if (p->K == 0 || k >= MATMUL_KERNELS) {
        matmul_run_naive(p);
        return;
    }
    if (p->M == 1 && p->shape == MATMUL_FULL) {
        matvec_run(p, k, pool); /* a generated token's row (matvec.h) */
        return;
    }
    // AVX-512 over a whole problem: each tile's sums kept in registers
    // over all of K (matmul_wide.h)
    if (k == MATMUL_AVX512 && matmul_wide_run(p, pool))
        return;
    const kernel_info *kern = &kernels[k];
    const size_t panels = (p->N + kern->nr - 1) / kern->nr;
    // packed (panels, K, nr); the sizes are those of b, already allocated
    // once, plus at most nr - 1 columns of padding
    const size_t floats = panels * p->K * kern->nr;
    void *mem = NULL;
    if (floats > SIZE_MAX / sizeof(float) ||
        posix_memalign(&mem, 64, floats * sizeof(float)) != 0) {
        matmul_run_naive(p); /* no room for the panels: same sums, slower */
        return;
    }
    job jb = {p, kern, mem};
    double flops = 2.0 * (double)p->M * (double)p->N * (double)p->K;
    if (p->shape != MATMUL_FULL)
        flops /= 2.0;
    workers_run(pool, panels, flops, panel_task, &jb);
    free(mem);
}
