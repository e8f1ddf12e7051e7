/* attention.c: the notebooks' three attention modules, their constructors
 * and forward methods (attention.h), over the scheduling of their heads
 * in heads.c.
 *
 * Shapes: T query tokens, S key/value tokens (T for self-attention), D =
 * d_model, O = d_out, H heads, hd = O / H the width of a head (O in the
 * single head).
 */
#include "model/lesson/attention.h"

#include <stdlib.h>
#include <string.h>

#include "base/i18n.h"
#include "model/heads.h"
#include "model/layers/dense.h"
#include "model/hooks.h"

/* ---- the constructors: which nn.Linear are drawn, in which order ------- */

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

/* MultiHeadAttention(D, O, H): W_query, W_key, W_value, each nn.Linear(D,
 * O), then out_proj, nn.Linear(O, O) with a bias. */
int fused_init(fused_params *p, const attention_config *cfg, torch_rng *g,
               mx_error *err)
{
    memset(p, 0, sizeof *p);
    if (qkv_init(&p->attn, cfg->d_model, cfg->d_out, cfg->qkv_bias, g, err) !=
        0)
        return -1;
    if (linear_init(&p->out_proj, cfg->d_out, cfg->d_out, true, g, err) != 0) {
        fused_free(p);
        return -1;
    }
    return 0;
}

void fused_free(fused_params *p)
{
    qkv_free(&p->attn);
    linear_free(&p->out_proj);
}

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

/* ---- the layers ------------------------------------------------------- */

/* The lessons' head: masked -inf, then softmax(attn_scores / sqrt(hd))
 * (attention_head.h). */
static head_spec lesson_head(const attention_config *cfg, size_t hd)
{
    return (head_spec){.causal = cfg->causal,
                       .divisor = score_divisor(hd, cfg->scale),
                       .scale = SCALE_IN_SOFTMAX,
                       .dropout = cfg->attn_dropout};
}

/* Where the heads' q, k and v come from, and what they attend with. */
typedef struct {
    variant_id variant;
    const attention_config *cfg;
    const attention_input *in;
    const qkv *own;          /* head h's own W_query, W_key, W_value */
    const matrix *Q, *K, *V; /* the fused module's: Q (T, O), K, V (S, O) */
} module_heads;

/* One head of a module: a head of the wrapper or the single head with
 * its own projections of x, or a head of the fused module with its
 * columns of Q, K and V (view (T, H, hd), then transpose (H, T, hd));
 * then its attention (attention_head.h). */
static int module_head(const head_tables *t, const void *ctx, mx_error *err)
{
    const module_heads *src = ctx;
    const size_t hd = t->q->cols, first = t->h * hd;
    head_source from = {.x = src->in->x, .kv = src->in->kv};
    if (src->own != NULL)
        from.own = &src->own[t->h];
    else
        from = (head_source){.from = {src->Q, src->K, src->V},
                             .first = {first, first, first}};
    const head_spec spec = lesson_head(src->cfg, hd);
    const table_key at = {src->variant, src->cfg->layer, (int)t->h,
                          TABLE_QUERIES, false};
    return attention_head_forward(t, &from, &spec, src->cfg->hooks, &at,
                                  src->cfg->pool, err);
}

/* The hook point of the module's table id over m. */
static int module_point(const attention_config *cfg, variant_id variant,
                        table_id id, matrix *m, mx_error *err)
{
    const table_key at = {variant, cfg->layer, NO_HEAD, id, false};
    return hook_point(cfg->hooks, &at, m, err);
}

/* A new table id (T, width) of variant in cfg's layer, one row per
 * token. */
static table *new_table(trace *tr, variant_id variant, table_id id,
                        size_t width, const attention_config *cfg,
                        const sequence_labels *lab, mx_error *err)
{
    const table_key key = {variant, cfg->layer, NO_HEAD, id, false};
    const labels *dims = trace_index_labels(tr, "dim", width, err);
    return dims == NULL ? NULL : trace_new(tr, &key, lab->tokens, dims, err);
}

/* The concatenation, concat_context (T, O): the heads' head_context (T,
 * hd) side by side, head h in columns [h*hd, (h+1)*hd) (the wrapper's
 * torch.cat(..., dim=-1), the fused module's transpose back to (T, H,
 * hd) and view (T, O)). The contexts are released once read. */
