/* rms_norm.c: LlamaRMSNorm, with PyTorch's sum over a row (sum_all,
 * numerics/sums.c; rms_norm.h). */
#include "numerics/rms_norm.h"

#include <math.h>

void rms_norm(matrix *out, const matrix *x, const float *weight, float eps)
{
    const size_t T = x->rows, D = x->cols;
    for (size_t t = 0; t < T; t++) {
        const float *row = x->v + t * D;
        float *o = out->v + t * D;
        float *sq = o; // x * x, a row at a time, in the output's row
        for (size_t d = 0; d < D; d++)
            sq[d] = row[d] * row[d];
        const float variance = sum_all(sq, D) / (float)D;
        const float r = 1.0f / sqrtf(variance + eps);
        for (size_t d = 0; d < D; d++)
            o[d] = weight[d] * (row[d] * r);
    }
}
