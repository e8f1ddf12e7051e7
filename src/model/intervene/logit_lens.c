/* logit_lens.c: the model's head over the residual stream after each layer
 * (logit_lens.h). */
#include "model/intervene/logit_lens.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/i18n.h"
#include "model/intervene/lm_runs.h"
#include "model/next_tokens.h"

int logit_lens_check(const lm_ops *lm, const run_request *rq,
                     const model_input *in, mx_error *err)
{
    if (!rq->logit_lens)
        return 0;
    if (lm == NULL || lm->unembed == NULL)
        return err_detail_set(err, RUN_NEEDS_LM_HEAD, RUN_LOGIT_LENS, 0, 0);
    // the family's run opens the model over the text and refuses what
    // the lens would (lm.h): the model is not opened once more for that
    if (lm->run_refuses_text && rq->repeat_random == 0)
        return 0;
    // the model opens over the text: a lesson model that has no lm_head
    // (not trained, not a block) or a word it never saw is refused here
    lm_text run;
    if (lm_text_open(&run, lm, rq, in->sentence, in->len, err) != 0) {
        // the lesson's refusals name the option that asked (pipeline.h)
        if (err->detail.what == RUN_LESSON_UNTRAINED ||
            err->detail.what == RUN_LESSON_NOT_BLOCK)
            err->detail.item = RUN_LOGIT_LENS;
        return -1;
    }
    lm_text_close(&run);
    return 0;
}

/* The residual stream after each layer, as the forward pass hands it
 * over: resid (L·T, D), layer L's rows from L·T. */
typedef struct {
    matrix resid;
    size_t T, layers;
} lens_keep;

static int keep_hidden(void *ctx, const table_key *at, const matrix *m,
                       mx_error *err)
{
    lens_keep *k = ctx;
    if (at->id != TABLE_HIDDEN || !is_layer_table(at) || at->head != NO_HEAD ||
        at->layer < 0 || (size_t)at->layer >= k->layers || m->rows != k->T)
        return 0;
    // D: the width of the first layer's output
    if (k->resid.v == NULL && matrix_alloc(&k->resid, k->layers * k->T, m->cols,
                                           N_("hidden states"), err) != 0)
        return -1;
    const size_t n = k->T * k->resid.cols;
    memcpy(k->resid.v + (size_t)at->layer * n, m->v, n * sizeof *m->v);
    return 0;
}

/* What the grid keeps of each layer's lens: at row L·T + t, position
 * t's likeliest next token (its label, the caller's to free) and its
 * probability. */
typedef struct {
    char **top; /* L·T labels */
    float *p;   /* L·T */
} lens_grid;

/* logit_lens of layer L (T·n x 1) from its lens logits (T, V); names
 * (T·K, NULL) gets its rows' labels, the caller's to free: the trace
 * tells word lists apart by their address, so each layer's list stays
 * allocated until every layer's table is made. The likeliest token of
 * each position goes into the grid's row L. */
static int put_layer(trace *tr, char **names, lens_grid *grid,
                     const lm_text *run, size_t L, const matrix *lens,
                     mx_error *err)
{
    const size_t T = lens->rows, K = NEXT_TOKENS_K;
    size_t n = 0;
    size_t *best = calloc(T * K, sizeof *best);
    float *prob = calloc(T * K, sizeof *prob);
    int rc = -1;
    if (best == NULL || prob == NULL) {
        err_nomem(err, _("logits"));
        goto out;
    }
    if (next_tokens_top(best, prob, &n, lens, err) != 0)
        goto out;
    for (size_t i = 0; i < T * n; i++) {
        char from[256], to[256], both[600];
        run->lm->label(from, sizeof from, run->s, run->ids[i / n]);
        run->lm->label(to, sizeof to, run->s, (int32_t)best[i]);
        snprintf(both, sizeof both, "%s \u2192 %s", from, to);
        if ((names[i] = strdup(both)) == NULL ||
            (i % n == 0 && (grid->top[L * T + i / n] = strdup(to)) == NULL)) {
            err_nomem(err, _("tokens"));
            goto out;
        }
        if (i % n == 0)
            grid->p[L * T + i / n] = prob[i];
    }
    const labels *rows =
        trace_word_labels(tr, "", (const char *const *)names, T * n, err);
    const labels *col = trace_literal_label(tr, "probability", err);
    const table_key key = layer_table_key((int)L, NO_HEAD, TABLE_LOGIT_LENS);
    table *t = rows && col ? trace_new(tr, &key, rows, col, err) : NULL;
    if (t == NULL)
        goto out;
    memcpy(t->values.v, prob, T * n * sizeof *prob);
    trace_release(tr, t);
    rc = trace_flush(tr, err);
out:
    free(prob);
    free(best);
    return rc;
}

