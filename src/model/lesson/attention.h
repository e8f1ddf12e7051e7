/* attention.h: the three attention modules of the notebooks.
 *
 *   single   one self-attention head of width O: W_query, W_key, W_value
 *   wrapper  `heads` independent heads of width hd = O / heads, contexts
 *            concatenated (MultiHeadAttentionWrapper)
 *   fused    one W_query, W_key, W_value of width O split into heads by
 *            view + transpose, contexts concatenated, then out_proj
 *            (MultiHeadAttention)
 *
 * Parameters are made first (drawn from the generator, or given) and
 * recorded under their state_dict() names (model.h), then a forward pass
 * makes every intermediate as a table in the trace, under the names the
 * notebooks use. Each module's constructor, forward and training pass
 * are in its variant's file (variants/single.c, wrapper.c, fused.c);
 * attention.c holds what they share, the fused module's constructor and
 * its one pass; heads.c runs their heads (batches, threads, streaming,
 * --average).
 */
#ifndef MHA_ATTENTION_H
#define MHA_ATTENTION_H

#include <stdbool.h>
#include <stddef.h>

#include "base/error.h"
#include "model/hooks.h"
#include "model/layers/attention_head.h"
#include "model/linear.h"
#include "numerics/rng.h"
#include "model/trace.h"
#include "numerics/tensor.h"
#include "numerics/workers.h"

typedef struct {
    size_t d_model;       /* D */
    size_t d_out;         /* O */
    size_t heads;         /* H; hd = O / H */
    bool causal;          /* mask later tokens */
    bool scale;           /* divide scores by sqrt(head width) */
    bool qkv_bias;        /* biases in W_query, W_key, W_value */
    workers *pool;        /* the threads the heads and products share (NULL:
                       the caller alone); the numbers never depend on it */
    size_t heads_at_once; /* heads whose tables are made, computed and
                             flushed together (trace.h); 0: all of them */
    mean_stream *average; /* --average: every head's attn_weights added in
                             head order, or NULL */
    size_t batch;         /* B: the batch the dropout masks are drawn over
                             (B x the shapes here); element 0 is computed */
    double attn_dropout;  /* P of the modules' nn.Dropout on the weights
                             (--attn-dropout), in training mode; 0: none */
    double dropout;       /* P of the block's nn.Dropout on the attention
                             and feed-forward outputs (--dropout); 0: none */
    const torch_rng *dropout_rng; /* the generator as the forward pass
                                     draws its first mask (P > 0 only) */
    int layer; /* the layer its tables are made under (table_key): 0, or in
                  a stack of blocks the block's index (model/lesson/stack.h) */
    matrix *entropy; /* a stack's attn_entropy (L, H): each head's mean
                        entropy (model/entropy.h) written at (layer, head)
                        as its weights are made, or NULL */
    const forward_hooks *hooks; /* the hooks replacing activations (hooks.h; no
                           recorder: the tables are the trace's), or NULL */
} attention_config;

typedef struct single_params {
    qkv attn; /* width O */
} single_params;

typedef struct wrapper_params {
    size_t heads;
    qkv *head; /* heads entries, each of width hd */
} wrapper_params;

typedef struct fused_params {
    qkv attn;        /* width O, split into heads */
    linear out_proj; /* O -> O, with bias */
} fused_params;

/* What attention reads: queries from x (T, D); keys and values from kv
 * (S, D), which is x itself for self-attention and the other sentence for
 * cross-attention (--kv). */
typedef struct {
    const matrix *x;
    const matrix *kv;
} attention_input;

/* Row labels of the sequence, made once per sentence. */
typedef struct {
    const labels *tokens;  /* "gato" */
    const labels *queries; /* "Q:gato" */
    const labels *keys;    /* "K:gato", of the key/value sequence */
    const labels *values;  /* "V:gato", of the key/value sequence */
} sequence_labels;

