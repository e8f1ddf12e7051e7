/* attention.c: scaled dot-product attention, head by head.
 *
 * Legend (as in tensor.h): T tokens, D model width, O output width,
 * H heads, hd = O / H head width.
 */
#include "attention.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "i18n.h"

/* ---- parameters ------------------------------------------------------ */

int single_init(single_params *p, const attention_config *cfg, torch_rng *g,
                mx_error *err)
{
    return qkv_init(&p->attn, cfg->d_model, cfg->d_out, cfg->qkv_bias, g, err);
}

void single_free(single_params *p)
{
    qkv_free(&p->attn);
}

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

/* ---- one head --------------------------------------------------------- */

/* One head's queries (T, width), keys and values (S, width), made in the
 * trace under (variant, h). */
typedef struct {
    matrix *q, *k, *v;
} head_qkv;

static int new_head_qkv(head_qkv *out, trace *tr, const char *variant, int h,
                        size_t width, const sequence_labels *lab, mx_error *err)
{
    const labels *dims = trace_index_labels(tr, "dim", width, err);
    if (dims == NULL)
        return -1;
    table *q = trace_new(tr, variant, h, "queries", lab->queries, dims, err);
    table *k = q == NULL
                   ? NULL
                   : trace_new(tr, variant, h, "keys", lab->keys, dims, err);
    table *v =
        k == NULL ? NULL
                  : trace_new(tr, variant, h, "values", lab->values, dims, err);
    if (v == NULL)
        return -1;
    out->q = &q->values;
    out->k = &k->values;
    out->v = &v->values;
    return 0;
}

/* Attention of one head, whose queries q (T, hd) and keys and values k, v
 * (S, hd) are already in the trace. Makes attn_scores (T, S) (raw, -inf
 * where masked), attn_weights (T, S) and head_context (T, hd) under
 * (variant, h). */
static int attention_head(trace *tr, const char *variant, int h,
                          const head_qkv *in, const attention_config *cfg,
                          const sequence_labels *lab, mx_error *err)
{
    const size_t hd = in->q->cols;
    const labels *dims = trace_index_labels(tr, "dim", hd, err);
    if (dims == NULL)
        return -1;
    table *attn_scores =
        trace_new(tr, variant, h, "attn_scores", lab->queries, lab->keys, err);
    table *attn_weights = attn_scores == NULL
                              ? NULL
                              : trace_new(tr, variant, h, "attn_weights",
                                          lab->queries, lab->keys, err);
    table *head_context =
        attn_weights == NULL
            ? NULL
            : trace_new(tr, variant, h, "head_context", lab->tokens, dims, err);
    if (head_context == NULL)
        return -1;

    // attn_scores (T, S) = q (T, hd) @ k (S, hd)^T, later keys masked
    matmul_transposed(&attn_scores->values, in->q, in->k);
    if (cfg->causal)
        causal_mask(&attn_scores->values);

    // attn_weights (T, S) = softmax(attn_scores / sqrt(hd)),
    // sqrt(hd) computed as keys.shape[-1]**0.5
    const float divisor = cfg->scale ? (float)pow((double)hd, 0.5) : 1.0f;
    softmax_rows(&attn_weights->values, &attn_scores->values, divisor);

    // head_context (T, hd) = attn_weights (T, S) @ v (S, hd)
    matmul(&head_context->values, &attn_weights->values, in->v);
    return 0;
}

/* q (T, width) from in->x (T, D); k, v (S, width) from in->kv (S, D). */
static void project_qkv(const head_qkv *out, const qkv *p,
                        const attention_input *in)
{
    linear_forward(out->q, in->x, &p->query.weight, p->query.bias.v);
    linear_forward(out->k, in->kv, &p->key.weight, p->key.bias.v);
    linear_forward(out->v, in->kv, &p->value.weight, p->value.bias.v);
}

int record_average(trace *tr, const char *variant, size_t heads, mx_error *err)
{
    const table *first = trace_find(tr, variant, 0, "attn_weights");
    if (first == NULL)
        return 0;
    table *avg = trace_new(tr, variant, NO_HEAD, "attn_weights_avg",
                           first->rows, first->cols, err);
    if (avg == NULL)
        return -1;
    // stacked (H, T * S) = the heads' weights, as the (1, H, T, S) view
    // nn.MultiheadAttention averages over dim 1; avg (T, S) its mean
    const size_t cells = avg->values.rows * avg->values.cols;
    matrix stacked = {0};
    if (matrix_alloc(&stacked, heads, cells, N_("the stacked weights"), err) !=
        0)
        return -1;
    for (size_t h = 0; h < heads; h++) {
        const table *t = trace_find(tr, variant, (int)h, "attn_weights");
        if (t != NULL)
            memcpy(matrix_at(&stacked, h, 0), t->values.v,
                   cells * sizeof(float));
    }
    mean_rows(avg->values.v, stacked.v, heads, cells);
    matrix_free(&stacked);
    return 0;
}

