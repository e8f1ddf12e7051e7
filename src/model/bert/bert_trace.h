/* bert_trace.h: a run of a BERT checkpoint (--model DIR whose
 * config.json says "model_type": "bert") into the trace, the BERT
 * family's row (model/family.h).
 *
 *   text -> WordPiece tokens with [CLS] ... [SEP] (tokenizer.json,
 *           model/tokenizers/) -> tokens, inputs (the embeddings after
 *           their LayerNorm)
 *        -> each layer encoder.layer.L: its heads' queries ...
 *           head_context, concat_context, attn_out, add_norm1,
 *           ffn_hidden (after the exact GELU), ffn_out, hidden (the
 *           layer's output, after its second LayerNorm)
 *        -> out (the last layer's output); with BertModel's pooler,
 *           pooler_output (tanh of pooler.dense over [CLS]'s out, 1 x D);
 *           with the masked-word head
 *           (cls.predictions), next_tokens: the k likeliest words at
 *           each [MASK] (at every token when the text has none), and
 *           logits when asked for
 *
 * Headings write "[layer.3]"; --layers and --show-heads keep only some
 * layers and heads, as for GPT-2 (gpt2_trace.h).
 */
#ifndef MHA_BERT_TRACE_H
#define MHA_BERT_TRACE_H

#include <stdbool.h>

#include "base/error.h"
#include "model/run_request.h"
#include "model/trace.h"

/* The checks of pipeline_check: the folder opens, the text tokenizes and
 * fits max_position_embeddings, --layers and --show-heads name layers
 * and heads it has, --tables names logits or next_tokens only with the
 * masked-word head; *values is about the size of its whole trace. */
int bert_trace_check(double *values, const run_request *rq,
                     const model_input *in, bool streamed, mx_error *err);

/* The text's tokens, labelled as the tables label them. */
int bert_trace_tokens(tokenized *tok, size_t *n_queries, const run_request *rq,
                      const model_input *in, mx_error *err);

/* Runs the checkpoint over the text into tr (see above). */
int bert_trace_run(trace *tr, const run_request *rq, const model_input *in,
                   mx_error *err);

/* Whether a BERT run makes the table p names. */
bool bert_trace_makes_table(const run_request *rq, const model_input *in,
                            const table_pick *p);

#endif
