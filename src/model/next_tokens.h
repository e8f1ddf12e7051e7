/* next_tokens.h: the likeliest next tokens at each position of a model's
 * logits (the table next_tokens, catalogue.h): GPT-2's (--model) and a
 * trained lesson's (--train, --weights of a trained model), whose
 * lm_head gives the logits.
 *
 * Row t·k + j is position t's j-th likeliest next token, labelled
 * "token → next", its value the probability softmax(logits[t]) gives it
 * (torch.softmax(logits, -1), whose top-k values these are: larger
 * probability first, a tie to the smaller id). */
#ifndef MHA_NEXT_TOKENS_H
#define MHA_NEXT_TOKENS_H

#include <stddef.h>

#include "base/error.h"
#include "model/trace.h"
#include "numerics/tensor.h"

/* The most next tokens shown at a position. */
#define NEXT_TOKENS_K 5

/* For each row t of logits (T, V): the n = min(NEXT_TOKENS_K, V)
 * likeliest ids into best[t·n .. t·n + n) and their probabilities into
 * prob[t·n ..] (both T·NEXT_TOKENS_K long); *n set. */
int next_tokens_top(size_t *best, float *prob, size_t *n, const matrix *logits,
                    mx_error *err);

/* The next_tokens table of key's variant (T·n x 1), from logits (T, V):
 * its rows "tokens[t] → words[id]", its column "probability". */
int next_tokens_record(trace *tr, const table_key *key, const matrix *logits,
                       const labels *tokens, const labels *words,
                       mx_error *err);

#endif
