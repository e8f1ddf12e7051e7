/* logit_lens.c: the model's head over the residual stream after each layer
 * (logit_lens.h). */
#include "model/intervene/logit_lens.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/i18n.h"
#include "model/intervene/lm_runs.h"
#include "model/next_tokens.h"

int logit_lens_check(const lm_ops *lm, const run_request *rq, mx_error *err)
{
    if (!rq->logit_lens)
        return 0;
    if (lm == NULL || lm->unembed == NULL)
        return err_usage(
            err,
            _("%s: needs a model with an lm_head (--model DIR); this family cannot run it"),
            "--logit-lens");
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
    if (at->id != TABLE_HIDDEN || at->variant != VARIANT_ID_BLOCK ||
        at->head != NO_HEAD || at->layer < 0 ||
        (size_t)at->layer >= k->layers || m->rows != k->T)
        return 0;
    // D: the width of the first layer's output
    if (k->resid.v == NULL && matrix_alloc(&k->resid, k->layers * k->T, m->cols,
                                           N_("hidden states"), err) != 0)
        return -1;
    const size_t n = k->T * k->resid.cols;
    memcpy(k->resid.v + (size_t)at->layer * n, m->v, n * sizeof *m->v);
    return 0;
}

/* logit_lens of layer L (T·n x 1) from its lens logits (T, V); names
 * (T·K, NULL) gets its rows' labels, the caller's to free: the trace
 * tells word lists apart by their address, so each layer's list stays
 * allocated until every layer's table is made. */
static int put_layer(trace *tr, char **names, const lm_text *run, size_t L,
                     const matrix *lens, mx_error *err)
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
        if ((names[i] = strdup(both)) == NULL) {
            err_nomem(err, _("tokens"));
            goto out;
        }
    }
    const labels *rows =
        trace_word_labels(tr, "", (const char *const *)names, T * n, err);
    const labels *col = trace_literal_label(tr, "probability", err);
    const table_key key = {VARIANT_ID_BLOCK, (int)L, NO_HEAD, TABLE_LOGIT_LENS,
                           false};
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
    int rc = names != NULL ? lm_run_ids(&logits, &run, run.ids, T, NULL, 0,
                                        keep_hidden, &k, err)
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
            rc = put_layer(tr, names + l * T * K, &run, l, &lens, err);
    }
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
