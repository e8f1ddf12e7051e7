/* rms_norm.h: LlamaRMSNorm as transformers computes it in float32 on the
 * CPU, bit for bit:
 *
 *   variance = hidden_states.pow(2).mean(-1, keepdim=True)
 *   hidden_states = hidden_states * torch.rsqrt(variance + eps)
 *   return weight * hidden_states
 *
 * pow(2) is x * x; mean is PyTorch's sum then a division by D, the sum
 * over the contiguous last dimension in the order of its CPU kernel
 * (sum_all, numerics/tensor.h: cascade_sum's vectorized_inner_sum, 8
 * lanes, each lane's vectors in four interleaved cascades, then the
 * leftover values, then the lanes in order); rsqrt is 1 / sqrt, each
 * rounded.
 */
#ifndef MHA_RMS_NORM_H
#define MHA_RMS_NORM_H

#include <stddef.h>

#include "numerics/tensor.h"

/* out (T, D) = RMSNorm of each row of x (T, D) with weight (D) and eps. */
void rms_norm(matrix *out, const matrix *x, const float *weight, float eps);

#endif
