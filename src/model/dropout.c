/* dropout.c: F.dropout's noise and its product (dropout.h). */
#include "model/dropout.h"

void dropout_noise(float *mask, size_t n, double p, torch_rng *g)
{
    // noise.bernoulli_(1 - p): 1 where a value is kept
    const double keep = 1.0 - p;
    rng_bernoulli_fill(mask, n, keep, g);
    // noise.div_(1 - p): divided by the scalar as float32, so a kept
    // value is 1 / (1 - p) rounded once to float32
    const float divisor = (float)keep;
    for (size_t i = 0; i < n; i++)
        mask[i] = mask[i] / divisor;
}

void dropout_apply(float *out, const float *x, const float *mask, size_t n)
{
    for (size_t i = 0; i < n; i++)
        out[i] = x[i] * mask[i];
}
