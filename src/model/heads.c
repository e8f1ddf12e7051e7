/* heads.c: an attention module's heads made in the trace, batched, shared
 * over the threads, streamed, and --average's running sum (heads.h).
 *
 * Shapes: T query tokens, S key/value tokens, D = d_model, hd the width
 * of a head.
 */
#include "model/heads.h"

#include <assert.h>
#include <stdlib.h>

#include "base/i18n.h"
#include "model/entropy.h"

/* The tables a head makes, in trace order (catalogue.h). */
#define HEAD(id) head_table(TABLE_##id)

/* ---- a head's tables ---------------------------------------------------- */

/* The key of head h's table id, made where `at` says (its variant and
 * layer). */
static table_key head_key(const table_key *at, int h, table_id id)
{
    table_key key = *at;
    key.head = h;
    key.id = id;
    return key;
}

/* Makes head h's queries (T, width), keys and values (S, width) where
 * `at` says, in work. */
static int new_head_qkv(head_work *work, trace *tr, const table_key *at, int h,
                        size_t width, const sequence_labels *lab, mx_error *err)
{
    const table_key q = head_key(at, h, TABLE_QUERIES),
                    k = head_key(at, h, TABLE_KEYS),
                    v = head_key(at, h, TABLE_VALUES);
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
    work->t.q = &made[HEAD(QUERIES)]->values;
    work->t.k = &made[HEAD(KEYS)]->values;
    work->t.v = &made[HEAD(VALUES)]->values;
    return 0;
}

/* With dropout on the weights: makes head h's dropout_mask and
 * attn_weights_dropped (T, S) where `at` says, in work. */
static int new_head_dropout(head_work *work, trace *tr, const table_key *at,
                            int h, const sequence_labels *lab, mx_error *err)
{
    const table_key m = head_key(at, h, TABLE_DROPOUT_MASK),
                    d = head_key(at, h, TABLE_ATTN_WEIGHTS_DROPPED);
    table **made = work->made;
    made[HEAD(DROPOUT_MASK)] = trace_new(tr, &m, lab->queries, lab->keys, err);
    made[HEAD(ATTN_WEIGHTS_DROPPED)] =
        made[HEAD(DROPOUT_MASK)] == NULL
            ? NULL
            : trace_new(tr, &d, lab->queries, lab->keys, err);
    if (made[HEAD(ATTN_WEIGHTS_DROPPED)] == NULL)
        return -1;
    work->t.mask = &made[HEAD(DROPOUT_MASK)]->values;
    work->t.dropped = &made[HEAD(ATTN_WEIGHTS_DROPPED)]->values;
    work->t.drop = &work->drop;
    return 0;
}

/* Makes head h's attn_scores (T, S), attn_weights (T, S), with dropout
 * its dropout_mask and attn_weights_dropped, and head_context (T, hd)
 * where `at` says, in work, whose q is made. */
static int new_head_outputs(head_work *work, trace *tr, const table_key *at,
                            int h, bool dropout, const sequence_labels *lab,
                            mx_error *err)
{
    const table_key s = head_key(at, h, TABLE_ATTN_SCORES),
                    w = head_key(at, h, TABLE_ATTN_WEIGHTS),
                    c = head_key(at, h, TABLE_HEAD_CONTEXT);
    const size_t hd = work->t.q->cols;
    const labels *dims = trace_index_labels(tr, "dim", hd, err);
    if (dims == NULL)
        return -1;
    table **made = work->made;
    made[HEAD(ATTN_SCORES)] = trace_new(tr, &s, lab->queries, lab->keys, err);
    made[HEAD(ATTN_WEIGHTS)] =
        made[HEAD(ATTN_SCORES)] == NULL
            ? NULL
            : trace_new(tr, &w, lab->queries, lab->keys, err);
    if (made[HEAD(ATTN_WEIGHTS)] == NULL ||
        (dropout && new_head_dropout(work, tr, at, h, lab, err) != 0))
        return -1;
    made[HEAD(HEAD_CONTEXT)] = trace_new(tr, &c, lab->tokens, dims, err);
    if (made[HEAD(HEAD_CONTEXT)] == NULL)
        return -1;
    work->t.scores = &made[HEAD(ATTN_SCORES)]->values;
    work->t.weights = &made[HEAD(ATTN_WEIGHTS)]->values;
    work->t.context = &made[HEAD(HEAD_CONTEXT)]->values;
    return 0;
}

/* Makes every table of head h under plan's variant and cfg's layer. */
static int new_head(head_work *work, trace *tr, const head_plan *plan,
                    const attention_config *cfg, size_t h, bool dropout,
                    const sequence_labels *lab, mx_error *err)
{
    const table_key at = {plan->variant, cfg->layer, NO_HEAD, TABLE_QUERIES,
                          false};
    work->t.h = h;
    if (new_head_qkv(work, tr, &at, (int)h, plan->width, lab, err) != 0)
        return -1;
    return new_head_outputs(work, tr, &at, (int)h, dropout, lab, err);
}

/* ---- a batch of heads over the threads ---------------------------------- */

