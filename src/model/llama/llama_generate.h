/* llama_generate.h: a Llama-style checkpoint's step for generation
 * (model/generate.h): LlamaForCausalLM's forward with use_cache=True, as
 * generate() calls it.
 *
 *   first step   the prompt's T ids at positions 0 .. T - 1, the causal
 *                mask; every layer's keys (rotated by their positions)
 *                and values (T, KV hd) kept, as DynamicCache keeps them
 *   later steps  one id at position past (cache_position): its query row
 *                rotated by that position, per query head (1, hd) over
 *                the past + 1 cached keys of its key/value head, no
 *                mask; its rotated key and its value appended
 *   logits (V)   lm_head (or embed_tokens when tied) of the norm's last
 *                row (logits_to_keep = 1)
 *
 * Each step is llama_forward over the same layers (model/layers/) with
 * the cache (kv_cache.h) in its run. Generation stops at any of
 * config.json's eos_token_id.
 */
#ifndef MHA_LLAMA_GENERATE_H
#define MHA_LLAMA_GENERATE_H

#include "base/error.h"
#include "model/generate.h"
#include "model/tokenizers/checkpoint_tokenizer.h"
#include "model/layers/kv_cache.h"
#include "model/llama/llama.h"
#include "model/run_request.h"
#include "model/trace.h"
#include "numerics/workers.h"

/* What the steps keep between them; one owner (the cache). */
typedef struct {
    const llama_model *m;
    const checkpoint_tokenizer *tok;
    workers *pool;
    kv_cache cache; /* n_layer x positions x KV hd, keys and values */
    const forward_hooks *hooks; /* the steps' hook points, or NULL */
} llama_generator;

/* A generator over m for at most `positions` positions (prompt and new
 * tokens, at most max_position_embeddings). */
int llama_generator_init(llama_generator *g, const llama_model *m,
                         const checkpoint_tokenizer *tok, workers *pool,
                         size_t positions, mx_error *err);
void llama_generator_free(llama_generator *g);

/* The generate_model of g (generate.h): its step, its tokens' bytes and
 * labels, its vocabulary, context and end-of-text tokens, and its cache
 * with the hooks its steps hand their activations to (--kv-steps: each
 * query head's row over the cached keys of the key/value head it reads,
 * the keys rotated as the cache keeps them, as keys_rotated). */
generate_model llama_generator_model(llama_generator *g);

/* --generate over a checkpoint's run: the model continues the prompt's
 * T ids as rq says over a cache of its own, and the trace gets the
 * table generated, tr->model.continued and context_full, as GPT-2's
 * (gpt2_generate.h); with rq->replace (--ablate) every step switches
 * those heads off, and the clean model's generation is run beside it. */
int llama_generate_into(trace *tr, const llama_model *m,
                        const checkpoint_tokenizer *tok, const int32_t *prompt,
                        size_t T, const run_request *rq, workers *pool,
                        mx_error *err);

#endif
