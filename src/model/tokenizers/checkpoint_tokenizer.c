/* checkpoint_tokenizer.c: a vocabulary and merges, or tokenizer.json,
 * as the family's row names them (checkpoint_tokenizer.h). */
#include "model/tokenizers/checkpoint_tokenizer.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/i18n.h"
#include "io/file_read.h"
#include "model/tokenizers/bpe.h"
#include "model/tokenizers/hf_tokenizer.h"
#include "model/tokenizers/tok_text.h"
#include "model/tokenizers/vocab_specials.h"

struct checkpoint_tokenizer {
    bpe *bpe;                     /* the vocabulary and merges, or NULL */
    vocab_specials *specials;     /* with bpe: its special tokens */
    hf_tokenizer *hf;             /* tokenizer.json, or NULL */
    const tokenizer_files *files; /* the family row's names */
    const char *file; /* the file the tokens come from: one of them */
    char enc[256][3]; /* bytes_to_unicode, to read tokenizer.json's pieces
                          back into bytes */
};

static char *join(const char *dir, const char *name)
{
    if (name == NULL)
        return NULL;
    const size_t n = strlen(dir) + strlen(name) + 2;
    char *p = malloc(n);
    if (p != NULL)
        snprintf(p, n, "%s/%s", dir, name);
    return p;
}

/* Whether the folder's tokenizer is its tokenizer.json: the family has
 * no vocabulary and merges, or the folder has neither of them and has
 * it, so a folder that has them reads as it always did. */
static bool reads_json(const tokenizer_files *files, const char *vocab,
                       const char *merges, const char *json)
{
    if (files->vocab == NULL)
        return true;
    return !file_present(vocab) && !file_present(merges) && file_present(json);
}

int checkpoint_tokenizer_open(checkpoint_tokenizer **out, const char *dir,
                              const tokenizer_files *files, mx_error *err)
{
    *out = NULL;
    checkpoint_tokenizer *t = calloc(1, sizeof *t);
    char *vocab = join(dir, files->vocab), *merges = join(dir, files->merges);
    char *json = join(dir, files->json);
    char *config = join(dir, files->json_config);
    const bool merges_too = files->vocab != NULL;
    int rc = t && (!merges_too || (vocab && merges)) && json &&
                     (files->json_config == NULL || config)
                 ? 0
                 : err_nomem(err, dir);
    if (rc == 0) {
        tok_byte_chars(t->enc);
        const bool hf = reads_json(files, vocab, merges, json);
        t->files = files;
        t->file = hf ? files->json : files->vocab;
        if (hf)
            rc = hf_tokenizer_open_config(
                &t->hf, json, config && file_present(config) ? config : NULL,
                err);
        else if ((rc = bpe_open(&t->bpe, vocab, merges, err)) == 0)
            rc = vocab_specials_read(&t->specials, t->bpe, dir, files, err);
    }
    free(vocab);
    free(merges);
    free(json);
    free(config);
    if (rc != 0) {
        checkpoint_tokenizer_free(t);
        return -1;
    }
    *out = t;
    return 0;
}

void checkpoint_tokenizer_free(checkpoint_tokenizer *t)
{
    if (t == NULL)
        return;
    bpe_free(t->bpe);
    vocab_specials_free(t->specials);
    hf_tokenizer_free(t->hf);
    free(t);
}

size_t checkpoint_tokenizer_vocab_size(const checkpoint_tokenizer *t)
{
    return t->bpe ? bpe_vocab_size(t->bpe) : hf_tokenizer_vocab_size(t->hf);
}

const char *checkpoint_tokenizer_file(const checkpoint_tokenizer *t)
{
    return t->file;
}

const tokenizer_files *checkpoint_tokenizer_files(const checkpoint_tokenizer *t)
{
    return t->files;
}

