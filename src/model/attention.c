/* attention.c: scaled dot-product attention, head by head.
 *
 * Legend (as in tensor.h): T tokens, D model width, O output width,
 * H heads, hd = O / H head width.
 */
#include "model/attention.h"

#include <assert.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli/i18n.h"

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

/* One head's queries (T, width), keys and values (S, width). */
typedef struct {
    matrix *q, *k, *v;
} head_qkv;

/* The tables a head makes, in trace order (catalogue.h). */
#define HEAD(id) head_table(TABLE_##id)

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
    table
        *made[HEAD_TABLE_COUNT]; /* the tables above, in the trace, HEAD(id) */
} head_work;

/* Makes the head's queries (T, width), keys and values (S, width) under
 * (variant, h) in work->in. */
static int new_head_qkv(head_work *work, trace *tr, variant_id variant, int h,
                        size_t width, const sequence_labels *lab, mx_error *err)
{
    const table_key q = {variant, 0, h, TABLE_QUERIES, false},
                    k = {variant, 0, h, TABLE_KEYS, false},
                    v = {variant, 0, h, TABLE_VALUES, false};
    const labels *dims = trace_index_labels(tr, "dim", width, err);
    if (dims == NULL)
        return -1;
    table **made = work->made;
    made[HEAD(QUERIES)] = trace_new(tr, &q, lab->queries, dims, err);
    made[HEAD(KEYS)] = made[HEAD(QUERIES)] == NULL
                           ? NULL
                           : trace_new(tr, &k, lab->keys, dims, err);
    made[HEAD(VALUES)] = made[HEAD(KEYS)] == NULL
                             ? NULL
                             : trace_new(tr, &v, lab->values, dims, err);
    if (made[HEAD(VALUES)] == NULL)
        return -1;
    work->in.q = &made[HEAD(QUERIES)]->values;
    work->in.k = &made[HEAD(KEYS)]->values;
    work->in.v = &made[HEAD(VALUES)]->values;
    return 0;
}

/* Makes attn_scores (T, S), attn_weights (T, S) and head_context (T, hd)
 * under (variant, h) for a head whose q, k, v are in work->in. */
static int new_head_outputs(head_work *work, trace *tr, variant_id variant,
                            int h, const sequence_labels *lab, mx_error *err)
{
    const table_key s = {variant, 0, h, TABLE_ATTN_SCORES, false},
                    w = {variant, 0, h, TABLE_ATTN_WEIGHTS, false},
                    c = {variant, 0, h, TABLE_HEAD_CONTEXT, false};
    const size_t hd = work->in.q->cols;
    const labels *dims = trace_index_labels(tr, "dim", hd, err);
    if (dims == NULL)
        return -1;
    table **made = work->made;
    made[HEAD(ATTN_SCORES)] = trace_new(tr, &s, lab->queries, lab->keys, err);
    made[HEAD(ATTN_WEIGHTS)] =
        made[HEAD(ATTN_SCORES)] == NULL
            ? NULL
            : trace_new(tr, &w, lab->queries, lab->keys, err);
    made[HEAD(HEAD_CONTEXT)] = made[HEAD(ATTN_WEIGHTS)] == NULL
                                   ? NULL
                                   : trace_new(tr, &c, lab->tokens, dims, err);
    if (made[HEAD(HEAD_CONTEXT)] == NULL)
        return -1;
    work->scores = &made[HEAD(ATTN_SCORES)]->values;
    work->weights = &made[HEAD(ATTN_WEIGHTS)]->values;
    work->context = &made[HEAD(HEAD_CONTEXT)]->values;
    return 0;
}

