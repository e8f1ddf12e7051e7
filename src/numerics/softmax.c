/* softmax.c: softmax over the rows of the scores (tensor.h), as
 * PyTorch's CPU kernel computes it: the row's maximum, the exponentials
 * of the scaled scores less it, their sum in the order of the vectorised
 * reduce_all (vec_sum, which log-softmax also uses), then each
 * exponential times 1 / sum; and the divisor the scores are scaled by. */
#include <math.h>
#include <stdbool.h>
#include <stddef.h>

#include "numerics/target_clones.h"
#include "numerics/tensor.h"
#include "numerics/vecmath.h"

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

float vec_sum(const float *x, size_t n)
{
    return pytorch_sum(x, n, n);
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
