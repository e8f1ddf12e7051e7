/* single.c: --variant single, the notebook's SelfAttention: one
 * self-attention head of width O with its own W_query, W_key and W_value
 * (attention.h's single_params): its constructor, its forward pass in the
 * trace, its training pass, its parameters, size and sentence for
 * --explain, and its row (variants.h).
 *
 * Shapes: T query tokens, S key/value tokens (T for self-attention), D =
 * d_model, O = d_out, the width of its one head.
 */
#include <stdio.h>

#include "base/i18n.h"
#include "model/layers/dense.h"
#include "model/heads.h"
#include "model/lesson/train_parts.h"
#include "model/lesson/variants.h"

/* ---- the constructor: which nn.Linear are drawn, in which order ------- */

/* SelfAttention(D, O): W_query, W_key, W_value, each nn.Linear(D, O). */
int single_init(single_params *p, const attention_config *cfg, torch_rng *g,
                mx_error *err)
{
    return qkv_init(&p->attn, cfg->d_model, cfg->d_out, cfg->qkv_bias, g, err);
}

void single_free(single_params *p)
{
    qkv_free(&p->attn);
}

/* ---- the forward method ---------------------------------------------- */

/* SelfAttention.forward: one head of width O over x (T, D); its
 * head_context (T, O) is the module's output, kept. */
int single_forward(trace *tr, const single_params *p,
                   const attention_config *cfg, const attention_input *in,
                   const sequence_labels *lab, mx_error *err)
{
    const module_heads src = {
        .variant = VARIANT_ID_SINGLE, .cfg = cfg, .in = in, .own = &p->attn};
    const head_plan plan = {.variant = VARIANT_ID_SINGLE,
                            .heads = 1,
                            .width = cfg->d_out,
                            .projects = true,
                            .attend = module_head,
                            .ctx = &src,
                            .dropout_stride = 0};
    head_set heads = {0};
    const int rc = heads_run(&heads, tr, &plan, cfg, in, lab, err);
    heads_free(&heads);
    return rc;
}

/* ---- the training pass ----------------------------------------------- */

/* SelfAttention: one head of width O; its context is the output. */
static int single_pass(matrix *dx, void *grad, const void *module,
                       const attention_config *cfg, const matrix *x,
                       top_layer *top, mx_error *err)
{
    const single_params *p = module;
    const size_t T = x->rows, O = cfg->d_out, D = x->cols;
    scratch s = {0};
    head_tape h;
    head_room r;
    matrix dout = {0}, part = {0}, dyt = {0};
    int rc = -1;
    if (head_tape_alloc(&h, &s, T, O, err) || head_room_alloc(&r, &s, T, err) ||
        scratch_alloc(&s, &dout, T, O, err) ||
        scratch_alloc(&s, &part, T, D, err) ||
        scratch_alloc(&s, &dyt, O, T, err))
        goto done;
    // q, k, v (T, O) = W_query(x), W_key(x), W_value(x), then attention
    const head_source src = {.own = &p->attn, .x = x, .kv = x};
    head_tape_forward(&h, &src, cfg);
    if (top_pass(&dout, top, &h.context, cfg->pool, err) != 0)
        goto done;
    if (top->dlm_head != NULL) {
        single_params *g = grad;
        head_back(&h, &r, &dout, cfg, top, 0);
        // the causal head is the book's CausalAttention, over a batch:
        // its keys.transpose(1, 2) lays dk out by columns; the unmasked
        // one is SelfAttention_v2, over (T, D): its keys.T gives rows
        const bool by_columns[3] = {false, cfg->causal, false};
        qkv_backward(dx, true, &g->attn, &p->attn, &h.dq, &h.dk, &h.dv,
                     top->qkv_order, by_columns, &part, &dyt, x, cfg->pool);
    }
    rc = 0;
done:
    scratch_free(&s);
    return rc;
}

/* ---- the row --------------------------------------------------------- */

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

const variant_row single_variant = {
    .d_model_wide = false,
    .stacks = false,
    .heads = HEADS_ONE,
    .module_size = sizeof(single_params),
    .init = single_make,
    .free = single_drop,
    .params = single_list,
    .forward = single_run,
    .train = single_pass,
    .size = single_size,
    .explain = single_explain,
    .tie = NULL,
};
