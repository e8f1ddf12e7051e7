/* attention_sublayer.h: the attention sublayer of every checkpoint family
 * (GPT-2, the Llama-style family, BERT), written once: the projections,
 * each head through attention_head_forward (attention_head.h), the
 * heads' contexts side by side and the output projection, each through
 * its hook point. What a family computes differently is data, an
 * attention_layer the family fills from its checkpoint's layer.
 *
 * Over x (T, D), for H query heads and KV key/value heads of hd each:
 *
 *   projections      Q (T, H hd), K, V (T, KV hd): three denses (Llama's
 *                    q_proj, k_proj, v_proj; BERT's query, key, value),
 *                    or one fused dense whose output (T, (H + 2 KV) hd)
 *                    holds Q | K | V as column blocks (GPT-2's c_attn,
 *                    then split(D))
 *   cache            with generation's cache (kv_cache.h): the new keys
 *                    (rotated by their positions first with rotary
 *                    positions: apply_rotary_pos_emb comes before
 *                    past_key_value.update) and values appended; K and V
 *                    are then the cache's (S, KV hd), S = past + T
 *   heads            query head h reads key/value head h / (H / KV)
 *                    (grouped-query attention, repeat_kv; KV = H: its
 *                    own), attention_head_forward with the layer's
 *                    head_spec (mask, scale, rotary positions); its
 *                    head_context (T, hd) into columns [h hd, (h + 1) hd)
 *                    of
 *   concat_context   (T, H hd), hook point
 *   attn_out         (T, D) = out(concat_context), hook point
 *
 * Stacked texts (the interventions run many ablated texts at once): x
 * holds n texts of T rows each; each text's heads attend to its own rows,
 * their hook points through that text's hooks; every product else works
 * row by row, and concat_context and attn_out pass the pass's hooks over
 * all the rows. When the n texts' rows of x are bit for bit equal (the
 * copies of the layer an intervention changes) and no text's hooks
 * record, the projections run over the first text's rows and each head
 * once; each text's concat_context is a copy with only the heads its
 * hooks name made again (a replaced head_context on the copy, or the
 * head computed again when more of it is named): the same values as n
 * passes, without n times the projections.
 */
#ifndef MHA_ATTENTION_SUBLAYER_H
#define MHA_ATTENTION_SUBLAYER_H

#include <stddef.h>

#include "base/error.h"
#include "model/hooks.h"
#include "model/layers/attention_head.h"
#include "model/layers/dense.h"
#include "model/layers/kv_cache.h"
#include "numerics/tensor.h"
#include "numerics/workers.h"

/* One layer's attention as its family computes it. */
typedef struct {
    /* fused.weight not NULL: the one projection (D -> (H + 2 KV) hd),
     * its output Q | K | V; else the three q (D -> H hd), k and v (D ->
     * KV hd) */
    dense fused;
    dense q, k, v;
    dense out; /* (H hd -> D) */
    size_t n_head, n_kv_head, hd;
    head_spec spec; /* how each head computes: mask, scale, rope */
} attention_layer;

/* One pass of the sublayer over layer `layer`. */
typedef struct {
    int layer;
    /* concat_context's and attn_out's hooks, and the heads' when
       each_text is NULL; may be NULL */
    const forward_hooks *hooks;
    size_t texts; /* stacked texts, n; 0 or 1: one text */
    /* texts hooks, text i's heads' through each_text[i]; or NULL */
    const forward_hooks *each_text;
    /* generation's cache (one text), the keys and values kept, KV hd
       wide; or NULL: the pass attends over its own T tokens */
    kv_cache *cache;
    workers *pool;
} attention_pass;

/* The sublayer's working matrices, allocated once for a forward pass
 * over rows = n T rows (n stacked texts of T new tokens), each over S
 * keys (S = T without a cache). attn holds attn_out after each layer. */
typedef struct {
    matrix fused;               /* (rows, (H + 2 KV) hd), fused only */
    matrix q_all, k_all, v_all; /* (rows, H hd), (rows, KV hd) x 2,
                                   three denses only */
    matrix k_new;               /* (T, KV hd): with rope, a cache's new
                                   keys rotated */
    matrix q, k, v;             /* one head's: (T, hd), (S, hd) x 2 */
    matrix q_rot, k_rot;        /* with rope: (T, hd), (S, hd) */
    matrix scores, weights;     /* (T, S) */
    matrix ctx;                 /* (T, hd) */
    matrix concat;              /* (rows, H hd) */
    matrix attn;                /* (rows, D) */
    matrix shared;              /* (T, H hd): equal texts' heads, computed
                                   once; allocated when rows > T */
} attention_work;

/* Allocates w for layers shaped as a: rows, T, S as above. Returns 0, or
 * -1 with err set (w then holds nothing). */
int attention_work_alloc(attention_work *w, const attention_layer *a,
                         size_t rows, size_t T, size_t S, mx_error *err);
void attention_work_free(attention_work *w);

/* The sublayer over x (rows, D) (see above): attn_out (rows, D) in
 * w->attn. Returns 0, or -1 with err set by a hook. */
int attention_sublayer_forward(attention_work *w, const attention_layer *a,
                               const matrix *x, const attention_pass *p,
                               mx_error *err);

/* The sublayer as a block's attention (transformer_block.h's
 * block_attention, ctx an attention_call): *out = &w->attn. */
typedef struct {
    attention_work *w;
    const attention_layer *a;
    const attention_pass *p;
} attention_call;

int attention_sublayer_run(void *ctx, const matrix **out, const matrix *x,
                           mx_error *err);

#endif
