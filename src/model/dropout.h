/* dropout.h: nn.Dropout(P) in training mode, as F.dropout computes it on
 * the CPU.
 *
 *   noise = empty_like(x).bernoulli_(1 - P)   one draw per value, in
 *                                             memory order (rng.h)
 *   noise.div_(1 - P)                         1 / (1 - P) in float32
 *   out = x * noise                           0 where dropped
 *
 * P = 0 returns x and draws nothing; the options keep P below 1. A mask
 * of a batch (B, ...) is drawn whole: element 0's values are the first
 * ones, and the draws of the others follow them.
 */
#ifndef MHA_DROPOUT_H
#define MHA_DROPOUT_H

#include <stddef.h>

#include "numerics/rng.h"

/* mask[0..n) = F.dropout's noise for P, drawn from g. */
void dropout_noise(float *mask, size_t n, double p, torch_rng *g);

/* out[i] = x[i] * mask[i] (out may be x). */
void dropout_apply(float *out, const float *x, const float *mask, size_t n);

#endif
