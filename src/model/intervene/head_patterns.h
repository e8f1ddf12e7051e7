/* head_patterns.h: where a head of each kind attends, and how much of a
 * head's attention goes there (TransformerLens's head_detector.py; the
 * definitions are in head_scores.h). head_scores.c scores every head of
 * a checkpoint with them, and a trained lesson model's head_scores_steps
 * (model/lesson/score_steps.h) its heads at each step.
 */
#ifndef MHA_HEAD_PATTERNS_H
#define MHA_HEAD_PATTERNS_H

#include <stddef.h>
#include <stdint.h>

#include "numerics/tensor.h"

/* The kinds of head, in head_scores' column order. */
enum { HEAD_PREVIOUS, HEAD_DUPLICATE, HEAD_INDUCTION, HEAD_PATTERNS };

/* d (T x T, 0 or 1) of kind for the tokens ids (T), as head_detector.py's
 * get_*_detection_pattern makes it. */
void head_detection_pattern(float *d, int kind, const int32_t *ids, size_t T);

/* compute_head_attention_similarity_score with "mul": (A * D).sum() /
 * A.sum() of a (n = T² values) and the pattern d; product is room for
 * A * D (n floats). */
float head_pattern_score(const float *a, const float *d, float *product,
                         size_t n);

/* One head's induction score from its attn_weights a (T x T) over the
 * tokens ids (T); room holds 2·T² floats. */
float head_induction_score(const matrix *a, const int32_t *ids, float *room);

#endif
