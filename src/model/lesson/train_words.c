/* train_words.c: a training run's sentences as ids of its vocabulary
 * (train_words.h). */
#include "model/lesson/train_words.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/i18n.h"
#include "base/limits.h"

/* ---- the vocabulary ---------------------------------------------------- */

/* Words to ids in order of first appearance: an open-addressing table
 * of indexes into words. */
typedef struct {
    char **words; /* n words; owned */
    size_t n, cap;
    size_t *slot; /* slots, each 0 (empty) or 1 + an index */
    size_t n_slots;
} word_ids;

static size_t hash_word(const char *s)
{
    size_t h = 2166136261u;
    for (; *s != '\0'; s++)
        h = (h ^ (unsigned char)*s) * 16777619u;
    return h;
}

static void word_ids_free(word_ids *w)
{
    for (size_t i = 0; i < w->n; i++)
        free(w->words[i]);
    free(w->words);
    free(w->slot);
    *w = (word_ids){0};
}

/* Puts i's word in its slot. */
static void word_ids_place(word_ids *w, size_t i)
{
    size_t k = hash_word(w->words[i]) & (w->n_slots - 1);
    while (w->slot[k] != 0)
        k = (k + 1) & (w->n_slots - 1);
    w->slot[k] = i + 1;
}

/* Whether word has an id, *id. */
static bool word_find(size_t *id, const word_ids *w, const char *word)
{
    if (w->n_slots == 0)
        return false;
    size_t k = hash_word(word) & (w->n_slots - 1);
    for (; w->slot[k] != 0; k = (k + 1) & (w->n_slots - 1))
        if (strcmp(w->words[w->slot[k] - 1], word) == 0) {
            *id = w->slot[k] - 1;
            return true;
        }
    return false;
}

/* *id = word's id, a new one when it is new. */
static int word_id(size_t *id, word_ids *w, const char *word, mx_error *err)
{
    if (word_find(id, w, word))
        return 0;
    if (w->n == w->cap) {
        const size_t cap = w->cap ? 2 * w->cap : 64;
        char **grown = realloc(w->words, cap * sizeof *grown);
        if (grown == NULL)
            return err_nomem(err, _("the vocabulary"));
        w->words = grown;
        w->cap = cap;
    }
    if (2 * (w->n + 1) > w->n_slots) {
        const size_t n_slots = w->n_slots ? 2 * w->n_slots : 128;
        size_t *slot = calloc(n_slots, sizeof *slot);
        if (slot == NULL)
            return err_nomem(err, _("the vocabulary"));
        free(w->slot);
        w->slot = slot;
        w->n_slots = n_slots;
        for (size_t i = 0; i < w->n; i++)
            word_ids_place(w, i);
    }
    const size_t n = strlen(word) + 1;
    char *copy = malloc(n);
    if (copy == NULL)
        return err_nomem(err, _("the vocabulary"));
    memcpy(copy, word, n);
    w->words[w->n] = copy;
    word_ids_place(w, w->n);
    *id = w->n++;
    return 0;
}

void train_data_free(train_data *data)
{
    for (size_t i = 0; i < data->n_words; i++)
        free(data->words[i]);
    free(data->words);
    free(data->s);
    free(data->ids);
    *data = (train_data){0};
}

/* err's message about corpus sentence i (from 0), said as --input says
 * it: "FILE:LINE: column 'NAME': why". */
static int corpus_error(mx_error *err, const model_input *in, size_t i)
{
    char why[sizeof err->msg];
    snprintf(why, sizeof why, "%s", err->msg);
    if (in->corpus_lines != NULL)
        return err_input(err, _("%s:%zu: column '%s': %s"), in->corpus_file,
                         in->corpus_lines[i], in->corpus_column, why);
    return err_input(err, _("--corpus: sentence %zu: %s"), i, why);
}

/* --unk: how words outside a closed vocabulary are read. */
typedef struct {
    bool on;   /* words are looked up, never added */
    size_t id; /* UNK_WORD's id */
} unk_map;

/* *id = word's id (word_id), or with u on its id if it has one, else
 * UNK_WORD's. */
static int vocab_id(size_t *id, word_ids *w, const char *word, const unk_map *u,
                    mx_error *err)
{
    if (!u->on)
        return word_id(id, w, word, err);
    if (!word_find(id, w, word))
        *id = u->id;
    return 0;
}

/* The corpus's sentences tokenized one by one into w and all (their
 * ids, *count of them); *lengths (n_corpus) their lengths. */
