/* head_scores.h: each head's previous-token, duplicate-token and induction
 * score (--head-scores), on a model with an lm_head or on the model a
 * family without one gives for them (model/lm.h; BERT's), as
 * TransformerLens's head_detector.py defines them (detect_head with its
 * defaults: error_measure "mul", no token excluded).
 *
 * For the text's T tokens, a detection pattern D (T x T, 0 or 1, lower
 * triangular) says where a head of that kind attends:
 *
 *   previous token   D[i][i-1] = 1
 *   duplicate token  D[i][j] = 1 for j < i with token j == token i
 *   induction        D[i][j] = 1 for 0 < j <= i with token j-1 == token i
 *                    (the token after an earlier copy of the current one)
 *
 * and a head's score is the share of its attention there,
 *
 *   score = (A * D).sum() / A.sum()
 *
 * with A its attn_weights (T x T), each sum over all T² values in the
 * order of PyTorch's sum (numerics/tensor.h, sum_all). 1: all its
 * attention goes where the pattern says; 0: none. The table head_scores
 * ((L·H) x 3) has a row per head ("h.3.1": layer 3, head 1), layer by
 * layer; with --layers and --show-heads (a checkpoint's run), a row per
 * head shown, as the run shows its heads' tables.
 *
 * Induction and duplicate scores need repeated tokens: --repeat-random N
 * makes the classic input, N random tokens then the same N again (within
 * [CLS] ... [SEP] on BERT, lm_runs.h).
 *
 * A model whose attention looks both ways (BERT) also attends to later
 * tokens (j > i). D stays lower triangular, as head_detector.py makes
 * it, so attention forward is on no pattern, while A.sum() counts it
 * (every row of A sums to 1 whichever way it looks): a score is the
 * share of all the head's attention, backward and forward, that falls
 * where D is 1.
 */
#ifndef MHA_HEAD_SCORES_H
#define MHA_HEAD_SCORES_H

#include "base/error.h"
#include "model/lm.h"
#include "model/run_request.h"
#include "model/trace.h"

/* Checks the text without running: at least two tokens. */
int head_scores_check(const lm_ops *lm, const run_request *rq,
                      const model_input *in, mx_error *err);

/* Appends head_scores for the text of in to tr. */
int head_scores_record(trace *tr, const lm_ops *lm, const run_request *rq,
                       const model_input *in, mx_error *err);

#endif
