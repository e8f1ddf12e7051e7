/* wrapper.c: --variant wrapper, the notebook's
 * MultiHeadAttentionWrapper: H heads of width hd = O / H, each with its
 * own W_query, W_key and W_value, their contexts side by side
 * (attention.h's wrapper_params): its constructor, its forward pass in
 * the trace, its training pass, its parameters, size and sentence for
 * --explain, and its row (variants.h).
 *
 * Shapes: T query tokens, S key/value tokens (T for self-attention), D =
 * d_model, O = d_out, H heads, hd = O / H.
 */
#include <stdio.h>
#include <stdlib.h>

#include "base/i18n.h"
#include "model/layers/dense.h"
#include "model/heads.h"
#include "model/lesson/train_parts.h"
#include "model/lesson/variants.h"

/* ---- the constructor: which nn.Linear are drawn, in which order ------- */

/* MultiHeadAttentionWrapper(D, O, H): H heads, each a CausalAttention(D,
 * hd) with its own W_query, W_key, W_value, drawn head after head. */
int wrapper_init(wrapper_params *p, const attention_config *cfg, torch_rng *g,
                 mx_error *err)
{
    const size_t hd = cfg->d_out / cfg->heads;
    p->heads = 0;
    p->head = calloc(cfg->heads, sizeof *p->head);
    if (p->head == NULL)
        return err_nomem(err, _("the wrapper's heads"));
    for (size_t h = 0; h < cfg->heads; h++) {
        if (qkv_init(&p->head[h], cfg->d_model, hd, cfg->qkv_bias, g, err) !=
            0) {
            wrapper_free(p);
            return -1;
        }
        p->heads++;
    }
    return 0;
}

void wrapper_free(wrapper_params *p)
{
    for (size_t h = 0; h < p->heads; h++)
        qkv_free(&p->head[h]);
    free(p->head);
    p->head = NULL;
    p->heads = 0;
}

/* ---- the forward method ---------------------------------------------- */

/* The wrapper's concatenation, concat_context (T, O): the heads'
 * head_context (T, hd) side by side, head h in columns [h*hd, (h+1)*hd)
 * (torch.cat(..., dim=-1)). The contexts are released once read. */
static table *concat_heads(trace *tr, variant_id variant, const head_set *heads,
                           size_t width, const attention_config *cfg,
                           const sequence_labels *lab, mx_error *err)
{
    table *concat =
        module_table(tr, variant, TABLE_CONCAT_CONTEXT, width, cfg, lab, err);
    if (concat == NULL)
        return NULL;
    const size_t hd = width / heads->n;
    for (size_t h = 0; h < heads->n; h++) {
        put_columns(&concat->values, heads_context(heads, h), h * hd);
        heads_release_context(tr, heads, h);
    }
    return module_point(cfg->hooks, cfg, variant, TABLE_CONCAT_CONTEXT,
                        &concat->values, err) == 0
               ? concat
               : NULL;
}

/* MultiHeadAttentionWrapper.forward: torch.cat([head(x) for head in
 * self.heads], dim=-1), each head projecting x (T, D) to its own q (T,
 * hd), k and v (S, hd); concat_context (T, O). */
int wrapper_forward(trace *tr, const wrapper_params *p,
                    const attention_config *cfg, const attention_input *in,
                    const sequence_labels *lab, mx_error *err)
{
    const module_heads src = {
        .variant = VARIANT_ID_WRAPPER, .cfg = cfg, .in = in, .own = p->head};
    const head_plan plan = {.variant = VARIANT_ID_WRAPPER,
                            .heads = p->heads,
                            .width = cfg->d_out / cfg->heads,
                            .projects = true,
                            .attend = module_head,
                            .ctx = &src,
                            .what = N_("the wrapper's heads"),
                            // each head drops its own (B, T, S) weights
                            .dropout_stride =
                                cfg->batch * in->x->rows * in->kv->rows};
    head_set heads = {0};
    int rc = heads_run(&heads, tr, &plan, cfg, in, lab, err);
    if (rc == 0 && concat_heads(tr, VARIANT_ID_WRAPPER, &heads, cfg->d_out, cfg,
                                lab, err) == NULL)
        rc = -1;
    heads_free(&heads);
    return rc;
}

/* ---- the training pass ----------------------------------------------- */

/* MultiHeadAttentionWrapper: H heads of width hd, each with its own
 * projections, contexts side by side (torch.cat). */
static int wrapper_pass(matrix *dx, void *grad, const void *module,
                        const attention_config *cfg, const matrix *x,
                        top_layer *top, mx_error *err)
{
    const wrapper_params *p = module;
    const size_t T = x->rows, O = cfg->d_out, D = x->cols, H = p->heads;
    const size_t hd = O / H;
    scratch s = {0};
    head_tape *h = calloc(H, sizeof *h);
    head_room r;
    matrix out = {0}, dout = {0}, dctx = {0}, part = {0}, dyt = {0};
    int rc = -1;
    if (h == NULL) {
        err_nomem(err, _("the training's working tables"));
        goto done;
    }
    if (head_room_alloc(&r, &s, T, err) || scratch_alloc(&s, &out, T, O, err) ||
        scratch_alloc(&s, &dout, T, O, err) ||
        scratch_alloc(&s, &dctx, T, hd, err) ||
        scratch_alloc(&s, &part, T, D, err) ||
        scratch_alloc(&s, &dyt, hd, T, err))
        goto done;
    for (size_t i = 0; i < H; i++)
        if (head_tape_alloc(&h[i], &s, T, hd, err) != 0)
            goto done;
    for (size_t i = 0; i < H; i++) {
        const head_source src = {.own = &p->head[i], .x = x, .kv = x};
        head_tape_forward(&h[i], &src, cfg);
        put_columns(&out, &h[i].context, i * hd);
    }
    if (top_pass(&dout, top, &out, cfg->pool, err) != 0)
        goto done;
    if (top->dlm_head != NULL) {
        wrapper_params *g = grad;
        show_grad(top, TABLE_CONCAT_CONTEXT, NO_HEAD, &dout);
        // the last head's backward runs first
        static const bool by_columns[3] = {false, true, false};
        for (size_t i = H; i-- > 0;) {
            take_columns(&dctx, &dout, i * hd);
            head_back(&h[i], &r, &dctx, cfg, top, (int)i);
            qkv_backward(dx, i == H - 1, &g->head[i], &p->head[i], &h[i].dq,
                         &h[i].dk, &h[i].dv, top->qkv_order, by_columns, &part,
                         &dyt, x, cfg->pool);
        }
    }
    rc = 0;
done:
    scratch_free(&s);
    free(h);
    return rc;
}

/* ---- the row --------------------------------------------------------- */

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

const variant_row wrapper_variant = {
    .d_model_wide = false,
    .stacks = false,
    .heads = HEADS_APART,
    .module_size = sizeof(wrapper_params),
    .init = wrapper_make,
    .free = wrapper_drop,
    .params = wrapper_list,
    .forward = wrapper_run,
    .train = wrapper_pass,
    .size = wrapper_size,
    .explain = wrapper_explain,
    .tie = NULL,
};
