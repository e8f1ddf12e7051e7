/* lesson_size.h: the size of a run of the lesson's variants, known
 * before it runs: how many float values its whole trace holds (the
 * family's size estimate), what a streamed run holds at once, and the
 * checks of the limits (lesson_run.c runs what these measure). */
#ifndef MHA_LESSON_SIZE_H
#define MHA_LESSON_SIZE_H

#include <stdbool.h>
#include <stddef.h>

#include "base/error.h"
#include "model/lesson/model.h"
#include "model/run_request.h"
#include "model/tokenize.h"

/* The sizes of the lesson's modules of architecture m for a run of width
 * D (d_model). */
model_dims lesson_dims(const model_config *m, size_t D);

/* The model width: --d-model, or the embeddings' width. */
size_t lesson_width(const run_request *rq, const model_input *in);

/* The blocks of the block variant: --layers N stacks N, else one. */
size_t lesson_blocks(const model_config *m);

/* Whether variant v makes attn_weights_avg in this run: with --average,
 * in a module whose tables include it (one of several heads). */
bool lesson_averages(const run_request *rq, const variant_info *v);

/* Whether variant id's dropout is the block's, on its outputs
 * (--dropout), rather than the modules' on the weights (--attn-dropout). */
bool lesson_drops_outputs(variant_id id);

/* About how many float values the whole trace of this run holds, counted
 * in double so that absurd sizes cannot overflow: T tokens shown, C the
 * longest sentence a trained run learns from (T without --train), V
 * words in the vocabulary. */
double lesson_trace_size(const run_request *rq, size_t D, size_t T, size_t C,
                         size_t V);

/* The run fits the limits; *values is the size of its whole trace. C is
 * the longest sentence trained on (--train; else the tokens). A
 * streamed run (trace.h) is held to what it holds at once with one head
 * in flight; *batch is how many heads it may then compute at once on
 * `threads` threads. */
int lesson_check_size(double *values, size_t *batch, const run_request *rq,
                      const model_input *in, const tokenized *tok, size_t C,
                      bool streamed, size_t threads, mx_error *err);

#endif
