/* gpt2_tokenizer.h: a GPT-2 checkpoint folder's tokenizer: vocab.json and
 * merges.txt (bpe.h) where the folder has them, else its tokenizer.json
 * (model/tokenizers/hf_tokenizer.h, byte-level BPE for GPT-2). Both give
 * the same ids and the same labels for the same vocabulary and merges.
 */
#ifndef MHA_GPT2_TOKENIZER_H
#define MHA_GPT2_TOKENIZER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/error.h"

typedef struct gpt2_tokenizer gpt2_tokenizer;

/* Which files of a folder hold its tokenizer. */
enum tokenizer_files {
    TOKENIZER_GPT2_FILES, /* vocab.json and merges.txt, or tokenizer.json
                             when neither is there (GPT-2) */
    TOKENIZER_JSON,       /* tokenizer.json only (BERT, the Llama style):
                             a folder without it is refused naming it */
};

/* Opens the tokenizer of the folder dir from its files; on failure *out
 * is NULL. gpt2_tokenizer_open reads GPT-2's (TOKENIZER_GPT2_FILES). */
int gpt2_tokenizer_open_files(gpt2_tokenizer **out, const char *dir,
                              enum tokenizer_files files, mx_error *err);
int gpt2_tokenizer_open(gpt2_tokenizer **out, const char *dir, mx_error *err);
void gpt2_tokenizer_free(gpt2_tokenizer *t);

/* The number of tokens (the largest id + 1), and whether they come from
 * tokenizer.json (else vocab.json), for messages. */
size_t gpt2_tokenizer_vocab_size(const gpt2_tokenizer *t);
bool gpt2_tokenizer_from_json(const gpt2_tokenizer *t);

/* As bpe_encode: text[0..len) into *ids (*n, the caller frees), stopping
 * once there are more than max. */
int gpt2_tokenizer_encode(int32_t **ids, size_t *n, const gpt2_tokenizer *t,
                          const char *text, size_t len, size_t max,
                          mx_error *err);

/* *n: the number of tokens of text[0..len) (the whole text, for the
 * message that refuses one too long for the model). */
int gpt2_tokenizer_count(size_t *n, const gpt2_tokenizer *t, const char *text,
                         size_t len, mx_error *err);

/* The tokenizer.json reader, or NULL when the folder's vocab.json and
 * merges.txt are read. */
struct hf_tokenizer;
const struct hf_tokenizer *gpt2_tokenizer_json(const gpt2_tokenizer *t);
/* The raw bytes of token id (at most cap) into raw; returns their count
 * (generated text, --stop). */
size_t gpt2_tokenizer_bytes(unsigned char *raw, size_t cap,
                            const gpt2_tokenizer *t, int32_t id);

/* As bpe_label: token id as a readable label into buf (size bytes). */
void gpt2_tokenizer_label(char *buf, size_t size, const gpt2_tokenizer *t,
                          int32_t id);

#endif
