/* llama_lm.h: a Llama-style checkpoint (--model DIR of model_type llama,
 * qwen2 or mistral) as the interventions' language model (model/lm.h):
 * LlamaForCausalLM, its lm_head its own or tied to embed_tokens. A head's
 * output z is its head_context, the input of o_proj; the residual stream
 * before layer L is the input of the decoder layer. */
#ifndef MHA_LLAMA_LM_H
#define MHA_LLAMA_LM_H

#include "model/lm.h"

/* The functions of model/lm.h for a Llama-style checkpoint. */
extern const lm_ops llama_lm;

#endif
