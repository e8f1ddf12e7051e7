/* sampling.h: the next token from a row of logits, as Hugging Face's
 * generate() picks it (generation/utils.py, logits_process.py):
 *
 *   greedy    torch.argmax(logits): the first largest, or the first NaN
 *   sampling  generate(do_sample=True, temperature=T, top_k=K, top_p=P):
 *             the warpers in that order,
 *               TemperatureLogitsWarper  scores / T            (T != 1)
 *               TopKLogitsWarper         scores < the K-th largest
 *                                        -> -inf               (K != 0)
 *               TopPLogitsWarper         sorted ascending (torch.sort,
 *                                        tied scores in its order:
 *                                        torch_sort.h), softmax,
 *                                        cumsum; the smallest whose
 *                                        cumulative probability is
 *                                        <= 1 - P -> -inf, the largest
 *                                        always kept           (P < 1)
 *             then probs = softmax(scores) and torch.multinomial(probs,
 *             1): torch 1.13's CPU draw, argmax(probs / q) with q one
 *             exponential_() per vocabulary entry (rng.h), in order.
 *
 * Every operation in PyTorch's float32 (or, for cumsum, its double
 * accumulator) so that the token and its probability are its bits.
 * Shapes: V, the vocabulary.
 */
#ifndef MHA_SAMPLING_H
#define MHA_SAMPLING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/error.h"
#include "numerics/rng.h"
#include "numerics/torch_sort.h"

/* How the next token is picked. */
typedef struct {
    bool sample;        /* draw (do_sample=True); else greedy */
    double temperature; /* 1: no TemperatureLogitsWarper */
    size_t top_k;       /* 0: no TopKLogitsWarper (HF's default is 50) */
    double top_p;       /* 1: no TopPLogitsWarper */
} sampling;

/* What each warper did at one step, for --explain: how many tokens it
 * left with a finite score. */
typedef struct {
    size_t after_top_k, after_top_p; /* V when the warper is off */
} sampling_effect;

/* Working room for a step over V logits; one owner. */
typedef struct {
    size_t V;
    float *scores, *probs, *sorted, *sorted_probs, *q; /* (V) each */
    float *model_probs; /* (V) softmax of the logits, before any warper */
    sort_pair *order;   /* (V) the scores with their tokens, sorted */
} sampling_room;

int sampling_room_init(sampling_room *r, size_t V, mx_error *err);
void sampling_room_free(sampling_room *r);

/* The next token from logits (V): *token, and in r->probs the
 * distribution it was picked from (softmax of the logits for greedy, of
 * the warped scores when sampling), in r->model_probs the model's own
 * (softmax of the logits); g is the generator (sampling only), effect
 * (may be NULL) what the warpers did. Returns false, drawing nothing,
 * when sampling from probabilities torch.multinomial refuses (NaN,
 * infinite or negative, or summing to 0: NaN logits make them). */
bool sampling_pick(int32_t *token, sampling_effect *effect, sampling_room *r,
                   const float *logits, const sampling *how, torch_rng *g);

#endif
