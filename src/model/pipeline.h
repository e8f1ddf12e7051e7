/* pipeline.h: one input through a model into a trace: the run a
 * run_request asks for over its model_input (model/run_request.h), which
 * the family the configuration asks for makes (model/family.h): the
 * lesson's variants (model/lesson/lesson_run.h) or a checkpoint
 * (model/gpt2/gpt2_trace.h); then the interventions it asks for
 * (model/intervene/).
 */
#ifndef MHA_PIPELINE_H
#define MHA_PIPELINE_H

#include <stdbool.h>

#include "base/error.h"
#include "model/run_request.h"
#include "model/tokenize.h"
#include "model/trace.h"

/* Checks, without building anything, that the input tokenizes and that
 * the run fits the limits, streamed or keeping its whole trace (trace.h);
 * *values is about how many float values its whole trace makes. An
 * item of --layers, --show-heads or --ablate past the model's sizes is
 * returned as err's detail (enum run_mistake), as pipeline_run does. */
int pipeline_check(double *values, const run_request *rq, const model_input *in,
                   bool streamed, mx_error *err);

/* The tokens of the input as a run makes them: the sentence's, then with
 * --kv the other sentence's; *n_queries says how many are the
 * sentence's. On success *tok owns them (tokenized_free). */
int pipeline_tokens(tokenized *tok, size_t *n_queries, const run_request *rq,
                    const model_input *in, mx_error *err);

/* Runs the model of rq over the input and appends every table to tr
 * (with --kv also the tables kv_tokens and kv_inputs; the vocabulary is
 * the sentence's words then the other sentence's new words, and there is
 * no causal mask)
 * (input tables first, then each variant in the order single, wrapper,
 * fused, block). With embeddings given there is no embedding table and no
 * embedding draw: the module's layers are the first draws after the seed.
 * tr must be initialised; on failure it may hold some tables and the
 * caller still frees it. When tr streams (trace.h), the run is held to
 * what it holds at once, the heads are computed a few at a time, and
 * every --weights file is read before the first table goes to the sink;
 * the last table has gone to the sink when it returns. */
int pipeline_run(trace *tr, const run_request *rq, const model_input *in,
                 mx_error *err);

/* Whether a run of rq over in makes the table p names (the tables of
 * pipeline_run, known before it runs: --tables is checked with it). */
bool pipeline_makes_table(const run_request *rq, const model_input *in,
                          const table_pick *p);

#endif
