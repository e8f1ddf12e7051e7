/* llama_trace.h: a run of a Llama-style checkpoint (--model DIR whose
 * config.json says llama, qwen2 or mistral) into the trace, the family's
 * row's functions (model/family.h):
 *
 *   text -> tokenizer.json's tokens -> tokens, kv_heads (which key/value
 *        head each query head reads), inputs (embed_tokens)
 *        -> each layer: ln_1 (input_layernorm), each head's queries,
 *           keys, values, queries_rotated, keys_rotated, attn_scores,
 *           attn_weights, head_context, then concat_context, attn_out,
 *           residual, ln_2 (post_attention_layernorm), ffn_hidden
 *           (silu(gate) * up), ffn_out, hidden
 *        -> attn_entropy, out (norm), next_tokens, logits when asked
 *
 * The layers' tables are named as a GPT-2 checkpoint's (the variant
 * block, the layer in the key) and headed "[layers.3]". --layers and
 * --show-heads keep some layers and heads (all are computed).
 */
#ifndef MHA_LLAMA_TRACE_H
#define MHA_LLAMA_TRACE_H

#include <stdbool.h>

#include "base/error.h"
#include "model/run_request.h"
#include "model/trace.h"

int llama_trace_check(double *values, const run_request *rq,
                      const model_input *in, bool streamed, mx_error *err);
int llama_trace_tokens(tokenized *tok, size_t *n_queries, const run_request *rq,
                       const model_input *in, mx_error *err);
int llama_trace_run(trace *tr, const run_request *rq, const model_input *in,
                    mx_error *err);
bool llama_trace_makes_table(const run_request *rq, const model_input *in,
                             const table_pick *p);

#endif
