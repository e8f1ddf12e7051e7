/* variants.c: the rows of the variants (variants.h), in the order of
 * VARIANT_LIST: single, wrapper, fused, block. */
#include "model/lesson/variants.h"

#include <assert.h>
#include <stdio.h>
#include <string.h>

#include "base/i18n.h"

/* ---- single: SelfAttention, one head of width O ----------------------- */

static int single_make(void *module, const attention_config *cfg,
                       const model_dims *d, torch_rng *g, mx_error *err)
{
    (void)d;
    return single_init(module, cfg, g, err);
}

static void single_drop(void *module)
{
    single_free(module);
}

/* W_query, W_key, W_value (D -> O) */
static int single_list(const param_lister *to, const model_dims *d,
                       void *module)
{
    single_params *p = module;
    return list_qkv(to, "", d->d_model, d->d_out, d->qkv_bias, false,
                    p != NULL ? &p->attn : NULL);
}

static int single_run(trace *tr, const void *module,
                      const attention_config *cfg, const attention_input *in,
                      const sequence_labels *lab, mx_error *err)
{
    return single_forward(tr, module, cfg, in, lab, err);
}

/* Q, K, V, context (T x O), scores and weights (T x T); keeps its out. */
static variant_size single_size(const model_dims *d, double t)
{
    const double o = (double)d->d_out;
    return (variant_size){
        .tables = 4.0 * t * o + 2.0 * t * t,
        .kept = t * o,
        .work = 0,
        .head_width = o,
    };
}

static void single_explain(char *text, size_t size, const model_dims *d)
{
    snprintf(text, size,
             _("The single head: one self-attention head of width "
               "d_out = %zu, with its own W_query, W_key and W_value "
               "(each d_out x d_in = %zu x %zu)."),
             d->d_out, d->d_out, d->d_model);
}

/* ---- wrapper: MultiHeadAttentionWrapper, H heads of width hd --------- */

static int wrapper_make(void *module, const attention_config *cfg,
                        const model_dims *d, torch_rng *g, mx_error *err)
{
    (void)d;
    return wrapper_init(module, cfg, g, err);
}

static void wrapper_drop(void *module)
{
    wrapper_free(module);
}

/* heads.h.W_query ... for each head, each D -> hd */
static int wrapper_list(const param_lister *to, const model_dims *d,
                        void *module)
{
    wrapper_params *p = module;
    int rc = 0;
    for (size_t h = 0; h < d->heads && rc == 0; h++) {
        char prefix[32];
        snprintf(prefix, sizeof prefix, "heads.%zu.", h);
        rc = list_qkv(to, prefix, d->d_model, d->d_out / d->heads, d->qkv_bias,
                      false, p != NULL ? &p->head[h] : NULL);
    }
    return rc;
}

static int wrapper_run(trace *tr, const void *module,
                       const attention_config *cfg, const attention_input *in,
                       const sequence_labels *lab, mx_error *err)
{
    return wrapper_forward(tr, module, cfg, in, lab, err);
}

/* The heads' tables, then concat_context (T x O) and its copy, out. */
static variant_size wrapper_size(const model_dims *d, double t)
{
    const double o = (double)d->d_out, h = (double)d->heads;
    return (variant_size){
        .tables = 4.0 * t * o + h * 2.0 * t * t + t * o,
        .kept = t * o,
        .work = 2 * t * o,
        .head_width = o / h,
    };
}

