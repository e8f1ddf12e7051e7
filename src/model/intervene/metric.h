/* metric.h: what --ablate all-heads measures of each head (--metric),
 * on the logits (T, V) of a run over the text (T tokens):
 *
 *   loss        F.cross_entropy(logits[:-1], ids[1:]): the mean loss on
 *               the next tokens (lm_runs.h)
 *   logit-diff  logits[T-1][answer] - logits[T-1][wrong], the logit
 *               difference of TransformerLens's patching demo
 *               (get_logit_diff)
 *   prob        torch.softmax(logits[T-1], -1)[answer]: the probability
 *               that the next token is --answer
 *
 * ablation_map holds each head's ablated value minus the clean one.
 */
#ifndef MHA_METRIC_H
#define MHA_METRIC_H

#include <stdint.h>

#include "base/error.h"
#include "model/intervene/lm_runs.h"
#include "model/run_request.h"
#include "numerics/tensor.h"

/* rq's metric over a text: its kind and its tokens. */
typedef struct {
    enum ablate_metric kind;
    int32_t answer, wrong; /* logit-diff: both; prob: answer */
} lm_metric;

/* The metric of rq over run's text: --answer and --wrong read as one
 * token each where the metric needs them. */
int lm_metric_open(lm_metric *m, const lm_text *run, const run_request *rq,
                   mx_error *err);

/* What ablation_map measures with metric kind, for its pictures'
 * captions: a msgid (show it through _()). */
const char *lm_metric_measure(enum ablate_metric kind);

/* *value: the metric of logits (T, V) over run's text. */
int lm_metric_of(float *value, const lm_metric *m, const matrix *logits,
                 const lm_text *run, mx_error *err);

#endif
