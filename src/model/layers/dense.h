/* dense.h: the affine layer of every model, its forward pass and beside
 * it its backward pass (dense_backward.c), in the two orders PyTorch
 * computes the forward in (docs/exactness.md):
 *
 *   nn.Linear (the lessons)  y (T, out) = x (T, in) @ W^T + b, W stored
 *                            (out, in); each sum over the inputs, then
 *                            the bias added
 *   Conv1D (GPT-2)           y (T, out) = torch.addmm(b, x, W), W stored
 *                            (in, out); each sum starts at its bias
 *
 * A layer's parameters stay where their owner keeps them (a module's
 * linear, a checkpoint's mapped tensors); a dense only points at them.
 * The backward pass is nn.Linear's (training runs the lessons' modules).
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

/* A checkpoint's nn.Linear as a dense: weight (out, in), bias (out) or
 * NULL, where the checkpoint keeps them. */
dense dense_linear(const float *weight, const float *bias, size_t in,
                   size_t out);

/* y (T, out) = the layer over x (T, in). */
void dense_forward(matrix *y, const matrix *x, const dense *l, workers *pool);

/* y (T, out) = the nn.Linear l over x (T, in). */
void linear_layer_forward(matrix *y, const matrix *x, const linear *l,
                          workers *pool);

/* An attention's three projections, in this order: q (T, width) =
 * W_query(x), k and v (S, width) = W_key(kv), W_value(kv). */
void qkv_forward(matrix *q, matrix *k, matrix *v, const qkv *p, const matrix *x,
                 const matrix *kv, workers *pool);

/* ---- backward ---------------------------------------------------------- */

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

/* linear_backward of the nn.Linear l (linear_layer_forward's): its
 * gradients into g (a linear of the same shapes; its bias's when l has
 * one), dx (T, D) from dy (T, O) and the forward's x (T, D); dyt (O, T)
 * working room. */
void linear_layer_backward(matrix *dx, linear *g, const linear *l, matrix *dyt,
                           const matrix *dy, const matrix *x,
                           bool dy_by_columns, workers *pool);

/* The order in which the module class's forward computes its three
 * projections (--qkv-order). The forward tables do not depend on it; the
 * gradient of their input x does: autograd adds the three parts in the
 * order it runs their backward nodes, the ready node made last first, so
 * W_value's part, then the later of the other two's, then the earlier's:
 *   QKV_ORDER_KQV  keys, queries, values (the book's classes):
 *                  dx = (dV + dQ) + dK
 *   QKV_ORDER_QKV  queries, keys, values: dx = (dV + dK) + dQ */
enum qkv_order { QKV_ORDER_KQV, QKV_ORDER_QKV };

/* qkv_forward's backward (with x the queries' and the keys' input): the
 * three projections' gradients into g from dq, dk, dv (T, width), and dx
 * (T, D) the sum of their three parts in `order`'s order, the first
 * replacing what dx held when dx_first. by_columns[j] (0 query, 1 key,
 * 2 value): that projection's gradient is laid out by columns (see
 * linear_backward). part (T, D) and dyt (width, T) are working room. */
void qkv_backward(matrix *dx, bool dx_first, qkv *g, const qkv *p,
                  const matrix *dq, const matrix *dk, const matrix *dv,
                  enum qkv_order order, const bool by_columns[3], matrix *part,
                  matrix *dyt, const matrix *x, workers *pool);

#endif