/* Draw parameters as the module's constructor does, in its order. Each
 * *_free accepts a zeroed or partly made struct. */
int single_init(single_params *p, const attention_config *cfg, torch_rng *g,
                mx_error *err);
int wrapper_init(wrapper_params *p, const attention_config *cfg, torch_rng *g,
                 mx_error *err);
int fused_init(fused_params *p, const attention_config *cfg, torch_rng *g,
               mx_error *err);
void single_free(single_params *p);
void wrapper_free(wrapper_params *p);
void fused_free(fused_params *p);

/* --tie: the fused module's W_query, W_key and W_value become the
 * wrapper's per-head matrices stacked (head h is rows [h*hd, (h+1)*hd)),
 * biases likewise; out_proj keeps its own values. Both modules then
 * compute the same concat_context. */
void fused_tie_to_wrapper(fused_params *fused, const wrapper_params *wrapper);

/* --average: the table attn_weights_avg (T, S) of `variant`, the mean of
 * its heads' attn_weights as nn.MultiheadAttention returns it with
 * average_attn_weights=True (summed over the heads in PyTorch's order,
 * divided by their number), from `sum`, the forward pass's cfg->average:
 * the heads' tables may be gone (trace.h); then its hook point through
 * hk (may be NULL). Defined in heads.c, beside the running sum. */
int record_average(trace *tr, variant_id variant, const mean_stream *sum,
                   const forward_hooks *hk, mx_error *err);

/* Forward passes over in (queries from in->x, keys and values from
 * in->kv), the parameters already recorded (model.h): each makes per head
 * queries, keys, values, attn_scores, attn_weights, (with
 * cfg->attn_dropout) dropout_mask and attn_weights_dropped, head_context, then
 * (wrapper, fused) concat_context and (fused) out. The heads go in
 * batches of cfg->heads_at_once: after each batch the trace is flushed
 * and the batch's tables but head_context are released (trace.h);
 * head_context and concat_context are released once read. */
int single_forward(trace *tr, const single_params *p,
                   const attention_config *cfg, const attention_input *in,
                   const sequence_labels *lab, mx_error *err);
int wrapper_forward(trace *tr, const wrapper_params *p,
                    const attention_config *cfg, const attention_input *in,
                    const sequence_labels *lab, mx_error *err);
int fused_forward(trace *tr, const fused_params *p, const attention_config *cfg,
                  const attention_input *in, const sequence_labels *lab,
                  mx_error *err);

/* The fused module's attention: per head queries ... head_context under
 * `variant`, then concat_context and the output (T, O), made in the trace
 * as the table out_id and returned in *out. fused_forward calls it with
 * (fused, out); the Transformer block with (block, attn_out). */
int fused_attend(const matrix **out, trace *tr, variant_id variant,
                 table_id out_id, const fused_params *p,
                 const attention_config *cfg, const attention_input *in,
                 const sequence_labels *lab, mx_error *err);

/* The tables the fused module fills, each a slot of fused_store.table,
 * as the block's are slots of its store (transformer_block.h). */
typedef enum {
    FUSED_CONCAT_CONTEXT, /* concat_context (T, O) */
    FUSED_OUT,            /* the output (T, O): out_proj(concat_context) */
    FUSED_SLOTS
} fused_slot;

/* Where a pass of the fused module keeps its activations, given as data
 * before the part of the pass that writes them: the lessons' forward
 * keeps them in the trace (fused_attend), training's in its tape
 * (train_parts.h). */
typedef struct {
    matrix *Q, *K, *V;          /* the projections: Q (T, O), K and V (S, O) */
    matrix *table[FUSED_SLOTS]; /* table[s] the matrix of slot s (T, O) */
    table_id out_id; /* FUSED_OUT's catalogue row (out; attn_out in the
                        block), the name of its hook point */
} fused_store;

/* The catalogue row of slot `slot`'s table in s (TABLE_CONCAT_CONTEXT,
 * s->out_id), which its hook point names. */
