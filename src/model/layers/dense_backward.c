/* dense_backward.c: the affine layer's backward pass beside its forward
 * (dense.h): nn.Linear's gradients, and an attention's three projections'
 * with their input's gradient added in autograd's order. Every matrix
 * product is one float32 sum per cell in index order, each product
 * rounded before it is added: what BLAS sgemm computes for mm's backward
 * (grad.mm(w), x.t().mm(grad)) and bmm's in every transpose case.
 *
 * Shapes: T tokens, D the layer's input width, O its output width.
 */
#include "model/layers/dense.h"

#include <string.h>

#include "model/tokenize.h"
#include "numerics/matmul.h"

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

void linear_layer_backward(matrix *dx, linear *g, const linear *l, matrix *dyt,
                           const matrix *dy, const matrix *x,
                           bool dy_by_columns, workers *pool)
{
    enum { MAX_ROWS = MAX_TOKENS };
    const float *rows[MAX_ROWS];
    linear_backward(dx, &g->weight, g->bias.v, dyt,
                    dy->rows <= MAX_ROWS ? rows : NULL, dy, x, &l->weight,
                    dy_by_columns, pool);
}

void qkv_backward(matrix *dx, bool dx_first, qkv *g, const qkv *p,
                  const matrix *dq, const matrix *dk, const matrix *dv,
                  enum qkv_order order, const bool by_columns[3], matrix *part,
                  matrix *dyt, const matrix *x, workers *pool)
{
    // the value's node is made last and runs first; then the later made
    // of the other two
    static const int value_query_key[3] = {2, 0, 1};
    static const int value_key_query[3] = {2, 1, 0};
    const int *run = order == QKV_ORDER_QKV ? value_key_query : value_query_key;
    linear *gl[3] = {&g->query, &g->key, &g->value};
    const linear *pl[3] = {&p->query, &p->key, &p->value};
    const matrix *dy[3] = {dq, dk, dv};
    for (size_t i = 0; i < 3; i++) {
        const int j = run[i];
        linear_layer_backward(part, gl[j], pl[j], dyt, dy[j], x, by_columns[j],
                              pool);
        // dx += part, element by element (the first replacing it)
        if (dx_first && i == 0)
            memcpy(dx->v, part->v, dx->rows * dx->cols * sizeof(float));
        else
            for (size_t e = 0; e < dx->rows * dx->cols; e++)
                dx->v[e] += part->v[e];
    }
}
