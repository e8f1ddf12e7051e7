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
#include "model/pipeline.h"
#include "model/tokenize.h"
#include "model/trace.h"

/* pipeline_check for the lesson's variants. */
int lesson_check(double *values, const run_request *rq, const model_input *in,
                 bool streamed, mx_error *err);

/* pipeline_tokens for the lesson's variants: the sentence split, or the
 * embeddings' labels; with --kv the other sentence's after; with --train
 * the trained vocabulary's ids. */
int lesson_tokens(tokenized *tok, size_t *n_queries, const run_request *rq,
                  const model_input *in, mx_error *err);

/* pipeline_run for the lesson's variants. */
int lesson_run(trace *tr, const run_request *rq, const model_input *in,
               mx_error *err);

/* pipeline_makes_table for the lesson's variants. */
bool lesson_makes_table(const run_request *rq, const model_input *in,
                        const char *name);

#endif
