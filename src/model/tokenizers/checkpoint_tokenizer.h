/* checkpoint_tokenizer.h: a checkpoint folder's tokenizer, whichever
 * family the folder holds: vocab.json and merges.txt (bpe.h) where the
 * folder has them (GPT-2), else its tokenizer.json
 * (model/tokenizers/hf_tokenizer.h: GPT-2's byte-level BPE, BERT's
 * WordPiece, the Llama style's BPE). For the same vocabulary and merges
 * both give the same ids and the same labels.
 */
#ifndef MHA_CHECKPOINT_TOKENIZER_H
#define MHA_CHECKPOINT_TOKENIZER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/error.h"

typedef struct checkpoint_tokenizer checkpoint_tokenizer;

/* Which files of a folder hold its tokenizer. */
enum tokenizer_files {
    TOKENIZER_GPT2_FILES, /* vocab.json and merges.txt, or tokenizer.json
                             when neither is there (GPT-2) */
    TOKENIZER_JSON,       /* tokenizer.json only (BERT, the Llama style):
                             a folder without it is refused naming it */
};

/* Opens the tokenizer of the folder dir from its files; on failure *out
 * is NULL. checkpoint_tokenizer_open reads GPT-2's (TOKENIZER_GPT2_FILES). */
int checkpoint_tokenizer_open_files(checkpoint_tokenizer **out, const char *dir,
                                    enum tokenizer_files files, mx_error *err);
int checkpoint_tokenizer_open(checkpoint_tokenizer **out, const char *dir,
                              mx_error *err);
void checkpoint_tokenizer_free(checkpoint_tokenizer *t);

/* The number of tokens (the largest id + 1), and whether they come from
 * tokenizer.json (else vocab.json), for messages. */
size_t checkpoint_tokenizer_vocab_size(const checkpoint_tokenizer *t);
bool checkpoint_tokenizer_from_json(const checkpoint_tokenizer *t);

/* As bpe_encode: text[0..len) into *ids (*n, the caller frees), stopping
 * once there are more than max. */
int checkpoint_tokenizer_encode(int32_t **ids, size_t *n,
                                const checkpoint_tokenizer *t, const char *text,
                                size_t len, size_t max, mx_error *err);

/* As checkpoint_tokenizer_encode without the special tokens the
 * post-processor adds around a text (Llama's <s>, BERT's [CLS] and
 * [SEP]): one word as TransformerLens's to_single_token tokenizes it
 * (prepend_bos=False). vocab.json and merges.txt add none. */
int checkpoint_tokenizer_encode_word(int32_t **ids, size_t *n,
                                     const checkpoint_tokenizer *t,
                                     const char *text, size_t len, size_t max,
                                     mx_error *err);

/* *n: the number of tokens of text[0..len) (the whole text, for the
 * message that refuses one too long for the model). */
int checkpoint_tokenizer_count(size_t *n, const checkpoint_tokenizer *t,
                               const char *text, size_t len, mx_error *err);

/* The tokenizer.json reader, or NULL when the folder's vocab.json and
 * merges.txt are read. */
struct hf_tokenizer;
const struct hf_tokenizer *
checkpoint_tokenizer_json(const checkpoint_tokenizer *t);
/* The raw bytes of token id (at most cap) into raw; returns their count
 * (generated text, --stop). */
size_t checkpoint_tokenizer_bytes(unsigned char *raw, size_t cap,
                                  const checkpoint_tokenizer *t, int32_t id);

/* As bpe_label: token id as a readable label into buf (size bytes). */
void checkpoint_tokenizer_label(char *buf, size_t size,
                                const checkpoint_tokenizer *t, int32_t id);

#endif
