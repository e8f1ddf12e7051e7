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
    ROWS = 8,  /* rows of a tile */
    COLS = 32, /* columns of a tile: two vectors of 16 */
};

/* The columns of a panel that hold c's columns: the first (m0) and the
 * second (m1) vector's lanes. */
typedef struct {
    __mmask16 m0, m1;
} lanes;

/* c's rows i0 .. i0 + R - 1, columns j0 .. (as `in` says), from the packed
 * panel bp (K x COLS): each sum starts at 0 or its bias and adds a[i][k] *
 * bp[k][j] for k = 0, 1, ..., K - 1, one rounded product and one add per
 * step, then the bias when it is not first. R is a constant where it is
 * inlined (tile_1 .. tile_8), so the sums stay in registers. */
static inline __attribute__((always_inline, target("avx512f"))) void
tile(size_t R, const matmul_problem *p, const float *bp, size_t i0, size_t j0,
     lanes in)
{
    const bool first = p->bias != NULL && p->bias_first;
    __m512 bias0 = _mm512_setzero_ps(), bias1 = _mm512_setzero_ps();
    if (p->bias != NULL) {
        bias0 = _mm512_maskz_loadu_ps(in.m0, p->bias + j0);
        if (in.m1 != 0)
            bias1 = _mm512_maskz_loadu_ps(in.m1, p->bias + j0 + 16);
    }
    __m512 acc[ROWS][2];
    const float *arow[ROWS];
    for (size_t r = 0; r < R; r++) {
        acc[r][0] = first ? bias0 : _mm512_setzero_ps();
        acc[r][1] = first ? bias1 : _mm512_setzero_ps();
        arow[r] = p->a + (i0 + r) * p->lda;
    }
    for (size_t k = 0; k < p->K; k++) {
        const __m512 b0 = _mm512_load_ps(bp + k * COLS);
        const __m512 b1 = _mm512_load_ps(bp + k * COLS + 16);
        for (size_t r = 0; r < R; r++) {
            const __m512 a = _mm512_set1_ps(arow[r][k]);
            acc[r][0] = _mm512_add_ps(acc[r][0], _mm512_mul_ps(a, b0));
            acc[r][1] = _mm512_add_ps(acc[r][1], _mm512_mul_ps(a, b1));
        }
    }
    for (size_t r = 0; r < R; r++) {
        if (p->bias != NULL && !first) {
            acc[r][0] = _mm512_add_ps(acc[r][0], bias0);
            acc[r][1] = _mm512_add_ps(acc[r][1], bias1);
        }
        float *dst = p->c + (i0 + r) * p->ldc + j0;
        _mm512_mask_storeu_ps(dst, in.m0, acc[r][0]);
        if (in.m1 != 0)
            _mm512_mask_storeu_ps(dst + 16, in.m1, acc[r][1]);
    }
}

typedef void (*tile_fn)(const matmul_problem *p, const float *bp, size_t i0,
                        size_t j0, lanes in);

#define TILE(R)                                                         \
    static __attribute__((target("avx512f"))) void tile_##R(            \
        const matmul_problem *p, const float *bp, size_t i0, size_t j0, \
        lanes in)                                                       \
    {                                                                   \
        tile(R, p, bp, i0, j0, in);                                     \
    }
TILE(1)
TILE(2)
TILE(3)
TILE(4)
TILE(5)
TILE(6)
TILE(7)
TILE(8)
#undef TILE

/* The tile of R rows, R = 1 .. ROWS. */
static const tile_fn tiles[ROWS + 1] = {NULL,   tile_1, tile_2, tile_3, tile_4,
                                        tile_5, tile_6, tile_7, tile_8};

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

/* bp (K, COLS) = columns [j0, j0 + COLS) of b, zero past column N. */
static __attribute__((target("avx512f"))) void
pack(float *bp, const matmul_problem *p, size_t j0, size_t cols, lanes in)
{
    if (!p->b_transposed) {
        // b (K, N): row k's columns, two vectors at a time
        for (size_t k = 0; k < p->K; k++) {
            const float *src = p->b + k * p->ldb + j0;
            _mm512_store_ps(bp + k * COLS, _mm512_maskz_loadu_ps(in.m0, src));
            _mm512_store_ps(bp + k * COLS + 16,
                            in.m1 != 0 ? _mm512_maskz_loadu_ps(in.m1, src + 16)
                                       : _mm512_setzero_ps());
        }
        return;
    }
    // b^T (N, K): column j of b is row j, read along k, 16 k at a time so
    // that the 16 rows of bp being written stay in cache; a whole block of
    // 16 k by 16 j is turned round in registers
    for (size_t k0 = 0; k0 < p->K; k0 += 16) {
        const size_t k1 = p->K - k0 < 16 ? p->K : k0 + 16;
        if (k1 - k0 == 16 && cols == COLS) {
            for (size_t half = 0; half < COLS; half += 16) {
                __m512 r[16];
                for (size_t j = 0; j < 16; j++)
                    r[j] =
                        _mm512_loadu_ps(p->b + (j0 + half + j) * p->ldb + k0);
                transpose16(r);
                for (size_t k = 0; k < 16; k++)
                    _mm512_store_ps(bp + (k0 + k) * COLS + half, r[k]);
            }
            continue;
        }
        for (size_t j = 0; j < COLS; j++) {
            const float *src = j < cols ? p->b + (j0 + j) * p->ldb : NULL;
            for (size_t k = k0; k < k1; k++)
                bp[k * COLS + j] = src != NULL ? src[k] : 0.0f;
        }
    }
}

typedef struct {
    const matmul_problem *p;
    float *packed; /* panel j at packed + j * K * COLS */
} wide_job;

/* The first n lanes of a vector of 16 (all of them for n >= 16). */
static __mmask16 first_lanes(size_t n)
{
    return (__mmask16)(n >= 16 ? 0xffffu : (1u << n) - 1u);
}

/* One panel of COLS columns: packed, then every tile of its rows. */
static void panel_task(void *ctx, size_t panel)
{
    const wide_job *jb = ctx;
    const matmul_problem *p = jb->p;
    const size_t j0 = panel * COLS;
    const size_t cols = p->N - j0 < COLS ? p->N - j0 : COLS;
    // the second vector's columns (cppcheck reads cols as below 1; it is
    // 1 to COLS)
    // cppcheck-suppress knownConditionTrueFalse
    const size_t second = cols > 16 ? cols - 16 : 0;
    const lanes in = {first_lanes(cols), first_lanes(second)};
    float *bp = jb->packed + panel * p->K * COLS;
    pack(bp, p, j0, cols, in);
    for (size_t i0 = 0; i0 < p->M; i0 += ROWS) {
        const size_t rows = p->M - i0 < ROWS ? p->M - i0 : ROWS;
        tiles[rows](p, bp, i0, j0, in);
    }
}

bool matmul_wide_run(const matmul_problem *p, workers *pool)
{
    if (!matmul_kernel_supported(MATMUL_AVX512) || p->shape != MATMUL_FULL)
        return false;
    const size_t panels = (p->N + COLS - 1) / COLS;
    if (p->K > SIZE_MAX / sizeof(float) / COLS / panels)
        return false;
    void *mem = NULL;
    if (posix_memalign(&mem, 64, panels * p->K * COLS * sizeof(float)) != 0)
        return false;
    wide_job jb = {p, mem};
    workers_run(pool, panels, 2.0 * (double)p->M * (double)p->N * (double)p->K,
                panel_task, &jb);
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
