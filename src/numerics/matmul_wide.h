/* matmul_wide.h: the AVX-512 kernel's product of a whole problem
 * (matmul_problem.h's MATMUL_FULL shape), each output summed in the same order:
 * 0 or its bias, then a[i][0] * b[0][j], a[i][1] * b[1][j], ... each
 * product rounded before its add, the bias added last when it is not
 * first.
 *
 * A task takes one panel of 32 columns of c: it packs b's panel (K rows of
 * 32 floats, zero past column N) and then walks the rows of c, eight at a
 * time (the last tile has the rows that are left, not copies of the last
 * one), each tile's 8 x 32 sums kept in sixteen registers over the whole
 * of K and stored once into c (masked past column N). Nothing rests in
 * memory between blocks of K, so no tile is copied in and out, and a
 * product of few rows does no work for rows it does not have.
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
