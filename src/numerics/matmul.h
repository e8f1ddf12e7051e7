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

#include "numerics/matmul_problem.h"
#include "numerics/workers.h"

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
