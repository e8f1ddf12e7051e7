/* stack.c: N Transformer blocks one after the other (stack.h).
 *
 * Shapes: T tokens, D = d_model, B the batch the dropout masks are drawn
 * over.
 */
#include "model/lesson/stack.h"

#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/i18n.h"
#include "model/entropy.h"

int stack_init(block_stack *s, const attention_config *cfg, size_t ff,
               size_t layers, torch_rng *g, mx_error *err)
{
    s->n = layers > 0 ? layers : 1;
    s->stacked = layers > 0;
    s->blocks = calloc(s->n, sizeof *s->blocks);
    if (s->blocks == NULL)
        return err_nomem(err, _("the blocks"));
    // [TransformerBlock(D, H, F) for _ in range(N)]: each drawn after the
    // one before
    for (size_t i = 0; i < s->n; i++)
        if (block_init(&s->blocks[i], cfg, ff, g, err) != 0)
            return -1;
    return 0;
}

void stack_free(block_stack *s)
{
    if (s->blocks != NULL)
        for (size_t i = 0; i < s->n; i++)
            block_free(&s->blocks[i]);
    free(s->blocks);
    s->blocks = NULL;
    s->n = 0;
}

/* Block i's output, the table out of layer i, which the next block
 * reads (kept to the end: the trace never releases it). */
static const matrix *block_out(const trace *tr, variant_id variant,
                               const attention_config *cfg)
{
    const table_key key = {variant, cfg->layer, NO_HEAD, TABLE_OUT, false};
    const table *t = trace_find(tr, &key);
    return t != NULL ? &t->values : NULL;
}

/* attn_entropy (N, H) of the whole stack, after its blocks: under the
 * running variant outside its layers (its place "block", the CSV's layer
 * empty), as a checkpoint's is under "gpt2"; a row per block ("block.2",
 * the variant's name and the block's index, as the headings name it), a
 * column per head. */
static int record_entropy(trace *tr, variant_id variant, const matrix *entropy,
                          const forward_hooks *hk, mx_error *err)
{
    const table_key key = {variant, 0, NO_HEAD, TABLE_ATTN_ENTROPY, false};
    char prefix[64];
    snprintf(prefix, sizeof prefix, "%s.", variant_id_name(variant));
    table *t = attn_entropy_record(tr, &key, prefix, entropy, err);
    if (t == NULL)
        return -1;
    t->stacked = false; // the whole stack's, not block 0's
    return hook_point(hk, &key, &t->values, err);
}

int stack_forward(trace *tr, variant_id variant, const block_stack *s,
                  const attention_config *cfg, const attention_input *in,
                  const sequence_labels *lab, mx_error *err)
{
    if (!s->stacked)
        return block_forward(tr, variant, &s->blocks[0], cfg, in, lab, err);
    const size_t T = in->x->rows, D = cfg->d_model;
    // each block draws two (B, T, D) masks with --dropout
    const size_t draws = 2 * cfg->batch * T * D;
    attention_config layer = *cfg;
    torch_rng drop;
    if (cfg->dropout > 0) {
        drop = *cfg->dropout_rng;
        layer.dropout_rng = &drop;
    }
    // attn_entropy (N, H): each block's heads write their row
    matrix entropy = {0};
    if (matrix_alloc(&entropy, s->n, cfg->heads, N_("attention weights"),
                     err) != 0)
        return -1;
    layer.entropy = &entropy;
    attention_input x = *in;
    int rc = 0;
    for (size_t i = 0; i < s->n; i++) {
        layer.layer = (int)i;
        if ((rc = block_forward(tr, variant, &s->blocks[i], &layer, &x, lab,
                                err)) != 0)
            break;
        // block i + 1's masks follow block i's
        if (cfg->dropout > 0)
            rng_bernoulli_skip(draws, &drop);
        // x_(i+1) = block i (x_i)
        x.x = x.kv = block_out(tr, variant, &layer);
        assert(x.x != NULL);
    }
    if (rc == 0)
        rc = record_entropy(tr, variant, &entropy, cfg->hooks, err);
    matrix_free(&entropy);
    return rc;
}

int stack_layers(trace *tr, variant_id variant, const block_stack *s,
                 const attention_config *cfg, matrix *x,
                 const sequence_labels *lab, size_t first, size_t count,
                 mx_error *err)
{
    assert(cfg->dropout == 0 && first + count <= s->n);
    const size_t D = cfg->d_model;
    attention_config layer = *cfg;
    layer.entropy = NULL; // attn_entropy is the whole stack's
    attention_input in = {x, x};
    for (size_t i = first; i < first + count; i++) {
        // the lone block keeps cfg's layer, as stack_forward runs it
        if (s->stacked)
            layer.layer = (int)i;
        if (block_forward(tr, variant, &s->blocks[i], &layer, &in, lab, err) !=
            0)
            return -1;
        // x_(i+1) = block i (x_i)
        in.x = in.kv = block_out(tr, variant, &layer);
        assert(in.x != NULL && in.x->rows == x->rows && in.x->cols == D);
    }
    if (in.x != x)
        memcpy(x->v, in.x->v, x->rows * D * sizeof *x->v);
    return 0;
}
