/* generation.h: what a generation is made of (generate.h runs it): the
 * model a family gives it (generate_model), each token chosen
 * (generated_token) and their list (generation). generate.c's loop and
 * generate_maps.c's tables of it share them. */
#ifndef MHA_GENERATION_H
#define MHA_GENERATION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/error.h"
#include "model/hooks.h"
#include "model/layers/kv_cache.h"
#include "model/sampling.h"

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

/* One generated token: it, its probability in the distribution it was
 * picked from, the GENERATE_VIEW_TOP likeliest there among the tokens
 * it could be picked from (probability above 0; the larger probability
 * first, then the smaller id; the first GENERATE_TOP are the generated
 * table's), and what the warpers left. */
typedef struct {
    int32_t token;
    float p;        /* in the distribution it was picked from */
    float p_logits; /* in the model's, softmax of the logits */
    int32_t top[GENERATE_VIEW_TOP];
    float top_p[GENERATE_VIEW_TOP];
    size_t n_top;      /* of the first GENERATE_TOP: at most those left */
    size_t n_view_top; /* of all GENERATE_VIEW_TOP: at most those left */
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

void generation_free(generation *g);

/* How many new tokens a and b share from the first on: where the two
 * texts part. */
size_t generation_common(const generation *a, const generation *b);

/* The label of token id into buf (NUL-terminated): the family's
 * (generate_model.label), or its id. */
void generate_token_label(char *buf, size_t size, const generate_model *gm,
                          int32_t id);

#endif