static void wrapper_explain(char *text, size_t size, const model_dims *d)
{
    const size_t hd = d->d_out / d->heads;
    snprintf(
        text, size,
        ngettext("The wrapper: %zu independent head, each a small "
                 "self-attention of width d_out / heads = %zu with its own "
                 "W_query, W_key, W_value (%zu x %zu). Their contexts are "
                 "concatenated at the end. --d-out is the width of all the "
                 "heads together (%zu = %zu x %zu); the book's "
                 "MultiHeadAttentionWrapper takes one head's width as its "
                 "d_out, so this run is MultiHeadAttentionWrapper(%zu, %zu, "
                 "..., num_heads=%zu).",
                 "The wrapper: %zu independent heads, each a small "
                 "self-attention of width d_out / heads = %zu with its own "
                 "W_query, W_key, W_value (%zu x %zu). Their contexts are "
                 "concatenated at the end. --d-out is the width of all the "
                 "heads together (%zu = %zu x %zu); the book's "
                 "MultiHeadAttentionWrapper takes one head's width as its "
                 "d_out, so this run is MultiHeadAttentionWrapper(%zu, %zu, "
                 "..., num_heads=%zu).",
                 d->heads),
        d->heads, hd, hd, d->d_model, d->d_out, d->heads, hd, d->d_model, hd,
        d->heads);
}

/* ---- fused: MultiHeadAttention, one projection split into heads ------- */

/* The fused module under prefix: W_query, W_key, W_value (D -> O), then
 * out_proj (O -> O, with bias). tied: --tie replaces the projections. */
static int list_fused(const param_lister *to, const char *prefix,
                      const model_dims *d, bool tied, fused_params *p)
{
    char layer[48];
    snprintf(layer, sizeof layer, "%sout_proj", prefix);
    int rc = list_qkv(to, prefix, d->d_model, d->d_out, d->qkv_bias, tied,
                      p != NULL ? &p->attn : NULL);
    if (rc == 0)
        rc = list_linear(to, layer, d->d_out, d->d_out, true, false,
                         p != NULL ? &p->out_proj : NULL);
    return rc;
}

static int fused_make(void *module, const attention_config *cfg,
                      const model_dims *d, torch_rng *g, mx_error *err)
{
    (void)d;
    return fused_init(module, cfg, g, err);
}

static void fused_drop(void *module)
{
    fused_free(module);
}

static int fused_list(const param_lister *to, const model_dims *d, void *module)
{
    return list_fused(to, "", d, true, module);
}

static int fused_run(trace *tr, const void *module, const attention_config *cfg,
                     const attention_input *in, const sequence_labels *lab,
                     mx_error *err)
{
    return fused_forward(tr, module, cfg, in, lab, err);
}

/* The heads' tables, concat_context and out (T x O each); Q, K, V and the
 * contexts while it runs. */
static variant_size fused_size(const model_dims *d, double t)
{
    const double o = (double)d->d_out, h = (double)d->heads;
    return (variant_size){
        .tables = 4.0 * t * o + h * 2.0 * t * t + 2.0 * t * o,
        .kept = t * o,
        .work = 4 * t * o,
        .head_width = o / h,
    };
}

static void fused_explain(char *text, size_t size, const model_dims *d)
{
    const size_t hd = d->d_out / d->heads;
    snprintf(
        text, size,
        ngettext("The fused module (MultiHeadAttention): one W_query, W_key "
                 "and W_value of width d_out = %zu for all heads, split into "
                 "%zu head of %zu columns by view and transpose, then "
                 "out_proj (%zu x %zu) mixes the concatenated heads. Same "
                 "arithmetic as the wrapper, in fewer and larger matrix "
                 "products.",
                 "The fused module (MultiHeadAttention): one W_query, W_key "
                 "and W_value of width d_out = %zu for all heads, split into "
                 "%zu heads of %zu columns by view and transpose, then "
                 "out_proj (%zu x %zu) mixes the concatenated heads. Same "
                 "arithmetic as the wrapper, in fewer and larger matrix "
                 "products.",
                 d->heads),
        d->d_out, d->heads, hd, d->d_out, d->d_out);
}

/* --tie: W_query, W_key and W_value become the wrapper's heads stacked. */
static void fused_tie(void *module, const void *wrapper)
{
    fused_tie_to_wrapper(module, wrapper);
}

/* ---- block: the Transformer block, attention d_model wide ------------- */

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
    int rc =
        list_fused(to, attention, d, false, b != NULL ? &b->attention : NULL);
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
    return stack_forward(tr, module, cfg, in, lab, err);
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

/* ---- the rows ---------------------------------------------------------- */

