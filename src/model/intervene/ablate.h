/* ablate.h: switching heads off (--ablate), on a model with an lm_head
 * (model/lm.h), as a user of TransformerLens does with a hook on hook_z.
 *
 * A head is ablated by replacing its output z (head_context, T x hd, the
 * head's columns of the input of the attention's output projection):
 *
 *   zero   every value 0
 *   mean   each column its mean over the text's T positions
 *          (z.mean(dim=0, keepdim=True), hooks.h's HOOK_MEAN); with
 *          --corpus, its mean over every position of every text of the
 *          corpus, taken before (corpus_mean.h), on every position
 *          (hooks.h's HOOK_ROW)
 *
 * --ablate L.H[,L.H...] runs the model with those heads ablated (the
 * run's tables are the ablated model's) and adds, against the clean run:
 *
 *   ablation_effect (T·k x 3)  for each token t, the k likeliest next
 *       tokens of the clean run ("t → next"): clean probability,
 *       ablated probability, ablated logit - clean logit
 *   ablation_loss (T x 3)  for each token t < T-1, the loss on the next
 *       token -log softmax(logits[t])[ids[t+1]] ("t → next"), and last
 *       their mean ("mean", F.cross_entropy(logits[:-1], ids[1:])):
 *       clean, ablated, ablated - clean
 *
 * --ablate all-heads runs the model once per head with that head alone
 * ablated, and adds ablation_map (L x H): the mean loss ablated - clean.
 */
#ifndef MHA_ABLATE_H
#define MHA_ABLATE_H

#include <stdbool.h>
#include <stddef.h>

#include "base/error.h"
#include "model/hooks.h"
#include "model/lm.h"
#include "model/run_request.h"
#include "model/trace.h"

/* The hook that ablates head `head` of layer `layer` as rq says
 * (--ablate-mode, and its means over --corpus: rq->ablate_means), named
 * as a layer's table (layer_table_key, trace.h). */
replace_hook ablate_head_hook(const run_request *rq, size_t layer, size_t head);

/* The hooks of rq's ablated heads, one per head (*n of them; *out
 * malloc'ed, the caller's, NULL for none). */
int ablate_hooks(replace_hook **out, size_t *n, const run_request *rq,
                 mx_error *err);

/* Checks the heads of --ablate against the model's sizes and the text
 * (at least two tokens where a loss is measured: it needs a next token),
 * without running. A head past the sizes is err's detail RUN_LIST_ABLATE
 * (model/pipeline.h). */
int ablate_check(const lm_ops *lm, const run_request *rq, const model_input *in,
                 mx_error *err);

/* Appends the tables of the ablation rq asks for to tr. */
int ablate_record(trace *tr, const lm_ops *lm, const run_request *rq,
                  const model_input *in, mx_error *err);

/* Whether the ablation of rq makes the table id. */
bool ablate_makes_table(const run_request *rq, table_id id);

#endif
