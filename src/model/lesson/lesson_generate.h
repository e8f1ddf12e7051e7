/* lesson_generate.h: --generate with a trained lesson model (--train, or
 * a trained --weights folder): the notebook's model called in a loop,
 *
 *   ids = prompt
 *   for each new word:
 *     logits = lm_head(module(emb(ids) + pos(arange(len(ids)))))
 *     ids.append(pick(logits[-1]))          sampling.h: greedy, or the
 *                                           warpers and torch.multinomial
 *
 * as model/generate.h's loop runs it. The lesson modules keep no cache:
 * each step runs the whole sequence again (train_pass without a
 * backward pass), so its numbers are the ones the class gives for the
 * sequence so far. The words come from the trained vocabulary; the
 * sequence stops at the positions: pos's C rows with --positions, else
 * the longest sentence trained on, the size the notebook's classes build
 * their causal masks for (context_length).
 * Shapes: T the prompt's words, V the vocabulary, C the positions.
 */
#ifndef MHA_LESSON_GENERATE_H
#define MHA_LESSON_GENERATE_H

#include "base/error.h"
#include "model/catalogue.h"
#include "model/lesson/attention.h"
#include "model/lesson/train.h"
#include "model/run_request.h"
#include "model/trace.h"

/* Variant id's trained model m continues the prompt's T ids as rq says
 * (generate.h); the trace gets the table generated (N x 15, as a
 * checkpoint's: each new word with its id and probability, what the
 * warpers left and the five likeliest with theirs) under the variant,
 * and tr->model.context_full when the positions filled. context is the
 * longest sentence trained on (0: not known, then MAX_TOKENS), which
 * bounds a model without learned positions; vocab holds the V words;
 * cfg and dims are the module's. */
int lesson_generate_into(trace *tr, variant_id id, const run_request *rq,
                         const train_model *m, const model_dims *dims,
                         const attention_config *cfg, const size_t *prompt,
                         size_t T, size_t context, const labels *vocab,
                         mx_error *err);

#endif
