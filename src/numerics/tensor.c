/* tensor.c: the arithmetic of attention, written plainly. */
#include "numerics/tensor.h"

#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/i18n.h"
#include "numerics/matmul.h"
#include "numerics/vecmath.h"

/* Loops over whole rows get copies built for AVX-512 and AVX2 beside the
 * plain one, chosen when the program starts; each does the same float32
 * operations in the same order, so the numbers are the same. */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define TENSOR_HOT __attribute__((target_clones("avx512f", "avx2", "default")))
#else
#define TENSOR_HOT
#endif

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

/* The sum of e[0..n) in the order of PyTorch's vectorised reduce_all:
 * fewer than 8 values one after another; otherwise 8 running lanes
 * (lane i takes e[i], e[i+8], ...), then the lanes folded in halves:
 * i + (i+4), then + (i+2), then lane 0 + lane 1. Values from e[live] on
 * are +0 and lanes never hold -0 (they start at exponentials, >= +0), so
 * adding them would change nothing: they are skipped. */
static float pytorch_sum(const float *e, size_t n, size_t live)
{
    if (n < 8) {
        float sum = 0.0f;
        for (size_t i = 0; i < n; i++)
            sum += e[i];
        return sum;
    }
    float lane[8];
    for (size_t i = 0; i < 8; i++)
        lane[i] = e[i];
    size_t i = 8;
    for (; i + 8 <= live; i += 8) /* whole rounds: 8 lanes side by side */
        for (size_t l = 0; l < 8; l++)
            lane[l] += e[i + l];
    for (; i < live; i++)
        lane[i % 8] += e[i];
    return fold_lanes8(lane);
}

/* The row's maximum, or its first NaN when it holds one (PyTorch's
 * vectorised maximum gives NaN); -inf for an empty row. Eight running
 * maxima side by side, then folded: when the maximum is 0 its sign may
 * differ from the first zero's, which changes no exponential
 * (exp(x - +0) = exp(x - -0), exp(+0) = exp(-0) = 1). */
TENSOR_HOT static float row_max(const float *w, size_t n)
{
    float lane[8];
    for (size_t l = 0; l < 8; l++)
        lane[l] = -INFINITY;
    int nan = 0;
    size_t i = 0;
    for (; i + 8 <= n; i += 8)
        for (size_t l = 0; l < 8; l++) {
            const float x = w[i + l];
            nan |= x != x;
            lane[l] = x > lane[l] ? x : lane[l];
        }
    float max = -INFINITY;
    for (size_t l = 0; l < 8; l++)
        max = lane[l] > max ? lane[l] : max;
    for (; i < n; i++) {
        nan |= w[i] != w[i];
        max = w[i] > max ? w[i] : max;
    }
    if (nan)
        for (i = 0; i < n; i++)
            if (isnan(w[i]))
                return w[i];
    return max;
}

/* Passes 0 to 2 of one row's softmax: w (n) = exp(in / divisor - max).
 * Returns the max of in / divisor; *live is the number of cells before
 * the -inf cells that end the row (those are set to 0 without an
 * exponential when the max is finite). */
TENSOR_HOT static float softmax_exps_row(float *w, size_t *live,
                                         const float *in, size_t n,
                                         float divisor)
{
    /* pass 0: scale, in float as PyTorch divides the float tensor */
    for (size_t s = 0; s < n; s++)
        w[s] = in[s] / divisor;

    /* pass 1: the row's maximum; a NaN anywhere makes it NaN */
    const float max = row_max(w, n);

    /* pass 2: exponentiate; exp(-inf) is exactly 0. A row that cannot
     * be normalised (a NaN, an infinite score, or every score -inf)
     * gives NaN (inf - inf) here and NaN everywhere below, as in
     * PyTorch. With a finite maximum, the -inf cells at the end of the
     * row (the keys a causal mask hides) are 0 without computing */
    *live = n;
    if (isfinite(max))
        while (*live > 0 && w[*live - 1] == -INFINITY)
            w[--*live] = 0.0f;
    expf_row(w, *live, max);
    return max;
}

