/* attention.c: scaled dot-product attention, head by head.
 *
 * Legend (as in tensor.h): T tokens, D model width, O output width,
 * H heads, hd = O / H head width.
 */
#include "attention.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
        return err_nomem(err, "the wrapper's heads");
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

/* Attention of one head. q is (T, hd), k and v are (S, hd); context
 * (T, hd) is written.
 * Records queries, keys, values, attn_scores (raw, -inf where masked),
 * attn_weights and head_context under (variant, h). */
static int attention_head(trace *tr, const char *variant, int h,
                          const matrix *q, const matrix *k, const matrix *v,
                          const attention_config *cfg,
                          const sequence_labels *lab, matrix *context,
                          mx_error *err)
{
    const size_t T = q->rows, S = k->rows, hd = q->cols;
    const labels *dims = trace_index_labels(tr, "dim", hd, err);
    if (dims == NULL)
        return -1;

    matrix attn_scores = {0}, attn_weights = {0};
    int rc = -1;
    if (matrix_alloc(&attn_scores, T, S, "attention scores", err) != 0 ||
        matrix_alloc(&attn_weights, T, S, "attention weights", err) != 0)
        goto done;

    // attn_scores (T, S) = q (T, hd) @ k (S, hd)^T, later keys masked
    matmul_transposed(&attn_scores, q, k);
    if (cfg->causal)
        causal_mask(&attn_scores);

    // attn_weights (T, S) = softmax(attn_scores / sqrt(hd)),
    // sqrt(hd) computed as keys.shape[-1]**0.5
    const float divisor = cfg->scale ? (float)pow((double)hd, 0.5) : 1.0f;
    softmax_rows(&attn_weights, &attn_scores, divisor);

    // context (T, hd) = attn_weights (T, S) @ v (S, hd)
    matmul(context, &attn_weights, v);

    if (trace_add(tr, variant, h, "queries", lab->queries, dims, q, err) ||
        trace_add(tr, variant, h, "keys", lab->keys, dims, k, err) ||
        trace_add(tr, variant, h, "values", lab->values, dims, v, err) ||
        trace_add(tr, variant, h, "attn_scores", lab->queries, lab->keys,
                  &attn_scores, err) ||
        trace_add(tr, variant, h, "attn_weights", lab->queries, lab->keys,
                  &attn_weights, err) ||
        trace_add(tr, variant, h, "head_context", lab->tokens, dims, context,
                  err))
        goto done;
    rc = 0;
done:
    matrix_free(&attn_scores);
    matrix_free(&attn_weights);
    return rc;
}

/* q (T, width) from in->x (T, D); k, v (S, width) from in->kv (S, D). */
static int project_qkv(matrix *q, matrix *k, matrix *v, const qkv *p,
                       const attention_input *in, mx_error *err)
{
    const size_t T = in->x->rows, S = in->kv->rows;
    const size_t width = p->query.weight.rows;
    if (matrix_alloc(q, T, width, "queries", err) != 0 ||
        matrix_alloc(k, S, width, "keys", err) != 0 ||
        matrix_alloc(v, S, width, "values", err) != 0)
        return -1;
    linear_forward(q, in->x, &p->query.weight, p->query.bias.v);
    linear_forward(k, in->kv, &p->key.weight, p->key.bias.v);
    linear_forward(v, in->kv, &p->value.weight, p->value.bias.v);
    return 0;
}

int record_average(trace *tr, const char *variant, size_t heads, mx_error *err)
{
    const table *first = trace_find(tr, variant, 0, "attn_weights");
    if (first == NULL)
        return 0;
    const labels *rows = first->rows, *cols = first->cols;
    matrix avg = {0};
    if (matrix_alloc(&avg, first->values.rows, first->values.cols,
                     "the averaged weights", err) != 0)
        return -1;
    // stacked (H, T * S) = the heads' weights, as the (1, H, T, S) view
    // nn.MultiheadAttention averages over dim 1; avg (T, S) its mean
    const size_t cells = avg.rows * avg.cols;
    matrix stacked = {0};
    if (matrix_alloc(&stacked, heads, cells, "the stacked weights", err) != 0) {
        matrix_free(&avg);
        return -1;
    }
    for (size_t h = 0; h < heads; h++) {
        const table *t = trace_find(tr, variant, (int)h, "attn_weights");
        if (t != NULL)
            memcpy(matrix_at(&stacked, h, 0), t->values.v,
                   cells * sizeof(float));
    }
    mean_rows(avg.v, stacked.v, heads, cells);
    int rc = trace_add(tr, variant, NO_HEAD, "attn_weights_avg", rows, cols,
                       &avg, err);
    matrix_free(&stacked);
    matrix_free(&avg);
    return rc;
}

/* One head's working matrices: q (T, hd), k and v (S, hd), context
 * (T, hd). */
typedef struct {
    matrix q, k, v, context;
} head_tensors;

static void head_tensors_free(head_tensors *h)
{
    matrix_free(&h->q);
    matrix_free(&h->k);
    matrix_free(&h->v);
    matrix_free(&h->context);
}

/* ---- the three modules ----------------------------------------------- */

int single_forward(trace *tr, const single_params *p,
                   const attention_config *cfg, const attention_input *in,
                   const sequence_labels *lab, mx_error *err)
{
    head_tensors t = {0};
    int rc = -1;
    if (record_qkv(tr, "single", "", &p->attn, err) == 0 &&
        project_qkv(&t.q, &t.k, &t.v, &p->attn, in, err) == 0 &&
        matrix_alloc(&t.context, in->x->rows, cfg->d_out, "a context", err) ==
            0)
        // one head of width O: its context is the module's output
        rc = attention_head(tr, "single", 0, &t.q, &t.k, &t.v, cfg, lab,
                            &t.context, err);
    head_tensors_free(&t);
    return rc;
}

