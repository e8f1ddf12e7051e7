/* tok_regex.c: tokenizer.json's patterns through PCRE2 (tok_regex.h). */
#define PCRE2_CODE_UNIT_WIDTH 8
#include "model/tokenizers/tok_regex.h"

#include <pcre2.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "base/i18n.h"
#include "model/tokenizers/tok_regex_rewrite.h"
#include "model/tokenizers/tok_text.h"

struct tok_regex {
    pcre2_code *code;
    pcre2_match_data *match;
    char *what;    /* the file, for a match that fails */
    char *pattern; /* as the file writes it, at most 80 bytes */
};

/* r named by the file (what) and pattern (n bytes) its failures show. */
static int named(tok_regex *r, const char *pattern, size_t n, const char *what,
                 mx_error *err)
{
    r->what = strdup(what);
    r->pattern = strndup(pattern, n > 80 ? 80 : n);
    if (r->what == NULL || r->pattern == NULL) {
        tok_regex_free(r);
        return err_nomem(err, what);
    }
    return 0;
}

static int compile(tok_regex **out, const char *pattern, size_t n,
                   uint32_t options, const char *what, mx_error *err)
{
    tok_regex *r = calloc(1, sizeof *r);
    if (r == NULL)
        return err_nomem(err, what);
    int code;
    PCRE2_SIZE at;
    r->code = pcre2_compile((PCRE2_SPTR)pattern, n, options | PCRE2_UTF, &code,
                            &at, NULL);
    if (r->code == NULL) {
        PCRE2_UCHAR msg[120];
        pcre2_get_error_message(code, msg, sizeof msg);
        free(r);
        return err_input(err, _("%s: the pattern %.*s: %s (at %zu)"), what,
                         (int)(n > 80 ? 80 : n), pattern, (const char *)msg,
                         (size_t)at);
    }
    r->match = pcre2_match_data_create_from_pattern(r->code, NULL);
    if (r->match == NULL) {
        tok_regex_free(r);
        return err_nomem(err, what);
    }
    if (named(r, pattern, n, what, err) != 0)
        return -1;
    *out = r;
    return 0;
}

int tok_regex_compile(tok_regex **out, const char *pattern, size_t n,
                      enum tok_space space, const char *what, mx_error *err)
{
    *out = NULL;
    tok_buf b = {0};
    const int rc = tok_regex_rewrite(&b, pattern, n, space);
    if (rc != 0) {
        tok_buf_free(&b);
        return rc == -1 ? err_nomem(err, what)
                        : err_input(err, _("%s: %s \"%s\" is not supported"),
                                    what, "pattern", pattern);
    }
    int c = compile(out, b.s, b.n, PCRE2_UCP, what, err);
    tok_buf_free(&b);
    if (c == 0) {
        // the pattern as the file writes it, not as rewritten for PCRE2
        char *shown = strndup(pattern, n > 80 ? 80 : n);
        if (shown == NULL) {
            tok_regex_free(*out);
            *out = NULL;
            return err_nomem(err, what);
        }
        free((*out)->pattern);
        (*out)->pattern = shown;
    }
    return c;
}

int tok_regex_literal(tok_regex **out, const char *s, size_t n,
                      const char *what, mx_error *err)
{
    *out = NULL;
    if (n == 0)
        return err_input(err, _("%s: %s \"%s\" is not supported"), what,
                         "String", "");
    return compile(out, s, n, PCRE2_LITERAL, what, err);
}

void tok_regex_free(tok_regex *r)
{
    if (r == NULL)
        return;
    pcre2_match_data_free(r->match);
    pcre2_code_free(r->code);
    free(r->what);
    free(r->pattern);
    free(r);
}

int tok_regex_each(const tok_regex *r, const char *text, size_t n,
                   int (*each)(void *ctx, size_t start, size_t end), void *ctx,
                   mx_error *err)
{
    size_t pos = 0;
    while (pos <= n) {
        const int m = pcre2_match(r->code, (PCRE2_SPTR)text, n, pos,
                                  PCRE2_NO_UTF_CHECK, r->match, NULL);
        if (m == PCRE2_ERROR_NOMATCH)
            return 0;
        if (m < 0) {
            PCRE2_UCHAR msg[120];
            pcre2_get_error_message(m, msg, sizeof msg);
            /* TRANSLATORS: the file, its pattern, and PCRE2's reason
             * ("match limit exceeded") */
            return err_input(err,
                             _("%s: the pattern %s failed on this text: %s"),
                             r->what, r->pattern, (const char *)msg);
        }
        const PCRE2_SIZE *ov = pcre2_get_ovector_pointer(r->match);
        const size_t s = ov[0], e = ov[1];
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