static int corpus_ids(word_ids *w, size_t **all, size_t *count,
                      size_t **lengths, const model_input *in,
                      const run_request *rq, const unk_map *u, mx_error *err)
{
    size_t cap = 0;
    *lengths = calloc(in->n_corpus ? in->n_corpus : 1, sizeof **lengths);
    if (*lengths == NULL)
        return err_nomem(err, _("the corpus"));
    for (size_t i = 0; i < in->n_corpus; i++) {
        tokenized t = {0};
        if (tokenize_with(&t, in->corpus[i], strlen(in->corpus[i]), rq->tokens,
                          &rq->rules, err) != 0)
            return corpus_error(err, in, i);
        int rc = 0;
        if (t.n_tokens < 2) {
            err_input(err, _("the sentence has one token: there is no next "
                             "word to predict"));
            rc = corpus_error(err, in, i);
        }
        if (rc == 0 && *count + t.n_tokens > cap) {
            const size_t grown_cap = 2 * (*count + t.n_tokens);
            size_t *grown = realloc(*all, grown_cap * sizeof *grown);
            if (grown == NULL)
                rc = err_nomem(err, _("the corpus"));
            else {
                *all = grown;
                cap = grown_cap;
            }
        }
        for (size_t k = 0; rc == 0 && k < t.n_tokens; k++)
            rc = vocab_id(&(*all)[(*count)++], w, t.tokens[k], u, err);
        (*lengths)[i] = t.n_tokens;
        tokenized_free(&t);
        if (rc != 0)
            return -1;
    }
    return 0;
}

/* The first word of ids[0..n) from `known` on (a word the trained
 * vocabulary lacks), or NULL. */
static const char *new_word(const word_ids *w, const size_t *ids, size_t n,
                            size_t known)
{
    for (size_t i = 0; i < n; i++)
        if (ids[i] >= known)
            return w->words[ids[i]];
    return NULL;
}

/* Token k of tok is word (UNK_WORD in place of a word outside the
 * vocabulary: the tables' labels say what the model reads). */
static int unk_label(tokenized *tok, size_t k, const char *word, mx_error *err)
{
    if (strcmp(tok->tokens[k], word) == 0)
        return 0;
    char *copy = strdup(word);
    if (copy == NULL)
        return err_nomem(err, _("a token"));
    free(tok->tokens[k]);
    tok->tokens[k] = copy;
    return 0;
}

/* --unk: UNK_WORD's id in u, added to w unless it is there (a trained
 * vocabulary must have it); u is on for what is read after. */
static int unk_begin(unk_map *u, word_ids *w, bool trained, mx_error *err)
{
    if (trained && !word_find(&u->id, w, UNK_WORD))
        return err_input(err,
                         _("--unk: the trained vocabulary has no word '%s' "
                           "(the model was trained without --unk)"),
                         UNK_WORD);
    if (word_id(&u->id, w, UNK_WORD, err) != 0)
        return -1;
    u->on = true;
    return 0;
}

/* Words w numbered as a trained vocabulary (n_vocab words, in order),
 * each once. */
static int trained_words(word_ids *w, const char *const *vocab, size_t n_vocab,
                         mx_error *err)
{
    for (size_t i = 0; i < n_vocab; i++) {
        size_t id;
        if (word_id(&id, w, vocab[i], err) != 0)
            return -1;
    }
    if (w->n != n_vocab)
        return err_input(err, _("--weights: the embedding's rows name a word "
                                "twice"));
    return 0;
}

/* The sentences trained on, in *data: the corpus's (*all, every
 * sentence's ids, lengths[i] each; taken), or the shown sentence (shown,
 * T ids; copied). */
static int data_sentences(train_data *data, size_t **all, const size_t *lengths,
                          const size_t *shown, size_t T, const model_input *in,
                          mx_error *err)
{
    const size_t n = in->corpus != NULL ? in->n_corpus : 1;
    data->s = calloc(n, sizeof *data->s);
    if (data->s == NULL)
        return err_nomem(err, _("the corpus"));
    data->n = n;
    data->context = T;
    if (in->corpus == NULL) {
        data->ids = malloc(T * sizeof *data->ids);
        if (data->ids == NULL)
            return err_nomem(err, _("the corpus"));
        memcpy(data->ids, shown, T * sizeof *shown);
        data->s[0] = (train_sentence){data->ids, T};
        return 0;
    }
    data->ids = *all;
    *all = NULL;
    size_t at = 0;
    for (size_t i = 0; i < n; i++) {
        data->s[i] = (train_sentence){data->ids + at, lengths[i]};
        at += lengths[i];
        if (lengths[i] > data->context)
            data->context = lengths[i];
    }
    return 0;
}

