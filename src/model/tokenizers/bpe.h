/* bpe.h: GPT-2's tokenizer, byte-level BPE, as openai/gpt-2's encoder.py
 * (and the npm package gpt-3-encoder) computes it.
 *
 *   text -> pieces by the pre-tokenizer pattern
 *           's|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+
 *           |\s+(?!\S)|\s+
 *        -> each piece's bytes as printable characters (bytes_to_unicode)
 *        -> merges applied by rank, lowest first, until none applies
 *        -> ids from vocab.json
 *
 * The pattern is matched by hand over utf8proc's categories (\p{L}: L*,
 * \p{N}: N*) and JavaScript's \s, the set the reference encoder uses. The
 * text is taken exactly as given, spaces included.
 */
#ifndef MHA_BPE_H
#define MHA_BPE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/error.h"

typedef struct bpe bpe; /* vocab.json and merges.txt, read */

/* Reads vocab.json (token -> id) and merges.txt (a "#version" line, then
 * one "first second" pair a line, by rank). On failure *out is NULL. */
int bpe_open(bpe **out, const char *vocab_path, const char *merges_path,
             mx_error *err);
void bpe_free(bpe *b);

/* The number of tokens in the vocabulary (the largest id + 1). */
size_t bpe_vocab_size(const bpe *b);

/* Whether vocab.json has the token s[0..n) as it is written there; *id
 * gets its id. */
bool bpe_token_id(const bpe *b, const char *s, size_t n, int32_t *id);

/* Encodes text[0..len) (valid UTF-8) into *ids (*n of them, allocated
 * here; the caller frees). Stops as soon as there are more than max ids:
 * *n > max then tells that the text is longer, not its length. */
int bpe_encode(int32_t **ids, size_t *n, const bpe *b, const char *text,
               size_t len, size_t max, mx_error *err);

/* The raw bytes of token id (at most cap) into raw; returns their count
 * (0 for an id without a piece). */
size_t bpe_bytes(unsigned char *raw, size_t cap, const bpe *b, int32_t id);

/* Token id's piece as a readable label into buf (size bytes): its bytes
 * as UTF-8 text, a leading space shown as U+2423 (␣), a newline as \n, a
 * tab as \t, other control bytes and bytes that are not whole UTF-8
 * characters as hex groups such as <e7 89>. An id outside the vocabulary
 * gives "<id N>". */
void bpe_label(char *buf, size_t size, const bpe *b, int32_t id);

/* The same label for a piece's raw bytes raw[0..n). */
void bpe_label_bytes(char *buf, size_t size, const unsigned char *raw,
                     size_t n);

#endif
