/* bert_lm.h: a BERT checkpoint (--model DIR) as the model the head
 * scores read (--head-scores, model/intervene/head_scores.h; the family's
 * row, model/family.h, .scores_only): its forward pass with hooks,
 * whose attention weights the scores read. BERT has no lm_head that
 * predicts the next token, so the interventions that need one (--ablate,
 * --patch, --logit-lens) are refused on it: this model has no unembed
 * and no layers, and its forward makes no logits.
 *
 * A text is tokenized as BERT's tokenizer does it, [CLS] ... [SEP], of
 * token type 0. --repeat-random N draws N of the tokenizer's ids but its
 * special ones ([PAD], [UNK], [CLS], [SEP], [MASK]) and wraps the 2N in
 * [CLS] and [SEP] (model/lm.h, lm_draws).
 */
#ifndef MHA_BERT_LM_H
#define MHA_BERT_LM_H

#include "model/lm.h"

/* The functions of model/lm.h for a BERT checkpoint's head scores. */
extern const lm_ops bert_scores_lm;

#endif
