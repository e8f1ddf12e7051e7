/* trained.h: a trained run (--train): the sentences as vocabulary ids,
 * and each variant's notebook trained, then shown.
 *
 * Each variant is its own notebook (train.h): from the seed, the
 * embedding (V, D), with --positions the positions (C, D), the module,
 * then lm_head (V, W) are drawn; N steps train them; then the variant's
 * tables are, in order: embedding.weight, pos_embedding.weight, its
 * parameters, lm_head.weight, inputs, the forward pass's tables on the
 * shown sentence (as without --train), logits (T, V), with --grad every
 * parameter's gradient at the final parameters (<name>.grad), then loss
 * (N + 1, 1: the loss before each step, then the shown sentence's at the
 * final parameters: row stepN when the steps trained on the shown
 * sentence alone, LOSS_SHOWN_ROW when not, --corpus), then with rq->checkpoints attn_weights_steps: every
 * head's weights on the shown sentence at K <= TRAIN_CHECKPOINTS steps
 * (catalogue.h), step 0 first and step N last.
 */
#ifndef MHA_TRAINED_H
#define MHA_TRAINED_H

#include <string.h>

#include "base/error.h"
#include "model/lesson/attention.h"
#include "model/lm.h"
#include "model/run_request.h"
#include "model/tokenize.h"
#include "model/lesson/train.h"
#include "model/lesson/train_words.h"
#include "model/lesson/variants.h"
#include "numerics/rng.h"

/* The widest table a trained run's file (--weights) may hold. */
#define TRAINED_MAX_WIDTH ((size_t)1 << 16)

/* The most steps attn_weights_steps records (--plot, --html): the
 * training's first and last and, between them, steps evenly spaced, so
 * the page and the pictures stay small however long the training. */
#define TRAIN_CHECKPOINTS 11

/* The loss table's last row when the steps did not train on the shown
 * sentence alone (--corpus): that sentence's loss at the final
 * parameters, which is no step's. */
#define LOSS_SHOWN_ROW "shown"

/* Whether loss (a trained variant's loss table) ends with the shown
 * sentence's row, LOSS_SHOWN_ROW, rather than step N's. */
static inline bool trained_loss_ends_shown(const table *loss)
{
    return loss->rows != NULL && loss->rows->n > 0 &&
           strcmp(loss->rows->s[loss->rows->n - 1], LOSS_SHOWN_ROW) == 0;
}

/* The labels a trained variant's tables take. */
typedef struct {
    const labels *vocab; /* the V words */
    const labels *dims;  /* dim0 .. dim(D-1) */
    const sequence_labels *seq;
} trained_labels;

/* The longest sentence the run's model was trained on (trace_model's
 * trained_context, which the run sets before its variants): the
 * sentences of data, and a --weights folder's recorded length; 0 when
 * the folder's model.json does not say (then not known, whatever the
 * run trains on). */
size_t trained_context(const run_request *rq, const train_data *data);

/* Variant id's notebook: drawn from a copy of start (the generator after
 * the embedding and the positions), trained from embedding (V, D) and
 * positions (C, D, or NULL) over data, its tables recorded in tr (see
 * above). ids (T) are the shown sentence's. cfg is the run's. With
 * rq->made, the trained model is moved there for the interventions
 * (trained_keep, below) rather than freed. */
int trained_variant(trace *tr, variant_id id, const run_request *rq,
                    const attention_config *cfg, const torch_rng *start,
                    const matrix *embedding, const matrix *positions,
                    const train_data *data, const size_t *ids,
                    const trained_labels *lab, mx_error *err);

/* Before a streamed trained run writes anything: each variant's
 * --weights files read, as trained_variant reads them, into a model
 * freed again, so that a bad file of a later variant stops the run
 * before the first table goes out. */
int trained_check_files(const run_request *rq, const attention_config *cfg,
                        const torch_rng *start, const matrix *embedding,
                        const matrix *positions, const trained_labels *lab,
                        mx_error *err);

/* The sizes of variant id's module in a run of rq (cfg the run's). */
typedef struct {
    model_dims run;  /* the run's sizes */
    model_dims dims; /* the variant's (variant_dims) */
    attention_config acfg;
} variant_sizes;

variant_sizes trained_sizes_of(variant_id id, const run_request *rq,
                               const attention_config *cfg);

/* A variant's model as its training starts. */
typedef struct {
    matrix emb, pos; /* (V, D), (C, D) */
    void *module;    /* the variant's (variant_module_new) */
    linear head;     /* lm_head, (V, W) */
} start_model;

/* *sm (zeroed): copies of embedding (V, D) and positions (C, D, or NULL)
 * as drawn; the module, then lm_head = nn.Linear(W, V, bias=False),
 * drawn from a copy of start; then with --weights the folder's files read
 * over them. trained_start_free frees it, made or not. */
int trained_start_make(start_model *sm, variant_id id, const run_request *rq,
                       const variant_sizes *sz, const torch_rng *start,
                       const matrix *embedding, const matrix *positions,
                       const trained_labels *lab, mx_error *err);
void trained_start_free(start_model *sm, variant_id id);

/* The model a trained run leaves for the interventions' lesson model
 * (lesson_lm.h), so that a run with --train and an intervention trains
 * it once. When pipeline.c hands the run an empty lm_made (model/lm.h,
 * run_request.made), the run's trained variant moves its model (the
 * embedding, the positions, the module and lm_head, as the training
 * left them) into it rather than freeing it; the interventions' sessions
 * borrow it, and pipeline.c frees it after them. */
/* Moves *sm, variant id's trained model, into made (made NULL, or one
 * holding a model already: nothing happens); *sm is then empty, as
 * trained_start_free leaves it, and the caller frees it as always. */
int trained_keep(struct lm_made *made, variant_id id, start_model *sm,
                 mx_error *err);

/* The trained model made holds for variant id, or NULL (made NULL,
 * empty, or another variant's). It stays made's: the caller reads it. */
start_model *trained_made_model(const struct lm_made *made, variant_id id);

#endif
