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
 * Asked to (generate_options.replace), every step, the prompt's too,
 * runs with heads switched off, through the same listen.
 */
#ifndef MHA_GENERATE_H
#define MHA_GENERATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/error.h"
#include "model/generation.h"
#include "model/run_request.h"
#include "model/sampling.h"
#include "model/trace.h"

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
    /* --ablate: the hooks that switch heads off at every step, the
     * prompt's and each new token's (model/generate_ablate.h: a mean is
     * the prompt's, kept); n_replace 0: the model as it is. The family's
     * listen applies them, so it must have one. */
    const replace_hook *replace;
    size_t n_replace;
} generate_options;

/* The most values the steps' tables (--kv-steps) of one run may hold,
 * all the steps together, checked before the run: every one is written
 * out (text, the tidy CSV, --csv-dir's files, the page), a tidy CSV row
 * each of about STEP_CSV_BYTES bytes (45 to 49 measured on the test
 * checkpoints' short tokens), so this is about 1.5 GB of CSV. */
#define MAX_STEP_VALUES ((size_t)1 << 25)
#define STEP_CSV_BYTES 45

/* What the steps' tables of a run are sized by: a prompt of T tokens,
 * --generate N, the model's positions (context), the layers and heads
 * shown (--layers, --show-heads), a head's width hd, and whether its
 * queries and keys are rotated (queries_rotated, keys_rotated: a
 * rotary model's). */
typedef struct {
    size_t T, n, context, layers, heads, hd;
    bool rotary;
} generate_steps_size;

/* About how many values the steps' tables of rq (--kv-steps; 0 without)
 * hold: each step after the prompt's feeds one token over P positions,
 * each head's queries (1, hd), keys and values (P, hd), scores and
 * weights (1, P), head_context (1, hd), and with rotary the rotated
 * queries and keys; only the tables --tables names, when it names any. */
double generate_steps_values(const generate_steps_size *z,
                             const run_request *rq);

/* 0 when those fit MAX_STEP_VALUES; else an error giving the estimate
 * and how to narrow it (--tables, --layers, --show-heads, a smaller
 * --generate). */
int generate_steps_fit(const generate_steps_size *z, const run_request *rq,
                       mx_error *err);

/* Runs the loop above from the prompt's T tokens (T >= 1, T <= context).
 * On success *out owns the tokens (generation_free, generation.h). */
int generate_run(generation *out, const generate_model *gm,
                 const generate_options *o, const int32_t *prompt, size_t T,
                 mx_error *err);

/* The table generated (N x 15) of g under variant v, its rows labelled
 * names (N: each new token's piece or word): each token's id, its
 * probability where it was picked and in the model's softmax of the
 * logits, the tokens top-k and top-p left (V when off), then the
 * GENERATE_TOP likeliest where it was picked with their probabilities
 * (id -1 and probability 0 where fewer could be picked). The columns
 * of ids and counts are integral (printed without decimals). Every
 * family that generates puts it so. */
int generation_put_table(trace *tr, variant_id v, const generation *g,
                         const char *const *names, mx_error *err);

/* The same table under another id: generated_clean, the clean model's
 * generation beside one with heads switched off (--ablate). */
int generation_put_as(trace *tr, variant_id v, table_id id, const generation *g,
                      const char *const *names, mx_error *err);

/* The table generated_top ((N·k) x 2) of g under variant v: at each
 * step, its k likeliest tokens (k = GENERATE_VIEW_TOP, or fewer when
 * no step could pick that many: the vocabulary is smaller, or the
 * warpers left fewer; a step with fewer ends with rows "-", id -1,
 * probability 0), the larger probability first, each a row
 * labelled by label(ctx, ...) with its id and probability where the
 * token was picked. Text and CSV show it only when --tables names it;
 * the page's Generation view draws it. */
typedef void (*token_labeller)(const void *ctx, char *buf, size_t size,
                               int32_t id);
int generation_put_top(trace *tr, variant_id v, const generation *g,
                       token_labeller label, const void *ctx, mx_error *err);

#endif
