/* lesson_tokens.h: the tokens of the lesson's family (model/family.h):
 * the sentence split, or the embeddings' labels; with --kv the other
 * sentence's after; with --train the trained vocabulary's ids. */
#ifndef MHA_LESSON_TOKENS_H
#define MHA_LESSON_TOKENS_H

#include <stddef.h>

#include "base/error.h"
#include "model/run_request.h"
#include "model/tokenize.h"
#include "model/lesson/train_words.h"

/* pipeline_tokens for the lesson's variants. */
int lesson_tokens(tokenized *tok, size_t *n_queries, const run_request *rq,
                  const model_input *in, mx_error *err);

/* The run's tokens: the input's, or a trained run's (--train) from
 * training_tokens (train_words.h), with --weights the folder's
 * vocabulary; its sentences in *data (freed by the caller) or, with data
 * NULL, freed here. */
int lesson_run_tokens(tokenized *tok, size_t *n_queries, train_data *data,
                      const run_request *rq, const model_input *in,
                      mx_error *err);

/* A trained --weights folder's vocabulary alone, for a run with no
 * sentence (--repeat-random on the model as the folder holds it): *data
 * owns the words and trains on nothing, *tok's vocab points at them and
 * it has no token. Freed as lesson_run_tokens's are (tok first). */
int lesson_folder_vocab(tokenized *tok, train_data *data, const run_request *rq,
                        mx_error *err);

#endif
