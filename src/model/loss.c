/* loss.c: cross-entropy as PyTorch's CPU kernels compute it
 * (docs/exactness.md, "Training").
 *
 *   logp (T-1, V) = log_softmax(logits[:-1])     _vec_log_softmax_lastdim
 *   loss          = -sum_t logp[t][ids[t+1]] / (T-1)     nll_loss, mean
 *   dlogits       = dlogp - exp(logp) * rowsum(dlogp)
 *                   with dlogp[t][ids[t+1]] = -1 / (T-1), 0 elsewhere
 */
#include "model/loss.h"

#include <math.h>
#include <string.h>

#include "numerics/vecmath.h"

/* One row of log_softmax: out (n) = x - max - log(sum(exp(x - max))),
 * each step rounded to float in that order. */
static void log_softmax_row(float *out, const float *x, size_t n)
{
    float max = -INFINITY;
    for (size_t i = 0; i < n; i++)
        if (x[i] > max || isnan(x[i]))
            max = isnan(max) ? max : x[i];
    // the exponentials (sleef_expf(x - max), by expf_row's fastest
    // path), summed in the order of vec::map_reduce_all
    memcpy(out, x, n * sizeof *out);
    expf_row(out, n, max);
    const float log_sum = sleef_logf(vec_sum(out, n));
    for (size_t i = 0; i < n; i++)
        out[i] = (x[i] - max) - log_sum;
}

/* nll_loss's sum of -logp[t][target]: partial sums at levels, the level
 * below carried up after every 16 rows (cascade summation, 8 levels). */
static float nll_sum(const matrix *logp, const size_t *targets)
{
    enum { LEVELS = 8, POWER = 4 };
    const size_t mask = (1u << POWER) - 1;
    float level[LEVELS] = {0};
    for (size_t b = 0; b < logp->rows; b++) {
        level[0] -= *matrix_at(logp, b, targets[b]);
        for (size_t j = 0; j + 1 < LEVELS; j++) {
            if ((b & (mask << (j * POWER))) != 0)
                break;
            level[j + 1] += level[j];
            level[j] = 0.0f;
        }
    }
    float total = 0.0f;
    for (size_t j = 0; j < LEVELS; j++)
        total += level[j];
    return total;
}

float cross_entropy(matrix *dlogits, matrix *logp, const matrix *logits,
                    const size_t *ids)
{
    const size_t T = logits->rows, V = logits->cols;
    // logp (T-1, V) = log_softmax(logits[:-1], dim=-1)
    for (size_t t = 0; t + 1 < T; t++)
        log_softmax_row(matrix_at(logp, t, 0), matrix_at(logits, t, 0), V);
    const float count = (float)(T - 1);
    const float loss = nll_sum(logp, ids + 1) / count;
    if (dlogits == NULL)
        return loss;

    // nll_loss backward: -(1 / (T-1)) at each target, 0 elsewhere; the
    // row's sum (vec::reduce_all) is that one value
    const float g = -(1.0f / count);
    for (size_t t = 0; t + 1 < T; t++) {
        const float *lp = matrix_at(logp, t, 0);
        float *d = matrix_at(dlogits, t, 0);
        const size_t target = ids[t + 1];
        // log_softmax backward: d = dlogp - exp(logp) * sum(dlogp), one
        // fused multiply-add (the AVX2 build contracts it)
        for (size_t v = 0; v < V; v++) {
            const float dlogp = v == target ? g : 0.0f;
            d[v] = fmaf(-sleef_expf(lp[v]), g, dlogp);
        }
    }
    // logits[:-1]: the last row has no next word
    for (size_t v = 0; v < V; v++)
        *matrix_at(dlogits, T - 1, v) = 0.0f;
    return loss;
}
