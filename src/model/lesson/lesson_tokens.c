/* lesson_tokens.c: the tokens of a lesson's run (lesson_tokens.h): the
 * sentence split (with --kv the other sentence's after it), the
 * embeddings' labels, or a trained run's words in its vocabulary. */
#include "model/lesson/lesson_tokens.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/i18n.h"
#include "model/lesson/trained.h"
#include "model/lesson/variants.h"
#include "model/lesson/weights.h"

/* Tokens of the input: the sentence split, or the embeddings' labels.
 * With --kv, the two sentences one after the other (so the vocabulary is
 * the sentence's words, then the other's new words), and *n_queries says
 * how many of the tokens are the sentence's. */
static int input_tokens(tokenized *tok, size_t *n_queries,
                        const model_input *in, enum token_mode mode,
                        const token_rules *rules, mx_error *err)
{
    if (in->embeddings != NULL) {
        *n_queries = in->embeddings->rows;
        return tokenize_words(tok, in->words, in->embeddings->rows, err);
    }
    if (tokenize_with(tok, in->sentence, in->len, mode, rules, err) != 0)
        return -1;
    *n_queries = tok->n_tokens;
    if (in->kv == NULL)
        return 0;

    tokenized other = {0};
    if (tokenize_with(&other, in->kv, strlen(in->kv), mode, rules, err) != 0) {
        char why[sizeof err->msg];
        snprintf(why, sizeof why, "%s", err->msg);
        tokenized_free(tok);
        return err_input(err, _("--kv: %s"), why);
    }
    const size_t n_other = other.n_tokens;
    tokenized_free(&other);
    if (*n_queries + n_other > MAX_TOKENS) {
        tokenized_free(tok);
        return err_input(err,
                         _("the sentence and --kv have %zu tokens together, "
                           "more than %d"),
                         *n_queries + n_other, MAX_TOKENS);
    }
    size_t n = in->len + 1 + strlen(in->kv);
    char *both = malloc(n + 1);
    tokenized_free(tok);
    if (both == NULL)
        return err_nomem(err, _("the sentences"));
    snprintf(both, n + 1, "%.*s %s", (int)in->len, in->sentence, in->kv);
    int rc = tokenize_with(tok, both, n, mode, rules, err);
    free(both);
    return rc;
}

/* The words of rq's --weights folder (*n of them, copies the caller
 * frees): its model.json's vocabulary, which every variant's embedding
 * and lm_head rows must follow, or without one the rows of the first
 * embedding.weight file of the run's variants; none without --weights. */
static int folder_words(char ***vocab, size_t *n, const run_request *rq,
                        mx_error *err)
{
    *vocab = NULL;
    *n = 0;
    if (rq->weights == NULL)
        return 0;
    const trained_manifest *saved = &rq->weights->manifest;
    if (saved->present) {
        *vocab = calloc(saved->n_vocab ? saved->n_vocab : 1, sizeof **vocab);
        if (*vocab == NULL)
            return err_nomem(err, _("the vocabulary"));
        for (; *n < saved->n_vocab; (*n)++)
            if (((*vocab)[*n] = strdup(saved->vocab[*n])) == NULL)
                return err_nomem(err, _("the vocabulary"));
        return 0;
    }
    matrix rows = {0};
    int found = 0;
    for (size_t i = 0; i < MODEL_N_VARIANTS && !found; i++)
        if ((rq->variants & model_variants[i].bit) &&
            (found = weights_read_table(vocab, n, &rows, rq->weights,
                                        model_variants[i].id, TABLE_EMBEDDING,
                                        &rq->weights_style, TRAINED_MAX_WIDTH,
                                        err)) < 0)
            return -1;
    matrix_free(&rows);
    return 0;
}

static void free_words(char **vocab, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(vocab[i]);
    free(vocab);
}

/* The run's tokens (input_tokens); a trained run's (--train) from
 * training_tokens, its sentences in *data (freed by the caller) or, with
 * data NULL, freed here. */
int lesson_run_tokens(tokenized *tok, size_t *n_queries, train_data *data,
                      const run_request *rq, const model_input *in,
                      mx_error *err)
{
    if (!rq->train)
        return input_tokens(tok, n_queries, in, rq->tokens, &rq->rules, err);
    train_data own = {0};
    // --weights of a trained run: its vocabulary
    char **vocab = NULL;
    size_t n_vocab = 0;
    int rc = folder_words(&vocab, &n_vocab, rq, err);
    if (rc == 0)
        rc = training_tokens(tok, data != NULL ? data : &own, in, rq,
                             (const char *const *)vocab, n_vocab, err);
    free_words(vocab, n_vocab);
    if (rc != 0)
        return -1;
    if (data == NULL) {
        // the vocabulary's words go with own: its size stays
        free(tok->vocab);
        tok->vocab = NULL;
        train_data_free(&own);
    }
    *n_queries = tok->n_tokens;
    return 0;
}

int lesson_folder_vocab(tokenized *tok, train_data *data, const run_request *rq,
                        mx_error *err)
{
    *tok = (tokenized){0};
    *data = (train_data){0};
    char **vocab = NULL;
    size_t n = 0;
    if (folder_words(&vocab, &n, rq, err) != 0) {
        free_words(vocab, n);
        return -1;
    }
    if (n == 0) {
        free(vocab);
        return err_input(err, _("--weights: the folder holds no trained "
                                "vocabulary"));
    }
    char **words = malloc(n * sizeof *words);
    if (words == NULL) {
        free_words(vocab, n);
        return err_nomem(err, _("the vocabulary"));
    }
    memcpy(words, vocab, n * sizeof *words);
    data->words = vocab;
    data->n_words = n;
    tok->vocab = words;
    tok->n_vocab = n;
    return 0;
}

int lesson_tokens(tokenized *tok, size_t *n_queries, const run_request *rq,
                  const model_input *in, mx_error *err)
{
    return lesson_run_tokens(tok, n_queries, NULL, rq, in, err);
}
