/* transformer_block.h: the Transformer block of every model, written once,
 * its forward pass and beside it its backward pass
 * (transformer_block_backward.c):
 * two residual sublayers, the attention and the feed-forward network
 * (mlp.h's, or the gated one of swiglu.h), each with its norm after (the lessons' block, BERT) or before
 * (GPT-2, the Llama-style family); the norm is nn.LayerNorm, or RMSNorm
 * (the Llama-style family's, numerics/rms_norm.h):
 *
 *   norm after (post-norm), the lesson's TransformerBlock:
 *     attn_out  = attention(x)                      (the caller's)
 *     add_norm1 = norm1(x + dropout(attn_out))
 *     ffn_hidden, ffn_out = ffn(add_norm1)
 *     out       = norm2(add_norm1 + dropout(ffn_out))
 *   attention only (the lessons' --attn-only, as the induction-heads
 *   work's toy models):
 *     attn_out  = attention(x)                      (the caller's)
 *     out       = x + attn_out
 *   norm before (pre-norm), GPT2Block and LlamaDecoderLayer:
 *     ln_1      = ln_1(x)                           (input_layernorm)
 *     attn_out  = attention(ln_1)                   (the caller's)
 *     residual  = attn_out + x                      (Llama: x + attn_out)
 *     ln_2      = ln_2(residual)          (post_attention_layernorm)
 *     ffn_hidden, ffn_out = ffn(ln_2)     (Llama: the gated network)
 *     hidden    = residual + ffn_out
 *
 * with the dropout masks attn_out_dropout_mask and ffn_out_dropout_mask
 * when the block has nn.Dropout in training mode (the lessons' --dropout).
 * Each of those tables passes its hook point (hooks.h), the attention's
 * own in the caller's attention. Where the activations lie is the
 * caller's, given to the block as data before the pass (block_store, a
 * matrix for each of the block's tables): the trace's tables (the
 * lessons), a training pass's tape (which also keeps the LayerNorms'
 * means and rstds for the backward pass), a checkpoint family's working
 * matrices (layer_work.h).
 *
 * Shapes: T tokens, D the model's width, F the network's.
 */
#ifndef MHA_TRANSFORMER_BLOCK_H
#define MHA_TRANSFORMER_BLOCK_H

#include <stdbool.h>
#include <stddef.h>

#include "base/error.h"
#include "model/hooks.h"
#include "model/layers/layer_norm.h"
#include "model/layers/mlp.h"
#include "model/layers/swiglu.h"
#include "model/trace.h"
#include "numerics/rng.h"
#include "numerics/tensor.h"
#include "numerics/workers.h"

typedef enum {
    NORM_AFTER,  /* post-norm: norm(x + sublayer(x)) */
    NORM_BEFORE, /* pre-norm: x + sublayer(norm(x)) */
    NORM_NONE,   /* the attention-only block (the lessons' --attn-only):
                    out = x + attention(x), no norm, no feed-forward
                    network, no dropout */
} norm_place;

/* Which norm the block's two are. */
typedef enum {
    NORM_LAYER_NORM, /* nn.LayerNorm: weight and bias (layer_norm.h) */
    NORM_RMS_NORM,   /* LlamaRMSNorm: weight only, no mean taken away
                        (numerics/rms_norm.h); the forward pass only */
} norm_kind;

/* Which feed-forward network the block's is. */
typedef enum {
    FFN_MLP,    /* act(fc(x)), then proj (mlp.h) */
    FFN_SWIGLU, /* silu(gate(x)) * up(x), then down (swiglu.h, LlamaMLP);
                   the forward pass only */
} ffn_kind;

/* One block: its parameters and how its family computes it. */
typedef struct {
    norm_place norm;
    norm_kind norm_kind;
    layer_norm_params norm1, norm2; /* RMSNorm: bias NULL */
    mlp ffn;
    ffn_kind ffn_kind;
    swiglu gated; /* FFN_SWIGLU's network (then ffn is not read) */
    /* GPT2Block adds attn_output + residual (the attention's output
     * first), the lessons x + attn_out: the same sum, written as PyTorch
     * writes it */
    bool attn_out_first;
    double dropout;               /* P of nn.Dropout on both sublayers'
                                     outputs; 0: none */
    const torch_rng *dropout_rng; /* the generator as the first mask is
                                     drawn (P > 0 only) */
    size_t batch; /* B: each mask is drawn over (B, T, D), element 0 used */
} block_layer;

/* The block's attention sublayer: *out (T, D) = attention(x), lying where
 * the attention keeps it (the attn_out table); a checkpoint family's is
 * attention_sublayer_run (attention_sublayer.h). */
typedef struct {
    int (*run)(void *ctx, const matrix **out, const matrix *x, mx_error *err);
    void *ctx;
} block_attention;

