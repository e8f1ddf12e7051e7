/* train_words.h: the words of a training run (--train): the shown
 * sentence and the corpus as ids of one vocabulary, with --weights the
 * trained one, with --unk the word <unk> for the others. */
#ifndef MHA_TRAIN_WORDS_H
#define MHA_TRAIN_WORDS_H

#include <stddef.h>

#include "base/error.h"
#include "model/lesson/train.h"
#include "model/run_request.h"
#include "model/tokenize.h"

/* The word --unk puts in place of one outside the vocabulary. */
#define UNK_WORD "<unk>"

/* The sentences trained on, as ids of the run's vocabulary. */
typedef struct {
    train_sentence *s; /* n sentences; their ids point into ids */
    size_t n;
    size_t *ids;    /* every sentence's ids; owned */
    size_t context; /* C, the longest sentence (the shown one included) */
    char **words;   /* the vocabulary's words (n_words); owned: the
                       tokens' vocab points at them */
    size_t n_words;
} train_data;

/* The shown sentence's tokens in *tok, whose vocabulary is the corpus's
 * words in order of first appearance, then the sentence's new words;
 * the sentences trained on (the corpus's, or the sentence itself) in
 * *data, which owns the vocabulary's words (free *tok first). Every
 * sentence needs two tokens (one to predict from). With vocab (n_vocab
 * words, a trained embedding's rows: --weights) the vocabulary is that,
 * and a word outside it is an error naming it. Sentences are cut as
 * rq->tokens and rq->rules say. With rq->unk, the vocabulary has the
 * word UNK_WORD (after the corpus's words, or the sentence's without a
 * corpus), and a word outside the trained vocabulary (the --weights
 * one, else the corpus's) is that word, in the tokens too. */
int training_tokens(tokenized *tok, train_data *data, const model_input *in,
                    const run_request *rq, const char *const *vocab,
                    size_t n_vocab, mx_error *err);
void train_data_free(train_data *data);

#endif
