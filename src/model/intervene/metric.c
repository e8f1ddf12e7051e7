/* metric.c: what --ablate all-heads measures (metric.h). */
#include "model/intervene/metric.h"

#include "base/i18n.h"
#include "model/intervene/patch.h"

int lm_metric_open(lm_metric *m, const lm_text *run, const run_request *rq,
                   mx_error *err)
{
    *m = (lm_metric){.kind = rq->metric};
    if (m->kind == METRIC_LOSS)
        return 0;
    if (m->kind == METRIC_LOGIT_DIFF)
        return patch_two_tokens(&m->answer, &m->wrong, run, rq, err);
    return patch_one_token(&m->answer, run, "--answer", rq->patch_answer, err);
}

const char *lm_metric_measure(enum ablate_metric kind)
{
    /* TRANSLATORS: the caption of ablation_map's colour scale in --plot
     * and the --html page: each head's ablated value minus the clean
     * one, of what --metric names */
    static const char *const measures[] = {
        [METRIC_LOSS] = N_("change of the mean loss (--metric loss)"),
        [METRIC_LOGIT_DIFF] = N_("change of the logit difference, --answer "
                                 "minus --wrong (--metric logit-diff)"),
        [METRIC_PROB] = N_("change of the probability of --answer "
                           "(--metric prob)"),
    };
    return measures[kind];
}

int lm_metric_of(float *value, const lm_metric *m, const matrix *logits,
                 const lm_text *run, mx_error *err)
{
    const size_t V = logits->cols;
    const float *last = logits->v + (logits->rows - 1) * V;
    switch (m->kind) {
    case METRIC_LOGIT_DIFF:
        *value = last[m->answer] - last[m->wrong];
        return 0;
    case METRIC_PROB: {
        matrix p = {0};
        const matrix row = {1, V, logits->v + (logits->rows - 1) * V};
        if (matrix_alloc(&p, 1, V, N_("logits"), err) != 0)
            return -1;
        softmax_rows(&p, &row, 1.0f);
        *value = p.v[m->answer];
        matrix_free(&p);
        return 0;
    }
    case METRIC_LOSS:
    default: {
        lm_loss loss;
        if (lm_loss_of(&loss, logits, run, err) != 0)
            return -1;
        *value = loss.mean;
        lm_loss_free(&loss);
        return 0;
    }
    }
}
