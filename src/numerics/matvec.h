/* matvec.h: one row times a matrix, the products of a generated token,
 * each output summed in PyTorch's order.
 *
 *   c (1, N) = a (1, K) @ b (K, N), plus bias (N) when given
 *
 * The problem is matmul_problem.h's with M = 1 and shape MATMUL_FULL, and every
 * c[j] is the same float32 sum: its bias or 0, then a[0] * b[0][j], a[1]
 * * b[1][j], ... added in index order, each product rounded before it
 * is added, the bias added last when it was not first. Many sums are
 * computed at once (one per lane of a vector); none is ever reordered
 * or split.
 *
 * A token's row reads every weight once and does one multiply-add per
 * weight: the time goes into reading b, so b is read where it lies (no
 * packed copy), in the order it lies in memory:
 *
 *   b (K, N)     GPT-2's Conv1D: row k of b adds a[k] * b[k][j] to the
 *                vector of sums j, four rows k at a time, each sum
 *                staying in a register for the four
 *   b^T (N, K)   nn.Linear's weight, lm_head's embedding: rows j are
 *                contiguous along k; four k of 8 or 16 rows are loaded
 *                and turned in registers (a 4 x 4 transpose in each 128
 *                bits) so that one vector holds those rows' terms at one
 *                k, added to their sums in order of k
 *
 * The outputs are shared out over the threads in slices of columns, each
 * slice written by one task.
 */
#ifndef MHA_MATVEC_H
#define MHA_MATVEC_H

#include "numerics/matmul_problem.h"
#include "numerics/workers.h"

/* Computes p (p->M must be 1) with kernel k (which must be supported),
 * its slices of columns shared out over pool (NULL: the caller alone). */
void matvec_run(const matmul_problem *p, matmul_kernel k, workers *pool);

/* The same sums, one slice of columns [j0, j1) of c, by the plain loops
 * of portable C the kernels are tested against (with matmul_run_naive). */
void matvec_run_plain(const matmul_problem *p, size_t j0, size_t j1);

#endif
