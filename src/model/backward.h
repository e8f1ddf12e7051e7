/* backward.h: the backward passes of the layers training goes through
 * (--train, --grad), each the derivative of the forward pass the program
 * computes, summed in PyTorch's order (docs/exactness.md, "Training").
 *
 * Shapes: T tokens, D the layer's input width, O its output width, S
 * keys, hd a head's width.
 */
#ifndef MHA_BACKWARD_H
#define MHA_BACKWARD_H

#include <stdbool.h>

#include "base/error.h"
#include "numerics/tensor.h"
#include "numerics/workers.h"

/* nn.Linear's backward, y (T, O) = x (T, D) @ w (O, D)^T (+ b):
 *   dw (O, D) = dy^T @ x          (summed over the tokens in order)
 *   db (O)    = dy.sum(dim=0)     (NULL when the layer has no bias)
 *   dx (T, D) = dy @ w            (NULL when not needed)
 * The sum that makes db depends on how autograd lays dy out in memory:
 * dy_by_columns when dy is the transpose of a contiguous (O, T) tensor
 * (the keys' gradient, which comes through k^T's), by rows otherwise;
 * a dy of one column is one contiguous run either way, summed as
 * such. dyt (O, T) and rows (T pointers; NULL without a bias) are
 * working room. */
void linear_backward(matrix *dx, matrix *dw, float *db, matrix *dyt,
                     const float **rows, const matrix *dy, const matrix *x,
                     const matrix *w, bool dy_by_columns, workers *pool);

/* softmax's backward over each row: dscores (T, S) = weights * (dweights
 * - rowsum(dweights * weights)), the row sum in the order of
 * vec::map2_reduce_all. */
void softmax_backward(matrix *dscores, const matrix *dweights,
                      const matrix *weights);

/* nn.LayerNorm's backward over the rows of x (T, D), as PyTorch's CPU
 * kernel computes it from the forward's mean and rstd (T each) and
 * gamma (D): dx (T, D), and dgamma, dbeta (D) summed over the rows in
 * order. */
void layer_norm_backward(matrix *dx, float *dgamma, float *dbeta,
                         const matrix *dy, const matrix *x, const float *mean,
                         const float *rstd, const float *gamma);

#endif