int training_tokens(tokenized *tok, train_data *data, const model_input *in,
                    const run_request *rq, const char *const *vocab,
                    size_t n_vocab, mx_error *err)
{
    word_ids w = {0};
    size_t *all = NULL, *lengths = NULL, count = 0;
    *data = (train_data){0};
    int rc = -1;
    // a trained vocabulary (--weights) comes first, in its order
    if (trained_words(&w, vocab, n_vocab, err) != 0) {
        word_ids_free(&w);
        return -1;
    }
    if (tokenize_with(tok, in->sentence, in->len, rq->tokens, &rq->rules,
                      err) != 0) {
        word_ids_free(&w);
        return -1;
    }
    if (tok->n_tokens < 2) {
        tokenized_free(tok);
        word_ids_free(&w);
        // with --corpus the model trains on the corpus, and the shown
        // sentence gives the loss at the final parameters (and --grad)
        if (in->corpus != NULL)
            return err_input(err,
                             _("--train: the shown sentence has one token: "
                               "the model trains on --corpus, but the loss "
                               "at the final parameters is the shown "
                               "sentence's, which needs a next word to "
                               "predict; give two tokens or more"));
        return err_input(err, _("--train: the sentence has one token: there "
                                "is no next word to predict"));
    }
    if (in->corpus != NULL && in->n_corpus == 0) {
        tokenized_free(tok);
        word_ids_free(&w);
        return err_input(err, _("--corpus: the column holds no sentence"));
    }
    // --unk: a trained vocabulary is closed from the start; a corpus's
    // once it is read; a sentence's after it
    unk_map unk = {0};
    if (rq->unk && vocab != NULL && unk_begin(&unk, &w, true, err) != 0)
        goto done;
    if (corpus_ids(&w, &all, &count, &lengths, in, rq, &unk, err) != 0)
        goto done;
    if (rq->unk && vocab == NULL && in->corpus != NULL &&
        unk_begin(&unk, &w, false, err) != 0)
        goto done;
    // the shown sentence's ids, its new words after the corpus's
    const size_t T = tok->n_tokens;
    size_t *shown = malloc(T * sizeof *shown);
    if (shown == NULL) {
        err_nomem(err, _("the tokens"));
        goto done;
    }
    for (size_t k = 0; k < T; k++)
        if (vocab_id(&shown[k], &w, tok->tokens[k], &unk, err) != 0 ||
            (rq->unk && unk_label(tok, k, w.words[shown[k]], err) != 0)) {
            free(shown);
            goto done;
        }
    if (rq->unk && !unk.on && unk_begin(&unk, &w, false, err) != 0) {
        free(shown);
        goto done;
    }
    const char *unknown =
        vocab == NULL ? NULL : new_word(&w, all, count, n_vocab);
    if (unknown != NULL ||
        (vocab != NULL &&
         (unknown = new_word(&w, shown, T, n_vocab)) != NULL)) {
        err_input(err,
                  _("'%s' is not in the trained vocabulary (the rows of the "
                    "--weights embedding.weight file)"),
                  unknown);
        free(shown);
        goto done;
    }
    // what --csv-dir writes --weights must read back
    if (w.n > MAX_VOCAB) {
        err_input(
            err,
            _("--corpus: the corpus and the sentence have %zu different words; a trained model keeps at most %d"),
            w.n, MAX_VOCAB);
        free(shown);
        goto done;
    }
    if (data_sentences(data, &all, lengths, shown, T, in, err) != 0) {
        free(shown);
        goto done;
    }
    // the vocabulary replaces the sentence's own (whose words are the
    // tokens'); data owns its words
    char **words = malloc((w.n ? w.n : 1) * sizeof *words);
    if (words == NULL) {
        free(shown);
        err_nomem(err, _("the vocabulary"));
        goto done;
    }
    memcpy(words, w.words, w.n * sizeof *words);
    free(tok->vocab);
    free(tok->ids);
    tok->vocab = words;
    tok->n_vocab = w.n;
    tok->ids = shown;
    data->words = w.words;
    data->n_words = w.n;
    w.words = NULL;
    w.n = 0;
    rc = 0;
done:
    word_ids_free(&w);
    free(all);
    free(lengths);
    if (rc != 0) {
        tokenized_free(tok);
        train_data_free(data);
    }
    return rc;
}
