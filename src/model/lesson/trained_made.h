/* trained_made.h: the model a trained run (trained.h) leaves for the
 * interventions' lesson model (lesson_lm.h), so that a run with --train
 * and an intervention trains it once.
 *
 * When pipeline.c hands the run an empty lm_made (model/lm.h,
 * run_request.made), the run's trained variant moves its model (the
 * embedding, the positions, the module and lm_head, as the training
 * left them) into it rather than freeing it; the interventions' sessions
 * borrow it, and pipeline.c frees it after them.
 */
#ifndef MHA_TRAINED_MADE_H
#define MHA_TRAINED_MADE_H

#include "base/error.h"
#include "model/lm.h"
#include "model/lesson/trained.h"

/* Moves *sm, variant id's trained model, into made (made NULL, or one
 * holding a model already: nothing happens); *sm is then empty, as
 * trained_start_free leaves it, and the caller frees it as always. */
int trained_keep(struct lm_made *made, variant_id id, start_model *sm,
                 mx_error *err);

/* The trained model made holds for variant id, or NULL (made NULL,
 * empty, or another variant's). It stays made's: the caller reads it. */
start_model *trained_made_model(const struct lm_made *made, variant_id id);

#endif
