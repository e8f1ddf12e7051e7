/* mlp_backward.c: the feed-forward network's backward pass beside its
 * forward (mlp.h), in the order PyTorch's autograd runs it: proj, the
 * ReLU, fc.
 *
 * Shapes: T tokens, D the model's width, F the network's.
 */
#include "model/layers/mlp.h"

void grad_point(const grad_points *gp, table_id id, const matrix *g)
{
    if (gp != NULL && gp->fn != NULL)
        gp->fn(gp->ctx, id, g);
}

void mlp_backward(matrix *dx, matrix *dhidden, const mlp_linears *l,
                  matrix *dyt_d, matrix *dyt_f, const matrix *dout,
                  const matrix *x, const matrix *hidden, const grad_points *gp,
                  workers *pool)
{
    // ffn_out (T, D) = ffn_hidden @ proj^T + b: dhidden (T, F)
    grad_point(gp, TABLE_FFN_OUT, dout);
    linear_layer_backward(dhidden, l->dproj, l->proj, dyt_d, dout, hidden,
                          false, pool);
    grad_point(gp, TABLE_FFN_HIDDEN, dhidden);
    // ffn_hidden = ReLU(h): no gradient where its output is not above 0
    const size_t n = hidden->rows * hidden->cols;
    for (size_t i = 0; i < n; i++)
        if (hidden->v[i] <= 0.0f)
            dhidden->v[i] = 0.0f;
    // h (T, F) = x @ fc^T + b: dx (T, D)
    linear_layer_backward(dx, l->dfc, l->fc, dyt_f, dhidden, x, false, pool);
}