static table *concat_heads(trace *tr, variant_id variant, const head_set *heads,
                           size_t width, const attention_config *cfg,
                           const sequence_labels *lab, mx_error *err)
{
    table *concat =
        new_table(tr, variant, TABLE_CONCAT_CONTEXT, width, cfg, lab, err);
    if (concat == NULL)
        return NULL;
    const size_t hd = width / heads->n;
    for (size_t h = 0; h < heads->n; h++) {
        put_columns(&concat->values, heads_context(heads, h), h * hd);
        heads_release_context(tr, heads, h);
    }
    return module_point(cfg, variant, TABLE_CONCAT_CONTEXT, &concat->values,
                        err) == 0
               ? concat
               : NULL;
}

/* The output projection, out (T, O) = out_proj(concat_context) =
 * concat_context (T, O) @ out_proj.weight^T + out_proj.bias, made as the
 * table out_id of variant. concat is released once read. */
static table *project_out(trace *tr, variant_id variant, table_id out_id,
                          table *concat, const linear *out_proj,
                          const attention_config *cfg,
                          const sequence_labels *lab, mx_error *err)
{
    table *out = new_table(tr, variant, out_id, cfg->d_out, cfg, lab, err);
    if (out == NULL)
        return NULL;
    linear_layer_forward(&out->values, &concat->values, out_proj, cfg->pool);
    trace_release(tr, concat);
    return module_point(cfg, variant, out_id, &out->values, err) == 0 ? out
                                                                      : NULL;
}

/* ---- the forward methods ---------------------------------------------- */

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

/* MultiHeadAttention.forward over x (T, D) (keys and values over kv (S,
 * D)):
 *   Q (T, O), K and V (S, O)   = W_query(x), W_key(kv), W_value(kv)
 *   per head (view, transpose)  q (T, hd), k and v (S, hd): attention
 *   concat_context (T, O)      = the heads' contexts, transposed back
 *   out (T, O)                 = out_proj(concat_context)
 * out is made as the table out_id. */
int fused_attend(const matrix **out, trace *tr, variant_id variant,
                 table_id out_id, const fused_params *p,
                 const attention_config *cfg, const attention_input *in,
                 const sequence_labels *lab, mx_error *err)
{
    const size_t T = in->x->rows, S = in->kv->rows, O = cfg->d_out;
    matrix Q = {0}, K = {0}, V = {0};
    int rc = -1;

    // Q (T, O), K and V (S, O) = x @ W^T: one projection for all heads,
    // working matrices that the trace does not keep
    if (matrix_alloc(&Q, T, O, N_("the queries"), err) == 0 &&
        matrix_alloc(&K, S, O, N_("the keys"), err) == 0 &&
        matrix_alloc(&V, S, O, N_("the values"), err) == 0) {
        // Q, K, V = W_query(x), W_key(kv), W_value(kv)
        qkv_forward(&Q, &K, &V, &p->attn, in->x, in->kv, cfg->pool);
        rc = 0;
    }

    // the heads: each split off Q, K and V, then its attention
    const module_heads src = {
        .variant = variant, .cfg = cfg, .in = in, .Q = &Q, .K = &K, .V = &V};
    const head_plan plan = {.variant = variant,
                            .heads = cfg->heads,
                            .width = O / cfg->heads,
                            .attend = module_head,
                            .ctx = &src,
                            .what = N_("the heads"),
                            // one (B, H, T, S) tensor: element 0's heads
                            // first
                            .dropout_stride = T * S};
    head_set heads = {0};
    if (rc == 0)
        rc = heads_run(&heads, tr, &plan, cfg, in, lab, err);
    matrix_free(&Q);
    matrix_free(&K);
    matrix_free(&V);

    // concat_context (T, O): transpose back (T, H, hd) and view (T, O)
    table *concat =
        rc == 0 ? concat_heads(tr, variant, &heads, O, cfg, lab, err) : NULL;
    heads_free(&heads);

    // out (T, O) = out_proj(concat_context)
    const table *o = concat == NULL ? NULL
                                    : project_out(tr, variant, out_id, concat,
                                                  &p->out_proj, cfg, lab, err);
    if (o == NULL)
        return -1;
    *out = &o->values;
    return 0;
}

int fused_forward(trace *tr, const fused_params *p, const attention_config *cfg,
                  const attention_input *in, const sequence_labels *lab,
                  mx_error *err)
{
    const matrix *out;
    return fused_attend(&out, tr, VARIANT_ID_FUSED, TABLE_OUT, p, cfg, in, lab,
                        err);
}
