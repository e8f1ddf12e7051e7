/* tok_regex.h: the patterns of tokenizer.json (a Split pre-tokenizer's
 * or a Replace normaliser's "Regex"), matched as the reference,
 * @huggingface/tokenizers, matches them: it rewrites the Rust library's
 * Oniguruma pattern into a JavaScript RegExp with the flags "gu".
 *
 * PCRE2 does the matching: the patterns are read from the file (Qwen2's,
 * Llama 3's, SmolLM's, GPT-4o's differ), and a hand-written matcher over
 * utf8proc's categories, as model/tokenizers/bpe.c has for GPT-2's one fixed
 * pattern, would have to be a regex engine itself. Before compiling, the
 * pattern is rewritten where PCRE2's Unicode mode and the reference differ:
 *   \s, \S   the set given (Unicode's White_Space for a Split pattern,
 *            JavaScript's own \s for ByteLevel's built-in GPT-2 pattern);
 *   (?i:...) ASCII letters only ([sS]), as the reference folds them:
 *            PCRE2 would also match U+017F for s and U+212A for k.
 * Other escapes are PCRE2's (\p{L}, \p{N}, \x{...} mean the same).
 */
#ifndef MHA_TOK_REGEX_H
#define MHA_TOK_REGEX_H

#include <stddef.h>

#include "base/error.h"

typedef struct tok_regex tok_regex;

/* Which \s the pattern means. */
enum tok_space { TOK_SPACE_UNICODE, TOK_SPACE_JS };

/* Compiles pattern[0..n); on failure *out is NULL and err names `what`. */
int tok_regex_compile(tok_regex **out, const char *pattern, size_t n,
                      enum tok_space space, const char *what, mx_error *err);
/* A string matched literally (a "String" pattern). */
int tok_regex_literal(tok_regex **out, const char *s, size_t n,
                      const char *what, mx_error *err);
void tok_regex_free(tok_regex *r);

/* The matches of r in text[0..n) (valid UTF-8), left to right as
 * String.prototype.matchAll finds them: after an empty match the search
 * goes on one character further. Each match [start, end) is handed to
 * each(ctx, start, end); a nonzero return stops and is returned. -1 with
 * err set if the matcher fails (its limits). */
int tok_regex_each(const tok_regex *r, const char *text, size_t n,
                   int (*each)(void *ctx, size_t start, size_t end), void *ctx,
                   mx_error *err);

#endif
