/* matmul_wide.c: the AVX-512 product of a whole problem, every sum in
 * index order (matmul_wide.h). */
#include "numerics/matmul_wide.h"

#include <stdint.h>
#include <stdlib.h>

#if defined(__GNUC__) && defined(__x86_64__)
#include <immintrin.h>

#ifdef __clang__
/* gcc never contracts with -ffp-contract=off (meson.build); clang is told
 * here as well */
#pragma STDC FP_CONTRACT OFF
#endif

enum {
    ROWS = 16, /* rows of the largest tile: sixteen sums in registers */
    COLS = 16, /* columns of a panel: one vector of 16 */
    KC = 512,  /* terms per block of K: a block of a's rows stays in L2 */
    TASKS_PER_THREAD = 8, /* tasks per thread: a thread slowed down by
                             another program takes fewer */
};

/* The terms [k0, k1) of one tile's sums: b's from the packed block bp
 * (k1 - k0 rows of COLS), a's from ap (the tile's R rows of a packed
 * along k: a[i0 + r][k] at ap[k * R + r]). */
typedef struct {
    const float *ap, *bp;
    size_t k0, k1;
} block;

/* c's rows i0 .. i0 + R - 1, columns j0 .. (the lanes of `in`), the
 * terms of block bk: each sum starts at 0 or its bias (k0 == 0) or at
 * what c holds (the sum of the terms before k0, exactly what a register
 * held), adds a[i][k] * b[k][j] for k = k0, k0 + 1, ..., k1 - 1, one
 * rounded product and one add per step, then the bias when it is not
 * first and this is the last block. R is a constant
 * where it is inlined (tile_1 .. tile_16), so the sums stay in registers,
 * and each a[i][k] is used by one multiply only, which reads it from
 * memory and broadcasts it itself (vmulps m32{1to16}): a broadcast of its
 * own would take a turn of the vector pipes that the products need. */
static inline __attribute__((always_inline, target("avx512f"))) void
tile(size_t R, const matmul_problem *p, block bk, size_t i0, size_t j0,
     __mmask16 in)
{
    const bool first = p->bias != NULL && p->bias_first;
    const __m512 bias = p->bias != NULL
                            ? _mm512_maskz_loadu_ps(in, p->bias + j0)
                            : _mm512_setzero_ps();
    __m512 acc[ROWS];
#pragma GCC unroll 16
    for (size_t r = 0; r < R; r++) {
        float *dst = p->c + (i0 + r) * p->ldc + j0;
        acc[r] = bk.k0 > 0 ? _mm512_maskz_loadu_ps(in, dst)
                 : first   ? bias
                           : _mm512_setzero_ps();
    }
    for (size_t k = bk.k0; k < bk.k1; k++) {
        const __m512 b = _mm512_load_ps(bk.bp + (k - bk.k0) * COLS);
        const float *ak = bk.ap + k * R;
#pragma GCC unroll 16
        for (size_t r = 0; r < R; r++)
            acc[r] =
                _mm512_add_ps(acc[r], _mm512_mul_ps(_mm512_set1_ps(ak[r]), b));
    }
#pragma GCC unroll 16
    for (size_t r = 0; r < R; r++) {
        if (p->bias != NULL && !first && bk.k1 == p->K)
            acc[r] = _mm512_add_ps(acc[r], bias);
        _mm512_mask_storeu_ps(p->c + (i0 + r) * p->ldc + j0, in, acc[r]);
    }
}

typedef void (*tile_fn)(const matmul_problem *p, block bk, size_t i0, size_t j0,
                        __mmask16 in);

#define TILE(R)                                                                \
    static __attribute__((target("avx512f"))) void tile_##R(                   \
        const matmul_problem *p, block bk, size_t i0, size_t j0, __mmask16 in) \
    {                                                                          \
        tile(R, p, bk, i0, j0, in);                                            \
    }
TILE(1)
TILE(2)
TILE(3)
TILE(4)
TILE(5)
TILE(6)
TILE(7)
TILE(8)
TILE(9)
TILE(10)
TILE(11)
TILE(12)
TILE(13)
TILE(14)
TILE(15)
TILE(16)
#undef TILE

