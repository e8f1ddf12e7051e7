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
 */
#ifndef MHA_VOCAB_SPECIALS_H
#define MHA_VOCAB_SPECIALS_H

#include <stddef.h>
#include <stdint.h>

#include "base/error.h"
#include "model/tokenizers/bpe.h"
#include "model/tokenizers/checkpoint_tokenizer.h"

typedef struct vocab_specials vocab_specials;

/* Reads the special tokens of the folder dir, whose vocabulary b is,
 * from the files `files` names; on failure *out is NULL. */
int vocab_specials_read(vocab_specials **out, const bpe *b, const char *dir,
                        const tokenizer_files *files, mx_error *err);
void vocab_specials_free(vocab_specials *s);

/* As bpe_encode, the special tokens s (NULL: none) split out first. */
int vocab_specials_encode(int32_t **ids, size_t *n, const vocab_specials *s,
                          const bpe *b, const char *text, size_t len,
                          size_t max, mx_error *err);

#endif