void softmax_rows(matrix *out, const matrix *scores, float divisor)
{
    // out and scores are (T, S)
    for (size_t t = 0; t < scores->rows; t++) {
        float *w = matrix_at(out, t, 0);
        const size_t n = scores->cols;
        size_t live;
        softmax_exps_row(w, &live, matrix_at(scores, t, 0), n, divisor);

        /* pass 3: normalise by multiplying with 1 / sum, as PyTorch does;
         * the sum is finite and at least 1 when the maximum is finite, so
         * the zeros past `live` stay 0 */
        const float inverse = 1.0f / pytorch_sum(w, n, live);
        for (size_t s = 0; s < live; s++)
            w[s] *= inverse;
    }
}

void softmax_steps(matrix *exps, float *maxima, float *sums,
                   const matrix *scores, float divisor)
{
    // exps and scores are (T, S); maxima and sums are (T)
    for (size_t t = 0; t < scores->rows; t++) {
        float *e = matrix_at(exps, t, 0);
        size_t live;
        maxima[t] = softmax_exps_row(e, &live, matrix_at(scores, t, 0),
                                     scores->cols, divisor);
        sums[t] = pytorch_sum(e, scores->cols, live);
    }
}

float score_divisor(size_t head_dim, bool scale)
{
    /* sqrt(hd) computed as keys.shape[-1]**0.5 */
    return scale ? (float)pow((double)head_dim, 0.5) : 1.0f;
}

void softmax_rows_naive(matrix *out, const matrix *scores, float divisor)
{
    // out and scores are (T, S)
    for (size_t t = 0; t < scores->rows; t++) {
        const float *in = matrix_at(scores, t, 0);
        float *w = matrix_at(out, t, 0);
        const size_t n = scores->cols;
        for (size_t s = 0; s < n; s++)
            w[s] = in[s] / divisor;
        float max = -INFINITY;
        for (size_t s = 0; s < n && !isnan(max); s++)
            if (isnan(w[s]) || w[s] > max)
                max = w[s];
        for (size_t s = 0; s < n; s++)
            w[s] = sleef_expf(w[s] - max);
        float sum;
        if (n < 8) {
            sum = 0.0f;
            for (size_t s = 0; s < n; s++)
                sum += w[s];
        } else {
            float lane[8], half[4];
            for (size_t l = 0; l < 8; l++)
                lane[l] = w[l];
            for (size_t s = 8; s < n; s++)
                lane[s % 8] += w[s];
            for (size_t l = 0; l < 4; l++)
                half[l] = lane[l] + lane[l + 4];
            sum = (half[0] + half[2]) + (half[1] + half[3]);
        }
        const float inverse = 1.0f / sum;
        for (size_t s = 0; s < n; s++)
            w[s] *= inverse;
    }
}

/* ---- x.mean(dim=0): PyTorch's cascade_sum ---------------------------- */

/* The sum of column c of the n rows x[first], x[first + step], ... as
 * multi_row_sum adds one column: running sums in chunks of 16, the chunk
 * sums carried up through four levels (16 is the level step for every n
 * below 2^20). */
static float cascade_column(const float *const *x, size_t first, size_t step,
                            size_t n, size_t c)
{
    enum { LEVELS = 4, POWER = 4, STEP = 1 << POWER };
    float acc[LEVELS] = {0.0f, 0.0f, 0.0f, 0.0f};
    size_t i = 0;
    while (i + STEP <= n) {
        for (size_t j = 0; j < STEP; j++, i++)
            acc[0] += x[first + i * step][c];
        for (size_t j = 1; j < LEVELS; j++) {
            acc[j] += acc[j - 1];
            acc[j - 1] = 0.0f;
            if ((i & ((size_t)(STEP - 1) << (j * POWER))) != 0)
                break;
        }
    }
    for (; i < n; i++)
        acc[0] += x[first + i * step][c];
    for (size_t j = 1; j < LEVELS; j++)
        acc[0] += acc[j];
    return acc[0];
}

/* row_sum: column c of the n rows read as (n / 4, 4), four cascaded
 * partial sums, the leftovers added to the first, then the partials
 * folded in order. */
