/* score_steps.h: head_scores_steps, each head's induction score as the
 * training goes (--train, with --plot, --html or --tables naming it):
 * the moment an induction head forms, beside the loss curve.
 *
 * At K = min(N + 1, SCORE_STEPS_MAX) steps from 0 to N, evenly spaced
 * (step k is floor(k·N / (K - 1)), the first before any update, the last
 * after the last one), a forward pass of the model as it is then over
 * the shown sentence gives every head's attn_weights A (T x T), and its
 * score is TransformerLens's induction score (head_detector.py, as
 * model/intervene/head_scores.h computes it):
 *
 *   D[i][j] = 1 for 0 < j <= i with token j-1 == token i
 *   score   = (A * D).sum() / A.sum()
 *
 * the share of the head's attention on the token after an earlier copy
 * of the current one. It needs a sentence that repeats itself: a
 * repeated random sequence (docs/interventions.md) gives every head a
 * score from 0 to 1; a sentence with no repeated word, 0.
 *
 * The table head_scores_steps (K, L·H) of the variant, outside its
 * blocks: a row per step ("step40"), a column per head ("block.1.0":
 * block 1, head 0; "fused.0.1" in a module of one layer).
 */
#ifndef MHA_SCORE_STEPS_H
#define MHA_SCORE_STEPS_H

#include <stdbool.h>
#include <stddef.h>

#include "base/error.h"
#include "model/lesson/train.h"
#include "model/lesson/variants.h"
#include "model/trace.h"

/* Whether every score of head_scores_steps t is 0: the sentence repeats
 * no word, so D is empty (where it is not, a causal head's softmax puts
 * some weight on it), and the charts (--plot, --html) say so. */
static inline bool score_steps_flat(const table *t)
{
    for (size_t i = 0; i < t->values.rows * t->values.cols; i++)
        if (t->values.v[i] != 0)
            return false;
    return true;
}

/* The most steps head_scores_steps keeps. */
#define SCORE_STEPS_MAX 101

typedef struct {
    variant_id variant;
    const variant_row *row;
    const train_model *model; /* the model being trained */
    const attention_config *cfg;
    const size_t *ids; /* the shown sentence (T) */
    const sequence_labels *seq;
    size_t step[SCORE_STEPS_MAX]; /* the chosen steps, rising */
    size_t n, done;               /* chosen, recorded */
    size_t layers, heads;         /* known at the first step recorded */
    float *values;                /* (n, layers·heads), owned */
} score_steps;

/* Chooses the steps of a training of N steps. */
void score_steps_choose(score_steps *s, size_t N);

/* Before step `step` of the training (train_hook), or with step N after
 * it: at a chosen step, the heads' scores now. */
int score_steps_look(score_steps *s, size_t step, mx_error *err);

/* head_scores_steps (n, layers·heads) into tr. */
int score_steps_record(trace *tr, const score_steps *s, mx_error *err);

void score_steps_free(score_steps *s);

#endif