/* The tile of R rows, R = 1 .. ROWS. */
static const tile_fn tiles[ROWS + 1] = {
    NULL,    tile_1,  tile_2,  tile_3,  tile_4,  tile_5,
    tile_6,  tile_7,  tile_8,  tile_9,  tile_10, tile_11,
    tile_12, tile_13, tile_14, tile_15, tile_16};

/* r[j] (16 rows of 16) = r[k] (16 columns): the block turned round, each
 * value moved, none changed. */
static inline __attribute__((always_inline, target("avx512f"))) void
transpose16(__m512 r[16])
{
    __m512 t[16];
    // pairs of rows interleaved, then fours, then the 128-bit lanes
    for (int i = 0; i < 8; i++) {
        t[2 * i] = _mm512_unpacklo_ps(r[2 * i], r[2 * i + 1]);
        t[2 * i + 1] = _mm512_unpackhi_ps(r[2 * i], r[2 * i + 1]);
    }
    for (int i = 0; i < 4; i++) {
        r[4 * i] = _mm512_shuffle_ps(t[4 * i], t[4 * i + 2], 0x44);
        r[4 * i + 1] = _mm512_shuffle_ps(t[4 * i], t[4 * i + 2], 0xee);
        r[4 * i + 2] = _mm512_shuffle_ps(t[4 * i + 1], t[4 * i + 3], 0x44);
        r[4 * i + 3] = _mm512_shuffle_ps(t[4 * i + 1], t[4 * i + 3], 0xee);
    }
    for (int i = 0; i < 2; i++)
        for (int m = 0; m < 4; m++) {
            t[8 * i + m] =
                _mm512_shuffle_f32x4(r[8 * i + m], r[8 * i + 4 + m], 0x88);
            t[8 * i + 4 + m] =
                _mm512_shuffle_f32x4(r[8 * i + m], r[8 * i + 4 + m], 0xdd);
        }
    for (int m = 0; m < 8; m++) {
        r[m] = _mm512_shuffle_f32x4(t[m], t[8 + m], 0x88);
        r[m + 8] = _mm512_shuffle_f32x4(t[m], t[8 + m], 0xdd);
    }
}

/* bp (k1 - k0, COLS) = rows [k0, k1) of columns [j0, j0 + cols) of b,
 * zero past them (the lanes of `in`). */
static __attribute__((target("avx512f"))) void
pack(float *bp, const matmul_problem *p, size_t k0, size_t k1, size_t j0,
     size_t cols, __mmask16 in)
{
    if (!p->b_transposed) {
        // b (K, N): row k's columns, one vector
        for (size_t k = k0; k < k1; k++)
            _mm512_store_ps(bp + (k - k0) * COLS,
                            _mm512_maskz_loadu_ps(in, p->b + k * p->ldb + j0));
        return;
    }
    // b^T (N, K): column j of b is row j, read along k, 16 k at a time so
    // that the 16 rows of bp being written stay in cache; a whole block of
    // 16 k by 16 j is turned round in registers
    for (size_t s = k0; s < k1; s += 16) {
        const size_t e = k1 - s < 16 ? k1 : s + 16;
        float *out = bp + (s - k0) * COLS;
        if (e - s == 16 && cols == COLS) {
            __m512 r[16];
            for (size_t j = 0; j < 16; j++)
                r[j] = _mm512_loadu_ps(p->b + (j0 + j) * p->ldb + s);
            transpose16(r);
            for (size_t k = 0; k < 16; k++)
                _mm512_store_ps(out + k * COLS, r[k]);
            continue;
        }
        for (size_t j = 0; j < COLS; j++) {
            const float *src = j < cols ? p->b + (j0 + j) * p->ldb : NULL;
            for (size_t k = s; k < e; k++)
                out[(k - s) * COLS + j] = src != NULL ? src[k] : 0.0f;
        }
    }
}

typedef struct {
    const matmul_problem *p;
    size_t panels, tasks, kc;
    float *ap;     /* a's rows packed: the tile at row i0 at ap + i0 * K */
    float *packed; /* task t's block of a panel at packed + t * kc * COLS */
} wide_job;

