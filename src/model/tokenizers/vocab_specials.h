/* vocab_specials.h: the special tokens of a folder read from vocab.json
 * and merges.txt (bpe.h), split out of a text before BPE as transformers'
 * GPT2Tokenizer splits them (PreTrainedTokenizer.tokenize: the trie of
 * its added tokens, leftmost first, longest there):
 *
 *   "Hello<|endoftext|>world" -> "Hello", <|endoftext|>, "world"
 *                             -> BPE's ids, 50256, BPE's ids
 *
 * The tokens are the family's own (GPT-2's "<|endoftext|>", the default
 * unk, bos and eos token) where vocab.json has it, and those the files
 * beside it name: tokenizer_config.json and special_tokens_map.json
 * (bos_token ... mask_token, additional_special_tokens,
 * added_tokens_decoder) and added_tokens.json. Each of these must be a
 * token of vocab.json, with the id vocab.json gives it; one that is not,
 * or that strips the spaces beside it (lstrip, rstrip, single_word), is
 * refused naming it, not cut differently.
 *
 * tokenizer_config.json's add_prefix_space and add_bos_token are
 * followed as GPT2Tokenizer follows them (tokenization_gpt2.py):
 * add_prefix_space puts " " in front of the text before anything else
 * (prepare_for_tokenization), add_bos_token puts the bos_token's id in
 * front of the ids of a text (build_inputs_with_special_tokens), not of
 * a word (--answer, --wrong: add_special_tokens=False). Absent or null,
 * each is false, as there.
 *
 * The program reads the files in vocab_specials_files.c; the core every
 * live page carries, whose folders hold no special_tokens_map.json nor
 * added_tokens.json (html/page/model_open.js), reads in
 * vocab_specials_page.c the family's own token and tokenizer_config.json
 * where it names no other (src/wasm/meson.build).
 */
#ifndef MHA_VOCAB_SPECIALS_H
#define MHA_VOCAB_SPECIALS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/error.h"
#include "io/json.h"
#include "model/tokenizers/bpe.h"
#include "model/tokenizers/checkpoint_tokenizer.h"

typedef struct vocab_specials vocab_specials;

/* Reads the special tokens of the folder dir, whose vocabulary b is,
 * from the files `files` names; on failure *out is NULL
 * (vocab_specials_files.c, vocab_specials_page.c). */
int vocab_specials_read(vocab_specials **out, const bpe *b, const char *dir,
                        const tokenizer_files *files, mx_error *err);
void vocab_specials_free(vocab_specials *s);

/* As bpe_encode, the special tokens s (NULL: none) split out first; with
 * add_special, the bos token in front where add_bos_token says so. */
int vocab_specials_encode(int32_t **ids, size_t *n, const vocab_specials *s,
                          const bpe *b, const char *text, size_t len,
                          bool add_special, size_t max, mx_error *err);

/* The ids a text's encoding puts in front of its tokens (the bos token,
 * or none), s's. */
void vocab_specials_before(const int32_t **before, size_t *n,
                           const vocab_specials *s);

/* ---- for the readers -------------------------------------------------- */

/* An empty set (NULL: no memory). */
vocab_specials *vocab_specials_new(void);

/* Adds token s[0..n) with id, once; -1: no memory. */
int vocab_specials_add(vocab_specials *v, const char *s, size_t n, int32_t id);

/* Puts id (the bos token's) in front of the ids of every text. */
void vocab_specials_set_bos(vocab_specials *v, int32_t id);

/* tokenizer_config.json (doc, read from path): its add_prefix_space into
 * v, its add_bos_token into *add_bos (the reader then finds the bos
 * token's id); each true, false, null or absent (false). */
int vocab_specials_flags(bool *add_bos, vocab_specials *v, const json_doc *doc,
                         const char *path, mx_error *err);

#endif
