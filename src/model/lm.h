/* lm.h: a language model that the interventions run again and again
 * (model/intervene/): a family whose model has an lm_head gives these
 * functions in its row (model/family.h, .lm), and every intervention
 * works on it without asking which family it is.
 *
 * A session holds the opened model (its parameters, its tokenizer and
 * the threads of its forward pass) for many forward passes over one
 * text or several. Each pass hands every activation to its hook points
 * (hooks.h), named by the tables' keys as the family's run names them:
 * a head's head_context (TransformerLens's hook_z) as a layer's table
 * (layer_table_key, trace.h) with its layer and head, the residual
 * stream before a layer (inputs, variant input, before layer 0; hidden
 * of layer L - 1 before layer L) and the logits (T, V) under
 * VARIANT_MODEL. The interventions replace the first two and read the
 * logits with a recorder.
 *
 * The head scores (intervene/head_scores.h) read each head's attention
 * weights alone: a family without an lm_head may give these functions
 * for them (family.h, .scores_only; BERT's), without unembed and
 * layers, its forward making no logits.
 */
#ifndef MHA_LM_H
#define MHA_LM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/error.h"
#include "model/hooks.h"
#include "model/run_request.h"
#include "numerics/tensor.h"

/* The sizes the interventions need: L layers of H heads, V words, at
 * most `positions` tokens; and what the tables' rows call a layer when
 * the run made no tables that say it (--repeat-random on a lesson stack:
 * "block"), or NULL: the run's name (lm_runs.h, lm_layer_name). */
typedef struct {
    size_t layers, heads, vocab, positions;
    const char *layer;
} lm_shape;

typedef struct lm_session lm_session; /* the family's own */

/* What --repeat-random draws its words from and puts around them, for a
 * model whose tokenizer adds special tokens to every text (BERT's
 * [CLS] ... [SEP]): words (n_words ids, ascending) are the tokenizer's
 * ids but its special ones, before and after the ids the tokenizer puts
 * in front of a text and behind it. words is malloc'ed (the caller
 * frees it); before and after are the session's. */
typedef struct {
    int32_t *words;
    size_t n_words;
    const int32_t *before, *after;
    size_t n_before, n_after;
} lm_draws;

/* A model the family's run made on its way (a trained lesson model),
 * kept for the interventions' sessions, which borrow it rather than make
 * it again: pipeline.c hands the run an empty one (run_request.made),
 * the run sets model and free, and pipeline.c calls free(model) once
 * the interventions are done. */
typedef struct lm_made {
    void *model; /* the family's own, or NULL: none made */
    void (*free)(void *model);
} lm_made;

typedef struct {
    /* Opens the model of rq (its checkpoint, its tokenizer): *s owned
     * by the caller (close). */
    int (*open)(lm_session **s, lm_shape *shape, const run_request *rq,
                mx_error *err);
    /* The len bytes of text as token ids: *ids (*T of them) malloc'ed,
     * the caller's; a text with no tokens, or more than the model's
     * positions, is an error. */
    int (*encode)(int32_t **ids, size_t *T, const lm_session *s,
                  const char *text, size_t len, mx_error *err);
    /* As encode, for one word (--answer, --wrong): without the special
     * tokens a tokenizer's post-processor adds around a text (Llama's
     * <s>), as TransformerLens's to_single_token (prepend_bos=False). */
    int (*encode_word)(int32_t **ids, size_t *T, const lm_session *s,
                       const char *text, size_t len, mx_error *err);
    /* id as the tables label a token, into buf (size bytes). */
    void (*label)(char *buf, size_t size, const lm_session *s, int32_t id);
    /* One forward pass over ids (T of them) with the hooks hk, which see
     * the logits among its activations. */
    int (*forward)(lm_session *s, const int32_t *ids, size_t T,
                   const forward_hooks *hk, mx_error *err);
    /* The model's head over rows of the residual stream: logits (rows, V)
     * = lm_head(final_norm(resid (rows, D))), the norm and lm_head the
     * forward pass applies after its last layer (the logit lens, model/
     * intervene/logit_lens.h; lm_head alone for a model without a final
     * norm, a trained lesson block's); logits allocated by the caller. */
    int (*unembed)(lm_session *s, matrix *logits, const matrix *resid,
                   mx_error *err);
    void (*close)(lm_session *s);
    /* The layers first .. first + count - 1 over resid (n * T rows, the
     * residual stream before layer first of n texts of T tokens each,
     * stacked), in place, each text's rows as forward's pass over that
     * text alone computes them; the heads' tables of text i pass the
     * replacing hooks hooks[i] (hooks NULL: none; no recorder), the
     * others no hook point. NULL for a family without it: an
     * intervention then runs whole forward passes. */
    int (*layers)(lm_session *s, matrix *resid, size_t n, size_t first,
                  size_t count, const forward_hooks *hooks, mx_error *err);
    /* The variant whose module the model is, which names the
     * interventions' tables (VARIANT_MODEL) in a family that names no
     * model (model_name NULL: the lesson's block, "[block] ablation_map",
     * trace.h's table_source_name); VARIANT_INPUT: the family's
     * model_name names them. */
    variant_id variant;
    /* The words --repeat-random draws and what goes around them (see
     * lm_draws), or NULL: every id below the model's vocabulary, nothing
     * around them (a lesson model's). */
    int (*draws)(lm_draws *d, const lm_session *s, mx_error *err);
    /* Whether the session takes --ablate-mode mean over the corpus the
     * model was trained on itself (a lesson model's, lesson_lm.h); false:
     * a mean over --corpus is taken before the run, each text through
     * the clean model (intervene/corpus_mean.h). */
    bool own_corpus;
    /* Whether unembed is the lm_head alone: the model has no final norm
     * (a trained lesson block's, whose logits are lm_head of its last
     * block's out), as the logit lens's page view says. */
    bool lm_head_alone;
    /* Whether the family's run (and its check) refuses whatever opening
     * the model over the run's text would: a checkpoint's opens the same
     * folder and tokenizer and refuses a text with no tokens or more than
     * the model's positions in the same words (checkpoint_lm.h). A check
     * of the logit lens before that run then opens nothing
     * (logit_lens_check): the model is opened by the run and the lens
     * alone. False: the lesson's, whose refusals (untrained, not a block,
     * a word it never saw) are the lens's own. */
    bool run_refuses_text;
} lm_ops;

#endif
