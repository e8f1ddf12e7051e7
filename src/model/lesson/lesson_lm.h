/* lesson_lm.h: a trained lesson model as the interventions' language
 * model (model/lm.h): the notebook's
 *
 *   logits = lm_head(blocks(emb(ids) + pos(arange(T))))
 *
 * with blocks the lesson's Transformer block, or --layers N of them, with
 * or without --attn-only (--variant block), trained by --train N over
 * --corpus (or the sentence), or read back from a trained --weights DIR.
 * The session runs the model the run trained (model/lesson/
 * trained.h: the run trains it once, the sessions borrow it); a run
 * that trains none (--repeat-random, which makes no tables) leaves the
 * session to train it as the run would (the same draws from --seed, the
 * same steps) when it first runs it, and keep it for every pass after.
 *
 * Its hook points are the checkpoints' names (lm.h): a head's
 * head_context (TransformerLens's hook_z; the head's columns of the
 * input of the attention's out_proj) under the variant block, layer L
 * and head H; the residual stream before block L: inputs (emb + pos)
 * before block 0, block L - 1's out named hidden before block L; the
 * logits (T, V) under VARIANT_MODEL. The text is cut into words as the
 * training cuts them, each a word of the trained vocabulary.
 */
#ifndef MHA_LESSON_LM_H
#define MHA_LESSON_LM_H

#include "model/lm.h"

/* The functions of model/lm.h for a trained lesson model. */
extern const lm_ops lesson_lm;

#endif
