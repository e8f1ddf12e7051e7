/* matmul_problem.h: a matrix product to compute (matmul_problem: c =
 * a @ b, plus a bias, of matmul.h's order of sums) and the kernels that
 * compute one on this processor. matmul.c, its AVX-512 product
 * (matmul_wide.c) and its one-row product (matvec.c) all take it. */
#ifndef MHA_MATMUL_PROBLEM_H
#define MHA_MATMUL_PROBLEM_H

#include <stdbool.h>
#include <stddef.h>

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

#endif