/* concat_context (T, O) under variant: the heads' head_context tables
 * side by side (torch.cat(..., dim=-1), or transpose back and view). */
static const matrix *concat_heads(trace *tr, const char *variant, size_t heads,
                                  size_t width, const sequence_labels *lab,
                                  mx_error *err)
{
    const labels *dims = trace_index_labels(tr, "dim", width, err);
    table *concat = dims == NULL
                        ? NULL
                        : trace_new(tr, variant, NO_HEAD, "concat_context",
                                    lab->tokens, dims, err);
    if (concat == NULL)
        return NULL;
    const size_t hd = width / heads;
    for (size_t h = 0; h < heads; h++)
        put_columns(&concat->values,
                    &trace_find(tr, variant, (int)h, "head_context")->values,
                    h * hd);
    return &concat->values;
}

/* ---- the three modules ----------------------------------------------- */

int single_forward(trace *tr, const single_params *p,
                   const attention_config *cfg, const attention_input *in,
                   const sequence_labels *lab, mx_error *err)
{
    head_qkv t;
    if (new_head_qkv(&t, tr, "single", 0, cfg->d_out, lab, err) != 0)
        return -1;
    project_qkv(&t, &p->attn, in);
    // one head of width O: its context is the module's output
    return attention_head(tr, "single", 0, &t, cfg, lab, err);
}

int wrapper_forward(trace *tr, const wrapper_params *p,
                    const attention_config *cfg, const attention_input *in,
                    const sequence_labels *lab, mx_error *err)
{
    const size_t hd = cfg->d_out / cfg->heads;
    for (size_t h = 0; h < p->heads; h++) {
        // each head projects x (T, D) to its own q, k, v (T, hd)
        head_qkv t;
        if (new_head_qkv(&t, tr, "wrapper", (int)h, hd, lab, err) != 0)
            return -1;
        project_qkv(&t, &p->head[h], in);
        if (attention_head(tr, "wrapper", (int)h, &t, cfg, lab, err) != 0)
            return -1;
    }
    // torch.cat([head(x) for head in heads], dim=-1)
    return concat_heads(tr, "wrapper", p->heads, cfg->d_out, lab, err) != NULL
               ? 0
               : -1;
}

int fused_attend(const matrix **out, trace *tr, const char *variant,
                 const char *out_name, const fused_params *p,
                 const attention_config *cfg, const attention_input *in,
                 const sequence_labels *lab, mx_error *err)
{
    const size_t T = in->x->rows, S = in->kv->rows;
    const size_t hd = cfg->d_out / cfg->heads;
    matrix Q = {0}, K = {0}, V = {0};
    int rc = -1;

    // Q (T, O), K and V (S, O) = x @ W^T: one projection for all heads,
    // working matrices that the trace does not keep
    if (matrix_alloc(&Q, T, cfg->d_out, N_("queries"), err) == 0 &&
        matrix_alloc(&K, S, cfg->d_out, N_("keys"), err) == 0 &&
        matrix_alloc(&V, S, cfg->d_out, N_("values"), err) == 0) {
        project_qkv(&(head_qkv){&Q, &K, &V}, &p->attn, in);
        rc = 0;
    }
    for (size_t h = 0; rc == 0 && h < cfg->heads; h++) {
        // view (T, H, hd) + transpose (H, T, hd): head h is columns
        // [h*hd, (h+1)*hd) of Q, K and V
        head_qkv t;
        rc = new_head_qkv(&t, tr, variant, (int)h, hd, lab, err);
        if (rc == 0) {
            take_columns(t.q, &Q, h * hd);
            take_columns(t.k, &K, h * hd);
            take_columns(t.v, &V, h * hd);
            rc = attention_head(tr, variant, (int)h, &t, cfg, lab, err);
        }
    }
    matrix_free(&Q);
    matrix_free(&K);
    matrix_free(&V);
    if (rc != 0)
        return -1;

    // concat_context (T, O): transpose back (T, H, hd) and view (T, O)
    const matrix *concat =
        concat_heads(tr, variant, cfg->heads, cfg->d_out, lab, err);
    const labels *dims = trace_index_labels(tr, "dim", cfg->d_out, err);
    table *o =
        concat == NULL || dims == NULL
            ? NULL
            : trace_new(tr, variant, NO_HEAD, out_name, lab->tokens, dims, err);
    if (o == NULL)
        return -1;
    // out (T, O) = concat (T, O) @ out_proj.weight^T + out_proj.bias
    linear_forward(&o->values, concat, &p->out_proj.weight, p->out_proj.bias.v);
    *out = &o->values;
    return 0;
}

int fused_forward(trace *tr, const fused_params *p, const attention_config *cfg,
                  const attention_input *in, const sequence_labels *lab,
                  mx_error *err)
{
    const matrix *out;
    return fused_attend(&out, tr, "fused", "out", p, cfg, in, lab, err);
}
