/* lm_runs.c: a language model run over a text for the interventions
 * (lm_runs.h). */
#include "model/intervene/lm_runs.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/i18n.h"
#include "model/family.h"
#include "model/loss.h"
#include "numerics/rng.h"

int lm_text_open(lm_text *run, const lm_ops *lm, const run_request *rq,
                 const char *text, size_t len, mx_error *err)
{
    *run = (lm_text){.lm = lm};
    if (lm->open(&run->s, &run->shape, rq, err) != 0 ||
        lm->encode(&run->ids, &run->T, run->s, text, len, err) != 0) {
        lm_text_close(run);
        return -1;
    }
    return 0;
}

void lm_text_close(lm_text *run)
{
    if (run->s != NULL)
        run->lm->close(run->s);
    free(run->ids);
    *run = (lm_text){0};
}

/* What --repeat-random draws from: lm's draws, or every id below the
 * vocabulary with nothing around them. */
static int draws_of(lm_draws *d, const lm_text *run, mx_error *err)
{
    if (run->lm->draws != NULL)
        return run->lm->draws(d, run->s, err);
    *d = (lm_draws){.n_words = run->shape.vocab};
    return 0;
}

int lm_text_random(lm_text *run, const lm_ops *lm, const run_request *rq,
                   size_t n, uint64_t seed, mx_error *err)
{
    *run = (lm_text){.lm = lm};
    lm_draws d = {0};
    if (lm->open(&run->s, &run->shape, rq, err) != 0 ||
        draws_of(&d, run, err) != 0) {
        lm_text_close(run);
        return -1;
    }
    const size_t around = d.n_before + d.n_after;
    if (2 * n + around > run->shape.positions) {
        const size_t most = run->shape.positions;
        free(d.words);
        lm_text_close(run);
        return err_detail_set(err, RUN_REPEAT_TOO_LONG, around, n, most);
    }
    run->T = d.n_before + 2 * n + d.n_after;
    if ((run->ids = calloc(run->T, sizeof *run->ids)) == NULL) {
        free(d.words);
        lm_text_close(run);
        return err_nomem(err, _("tokens"));
    }
    // [before] w[0..n) w[0..n) [after]
    int32_t *half = run->ids + d.n_before;
    torch_rng g;
    rng_seed(&g, seed);
    // random_from_to: a 32-bit draw modulo the range (below 2^32), the
    // index of a word (the id itself when every id is a word)
    for (size_t i = 0; i < n; i++) {
        const size_t k = rng_next32(&g) % d.n_words;
        half[i] = d.words != NULL ? d.words[k] : (int32_t)k;
    }
    memcpy(half + n, half, n * sizeof *half);
    if (d.n_before > 0)
        memcpy(run->ids, d.before, d.n_before * sizeof *run->ids);
    if (d.n_after > 0)
        memcpy(half + 2 * n, d.after, d.n_after * sizeof *run->ids);
    free(d.words);
    return 0;
}

int lm_text_of(lm_text *run, const lm_ops *lm, const run_request *rq,
               const model_input *in, mx_error *err)
{
    if (rq->repeat_random > 0)
        return lm_text_random(run, lm, rq, rq->repeat_random, rq->seed, err);
    return lm_text_open(run, lm, rq, in->sentence, in->len, err);
}

/* What a pass's recorder does: keeps the logits, and passes every point
 * on to the caller's recorder. */
typedef struct {
    matrix *logits;
    int (*record)(void *ctx, const table_key *at, const matrix *m,
                  mx_error *err);
    void *ctx;
} keeper;

static int keep(void *ctx, const table_key *at, const matrix *m, mx_error *err)
{
    keeper *k = ctx;
    if (at->id == TABLE_LOGITS && at->variant == VARIANT_MODEL) {
        matrix_free(k->logits);
        if (matrix_alloc(k->logits, m->rows, m->cols, N_("logits"), err) != 0)
            return -1;
        memcpy(k->logits->v, m->v, m->rows * m->cols * sizeof *m->v);
    }
    return k->record != NULL ? k->record(k->ctx, at, m, err) : 0;
}

int lm_run_ids(matrix *logits, lm_text *run, const int32_t *ids, size_t T,
               const replace_hook *replace, size_t n,
               int (*record)(void *ctx, const table_key *at, const matrix *m,
                             mx_error *err),
               void *ctx, mx_error *err)
{
    keeper k = {logits, record, ctx};
    const forward_hooks hk = {replace, n, keep, &k};
    *logits = (matrix){0};
    if (run->lm->forward(run->s, ids, T, &hk, err) != 0) {
        matrix_free(logits);
        return -1;
    }
    if (logits->v == NULL)
        return err_set(err, 1, _("the model made no logits"));
    return 0;
}

