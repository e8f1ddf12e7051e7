/* layer_norm.c: nn.LayerNorm over the rows of a matrix (tensor.h), with
 * each row's mean and variance as PyTorch's RowwiseMoments computes them:
 * Welford's update in 8 lanes over chunks of 16 vectors, the chunks
 * merged pairwise. */
#include <math.h>
#include <string.h>

#include "numerics/tensor.h"

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
