/* hf_parts.h: what a read tokenizer.json holds, shared by its reader
 * (hf_tokenizer.c) and its encoder (hf_encode.c); no one else includes
 * it. */
#ifndef MHA_HF_PARTS_H
#define MHA_HF_PARTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/tokenizers/hf_tokenizer.h"
#include "model/tokenizers/tok_model.h"
#include "model/tokenizers/tok_normalize.h"
#include "model/tokenizers/tok_pretok.h"
#include "model/tokenizers/tok_text.h"

/* An added token ("added_tokens"). */
typedef struct {
    char *content; /* owned */
    size_t len;
    int32_t id;
    bool lstrip, rstrip;
    bool raw;     /* matched before normalising */
    bool special; /* "special": true ([CLS], [SEP], [PAD], ...) */
} hf_added;

#define HF_MAX_SPECIAL 16

struct hf_tokenizer {
    tok_map vocab;       /* token -> id, the added tokens included */
    tok_map added_map;   /* an added token's content (and its normalised
                              content) -> id */
    const char **pieces; /* id -> token (the maps' keys), n_ids; NULL
                              for an id no token has */
    size_t *piece_len;
    size_t n_ids;
    hf_added *added; /* n_added; owned */
    size_t n_added;
    tok_norms *norms;     /* or NULL */
    tok_pretoks *pretoks; /* or NULL */
    tok_model *model;
    bool byte_level;
    /* the post-processor's special tokens, before and after the text */
    int32_t before[HF_MAX_SPECIAL], after[HF_MAX_SPECIAL];
    size_t n_before, n_after;
};

#endif
