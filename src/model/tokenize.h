/* tokenize.h: a sentence -> tokens, vocabulary and ids.
 *
 * Words are split on whitespace the way Python's str.split() splits
 * (Unicode spaces such as U+3000 included), so the tokens are the ones a
 * notebook's `sentence.split()` gives. The vocabulary is the distinct
 * words in first-seen order; a repeated word keeps its first id.
 *
 * For text written without spaces (Chinese, Japanese) the sentence can
 * instead be cut into user-perceived characters: every grapheme cluster
 * (Unicode UAX #29, so an emoji with its modifiers or a letter with its
 * combining accents stays whole) is one token, whitespace is skipped.
 */
#ifndef MHA_TOKENIZE_H
#define MHA_TOKENIZE_H

#include <stdbool.h>
#include <stddef.h>

#include "base/error.h"
#include "base/limits.h"
#include "base/text.h"

/* How a sentence becomes tokens (--tokens). */
enum token_mode {
    TOKENS_WORDS, /* split on whitespace, like str.split() */
    TOKENS_CHARS, /* one token per grapheme cluster, whitespace skipped */
};

/* What --punct does with the punctuation (Unicode categories P*) at the
 * start and the end of a word; inside a word ("guarda-chuva", "3.5",
 * "d'água") it stays. */
enum punct_mode {
    PUNCT_KEEP,  /* part of the word, as str.split() leaves it */
    PUNCT_SPLIT, /* each mark a token of its own: "peixe." -> "peixe" "." */
    PUNCT_DROP,  /* left out: "peixe." -> "peixe"; "--" -> nothing */
};

/* How words are made from a sentence's whitespace-split pieces: the
 * default ({0}) keeps the pieces as they are. */
typedef struct {
    bool lower; /* --lower: each letter lower-cased (utf8proc_tolower,
                   Unicode's simple case mapping) */
    enum punct_mode punct;
} token_rules;

typedef struct {
    size_t n_tokens; /* T */
    char **tokens;   /* T words, each a NUL-terminated UTF-8 string */
    size_t *ids;     /* T vocabulary ids */
    size_t n_vocab;  /* V */
    char **vocab;    /* V words in first-seen order */
} tokenized;

/* Splits text[0..len) into tokens. The text must be valid UTF-8 with no
 * NUL byte and hold at least one word. On success *out owns everything;
 * release it with tokenized_free. On failure *out is left empty. */
int tokenize(tokenized *out, const char *text, size_t len, mx_error *err);

/* The same, cutting the text as mode says. */
int tokenize_as(tokenized *out, const char *text, size_t len,
                enum token_mode mode, mx_error *err);

/* The same, then rules (NULL: none) applied to each piece: lower-cased
 * first, then its punctuation at both ends split off or dropped. A
 * sentence left with no token is an error. */
int tokenize_with(tokenized *out, const char *text, size_t len,
                  enum token_mode mode, const token_rules *rules,
                  mx_error *err);

/* Builds a tokenized from words that are already split (the row labels of
 * an embeddings file, say): vocabulary and ids as for a sentence. */
int tokenize_words(tokenized *out, const char *const *words, size_t n,
                   mx_error *err);

void tokenized_free(tokenized *t);

/* The position --focus names among tokens[0..n): "WORD", which must occur
 * once, or "WORD@POSITION" (positions count from 0). */
int find_token(size_t *position, const char *spec, const char *const *tokens,
               size_t n, mx_error *err);

#endif
