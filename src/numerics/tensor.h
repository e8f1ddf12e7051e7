/* tensor.h: small row-major float32 matrices and the few operations that
 * attention needs (tensor.c the matrices and products, softmax.c,
 * sums.c, layer_norm.c).
 *
 * Shapes use the letters of the notebooks:
 *   T  tokens (sequence length)     D  model width (d_in, d_model)
 *   O  output width (d_out)         hd head width (d_out / heads)
 * Every operation is done in float32 in the order PyTorch's CPU kernels
 * use, so results agree with PyTorch's bit for bit, not just closely.
 */
#ifndef MHA_TENSOR_H
#define MHA_TENSOR_H

#include <stdbool.h>
#include <stddef.h>

#include "base/error.h"
#include "numerics/workers.h"

typedef struct {
    size_t rows, cols;
    float *v; /* rows * cols values, row-major; owned */
} matrix;

/* a * b, or 0 with *overflow set when the product does not fit. */
size_t size_mul(size_t a, size_t b, int *overflow);

/* Allocates a zero-filled rows x cols matrix; `what` (marked with N_(),
 * translated here) names it in errors. */
int matrix_alloc(matrix *m, size_t rows, size_t cols, const char *what,
                 mx_error *err);
void matrix_free(matrix *m);

static inline float *matrix_at(const matrix *m, size_t r, size_t c)
{
    return m->v + r * m->cols + c;
}

/* The products below share their panels out over pool (NULL: the caller
 * alone); the numbers do not depend on it. */

/* out (T, O) = x (T, D) @ w (O, D)^T + bias (O), as nn.Linear computes;
 * bias may be NULL. */
void linear_forward(matrix *out, const matrix *x, const matrix *w,
                    const float *bias, workers *pool);

/* The same as linear_forward and matmul, written as plainly as possible:
 * the reference the faster versions are tested against. */
void linear_forward_naive(matrix *out, const matrix *x, const matrix *w,
                          const float *bias);
void matmul_naive(matrix *out, const matrix *a, const matrix *b);

/* out (T, S) = a (T, d) @ b (S, d)^T: attention scores from Q and K. */
void matmul_transposed(matrix *out, const matrix *a, const matrix *b,
                       workers *pool);

/* The same with the causal mask: cells above the diagonal (a later key)
 * are -inf, and the tiles of the product that hold only such cells are
 * never computed. Equal to matmul_transposed then causal_mask. */
void causal_scores(matrix *out, const matrix *a, const matrix *b,
                   workers *pool);

/* out (T, d) = a (T, S) @ b (S, d): context from weights and V. When a is
 * exactly 0 above its diagonal (causal weights) and b is finite, the
 * terms past the diagonal, which add exactly nothing, are left out. */
void matmul(matrix *out, const matrix *a, const matrix *b, workers *pool);

/* c (M, N) = a (M, K) @ b (K, N), every cell one sum in index order over
 * all of K (as BLAS sgemm sums for PyTorch's mm in every transpose case):
 * the backward passes' products. */
void matmul_full(matrix *c, const matrix *a, const matrix *b, workers *pool);

/* out (rows, cols) = in (cols, rows)^T. */
void transpose(matrix *out, const matrix *in);

/* Sets every cell above the diagonal (a later key) to -inf. */
void causal_mask(matrix *scores);

/* out (T, S) = softmax over each row of (scores / divisor), computed the
 * stable way: subtract the row's max, exponentiate, normalise. Cells that
 * are -inf come out exactly 0; a row that cannot be normalised (a NaN or
 * +inf score, or every score -inf) comes out all NaN, as in PyTorch. */
void softmax_rows(matrix *out, const matrix *scores, float divisor);

/* The same, written as plainly as possible (every exponential computed,
 * one value at a time): the reference softmax_rows is tested against. */
void softmax_rows_naive(matrix *out, const matrix *scores, float divisor);

/* The steps of softmax_rows, kept for showing: exps (T, S) =
 * exp(scores / divisor - maxima), maxima (T) the max of each scaled row,
 * sums (T) the sum of each row of exps, in the same order as softmax_rows
 * adds them; softmax_rows's weights are then exactly exps * (1.0f / sums),
 * each product rounded to float. */
void softmax_steps(matrix *exps, float *maxima, float *sums,
                   const matrix *scores, float divisor);

/* What scores are divided by before softmax: sqrt(head_dim) in float as
 * PyTorch computes keys.shape[-1]**0.5, or 1 without scaling. */
