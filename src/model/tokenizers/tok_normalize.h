/* tok_normalize.h: tokenizer.json's "normalizer", as the reference
 * (@huggingface/tokenizers) applies it to each stretch of text between
 * added tokens.
 *
 *   NFC, NFD, NFKC, NFKD   Unicode normal forms (utf8proc)
 *   Lowercase              String.prototype.toLowerCase
 *   StripAccents           every mark (\p{M}) removed
 *   Strip                  white space off the left and/or right
 *   Prepend                a string put in front ("▁" for Llama 2)
 *   Replace                a String or Regex pattern's matches replaced
 *   BertNormalizer         clean_text (controls out, white space as " "),
 *                          handle_chinese_chars (" " around each CJK
 *                          ideograph), lowercase, strip_accents (NFD,
 *                          then nonspacing marks out; by default when
 *                          lowercase is on)
 *   Sequence               the above in order
 */
#ifndef MHA_TOK_NORMALIZE_H
#define MHA_TOK_NORMALIZE_H

#include <stdbool.h>
#include <stddef.h>

#include "base/error.h"
#include "io/json.h"
#include "model/tokenizers/tok_text.h"

typedef struct tok_norms tok_norms; /* the steps, read */

/* Reads the "normalizer" node (NULL or JSON null: none; *out is then
 * NULL too). `what` names the file in errors. */
int tok_norms_read(tok_norms **out, const json_doc *doc, const json_node *node,
                   const char *what, mx_error *err);
void tok_norms_free(tok_norms *n);

/* transformers' BertTokenizerFast over a BertNormalizer step (no other
 * step is touched): its lowercase becomes lower, its strip_accents
 * accents (-1: null, which follows lowercase) and its
 * handle_chinese_chars chinese, as the tokenizer's do_lower_case,
 * strip_accents and tokenize_chinese_chars rebuild the normaliser (all
 * three, when any of them differs from the normaliser's). */
void tok_norms_bert_case(tok_norms *n, bool lower, int accents, bool chinese);

/* text[0..len) normalised into *out (reset first). */
int tok_norms_apply(tok_buf *out, const tok_norms *n, const char *text,
                    size_t len, mx_error *err);

/* String.prototype.toLowerCase of text[0..len), appended to out. */
int tok_lowercase(tok_buf *out, const char *text, size_t len);

#endif
