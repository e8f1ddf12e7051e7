/* backward.c: the layers' backward passes (backward.h). Every matrix
 * product is one float32 sum per cell in index order, each product
 * rounded before it is added: what BLAS sgemm computes for mm's backward
 * (grad.mm(w), x.t().mm(grad)) and bmm's in every transpose case. */
#include "model/backward.h"

#include <math.h>
#include <string.h>

#include "numerics/matmul.h"
#include "numerics/vecmath.h"

/* The sums of cascade_sum's row_sum: n elements, each `width` floats
 * (a vector of 8, or 1), read as (n / 4, 4): four running sums, carried
 * up a level every 16 rows; the elements past the last whole row added
 * to the first; then the four folded in order. out has width floats. */
static void row_sum(float *out, const float *x, size_t n, size_t width)
{
    enum { LEVELS = 4, POWER = 4, STEP = 1 << POWER, ILP = 4, LANES = 8 };
    float acc[LEVELS][ILP][LANES] = {{{0}}};
    const size_t rows = n / ILP;
    size_t i = 0;
    while (i + STEP <= rows) {
        for (size_t j = 0; j < STEP; j++, i++)
            for (size_t k = 0; k < ILP; k++)
                for (size_t l = 0; l < width; l++)
                    acc[0][k][l] += x[(i * ILP + k) * width + l];
        for (size_t j = 1; j < LEVELS; j++) {
            for (size_t k = 0; k < ILP; k++)
                for (size_t l = 0; l < width; l++) {
                    acc[j][k][l] += acc[j - 1][k][l];
                    acc[j - 1][k][l] = 0.0f;
                }
            if ((i & ((size_t)(STEP - 1) << (j * POWER))) != 0)
                break;
        }
    }
    for (; i < rows; i++)
        for (size_t k = 0; k < ILP; k++)
            for (size_t l = 0; l < width; l++)
                acc[0][k][l] += x[(i * ILP + k) * width + l];
    for (size_t j = 1; j < LEVELS; j++)
        for (size_t k = 0; k < ILP; k++)
            for (size_t l = 0; l < width; l++)
                acc[0][k][l] += acc[j][k][l];
    for (size_t e = rows * ILP; e < n; e++)
        for (size_t l = 0; l < width; l++)
            acc[0][0][l] += x[e * width + l];
    for (size_t k = 1; k < ILP; k++)
        for (size_t l = 0; l < width; l++)
            acc[0][0][l] += acc[0][k][l];
    for (size_t l = 0; l < width; l++)
        out[l] = acc[0][0][l];
}

/* The sum of x[0..n), contiguous, as cascade_sum reduces a contiguous
 * dimension: from 8 values, vectors of 8 (vectorized_inner_sum: row_sum
 * over the whole vectors, then 0 + the values past them + each lane in
 * order); under 8, scalar_inner_sum (row_sum of the values). */
static float inner_sum(const float *x, size_t n)
{
    enum { LANES = 8 };
    float lanes[LANES];
    if (n < LANES) {
        row_sum(lanes, x, n, 1);
        return 0.0f + lanes[0];
    }
    const size_t whole = n / LANES;
    row_sum(lanes, x, whole, LANES);
    float sum = 0.0f;
    for (size_t k = whole * LANES; k < n; k++)
        sum += x[k];
    for (size_t l = 0; l < LANES; l++)
        sum += lanes[l];
    return 0.0f + sum;
}

void linear_backward(matrix *dx, matrix *dw, float *db, matrix *dyt,
                     const float **rows, const matrix *dy, const matrix *x,
                     const matrix *w, bool dy_by_columns, workers *pool)
{
    // dw (O, D) = dy^T (O, T) @ x (T, D)
    transpose(dyt, dy);
    matmul_full(dw, dyt, x, pool);
    // db (O) = the sum of dy (T, O) over the tokens (cascade_sum): along
    // each column of dy^T when autograd holds dy by columns, and when dy
    // has one column (its tokens are then one contiguous run)
    if (db != NULL && (dy_by_columns || dy->cols == 1)) {
        for (size_t o = 0; o < dy->cols; o++)
            db[o] = inner_sum(matrix_at(dyt, o, 0), dy->rows);
    } else if (db != NULL && rows != NULL) {
        for (size_t t = 0; t < dy->rows; t++)
            rows[t] = matrix_at(dy, t, 0);
        sum_rows(db, rows, dy->rows, dy->cols);
    }
    // dx (T, D) = dy (T, O) @ w (O, D)
    if (dx != NULL)
        matmul_full(dx, dy, w, pool);
}

