/* module_heads.h: how the lessons' modules run their heads and make
 * their tables in the trace (attention.c), for the forward passes of the
 * variants' files (variants/NAME.c): a module hands heads_run (heads.h)
 * a head_plan whose attend is module_head, over a module_heads naming
 * where each head's q, k and v come from.
 *
 * Shapes: T query tokens, S key/value tokens, D = d_model, O = d_out,
 * hd the width of a head.
 */
#ifndef MHA_MODULE_HEADS_H
#define MHA_MODULE_HEADS_H

#include "base/error.h"
#include "model/heads.h"
#include "model/hooks.h"
#include "model/lesson/attention.h"
#include "model/trace.h"

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

#endif