int checkpoint_tokenizer_fits(const checkpoint_tokenizer *t, size_t vocab,
                              const char *dir, mx_error *err)
{
    const size_t tokens = checkpoint_tokenizer_vocab_size(t);
    if (tokens <= vocab)
        return 0;
    /* the largest id names the entry to fix: the ids may have gaps, so
     * their count can be smaller than tokens */
    char label[64];
    checkpoint_tokenizer_label(label, sizeof label, t, (int32_t)(tokens - 1));
    /* TRANSLATORS: the folder, the file of its tokenizer ("vocab.json",
     * "tokenizer.json"), a token, its id, and the model's vocab_size */
    return err_input(err,
                     _("%s: %s gives the token '%s' the id %zu, past the "
                       "model's vocab_size %zu"),
                     dir, t->file, label, tokens - 1, vocab);
}

const struct hf_tokenizer *
checkpoint_tokenizer_json(const checkpoint_tokenizer *t)
{
    return t->hf;
}

int checkpoint_tokenizer_encode(int32_t **ids, size_t *n,
                                const checkpoint_tokenizer *t, const char *text,
                                size_t len, size_t max, mx_error *err)
{
    if (t->bpe != NULL)
        return vocab_specials_encode(ids, n, t->specials, t->bpe, text, len,
                                     true, max, err);
    return hf_tokenizer_encode(ids, n, t->hf, text, len, true, max, err);
}

int checkpoint_tokenizer_encode_word(int32_t **ids, size_t *n,
                                     const checkpoint_tokenizer *t,
                                     const char *text, size_t len, size_t max,
                                     mx_error *err)
{
    if (t->bpe != NULL)
        return vocab_specials_encode(ids, n, t->specials, t->bpe, text, len,
                                     false, max, err);
    return hf_tokenizer_encode(ids, n, t->hf, text, len, false, max, err);
}

void checkpoint_tokenizer_specials(const int32_t **before, size_t *n_before,
                                   const int32_t **after, size_t *n_after,
                                   const checkpoint_tokenizer *t)
{
    if (t->hf != NULL) {
        hf_tokenizer_specials(before, n_before, after, n_after, t->hf);
        return;
    }
    vocab_specials_before(before, n_before, t->specials);
    *after = NULL;
    *n_after = 0;
}

int checkpoint_tokenizer_count(size_t *n, const checkpoint_tokenizer *t,
                               const char *text, size_t len, mx_error *err)
{
    int32_t *ids = NULL;
    const int rc =
        checkpoint_tokenizer_encode(&ids, n, t, text, len, SIZE_MAX, err);
    free(ids);
    return rc;
}

/* A byte-level piece's bytes: each character back through
 * bytes_to_unicode; the piece as it is if it is not byte-level. */
static size_t piece_bytes(unsigned char *raw, size_t cap,
                          const checkpoint_tokenizer *t, const char *p,
                          size_t len)
{
    size_t n = 0;
    for (size_t i = 0; i < len && n < cap;) {
        int b = -1;
        for (int c = 0; c < 256 && hf_tokenizer_byte_level(t->hf); c++) {
            const size_t k = strlen(t->enc[c]);
            if (k <= len - i && memcmp(p + i, t->enc[c], k) == 0) {
                b = c;
                i += k;
                break;
            }
        }
        if (b < 0)
            b = (unsigned char)p[i++];
        raw[n++] = (unsigned char)b;
    }
    return n;
}

size_t checkpoint_tokenizer_bytes(unsigned char *raw, size_t cap,
                                  const checkpoint_tokenizer *t, int32_t id)
{
    if (t->bpe != NULL)
        return bpe_bytes(raw, cap, t->bpe, id);
    size_t len;
    const char *p = hf_tokenizer_piece(t->hf, id, &len);
    return p != NULL ? piece_bytes(raw, cap, t, p, len) : 0;
}

void checkpoint_tokenizer_label(char *buf, size_t size,
                                const checkpoint_tokenizer *t, int32_t id)
{
    if (t->bpe != NULL) {
        bpe_label(buf, size, t->bpe, id);
        return;
    }
    size_t len;
    const char *p = hf_tokenizer_piece(t->hf, id, &len);
    if (p == NULL) {
        if (size > 0)
            snprintf(buf, size, "<id %ld>", (long)id);
        return;
    }
    unsigned char raw[256];
    bpe_label_bytes(buf, size, raw, piece_bytes(raw, sizeof raw, t, p, len));
}