/* How many heads go in one batch (attention_config.heads_at_once). */
static size_t batch_size(const attention_config *cfg, size_t heads)
{
    const size_t n = cfg->heads_at_once;
    return n == 0 || n > heads ? heads : n;
}

typedef struct {
    head_work *head;
    const head_plan *plan;
} heads_job;

static void attend_task(void *ctx, size_t h)
{
    const heads_job *job = ctx;
    head_work *w = &job->head[h];
    w->rc = job->plan->attend(&w->t, job->plan->ctx, &w->err);
}

/* The n heads' attention, shared out over the threads (each head writes
 * only its own tables); a lone head shares out its products instead. */
static void attend_heads(head_work *head, size_t n, const head_plan *plan,
                         const attention_config *cfg, const attention_input *in)
{
    const double T = (double)in->x->rows, S = (double)in->kv->rows;
    const double hd = (double)plan->width, D = (double)cfg->d_model;
    // scores and context: 2 T S hd each; projections: 2 (T + 2 S) D hd
    double flops = 4.0 * T * S * hd + 10.0 * T * S;
    if (plan->projects)
        flops += 2.0 * (T + 2.0 * S) * D * hd;
    heads_job job = {head, plan};
    workers_run(cfg->pool, n, flops * (double)n, attend_task, &job);
}

/* The n heads of work, their tables made: their attention computed,
 * their weights added to cfg->average (if any), their mean entropy
 * written to cfg->entropy (if any), every table of theirs but
 * head_context (and with --average head 0's scores) released, then the
 * trace flushed. */
static int attend_batch(trace *tr, head_work *work, size_t n,
                        const head_plan *plan, const attention_config *cfg,
                        const attention_input *in, mx_error *err)
{
    attend_heads(work, n, plan, cfg, in);
    for (size_t h = 0; h < n; h++)
        if (work[h].rc != 0) {
            *err = work[h].err;
            return -1;
        }
    for (size_t h = 0; h < n; h++) {
        // the sum holds one module's heads: a stack's blocks, which would
        // each add theirs, have no one mean (cli/option_checks.c refuses
        // --average there first)
        if (cfg->average != NULL &&
            mean_stream_add(cfg->average, work[h].t.weights->v) != 0)
            return err_usage(err,
                             _("%s: does not go with --layers (a stack of "
                               "blocks attends over its own sentence, one "
                               "layer after another)"),
                             "--average");
        if (cfg->entropy != NULL)
            *matrix_at(cfg->entropy, (size_t)cfg->layer, work[h].t.h) =
                attn_mean_entropy(work[h].t.weights);
        for (size_t i = 0; i < HEAD(HEAD_CONTEXT); i++)
            // --color shades the average with head 0's mask (shading.c)
            if (work[h].made[i] != NULL &&
                !(cfg->average != NULL && i == HEAD(ATTN_SCORES) &&
                  work[h].made[i]->head == 0))
                trace_release(tr, work[h].made[i]);
    }
    return trace_flush(tr, err);
}

/* ---- the heads of a module ---------------------------------------------- */

int heads_run(head_set *set, trace *tr, const head_plan *plan,
              const attention_config *cfg, const attention_input *in,
              const sequence_labels *lab, mx_error *err)
{
    assert(plan->what != NULL || plan->heads == 1);
    set->n = plan->heads;
    set->lone = (head_work){0};
    set->work = plan->what == NULL ? &set->lone
                                   : calloc(plan->heads, sizeof *set->work);
    if (set->work == NULL)
        return err_nomem(err, _(plan->what));
    const size_t batch = batch_size(cfg, plan->heads);
    // --attn-dropout: the generator as each head's mask is drawn, the
    // heads' masks one after another
    const bool dropout = cfg->attn_dropout > 0;
    torch_rng drop;
    if (dropout)
        drop = *cfg->dropout_rng;
    int rc = 0;
    for (size_t first = 0; rc == 0 && first < plan->heads; first += batch) {
        const size_t n =
            plan->heads - first < batch ? plan->heads - first : batch;
        for (size_t h = first; rc == 0 && h < first + n; h++) {
            rc = new_head(&set->work[h], tr, plan, cfg, h, dropout, lab, err);
            if (rc == 0 && dropout) {
                set->work[h].drop = drop;
                rng_bernoulli_skip(plan->dropout_stride, &drop);
            }
        }
        if (rc == 0)
            rc = attend_batch(tr, set->work + first, n, plan, cfg, in, err);
    }
    return rc;
}

void heads_release_context(trace *tr, const head_set *set, size_t h)
{
    trace_release(tr, set->work[h].made[HEAD(HEAD_CONTEXT)]);
}

void heads_free(head_set *set)
{
    if (set->work != &set->lone)
        free(set->work);
    set->work = NULL;
    set->n = 0;
}

/* ---- --average ---------------------------------------------------------- */

int record_average(trace *tr, variant_id variant, const mean_stream *sum,
                   const forward_hooks *hk, mx_error *err)
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
    if (mean_stream_finish(avg->values.v, sum, err) != 0)
        return -1;
    return hook_point(hk, &key, &avg->values, err);
}
