/* matmul_wide.h: the AVX-512 kernel's product of a whole problem
 * (matmul_problem.h's MATMUL_FULL shape), each output summed in the same order:
 * 0 or its bias, then a[i][0] * b[0][j], a[i][1] * b[1][j], ... each
 * product rounded before its add, the bias added last when it is not
 * first.
 *
 * a's rows are packed first, sixteen at a time along k (one tile's a[i][k]
 * for a k side by side). A task then takes a run of panels of 16 columns
 * of c and, one block of 512 terms of K after another, packs each panel's
 * block of b (zero past column N) into a buffer of its own and walks the
 * rows of c, sixteen at a time (the last tile has the rows that are left,
 * not copies of the last one): each tile's 16 x 16 sums stay in sixteen
 * registers over the block, and each multiply reads its a[i][k] from
 * memory and broadcasts it itself, so the vector pipes do nothing but
 * the multiplies and the adds. Between blocks of K a sum rests in c as
 * the float32 its register held, so the blocks change no bit; the block
 * of a's rows stays in L2 while every panel of the task reads it.
 */
#ifndef MHA_MATMUL_WIDE_H
#define MHA_MATMUL_WIDE_H

#include <stdbool.h>

#include "numerics/matmul_problem.h"
#include "numerics/workers.h"

/* Computes p (its shape MATMUL_FULL) on a processor with AVX-512, sharing
 * panels out over pool; false, with nothing written, when this build or
 * processor has no AVX-512 or the packed panels cannot be allocated. */
bool matmul_wide_run(const matmul_problem *p, workers *pool);

#endif
