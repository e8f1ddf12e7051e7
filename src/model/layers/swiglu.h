/* swiglu.h: the gated feed-forward network of Llama-style models,
 * transformers' LlamaMLP, the block's second kind of network beside
 * mlp.h's (FFN_SWIGLU, transformer_block.h):
 *
 *   ffn_hidden (T, F) = silu(gate_proj(x)) * up_proj(x)  (hook point
 *                                                         ffn_hidden)
 *   ffn_out (T, D)    = down_proj(ffn_hidden)            (hook point
 *                                                         ffn_out)
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

#include "base/error.h"
#include "model/hooks.h"
#include "model/layers/dense.h"
#include "model/trace.h"
#include "numerics/tensor.h"
#include "numerics/workers.h"

typedef struct {
    dense gate, up, down; /* (F, D), (F, D), (D, F) as nn.Linear stores them */
} swiglu;

/* x[0..n) = silu(x), as torch.nn.functional.silu over n contiguous values. */
void silu_row(float *x, size_t n);

/* The network over x (T, D) into hidden (T, F) and out (T, D), with up
 * (T, F) working room for up_proj(x); its hook points at `at`'s place
 * (variant and layer) through hk (may be NULL). Returns 0, or -1 with err
 * set by a hook. */
int swiglu_forward(matrix *out, matrix *hidden, matrix *up, const matrix *x,
                   const swiglu *s, const forward_hooks *hk,
                   const table_key *at, workers *pool, mx_error *err);

#endif