table_id fused_slot_id(const fused_store *s, fused_slot slot);

/* The fused module's heads, run where the caller keeps them, as the
 * block's attention is the caller's (transformer_block.h). */
typedef struct {
    /* runs every head over its columns of the store's Q, K and V
       (fused_head_source) into its head_context; Q, K and V are not read
       after it */
    int (*run)(void *ctx, mx_error *err);
    /* head h's head_context (T, hd), once the heads have run */
    const matrix *(*context)(void *ctx, size_t h);
    void *ctx;
} fused_heads;

/* MultiHeadAttention.forward, the one pass of the fused module both
 * the lessons' forward and training run, over x (T, D) (keys and values
 * over kv (S, D)), in two parts:
 *
 * fused_module_heads, into s's Q, K and V and the heads' contexts:
 *   Q (T, O), K and V (S, O)   = W_query(x), W_key(kv), W_value(kv)
 *   per head (view, transpose)  its columns of Q, K and V: attention
 * fused_module_out, into s's slots:
 *   concat_context (T, O)      = the heads' contexts side by side
 *   out (T, O)                 = out_proj(concat_context)
 * concat_context and out pass their hook points (cfg->layer's, under
 * variant) through hk (may be NULL); *out is s->table[FUSED_OUT]. A
 * store whose tables are made in the trace (which keeps them in the
 * order they are made) makes its slots' tables between the two parts,
 * after the heads' own; fused_module_forward runs both over a store
 * given whole. Each returns 0, or -1 with err set. */
int fused_module_heads(const fused_store *s, const fused_heads *heads,
                       const fused_params *p, const attention_config *cfg,
                       const matrix *x, const matrix *kv, mx_error *err);
int fused_module_out(const matrix **out, const fused_store *s,
                     const fused_heads *heads, const fused_params *p,
                     const attention_config *cfg, const forward_hooks *hk,
                     variant_id variant, mx_error *err);
int fused_module_forward(const matrix **out, const fused_store *s,
                         const fused_heads *heads, const fused_params *p,
                         const attention_config *cfg, const forward_hooks *hk,
                         variant_id variant, const matrix *x, const matrix *kv,
                         mx_error *err);

/* ---- how a module runs its heads in the trace (attention.c) ---------- */

/* The forward passes of the variants' files (variants/NAME.c) hand
 * heads_run (model/heads.h) a head_plan whose attend is module_head, over
 * a module_heads naming where each head's q, k and v come from. */

/* Where the heads' q, k and v come from, and what they attend with. */
typedef struct {
    variant_id variant;
    const attention_config *cfg;
    const attention_input *in;
    const qkv *own;           /* head h's own W_query, W_key, W_value */
    const fused_store *fused; /* or the fused module's Q, K and V */
} module_heads;

/* A head_plan's attend (ctx: module_heads): one head of a module, a head
 * of the wrapper or the single head with its own projections of x (T, D)
 * and kv (S, D), or a head of the fused module with its columns of Q, K
 * and V; then its attention (attention_head.h), through cfg's hooks. */
int module_head(const head_tables *t, const void *ctx, mx_error *err);

/* The hook point through hk of variant's table id over m, in cfg's
 * layer. */
int module_point(const forward_hooks *hk, const attention_config *cfg,
                 variant_id variant, table_id id, matrix *m, mx_error *err);

/* A new table id (T, width) of variant in cfg's layer, one row per
 * token, or NULL with err set. */
table *module_table(trace *tr, variant_id variant, table_id id, size_t width,
                    const attention_config *cfg, const sequence_labels *lab,
                    mx_error *err);

/* Head h's q, k and v (hd wide) as the fused module splits them: its
 * columns of Q, K and V (view (T, H, hd), then transpose (H, T, hd)). */
head_source fused_head_source(const fused_store *s, size_t h, size_t hd);

#endif