/* The tile of rows [i0, i0 + R) of a packed along k: ap[k * R + r] =
 * a[i0 + r][k], 16 k by 16 rows turned round in registers where the tile
 * is whole. */
static __attribute__((target("avx512f"))) void
pack_rows(float *ap, const matmul_problem *p, size_t i0, size_t R)
{
    const float *a = p->a + i0 * p->lda;
    size_t k0 = 0;
    if (R == 16)
        for (; k0 + 16 <= p->K; k0 += 16) {
            __m512 r[16];
            for (size_t i = 0; i < 16; i++)
                r[i] = _mm512_loadu_ps(a + i * p->lda + k0);
            transpose16(r);
            for (size_t k = 0; k < 16; k++)
                _mm512_store_ps(ap + (k0 + k) * 16, r[k]);
        }
    for (size_t k = k0; k < p->K; k++)
        for (size_t r = 0; r < R; r++)
            ap[k * R + r] = a[r * p->lda + k];
}

/* Task t: the tile of rows [t * ROWS, ..) of a, packed. */
static void rows_task(void *ctx, size_t t)
{
    const wide_job *jb = ctx;
    const matmul_problem *p = jb->p;
    const size_t i0 = t * ROWS, rows = p->M - i0 < ROWS ? p->M - i0 : ROWS;
    pack_rows(jb->ap + i0 * p->K, p, i0, rows);
}

/* The first n lanes of a vector of 16 (all of them for n >= 16). */
static __mmask16 first_lanes(size_t n)
{
    return (__mmask16)(n >= 16 ? 0xffffu : (1u << n) - 1u);
}

/* Task t: the panels of COLS columns [t * panels / tasks, (t + 1) *
 * panels / tasks), block of K by block (so that the block of a's rows is
 * read from L2 by every panel), each panel's block packed into the
 * task's own buffer, then every tile of its rows. */
static void panels_task(void *ctx, size_t t)
{
    const wide_job *jb = ctx;
    const matmul_problem *p = jb->p;
    float *bp = jb->packed + t * jb->kc * COLS;
    const size_t first = t * jb->panels / jb->tasks,
                 end = (t + 1) * jb->panels / jb->tasks;
    for (size_t k0 = 0; k0 < p->K; k0 += jb->kc) {
        block bk = {NULL, bp, k0, p->K - k0 < jb->kc ? p->K : k0 + jb->kc};
        for (size_t panel = first; panel < end; panel++) {
            const size_t j0 = panel * COLS;
            const size_t cols = p->N - j0 < COLS ? p->N - j0 : COLS;
            const __mmask16 in = first_lanes(cols);
            pack(bp, p, bk.k0, bk.k1, j0, cols, in);
            for (size_t i0 = 0; i0 < p->M; i0 += ROWS) {
                const size_t rows = p->M - i0 < ROWS ? p->M - i0 : ROWS;
                bk.ap = jb->ap + i0 * p->K;
                tiles[rows](p, bk, i0, j0, in);
            }
        }
    }
}

bool matmul_wide_run(const matmul_problem *p, workers *pool)
{
    if (!matmul_kernel_supported(MATMUL_AVX512) || p->shape != MATMUL_FULL)
        return false;
    const size_t panels = (p->N + COLS - 1) / COLS;
    const size_t want = workers_threads(pool) * TASKS_PER_THREAD;
    const size_t tasks = panels < want ? panels : want;
    const size_t kc = p->K < KC ? p->K : KC;
    void *mem = NULL;
    // a (M, K) is allocated already, so its size in floats fits
    const size_t apack = (p->M * p->K + 15) / 16 * 16;
    if (posix_memalign(&mem, 64, (apack + tasks * kc * COLS) * sizeof(float)) !=
        0)
        return false;
    wide_job jb = {p, panels, tasks, kc, mem, (float *)mem + apack};
    workers_run(pool, (p->M + ROWS - 1) / ROWS, (double)p->M * (double)p->K,
                rows_task, &jb);
    workers_run(pool, tasks, 2.0 * (double)p->M * (double)p->N * (double)p->K,
                panels_task, &jb);
    free(mem);
    return true;
}

#else

bool matmul_wide_run(const matmul_problem *p, workers *pool)
{
    (void)p;
    (void)pool;
    return false;
}

#endif
