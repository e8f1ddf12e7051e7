/* tok_pretok.h: tokenizer.json's "pre_tokenizer": a stretch of
 * normalised text cut into the pieces the model encodes one by one, as
 * the reference (@huggingface/tokenizers) cuts it.
 *
 *   Split              a String or Regex pattern's matches (tok_regex.h)
 *                      as pieces of their own with the text between them
 *                      ("Isolated"), or dropped ("Removed"); "invert":
 *                      the matches alone
 *   ByteLevel          (" " in front with add_prefix_space; GPT-2's
 *                      pattern with use_regex), then each byte as its
 *                      printable character (bytes_to_unicode)
 *   Metaspace          " " as the replacement ("▁"), which is put in
 *                      front as prepend_scheme says ("always", "first":
 *                      the text's first stretch only, "never")
 *   BertPreTokenizer   white space dropped, each punctuation character a
 *                      piece (\p{P} and ASCII's symbols)
 *   Whitespace         \w+ and [^\w\s]+ (ASCII \w)
 *   WhitespaceSplit    runs of non-space
 *   Digits             runs of ASCII digits apart (one by one with
 *                      individual_digits)
 *   Punctuation        runs of punctuation apart
 *   Sequence           the above in order, each on every piece
 */
#ifndef MHA_TOK_PRETOK_H
#define MHA_TOK_PRETOK_H

#include <stdbool.h>
#include <stddef.h>

#include "base/error.h"
#include "io/json.h"
#include "model/tokenizers/tok_text.h"

typedef struct tok_pretoks tok_pretoks;

/* Reads the "pre_tokenizer" node (NULL or null: none; *out is NULL). */
int tok_pretoks_read(tok_pretoks **out, const json_doc *doc,
                     const json_node *node, const char *what, mx_error *err);
void tok_pretoks_free(tok_pretoks *p);

/* text[0..n) cut into pieces appended to out; section is the index of the
 * stretch in the text (Metaspace's "first"). With no pre-tokenizer the
 * text is one piece. */
int tok_pretoks_apply(tok_list *out, const tok_pretoks *p, const char *text,
                      size_t n, size_t section, mx_error *err);

/* Whether one of the steps is ByteLevel (NULL: none is). */
bool tok_pretoks_byte_level(const tok_pretoks *p);

/* The add_prefix_space of the first ByteLevel step (0 or 1); -1 where
 * there is none. */
int tok_pretoks_prefix_space(const tok_pretoks *p);

#endif