/* sum_i a[i] * b[i] * c[i] (or a[i] * b[i] with c NULL) as
 * vec::map3_reduce_all (map2_reduce_all) adds it: under 8 values the
 * products left to right, else 8 lanes each starting at a product and
 * adding the next of its lane with a fused multiply-add, folded in
 * halves. The product is (a * b) * c, rounded at each step but the
 * last of a lane's fused ones. */
static float products_sum(const float *a, const float *b, const float *c,
                          size_t n)
{
    float lane[8];
    if (n < 8) {
        float sum = 0.0f;
        for (size_t i = 0; i < n; i++) {
            const float p = c != NULL ? a[i] * b[i] * c[i] : a[i] * b[i];
            sum = i == 0 ? p : sum + p;
        }
        return sum;
    }
    for (size_t l = 0; l < 8; l++)
        lane[l] = c != NULL ? a[l] * b[l] * c[l] : a[l] * b[l];
    for (size_t i = 8; i < n; i++)
        lane[i % 8] = c != NULL ? fmaf(a[i] * b[i], c[i], lane[i % 8])
                                : fmaf(a[i], b[i], lane[i % 8]);
    return fold_lanes8(lane);
}

void softmax_backward(matrix *dscores, const matrix *dweights,
                      const matrix *weights)
{
    // dscores, dweights, weights (T, S)
    const size_t S = weights->cols;
    for (size_t t = 0; t < weights->rows; t++) {
        const float *dp = matrix_at(dweights, t, 0);
        const float *p = matrix_at(weights, t, 0);
        float *ds = matrix_at(dscores, t, 0);
        const float sum = products_sum(dp, p, NULL, S);
        for (size_t s = 0; s < S; s++)
            ds[s] = (dp[s] - sum) * p[s];
    }
}

void layer_norm_backward(matrix *dx, float *dgamma, float *dbeta,
                         const matrix *dy, const matrix *x, const float *mean,
                         const float *rstd, const float *gamma)
{
    // dx, dy, x (T, D); dgamma, dbeta, gamma (D); mean, rstd (T)
    const size_t T = x->rows, D = x->cols;
    const float scale = 1.0f / (float)D;
    for (size_t d = 0; d < D; d++)
        dgamma[d] = dbeta[d] = 0.0f;
    for (size_t t = 0; t < T; t++) {
        const float *g = matrix_at(dy, t, 0), *xr = matrix_at(x, t, 0);
        const float a = rstd[t], m = mean[t];
        // dgamma += dy * (a * x - a * mean), dbeta += dy, row by row
        const float shift = -a * m;
        for (size_t d = 0; d < D; d++) {
            dgamma[d] = fmaf(g[d], fmaf(a, xr[d], shift), dgamma[d]);
            dbeta[d] += g[d];
        }
        // ds = sum(dy * x * gamma), db = sum(dy * gamma)
        const float ds = products_sum(g, xr, gamma, D);
        const float db = products_sum(g, gamma, NULL, D);
        const float b = fmaf(db, m, -ds) * a * a * a * scale;
        const float c = fmaf(-b, m, -(db * a * scale));
        float *out = matrix_at(dx, t, 0);
        for (size_t d = 0; d < D; d++)
            out[d] = fmaf(b, xr[d], a * g[d] * gamma[d]) + c;
    }
    // the second pass adds each (one thread's) buffer to 0
    for (size_t d = 0; d < D; d++) {
        dgamma[d] = 0.0f + dgamma[d];
        dbeta[d] = 0.0f + dbeta[d];
    }
}
