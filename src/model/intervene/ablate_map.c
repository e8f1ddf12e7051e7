/* ablate_map.c: --ablate all-heads from the residual stream before each
 * layer (ablate_map.h). */
#include "model/intervene/ablate_map.h"

#include <stdlib.h>
#include <string.h>

#include "base/i18n.h"
#include "model/intervene/ablate.h"

/* The recorder of the clean pass: keeps the residual stream before layer
 * 0 (inputs) in *before. */
static int keep_inputs(void *ctx, const table_key *at, const matrix *m,
                       mx_error *err)
{
    matrix *before = ctx;
    if (at->variant != VARIANT_INPUT || at->id != TABLE_INPUTS)
        return 0;
    matrix_free(before);
    if (matrix_alloc(before, m->rows, m->cols, N_("hidden states"), err) != 0)
        return -1;
    memcpy(before->v, m->v, m->rows * m->cols * sizeof *m->v);
    return 0;
}

/* The work of one group of copies: n heads of one layer, from h0. */
typedef struct {
    matrix resid;         /* (n * T, D) */
    matrix logits;        /* (n * T, V) */
    replace_hook *ablate; /* n: head h0 + i of the layer */
    forward_hooks *hooks; /* n: copy i's, ablate[i] */
} group;

static void group_free(group *g)
{
    matrix_free(&g->resid);
    matrix_free(&g->logits);
    free(g->ablate);
    free(g->hooks);
}

static int group_alloc(group *g, size_t n, size_t T, size_t D, size_t V,
                       mx_error *err)
{
    *g = (group){0};
    g->ablate = calloc(n, sizeof *g->ablate);
    g->hooks = calloc(n, sizeof *g->hooks);
    if (g->ablate == NULL || g->hooks == NULL) {
        group_free(g);
        return err_nomem(err, _("hidden states"));
    }
    if (matrix_alloc(&g->resid, n * T, D, N_("hidden states"), err) != 0 ||
        matrix_alloc(&g->logits, n * T, V, N_("logits"), err) != 0) {
        group_free(g);
        return -1;
    }
    return 0;
}

/* Heads h0 .. h0 + n - 1 of layer l, each ablated alone from before (the
 * clean stream before l): their metrics minus clean into map. */
static int run_group(matrix *map, group *g, lm_text *run, const matrix *before,
                     size_t l, size_t h0, size_t n, const run_request *rq,
                     const lm_metric *metric, float clean, mx_error *err)
{
    const size_t T = before->rows, D = before->cols, V = run->shape.vocab;
    matrix resid = {n * T, D, g->resid.v};
    matrix logits = {n * T, V, g->logits.v};
    for (size_t i = 0; i < n; i++) {
        memcpy(resid.v + i * T * D, before->v, T * D * sizeof *resid.v);
        g->ablate[i] = ablate_head_hook(rq, l, h0 + i);
        g->hooks[i] = (forward_hooks){.replace = &g->ablate[i], .n_replace = 1};
    }
    const size_t L = run->shape.layers;
    if (run->lm->layers(run->s, &resid, n, l, L - l, g->hooks, err) != 0 ||
        run->lm->unembed(run->s, &logits, &resid, err) != 0)
        return -1;
    for (size_t i = 0; i < n; i++) {
        const matrix one = {T, V, logits.v + i * T * V};
        float value;
        if (lm_metric_of(&value, metric, &one, run, err) != 0)
            return -1;
        *matrix_at(map, l, h0 + i) = value - clean;
    }
    return 0;
}

int ablate_map_shared(matrix *map, lm_text *run, const run_request *rq,
                      const lm_metric *metric, mx_error *err)
{
    const size_t L = run->shape.layers, H = run->shape.heads;
    const size_t V = run->shape.vocab, T = run->T;
    matrix before = {0}, logits = {0};
    float clean = 0;
    group g = {0};
    // the clean pass: its measure, and the stream before layer 0
    int rc = lm_run_ids(&logits, run, run->ids, T, NULL, 0, keep_inputs,
                        &before, err);
    if (rc == 0 && before.v == NULL)
        rc = err_set(err, 1, _("the model made no logits"));
    if (rc == 0)
        rc = lm_metric_of(&clean, metric, &logits, run, err);
    matrix_free(&logits);
    size_t most = T < LM_ROWS_AT_ONCE ? LM_ROWS_AT_ONCE / T : 1;
    if (most > H)
        most = H;
    if (rc == 0)
        rc = group_alloc(&g, most, T, before.cols, V, err);
    for (size_t l = 0; rc == 0 && l < L; l++) {
        for (size_t h0 = 0; rc == 0 && h0 < H; h0 += most) {
            const size_t n = H - h0 < most ? H - h0 : most;
            rc = run_group(map, &g, run, &before, l, h0, n, rq, metric, clean,
                           err);
            if (rc == 0)
                passes_tell(rq->passes, "--ablate all-heads", l * H + h0 + n,
                            L * H);
        }
        // the clean stream before layer l + 1
        if (rc == 0 && l + 1 < L)
            rc = run->lm->layers(run->s, &before, 1, l, 1, NULL, err);
    }
    group_free(&g);
    matrix_free(&before);
    return rc;
}
