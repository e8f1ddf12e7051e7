/* checkpoint_tokenizer.c: vocab.json and merges.txt, or tokenizer.json
 * (checkpoint_tokenizer.h). */
#include "model/tokenizers/checkpoint_tokenizer.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/file_read.h"
#include "model/tokenizers/bpe.h"
#include "model/tokenizers/hf_tokenizer.h"
#include "model/tokenizers/tok_pretok.h"
#include "model/tokenizers/tok_text.h"

struct checkpoint_tokenizer {
    bpe *bpe;         /* vocab.json and merges.txt, or NULL */
    hf_tokenizer *hf; /* tokenizer.json, or NULL */
    char enc[256][3]; /* bytes_to_unicode, to read tokenizer.json's pieces
                          back into bytes */
};

static char *join(const char *dir, const char *name)
{
    const size_t n = strlen(dir) + strlen(name) + 2;
    char *p = malloc(n);
    if (p != NULL)
        snprintf(p, n, "%s/%s", dir, name);
    return p;
}

int checkpoint_tokenizer_open(checkpoint_tokenizer **out, const char *dir,
                              mx_error *err)
{
    return checkpoint_tokenizer_open_files(out, dir, TOKENIZER_GPT2_FILES, err);
}

int checkpoint_tokenizer_open_files(checkpoint_tokenizer **out, const char *dir,
                                    enum tokenizer_files files, mx_error *err)
{
    *out = NULL;
    checkpoint_tokenizer *t = calloc(1, sizeof *t);
    char *vocab = join(dir, "vocab.json"), *merges = join(dir, "merges.txt");
    char *json = join(dir, "tokenizer.json");
    char *config = join(dir, "tokenizer_config.json");
    int rc = t && vocab && merges && json && config ? 0 : err_nomem(err, dir);
    if (rc == 0) {
        tok_byte_chars(t->enc);
        // tokenizer.json only where neither of GPT-2's own files is there,
        // so a folder that has them reads as it always did
        const bool own = files == TOKENIZER_GPT2_FILES &&
                         (file_present(vocab) || file_present(merges));
        if (files == TOKENIZER_JSON || (!own && file_present(json)))
            rc = hf_tokenizer_open_config(
                &t->hf, json, file_present(config) ? config : NULL, err);
        else
            rc = bpe_open(&t->bpe, vocab, merges, err);
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
    hf_tokenizer_free(t->hf);
    free(t);
}

size_t checkpoint_tokenizer_vocab_size(const checkpoint_tokenizer *t)
{
    return t->bpe ? bpe_vocab_size(t->bpe) : hf_tokenizer_vocab_size(t->hf);
}

bool checkpoint_tokenizer_from_json(const checkpoint_tokenizer *t)
{
    return t->hf != NULL;
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
        return bpe_encode(ids, n, t->bpe, text, len, max, err);
    return hf_tokenizer_encode(ids, n, t->hf, text, len, true, max, err);
}

int checkpoint_tokenizer_encode_word(int32_t **ids, size_t *n,
                                     const checkpoint_tokenizer *t,
                                     const char *text, size_t len, size_t max,
                                     mx_error *err)
{
    if (t->bpe != NULL)
        return bpe_encode(ids, n, t->bpe, text, len, max, err);
    return hf_tokenizer_encode(ids, n, t->hf, text, len, false, max, err);
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
