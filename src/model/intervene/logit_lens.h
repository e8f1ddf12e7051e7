/* logit_lens.h: --logit-lens, what the model would say next if it stopped
 * after each layer (nostalgebraist's logit lens, TransformerLens's
 * accumulated residual stream through ln_final and the unembedding):
 *
 *   resid_L (T, D)   the residual stream after layer L (the layer's
 *                    output, the table hidden; a lesson stack's
 *                    block L's out)
 *   lens_L (T, V)    lm_head(final_norm(resid_L)) (model/lm.h, unembed):
 *                    the model's own step after its last layer, which
 *                    is lm_head alone on a trained lesson block, which
 *                    has no final norm
 *   logit_lens       for each layer L, the table logit_lens of layer L
 *                    (T·k x 1), as next_tokens: row t·k + j is
 *                    position t's j-th likeliest next token in
 *                    softmax(lens_L[t]), labelled "token → next", its
 *                    probability (model/next_tokens.h's order: the larger
 *                    first, a tie to the smaller id)
 *   logit_lens_grid  after the layers' tables (L x T): row L, column t
 *                    the probability of position t's likeliest next
 *                    token after layer L, the token in the cell's text
 *                    (table.cells), the columns the positions' tokens
 *
 * The last layer's lens is the model's own next_tokens. A family whose
 * model has no lm_head cannot make it (refused before the run).
 */
#ifndef MHA_LOGIT_LENS_H
#define MHA_LOGIT_LENS_H

#include <stdbool.h>

#include "base/error.h"
#include "model/lm.h"
#include "model/run_request.h"
#include "model/trace.h"

/* Checks --logit-lens without running: lm NULL (a family without an
 * lm_head) is refused, and the model is opened over the input's
 * sentence (a lesson model's lm_head is a trained --variant block's,
 * model/lesson/lesson_lm.h), unless the family's run refuses all that
 * opening would (lm.h, run_refuses_text: a checkpoint's). */
int logit_lens_check(const lm_ops *lm, const run_request *rq,
                     const model_input *in, mx_error *err);

/* Appends the tables logit_lens of every layer, then logit_lens_grid, to
 * tr, after the family's run over the input's sentence. */
int logit_lens_record(trace *tr, const lm_ops *lm, const run_request *rq,
                      const model_input *in, mx_error *err);

#endif
