/* tensor.c: the arithmetic of attention, written plainly: matrices, the
 * products (nn.Linear, the scores Q K^T with or without the causal mask,
 * the context), one head's columns taken and put back, ReLU and the
 * residual's sum. tensor.h declares these and the rest of the arithmetic:
 * softmax (softmax.c), the sums in PyTorch's order (sums.c) and LayerNorm
 * (layer_norm.c). */
#include "numerics/tensor.h"

#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/i18n.h"
#include "numerics/matmul.h"
#include "numerics/target_clones.h"
#include "numerics/vecmath.h"

size_t size_mul(size_t a, size_t b, int *overflow)
{
    if (a != 0 && b > SIZE_MAX / a) {
        *overflow = 1;
        return 0;
    }
    return a * b;
}

int matrix_alloc(matrix *m, size_t rows, size_t cols, const char *what,
                 mx_error *err)
{
    int overflow = 0;
    size_t n = size_mul(rows, cols, &overflow);
    m->rows = rows;
    m->cols = cols;
    m->v = NULL;
    if (overflow)
        return err_input(err, _("%s is too large (%zu x %zu)"), _(what), rows,
                         cols);
    m->v = calloc(n > 0 ? n : 1, sizeof *m->v);
    if (m->v == NULL)
        return err_nomem(err, _(what));
    return 0;
}

void matrix_free(matrix *m)
{
    if (m == NULL)
        return;
    free(m->v);
    m->v = NULL;
    m->rows = m->cols = 0;
}

/* Dot products follow PyTorch's CPU matmul (BLAS sgemm): float32
 * products added one after another in float32, from the first index to the
 * last, then the bias added last.
 *
 * Each function comes twice: a naive version that reads like the formula,
 * and the one the program uses, which hands the product to matmul.c: the
 * same sums in the same order, many at once in vector registers.
 * tests/unit/test_attention.c and tests/unit/test_matmul.c check that they
 * agree bit for bit. */

void linear_forward_naive(matrix *out, const matrix *x, const matrix *w,
                          const float *bias)
{
    // out is (T, O), x is (T, D), w is (O, D), bias is (O) or NULL
    for (size_t t = 0; t < x->rows; t++) {
        for (size_t o = 0; o < w->rows; o++) {
            float sum = 0.0f;
            for (size_t d = 0; d < x->cols; d++)
                sum += *matrix_at(x, t, d) * *matrix_at(w, o, d);
            if (bias != NULL)
                sum += bias[o];
            *matrix_at(out, t, o) = sum;
        }
    }
}

void matmul_naive(matrix *out, const matrix *a, const matrix *b)
{
    // out is (T, d), a is (T, S), b is (S, d)
    for (size_t t = 0; t < a->rows; t++) {
        for (size_t j = 0; j < b->cols; j++) {
            float sum = 0.0f;
            for (size_t s = 0; s < a->cols; s++)
                sum += *matrix_at(a, t, s) * *matrix_at(b, s, j);
            *matrix_at(out, t, j) = sum;
        }
    }
}

void linear_forward(matrix *out, const matrix *x, const matrix *w,
                    const float *bias, workers *pool)
{
    // out (T, O) = x (T, D) @ w (O, D)^T + bias: w is b^T, packed by
    // matmul_run into panels once, at the one product that uses it
    const matmul_problem p = {
        .M = x->rows,
        .N = w->rows,
        .K = x->cols,
        .a = x->v,
        .lda = x->cols,
        .b = w->v,
        .ldb = w->cols,
        .b_transposed = true,
        .bias = bias,
        .c = out->v,
        .ldc = out->cols,
        .shape = MATMUL_FULL,
    };
    matmul_run(&p, matmul_kernel_best(), pool);
}

void matmul_transposed(matrix *out, const matrix *a, const matrix *b,
                       workers *pool)
{
    // out is (T, S), a is (T, d), b is (S, d)
    linear_forward(out, a, b, NULL, pool);
}

