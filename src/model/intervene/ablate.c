/* ablate.c: switching heads off (ablate.h). */
#include "model/intervene/ablate.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/i18n.h"
#include "model/intervene/ablate_map.h"
#include "model/intervene/corpus_mean.h"
#include "model/intervene/lm_runs.h"
#include "model/intervene/metric.h"
#include "model/loss.h"
#include "model/next_tokens.h"

bool ablate_makes_table(const run_request *rq, table_id id)
{
    const table_set made = rq->ablate_all     ? ABLATION_MAP_TABLES
                           : rq->n_ablate > 0 ? ABLATION_TABLES
                                              : 0;
    return (made & table_bit(id)) != 0;
}

/* Each head of --ablate within the model's L layers and H heads. */
static int check_heads(const lm_shape *shape, const run_request *rq,
                       mx_error *err)
{
    for (size_t i = 0; i < rq->n_ablate; i++) {
        const head_ref *h = &rq->ablate[i];
        if (h->layer >= shape->layers || h->head >= shape->heads)
            return err_detail_set(err, RUN_LIST_ABLATE, i, shape->layers,
                                  shape->heads);
    }
    return 0;
}

int ablate_check(const lm_ops *lm, const run_request *rq, const model_input *in,
                 mx_error *err)
{
    lm_text run;
    if (lm_text_open(&run, lm, rq, in->sentence, in->len, err) != 0)
        return -1;
    lm_metric metric;
    int rc = check_heads(&run.shape, rq, err);
    if (rc == 0)
        rc = lm_metric_open(&metric, &run, rq, err);
    // ablation_loss and --metric loss read each token's next one; prob
    // and logit-diff read the last token only
    const bool loss = !rq->ablate_all || rq->metric == METRIC_LOSS;
    if (rc == 0 && run.T < 2 && loss)
        rc = err_detail_set(err, RUN_ONE_TOKEN, RUN_ABLATE, 0, 0);
    // --ablate-mode mean over --corpus: every text fits the model
    if (rc == 0 && corpus_mean_asked(lm, rq, in))
        rc = corpus_mean_check(&run, in, err);
    lm_text_close(&run);
    return rc;
}

/* ---- the tables -------------------------------------------------------- */

/* "<token t> → <label of id>" into buf. */
static void arrow_label(char *buf, size_t size, const lm_text *run, size_t t,
                        int32_t id)
{
    char from[256], to[256];
    run->lm->label(from, sizeof from, run->s, run->ids[t]);
    run->lm->label(to, sizeof to, run->s, id);
    snprintf(buf, size, "%s \u2192 %s", from, to);
}

/* A new table id of rows x cols labels (rows named by names), under the
 * model after its layers, its values from v. */
static int put_named(trace *tr, table_id id, char **names, size_t n_rows,
                     const char *const *cols, size_t n_cols, const float *v,
                     mx_error *err)
{
    const labels *rows =
        trace_word_labels(tr, "", (const char *const *)names, n_rows, err);
    const labels *cl = trace_word_labels(tr, "", cols, n_cols, err);
    const table_key key = {VARIANT_MODEL, 0, NO_HEAD, id, false};
    table *t = rows && cl ? trace_new(tr, &key, rows, cl, err) : NULL;
    if (t == NULL)
        return -1;
    memcpy(t->values.v, v, n_rows * n_cols * sizeof *v);
    trace_release(tr, t);
    return trace_flush(tr, err);
}

static void free_names(char **names, size_t n)
{
    if (names != NULL)
        for (size_t i = 0; i < n; i++)
            free(names[i]);
    free(names);
}

/* ablation_effect (T·k x 3) from the clean and ablated logits (T, V):
 * the clean run's next_tokens (model/next_tokens.h), then the same ids'
 * ablated probabilities and logits. */
