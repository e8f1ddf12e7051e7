/* heads.h: running an attention module's heads: the plumbing under the
 * notebook's forward passes (lesson/variants/, lesson/attention.c).
 *
 * A module says what its heads are (head_plan: how many, how wide, how a
 * head gets its q, k, v and what it computes) and heads_run does the
 * rest, as the lessons' forward passes ask "run these heads":
 *
 *   - each head's tables are made in the trace, under (variant, head),
 *     in the catalogue's order: queries, keys, values, attn_scores,
 *     attn_weights, (cfg->attn_dropout) dropout_mask and
 *     attn_weights_dropped, head_context;
 *   - the heads go in batches of cfg->heads_at_once (all of them when 0);
 *   - a batch's heads are shared out over cfg->pool, one head per thread
 *     (a lone head shares out its products instead); each head writes
 *     only its own tables, so the numbers never depend on the threads;
 *   - --average: each head's attn_weights is added to cfg->average in
 *     head order, as it is made;
 *   - in a stack of blocks: each head's mean attention entropy
 *     (model/entropy.h) is written to cfg->entropy, as its weights are
 *     made;
 *   - streaming (trace.h): after each batch every table of its heads but
 *     head_context (and with --average head 0's attn_scores, whose mask
 *     shades the mean) is released and the trace is flushed; the
 *     contexts are released once concatenated (heads_release_context).
 *
 * Shapes: T query tokens, S key/value tokens, D = d_model, H heads, hd
 * the width of a head (O / H; O in the single head).
 */
#ifndef MHA_HEADS_H
#define MHA_HEADS_H

#include <stddef.h>

#include "base/error.h"
#include "model/lesson/attention.h"
#include "model/catalogue.h"
#include "model/layers/attention_head.h"
#include "model/trace.h"
#include "numerics/tensor.h"

/* What a module's heads are. */
typedef struct {
    variant_id variant;
    size_t heads; /* H */
    size_t width; /* hd: the width of a head's q, k, v and context */
    /* Whether each head projects x itself (its own W_query, W_key,
     * W_value), rather than taking its columns of the module's: the
     * work shared over the threads. */
    bool projects;
    /* On a worker, once per head: its attention (the head's q, k, v,
     * scores, weights and context), 0 or -1 with err set. */
    int (*attend)(const head_tables *t, const void *ctx, mx_error *err);
    const void *ctx; /* handed to attend */
    /* With cfg->attn_dropout: the mask values drawn from one head's mask
     * to the next's (the fused module's weights are one (B, H, T, S)
     * tensor, so T x S; the wrapper's heads each drop their own (B, T, S)
     * weights, so B x T x S). */
    size_t dropout_stride;
    /* What the heads' storage is called in an allocation failure's
     * message; NULL for a lone head (H = 1), held without allocation. */
    const char *what;
} head_plan;

/* One head as heads_run keeps it: its tables' values and the tables. */
typedef struct {
    head_tables t;
    table *made[HEAD_TABLE_COUNT]; /* in the trace, by head_table(id);
                                      NULL for a table not made */
    torch_rng drop;                /* t.drop points here */
    int rc;                        /* attend's result, and its error */
    mx_error err;
} head_work;

/* A module's heads, once run: their head_context tables stay for the
 * concatenation. */
typedef struct {
    size_t n;        /* H */
    head_work *work; /* n heads: lone, or allocated (plan.what); owned */
    head_work lone;
} head_set;

/* Runs plan's heads (see above) over in, with cfg's threads, batches and
 * --average: every head's tables are made and computed, the trace
 * flushed after each batch. *set holds the heads afterwards, also after
 * a failure (-1, err set); free it with heads_free. */
int heads_run(head_set *set, trace *tr, const head_plan *plan,
              const attention_config *cfg, const attention_input *in,
              const sequence_labels *lab, mx_error *err);

/* head_context (T, hd) of head h of set. */
static inline const matrix *heads_context(const head_set *set, size_t h)
{
    return set->work[h].t.context;
}

/* The module has read head h's context (concatenated it): its
 * head_context table is released (trace.h). */
void heads_release_context(trace *tr, const head_set *set, size_t h);

/* Frees set's storage; the tables stay in the trace. */
void heads_free(head_set *set);

#endif