int wrapper_forward(trace *tr, const wrapper_params *p,
                    const attention_config *cfg, const attention_input *in,
                    const sequence_labels *lab, mx_error *err)
{
    const size_t T = in->x->rows, hd = cfg->d_out / cfg->heads;
    matrix concat = {0};
    int rc = -1;

    for (size_t h = 0; h < p->heads; h++) {
        char prefix[32];
        snprintf(prefix, sizeof prefix, "heads.%zu.", h);
        if (record_qkv(tr, "wrapper", prefix, &p->head[h], err) != 0)
            return -1;
    }
    if (matrix_alloc(&concat, T, cfg->d_out, "the concatenation", err) != 0)
        return -1;

    for (size_t h = 0; h < p->heads; h++) {
        // each head projects x (T, D) to its own q, k, v (T, hd)
        head_tensors t = {0};
        int ok = project_qkv(&t.q, &t.k, &t.v, &p->head[h], in, err) == 0 &&
                 matrix_alloc(&t.context, T, hd, "a context", err) == 0 &&
                 attention_head(tr, "wrapper", (int)h, &t.q, &t.k, &t.v, cfg,
                                lab, &t.context, err) == 0;
        if (ok)
            // torch.cat([head(x) for head in heads], dim=-1)
            put_columns(&concat, &t.context, h * hd);
        head_tensors_free(&t);
        if (!ok)
            goto done;
    }

    const labels *dims = trace_index_labels(tr, "dim", cfg->d_out, err);
    if (dims == NULL || trace_add(tr, "wrapper", NO_HEAD, "concat_context",
                                  lab->tokens, dims, &concat, err) != 0)
        goto done;
    rc = 0;
done:
    matrix_free(&concat);
    return rc;
}

int record_fused_params(trace *tr, const char *variant, const char *prefix,
                        const fused_params *p, mx_error *err)
{
    char out_proj[48];
    snprintf(out_proj, sizeof out_proj, "%sout_proj", prefix);
    if (record_qkv(tr, variant, prefix, &p->attn, err) != 0)
        return -1;
    return record_linear(tr, variant, out_proj, &p->out_proj, err);
}

int fused_attend(matrix *out, trace *tr, const char *variant,
                 const char *out_name, const fused_params *p,
                 const attention_config *cfg, const attention_input *in,
                 const sequence_labels *lab, mx_error *err)
{
    const size_t T = in->x->rows, S = in->kv->rows;
    const size_t hd = cfg->d_out / cfg->heads;
    matrix Q = {0}, K = {0}, V = {0}, concat = {0};
    int rc = -1;

    // Q (T, O), K and V (S, O) = x @ W^T: one projection for all heads
    if (project_qkv(&Q, &K, &V, &p->attn, in, err) != 0 ||
        matrix_alloc(&concat, T, cfg->d_out, "the concatenation", err) != 0)
        goto done;

    for (size_t h = 0; h < cfg->heads; h++) {
        // view (T, H, hd) + transpose (H, T, hd): head h is columns
        // [h*hd, (h+1)*hd) of Q, K and V
        head_tensors t = {0};
        int ok = matrix_alloc(&t.q, T, hd, "queries", err) == 0 &&
                 matrix_alloc(&t.k, S, hd, "keys", err) == 0 &&
                 matrix_alloc(&t.v, S, hd, "values", err) == 0 &&
                 matrix_alloc(&t.context, T, hd, "a context", err) == 0;
        if (ok) {
            take_columns(&t.q, &Q, h * hd);
            take_columns(&t.k, &K, h * hd);
            take_columns(&t.v, &V, h * hd);
            ok = attention_head(tr, variant, (int)h, &t.q, &t.k, &t.v, cfg, lab,
                                &t.context, err) == 0;
        }
        if (ok)
            // transpose back (T, H, hd) and view (T, O)
            put_columns(&concat, &t.context, h * hd);
        head_tensors_free(&t);
        if (!ok)
            goto done;
    }

    // out (T, O) = concat (T, O) @ out_proj.weight^T + out_proj.bias
    linear_forward(out, &concat, &p->out_proj.weight, p->out_proj.bias.v);

    const labels *dims = trace_index_labels(tr, "dim", cfg->d_out, err);
    if (dims == NULL ||
        trace_add(tr, variant, NO_HEAD, "concat_context", lab->tokens, dims,
                  &concat, err) != 0 ||
        trace_add(tr, variant, NO_HEAD, out_name, lab->tokens, dims, out,
                  err) != 0)
        goto done;
    rc = 0;
done:
    matrix_free(&Q);
    matrix_free(&K);
    matrix_free(&V);
    matrix_free(&concat);
    return rc;
}

int fused_forward(trace *tr, const fused_params *p, const attention_config *cfg,
                  const attention_input *in, const sequence_labels *lab,
                  mx_error *err)
{
    matrix out = {0};
    int rc = -1;
    if (record_fused_params(tr, "fused", "", p, err) == 0 &&
        matrix_alloc(&out, in->x->rows, cfg->d_out, "the output", err) == 0)
        rc = fused_attend(&out, tr, "fused", "out", p, cfg, in, lab, err);
    matrix_free(&out);
    return rc;
}
