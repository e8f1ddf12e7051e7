/* layer_work.h: one layer of a checkpoint family (GPT-2, the Llama-style
 * family, BERT), written once: the working matrices of its attention
 * sublayer (attention_sublayer.h) and of its block (transformer_block.h),
 * allocated once for a forward pass, and the block's store over them. A
 * family says only its sizes, as its layer's attention_layer and
 * block_layer; each layer runs over the hidden states h in place:
 *
 *   norm before (GPT2Block, LlamaDecoderLayer):
 *     ln_1, ln_2          normed (rows, D), the one after the other
 *     residual, hidden    h (rows, D)
 *   norm after (BertLayer):
 *     add_norm1           normed (rows, D)
 *     the residual sums   sum (rows, D), x + attn_out then add_norm1 +
 *                         ffn_out
 *     out                 h (rows, D): the block reads h, its input,
 *                         only before it writes it
 *   both:
 *     ffn_hidden          hidden (rows, F)
 *     up_proj(x)          up (rows, F), the gated network's only
 *     ffn_out             ffn (rows, D)
 *
 * Shapes: rows = n T (n stacked texts of T new tokens), S keys per text
 * (S = past + T with a cache, T without), D the model's width, F the
 * feed-forward network's.
 */
#ifndef MHA_LAYER_WORK_H
#define MHA_LAYER_WORK_H

#include <stddef.h>

#include "base/error.h"
#include "model/layers/attention_sublayer.h"
#include "model/layers/transformer_block.h"
#include "model/trace.h"
#include "numerics/tensor.h"

/* The work of one layer (see above). */
typedef struct {
    attention_work attn; /* the attention sublayer's; attn_out in attn.attn */
    matrix normed;       /* (rows, D) */
    matrix sum;          /* (rows, D), norm after only */
    matrix hidden;       /* (rows, F) */
    matrix up;           /* (rows, F), FFN_SWIGLU only */
    matrix ffn;          /* (rows, D) */
} layer_work;

/* Allocates w for layers shaped as a and b (D = a's output width, F =
 * b's network's), over rows, T and S as above. Returns 0, or -1 with err
 * set (w then holds nothing). */
int layer_work_alloc(layer_work *w, const attention_layer *a,
                     const block_layer *b, size_t rows, size_t T, size_t S,
                     mx_error *err);
void layer_work_free(layer_work *w);

/* The layer over h (rows, D), in place: the block b with the attention
 * sublayer a as pass runs it, its tables in w and h (see above), its own
 * hook points at `at`'s place (variant and layer) through pass->hooks.
 * Returns 0, or -1 with err set by a hook. */
int layer_work_run(matrix *h, layer_work *w, const block_layer *b,
                   const attention_layer *a, const attention_pass *pass,
                   const table_key *at, mx_error *err);

#endif
