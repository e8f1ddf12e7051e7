/* stack.h: --layers N with --variant block, N of the lesson's Transformer
 * blocks one after the other, as a notebook writes
 *
 *   blocks = nn.Sequential(*[TransformerBlock(D, H, F) for _ in range(N)])
 *   out = blocks(x)
 *
 *   x_0 = inputs;  x_(i+1) = block i (x_i);  out = x_N
 *
 * The blocks are drawn in order after the embedding (block 0's
 * attention, norm1, ff, norm2, then block 1's, ...), and their parameters
 * are named as nn.Sequential's state_dict() names them: the block's own
 * names after its index ("1.attention.W_query.weight"). Each block makes
 * the tables of the lone block (block.h) under its index as their layer
 * (table_key.layer; the trace marks them stacked: trace.h). With
 * --dropout P, the forward pass draws
 * block 0's two masks over the batch (B, T, D), then block 1's, and so on.
 *
 * After the blocks the stack makes the model view attn_entropy (N x H,
 * model/entropy.h), each block's and head's mean attention entropy,
 * computed as a checkpoint's run computes it: under the variant block
 * outside the layers (headings "[block]", the CSV's layer empty, the file
 * "block.attn_entropy.csv"), as a checkpoint's is under "gpt2"; a row per
 * block ("block.2"), a column per head.
 *
 * Without --layers the stack holds one block, not stacked: the lone
 * block's names, layer 0, and no attn_entropy.
 */
#ifndef MHA_STACK_H
#define MHA_STACK_H

#include <stdbool.h>
#include <stddef.h>

#include "model/lesson/block.h"

/* The most blocks --layers stacks. */
#define MAX_STACK_LAYERS 48

typedef struct block_stack {
    size_t n;             /* blocks (1 without --layers) */
    bool stacked;         /* --layers N: named and laid out as a stack */
    block_params *blocks; /* n blocks, in order; owned */
} block_stack;

/* Draws the blocks in order, as nn.Sequential's list of
 * TransformerBlock(D, H, F) does. layers: --layers N, or 0 for one block
 * alone. ff is F, 0 for attention-only blocks. s must be zeroed; on failure the caller still frees
 * it. */
int stack_init(block_stack *s, const attention_config *cfg, size_t ff,
               size_t layers, torch_rng *g, mx_error *err);
void stack_free(block_stack *s);

/* The forward pass, the parameters already recorded: each block over the
 * previous block's out (the first over in->x), its tables under
 * `variant` (the running variant whose module the stack is) with its
 * index as layer, then (stacked) attn_entropy, under `variant` outside
 * its layers, a row per block named as the headings name it
 * ("block.2"). Self-attention only when stacked. */
int stack_forward(trace *tr, variant_id variant, const block_stack *s,
                  const attention_config *cfg, const attention_input *in,
                  const sequence_labels *lab, mx_error *err);

/* The blocks first .. first + count - 1 over x (T, D), the residual
 * stream before block first, in place: each block as stack_forward runs
 * it (its tables in tr, its hook points through cfg->hooks), without
 * --dropout and without attn_entropy; x gets the last one's out, bit for
 * bit the out that stack_forward's pass makes from the same stream. The
 * interventions run a model from a layer on this way (lesson_lm.c). */
int stack_layers(trace *tr, variant_id variant, const block_stack *s,
                 const attention_config *cfg, matrix *x,
                 const sequence_labels *lab, size_t first, size_t count,
                 mx_error *err);

#endif