static float row_sum_ilp(const float *const *x, size_t n, size_t c)
{
    const size_t m = n / 4;
    float partial[4];
    for (size_t k = 0; k < 4; k++)
        partial[k] = cascade_column(x, k, 4, m, c);
    for (size_t i = 4 * m; i < n; i++)
        partial[0] += x[i][c];
    return ((partial[0] + partial[1]) + partial[2]) + partial[3];
}

/* multi_row_sum over n values x[0], x[step], ...: cascade_column's sums
 * on a strided row. */
static float cascade_strided(const float *x, size_t step, size_t n)
{
    enum { LEVELS = 4, POWER = 4, STEP = 1 << POWER };
    float acc[LEVELS] = {0.0f, 0.0f, 0.0f, 0.0f};
    size_t i = 0;
    while (i + STEP <= n) {
        for (size_t j = 0; j < STEP; j++, i++)
            acc[0] += x[i * step];
        for (size_t j = 1; j < LEVELS; j++) {
            acc[j] += acc[j - 1];
            acc[j - 1] = 0.0f;
            if ((i & ((size_t)(STEP - 1) << (j * POWER))) != 0)
                break;
        }
    }
    for (; i < n; i++)
        acc[0] += x[i * step];
    for (size_t j = 1; j < LEVELS; j++)
        acc[0] += acc[j];
    return acc[0];
}

/* row_sum of `size` items of width `width` floats (a vector of 8 lanes,
 * or one float), lane l: four cascades over items k, k + 4, ..., the
 * leftover items added to the first, then the partials folded. */
static float row_sum_lane(const float *x, size_t width, size_t size, size_t l)
{
    const size_t m = size / 4;
    float partial[4];
    for (size_t k = 0; k < 4; k++)
        partial[k] = cascade_strided(x + k * width + l, 4 * width, m);
    for (size_t i = 4 * m; i < size; i++)
        partial[0] += x[i * width + l];
    return ((partial[0] + partial[1]) + partial[2]) + partial[3];
}

float sum_all(const float *x, size_t n)
{
    enum { LANES = 8 };
    if (n < LANES)
        return row_sum_lane(x, 1, n, 0);
    const size_t vectors = n / LANES;
    float lanes[LANES];
    for (size_t l = 0; l < LANES; l++)
        lanes[l] = row_sum_lane(x, LANES, vectors, l);
    float sum = 0.0f;
    for (size_t k = vectors * LANES; k < n; k++)
        sum += x[k];
    for (size_t l = 0; l < LANES; l++)
        sum += lanes[l];
    return sum;
}

float vec_sum(const float *x, size_t n)
{
    return pytorch_sum(x, n, n);
}

void mean_rows(float *out, const float *const *x, size_t rows, size_t n)
{
    // x is rows rows of n values; out is (n)
    sum_rows(out, x, rows, n);
    for (size_t c = 0; c < n; c++)
        out[c] /= (float)rows;
}

void sum_rows(float *out, const float *const *x, size_t rows, size_t n)
{
    // x is rows rows of n values; out is (n)
    enum { LANES = 8, BLOCK = 4 * LANES };
    /* vectorized_outer_sum (n >= 8) takes columns in blocks of 32 with
     * one cascade per column, then the rest with row_sum;
     * scalar_outer_sum (n < 8) takes blocks of 4 the same way. (A single
     * column of 8 rows or more is summed in vectors instead; attention
     * weights of one query and one key are all 1, so it never matters
     * here.) */
    const size_t block = n >= LANES ? BLOCK : 4;
    const size_t blocked = n / block * block;
    for (size_t c = 0; c < n; c++) {
        const float sum = c < blocked ? cascade_column(x, 0, 1, rows, c)
                                      : row_sum_ilp(x, rows, c);
        out[c] = sum;
    }
}

/* The levels of cascade_column a sum of `rows` rows reaches: level j
 * takes a carry once 16^j rows are summed. */
static size_t cascade_levels(size_t rows)
{
    size_t levels = 1;
    for (size_t step = 16; levels < 4 && step <= rows; step *= 16)
        levels++;
    return levels;
}