/* logit_lens_grid (L x T): row L ("h.L"), column t the probability of
 * position t's likeliest next token after layer L, the token written in
 * the cell (table.cells); the columns labelled with the positions'
 * tokens. */
static int put_grid(trace *tr, const lens_grid *grid, const lm_text *run,
                    size_t L, size_t T, mx_error *err)
{
    char **from = calloc(T, sizeof *from);
    int rc = from != NULL ? 0 : err_nomem(err, _("tokens"));
    for (size_t t = 0; rc == 0 && t < T; t++) {
        char piece[256];
        run->lm->label(piece, sizeof piece, run->s, run->ids[t]);
        if ((from[t] = strdup(piece)) == NULL)
            rc = err_nomem(err, _("tokens"));
    }
    // a row per layer, named as the other maps' rows ("h.3", lm_put_map)
    char prefix[64];
    snprintf(prefix, sizeof prefix, "%s.", lm_layer_name(tr));
    const labels *rows =
        rc == 0 ? trace_index_labels(tr, prefix, L, err) : NULL;
    const labels *cols =
        rows ? trace_new_word_labels(tr, "", (const char *const *)from, T, err)
             : NULL;
    const labels *cells =
        cols ? trace_new_word_labels(tr, "", (const char *const *)grid->top,
                                     L * T, err)
             : NULL;
    const table_key key = {VARIANT_MODEL, 0, NO_HEAD, TABLE_LOGIT_LENS_GRID,
                           false};
    table *tab = cells != NULL ? trace_new(tr, &key, rows, cols, err) : NULL;
    if (tab != NULL) {
        tab->cells = cells;
        memcpy(tab->values.v, grid->p, L * T * sizeof *grid->p);
        trace_release(tr, tab);
    }
    for (size_t t = 0; from != NULL && t < T; t++)
        free(from[t]);
    free(from);
    return tab != NULL ? trace_flush(tr, err) : -1;
}

int logit_lens_record(trace *tr, const lm_ops *lm, const run_request *rq,
                      const model_input *in, mx_error *err)
{
    if (!rq->logit_lens)
        return 0;
    lm_text run;
    if (lm_text_open(&run, lm, rq, in->sentence, in->len, err) != 0)
        return -1;
    const size_t T = run.T, L = run.shape.layers, V = run.shape.vocab;
    lens_keep k = {.T = T, .layers = L};
    matrix logits = {0}, lens = {0};
    // every layer's row labels, layer l's from l·T·K
    const size_t K = NEXT_TOKENS_K;
    char **names = calloc(L * T * K, sizeof *names);
    lens_grid grid = {calloc(L * T, sizeof *grid.top),
                      calloc(L * T, sizeof *grid.p)};
    int rc = names != NULL && grid.top != NULL && grid.p != NULL
                 ? lm_run_ids(&logits, &run, run.ids, T, NULL, 0, keep_hidden,
                              &k, err)
                 : err_nomem(err, _("tokens"));
    if (rc == 0 && k.resid.v == NULL)
        rc = err_set(err, 1, _("the model made no residual stream"));
    if (rc == 0)
        rc = matrix_alloc(&lens, T, V, N_("logits"), err);
    // layer by layer: lm_head(final_norm(resid_L)), then its top tokens
    for (size_t l = 0; rc == 0 && l < L; l++) {
        const size_t D = k.resid.cols;
        const matrix resid = {T, D, k.resid.v + l * T * D};
        rc = lm->unembed(run.s, &lens, &resid, err);
        if (rc == 0)
            rc = put_layer(tr, names + l * T * K, &grid, &run, l, &lens, err);
    }
    if (rc == 0)
        rc = put_grid(tr, &grid, &run, L, T, err);
    for (size_t i = 0; grid.top != NULL && i < L * T; i++)
        free(grid.top[i]);
    free(grid.top);
    free(grid.p);
    if (names != NULL)
        for (size_t i = 0; i < L * T * K; i++)
            free(names[i]);
    free(names);
    matrix_free(&lens);
    matrix_free(&logits);
    matrix_free(&k.resid);
    lm_text_close(&run);
    return rc;
}