float score_divisor(size_t head_dim, bool scale);

/* out (n) = x.mean(dim=0) for x (rows, n), row r at x[r] (the rows need
 * not be contiguous: the heads' tables are averaged where they lie),
 * summed in the order of PyTorch's CPU sum kernel (cascade_sum: columns in
 * blocks, each column's rows in partial sums of four and levels of 16),
 * then divided by rows: what nn.MultiheadAttention's average over heads
 * computes. */
void mean_rows(float *out, const float *const *x, size_t rows, size_t n);

/* out (n) = x.sum(dim=0) for x (rows, n), row r at x[r]: the sums of
 * mean_rows, not divided (a bias's gradient, the sum of its output's
 * gradient over the tokens). */
void sum_rows(float *out, const float *const *x, size_t rows, size_t n);

/* The sum of x[0..n) in the order of PyTorch's vectorised reduce_all
 * (vec::reduce_all, map_reduce_all): fewer than 8 values left to right
 * from 0; otherwise 8 running lanes (lane i takes x[i], x[i+8], ...)
 * folded in halves. */
float vec_sum(const float *x, size_t n);

/* x.sum() of a contiguous tensor of n values (a full reduction): PyTorch's
 * CPU sum kernel over one contiguous row, vectorized_inner_sum (n >= 8:
 * 8 lanes, each read as four cascades of (n / 32) values, then the
 * values past the last whole vector from 0, then the lanes in order) or
 * scalar_inner_sum (n < 8: four cascades, folded). */
float sum_all(const float *x, size_t n);

/* mean_rows over rows that come one at a time, each forgotten once added
 * (the heads' weights of a streamed run, trace.h): the same sums in the
 * same order, so the same bits. Kept: the running sums of the cascade's
 * levels for the blocked columns, and the last few columns (fewer than
 * 32) of every row, which mean_rows sums in another order. */
typedef struct {
    size_t rows, n; /* rows expected, values per row */
    size_t added;   /* rows added so far */
    size_t blocked; /* columns [0, blocked) summed as a cascade */
    size_t levels;  /* cascade levels in use (1 to 3) */
    float *acc;     /* (levels, blocked) running sums; owned */
    float *tail;    /* (rows, n - blocked) the other columns; owned */
} mean_stream;

/* A stream for rows rows of n values; mean_stream_free accepts it after a
 * failure too. */
int mean_stream_init(mean_stream *m, size_t rows, size_t n, mx_error *err);
/* Adds the next row x (n values): 0, or -1 with nothing added when the
 * stream already holds its rows. */
int mean_stream_add(mean_stream *m, const float *x);
/* out (n) = the mean of the rows, once all of them are added. */
int mean_stream_finish(float *out, const mean_stream *m, mx_error *err);
void mean_stream_free(mean_stream *m);

/* out (T, hd) = columns [first, first + out->cols) of in (T, O): one head's
 * slice of a fused projection (view + transpose in PyTorch). */
void take_columns(matrix *out, const matrix *in, size_t first);

/* Writes in (T, hd) into columns [first, first + hd) of out (T, O): the
 * concatenation of head contexts. */
void put_columns(matrix *out, const matrix *in, size_t first);

/* out (T, D) = nn.LayerNorm over each row of x: (x - mean) / sqrt(var +
 * eps) * gamma + beta, with the mean and (biased) variance computed as
 * PyTorch's CPU kernel does (Welford, in blocks of 8 lanes). */
void layer_norm(matrix *out, const matrix *x, const float *gamma,
                const float *beta, float eps);

/* layer_norm, keeping each row's mean and 1 / sqrt(var + eps) in means
 * and rstds (T values each, or both NULL): what its backward needs. */
void layer_norm_saving(matrix *out, float *means, float *rstds, const matrix *x,
                       const float *gamma, const float *beta, float eps);

/* x = 0 where x < 0, element by element (nn.ReLU, which is clamp_min(x,
 * 0)): NaN stays NaN and -0 stays -0, as in PyTorch. */
void relu(matrix *x);

/* out = a + b, element by element (a residual connection). */
void add(matrix *out, const matrix *a, const matrix *b);

/* sum_i a[i] * b[i] * c[i] (or a[i] * b[i] with c NULL) over n values, as
 * PyTorch's vec::map3_reduce_all (map2_reduce_all) adds it: the sums of
 * the softmax's and LayerNorm's backward passes. */
float products_sum(const float *a, const float *b, const float *c, size_t n);

#endif