static int put_effect(trace *tr, const lm_text *run, const matrix *clean,
                      const matrix *ablated, mx_error *err)
{
    const size_t T = clean->rows, V = clean->cols, K = NEXT_TOKENS_K;
    matrix pa = {0};
    size_t k = 0;
    size_t *best = calloc(T * K, sizeof *best);
    float *pc = calloc(T * K, sizeof *pc);
    float *v = calloc(T * K * 3, sizeof *v);
    char **names = calloc(T * K, sizeof *names);
    int rc = -1;
    if (best == NULL || pc == NULL || v == NULL || names == NULL) {
        err_nomem(err, _("logits"));
        goto out;
    }
    if (next_tokens_top(best, pc, &k, clean, err) != 0 ||
        matrix_alloc(&pa, 1, V, N_("logits"), err) != 0)
        goto out;
    for (size_t t = 0; t < T; t++) {
        const matrix ra_row = {1, V, ablated->v + t * V};
        softmax_rows(&pa, &ra_row, 1.0f);
        for (size_t j = 0; j < k; j++) {
            char line[600];
            const size_t row = t * k + j, id = best[row];
            arrow_label(line, sizeof line, run, t, (int32_t)id);
            if ((names[row] = strdup(line)) == NULL) {
                err_nomem(err, _("logits"));
                goto out;
            }
            v[row * 3] = pc[row];
            v[row * 3 + 1] = pa.v[id];
            v[row * 3 + 2] = ablated->v[t * V + id] - clean->v[t * V + id];
        }
    }
    static const char *const cols[] = {"clean", "ablated", "logit_change"};
    rc = put_named(tr, TABLE_ABLATE_EFFECT, names, T * k, cols, 3, v, err);
out:
    free_names(names, T * K);
    free(best);
    free(pc);
    free(v);
    matrix_free(&pa);
    return rc;
}

/* ablation_loss (T x 3): each token's loss on the next, then the mean. */
static int put_loss(trace *tr, const lm_text *run, const lm_loss *clean,
                    const lm_loss *ablated, mx_error *err)
{
    const size_t T = run->T;
    float *v = calloc(T * 3, sizeof *v);
    char **names = calloc(T, sizeof *names);
    int rc = -1;
    if (v == NULL || names == NULL) {
        err_nomem(err, _("logits"));
        goto out;
    }
    for (size_t t = 0; t < T; t++) {
        char line[600];
        const bool mean = t + 1 == T;
        if (mean)
            snprintf(line, sizeof line, "mean");
        else
            arrow_label(line, sizeof line, run, t, run->ids[t + 1]);
        if ((names[t] = strdup(line)) == NULL) {
            err_nomem(err, _("logits"));
            goto out;
        }
        v[t * 3] = mean ? clean->mean : clean->each[t];
        v[t * 3 + 1] = mean ? ablated->mean : ablated->each[t];
        v[t * 3 + 2] = v[t * 3 + 1] - v[t * 3];
    }
    static const char *const cols[] = {"clean", "ablated", "change"};
    rc = put_named(tr, TABLE_ABLATE_LOSS, names, T, cols, 3, v, err);
out:
    free_names(names, T);
    free(v);
    return rc;
}

/* --ablate L.H,...: the run with those heads ablated against the clean
 * one. */
static int record_heads(trace *tr, lm_text *run, const run_request *rq,
                        mx_error *err)
{
    matrix clean = {0}, ablated = {0};
    lm_loss lc = {0}, la = {0};
    replace_hook *hooks = NULL;
    size_t n = 0;
    int rc = ablate_hooks(&hooks, &n, rq, err);
    if (rc == 0)
        rc = lm_text_logits(&clean, run, NULL, 0, err);
    if (rc == 0)
        rc = lm_text_logits(&ablated, run, hooks, n, err);
    if (rc == 0)
        rc = lm_loss_of(&lc, &clean, run, err);
    if (rc == 0)
        rc = lm_loss_of(&la, &ablated, run, err);
    if (rc == 0)
        rc = put_effect(tr, run, &clean, &ablated, err);
    if (rc == 0)
        rc = put_loss(tr, run, &lc, &la, err);
    lm_loss_free(&lc);
    lm_loss_free(&la);
    matrix_free(&clean);
    matrix_free(&ablated);
    free(hooks);
    return rc;
}

