/* checkpoint_record.c: a checkpoint's tables into the trace
 * (checkpoint_record.h). */
#include "model/checkpoint_record.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/i18n.h"
#include "model/entropy.h"
#include "model/next_tokens.h"

int checkpoint_record_init(checkpoint_recorder *r, mx_error *err)
{
    trace *tr = r->tr;
    const checkpoint_run *run = r->run;
    if (matrix_alloc(&r->entropy, run->n_layer, run->n_head,
                     N_("attention weights"), err) != 0)
        return -1;
    const char *const *pieces = (const char *const *)run->pieces;
    r->tokens = trace_word_labels(tr, "", pieces, run->T, err);
    r->queries = trace_word_labels(tr, "Q:", pieces, run->T, err);
    r->keys = trace_word_labels(tr, "K:", pieces, run->T, err);
    r->values = trace_word_labels(tr, "V:", pieces, run->T, err);
    r->first = trace_word_labels(tr, "", pieces, 1, err);
    const trace_model *m = &tr->model; // D, F and a head's D / H
    r->dims = trace_index_labels(tr, "dim", m->d_model, err);
    r->ffn_dims = trace_index_labels(tr, "dim", m->ff, err);
    r->head_dims = trace_index_labels(tr, "dim", m->d_model / m->heads, err);
    r->vocab = r->rq->logits && r->vocab_size > 0
                   ? trace_index_labels(tr, "id", r->vocab_size, err)
                   : r->dims;
    if (!(r->tokens && r->queries && r->keys && r->values && r->first &&
          r->dims && r->ffn_dims && r->head_dims && r->vocab)) {
        checkpoint_record_free(r);
        return -1;
    }
    return 0;
}

void checkpoint_record_free(checkpoint_recorder *r)
{
    matrix_free(&r->entropy);
}

int checkpoint_record_ids(checkpoint_recorder *r, mx_error *err)
{
    const labels *id = trace_literal_label(r->tr, "id", err);
    if (id == NULL)
        return -1;
    const table_key key = {VARIANT_INPUT, 0, NO_HEAD, TABLE_TOKENS, false};
    table *t = trace_new(r->tr, &key, r->tokens, id, err);
    if (t == NULL)
        return -1;
    t->integral = true;
    for (size_t i = 0; i < r->run->T; i++)
        t->values.v[i] = (float)r->run->ids[i];
    trace_release(r->tr, t);
    return 0;
}

/* The parameter p, the tensor st of the file in (NULL: an error), into
 * the trace, and the trace flushed. */
static int put_param(trace *tr, const checkpoint_param *p,
                     const safetensors *in, const st_tensor *st, mx_error *err)
{
    const float *v;
    float *owned;
    if (st == NULL || safetensors_floats(&v, &owned, in, st, err) != 0)
        return -1;
    const bool two_d = st->ndim == 2;
    const size_t rows = two_d ? st->shape[0] : 1;
    const size_t cols = two_d ? st->shape[1] : st->shape[0];
    const labels *rl =
        two_d ? trace_index_labels(tr, p->rows, rows, err)
              : trace_literal_label(tr, strrchr(p->name, '.') + 1, err);
    const labels *cl =
        trace_index_labels(tr, two_d ? p->cols : "dim", cols, err);
    const table_key key =
        p->layer >= 0 ? layer_table_key(p->layer, NO_HEAD, TABLE_PARAM)
                      : (table_key){p->where, 0, NO_HEAD, TABLE_PARAM, false};
    table *t = rl && cl ? trace_new(tr, &key, rl, cl, err) : NULL;
    if (t != NULL) {
        snprintf(t->param, sizeof t->param, "%s", p->name);
        memcpy(t->values.v, v, rows * cols * sizeof *v);
        trace_release(tr, t);
    }
    free(owned);
    return t == NULL ? -1 : trace_flush(tr, err);
}

int checkpoint_record_params(checkpoint_recorder *r, mx_error *err)
{
    const checkpoint_run *run = r->run;
    for (size_t i = 0; i < r->rq->n_tables; i++) {
        const table_pick *pick = &r->rq->tables[i];
        checkpoint_param p;
        const safetensors *in;
        const st_tensor *st;
        if (run->find_param(run->find_ctx, pick->name, &p, &in, &st) &&
            put_param(r->tr, &p, in, st, err) != 0)
            return -1;
    }
    return 0;
}

/* A copy of m into a new table (rows x cols). */
static int put(checkpoint_recorder *r, const table_key *key, const labels *rows,
               const labels *cols, const matrix *m, mx_error *err)
{
    table *t = trace_new(r->tr, key, rows, cols, err);
    if (t == NULL)
        return -1;
    memcpy(t->values.v, m->v, m->rows * m->cols * sizeof *m->v);
    trace_release(r->tr, t);
    return 0;
}

/* attn_entropy (n_layer, n_head) after the layers: a row per layer, a
 * column per head (model/entropy.h). */
