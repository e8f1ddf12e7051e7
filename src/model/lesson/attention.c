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
#include "model/dropout.h"
#include "model/heads.h"

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

/* queries = W_query(x), keys = W_key(kv), values = W_value(kv):
 * q (T, width) = x (T, D) @ W_query.weight^T (+ bias), k and v (S, width)
 * likewise from kv (S, D). */
static void project_qkv(matrix *q, matrix *k, matrix *v, const qkv *p,
                        const attention_input *in, workers *pool)
{
    linear_forward(q, in->x, &p->query.weight, p->query.bias.v, pool);
    linear_forward(k, in->kv, &p->key.weight, p->key.bias.v, pool);
    linear_forward(v, in->kv, &p->value.weight, p->value.bias.v, pool);
}

/* One head's attention, from its q (T, hd), k and v (S, hd):
 *   attn_scores (T, S)   = q @ k^T, later keys -inf when causal
 *   attn_weights (T, S)  = softmax(attn_scores / sqrt(hd), dim=-1)
 *   (--attn-dropout: dropout_mask (T, S), attn_weights_dropped (T, S) =
 *    attn_weights * dropout_mask, which the context then reads)
 *   head_context (T, hd) = attn_weights @ v
 * (the scores are kept raw, -inf where masked). */
static void attend(const head_tables *t, const attention_config *cfg)
{
    // attn_scores (T, S) = q (T, hd) @ k (S, hd)^T, later keys masked
    if (cfg->causal)
        causal_scores(t->scores, t->q, t->k, cfg->pool);
    else
        matmul_transposed(t->scores, t->q, t->k, cfg->pool);

    // attn_weights (T, S) = softmax(attn_scores / sqrt(hd))
    const float divisor = score_divisor(t->q->cols, cfg->scale);
    softmax_rows(t->weights, t->scores, divisor);

    // --attn-dropout: attn_weights = self.dropout(attn_weights), training
    // mode: dropout_mask (T, S), attn_weights_dropped (T, S)
    const matrix *weights = t->weights;
    if (t->mask != NULL) {
        torch_rng g = *t->drop;
        const size_t n = t->weights->rows * t->weights->cols;
        dropout_noise(t->mask->v, n, cfg->attn_dropout, &g);
        dropout_apply(t->dropped->v, t->weights->v, t->mask->v, n);
        weights = t->dropped;
    }

    // head_context (T, hd) = attn_weights (T, S) @ v (S, hd)
    matmul(t->context, weights, t->v, cfg->pool);
}

/* Where the heads' q, k and v come from, and what they attend with. */
typedef struct {
    const attention_config *cfg;
    const attention_input *in;
    const qkv *own;          /* head h's own W_query, W_key, W_value */
    const matrix *Q, *K, *V; /* the fused module's: Q (T, O), K, V (S, O) */
} head_source;

/* A head of the wrapper, or the single head: head(x), its own
 * projections, then its attention. */
static void own_head(const head_tables *t, const void *ctx)
{
    const head_source *src = ctx;
    project_qkv(t->q, t->k, t->v, &src->own[t->h], src->in, src->cfg->pool);
    attend(t, src->cfg);
}

/* The split into heads, view (T, H, hd) then transpose (H, T, hd): head
 * h's q (T, hd), k and v (S, hd) are columns [h*hd, (h+1)*hd) of Q, K, V.
 */
static void split_head(const head_tables *t, const void *ctx)
{
    const head_source *src = ctx;
    const size_t hd = t->q->cols;
    take_columns(t->q, src->Q, t->h * hd);
    take_columns(t->k, src->K, t->h * hd);
    take_columns(t->v, src->V, t->h * hd);
}

/* A head of the fused module, its q, k and v split off: its attention. */
static void split_off_head(const head_tables *t, const void *ctx)
{
    const head_source *src = ctx;
    attend(t, src->cfg);
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
    return concat;
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
    linear_forward(&out->values, &concat->values, &out_proj->weight,
                   out_proj->bias.v, cfg->pool);
    trace_release(tr, concat);
    return out;
}

/* ---- the forward methods ---------------------------------------------- */

/* SelfAttention.forward: one head of width O over x (T, D); its
 * head_context (T, O) is the module's output, kept. */
int single_forward(trace *tr, const single_params *p,
                   const attention_config *cfg, const attention_input *in,
                   const sequence_labels *lab, mx_error *err)
{
    const head_source src = {.cfg = cfg, .in = in, .own = &p->attn};
    const head_plan plan = {.variant = VARIANT_ID_SINGLE,
                            .heads = 1,
                            .width = cfg->d_out,
                            .attend = own_head,
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
    const head_source src = {.cfg = cfg, .in = in, .own = p->head};
    const head_plan plan = {.variant = VARIANT_ID_WRAPPER,
                            .heads = p->heads,
                            .width = cfg->d_out / cfg->heads,
                            .attend = own_head,
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
        project_qkv(&Q, &K, &V, &p->attn, in, cfg->pool);
        rc = 0;
    }

    // the heads: each split off Q, K and V, then its attention
    const head_source src = {.cfg = cfg, .in = in, .Q = &Q, .K = &K, .V = &V};
    const head_plan plan = {.variant = variant,
                            .heads = cfg->heads,
                            .width = O / cfg->heads,
                            .split = split_head,
                            .attend = split_off_head,
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
