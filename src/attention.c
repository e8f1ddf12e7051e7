/* attention.c: scaled dot-product attention, head by head.
 *
 * Legend (as in tensor.h): T tokens, D model width, O output width,
 * H heads, hd = O / H head width.
 */
#include "attention.h"

#include <assert.h>
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

/* One head's work: its queries, keys and values, and the tables made for
 * what attention computes from them. With project set, the head first
 * projects its own q, k, v (the wrapper, single); otherwise they are
 * filled already (fused, from its one projection). */
typedef struct {
    head_qkv in;
    matrix *scores;  /* attn_scores (T, S) */
    matrix *weights; /* attn_weights (T, S) */
    matrix *context; /* head_context (T, hd) */
    const qkv *project;
} head_work;

/* Makes attn_scores (T, S), attn_weights (T, S) and head_context (T, hd)
 * under (variant, h) for a head whose q, k, v are in work->in. */
static int new_head_outputs(head_work *work, trace *tr, const char *variant,
                            int h, const sequence_labels *lab, mx_error *err)
{
    const size_t hd = work->in.q->cols;
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
    work->scores = &attn_scores->values;
    work->weights = &attn_weights->values;
    work->context = &head_context->values;
    return 0;
}

static void project_qkv(const head_qkv *out, const qkv *p,
                        const attention_input *in, workers *pool);

/* Attention of one head: writes work's scores (raw, -inf where masked),
 * weights and context. */
static void attend(const head_work *work, const attention_config *cfg,
                   const attention_input *in)
{
    const head_qkv *t = &work->in;
    if (work->project != NULL)
        project_qkv(t, work->project, in, cfg->pool);

    // attn_scores (T, S) = q (T, hd) @ k (S, hd)^T, later keys masked
    if (cfg->causal)
        causal_scores(work->scores, t->q, t->k, cfg->pool);
    else
        matmul_transposed(work->scores, t->q, t->k, cfg->pool);

    // attn_weights (T, S) = softmax(attn_scores / sqrt(hd))
    const float divisor = score_divisor(t->q->cols, cfg->scale);
    softmax_rows(work->weights, work->scores, divisor);

    // head_context (T, hd) = attn_weights (T, S) @ v (S, hd)
    matmul(work->context, work->weights, t->v, cfg->pool);
}

typedef struct {
    const head_work *head;
    const attention_config *cfg;
    const attention_input *in;
} heads_job;

static void attend_task(void *ctx, size_t h)
{
    const heads_job *job = ctx;
    attend(&job->head[h], job->cfg, job->in);
}

/* Every head's attention, the heads shared out over the threads (each
 * head writes only its own tables); a lone head shares out its products
 * instead. */
static void attend_heads(const head_work *head, size_t heads,
                         const attention_config *cfg, const attention_input *in)
{
    const double T = (double)in->x->rows, S = (double)in->kv->rows;
    const double hd = (double)head[0].in.q->cols, D = (double)cfg->d_model;
    // scores and context: 2 T S hd each; projections: 2 (T + 2 S) D hd
    double flops = 4.0 * T * S * hd + 10.0 * T * S;
    if (head[0].project != NULL)
        flops += 2.0 * (T + 2.0 * S) * D * hd;
    heads_job job = {head, cfg, in};
    workers_run(cfg->pool, heads, flops * (double)heads, attend_task, &job);
}

/* q (T, width) from in->x (T, D); k, v (S, width) from in->kv (S, D). */
static void project_qkv(const head_qkv *out, const qkv *p,
                        const attention_input *in, workers *pool)
{
    linear_forward(out->q, in->x, &p->query.weight, p->query.bias.v, pool);
    linear_forward(out->k, in->kv, &p->key.weight, p->key.bias.v, pool);
    linear_forward(out->v, in->kv, &p->value.weight, p->value.bias.v, pool);
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
    // nn.MultiheadAttention averages over dim 1, read where the heads'
    // tables lie; avg (T, S) its mean
    const float **stacked = calloc(heads, sizeof *stacked);
    if (stacked == NULL)
        return err_nomem(err, N_("the stacked weights"));
    for (size_t h = 0; h < heads; h++) {
        // the forward pass has just made every head's table
        const table *t = trace_find(tr, variant, (int)h, "attn_weights");
        assert(t != NULL);
        stacked[h] = t->values.v;
    }
    mean_rows(avg->values.v, stacked, heads,
              avg->values.rows * avg->values.cols);
    free(stacked);
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
    head_work work = {.project = &p->attn};
    if (new_head_qkv(&work.in, tr, "single", 0, cfg->d_out, lab, err) != 0 ||
        new_head_outputs(&work, tr, "single", 0, lab, err) != 0)
        return -1;
    // one head of width O: its context is the module's output
    attend_heads(&work, 1, cfg, in);
    return 0;
}

int wrapper_forward(trace *tr, const wrapper_params *p,
                    const attention_config *cfg, const attention_input *in,
                    const sequence_labels *lab, mx_error *err)
{
    const size_t hd = cfg->d_out / cfg->heads;
    head_work *work = calloc(p->heads, sizeof *work);
    if (work == NULL)
        return err_nomem(err, _("the wrapper's heads"));
    int rc = 0;
    for (size_t h = 0; rc == 0 && h < p->heads; h++) {
        // each head projects x (T, D) to its own q, k, v (T, hd)
        work[h].project = &p->head[h];
        rc = new_head_qkv(&work[h].in, tr, "wrapper", (int)h, hd, lab, err);
        if (rc == 0)
            rc = new_head_outputs(&work[h], tr, "wrapper", (int)h, lab, err);
    }
    if (rc == 0)
        attend_heads(work, p->heads, cfg, in);
    free(work);
    if (rc != 0)
        return -1;
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
    if (matrix_alloc(&Q, T, cfg->d_out, N_("the queries"), err) == 0 &&
        matrix_alloc(&K, S, cfg->d_out, N_("the keys"), err) == 0 &&
        matrix_alloc(&V, S, cfg->d_out, N_("the values"), err) == 0) {
        project_qkv(&(head_qkv){&Q, &K, &V}, &p->attn, in, cfg->pool);
        rc = 0;
    }
    head_work *work = rc == 0 ? calloc(cfg->heads, sizeof *work) : NULL;
    if (rc == 0 && work == NULL)
        rc = err_nomem(err, _("the heads"));
    for (size_t h = 0; rc == 0 && h < cfg->heads; h++) {
        // view (T, H, hd) + transpose (H, T, hd): head h is columns
        // [h*hd, (h+1)*hd) of Q, K and V
        head_qkv *t = &work[h].in;
        rc = new_head_qkv(t, tr, variant, (int)h, hd, lab, err);
        if (rc == 0) {
            take_columns(t->q, &Q, h * hd);
            take_columns(t->k, &K, h * hd);
            take_columns(t->v, &V, h * hd);
            rc = new_head_outputs(&work[h], tr, variant, (int)h, lab, err);
        }
    }
    if (rc == 0)
        attend_heads(work, cfg->heads, cfg, in);
    free(work);
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
    linear_forward(&o->values, concat, &p->out_proj.weight, p->out_proj.bias.v,
                   cfg->pool);
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
