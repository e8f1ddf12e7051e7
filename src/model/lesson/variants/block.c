/* block.c: --variant block, the Transformer block of the Cantonese
 * lesson, or with --layers N a stack of N (block.h, stack.h: their
 * constructor and forward pass; block_train.c: their training pass):
 * its parameters, size and sentence for --explain, and its row
 * (variants.h).
 *
 * Shapes: T tokens, D = d_model (the attention's width O too), H heads,
 * F the feed-forward width, N the blocks.
 */
#include <stdio.h>
#include <string.h>

#include "base/i18n.h"
#include "model/lesson/variants.h"

/* One block, or with --layers N a stack of N (stack.h). */
static int block_make(void *module, const attention_config *cfg,
                      const model_dims *d, torch_rng *g, mx_error *err)
{
    return stack_init(module, cfg, d->attn_only ? 0 : d->ff, d->layers, g, err);
}

static void block_drop(void *module)
{
    stack_free(module);
}

/* One block's parameters under prefix: attention.*, norm1, ff.0 (D -> F),
 * ff.2 (F -> D), norm2; the attention-only block's attention.* alone. */
static int list_block(const param_lister *to, const char *prefix,
                      const model_dims *d, block_params *b)
{
    const size_t D = d->d_model;
    char attention[24], norm1[24], ff0[24], ff2[24], norm2[24];
    snprintf(attention, sizeof attention, "%sattention.", prefix);
    snprintf(norm1, sizeof norm1, "%snorm1", prefix);
    snprintf(ff0, sizeof ff0, "%sff.0", prefix);
    snprintf(ff2, sizeof ff2, "%sff.2", prefix);
    snprintf(norm2, sizeof norm2, "%snorm2", prefix);
    int rc = fused_list_params(to, attention, d, false,
                               b != NULL ? &b->attention : NULL);
    if (d->attn_only)
        return rc;
    if (rc == 0)
        rc = list_norm(to, norm1, D, b ? &b->norm1_weight : NULL,
                       b ? &b->norm1_bias : NULL);
    if (rc == 0)
        rc = list_linear(to, ff0, D, d->ff, true, false, b ? &b->ff0 : NULL);
    if (rc == 0)
        rc = list_linear(to, ff2, d->ff, D, true, false, b ? &b->ff2 : NULL);
    if (rc == 0)
        rc = list_norm(to, norm2, D, b ? &b->norm2_weight : NULL,
                       b ? &b->norm2_bias : NULL);
    return rc;
}

/* A stacked block's listing: each parameter marked with its block. */
typedef struct {
    const param_lister *to;
    int layer;
} stack_lister;

static int stacked_param(const param_info *p, void *ctx)
{
    const stack_lister *s = ctx;
    param_info q = *p;
    q.stack_layer = s->layer;
    return s->to->fn(&q, s->to->ctx);
}

/* The block's parameters; a stack's as nn.Sequential names them, each
 * block's after its index ("0.attention.W_query.weight"). */
static int block_list(const param_lister *to, const model_dims *d, void *module)
{
    block_stack *s = module;
    if (d->layers == 0)
        return list_block(to, "", d, s != NULL ? &s->blocks[0] : NULL);
    int rc = 0;
    for (size_t i = 0; i < d->layers && rc == 0; i++) {
        char prefix[24];
        snprintf(prefix, sizeof prefix, "%zu.", i);
        stack_lister each = {to, (int)i};
        const param_lister marked = {stacked_param, &each};
        rc = list_block(&marked, prefix, d, s != NULL ? &s->blocks[i] : NULL);
    }
    return rc;
}

static int block_run(trace *tr, const void *module, const attention_config *cfg,
                     const attention_input *in, const sequence_labels *lab,
                     mx_error *err)
{
    // the tables under this variant's name ("block")
    return stack_forward(tr, VARIANT_ID_BLOCK, module, cfg, in, lab, err);
}

static int block_layers(trace *tr, const void *module,
                        const attention_config *cfg, matrix *x,
                        const sequence_labels *lab, size_t first, size_t count,
                        mx_error *err)
{
    return stack_layers(tr, VARIANT_ID_BLOCK, module, cfg, x, lab, first, count,
                        err);
}

/* The fused attention's tables as attn_out (T x D), then add_norm1,
 * ffn_hidden (T x F), ffn_out and out, in each block of the stack; keeps
 * the last four of each. */
static variant_size block_size(const model_dims *d, double t)
{
    const double dm = (double)d->d_model, h = (double)d->heads,
                 f = (double)d->ff, n = d->layers > 0 ? (double)d->layers : 1.0;
    return (variant_size){
        .tables = n * (4.0 * t * dm + h * 2.0 * t * t + 2.0 * t * dm +
                       t * (f + 3.0 * dm)),
        .kept = n * t * (f + 4 * dm),
        .work = 4 * t * dm,
        .head_width = dm / h,
    };
}

static void block_explain(char *text, size_t size, const model_dims *d)
{
    if (d->attn_only)
        snprintf(text, size,
                 ngettext("The attention-only block: the fused attention "
                          "(%zu head) and a residual connection, out = x + "
                          "attention(x), with no feed-forward network and no "
                          "LayerNorm, as the induction-heads work's models.",
                          "The attention-only block: the fused attention "
                          "(%zu heads) and a residual connection, out = x + "
                          "attention(x), with no feed-forward network and no "
                          "LayerNorm, as the induction-heads work's models.",
                          d->heads),
                 d->heads);
    else
        snprintf(
            text, size,
            ngettext("The Transformer block: the fused attention (%zu "
                     "head), then a residual connection and LayerNorm, then "
                     "a feed-forward network (%zu -> %zu -> %zu with ReLU), "
                     "then another residual connection and LayerNorm "
                     "(post-norm, evaluation mode: no dropout).",
                     "The Transformer block: the fused attention (%zu "
                     "heads), then a residual connection and LayerNorm, then "
                     "a feed-forward network (%zu -> %zu -> %zu with ReLU), "
                     "then another residual connection and LayerNorm "
                     "(post-norm, evaluation mode: no dropout).",
                     d->heads),
            d->heads, d->d_model, d->ff, d->d_model);
    const size_t n = strlen(text);
    if (d->layers > 0 && n + 1 < size) {
        text[n] = ' ';
        snprintf(text + n + 1, size - n - 1,
                 ngettext("Stacked %zu time as nn.Sequential(*[block for _ in "
                          "range(%zu)]): each block is drawn after the one "
                          "before and reads its out, block 0 the inputs; the "
                          "headings and the CSV's layer column name the block "
                          "(block.0, block.1, ...).",
                          "Stacked %zu times as nn.Sequential(*[block for _ "
                          "in range(%zu)]): each block is drawn after the one "
                          "before and reads its out, block 0 the inputs; the "
                          "headings and the CSV's layer column name the block "
                          "(block.0, block.1, ...).",
                          d->layers),
                 d->layers, d->layers);
    }
}

/* ---- the row --------------------------------------------------------- */

const variant_row block_variant = {
    .d_model_wide = true,
    .stacks = true,
    .lm_head = true,
    .heads = HEADS_SPLIT,
    .module_size = sizeof(block_stack),
    .init = block_make,
    .free = block_drop,
    .params = block_list,
    .forward = block_run,
    .layers = block_layers,
    .train = block_pass,
    .size = block_size,
    .explain = block_explain,
    .tie = NULL,
};