static int put_entropy(checkpoint_recorder *r, mx_error *err)
{
    const table_key key = {VARIANT_MODEL, 0, NO_HEAD, TABLE_ATTN_ENTROPY,
                           false};
    return attn_entropy_record(r->tr, &key, r->layer_prefix, &r->entropy,
                               err) != NULL
               ? 0
               : -1;
}

/* Whether the text has the token only_at (NULL: no). */
static bool has_piece(const checkpoint_run *run, const char *only_at)
{
    for (size_t i = 0; only_at != NULL && i < run->T; i++)
        if (strcmp(run->pieces[i], only_at) == 0)
            return true;
    return false;
}

/* next_tokens (P·n x 1): at each place (only_at's alone when the text
 * has it), the n likeliest next tokens, "token → next", and their probabilities, softmax over the
 * logits (next_tokens.h). */
static int put_next_tokens(checkpoint_recorder *r, const matrix *logits,
                           mx_error *err)
{
    const checkpoint_run *run = r->run;
    const size_t T = logits->rows, K = NEXT_TOKENS_K;
    const bool only = has_piece(run, r->only_at);
    size_t *best = calloc(T * K, sizeof *best), n = 0, shown = 0;
    char **names = calloc(T * K, sizeof *names);
    matrix top = {0};
    int result = -1;
    if (names == NULL || best == NULL) {
        err_nomem(err, _("tokens"));
        goto out;
    }
    if (matrix_alloc(&top, T * K, 1, N_("logits"), err) != 0 ||
        next_tokens_top(best, top.v, &n, logits, err) != 0)
        goto out;
    for (size_t i = 0; i < T * n; i++) {
        if (only && strcmp(run->pieces[i / n], r->only_at) != 0)
            continue;
        char next[256], line[600];
        run->label(run->label_ctx, (int32_t)best[i], next, sizeof next);
        snprintf(line, sizeof line, "%s \u2192 %s", run->pieces[i / n], next);
        if ((names[shown] = strdup(line)) == NULL) {
            err_nomem(err, _("tokens"));
            goto out;
        }
        top.v[shown++] = top.v[i]; // shown <= i: the rows kept, in order
    }
    top.rows = shown;
    const labels *rows =
        trace_word_labels(r->tr, "", (const char *const *)names, shown, err);
    const labels *col = trace_literal_label(r->tr, "probability", err);
    const table_key key = {VARIANT_MODEL, 0, NO_HEAD, TABLE_NEXT_TOKENS, false};
    if (rows != NULL && col != NULL)
        result = put(r, &key, rows, col, &top, err);
out:
    if (names != NULL)
        for (size_t i = 0; i < T * K; i++)
            free(names[i]);
    free(names);
    free(best);
    matrix_free(&top);
    return result;
}

/* The rows and columns of a checkpoint's table id. */
static void table_labels(const labels **rows, const labels **cols,
                         const checkpoint_recorder *r, table_id id)
{
    *rows = r->tokens;
    *cols = r->dims;
    switch (id) {
    case TABLE_QUERIES:
    case TABLE_QUERIES_ROTATED:
        *rows = r->queries;
        *cols = r->head_dims;
        break;
    case TABLE_KEYS:
    case TABLE_KEYS_ROTATED:
        *rows = r->keys;
        *cols = r->head_dims;
        break;
    case TABLE_VALUES:
        *rows = r->values;
        *cols = r->head_dims;
        break;
    case TABLE_ATTN_SCORES:
    case TABLE_ATTN_WEIGHTS:
        *rows = r->queries;
        *cols = r->keys;
        break;
    case TABLE_HEAD_CONTEXT:
        *cols = r->head_dims;
        break;
    case TABLE_FFN_HIDDEN:
        *cols = r->ffn_dims;
        break;
    case TABLE_LOGITS:
        *cols = r->vocab;
        break;
    case TABLE_POOLER:
        *rows = r->first;
        break;
    default:
        break;
    }
}

int checkpoint_record(void *ctx, const table_key *at, const matrix *m,
                      mx_error *err)
{
    checkpoint_recorder *r = ctx;
    const bool layer = is_layer_table(at);
    if (at->id == TABLE_ATTN_WEIGHTS)
        *matrix_at(&r->entropy, (size_t)at->layer, (size_t)at->head) =
            attn_mean_entropy(m);
    if ((layer && !r->run->layers[at->layer]) ||
        (at->head != NO_HEAD && !r->run->heads[at->head]))
        return 0;
    const table_id id =
        layer && at->id == r->layer_output ? TABLE_HIDDEN : at->id;
    if (id == TABLE_OUT && put_entropy(r, err) != 0)
        return -1;
    const labels *rows, *cols;
    table_labels(&rows, &cols, r, id);
    const table_key key = {at->variant, at->layer, at->head, id, false};
    if ((id != TABLE_LOGITS || r->rq->logits) &&
        put(r, &key, rows, cols, m, err) != 0)
        return -1;
    if (id == TABLE_LOGITS)
        return put_next_tokens(r, m, err);
    return layer && id == TABLE_HIDDEN ? trace_flush(r->tr, err) : 0;
}
