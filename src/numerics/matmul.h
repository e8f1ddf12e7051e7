/* matmul.h: the matrix products of attention, blocked for speed, each
 * output summed in PyTorch's order.
 *
 *   c (M, N) = a (M, K) @ b (K, N), plus bias (N) when given
 *
 * Every c[i][j] is the float32 sum 0 + a[i][0] * b[0][j] + a[i][1] *
 * b[1][j] + ... taken in index order, each product rounded before it is
 * added (never a fused multiply-add), the bias added last: what BLAS sgemm
 * computes for PyTorch, and what linear_forward_naive writes out. Only
 * many sums are computed at once; none is ever reordered.
 *
 * b is packed into panels of NR columns (K rows of NR floats each) and a
 * into panels of MR rows; a kernel keeps an MR x NR tile of sums in
 * registers and adds one product to each per k. There are four kernels:
 * portable C, AVX2 and AVX-512, the best the processor has chosen when
 * the program runs, and WebAssembly's SIMD in a core built with it
 * (src/wasm/meson.build); AVX-512 computes a MATMUL_FULL problem with its sums
 * kept in registers over all of K (matmul_wide.h). Panels of columns are
 * shared out over the threads.
 * A single row of a (M = 1, a generated token's) reads b where it lies,
 * unpacked: packing would copy all of b for one row (matvec.h).
 */
#ifndef MHA_MATMUL_H
#define MHA_MATMUL_H

#include <stdbool.h>
#include <stddef.h>

#include "numerics/workers.h"

typedef enum {
    MATMUL_PORTABLE, /* plain C, any processor */
    MATMUL_AVX2,     /* 8 floats per instruction */
    MATMUL_AVX512,   /* 16 floats per instruction */
    MATMUL_SIMD128,  /* WebAssembly SIMD, 4 floats per instruction */
    MATMUL_KERNELS
} matmul_kernel;

/* Which cells are needed, and which terms can be left out. */
typedef enum {
    MATMUL_FULL,
    /* causal scores: cells with j > i are masked afterwards; tiles that
     * hold only such cells are not computed (their cells are left as they
     * were) */
    MATMUL_LOWER_C,
    /* causal context: a[i][k] is exactly 0 for k > i and b holds no
     * infinity or NaN, so those terms add exactly nothing (0 * finite is
     * +-0, and a sum that starts at +0 never becomes -0) and are left out */
    MATMUL_LOWER_A,
} matmul_shape;

typedef struct {
    size_t M, N, K;
    const float *a; /* (M, K), row i at a + i * lda */
    size_t lda;
    const float *b; /* (K, N), row k at b + k * ldb; or, when b_transposed,
                       b^T (N, K), row j at b + j * ldb (a weight stored
                       out x in, or keys) */
    size_t ldb;
    bool b_transposed;
    const float *bias; /* (N) or NULL */
    bool bias_first;   /* each sum starts at its bias instead of 0 and
                          the products are added to it in order: what
                          BLAS sgemm computes for torch.addmm(bias, a, b)
                          when neither a nor b is transposed (beta 1,
                          c filled with the bias first): GPT-2's Conv1D */
    float *c;          /* (M, N), row i at c + i * ldc */
    size_t ldc;
    matmul_shape shape;
} matmul_problem;

/* Whether this processor (and operating system) runs kernel k. */
bool matmul_kernel_supported(matmul_kernel k);

/* The fastest supported kernel. */
matmul_kernel matmul_kernel_best(void);

/* "portable", "avx2", "avx512", "simd128". */
const char *matmul_kernel_name(matmul_kernel k);

/* Computes p with kernel k (which must be supported), sharing panels out
 * over pool (NULL: the caller alone). When the packing buffers cannot be
 * allocated the same sums are computed by a plain loop. */
void matmul_run(const matmul_problem *p, matmul_kernel k, workers *pool);

/* The same sums written as plainly as possible: the reference the kernels
 * are tested against. Every cell is computed, whatever p->shape says. */
void matmul_run_naive(const matmul_problem *p);

#endif
