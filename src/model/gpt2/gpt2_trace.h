/* gpt2_trace.h: a run of a GPT-2 checkpoint (--model DIR) into the
 * trace: what pipeline.c does for the lessons' variants, for a real
 * model.
 *
 *   text -> BPE tokens (model/tokenizers/bpe.h) -> tokens, inputs (wte + wpe)
 *        -> each layer h.L: ln_1, each head's queries ... head_context,
 *           concat_context, attn_out, residual, ln_2, ffn_hidden (after
 *           gelu_new), ffn_out, hidden (the layer's output)
 *        -> out (ln_f), next_tokens, and logits when asked for
 *
 * The layers' tables are the block's (variant "block", the layer in the
 * key) marked as a checkpoint's (table.model), so that headings write
 * "[h.3]" and the CSV has a layer column. --layers and --show-heads keep
 * only some layers and heads (every layer is computed: each feeds the
 * next). next_tokens holds, for each token, the NEXT_TOKENS_K likeliest
 * next tokens and their probabilities (softmax of the logits).
 */
#ifndef MHA_GPT2_TRACE_H
#define MHA_GPT2_TRACE_H

#include <stdbool.h>

#include "base/error.h"
#include "model/next_tokens.h"
#include "model/run_request.h"
#include "model/trace.h"

/* The checks of pipeline_check for a checkpoint's run: the folder opens,
 * the text tokenizes and fits n_positions, --layers and --show-heads name
 * layers and heads it has; *values is about the size of its whole trace
 * (a run keeps its whole trace, streamed or not). */
int gpt2_trace_check(double *values, const run_request *rq,
                     const model_input *in, bool streamed, mx_error *err);

/* The text's tokens, labelled as the tables label them, for the CLI. */
int gpt2_trace_tokens(tokenized *tok, size_t *n_queries, const run_request *rq,
                      const model_input *in, mx_error *err);

/* Runs the checkpoint over the text into tr (see above). */
int gpt2_trace_run(trace *tr, const run_request *rq, const model_input *in,
                   mx_error *err);

/* Whether a checkpoint's run makes the table p names (whatever the
 * input). */
bool gpt2_trace_makes_table(const run_request *rq, const model_input *in,
                            const table_pick *p);

#endif