void causal_scores(matrix *out, const matrix *a, const matrix *b, workers *pool)
{
    // out (T, S) = a (T, d) @ b (S, d)^T, cells s > t -inf
    const matmul_problem p = {
        .M = a->rows,
        .N = b->rows,
        .K = a->cols,
        .a = a->v,
        .lda = a->cols,
        .b = b->v,
        .ldb = b->cols,
        .b_transposed = true,
        .bias = NULL,
        .c = out->v,
        .ldc = out->cols,
        .shape = MATMUL_LOWER_C,
    };
    matmul_run(&p, matmul_kernel_best(), pool);
    causal_mask(out);
}

/* Whether every cell of a above the diagonal is exactly 0 (+0 or -0);
 * a row at a time, each row's cells tested without branches. */
TENSOR_HOT static bool zero_above_diagonal(const matrix *a)
{
    for (size_t t = 0; t < a->rows; t++) {
        const float *row = matrix_at(a, t, 0);
        int nonzero = 0;
        for (size_t s = t + 1; s < a->cols; s++)
            nonzero |= row[s] != 0.0f;
        if (nonzero)
            return false;
    }
    return true;
}

static bool all_finite(const matrix *m)
{
    int finite = 1;
    for (size_t i = 0; i < m->rows * m->cols; i++)
        finite &= isfinite(m->v[i]) != 0;
    return finite;
}

/* out (M, N) = a (M, K) @ b (K, N), of the given shape (matmul.h). */
static void product(matrix *out, const matrix *a, const matrix *b,
                    matmul_shape shape, workers *pool)
{
    const matmul_problem p = {
        .M = a->rows,
        .N = b->cols,
        .K = a->cols,
        .a = a->v,
        .lda = a->cols,
        .b = b->v,
        .ldb = b->cols,
        .b_transposed = false,
        .bias = NULL,
        .c = out->v,
        .ldc = out->cols,
        .shape = shape,
    };
    matmul_run(&p, matmul_kernel_best(), pool);
}

void matmul(matrix *out, const matrix *a, const matrix *b, workers *pool)
{
    // out (T, d) = a (T, S) @ b (S, d)
    const bool lower = zero_above_diagonal(a) && all_finite(b);
    product(out, a, b, lower ? MATMUL_LOWER_A : MATMUL_FULL, pool);
}

void matmul_full(matrix *c, const matrix *a, const matrix *b, workers *pool)
{
    product(c, a, b, MATMUL_FULL, pool);
}

void transpose(matrix *out, const matrix *in)
{
    for (size_t r = 0; r < in->rows; r++)
        for (size_t c = 0; c < in->cols; c++)
            *matrix_at(out, c, r) = *matrix_at(in, r, c);
}

void causal_mask(matrix *scores)
{
    // scores is (T, S); query t may look at keys 0..t only
    for (size_t t = 0; t < scores->rows; t++)
        for (size_t s = t + 1; s < scores->cols; s++)
            *matrix_at(scores, t, s) = -INFINITY;
}

void take_columns(matrix *out, const matrix *in, size_t first)
{
    // out is (T, hd), in is (T, O)
    for (size_t t = 0; t < in->rows; t++)
        memcpy(matrix_at(out, t, 0), matrix_at(in, t, first),
               out->cols * sizeof(float));
}

void put_columns(matrix *out, const matrix *in, size_t first)
{
    // out is (T, O), in is (T, hd)
    for (size_t t = 0; t < in->rows; t++)
        memcpy(matrix_at(out, t, first), matrix_at(in, t, 0),
               in->cols * sizeof(float));
}

void relu(matrix *x)
{
    for (size_t i = 0; i < x->rows * x->cols; i++)
        x->v[i] = x->v[i] < 0.0f ? 0.0f : x->v[i];
}

void add(matrix *out, const matrix *a, const matrix *b)
{
    for (size_t i = 0; i < a->rows * a->cols; i++)
        out->v[i] = a->v[i] + b->v[i];
}
