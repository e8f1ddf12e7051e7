/* loss.h: the next-word loss of a training step (--train),
 * F.cross_entropy(logits[:-1], ids[1:]): log_softmax over each row, then
 * nll_loss, the mean over the T - 1 rows that have a next word.
 */
#ifndef MHA_LOSS_H
#define MHA_LOSS_H

#include <stddef.h>

#include "numerics/tensor.h"

/* The loss of logits (T, V) against the next words: row t predicts
 * ids[t + 1], for t < T - 1 (T >= 2). With dlogits (T, V) not NULL, also
 * d loss / d logits, as loss.backward() computes it: the log_softmax
 * backward of nll_loss's gradient on the first T - 1 rows, zeros in the
 * last. logp (T - 1, V) is working room. */
float cross_entropy(matrix *dlogits, matrix *logp, const matrix *logits,
                    const size_t *ids);

#endif
