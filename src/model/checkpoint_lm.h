/* checkpoint_lm.h: a checkpoint family's model as the interventions'
 * language model (lm.h), written once for every family: the session (the
 * model, the folder's tokenizer, the workers of its forward pass), a
 * text's ids, a token's label, one forward pass with hooks, and the head
 * over the residual stream. What is the family's own is a row: how its
 * model opens and closes, its sizes, its forward pass, and its final norm
 * and lm_head.
 *
 * A family gives its lm_ops (family.h, .lm) as checkpoint_lm_ops with its
 * own open, which names its row:
 *
 *     static int open_lm(lm_session **s, lm_shape *shape,
 *                        const run_request *rq, mx_error *err)
 *     {
 *         return checkpoint_lm_open(s, shape, &row, rq, err);
 *     }
 *     const lm_ops gpt2_lm = CHECKPOINT_LM_OPS(
 *         open_lm, checkpoint_lm_layers, checkpoint_lm_draws);
 */
#ifndef MHA_CHECKPOINT_LM_H
#define MHA_CHECKPOINT_LM_H

#include <stddef.h>
#include <stdint.h>

#include "base/error.h"
#include "model/hooks.h"
#include "model/lm.h"
#include "model/run_request.h"
#include "model/tokenizers/checkpoint_tokenizer.h"
#include "numerics/tensor.h"
#include "numerics/workers.h"

/* A family's part of its language model. `model` is the family's model
 * struct (model_size bytes, zeroed before open). */
typedef struct {
    size_t model_size;
    /* Opens the checkpoint folder dir into model. */
    int (*open)(void *model, const char *dir, mx_error *err);
    void (*close)(void *model);
    /* L layers of H heads, V words, the positions; and D, the width of
     * the residual stream. */
    lm_shape (*shape)(const void *model);
    size_t (*width)(const void *model);
    /* One forward pass over ids (T of them) with the hooks hk; the
     * logits made (they pass their hook point). */
    int (*forward)(const void *model, const int32_t *ids, size_t T,
                   const forward_hooks *hk, workers *pool, mx_error *err);
    /* out (rows, D) = the norm after the last layer over resid (rows, D). */
    void (*final_norm)(matrix *out, const void *model, const matrix *resid);
    /* logits (rows, V) = lm_head(normed (rows, D)); allocated by the
     * caller. */
    void (*logits)(matrix *logits, const void *model, const matrix *normed,
                   workers *pool);
    /* lm_ops.layers over the model (resid of n texts, the layers first
     * .. first + count - 1), or NULL: the family has none. */
    int (*layers)(const void *model, matrix *resid, size_t n, size_t first,
                  size_t count, const forward_hooks *hooks, workers *pool,
                  mx_error *err);
} checkpoint_lm_row;

/* lm_ops.open for the family of `row`: the checkpoint folder rq->checkpoint,
 * its tokenizer (the files its family's row names: checkpoint_run.h) and
 * rq->threads workers (0: as many as the processors); a text too long
 * names the row's positions_key (model/family.h). */
int checkpoint_lm_open(lm_session **s, lm_shape *shape,
                       const checkpoint_lm_row *row, const run_request *rq,
                       mx_error *err);

/* Refuses a text of `given` tokens, more than `most`, the model's
 * positions, naming key, the config.json key that gives them
 * ("n_positions"); returns -1. */
int checkpoint_lm_too_long(mx_error *err, size_t given, size_t most,
                           const char *key);

/* The rest of lm_ops, the same for every checkpoint family. */
int checkpoint_lm_encode(int32_t **ids, size_t *T, const lm_session *s,
                         const char *text, size_t len, mx_error *err);
int checkpoint_lm_encode_word(int32_t **ids, size_t *T, const lm_session *s,
                              const char *text, size_t len, mx_error *err);
void checkpoint_lm_label(char *buf, size_t size, const lm_session *s,
                         int32_t id);
int checkpoint_lm_forward(lm_session *s, const int32_t *ids, size_t T,
                          const forward_hooks *hk, mx_error *err);
int checkpoint_lm_unembed(lm_session *s, matrix *logits, const matrix *resid,
                          mx_error *err);
void checkpoint_lm_close(lm_session *s);
int checkpoint_lm_layers(lm_session *s, matrix *resid, size_t n, size_t first,
                         size_t count, const forward_hooks *hooks,
                         mx_error *err);
/* lm_ops.draws of a checkpoint family: the tokenizer's ids that a token
 * has, but the special ones: those tokenizer.json marks "special" (bos,
 * eos, pad, [CLS] ...; BERT's, the Llama style's, a GPT-2 folder with
 * tokenizer.json alone), or, from vocab.json, <|endoftext|> (GPT-2's);
 * and the post-processor's special tokens around a text
 * (hf_tokenizer.h). */
int checkpoint_lm_draws(lm_draws *d, const lm_session *s, mx_error *err);

/* A checkpoint family's lm_ops, given its open, its layers
 * (checkpoint_lm_layers for a row with layers, else NULL) and its draws
 * (checkpoint_lm_draws, or NULL: every id below the vocabulary). */
#define CHECKPOINT_LM_OPS(open_fn, layers_fn, draws_fn)                       \
    {                                                                         \
        .open = (open_fn), .encode = checkpoint_lm_encode,                    \
        .encode_word = checkpoint_lm_encode_word,                             \
        .label = checkpoint_lm_label, .forward = checkpoint_lm_forward,       \
        .unembed = checkpoint_lm_unembed, .close = checkpoint_lm_close,       \
        .layers = (layers_fn), .draws = (draws_fn), .run_refuses_text = true, \
    }

#endif
