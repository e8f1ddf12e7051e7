/* tok_regex_rewrite.h: a tokenizer.json pattern rewritten where the
 * matcher's Unicode mode and the reference's differ (tok_regex.h): \s and
 * \S as the set given, (?i:...) on ASCII letters only. The program's
 * matcher (PCRE2, tok_regex.c) and the page's (the browser's RegExp,
 * tok_regex_page.c) compile the same rewritten text; code points are
 * written \x{...}. */
#ifndef MHA_TOK_REGEX_REWRITE_H
#define MHA_TOK_REGEX_REWRITE_H

#include <stddef.h>

#include "model/tokenizers/tok_regex.h"
#include "model/tokenizers/tok_text.h"

/* pattern[0..n) rewritten into out (NUL-ended); -1 no memory, -2 a
 * construct the rewriting does not handle. */
int tok_regex_rewrite(tok_buf *out, const char *pattern, size_t n,
                      enum tok_space space);

#endif
