/* train.h: --train, the notebook's training loop, bit for bit as PyTorch
 * 1.13 runs it on the CPU:
 *
 *   x = emb(ids) + pos(arange(T))        (pos only with --positions)
 *   logits = lm_head(module(x))          lm_head: nn.Linear(W, V, no bias)
 *   loss = F.cross_entropy(logits[:-1], ids[1:])
 *   opt.zero_grad(); loss.backward(); opt.step()
 *
 * one sentence per step, cycling. W is the module's output width (d_out;
 * d_model in the block). The gradients are those of loss.backward(): the
 * module's backward passes (each beside its forward in model/layers/),
 * the loss's (loss.h), the embedding's (repeated words add up in token
 * order); the step is optim.h's.
 */
#ifndef MHA_TRAIN_H
#define MHA_TRAIN_H

#include <stdbool.h>
#include <stddef.h>

#include "base/error.h"
#include "model/lesson/attention.h"
#include "model/layers/dense.h"
#include "model/catalogue.h"
#include "model/lesson/model.h"
#include "model/lesson/train_parts.h"
#include "model/optim.h"
#include "numerics/tensor.h"

/* The most steps --train takes. */
#define TRAIN_MAX_STEPS 1000000

/* A look at the training as it goes (train_run): called before step
 * `step` (0 .. N-1) computes its gradient, with the parameters that step
 * starts from; returns 0, or -1 with err set, which stops the training.
 * It must not change the parameters. */
typedef struct {
    int (*fn)(void *ctx, size_t step, mx_error *err);
    void *ctx;
} train_hook;

/* Told before each step of a variant's training which step it is, and
 * with step == steps when the training ends, before the variant's tables
 * go out (a progress line on a terminal: cli/progress.h); it cannot stop
 * the training and does not look at the parameters. */
typedef struct {
    void (*fn)(void *ctx, variant_id v, size_t step, size_t steps, float loss);
    void *ctx;
} train_watch;

/* enum qkv_order, the order of the class's projections (--qkv-order),
 * is dense.h's: it decides how qkv_backward adds x's gradient. */

typedef struct {
    size_t steps;                  /* N */
    double lr;                     /* the learning rate */
    enum optimizer_kind optimizer; /* SGD or Adam */
    enum qkv_order qkv_order;      /* the class's order of projections */
    const train_hook *hook;        /* or NULL */
} train_options;

/* One sentence as vocabulary ids (n >= 2). */
typedef struct {
    const size_t *ids;
    size_t n;
} train_sentence;

/* What one variant's notebook trains, or (as gradients) the same shapes:
 * its tables, owned by the caller. */
typedef struct {
    matrix *embedding; /* (V, D) emb.weight */
    matrix *positions; /* (C, D) pos.weight, or NULL without --positions */
    void *module;      /* the variant's module (variant_module_new) */
    matrix *lm_head;   /* (V, W) lm_head.weight */
    enum qkv_order qkv_order; /* how its class adds x's gradient */
} train_model;

/* x (T, D) = emb(ids) + pos(arange(T)) of m, as the training computes
 * it (T = x->rows). */
void train_inputs(matrix *x, const train_model *m, const size_t *ids);

/* One forward and backward pass of m on s: *loss, with logits (T, V) not
 * NULL the logits, with grad not NULL d loss / d every parameter into
 * grad's tables (overwritten) and, with shown not NULL, the gradient of
 * every intermediate table to shown. cfg and dims are the module's. */
int train_pass(float *loss, matrix *logits, const train_model *grad,
               const train_model *m, variant_id v, const model_dims *dims,
               const attention_config *cfg, const train_sentence *s,
               const train_shown *shown, mx_error *err);

/* Trains m for opt->steps steps over sentences[0..n) in turn;
 * losses[i] (steps values) is step i's loss, before its update. */
int train_run(float *losses, const train_model *m, variant_id v,
              const model_dims *dims, const attention_config *cfg,
              const train_sentence *sentences, size_t n,
              const train_options *opt, mx_error *err);

/* A model of gradients shaped as m (its module made by the variant's
 * row); train_model_free frees what it made. */
int train_grad_model(train_model *g, const train_model *m, variant_id v,
                     const model_dims *dims, const attention_config *cfg,
                     mx_error *err);
void train_grad_model_free(train_model *g, variant_id v);

#endif
