/* entropy.h: the model view, each layer's and head's mean attention
 * entropy (the table attn_entropy, L x H), as a checkpoint's run
 * (--model, model/gpt2/gpt2_trace.c) and a stack of blocks (--layers N,
 * model/lesson/stack.c) make it.
 *
 * A head's entropy is the mean over its T queries of the entropy of the
 * query's row of attn_weights (T, S), in nats (natural log):
 *
 *   H = mean_i ( -sum_j p_ij ln p_ij ),  over the cells p_ij > 0
 *
 * so a masked cell (weight 0, a later token under the causal mask) adds
 * nothing, as 0 ln 0 = 0. Summed in order in double, rounded to float
 * once: a summary of the run, not one of PyTorch's tables. Low for a head
 * that looks at one token, ln S at most for one that spreads its
 * attention evenly over S keys.
 */
#ifndef MHA_ENTROPY_H
#define MHA_ENTROPY_H

#include "base/error.h"
#include "model/trace.h"
#include "numerics/tensor.h"

/* The mean over the rows of weights (T, S) of each row's entropy, in
 * nats (above). */
float attn_mean_entropy(const matrix *weights);

/* Records entropy (L, H) as the table attn_entropy under key: a row per
 * layer, "<layer_prefix><L>" ("h.3", "block.3"), a column per head (its
 * number), printed in text with two decimals (trace.h's summary) so that
 * twelve heads fit 80 columns. The table is released (trace.h) and
 * returned for the caller to mark (model, stacked), or NULL with err
 * set. */
table *attn_entropy_record(trace *tr, const table_key *key,
                           const char *layer_prefix, const matrix *entropy,
                           mx_error *err);

#endif
