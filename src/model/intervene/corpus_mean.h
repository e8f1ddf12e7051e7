/* corpus_mean.h: --ablate-mode mean over --corpus FILE on a model whose
 * session does not take that mean itself (lm.h's own_corpus false: a
 * checkpoint's). Each head's output z (head_context, TransformerLens's
 * hook_z) is replaced by its mean over every position of every text of
 * the corpus, as a user of PyTorch takes a mean over texts of different
 * lengths, which cannot be stacked into one batch:
 *
 *   for each text i of the corpus, in the file's order:
 *       ids_i = the model's tokenizer over text i (1 .. positions tokens)
 *       z_i (T_i, hd) = the head's z in the clean model's pass over ids_i
 *   mean (1, hd) = torch.cat([z_0, z_1, ...]).mean(dim=0, keepdim=True)
 *
 * (tests/reference/make_intervention_reference.py's corpus_tables). The
 * sums are mean_rows' (PyTorch's order for a mean over the rows), fed a
 * row at a time (numerics' mean_stream), so the corpus's z is never held
 * whole. The run then sets the mean on every position of its text
 * (hooks.h's HOOK_ROW, ablate.h's ablate_head_hook), the run's tables,
 * ablation_effect, ablation_loss, each head of ablation_map and every
 * step of --generate alike.
 *
 * The corpus is the input's (model_input's corpus: the cells of --corpus
 * FILE's --column NAME, one text per data row, as the lessons read it);
 * a text with no token, or more than the model's positions, is refused
 * naming its line: "FILE:LINE: column 'NAME': the text is 20 tokens; the
 * model takes at most 16 (n_positions)".
 */
#ifndef MHA_CORPUS_MEAN_H
#define MHA_CORPUS_MEAN_H

#include <stdbool.h>

#include "base/error.h"
#include "model/intervene/lm_runs.h"
#include "model/lm.h"
#include "model/run_request.h"

/* Whether a run of rq over in takes its heads' means over the corpus
 * here: --ablate (heads or all-heads) with --ablate-mode mean, a corpus,
 * and a model (lm) whose session does not take them itself. */
bool corpus_mean_asked(const lm_ops *lm, const run_request *rq,
                       const model_input *in);

/* Checks, without running, that every text of in's corpus tokenizes
 * with run's model into 1 .. its positions tokens (the message naming
 * the text's line), and that there is a text. */
int corpus_mean_check(const lm_text *run, const model_input *in, mx_error *err);

/* *m: each head's mean over in's corpus, the clean model of rq (lm) run
 * over each text in turn (each pass told to rq->passes as "--corpus");
 * corpus_mean_free frees it, after a failure too. */
int corpus_mean_of(head_means *m, const lm_ops *lm, const run_request *rq,
                   const model_input *in, mx_error *err);
void corpus_mean_free(head_means *m);

#endif
