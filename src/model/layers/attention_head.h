/* attention_head.h: one attention head, its forward pass and beside it its
 * backward pass, for every model: the lesson modules and their block
 * (attention.c, heads.c), training (train.c) and the checkpoint families'
 * attention sublayer (attention_sublayer.c).
 *
 * Forward, for queries from x (T, D) and keys and values from kv (S, D):
 *
 *   q (T, hd), k, v (S, hd)  the head's projections (hook points queries,
 *                            keys, values)
 *   positions                a rotary family's q and k rotated by
 *                            their positions (layers/rotary.h; hook
 *                            points queries_rotated, keys_rotated), the
 *                            scores taken from them; none for the others
 *   attn_scores (T, S)       q @ k^T, masked causally (hook point)
 *   attn_weights (T, S)      softmax of the scaled scores (hook point)
 *   dropout                  with attn_dropout: dropout_mask and
 *                            attn_weights_dropped (hook points)
 *   head_context (T, hd)     weights @ v (hook point)
 *
 * What the families compute in another order is the head_spec below, a
 * few values read by the one function, so that every family keeps
 * PyTorch's bits (docs/exactness.md):
 *
 *   the lessons   attn_scores.masked_fill(mask, -inf), then
 *                 torch.softmax(attn_scores / keys.shape[-1] ** 0.5): the
 *                 table attn_scores holds the raw scores, the division
 *                 is the softmax's first pass (SCALE_IN_SOFTMAX);
 *   GPT-2         attn_weights / torch.full([], hd ** 0.5), then
 *                 torch.where(causal, attn_weights, finfo.min): the table
 *                 holds the scaled scores (SCALE_SCORES); a masked cell
 *                 is -inf here, finfo.min there, and softmax makes both
 *                 exactly 0.
 *   Llama-style   torch.matmul(q, k^T) * scaling (hd ** -0.5), then +
 *                 the causal mask (0 on the live cells, so a -0 score
 *                 becomes +0): SCALE_SCORES_TIMES with mask_added.
 *
 * Projections (Linear's x @ W^T + b, or Conv1D's addmm(b, x, W)) are
 * made by the module (dense.h): a head's own (the single head, the
 * wrapper's heads) or its columns of the module's one projection (the
 * fused module's Q, K, V; GPT-2's c_attn output).
 */
#ifndef MHA_ATTENTION_HEAD_H
#define MHA_ATTENTION_HEAD_H

#include <stdbool.h>
#include <stddef.h>

#include "base/error.h"
#include "model/hooks.h"
#include "model/layers/rotary.h"
#include "model/linear.h"
#include "model/trace.h"
#include "numerics/rng.h"
#include "numerics/tensor.h"
#include "numerics/workers.h"

/* Where the scores are divided by sqrt(hd) (see above). */
typedef enum {
    SCALE_IN_SOFTMAX,   /* the lessons: attn_scores raw */
    SCALE_SCORES,       /* GPT-2: attn_scores scaled */
    SCALE_SCORES_TIMES, /* Llama-style: attn_scores times factor */
} scale_place;

/* How a family's head computes (see above). */
typedef struct {
    bool causal;       /* later keys masked */
    float divisor;     /* sqrt(hd) (score_divisor), or 1 without scaling */
    scale_place scale; /* where the division is */
    double dropout;    /* P of nn.Dropout on the weights (training mode;
                          the lessons' --attn-dropout); 0: none */
    float factor;      /* SCALE_SCORES_TIMES: hd ** -0.5 as a float */
    bool mask_added;   /* the live cells + 0.0f (a mask added, not
                          where()'s) */
    /* positions: the cos and sin (T, hd) that rotate q and k (a rotary
       family), or NULL */
    const rotary_table *rope;
    /* with rope: the keys come rotated already (generation's cache keeps
       them so, as past_key_values does), and only the queries are
       rotated; keys_rotated then shows them as they are, and the hook
       point keys is not reached (the keys before rotation are not kept) */
    bool keys_rotated;
} head_spec;

/* One head's activations, where the caller keeps them (the trace's
 * tables, training's tape, the attention sublayer's working matrices). */
typedef struct {
    size_t h;        /* the head, 0 .. H-1 */
    matrix *q;       /* queries (T, hd) */
    matrix *k;       /* keys (S, hd) */
    matrix *v;       /* values (S, hd) */
    matrix *q_rot;   /* queries_rotated (T, hd), with rope only */
    matrix *k_rot;   /* keys_rotated (S, hd), with rope only */
    matrix *scores;  /* attn_scores (T, S) */
    matrix *weights; /* attn_weights (T, S) */
    matrix *mask;    /* dropout_mask (T, S), or NULL without dropout */
    matrix *dropped; /* attn_weights_dropped (T, S), or NULL likewise */
    /* the generator as this head's mask is drawn (with mask only) */
    const torch_rng *drop;
    matrix *context; /* head_context (T, hd) */
} head_tables;

/* Where a head's q, k and v come from: its own three projections over x
 * and kv, or (own NULL) columns of wide matrices: q is columns
 * [first[0], first[0] + hd) of from[0], k of from[1], v of from[2]. */
typedef struct {
    const qkv *own;
    const matrix *x, *kv;
    const matrix *from[3];
    size_t first[3];
} head_source;

/* The head's forward pass (see above) into t, its hook points at `at`'s
 * place (its variant, layer and head) through hk (may be NULL). Returns
 * 0, or -1 with err set by a hook. */
int attention_head_forward(const head_tables *t, const head_source *src,
                           const head_spec *spec, const forward_hooks *hk,
                           const table_key *at, workers *pool, mx_error *err);

/* The backward pass of a head without dropout, from its forward's q, k, v
 * and weights, given dcontext (T, hd): dq (T, hd), dk and dv (S, hd);
 * dweights (T, S) holds d loss / d weights after it. dscores (T, S),
 * t_st (S, T) are working room; shown (T, S), when not NULL, gets d loss
 * / d the table attn_scores as the spec shows it (the masked cells
 * included, whose gradient is +-0: their weight is 0). */
typedef struct {
    const matrix *q, *k, *v, *weights;
} head_saved;

void attention_head_backward(matrix *dq, matrix *dk, matrix *dv,
                             matrix *dweights, matrix *dscores, matrix *t_st,
                             matrix *shown, const head_saved *h,
                             const head_spec *spec, const matrix *dcontext,
                             workers *pool);

#endif