/* The tables the block fills, each a slot of block_store.table, and
 * (block_slot_id) the catalogue row its hook point names. A family's
 * store may give two slots one matrix where one is done with before the
 * other is written (GPT-2's ln_1 and ln_2). */
typedef enum {
    BLOCK_LN_1,       /* norm before: the attention's normed input (T, D) */
    BLOCK_ATTN_MASK,  /* attn_out_dropout_mask (T, D), with dropout */
    BLOCK_ADD_NORM1,  /* norm after: norm1(x + attn_out) (T, D) */
    BLOCK_RESIDUAL,   /* norm before: x + attn_out (T, D) */
    BLOCK_LN_2,       /* norm before: the network's normed input (T, D) */
    BLOCK_FFN_HIDDEN, /* the network's hidden layer (T, F) */
    BLOCK_FFN_OUT,    /* the network's output (T, D) */
    BLOCK_FFN_MASK,   /* ffn_out_dropout_mask (T, D), with dropout */
    BLOCK_OUT,        /* norm after or attention only: the output (T, D) */
    BLOCK_HIDDEN,     /* norm before: residual + ffn_out (T, D) */
    BLOCK_SLOTS
} block_slot;

/* The catalogue row of slot s's table (TABLE_LN_1 ...). */
table_id block_slot_id(block_slot s);

/* Where the block's activations lie, given before the pass: table[s] the
 * matrix of slot s (T rows; NULL for a slot block b does not fill). sum1
 * and sum2 (T, D) hold post-norm's residual sums (the same matrix when
 * they need not be kept), dropped (T, D) a sublayer's output after its
 * dropout (with dropout only), up (T, F) the gated network's up_proj(x)
 * (FFN_SWIGLU only). */
typedef struct {
    matrix *table[BLOCK_SLOTS];
    matrix *sum1, *sum2, *dropped, *up;
    /* training: norm1's and norm2's row means and rstds (T each), for
     * their backward passes; NULL: not kept */
    float *mean1, *rstd1, *mean2, *rstd2;
} block_store;

/* The slots block b fills, in the order it fills them, into order (room
 * for BLOCK_SLOTS); returns how many. Its attention's own tables come
 * after ln_1 (norm before) or first (norm after, attention only): a store
 * whose tables are made in the trace (which keeps them in the order they
 * are made) makes them in this order. */
size_t block_slots_filled(block_slot *order, const block_layer *b);

/* The block over x (T, D): *out (T, D) is its output (out or hidden),
 * where the store keeps it; its hook points at `at`'s place (variant and
 * layer) through hk (may be NULL). Returns 0, or -1 with err set. */
int block_layer_forward(const matrix **out, const block_layer *b,
                        const block_attention *attn, const block_store *s,
                        const matrix *x, const forward_hooks *hk,
                        const table_key *at, workers *pool, mx_error *err);

/* ---- backward ---------------------------------------------------------- */

/* What the forward pass of a post-norm block without dropout kept for its
 * backward pass (the store's). */
typedef struct {
    const matrix *sum1;                         /* x + attn_out (T, D) */
    const matrix *norm1;                        /* add_norm1 (T, D) */
    const matrix *hidden;                       /* ffn_hidden (T, F) */
    const matrix *sum2;                         /* add_norm1 + ffn_out (T, D) */
    const float *mean1, *rstd1, *mean2, *rstd2; /* the norms' (T each) */
} block_saved;

/* The block as training holds it: the norms' weights (D) and where their
 * gradients go, the feed-forward network's layers and gradients. */
typedef struct {
    const float *norm1_weight, *norm2_weight;
    float *dnorm1_weight, *dnorm1_bias, *dnorm2_weight, *dnorm2_bias;
    mlp_linears ffn;
} block_grads;

/* Working room of the backward pass: dsum2 and dnorm1 (T, D), dhidden
 * (T, F), dyt_d (D, T) and dyt_f (F, T). */
typedef struct {
    matrix *dsum2, *dnorm1, *dhidden, *dyt_d, *dyt_f;
} block_room;

/* The backward pass of the lessons' block (norm after, ReLU, no dropout:
 * the block training runs) from dout (T, D) = d loss / d out, in the
 * order PyTorch's autograd runs it:
 *   norm2's: dsum2 (T, D), the gradient of add_norm1 + ffn_out;
 *   the network's (mlp_backward), its part of add_norm1's gradient added
 *   to the residual's (grad point add_norm1);
 *   norm1's: dattn (T, D) = d loss / d (x + attn_out) (grad point
 *   attn_out).
 * x's gradient is dattn (the residual's) plus the attention's backward
 * pass from dattn: the caller's, as the attention is. */
void block_layer_backward(matrix *dattn, const block_grads *g,
                          const block_room *r, const block_saved *s,
                          const matrix *dout, const grad_points *gp,
                          workers *pool);

#endif
