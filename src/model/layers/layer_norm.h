/* layer_norm.h: nn.LayerNorm(D) of every model's block, its forward pass
 * and beside it its backward pass:
 *
 *   forward   y (T, D) = (x - mean) / sqrt(var + eps) * weight + bias,
 *             over each row of x (T, D), as PyTorch's CPU kernel computes
 *             it (numerics/tensor.h's layer_norm_saving)
 *   backward  dx (T, D), dweight and dbias (D) from dy (T, D), the
 *             forward's x and each row's mean and rstd = 1 / sqrt(var +
 *             eps), which the forward keeps for it
 *
 * Shapes: T tokens, D the model's width.
 */
#ifndef MHA_LAYER_NORM_H
#define MHA_LAYER_NORM_H

#include "numerics/tensor.h"

/* nn.LayerNorm(D)'s parameters. */
typedef struct {
    const float *weight, *bias; /* (D) */
    float eps;
} layer_norm_params;

/* y (T, D) = the norm n over the rows of x (T, D); each row's mean and
 * rstd into mean and rstd (T each), or both NULL when no backward pass
 * will read them. */
void layer_norm_forward(matrix *y, float *mean, float *rstd, const matrix *x,
                        const layer_norm_params *n);

/* The backward pass, as PyTorch's CPU kernel computes it from the
 * forward's mean and rstd (T each) and weight (D): dx (T, D), and
 * dweight, dbias (D) summed over the rows in order. */
void layer_norm_backward(matrix *dx, float *dweight, float *dbias,
                         const matrix *dy, const matrix *x, const float *mean,
                         const float *rstd, const float *weight);

#endif