int mean_stream_init(mean_stream *m, size_t rows, size_t n, mx_error *err)
{
    memset(m, 0, sizeof *m);
    m->rows = rows;
    m->n = n;
    // mean_rows's split: columns in blocks of 32 (4 below 8 columns)
    const size_t block = n >= 8 ? 32 : 4;
    m->blocked = n / block * block;
    m->levels = cascade_levels(rows);
    int overflow = 0;
    const size_t acc = size_mul(m->levels, m->blocked, &overflow);
    const size_t tail = size_mul(rows, n - m->blocked, &overflow);
    if (!overflow) {
        m->acc = calloc(acc > 0 ? acc : 1, sizeof *m->acc);
        m->tail = calloc(tail > 0 ? tail : 1, sizeof *m->tail);
    }
    if (m->acc == NULL || m->tail == NULL)
        return err_nomem(err, N_("the average of the heads"));
    return 0;
}

void mean_stream_add(mean_stream *m, const float *x)
{
    // cascade_column, a row at a time: into level 0, and after every 16
    // rows each full level carried into the next
    float *acc = m->acc;
    const size_t b = m->blocked;
    for (size_t c = 0; c < b; c++)
        acc[c] += x[c];
    const size_t i = ++m->added;
    if (i % 16 == 0)
        for (size_t j = 1; j < m->levels; j++) {
            for (size_t c = 0; c < b; c++) {
                acc[j * b + c] += acc[(j - 1) * b + c];
                acc[(j - 1) * b + c] = 0.0f;
            }
            if ((i & ((size_t)15 << (j * 4))) != 0)
                break;
        }
    const size_t rest = m->n - b;
    memcpy(m->tail + (m->added - 1) * rest, x + b, rest * sizeof *x);
}

int mean_stream_finish(float *out, const mean_stream *m, mx_error *err)
{
    const size_t b = m->blocked, rest = m->n - b;
    const float **tail = calloc(m->rows > 0 ? m->rows : 1, sizeof *tail);
    if (tail == NULL)
        return err_nomem(err, N_("the average of the heads"));
    for (size_t c = 0; c < b; c++) {
        // the levels folded into the first, as cascade_column ends (an
        // unused level adds 0)
        float sum = m->acc[c];
        for (size_t j = 1; j < 4; j++)
            sum += j < m->levels ? m->acc[j * b + c] : 0.0f;
        out[c] = sum / (float)m->rows;
    }
    for (size_t r = 0; r < m->rows; r++)
        tail[r] = m->tail + r * rest;
    for (size_t c = 0; c < rest; c++)
        out[b + c] = row_sum_ilp(tail, m->rows, c) / (float)m->rows;
    free(tail);
    return 0;
}

