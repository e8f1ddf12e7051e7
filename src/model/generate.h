/* generate.h: a model writes, one token at a time, as Hugging Face's
 * generate() runs its loop (generation/utils.py, greedy and sample, with
 * use_cache=True):
 *
 *   logits = step(prompt)                 the prompt's T rows, keeping
 *                                         every layer's keys and values
 *   for each new token:
 *     token = pick(logits[-1])            sampling.h: greedy, or the
 *                                         warpers and torch.multinomial
 *     stop at the end-of-text token, at --stop's text, or when the
 *     context is full
 *     logits = step([token])              one row over the kept cache
 *
 * A family that has an lm_head gives generation its step (a
 * generate_model): GPT-2 (model/gpt2/gpt2_generate.h), whose step keeps
 * a cache, and a trained lesson model (model/lesson/lesson_generate.h),
 * whose step runs the whole sequence again (its steps' tables are the
 * last rows of that pass). The generator is seeded
 * right before the first step, as torch.manual_seed(seed) before
 * model.generate(...).
 *
 * Asked to (generate_options.steps), the loop records every step after
 * the prompt's: the family's step hands it each head's activations
 * (generate_model.listen), and the loop keeps them as the step's tables,
 * so a family that keeps a cache gets them without code of its own.
 */
#ifndef MHA_GENERATE_H
#define MHA_GENERATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/error.h"
#include "model/hooks.h"
#include "model/layers/kv_cache.h"
#include "model/pipeline.h"
#include "model/sampling.h"
#include "model/trace.h"

/* The alternatives shown at each step: in the generated table, and in
 * generated_top (the page's Generation view). */
#define GENERATE_TOP 5
#define GENERATE_VIEW_TOP 10

/* What a family gives generation. */
typedef struct generate_model {
    void *ctx;
    size_t vocab;   /* V */
    size_t context; /* the most positions the model takes */
    int32_t end;    /* the end-of-text token, or -1 */
    /* more end-of-text tokens, any of which ends generation too (a Llama
     * 3 config.json lists several), or NULL */
    const int32_t *more_ends;
    size_t n_more_ends;
    /* Feeds n tokens after those fed before (their keys and values are
     * kept) and writes the next token's logits (V), the last row's. */
    int (*step)(void *ctx, float *logits, const int32_t *ids, size_t n,
                mx_error *err);
    /* The bytes of token id into buf (size bytes, not terminated);
     * returns their count (for --stop). */
    size_t (*bytes)(void *ctx, unsigned char *buf, size_t size, int32_t id);
    /* For the steps' tables (--kv-steps): from now on its step hands
     * every activation to hooks (hooks.h; NULL: none again), under the
     * keys of its own run's tables, the new token's rows (a family that
     * keeps a cache computes no other; a lesson model, which runs the
     * whole sequence again, hands on the last rows,
     * model/lesson/lesson_steps.h); the label of token id into buf
     * (NUL-terminated); and its cache, whose size kv_cache_size shows
     * (a lesson model's: the cache it would keep). NULL: no steps'
     * tables. */
    void (*listen)(void *ctx, const forward_hooks *hooks);
    void (*label)(void *ctx, char *buf, size_t size, int32_t id);
    const kv_cache *cache;
} generate_model;

/* How to generate. */
typedef struct {
    size_t n;         /* --generate N: at most N new tokens */
    sampling how;     /* greedy or sampled (sampling.h) */
    uint64_t seed;    /* torch.manual_seed(seed) before the first step */
    const char *stop; /* --stop TEXT, or NULL */
    /* only each head's attn_weights among the steps' tables, and no
     * kv_cache_size: what the --html page's Generation view shows of a
     * run without --kv-steps */
    bool weights_only;
    /* --kv-steps: each step after the prompt's puts its heads' tables
     * into steps (the step in their key: the new token's query row over
     * every cached key, generate_model.listen), flushed after the step,
     * and kv_cache_size after the last; NULL: no tables (generation
     * holds the model and its cache only) */
    trace *steps;
    /* the layers and heads whose steps' tables are kept (--layers,
     * --show-heads: n ranges each; 0: every one) */
    const index_range *layers, *heads;
    size_t n_layers, n_heads;
    /* the variant whose heads the pictures' tables are made for, under
     * which kv_cache_size and generated_p are put (a lesson model's; a
     * run may generate with several); VARIANT_INPUT: every head, those
     * two under VARIANT_MODEL (a checkpoint's) */
    variant_id variant;
} generate_options;

/* One generated token: it, its probability in the distribution it was
 * picked from, the GENERATE_VIEW_TOP likeliest there (the larger
 * probability first, then the smaller id; the first GENERATE_TOP are the
 * generated table's), and what the warpers left. */
typedef struct {
    int32_t token;
    float p;        /* in the distribution it was picked from */
    float p_logits; /* in the model's, softmax of the logits */
    int32_t top[GENERATE_VIEW_TOP];
    float top_p[GENERATE_VIEW_TOP];
    size_t n_top;      /* of the first GENERATE_TOP: at most V */
    size_t n_view_top; /* of all GENERATE_VIEW_TOP: at most V */
    size_t positions;  /* the keys its query row saw: prompt + earlier */
    sampling_effect effect;
} generated_token;

/* Why generation ended. */
enum generate_end {
    GENERATE_END_LENGTH,  /* N tokens */
    GENERATE_END_TOKEN,   /* the end-of-text token */
    GENERATE_END_STOP,    /* --stop's text */
    GENERATE_END_CONTEXT, /* the model's positions are full */
};

typedef struct {
    generated_token *tokens; /* n of them; owned */
    size_t n;
    enum generate_end end;
} generation;

/* Runs the loop above from the prompt's T tokens (T >= 1, T <= context).
 * On success *out owns the tokens (generation_free). */
int generate_run(generation *out, const generate_model *gm,
                 const generate_options *o, const int32_t *prompt, size_t T,
                 mx_error *err);
void generation_free(generation *g);

/* The label of token id into buf (NUL-terminated): the family's
 * (generate_model.label), or its id. */
void generate_token_label(char *buf, size_t size, const generate_model *gm,
                          int32_t id);

/* The table generated (N x 15) of g under variant v, its rows labelled
 * names (N: each new token's piece or word): each token's id, its
 * probability where it was picked and in the model's softmax of the
 * logits, the tokens top-k and top-p left (V when off), then the
 * GENERATE_TOP likeliest where it was picked with their probabilities
 * (id -1 and probability 0 where the vocabulary has fewer). The columns
 * of ids and counts are integral (printed without decimals). Every
 * family that generates puts it so. */
int generation_put_table(trace *tr, variant_id v, const generation *g,
                         const char *const *names, mx_error *err);

/* The table generated_top ((N·k) x 2) of g under variant v: at each
 * step, its k likeliest tokens (k = GENERATE_VIEW_TOP, or V when the
 * vocabulary is smaller), the larger probability first, each a row
 * labelled by label(ctx, ...) with its id and probability where the
 * token was picked. Text and CSV show it only when --tables names it;
 * the page's Generation view draws it. */
typedef void (*token_labeller)(const void *ctx, char *buf, size_t size,
                               int32_t id);
int generation_put_top(trace *tr, variant_id v, const generation *g,
                       token_labeller label, const void *ctx, mx_error *err);

#endif
