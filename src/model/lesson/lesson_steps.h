/* lesson_steps.h: a generation step's tables for a trained lesson model
 * (--kv-steps, and the --html page's Generation view).
 *
 * The lesson's modules keep no cache: each step runs the whole sequence
 * so far again (lesson_generate.h). Its tables are the ones a cache
 * would have made, taken from that whole forward pass: in every layer
 * (the blocks of a stack) and head, the new token's row of the queries
 * (1 x hd), every position's keys and values (P x hd), the new token's
 * row of attn_scores and attn_weights (1 x P) and of head_context
 * (1 x hd). They are the last rows of the module's forward pass over
 * the P positions (variant_row.forward, the pass whose tables a trained
 * run shows), as the notebook's loop computes them:
 *
 *   x = emb(ids) + pos(arange(P))
 *   module(x)               its tables' last rows (P x P scores: row P-1)
 *
 * Shapes: P positions so far, D = d_model, hd a head's width.
 */
#ifndef MHA_LESSON_STEPS_H
#define MHA_LESSON_STEPS_H

#include <stddef.h>

#include "base/error.h"
#include "model/catalogue.h"
#include "model/hooks.h"
#include "model/lesson/attention.h"
#include "model/lesson/train.h"

/* Variant v's module of model m over ids (P) to the hooks' recorder:
 * each head's tables above under their own keys (the variant, the
 * block, the head). *width is set to the columns of a position's keys
 * over the heads of one layer, *layers to the layers (what a cache of
 * the module would hold a position of). cfg is the module's. */
int lesson_step_record(size_t *width, size_t *layers, const forward_hooks *hk,
                       variant_id v, const train_model *m,
                       const attention_config *cfg, const size_t *ids, size_t P,
                       mx_error *err);

#endif
