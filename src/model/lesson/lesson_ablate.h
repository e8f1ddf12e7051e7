/* lesson_ablate.h: --ablate L.H on a lesson run without an lm_head (the
 * notebooks' modules as drawn: single, wrapper, fused, the block or a
 * stack of blocks), where the run's own forward pass switches the heads
 * off.
 *
 * The hooks pipeline.c makes from --ablate (model/intervene/ablate.h)
 * name head H of layer L under the variant block; each chosen variant's
 * pass takes them under its own name, for the heads it has:
 *
 *   single   one head (head 0), layer 0
 *   wrapper, fused   heads 0 to H-1, layer 0
 *   block    heads 0 to H-1, layers 0 to N-1 with --layers N
 *
 * A head's output z (head_context, T x hd) becomes 0 (--ablate-mode
 * zero) or each column its mean over the T positions (mean), and every
 * table after it is the ablated module's: that head's head_context,
 * concat_context, out, the block's attn_out to out and the later blocks
 * of a stack. A variant without the named head runs as it is. Such a
 * run has no lm_head, so no ablation_effect: the tables themselves are
 * the result. A trained run (--train, a model with an lm_head) is the
 * interventions' lesson model instead (lesson_lm.h).
 */
#ifndef MHA_LESSON_ABLATE_H
#define MHA_LESSON_ABLATE_H

#include "base/error.h"
#include "model/catalogue.h"
#include "model/hooks.h"
#include "model/run_request.h"

/* For the family's row (model/family.h, ablate_alone): 1 when rq is a
 * lesson run without an lm_head that switches heads off in its own pass
 * (--ablate L.H without --train), every head of --ablate in the range of
 * the chosen variants; 0 when the interventions run as for any model
 * (no --ablate, --train, --ablate all-heads, --patch, --head-scores);
 * -1 for a head or layer out of range, err's detail RUN_LIST_ABLATE with
 * the largest layers and heads (model/pipeline.h). */
int lesson_ablate_alone(const run_request *rq, mx_error *err);

/* The hooks of variant v's pass: rq->replace's hooks under v's name, for
 * the heads v has, into *own (malloc'ed, the caller's; NULL for none)
 * and *hk. hk->replace is NULL when none applies. */
int lesson_ablate_hooks(forward_hooks *hk, replace_hook **own,
                        const run_request *rq, variant_id v, mx_error *err);

#endif
