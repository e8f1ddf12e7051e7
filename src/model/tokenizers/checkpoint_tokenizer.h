/* checkpoint_tokenizer.h: a checkpoint folder's tokenizer, whichever
 * family the folder holds, from the files its family's row names
 * (tokenizer_files): a vocabulary and merges (bpe.h) where the family has
 * them and the folder holds them (GPT-2's vocab.json and merges.txt),
 * else its tokenizer.json (model/tokenizers/hf_tokenizer.h: GPT-2's
 * byte-level BPE, BERT's WordPiece, the Llama style's BPE). For the same
 * vocabulary and merges both give the same ids and the same labels.
 */
#ifndef MHA_CHECKPOINT_TOKENIZER_H
#define MHA_CHECKPOINT_TOKENIZER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/error.h"

typedef struct checkpoint_tokenizer checkpoint_tokenizer;

/* Which files of a checkpoint folder hold its tokenizer, as its family's
 * row names them (model/family.h: the one place that says which they
 * are; messages name them from it). */
typedef struct {
    /* BPE's vocabulary and merges (bpe.h: GPT-2's vocab.json and
     * merges.txt), read where the folder has either; NULL: the family has
     * none, its tokenizer is json's alone */
    const char *vocab, *merges;
    /* a Hugging Face tokenizer.json (hf_tokenizer.h), read where the
     * folder has neither of those (always, without them; a folder
     * without it is then refused naming it), with json_config beside it
     * (tokenizer_config.json; NULL: none) where the folder has that */
    const char *json, *json_config;
    /* With vocab and merges (vocab_specials.h): the vocabulary's own
     * special token (GPT2Tokenizer's default unk, bos and eos token),
     * split out of a text before BPE where vocab has it, and the files
     * beside vocab naming more (with json_config); NULL: none */
    const char *special, *special_map, *added;
} tokenizer_files;

/* Opens the tokenizer of the folder dir from the files `files` names; on
 * failure *out is NULL. */
int checkpoint_tokenizer_open(checkpoint_tokenizer **out, const char *dir,
                              const tokenizer_files *files, mx_error *err);
void checkpoint_tokenizer_free(checkpoint_tokenizer *t);

/* -1 with err set when t has more tokens than vocab, the model's
 * vocab_size, naming the folder dir and the file the tokens come from;
 * 0 otherwise. */
int checkpoint_tokenizer_fits(const checkpoint_tokenizer *t, size_t vocab,
                              const char *dir, mx_error *err);

/* The name of the file t's tokens come from (files' vocab or json), and
 * the files it was opened from, for messages. */
const char *checkpoint_tokenizer_file(const checkpoint_tokenizer *t);
const tokenizer_files *
checkpoint_tokenizer_files(const checkpoint_tokenizer *t);

/* The number of tokens (the largest id + 1). */
size_t checkpoint_tokenizer_vocab_size(const checkpoint_tokenizer *t);

/* As bpe_encode (vocab_specials_encode: the special tokens split out
 * first): text[0..len) into *ids (*n, the caller frees), stopping once
 * there are more than max. */
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

/* The ids the tokenizer puts in front of a text's tokens and behind them
 * (tokenizer.json's post-processor; vocab.json's bos token with
 * add_bos_token), t's. */
void checkpoint_tokenizer_specials(const int32_t **before, size_t *n_before,
                                   const int32_t **after, size_t *n_after,
                                   const checkpoint_tokenizer *t);

/* *n: the number of tokens of text[0..len) (the whole text, for the
 * message that refuses one too long for the model). */
int checkpoint_tokenizer_count(size_t *n, const checkpoint_tokenizer *t,
                               const char *text, size_t len, mx_error *err);

/* The tokenizer.json reader, or NULL when the folder's vocabulary and
 * merges are read (bpe.h). */
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
