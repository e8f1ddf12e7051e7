/* dense.h: the affine layer of every model, in the two orders PyTorch
 * computes it in (docs/exactness.md):
 *
 *   nn.Linear (the lessons)  y (T, out) = x (T, in) @ W^T + b, W stored
 *                            (out, in); each sum over the inputs, then
 *                            the bias added
 *   Conv1D (GPT-2)           y (T, out) = torch.addmm(b, x, W), W stored
 *                            (in, out); each sum starts at its bias
 *
 * A layer's parameters stay where their owner keeps them (a module's
 * linear, a checkpoint's mapped tensors); a dense only points at them.
 */
#ifndef MHA_DENSE_H
#define MHA_DENSE_H

#include <stdbool.h>
#include <stddef.h>

#include "model/linear.h"
#include "numerics/tensor.h"
#include "numerics/workers.h"

typedef struct {
    const float *weight; /* (out, in) for nn.Linear, (in, out) for Conv1D */
    const float *bias;   /* (out), or NULL */
    size_t in, out;
    bool conv1d; /* Conv1D's layout and order, else nn.Linear's */
} dense;

/* An nn.Linear's parameters as a dense. */
dense dense_of_linear(const linear *l);

/* y (T, out) = the layer over x (T, in). */
void dense_forward(matrix *y, const matrix *x, const dense *l, workers *pool);

/* y (T, out) = the nn.Linear l over x (T, in). */
void linear_layer_forward(matrix *y, const matrix *x, const linear *l,
                          workers *pool);

/* An attention's three projections, in this order: q (T, width) =
 * W_query(x), k and v (S, width) = W_key(kv), W_value(kv). */
void qkv_forward(matrix *q, matrix *k, matrix *v, const qkv *p, const matrix *x,
                 const matrix *kv, workers *pool);

#endif
