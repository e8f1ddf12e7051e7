/* ablate_map.h: --ablate all-heads's map (ablate.h's ablation_map, L x
 * H: --metric's measure with one head ablated minus the clean one,
 * metric.h) on a model
 * whose family runs its layers from the residual stream (lm.h's
 * layers).
 *
 * A head of layer l changes nothing before layer l, so its ablated pass
 * starts at layer l from the residual stream the clean pass had there,
 * rather than from the embeddings:
 *
 *   before (T, D) = the clean residual stream before layer 0 (inputs)
 *   for each layer l:
 *     n copies of before, stacked (n * T, D), one per head h of l
 *     (n = every head, or fewer when the rows would pass LM_ROWS_AT_ONCE)
 *     layers l .. L-1 over them, copy i with head h's z ablated
 *     logits = the model's head over each copy, then its measure
 *     before = layer l over before (the clean stream moves on)
 *
 * Every row of a product or a norm is its own sum, and each copy attends
 * to its own rows only, so each copy's logits are, bit for bit, those of
 * a whole forward pass with that head ablated; a layer's products run
 * once over every copy instead of once per head.
 */
#ifndef MHA_ABLATE_MAP_H
#define MHA_ABLATE_MAP_H

#include "base/error.h"
#include "model/hooks.h"
#include "model/intervene/lm_runs.h"
#include "model/intervene/metric.h"
#include "model/run_request.h"
#include "numerics/tensor.h"

/* map (L, H, allocated by the caller) = the metric of the text with each
 * head alone ablated as rq says (ablate.h's ablate_head_hook: zero, the
 * mean over the text or over --corpus) minus the clean run's, the heads
 * done told to rq->passes (NULL: no one). run's model must have
 * lm_ops.layers. */
int ablate_map_shared(matrix *map, lm_text *run, const run_request *rq,
                      const lm_metric *metric, mx_error *err);

#endif
