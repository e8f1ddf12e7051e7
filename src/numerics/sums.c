/* sums.c: the sums PyTorch's CPU kernels add in their own order
 * (tensor.h): x.mean(dim=0) and x.sum(dim=0) over rows (cascade_sum, also
 * over rows that come one at a time), x.sum() of a contiguous row, and
 * the sums of products of the backward passes. (The sum of a softmax's
 * exponentials, vec_sum, is softmax.c's.) */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/i18n.h"
#include "numerics/tensor.h"
#include "numerics/vecmath.h"

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

int mean_stream_add(mean_stream *m, const float *x)
{
    // the tail holds rows rows: one more would be written past it
    if (m->added >= m->rows)
        return -1;
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
    return 0;
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