void mean_stream_free(mean_stream *m)
{
    free(m->acc);
    free(m->tail);
    m->acc = NULL;
    m->tail = NULL;
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

/* ---- LayerNorm: PyTorch's RowwiseMoments ------------------------------ */

#define MOMENT_LANES 8  /* one AVX2 vector of floats */
#define MOMENT_CHUNK 16 /* vectors per Welford chunk */
#define MOMENT_DEPTH 64

/* Merges the moments (m0_add, m1_add, m2_add) into (m0, m1, m2), lane by
 * lane (AddMomentsVec). */
static void merge_moments(size_t m0_add, const float *m1_add,
                          const float *m2_add, size_t *m0, float *m1, float *m2)
{
    const size_t n = *m0 + m0_add;
    const float c = n == 0 ? 0.0f : (float)m0_add / (float)n;
    for (size_t l = 0; l < MOMENT_LANES; l++) {
        const float delta = m1_add[l] - m1[l];
        m1[l] += c * delta;
        m2[l] += m2_add[l] + delta * delta * c * (float)*m0;
    }
    *m0 = n;
}

/* Mean and biased variance of x[0..N): 8 lanes run Welford's update over
 * chunks of 16 vectors, chunks merge pairwise (cascade), lanes merge at
 * the end with the scalar remainder. */
static void row_moments(const float *x, size_t N, float *mean, float *var)
{
    const size_t n = N / MOMENT_LANES; /* whole vectors */
    const size_t chunks = (n + MOMENT_CHUNK - 1) / MOMENT_CHUNK;
    size_t depth = 0;
    while (((size_t)1 << depth) < chunks)
        depth++;

    size_t m0s[MOMENT_DEPTH] = {0};
    float m1s[MOMENT_DEPTH][MOMENT_LANES] = {{0}};
    float m2s[MOMENT_DEPTH][MOMENT_LANES] = {{0}};
    for (size_t i = 0; i < chunks; i++) {
        const float *chunk = x + i * MOMENT_CHUNK * MOMENT_LANES;
        const size_t count = n - i * MOMENT_CHUNK < MOMENT_CHUNK
                                 ? n - i * MOMENT_CHUNK
                                 : MOMENT_CHUNK;
        float m1[MOMENT_LANES] = {0}, m2[MOMENT_LANES] = {0};
        for (size_t j = 0; j < count; j++) {
            const float c = 1.0f / (float)(j + 1);
            for (size_t l = 0; l < MOMENT_LANES; l++) {
                const float v = chunk[j * MOMENT_LANES + l];
                const float delta = v - m1[l];
                m1[l] += delta * c;
                m2[l] += delta * (v - m1[l]);
            }
        }
        merge_moments(count, m1, m2, &m0s[0], m1s[0], m2s[0]);
        size_t mask = i + 1;
        for (size_t j = 1; j < depth && (mask & 1) == 0; j++) {
            merge_moments(m0s[j - 1], m1s[j - 1], m2s[j - 1], &m0s[j], m1s[j],
                          m2s[j]);
            m0s[j - 1] = 0;
            memset(m1s[j - 1], 0, sizeof m1s[j - 1]);
            memset(m2s[j - 1], 0, sizeof m2s[j - 1]);
            mask >>= 1;
        }
    }
    for (size_t i = 1; i < depth; i++)
        merge_moments(m0s[i], m1s[i], m2s[i], &m0s[0], m1s[0], m2s[0]);

    /* the values past the last whole vector, then the lanes */
    size_t m0 = 0;
    float m1 = 0.0f, m2 = 0.0f;
    for (size_t i = n * MOMENT_LANES; i < N; i++) {
        const float delta = x[i] - m1;
        m0++;
        m1 += delta / (float)m0;
        m2 += delta * (x[i] - m1);
    }
    for (size_t l = 0; l < MOMENT_LANES; l++) {
        const size_t total = m0 + n;
        const float c = total == 0 ? 0.0f : (float)n / (float)total;
        const float delta = m1s[0][l] - m1;
        m1 += c * delta;
        m2 += m2s[0][l] + delta * delta * c * (float)m0;
        m0 = total;
    }
    *mean = m1;
    *var = m2 / (float)N;
}

void layer_norm(matrix *out, const matrix *x, const float *gamma,
                const float *beta, float eps)
{
    layer_norm_saving(out, NULL, NULL, x, gamma, beta, eps);
}

void layer_norm_saving(matrix *out, float *means, float *rstds, const matrix *x,
                       const float *gamma, const float *beta, float eps)
{
    // out and x are (T, D); gamma and beta are (D); means, rstds (T)
    for (size_t t = 0; t < x->rows; t++) {
        const float *row = matrix_at(x, t, 0);
        float *y = matrix_at(out, t, 0);
        float mean, var;
        row_moments(row, x->cols, &mean, &var);
        const float rstd = 1.0f / sqrtf(var + eps);
        if (means != NULL) {
            means[t] = mean;
            rstds[t] = rstd;
        }
        const float shift = -rstd * mean;
        /* (x * rstd + shift) * gamma + beta, the first step fused into
         * one rounding as PyTorch's vector code does */
        for (size_t d = 0; d < x->cols; d++)
            y[d] = fmaf(fmaf(row[d], rstd, shift), gamma[d], beta[d]);
    }
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

/* sum_i a[i] * b[i] * c[i] (or a[i] * b[i] with c NULL) as
 * vec::map3_reduce_all (map2_reduce_all) adds it: under 8 values the
 * products left to right, else 8 lanes each starting at a product and
 * adding the next of its lane with a fused multiply-add, folded in
 * halves. The product is (a * b) * c, rounded at each step but the
 * last of a lane's fused ones. */
float products_sum(const float *a, const float *b, const float *c, size_t n)
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
