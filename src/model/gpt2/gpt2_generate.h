/* gpt2_generate.h: GPT-2's step for generation (model/generate.h):
 * GPT2LMHeadModel's forward with use_cache=True, as generate() calls it.
 *
 *   first step   the prompt's T ids at positions 0 .. T - 1, the causal
 *                mask; every layer's keys and values (T, D) kept
 *   later steps  one id at position past (wpe[past]); its query row (1,
 *                hd) per head over the past + 1 cached keys, no mask;
 *                its keys and values appended
 *   logits (V)   lm_head (wte when tied) of ln_f's last row
 *
 * Each step is gpt2_forward over the same layers (model/layers/) with the
 * cache (kv_cache.h) in its run: the numbers are the ones
 * past_key_values gives.
 */
#ifndef MHA_GPT2_GENERATE_H
#define MHA_GPT2_GENERATE_H

#include "base/error.h"
#include "model/generate.h"
#include "model/run_request.h"
#include "model/trace.h"
#include "model/gpt2/gpt2.h"
#include "model/tokenizers/checkpoint_tokenizer.h"
#include "model/layers/kv_cache.h"
#include "numerics/workers.h"

/* What GPT-2's steps keep between them; one owner (the cache). */
typedef struct {
    const gpt2_model *m;
    const checkpoint_tokenizer *tok;
    workers *pool;
    kv_cache cache;             /* n_layer x positions x D, keys and values */
    const forward_hooks *hooks; /* the steps' hook points, or NULL */
    /* the prompt's next-token logits (V) when a forward already ran the
     * prompt into the cache (gpt2_generator_prefilled), taken by the
     * first step; or NULL. Owned. */
    float *first;
} gpt2_generator;

/* A generator over m for at most `positions` positions (prompt and new
 * tokens, at most n_positions). */
int gpt2_generator_init(gpt2_generator *g, const gpt2_model *m,
                        const checkpoint_tokenizer *tok, workers *pool,
                        size_t positions, mx_error *err);
void gpt2_generator_free(gpt2_generator *g);

/* After gpt2_forward of the prompt with g's cache in its run (and no
 * activation replaced), out being its ln_f output (T, D): the first step
 * takes lm_head of out's last row, computed here, instead of running the
 * prompt again (the same bits: the same operations on the same rows). */
int gpt2_generator_prefilled(gpt2_generator *g, const matrix *out,
                             mx_error *err);

/* The generate_model of g (generate.h): its step, its tokens' bytes and
 * labels, its vocabulary, context (n_positions) and end-of-text token,
 * and its cache with the hooks its steps hand their activations to. */
generate_model gpt2_generator_model(gpt2_generator *g);

/* --generate over a checkpoint's run: the model continues the prompt's
 * T ids as rq says (generate.h) over a cache of its own, and the trace
 * gets the table generated (N x 15: each new token, labelled with its
 * piece, its id and probability, then what the warpers left and the five
 * likeliest there with theirs) under the model's variant, and tr->model.continued and
 * context_full. With rq->replace (--ablate), the model generates with
 * those heads switched off at every step, and the clean model's
 * generation is run beside it (gpt2_generation_put). */
int gpt2_generate_into(trace *tr, const gpt2_model *m,
                       const checkpoint_tokenizer *tok, const int32_t *prompt,
                       size_t T, const run_request *rq, workers *pool,
                       mx_error *err);

/* gpt2_generate_into with the generator g, made over m for at least T +
 * rq->generate positions (and perhaps prefilled); g stays the caller's.
 * With rq->replace (--ablate) every step switches those heads off
 * (generate.h), and clean is the clean model's generation beside it
 * (else NULL). */
int gpt2_generate_with(trace *tr, gpt2_generator *g, const int32_t *prompt,
                       size_t T, const run_request *rq, const generation *clean,
                       mx_error *err);

/* The tables of a generation by a model with a tokenizer.json tokenizer
 * (GPT-2's, a Llama-style checkpoint's), as gpt2_generate_into puts
 * them: generated, tr->model.continued, and context_full (positions
 * when the context ended it) with context_key (positions_key, the
 * config.json key that gives them); with heads switched off, the clean
 * model's generation clean (else NULL) as tr->model.continued_clean,
 * with the tokens the two share (clean_common, clean_same). */
int gpt2_generation_put(trace *tr, const checkpoint_tokenizer *tok,
                        const int32_t *prompt, size_t T, const generation *gen,
                        size_t positions, const char *positions_key,
                        const generation *clean, mx_error *err);

#endif
