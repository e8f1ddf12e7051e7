/* rms_norm.c: LlamaRMSNorm, with PyTorch's sum over a row (rms_norm.h). */
#include "numerics/rms_norm.h"

#include <math.h>

/* multi_row_sum over one value: x[0], x[stride], ... (n of them), added
 * in chunks of 16 whose sums are carried up through four levels (the
 * level step is 16 for every n below 2^20). */
static float cascade(const float *x, size_t stride, size_t n)
{
    enum { LEVELS = 4, POWER = 4, STEP = 1 << POWER };
    float acc[LEVELS] = {0.0f, 0.0f, 0.0f, 0.0f};
    size_t i = 0;
    while (i + STEP <= n) {
        for (size_t j = 0; j < STEP; j++, i++)
            acc[0] += x[i * stride];
        for (size_t j = 1; j < LEVELS; j++) {
            acc[j] += acc[j - 1];
            acc[j - 1] = 0.0f;
            if ((i & ((size_t)(STEP - 1) << (j * POWER))) != 0)
                break;
        }
    }
    for (; i < n; i++)
        acc[0] += x[i * stride];
    for (size_t j = 1; j < LEVELS; j++)
        acc[0] += acc[j];
    return acc[0];
}

/* row_sum: n values x[0], x[stride], ... read as (n / 4, 4): four
 * cascades, the leftovers added to the first, the four folded in order. */
static float row_sum(const float *x, size_t stride, size_t n)
{
    const size_t m = n / 4;
    float partial[4];
    for (size_t k = 0; k < 4; k++)
        partial[k] = cascade(x + k * stride, 4 * stride, m);
    for (size_t i = 4 * m; i < n; i++)
        partial[0] += x[i * stride];
    return ((partial[0] + partial[1]) + partial[2]) + partial[3];
}

float torch_row_sum(const float *x, size_t n)
{
    enum { LANES = 8 };
    if (n < LANES) // scalar_inner_sum
        return 0.0f + row_sum(x, 1, n);
    // vectorized_inner_sum: lane l sums x[l], x[l + 8], ... as row_sum
    // sums vectors; then the values after the last whole vector, then the
    // lanes
    const size_t vectors = n / LANES;
    float sum = 0.0f;
    for (size_t k = vectors * LANES; k < n; k++)
        sum += x[k];
    for (size_t l = 0; l < LANES; l++)
        sum += row_sum(x + l, LANES, vectors);
    return sum;
}

void rms_norm(matrix *out, const matrix *x, const float *weight, float eps)
{
    const size_t T = x->rows, D = x->cols;
    for (size_t t = 0; t < T; t++) {
        const float *row = x->v + t * D;
        float *o = out->v + t * D;
        float *sq = o; // x * x, a row at a time, in the output's row
        for (size_t d = 0; d < D; d++)
            sq[d] = row[d] * row[d];
        const float variance = torch_row_sum(sq, D) / (float)D;
        const float r = 1.0f / sqrtf(variance + eps);
        for (size_t d = 0; d < D; d++)
            o[d] = weight[d] * (row[d] * r);
    }
}
