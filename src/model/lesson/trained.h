/* trained.h: a trained run (--train): the sentences as vocabulary ids,
 * and each variant's notebook trained, then shown.
 *
 * Each variant is its own notebook (train.h): from the seed, the
 * embedding (V, D), with --positions the positions (C, D), the module,
 * then lm_head (V, W) are drawn; N steps train them; then the variant's
 * tables are, in order: embedding.weight, pos_embedding.weight, its
 * parameters, lm_head.weight, inputs, the forward pass's tables on the
 * shown sentence (as without --train), logits (T, V), with --grad every
 * parameter's gradient at the final parameters (<name>.grad), then loss
 * (N + 1, 1: the loss before each step, then the shown sentence's at the
 * final parameters), then with mc->checkpoints attn_weights_steps: every
 * head's weights on the shown sentence at K <= TRAIN_CHECKPOINTS steps
 * (catalogue.h), step 0 first and step N last.
 */
#ifndef MHA_TRAINED_H
#define MHA_TRAINED_H

#include "base/error.h"
#include "model/lesson/attention.h"
#include "model/pipeline.h"
#include "model/tokenize.h"
#include "model/lesson/train.h"
#include "numerics/rng.h"

/* The widest table a trained run's file (--weights) may hold. */
#define TRAINED_MAX_WIDTH ((size_t)1 << 16)

/* The most steps attn_weights_steps records (--plot, --html): the
 * training's first and last and, between them, steps evenly spaced, so
 * the page and the pictures stay small however long the training. */
#define TRAIN_CHECKPOINTS 11

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
 * mc->tokens and mc->rules say. With mc->unk, the vocabulary has the
 * word UNK_WORD (after the corpus's words, or the sentence's without a
 * corpus), and a word outside the trained vocabulary (the --weights
 * one, else the corpus's) is that word, in the tokens too. */
int training_tokens(tokenized *tok, train_data *data, const model_input *in,
                    const model_config *mc, const char *const *vocab,
                    size_t n_vocab, mx_error *err);
void train_data_free(train_data *data);

/* The labels a trained variant's tables take. */
typedef struct {
    const labels *vocab; /* the V words */
    const labels *dims;  /* dim0 .. dim(D-1) */
    const sequence_labels *seq;
} trained_labels;

/* Variant id's notebook: drawn from a copy of start (the generator after
 * the embedding and the positions), trained from embedding (V, D) and
 * positions (C, D, or NULL) over data, its tables recorded in tr (see
 * above). ids (T) are the shown sentence's. cfg is the run's. */
int trained_variant(trace *tr, variant_id id, const model_config *mc,
                    const attention_config *cfg, const torch_rng *start,
                    const matrix *embedding, const matrix *positions,
                    const train_data *data, const size_t *ids,
                    const trained_labels *lab, mx_error *err);

/* Before a streamed trained run writes anything: each variant's
 * --weights files read, as trained_variant reads them, into a model
 * freed again, so that a bad file of a later variant stops the run
 * before the first table goes out. */
int trained_check_files(const model_config *mc, const attention_config *cfg,
                        const torch_rng *start, const matrix *embedding,
                        const matrix *positions, const trained_labels *lab,
                        mx_error *err);

#endif
