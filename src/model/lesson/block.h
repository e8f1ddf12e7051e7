/* block.h: --variant block, the Transformer block of the Cantonese lesson.
 *
 *   attn_out   = MultiHeadAttention(x)                  (the fused module)
 *   add_norm1  = LayerNorm(x + attn_out)                (norm1)
 *   ffn_hidden = ReLU(add_norm1 @ ff.0.weight^T + ff.0.bias)
 *   ffn_out    = ffn_hidden @ ff.2.weight^T + ff.2.bias
 *   out        = LayerNorm(add_norm1 + ffn_out)         (norm2)
 *
 * Post-norm; evaluation mode, or with --dropout P training mode, where
 * nn.Dropout(P) drops values of attn_out and ffn_out before each residual
 * connection (attn_out_dropout_mask, ffn_out_dropout_mask: dropout.h).
 * d_out must equal d_model for the residual connections. Parameters in state_dict order:
 * attention.W_query ... attention.out_proj, norm1, ff.0, ff.2, norm2.
 *
 * --attn-only: the attention-only block of the induction-heads work (no
 * feed-forward network, no LayerNorm), the residual stream plus the
 * attention's output:
 *
 *   attn_out = MultiHeadAttention(x)
 *   out      = x + attn_out
 *
 * its parameters attention.W_query ... attention.out_proj only.
 */
#ifndef MHA_BLOCK_H
#define MHA_BLOCK_H

#include <stdbool.h>

#include "model/layers/transformer_block.h"
#include "model/lesson/attention.h"

#define LAYER_NORM_EPS 1e-5f

typedef struct block_params {
    fused_params attention;
    matrix norm1_weight, norm1_bias; /* (1, D): ones and zeros */
    linear ff0;                      /* D -> F, with bias */
    linear ff2;                      /* F -> D, with bias */
    matrix norm2_weight, norm2_bias; /* (1, D) */
    bool attn_only;                  /* --attn-only: attention and the
                                        residual only; the four above
                                        empty */
} block_params;

/* Draws as the constructor does: the attention's four layers, then the two
 * feed-forward layers (LayerNorm draws nothing: ones and zeros). ff is F,
 * or 0 for the attention-only block (its attention alone). */
int block_init(block_params *p, const attention_config *cfg, size_t ff,
               torch_rng *g, mx_error *err);
void block_free(block_params *p);

/* The block as the one Transformer block of model/layers/ computes it
 * (post-norm, ReLU, cfg's --dropout); its parameters stay in p. */
block_layer block_layer_of(const block_params *p, const attention_config *cfg);

/* The forward pass, the parameters already recorded (model.h): the fused
 * attention's tables as attn_out, then (with cfg->dropout)
 * attn_out_dropout_mask, add_norm1, ffn_hidden, ffn_out, (with
 * cfg->dropout) ffn_out_dropout_mask, out; the attention-only block's
 * attention's tables as attn_out, then out. Its tables are made under
 * `variant`, the running variant whose module the block is (its file
 * under variants/ names it), at cfg's layer. */
int block_forward(trace *tr, variant_id variant, const block_params *p,
                  const attention_config *cfg, const attention_input *in,
                  const sequence_labels *lab, mx_error *err);

#endif
