/* swiglu.h: the gated feed-forward network of Llama-style models,
 * transformers' LlamaMLP:
 *
 *   ffn_hidden (T, F) = silu(gate_proj(x)) * up_proj(x)
 *   ffn_out (T, D)    = down_proj(ffn_hidden)
 *
 * three nn.Linear (dense.h). silu(x) = x / (1 + exp(-x)) as PyTorch's CPU
 * kernel computes it over the (T, F) values in a row: 16 at a time with
 * SLEEF's expf, the last T * F % 16 one at a time with the C library's
 * expf (the kernel's scalar loop; one thread, as torch runs a tensor of
 * this size).
 */
#ifndef MHA_SWIGLU_H
#define MHA_SWIGLU_H

#include <stddef.h>

#include "model/layers/dense.h"
#include "numerics/tensor.h"
#include "numerics/workers.h"

typedef struct {
    dense gate, up, down; /* (F, D), (F, D), (D, F) as nn.Linear stores them */
} swiglu;

/* x[0..n) = silu(x), as torch.nn.functional.silu over n contiguous values. */
void silu_row(float *x, size_t n);

/* hidden (T, F) = silu(gate(x)) * up(x), with up (T, F) working room;
 * out (T, D) = down(hidden). */
void swiglu_forward(matrix *hidden, matrix *out, matrix *up, const matrix *x,
                    const swiglu *s, workers *pool);

#endif
