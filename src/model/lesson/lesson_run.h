/* lesson_run.h: the lesson's family (model/family.h): one sentence
 * through the chosen variants of the notebooks into a trace.
 *
 *   sentence -> tokens + vocabulary -> embedding table -> inputs
 *            -> single | wrapper | fused | block -> tables
 *
 * Each variant starts as a fresh notebook would: torch.manual_seed(seed),
 * nn.Embedding(V, D) (or with --randn-input torch.randn(B, T, D)) drawn
 * first, then the module's layers in order, then its forward pass's
 * dropout masks. With --draw, one generator goes through the order given
 * instead (draws.h). With --train each variant's notebook is trained
 * first (trained.h).
 */
#ifndef MHA_LESSON_RUN_H
#define MHA_LESSON_RUN_H

#include <stdbool.h>

#include "base/error.h"
#include "model/run_request.h"
#include "model/tokenize.h"
#include "model/trace.h"
#include "model/lesson/train_words.h"

/* pipeline_check for the lesson's variants. */
int lesson_check(double *values, const run_request *rq, const model_input *in,
                 bool streamed, mx_error *err);

/* pipeline_run for the lesson's variants. */
int lesson_run(trace *tr, const run_request *rq, const model_input *in,
               mx_error *err);

/* pipeline_makes_table for the lesson's variants (lesson_tables.c). The
 * family's tokens are lesson_tokens.h's. */
bool lesson_makes_table(const run_request *rq, const model_input *in,
                        const table_pick *p);

/* What a trained lesson model is made of, as lesson_run makes it, for
 * the interventions' lesson model (lesson_lm.h). */

/* With --weights of a trained run with positions, *C is the number of
 * positions it learned, which the sentence's T tokens must not pass;
 * otherwise *C stays. */
int lesson_trained_positions(size_t *C, const run_request *rq, size_t T,
                             mx_error *err);

#endif
