/* score_steps.c: each head's induction score as the training goes
 * (score_steps.h).
 *
 * Shapes: T tokens, D = d_model, L blocks (1 outside a stack), H heads.
 */
#include "model/lesson/score_steps.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/i18n.h"
#include "model/intervene/head_patterns.h"

void score_steps_choose(score_steps *s, size_t N)
{
    s->n = N + 1 < SCORE_STEPS_MAX ? N + 1 : SCORE_STEPS_MAX;
    for (size_t k = 0; k < s->n; k++)
        s->step[k] = s->n > 1 ? k * N / (s->n - 1) : 0;
}

/* The heads' attn_weights in t, a trace of one forward pass: *layers and
 * *heads, one more than the largest of each. */
static void count_heads(size_t *layers, size_t *heads, const trace *t)
{
    *layers = *heads = 0;
    for (size_t i = 0; i < trace_count(t); i++) {
        const table *w = trace_at(t, i);
        if (w->id != TABLE_ATTN_WEIGHTS || w->grad || w->head == NO_HEAD)
            continue;
        if ((size_t)w->layer + 1 > *layers)
            *layers = (size_t)w->layer + 1;
        if ((size_t)w->head + 1 > *heads)
            *heads = (size_t)w->head + 1;
    }
}

/* Each head's score in pass, a trace of the forward pass, into row k. */
static int score_heads(score_steps *s, const trace *pass, size_t k,
                       mx_error *err)
{
    const size_t T = s->seq->tokens->n, LH = s->layers * s->heads;
    int32_t *ids = calloc(T, sizeof *ids);
    float *room = calloc(2 * T * T, sizeof *room);
    int rc = ids == NULL || room == NULL
                 ? err_nomem(err, _("the training's working tables"))
                 : 0;
    for (size_t t = 0; rc == 0 && t < T; t++)
        ids[t] = (int32_t)s->ids[t];
    for (size_t i = 0; rc == 0 && i < trace_count(pass); i++) {
        const table *w = trace_at(pass, i);
        if (w->id != TABLE_ATTN_WEIGHTS || w->grad || w->head == NO_HEAD ||
            w->values.rows != T || w->values.cols != T)
            continue;
        const size_t col = (size_t)w->layer * s->heads + (size_t)w->head;
        if (col < LH)
            s->values[k * LH + col] =
                head_induction_score(&w->values, ids, room);
    }
    free(ids);
    free(room);
    return rc;
}

/* The heads' scores now, as row s->done. */
static int score_now(score_steps *s, mx_error *err)
{
    const size_t T = s->seq->tokens->n, D = s->model->embedding->cols;
    matrix x = {0};
    trace pass;
    trace_init(&pass);
    int rc = matrix_alloc(&x, T, D, N_("the training's working tables"), err);
    if (rc == 0) {
        train_inputs(&x, s->model, s->ids);
        const attention_input in = {&x, &x};
        rc = s->row->forward(&pass, s->model->module, s->cfg, &in, s->seq, err);
    }
    if (rc == 0 && s->values == NULL) { /* the first step: the shape */
        count_heads(&s->layers, &s->heads, &pass);
        s->values = calloc(s->n * s->layers * s->heads + 1, sizeof(float));
        if (s->values == NULL)
            rc = err_nomem(err, _("the training's working tables"));
    }
    if (rc == 0)
        rc = score_heads(s, &pass, s->done, err);
    trace_free(&pass);
    matrix_free(&x);
    s->done += rc == 0;
    return rc;
}

int score_steps_look(score_steps *s, size_t step, mx_error *err)
{
    return s->done < s->n && s->step[s->done] == step ? score_now(s, err) : 0;
}

/* The labels of the K rows, "step<n>", or of the L·H columns,
 * "<variant>.<layer>.<head>": a new label set of tr. The trace tells its
 * word lists apart by their address, their prefix and their count, so
 * the prefix names what the words are ("step", the variant's "block."):
 * a list of another variant at the same address gets its own set. */
static const labels *name_labels(trace *tr, const score_steps *s, bool rows,
                                 mx_error *err)
{
    const size_t n = rows ? s->n : s->layers * s->heads;
    char prefix[32];
    snprintf(prefix, sizeof prefix, "%s",
             rows ? "step" : variant_id_name(s->variant));
    if (!rows)
        strncat(prefix, ".", sizeof prefix - strlen(prefix) - 1);
    char **names = calloc(n + 1, sizeof *names);
    int rc = names == NULL ? err_nomem(err, _("the trace")) : 0;
    for (size_t i = 0; rc == 0 && i < n; i++) {
        char name[64];
        if (rows)
            snprintf(name, sizeof name, "%zu", s->step[i]);
        else
            snprintf(name, sizeof name, "%zu.%zu", i / s->heads, i % s->heads);
        if ((names[i] = strdup(name)) == NULL)
            rc = err_nomem(err, _("the trace"));
    }
    const labels *l =
        rc == 0
            ? trace_word_labels(tr, prefix, (const char *const *)names, n, err)
            : NULL;
    for (size_t i = 0; names != NULL && i < n; i++)
        free(names[i]);
    free(names);
    return l;
}

int score_steps_record(trace *tr, const score_steps *s, mx_error *err)
{
    if (s->done == 0 || s->layers * s->heads == 0)
        return 0;
    const labels *rows = name_labels(tr, s, true, err);
    const labels *cols = rows != NULL ? name_labels(tr, s, false, err) : NULL;
    if (cols == NULL)
        return -1;
    const table_key key = {s->variant, 0, NO_HEAD, TABLE_HEAD_SCORES_STEPS,
                           false};
    table *t = trace_new(tr, &key, rows, cols, err);
    if (t == NULL)
        return -1;
    t->stacked = false; // the whole model's, not block 0's
    memcpy(t->values.v, s->values, s->n * s->layers * s->heads * sizeof(float));
    return 0;
}

void score_steps_free(score_steps *s)
{
    free(s->values);
    s->values = NULL;
}