/* map (L x H): each head alone ablated in a whole forward pass, for a
 * family without lm_ops.layers: the change of the metric's measure. */
static int map_passes(matrix *map, lm_text *run, const run_request *rq,
                      const lm_metric *metric, mx_error *err)
{
    const size_t L = run->shape.layers, H = run->shape.heads;
    matrix logits = {0};
    float clean = 0, ablated = 0;
    int rc = lm_text_logits(&logits, run, NULL, 0, err);
    if (rc == 0)
        rc = lm_metric_of(&clean, metric, &logits, run, err);
    for (size_t l = 0; rc == 0 && l < L; l++)
        for (size_t h = 0; rc == 0 && h < H; h++) {
            const replace_hook k = ablate_head_hook(rq, l, h);
            matrix_free(&logits);
            rc = lm_text_logits(&logits, run, &k, 1, err);
            if (rc == 0)
                rc = lm_metric_of(&ablated, metric, &logits, run, err);
            if (rc == 0) {
                *matrix_at(map, l, h) = ablated - clean;
                passes_tell(rq->passes, "--ablate all-heads", l * H + h + 1,
                            L * H);
            }
        }
    matrix_free(&logits);
    return rc;
}

/* --ablate all-heads: ablation_map (L x H), each head alone: the change
 * of --metric's measure (metric.h); from the residual stream before its
 * layer when the family runs its layers (ablate_map.h). */
static int record_map(trace *tr, lm_text *run, const run_request *rq,
                      mx_error *err)
{
    matrix map = {0};
    lm_metric metric;
    int rc = matrix_alloc(&map, run->shape.layers, run->shape.heads,
                          N_("logits"), err);
    if (rc == 0)
        rc = lm_metric_open(&metric, run, rq, err);
    if (rc == 0)
        rc = run->lm->layers != NULL
                 ? ablate_map_shared(&map, run, rq, &metric, err)
                 : map_passes(&map, run, rq, &metric, err);
    if (rc == 0)
        rc = lm_put_map(tr, TABLE_ABLATE_MAP, &map, NULL, err);
    matrix_free(&map);
    return rc;
}

/* What rq's ablation set a head's z to, into m: a mean is over the
 * input's corpus when it has one (a checkpoint's --corpus, the corpus a
 * lesson model was trained on), else over the text's positions. */
static void say_ablated(trace_model *m, const run_request *rq,
                        const model_input *in)
{
    const bool corpus =
        rq->ablate_mode == HOOK_MEAN && in->corpus != NULL && in->n_corpus > 0;
    m->ablated_to = rq->ablate_mode != HOOK_MEAN ? ABLATED_ZERO
                    : corpus                     ? ABLATED_CORPUS_MEAN
                                                 : ABLATED_TEXT_MEAN;
    m->ablated_texts = corpus ? in->n_corpus : 0;
    m->ablated_file = corpus ? in->corpus_file : NULL;
    m->ablated_column = corpus ? in->corpus_column : NULL;
}

int ablate_record(trace *tr, const lm_ops *lm, const run_request *rq,
                  const model_input *in, mx_error *err)
{
    say_ablated(&tr->model, rq, in);
    lm_text run;
    if (lm_text_open(&run, lm, rq, in->sentence, in->len, err) != 0)
        return -1;
    int rc = check_heads(&run.shape, rq, err);
    if (rq->ablate_all)
        tr->model.map_measure = lm_metric_measure(rq->metric);
    if (rc == 0)
        rc = rq->ablate_all ? record_map(tr, &run, rq, err)
                            : record_heads(tr, &run, rq, err);
    lm_text_close(&run);
    return rc;
}
