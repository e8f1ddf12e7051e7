/* mlp.h: the feed-forward network of every model's block:
 *
 *   ffn_hidden (T, F) = act(fc(x))      (hook point ffn_hidden)
 *   ffn_out (T, D)    = proj(ffn_hidden) (hook point ffn_out)
 *
 * the lessons' block: fc = ff.0 and proj = ff.2 (nn.Linear), act = ReLU;
 * GPT-2: mlp.c_fc and mlp.c_proj (Conv1D), act = gelu_new;
 * BERT: intermediate.dense and output.dense (nn.Linear), act = the exact
 * GELU (erf).
 */
#ifndef MHA_MLP_H
#define MHA_MLP_H

#include "base/error.h"
#include "model/hooks.h"
#include "model/layers/dense.h"
#include "model/trace.h"
#include "numerics/tensor.h"
#include "numerics/workers.h"

typedef enum {
    ACT_RELU,     /* nn.ReLU: clamp_min(x, 0) */
    ACT_GELU_NEW, /* GPT-2's gelu_new (numerics/gelu.h) */
    ACT_GELU_ERF, /* BERT's exact GELU (numerics/gelu_erf.h) */
} activation;

typedef struct {
    dense fc;   /* D -> F */
    dense proj; /* F -> D */
    activation act;
} mlp;

/* The network over x (T, D) into hidden (T, F) and out (T, D), its hook
 * points at `at`'s place (variant and layer) through hk (may be NULL).
 * Returns 0, or -1 with err set by a hook. */
int mlp_forward(matrix *out, matrix *hidden, const matrix *x, const mlp *f,
                const forward_hooks *hk, const table_key *at, workers *pool,
                mx_error *err);

#endif