int lm_last_logits_from(matrix *last, lm_text *run, matrix *resid, size_t n,
                        size_t first, const forward_hooks *hooks, mx_error *err)
{
    const size_t L = run->shape.layers, T = resid->rows / n, D = resid->cols;
    matrix rows = {0};
    if (run->lm->layers(run->s, resid, n, first, L - first, hooks, err) != 0 ||
        matrix_alloc(&rows, n, D, N_("hidden states"), err) != 0)
        return -1;
    // each pass's last row: (n, D)
    for (size_t i = 0; i < n; i++)
        memcpy(matrix_at(&rows, i, 0), matrix_at(resid, i * T + T - 1, 0),
               D * sizeof *rows.v);
    const int rc = run->lm->unembed(run->s, last, &rows, err);
    matrix_free(&rows);
    return rc;
}

int lm_run_record(lm_text *run,
                  int (*record)(void *ctx, const table_key *at, const matrix *m,
                                mx_error *err),
                  void *ctx, mx_error *err)
{
    const forward_hooks hk = {NULL, 0, record, ctx};
    return run->lm->forward(run->s, run->ids, run->T, &hk, err);
}

int lm_text_logits(matrix *logits, lm_text *run, const replace_hook *replace,
                   size_t n, mx_error *err)
{
    return lm_run_ids(logits, run, run->ids, run->T, replace, n, NULL, NULL,
                      err);
}

int lm_loss_of(lm_loss *loss, const matrix *logits, const lm_text *run,
               mx_error *err)
{
    const size_t T = run->T, V = logits->cols;
    matrix logp = {0};
    size_t *targets = calloc(T, sizeof *targets);
    *loss = (lm_loss){0};
    loss->each = calloc(T, sizeof *loss->each);
    if (targets == NULL || loss->each == NULL ||
        matrix_alloc(&logp, T - 1, V, N_("logits"), err) != 0) {
        free(targets);
        lm_loss_free(loss);
        return err_nomem(err, _("logits"));
    }
    for (size_t t = 0; t < T; t++)
        targets[t] = (size_t)run->ids[t];
    loss->mean = cross_entropy(NULL, &logp, logits, targets);
    for (size_t t = 0; t + 1 < T; t++)
        loss->each[t] = -*matrix_at(&logp, t, targets[t + 1]);
    matrix_free(&logp);
    free(targets);
    return 0;
}

void lm_loss_free(lm_loss *loss)
{
    free(loss->each);
    *loss = (lm_loss){0};
}

char **lm_labels(const lm_text *run, const int32_t *ids, size_t T,
                 mx_error *err)
{
    char **names = calloc(T > 0 ? T : 1, sizeof *names);
    for (size_t t = 0; names != NULL && t < T; t++) {
        char label[256];
        run->lm->label(label, sizeof label, run->s, ids[t]);
        if ((names[t] = strdup(label)) == NULL) {
            lm_labels_free(names, T);
            names = NULL;
        }
    }
    if (names == NULL)
        err_nomem(err, _("tokens"));
    return names;
}

void lm_labels_free(char **names, size_t T)
{
    if (names != NULL)
        for (size_t t = 0; t < T; t++)
            free(names[t]);
    free(names);
}

const char *lm_layer_name(const trace *tr)
{
    const char *layer = tr->family != NULL ? tr->family->layer_name : NULL;
    if (layer == NULL && tr->stacked_variant != VARIANT_INPUT)
        layer = variant_id_name(tr->stacked_variant);
    return layer != NULL ? layer : "layer";
}

int lm_put_map(trace *tr, table_id id, const matrix *map,
               const char *const *cols, mx_error *err)
{
    char prefix[64];
    snprintf(prefix, sizeof prefix, "%s.", lm_layer_name(tr));
    const labels *rows = trace_index_labels(tr, prefix, map->rows, err);
    const labels *cl = cols != NULL
                           ? trace_word_labels(tr, "", cols, map->cols, err)
                           : trace_index_labels(tr, "", map->cols, err);
    const table_key key = {VARIANT_MODEL, 0, NO_HEAD, id, false};
    table *t = rows && cl ? trace_new(tr, &key, rows, cl, err) : NULL;
    if (t == NULL)
        return -1;
    memcpy(t->values.v, map->v, map->rows * map->cols * sizeof *map->v);
    trace_release(tr, t);
    return trace_flush(tr, err);
}
