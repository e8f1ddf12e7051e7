/* hf_tokenizer.h: a Hugging Face tokenizer.json, read and applied as the
 * npm package @huggingface/tokenizers applies it (Tokenizer.encode):
 *
 *   text -> stretches between the added tokens that are matched as they
 *           are ("normalized": false, or every one without a normaliser),
 *           the leftmost first, the longest there; lstrip/rstrip trim the
 *           white space beside them
 *        -> each other stretch normalised (tok_normalize.h), then cut
 *           again at the added tokens matched after normalising
 *        -> each remaining stretch cut by the pre-tokenizer (tok_pretok.h)
 *        -> each piece into ids by the model, BPE or WordPiece
 *           (tok_model.h)
 *        -> the post-processor's special tokens around them
 *           (TemplateProcessing, BertProcessing, RobertaProcessing,
 *           ByteLevel, Sequence), when add_special is set
 *
 * What the file asks for and this reader does not do (a Unigram model, a
 * Precompiled normaliser, ...) is refused with an error naming it. The
 * file is read whole; every allocation is bounded by its size.
 */
#ifndef MHA_HF_TOKENIZER_H
#define MHA_HF_TOKENIZER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/error.h"

typedef struct hf_tokenizer hf_tokenizer;

/* Reads the file at path; on failure *out is NULL. */
int hf_tokenizer_open(hf_tokenizer **out, const char *path, mx_error *err);

/* Reads the file at path, then tokenizer_config.json at config (NULL:
 * none) as transformers' BertTokenizerFast reads it: over a
 * BertNormalizer, "do_lower_case" (true when absent) sets lowercase and
 * "strip_accents" (null when absent: it follows lowercase) sets
 * strip_accents; other normalisers are left as they are. A config that
 * is not a JSON object, or either key of another type, is refused. */
int hf_tokenizer_open_config(hf_tokenizer **out, const char *path,
                             const char *config, mx_error *err);

/* Reads tokenizer.json's text[0..len); `what` names it in errors. */
int hf_tokenizer_read(hf_tokenizer **out, const char *text, size_t len,
                      const char *what, mx_error *err);
void hf_tokenizer_free(hf_tokenizer *t);

/* The largest id + 1, over the model's vocabulary and the added tokens. */
size_t hf_tokenizer_vocab_size(const hf_tokenizer *t);

/* Whether the pieces are byte-level (a ByteLevel pre-tokenizer): each
 * byte written as its bytes_to_unicode character. */
bool hf_tokenizer_byte_level(const hf_tokenizer *t);

/* Encodes text[0..len) (valid UTF-8) into *ids (*n of them, allocated
 * here; the caller frees), with the post-processor's special tokens if
 * add_special. Stops once there are more than max ids: *n > max then
 * tells that the text is longer, not its length. */
int hf_tokenizer_encode(int32_t **ids, size_t *n, const hf_tokenizer *t,
                        const char *text, size_t len, bool add_special,
                        size_t max, mx_error *err);

/* The post-processor's special tokens around one text: n_before ids in
 * front of it, n_after behind it ([CLS] and [SEP] for BERT). */
void hf_tokenizer_specials(const int32_t **before, size_t *n_before,
                           const int32_t **after, size_t *n_after,
                           const hf_tokenizer *t);

/* Whether id is an added token marked "special" ([CLS], [SEP], [PAD],
 * [UNK], [MASK] in BERT's file): the tokens transformers' all_special_ids
 * names, which a text's words never are. */
bool hf_tokenizer_special(const hf_tokenizer *t, int32_t id);

/* Token id's string (*len bytes), or NULL for an id no token has. */
const char *hf_tokenizer_piece(const hf_tokenizer *t, int32_t id, size_t *len);

#endif
