/* layer_norm.c: nn.LayerNorm forward and backward (layer_norm.h).
 *
 * Shapes: T tokens, D the model's width.
 */
#include "model/layers/layer_norm.h"

#include <math.h>

void layer_norm_forward(matrix *y, float *mean, float *rstd, const matrix *x,
                        const layer_norm_params *n)
{
    layer_norm_saving(y, mean, rstd, x, n->weight, n->bias, n->eps);
}

void layer_norm_backward(matrix *dx, float *dweight, float *dbias,
                         const matrix *dy, const matrix *x, const float *mean,
                         const float *rstd, const float *weight)
{
    // dx, dy, x (T, D); dweight, dbias, weight (D); mean, rstd (T)
    const size_t T = x->rows, D = x->cols;
    const float scale = 1.0f / (float)D;
    for (size_t d = 0; d < D; d++)
        dweight[d] = dbias[d] = 0.0f;
    for (size_t t = 0; t < T; t++) {
        const float *g = matrix_at(dy, t, 0), *xr = matrix_at(x, t, 0);
        const float a = rstd[t], m = mean[t];
        // dweight += dy * (a * x - a * mean), dbias += dy, row by row
        const float shift = -a * m;
        for (size_t d = 0; d < D; d++) {
            dweight[d] = fmaf(g[d], fmaf(a, xr[d], shift), dweight[d]);
            dbias[d] += g[d];
        }
        // ds = sum(dy * x * weight), db = sum(dy * weight)
        const float ds = products_sum(g, xr, weight, D);
        const float db = products_sum(g, weight, NULL, D);
        const float b = fmaf(db, m, -ds) * a * a * a * scale;
        const float c = fmaf(-b, m, -(db * a * scale));
        float *out = matrix_at(dx, t, 0);
        for (size_t d = 0; d < D; d++)
            out[d] = fmaf(b, xr[d], a * g[d] * weight[d]) + c;
    }
    // the second pass adds each (one thread's) buffer to 0
    for (size_t d = 0; d < D; d++) {
        dweight[d] = 0.0f + dweight[d];
        dbias[d] = 0.0f + dbias[d];
    }
}