/* How many heads go in one batch (attention_config.heads_at_once). */
static size_t batch_size(const attention_config *cfg, size_t heads)
{
    const size_t n = cfg->heads_at_once;
    return n == 0 || n > heads ? heads : n;
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

/* The n heads of work, their tables made: their attention computed,
 * their weights added to cfg->average (if any), every table of theirs but
 * head_context (and with --average head 0's scores) released, then the
 * trace flushed. */
static int attend_batch(trace *tr, head_work *work, size_t n,
                        const attention_config *cfg, const attention_input *in,
                        mx_error *err)
{
    attend_heads(work, n, cfg, in);
    for (size_t h = 0; h < n; h++) {
        if (cfg->average != NULL)
            mean_stream_add(cfg->average, work[h].weights->v);
        for (size_t i = 0; i < HEAD(HEAD_CONTEXT); i++)
            // --color shades the average with head 0's mask (shading.c)
            if (!(cfg->average != NULL && i == HEAD(ATTN_SCORES) &&
                  work[h].made[i]->head == 0))
                trace_release(tr, work[h].made[i]);
    }
    return trace_flush(tr, err);
}

/* q (T, width) from in->x (T, D); k, v (S, width) from in->kv (S, D). */
static void project_qkv(const head_qkv *out, const qkv *p,
                        const attention_input *in, workers *pool)
{
    linear_forward(out->q, in->x, &p->query.weight, p->query.bias.v, pool);
    linear_forward(out->k, in->kv, &p->key.weight, p->key.bias.v, pool);
    linear_forward(out->v, in->kv, &p->value.weight, p->value.bias.v, pool);
}

int record_average(trace *tr, variant_id variant, const mean_stream *sum,
                   mx_error *err)
{
    // the labels of the heads' weights, which stay when their values go
    const table_key head0 = {variant, 0, 0, TABLE_ATTN_WEIGHTS, false},
                    key = {variant, 0, NO_HEAD, TABLE_ATTN_WEIGHTS_AVG, false};
    const table *first = trace_find(tr, &head0);
    if (first == NULL)
        return 0;
    table *avg = trace_new(tr, &key, first->rows, first->cols, err);
    if (avg == NULL)
        return -1;
    // avg (T, S) = the (1, H, T, S) stack of the heads' weights, as
    // nn.MultiheadAttention averages it over dim 1
    return mean_stream_finish(avg->values.v, sum, err);
}

/* concat_context (T, O) under variant: the heads' head_context tables
 * side by side (torch.cat(..., dim=-1), or transpose back and view); each
 * released once copied. */
static table *concat_heads(trace *tr, variant_id variant, const head_work *work,
                           size_t heads, size_t width,
                           const sequence_labels *lab, mx_error *err)
{
    const table_key key = {variant, 0, NO_HEAD, TABLE_CONCAT_CONTEXT, false};
    const labels *dims = trace_index_labels(tr, "dim", width, err);
    table *concat =
        dims == NULL ? NULL : trace_new(tr, &key, lab->tokens, dims, err);
    if (concat == NULL)
        return NULL;
    const size_t hd = width / heads;
    for (size_t h = 0; h < heads; h++) {
        put_columns(&concat->values, work[h].context, h * hd);
        trace_release(tr, work[h].made[HEAD(HEAD_CONTEXT)]);
    }
    return concat;
}

/* ---- the three modules ----------------------------------------------- */

int single_forward(trace *tr, const single_params *p,
                   const attention_config *cfg, const attention_input *in,
                   const sequence_labels *lab, mx_error *err)
{
    head_work work = {.project = &p->attn};
    if (new_head_qkv(&work, tr, VARIANT_ID_SINGLE, 0, cfg->d_out, lab, err) !=
            0 ||
        new_head_outputs(&work, tr, VARIANT_ID_SINGLE, 0, lab, err) != 0 ||
        attend_batch(tr, &work, 1, cfg, in, err) != 0)
        return -1;
    // one head of width O: its context is the module's output, kept
    return 0;
}

int wrapper_forward(trace *tr, const wrapper_params *p,
                    const attention_config *cfg, const attention_input *in,
                    const sequence_labels *lab, mx_error *err)
{
    const size_t hd = cfg->d_out / cfg->heads;
    const size_t batch = batch_size(cfg, p->heads);
    head_work *work = calloc(p->heads, sizeof *work);
    if (work == NULL)
        return err_nomem(err, _("the wrapper's heads"));
    int rc = 0;
    for (size_t first = 0; rc == 0 && first < p->heads; first += batch) {
        const size_t n = p->heads - first < batch ? p->heads - first : batch;
        for (size_t h = first; rc == 0 && h < first + n; h++) {
            // each head projects x (T, D) to its own q, k, v (T, hd)
            work[h].project = &p->head[h];
            rc = new_head_qkv(&work[h], tr, VARIANT_ID_WRAPPER, (int)h, hd, lab,
                              err);
            if (rc == 0)
                rc = new_head_outputs(&work[h], tr, VARIANT_ID_WRAPPER, (int)h,
                                      lab, err);
        }
        if (rc == 0)
            rc = attend_batch(tr, work + first, n, cfg, in, err);
    }
    // torch.cat([head(x) for head in heads], dim=-1)
    if (rc == 0 && concat_heads(tr, VARIANT_ID_WRAPPER, work, p->heads,
                                cfg->d_out, lab, err) == NULL)
        rc = -1;
    free(work);
    return rc;
}

int fused_attend(const matrix **out, trace *tr, variant_id variant,
                 table_id out_id, const fused_params *p,
                 const attention_config *cfg, const attention_input *in,
                 const sequence_labels *lab, mx_error *err)
{
    const size_t T = in->x->rows, S = in->kv->rows;
    const size_t hd = cfg->d_out / cfg->heads;
    const size_t batch = batch_size(cfg, cfg->heads);
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
    for (size_t first = 0; rc == 0 && first < cfg->heads; first += batch) {
        const size_t n =
            cfg->heads - first < batch ? cfg->heads - first : batch;
        for (size_t h = first; rc == 0 && h < first + n; h++) {
            // view (T, H, hd) + transpose (H, T, hd): head h is columns
            // [h*hd, (h+1)*hd) of Q, K and V
            const head_qkv *t = &work[h].in;
            rc = new_head_qkv(&work[h], tr, variant, (int)h, hd, lab, err);
            if (rc == 0) {
                take_columns(t->q, &Q, h * hd);
                take_columns(t->k, &K, h * hd);
                take_columns(t->v, &V, h * hd);
                rc = new_head_outputs(&work[h], tr, variant, (int)h, lab, err);
            }
        }
        if (rc == 0)
            rc = attend_batch(tr, work + first, n, cfg, in, err);
    }
    matrix_free(&Q);
    matrix_free(&K);
    matrix_free(&V);

    // concat_context (T, O): transpose back (T, H, hd) and view (T, O)
    table *concat = rc == 0 ? concat_heads(tr, variant, work, cfg->heads,
                                           cfg->d_out, lab, err)
                            : NULL;
    free(work);
    const labels *dims =
        concat == NULL ? NULL : trace_index_labels(tr, "dim", cfg->d_out, err);
    const table_key key = {variant, 0, NO_HEAD, out_id, false};
    table *o =
        dims == NULL ? NULL : trace_new(tr, &key, lab->tokens, dims, err);
    if (o == NULL)
        return -1;
    // out (T, O) = concat (T, O) @ out_proj.weight^T + out_proj.bias
    linear_forward(&o->values, &concat->values, &p->out_proj.weight,
                   p->out_proj.bias.v, cfg->pool);
    trace_release(tr, concat);
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
