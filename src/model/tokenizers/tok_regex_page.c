/* tok_regex_page.c: model/tokenizers/tok_regex.h for the page's families
 * core (src/wasm/meson.build names it in tok_regex.c's place). tokenizer.json's patterns are matched by the
 * browser's RegExp with the flags "gu" (the page's import regex_find,
 * src/html/page/core_imports.js), which is how the reference,
 * @huggingface/tokenizers, matches them; PCRE2, the program's matcher, is
 * not in the core. The pattern is first rewritten as the program rewrites
 * it for PCRE2 (tok_regex_rewrite.c: \s as a set, (?i:...) on ASCII
 * letters), so both engines read the same text; the walk over the
 * matches is tok_regex.c's. Where the two engines' Unicode tables differ
 * (a character newer than one of them), the page may cut a text where
 * the program does not (docs/html.md). */
#include "model/tokenizers/tok_regex.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/i18n.h"
#include "model/tokenizers/tok_regex_rewrite.h"
#include "model/tokenizers/tok_text.h"
#include "base/page/page_link.h"

struct tok_regex {
    tok_buf pattern; /* as rewritten, or the literal string */
    int literal;     /* 1: pattern is matched as it is written */
};

/* The first match of pattern (plen bytes; literal 1: a plain string) in
 * text[0..n) at or after byte from: 1 and match[0], match[1] its start
 * and end bytes; 0 none; -1 the browser cannot compile the pattern. */
IMPORT(regex_find)
int page_regex_find(const char *pattern, size_t plen, int literal,
                    const char *text, size_t n, size_t from, uint32_t *match);

static int made(tok_regex **out, tok_regex *r, const char *what, mx_error *err)
{
    uint32_t match[2];
    if (page_regex_find(r->pattern.s, r->pattern.n, r->literal, "", 0, 0,
                        match) < 0) {
        const int rc = err_input(err, _("%s: %s \"%s\" is not supported"), what,
                                 "pattern", r->pattern.s);
        tok_regex_free(r);
        return rc;
    }
    *out = r;
    return 0;
}

int tok_regex_compile(tok_regex **out, const char *pattern, size_t n,
                      enum tok_space space, const char *what, mx_error *err)
{
    *out = NULL;
    tok_regex *r = calloc(1, sizeof *r);
    if (r == NULL)
        return err_nomem(err, what);
    const int rc = tok_regex_rewrite(&r->pattern, pattern, n, space);
    if (rc != 0) {
        tok_regex_free(r);
        return rc == -1 ? err_nomem(err, what)
                        : err_input(err, _("%s: %s \"%s\" is not supported"),
                                    what, "pattern", pattern);
    }
    return made(out, r, what, err);
}

int tok_regex_literal(tok_regex **out, const char *s, size_t n,
                      const char *what, mx_error *err)
{
    *out = NULL;
    if (n == 0)
        return err_input(err, _("%s: %s \"%s\" is not supported"), what,
                         "String", "");
    tok_regex *r = calloc(1, sizeof *r);
    if (r == NULL || tok_buf_add(&r->pattern, s, n) != 0) {
        tok_regex_free(r);
        return err_nomem(err, what);
    }
    r->literal = 1;
    return made(out, r, what, err);
}

void tok_regex_free(tok_regex *r)
{
    if (r == NULL)
        return;
    tok_buf_free(&r->pattern);
    free(r);
}

int tok_regex_each(const tok_regex *r, const char *text, size_t n,
                   int (*each)(void *ctx, size_t start, size_t end), void *ctx,
                   mx_error *err)
{
    size_t pos = 0;
    while (pos <= n) {
        uint32_t m[2];
        const int found = page_regex_find(r->pattern.s, r->pattern.n,
                                          r->literal, text, n, pos, m);
        if (found == 0)
            return 0;
        if (found < 0 || m[0] < pos || m[1] < m[0] || m[1] > n)
            return err_input(err, _("the tokenizer's pattern failed: %s"),
                             r->pattern.s);
        const size_t s = m[0], e = m[1];
        const int rc = each(ctx, s, e);
        if (rc != 0)
            return rc;
        if (e > s) {
            pos = e;
        } else {
            int32_t c;
            const size_t k = tok_utf8_next(text + e, n - e, &c);
            if (k == 0)
                return 0;
            pos = e + k;
        }
    }
    return 0;
}
