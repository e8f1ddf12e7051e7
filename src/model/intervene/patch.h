/* patch.h: activation patching (--patch), on a model with an lm_head
 * (model/lm.h), as TransformerLens's patching.py does it
 * (generic_activation_patch) with the normalised logit difference of its
 * activation patching demo (ioi_metric).
 *
 * Two texts of the same token count: clean ("When Mary and John went to
 * the store, John gave a drink to", where the answer is " Mary") and
 * corrupted (the same with another name, where it is not). The metric
 * of a run's logits is the logit difference at the last position,
 *
 *   diff(logits) = logits[T-1][answer] - logits[T-1][wrong]
 *   metric       = (diff - corrupted_diff) / (clean_diff - corrupted_diff)
 *
 * (the baselines as Python floats, .item(), their difference in double):
 * 0 is the corrupted run, 1 the clean one. Each patch runs the corrupted
 * text with one activation taken from the clean run:
 *
 *   patch_heads (L x H)  a head's output z over every position
 *       (get_act_patch_attn_head_out_all_pos: hook_z)
 *   patch_resid (L x T)  the residual stream before layer L at one
 *       position (get_act_patch_resid_pre: hook_resid_pre)
 *
 * A score of 0.8 says that this one activation, moved from the clean
 * run, brings back 80% of the logit difference between the two runs.
 *
 * A patch at layer l changes nothing below it: on a model whose family
 * runs its layers from the residual stream (lm.h's layers), each patched
 * pass starts at layer l from the corrupted run's stream there (several
 * passes stacked, as ablate_map.h's), and computes the logits of the
 * last position alone, the only row the metric reads; every row of a
 * norm or a product is its own sum, so the scores are those of whole
 * passes bit for bit. Other models run a whole pass per patch.
 */
#ifndef MHA_PATCH_H
#define MHA_PATCH_H

#include <stdbool.h>
#include <stdint.h>

#include "base/error.h"
#include "model/intervene/lm_runs.h"
#include "model/lm.h"
#include "model/run_request.h"
#include "model/trace.h"

/* Checks the texts (the same token count), the answer and the wrong
 * token (one token each), without running. */
int patch_check(const lm_ops *lm, const run_request *rq, mx_error *err);

/* Appends patch_heads and patch_resid to tr. */
int patch_record(trace *tr, const lm_ops *lm, const run_request *rq,
                 mx_error *err);

/* *id: the one token of text (option's value: --answer, --wrong), or an
 * error naming its pieces. */
int patch_one_token(int32_t *id, const lm_text *run, const char *option,
                    const char *text, mx_error *err);

/* *answer and *wrong: the one tokens of --answer and --wrong, which
 * must differ (their logit difference would be 0 whatever the model). */
int patch_two_tokens(int32_t *answer, int32_t *wrong, const lm_text *run,
                     const run_request *rq, mx_error *err);

#endif
