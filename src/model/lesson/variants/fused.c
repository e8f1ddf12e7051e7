/* fused.c: --variant fused, the notebook's MultiHeadAttention: one
 * W_query, W_key and W_value O wide split into heads by view and
 * transpose, then out_proj (attention.h's fused_params, whose
 * constructor and one forward pass attention.c shares with the block):
 * its forward pass in the trace, its training pass (over train.c's
 * fused_tape), --tie, its parameters, size and sentence for --explain,
 * and its row (variants.h).
 *
 * Shapes: T query tokens, S key/value tokens (T for self-attention), D =
 * d_model, O = d_out, H heads, hd = O / H.
 */
#include <stdio.h>
#include <string.h>

#include "base/i18n.h"
#include "model/lesson/train_parts.h"
#include "model/lesson/variants.h"

/* ---- --tie: the wrapper's heads stacked -------------------------------- */

/* Copies src (hd x cols) into rows [first, first + hd) of dst (O x cols). */
static void stack_rows(matrix *dst, const matrix *src, size_t first)
{
    memcpy(matrix_at(dst, first, 0), src->v,
           src->rows * src->cols * sizeof(float));
}

static void stack_linear(linear *dst, const linear *src, size_t h)
{
    const size_t hd = src->weight.rows;
    stack_rows(&dst->weight, &src->weight, h * hd);
    if (dst->bias.v != NULL && src->bias.v != NULL)
        memcpy(dst->bias.v + h * hd, src->bias.v, hd * sizeof(float));
}

void fused_tie_to_wrapper(fused_params *fused, const wrapper_params *wrapper)
{
    // W_query (O, D) = [heads.0.W_query; heads.1.W_query; ...], each (hd, D)
    for (size_t h = 0; h < wrapper->heads; h++) {
        stack_linear(&fused->attn.query, &wrapper->head[h].query, h);
        stack_linear(&fused->attn.key, &wrapper->head[h].key, h);
        stack_linear(&fused->attn.value, &wrapper->head[h].value, h);
    }
}

/* ---- the forward method ---------------------------------------------- */

int fused_forward(trace *tr, const fused_params *p, const attention_config *cfg,
                  const attention_input *in, const sequence_labels *lab,
                  mx_error *err)
{
    const matrix *out;
    return fused_attend(&out, tr, VARIANT_ID_FUSED, TABLE_OUT, p, cfg, in, lab,
                        err);
}

/* ---- the training pass ----------------------------------------------- */

/* MultiHeadAttention: the fused module's one pass (attention.h), which
 * keeps in a fused_tape what its backward reads (train_parts.h). */
static int fused_pass(matrix *dx, void *grad, const void *module,
                      const attention_config *cfg, const matrix *x,
                      top_layer *top, mx_error *err)
{
    const fused_params *p = module;
    fused_tape t;
    scratch s = {0};
    matrix dout = {0};
    int rc = -1;
    if (fused_tape_forward(&t, p, cfg, x, err) != 0 ||
        scratch_alloc(&s, &dout, x->rows, cfg->d_out, err) != 0 ||
        top_pass(&dout, top, &t.out, cfg->pool, err) != 0)
        goto done;
    if (top->dlm_head != NULL) {
        show_grad(top, TABLE_OUT, NO_HEAD, &dout);
        fused_tape_backward(dx, true, grad, &t, p, &dout, cfg, x, top);
    }
    rc = 0;
done:
    fused_tape_free(&t);
    scratch_free(&s);
    return rc;
}

/* ---- the row --------------------------------------------------------- */

int fused_list_params(const param_lister *to, const char *prefix,
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
    return fused_list_params(to, "", d, true, module);
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

const variant_row fused_variant = {
    .d_model_wide = false,
    .stacks = false,
    .heads = HEADS_SPLIT,
    .module_size = sizeof(fused_params),
    .init = fused_make,
    .free = fused_drop,
    .params = fused_list,
    .forward = fused_run,
    .train = fused_pass,
    .size = fused_size,
    .explain = fused_explain,
    .tie = fused_tie,
    .tie_from = VARIANT_ID_WRAPPER,
};
