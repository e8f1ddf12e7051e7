/* head_scores.c: each head's previous-token, duplicate-token and
 * induction score (head_scores.h). */
#include "model/intervene/head_scores.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/i18n.h"
#include "model/checkpoint_run.h"
#include "model/family.h"
#include "model/intervene/head_patterns.h"
#include "model/intervene/lm_runs.h"

/* What the recorder fills: scores (L·H, 3) from each head's weights. */
typedef struct {
    const float *patterns; /* HEAD_PATTERNS patterns of T x T */
    size_t T, H;
    float *product; /* T x T working room */
    matrix *scores;
} scorer;

/* A head's three scores into its row of s->scores. */
static int score_head(void *ctx, const table_key *at, const matrix *m,
                      mx_error *err)
{
    (void)err;
    scorer *s = ctx;
    if (!is_layer_table(at) || at->id != TABLE_ATTN_WEIGHTS)
        return 0;
    const size_t n = s->T * s->T;
    const size_t row = (size_t)at->layer * s->H + (size_t)at->head;
    for (int k = 0; k < HEAD_PATTERNS; k++)
        *matrix_at(s->scores, row, (size_t)k) = head_pattern_score(
            m->v, s->patterns + (size_t)k * n, s->product, n);
    return 0;
}

/* The heads shown, as the rest of a checkpoint's run shows them: the
 * members of --layers and --show-heads (every head without them), as
 * indices of the L·H heads, layer by layer, into shown (*n of them). */
static int heads_shown(size_t *shown, size_t *n, const run_request *rq,
                       const lm_shape *shape, mx_error *err)
{
    const size_t L = shape->layers, H = shape->heads;
    bool *layer = calloc(L, sizeof *layer), *head = calloc(H, sizeof *head);
    int rc = layer != NULL && head != NULL
                 ? 0
                 : err_nomem(err, _("attention weights"));
    if (rc == 0)
        rc = checkpoint_run_select(layer, L, rq->layers, rq->n_layers,
                                   RUN_LIST_LAYERS, err);
    if (rc == 0)
        rc = checkpoint_run_select(head, H, rq->show_heads, rq->n_show_heads,
                                   RUN_LIST_SHOW_HEADS, err);
    *n = 0;
    for (size_t i = 0; rc == 0 && i < L * H; i++)
        if (layer[i / H] && head[i % H])
            shown[(*n)++] = i;
    free(layer);
    free(head);
    return rc;
}

/* The rows' names, "h.L.H" (the model's layer name), of the n heads
 * shown (indices of the L·H heads). */
static char **head_names(const trace *tr, const lm_shape *shape,
                         const size_t *shown, size_t n, mx_error *err)
{
    const size_t H = shape->heads;
    const char *layer = shape->layer != NULL ? shape->layer : lm_layer_name(tr);
    char **names = calloc(n, sizeof *names);
    for (size_t i = 0; names != NULL && i < n; i++) {
        char name[64];
        snprintf(name, sizeof name, "%s.%zu.%zu", layer, shown[i] / H,
                 shown[i] % H);
        if ((names[i] = strdup(name)) == NULL) {
            lm_labels_free(names, n);
            names = NULL;
        }
    }
    if (names == NULL)
        err_nomem(err, _("attention weights"));
    return names;
}

/* tokens (T x 1) of --repeat-random's drawn text: each id under its
 * token's label, as a sentence's run shows them. */
static int put_tokens(trace *tr, const lm_text *run, mx_error *err)
{
    char **names = lm_labels(run, run->ids, run->T, err);
    const labels *rows =
        names != NULL
            ? trace_word_labels(tr, "", (const char *const *)names, run->T, err)
            : NULL;
    lm_labels_free(names, run->T);
    const labels *id = rows != NULL ? trace_literal_label(tr, "id", err) : NULL;
    const table_key key = {VARIANT_INPUT, 0, NO_HEAD, TABLE_TOKENS, false};
    table *t = id != NULL ? trace_new(tr, &key, rows, id, err) : NULL;
    if (t == NULL)
        return -1;
    t->integral = true;
    for (size_t i = 0; i < run->T; i++)
        t->values.v[i] = (float)run->ids[i];
    trace_release(tr, t);
    return trace_flush(tr, err);
}

/* Whether --tables names tokens: --repeat-random's run shows its drawn
 * text when asked, its scores alone by default. */
static bool asks_tokens(const run_request *rq)
{
    for (size_t i = 0; i < rq->n_tables; i++)
        if (table_pick_row(&rq->tables[i]) == TABLE_TOKENS)
            return true;
    return false;
}

int head_scores_check(const lm_ops *lm, const run_request *rq,
                      const model_input *in, mx_error *err)
{
    lm_text run;
    if (lm_text_of(&run, lm, rq, in, err) != 0)
        return -1;
    const size_t T = run.T;
    lm_text_close(&run);
    if (T < 2)
        return err_detail_set(err, RUN_ONE_TOKEN, RUN_HEAD_SCORES, 0, 0);
    return 0;
}

int head_scores_record(trace *tr, const lm_ops *lm, const run_request *rq,
                       const model_input *in, mx_error *err)
{
    lm_text run;
    if (lm_text_of(&run, lm, rq, in, err) != 0)
        return -1;
    const size_t T = run.T, L = run.shape.layers, H = run.shape.heads;
    float *patterns = calloc(HEAD_PATTERNS * T * T, sizeof *patterns);
    float *product = calloc(T * T, sizeof *product);
    size_t *shown = calloc(L * H, sizeof *shown), n = 0;
    matrix scores = {0};
    char **names = NULL;
    int rc = -1;
    if (patterns == NULL || product == NULL || shown == NULL) {
        err_nomem(err, _("attention weights"));
        goto out;
    }
    if (heads_shown(shown, &n, rq, &run.shape, err) != 0)
        goto out;
    if (rq->repeat_random > 0 && asks_tokens(rq) &&
        put_tokens(tr, &run, err) != 0)
        goto out;
    if (matrix_alloc(&scores, L * H, HEAD_PATTERNS, N_("attention weights"),
                     err) != 0)
        goto out;
    for (int k = 0; k < HEAD_PATTERNS; k++)
        head_detection_pattern(patterns + (size_t)k * T * T, k, run.ids, T);
    scorer s = {patterns, T, H, product, &scores};
    if (lm_run_record(&run, score_head, &s, err) != 0)
        goto out;
    if ((names = head_names(tr, &run.shape, shown, n, err)) == NULL)
        goto out;
    static const char *const cols[] = {"previous_token", "duplicate_token",
                                       "induction"};
    const labels *rows =
        trace_word_labels(tr, "", (const char *const *)names, n, err);
    const labels *cl = trace_word_labels(tr, "", cols, HEAD_PATTERNS, err);
    const table_key key = {VARIANT_MODEL, 0, NO_HEAD, TABLE_HEAD_SCORES, false};
    table *t = rows && cl ? trace_new(tr, &key, rows, cl, err) : NULL;
    if (t == NULL)
        goto out;
    // every head shown: row l·H + h is head h of layer l (the CSV's keys);
    // some: the rows are named by their labels alone
    if (n == L * H)
        t->map_heads = H;
    for (size_t i = 0; i < n; i++)
        memcpy(matrix_at(&t->values, i, 0), matrix_at(&scores, shown[i], 0),
               HEAD_PATTERNS * sizeof *scores.v);
    trace_release(tr, t);
    rc = trace_flush(tr, err);
out:
    lm_labels_free(names, n);
    free(shown);
    matrix_free(&scores);
    free(patterns);
    free(product);
    lm_text_close(&run);
    return rc;
}
