/* tok_model.h: tokenizer.json's "model": a piece into ids, as the
 * reference (@huggingface/tokenizers) encodes it.
 *
 *   BPE        the piece's characters merged pair by pair, the pair of
 *              lowest rank in "merges" first (the leftmost of equals);
 *              with ignore_merges a piece in the vocabulary is one id;
 *              a symbol outside the vocabulary becomes its UTF-8 bytes
 *              as <0xAB> tokens (byte_fallback), or unk_token (several
 *              in a row one unk_token with fuse_unk), or nothing
 *   WordPiece  the longest prefix in the vocabulary, then the longest
 *              "##"-prefixed continuation, and so on; a word with a part
 *              that is no token, or longer than max_input_chars_per_word
 *              characters, is unk_token
 *
 * The vocabulary the model looks pieces up in holds the added tokens too,
 * as the reference's does.
 */
#ifndef MHA_TOK_MODEL_H
#define MHA_TOK_MODEL_H

#include <stddef.h>
#include <stdint.h>

#include "base/error.h"
#include "io/json.h"
#include "model/tokenizers/tok_text.h"

typedef struct tok_model tok_model;

/* Reads the "model" node; vocab (token -> id, added tokens included) is
 * the caller's and must outlive the model. unk (or -1) is unk_token's
 * id. */
int tok_model_read(tok_model **out, const json_doc *doc, const json_node *node,
                   const tok_map *vocab, const char *what, mx_error *err);
void tok_model_free(tok_model *m);

/* The model's own vocabulary node ("vocab"), for the caller to read into
 * its map first. */
const json_node *tok_model_vocab_node(const json_doc *doc,
                                      const json_node *node);

/* The name of the unk_token, or NULL. */
const char *tok_model_unk_name(const json_doc *doc, const json_node *node);

/* One piece's ids appended to *ids (*n of *cap). */
int tok_model_encode(int32_t **ids, size_t *n, size_t *cap, const tok_model *m,
                     const char *piece, size_t len, mx_error *err);

/* fuse_unk over the ids of one stretch, ids[start..n): an unk_token
 * right after another dropped. The new n. */
size_t tok_model_fuse_unk(const tok_model *m, int32_t *ids, size_t start,
                          size_t n);

#endif