static const variant_row rows[] = {
    [VARIANT_ID_SINGLE - 1] =
        {
            .d_model_wide = false,
            .stacks = false,
            .heads = HEADS_ONE,
            .init = single_make,
            .free = single_drop,
            .params = single_list,
            .forward = single_run,
            .train = single_pass,
            .size = single_size,
            .explain = single_explain,
            .tie = NULL,
        },
    [VARIANT_ID_WRAPPER - 1] =
        {
            .d_model_wide = false,
            .stacks = false,
            .heads = HEADS_APART,
            .init = wrapper_make,
            .free = wrapper_drop,
            .params = wrapper_list,
            .forward = wrapper_run,
            .train = wrapper_pass,
            .size = wrapper_size,
            .explain = wrapper_explain,
            .tie = NULL,
        },
    [VARIANT_ID_FUSED - 1] =
        {
            .d_model_wide = false,
            .stacks = false,
            .heads = HEADS_SPLIT,
            .init = fused_make,
            .free = fused_drop,
            .params = fused_list,
            .forward = fused_run,
            .train = fused_pass,
            .size = fused_size,
            .explain = fused_explain,
            .tie = fused_tie,
            .tie_from = VARIANT_ID_WRAPPER,
        },
    [VARIANT_ID_BLOCK - 1] =
        {
            .d_model_wide = true,
            .stacks = true,
            .heads = HEADS_SPLIT,
            .init = block_make,
            .free = block_drop,
            .params = block_list,
            .forward = block_run,
            .train = block_pass,
            .size = block_size,
            .explain = block_explain,
            .tie = NULL,
        },
};
static_assert(sizeof rows / sizeof rows[0] == VARIANT_ID_COUNT - 1,
              "a row for every variant");

/* Whether variant i's row takes `what` (variants_taking). */
static bool takes(size_t i, enum variant_takes what)
{
    const variant_row *row = &rows[i];
    const table_set tables = model_variants[i].tables;
    switch (what) {
    case TAKES_NOTHING:
        return false;
    case TAKES_LAYERS:
        return row->stacks;
    case TAKES_FF:
        return (tables & TABLE_BIT(FFN_HIDDEN)) != 0;
    case TAKES_TIE:
        return row->tie != NULL;
    case TAKES_DROPOUT:
        return (tables & DROPOUT_TABLES) != 0;
    case TAKES_ATTN_DROPOUT:
        return (tables & DROPOUT_TABLES) == 0;
    case TAKES_AVERAGE:
        return (tables & TABLE_BIT(ATTN_WEIGHTS_AVG)) != 0;
    }
    return false;
}

unsigned variants_taking(enum variant_takes what)
{
    unsigned set = 0;
    for (size_t i = 0; i < MODEL_N_VARIANTS; i++)
        if (takes(i, what))
            set |= model_variants[i].bit;
    return set;
}

bool variant_row_complete(const variant_row *row)
{
    return row->init != NULL && row->free != NULL && row->params != NULL &&
           row->forward != NULL && row->train != NULL && row->size != NULL &&
           row->explain != NULL;
}

const variant_row *variant_row_of(variant_id v)
{
    assert(v > VARIANT_INPUT && v < VARIANT_ID_COUNT);
    assert(variant_row_complete(&rows[v - 1])); /* every variant has its row */
    return &rows[v - 1];
}

model_dims variant_dims(const variant_row *row, const model_dims *run)
{
    model_dims d = *run;
    if (row->d_model_wide)
        d.d_out = d.d_model;
    return d;
}

attention_config variant_attention(const variant_row *row,
                                   const attention_config *run)
{
    attention_config cfg = *run;
    if (row->d_model_wide)
        cfg.d_out = cfg.d_model;
    return cfg;
}

int model_params_each(unsigned variant, const model_dims *d, void *module,
                      param_fn fn, void *ctx)
{
    const variant_id id = variant_of_bit(variant);
    if (id == VARIANT_INPUT)
        return 0;
    const variant_row *row = variant_row_of(id);
    const param_lister to = {fn, ctx};
    const model_dims dims = variant_dims(row, d);
    return row->params(&to, &dims, module);
}
