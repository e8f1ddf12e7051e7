/* tok_pretok.c: tokenizer.json's pre-tokenizers (tok_pretok.h). */
#include "model/tokenizers/tok_pretok.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <utf8proc.h>

#include "base/i18n.h"
#include "model/tokenizers/tok_regex.h"

enum pre_kind {
    PRE_SPLIT,
    PRE_BYTE_LEVEL,
    PRE_METASPACE,
    PRE_BERT,
    PRE_WHITESPACE,
    PRE_WHITESPACE_SPLIT,
    PRE_DIGITS,
    PRE_PUNCTUATION
};

enum prepend { PREPEND_ALWAYS, PREPEND_FIRST, PREPEND_NEVER };

typedef struct {
    enum pre_kind kind;
    tok_regex *re;        /* PRE_SPLIT, PRE_BYTE_LEVEL with use_regex */
    bool removed, invert; /* PRE_SPLIT */
    bool prefix_space;    /* PRE_BYTE_LEVEL */
    char *rep;            /* PRE_METASPACE: the replacement; owned */
    size_t rep_len;
    enum prepend prepend; /* PRE_METASPACE */
    bool individual;      /* PRE_DIGITS */
} pre_step;

#define MAX_PRE_STEPS 64

struct tok_pretoks {
    pre_step step[MAX_PRE_STEPS];
    size_t n;
    char enc[256][3];
};

/* GPT-2's pattern, which ByteLevel's use_regex applies (with JavaScript's
 * \s, as the reference's RegExp literal has it). */
static const char gpt2_pattern[] =
    "'s|'t|'re|'ve|'m|'ll|'d| ?\\p{L}+| ?\\p{N}+| ?[^\\s\\p{L}\\p{N}]+"
    "|\\s+(?!\\S)|\\s+";

/* ---- reading ------------------------------------------------------------- */

static const char *string_of(const json_doc *doc, const json_node *o,
                             const char *key)
{
    const json_node *v = json_get(doc, o, key);
    return v != NULL && v->type == JSON_STRING ? json_str(doc, v) : NULL;
}

static int read_split(pre_step *st, const json_doc *doc, const json_node *o,
                      const char *what, mx_error *err)
{
    const json_node *p = json_get(doc, o, "pattern");
    const json_node *s = p ? json_get(doc, p, "String") : NULL;
    const json_node *r = p ? json_get(doc, p, "Regex") : NULL;
    const char *behavior = string_of(doc, o, "behavior");
    st->invert = tok_json_flag(doc, o, "invert", false);
    // the reference treats every behaviour but Removed as Isolated, and
    // keeps a String pattern's matches even when Removed
    if (behavior == NULL ||
        (strcmp(behavior, "Isolated") != 0 && strcmp(behavior, "Removed") != 0))
        return err_input(err, _("%s: %s \"%s\" is not supported"), what,
                         "behavior", behavior ? behavior : "null");
    st->removed = strcmp(behavior, "Removed") == 0 && s == NULL;
    if (s != NULL && s->type == JSON_STRING)
        return tok_regex_literal(&st->re, json_str(doc, s), s->len, what, err);
    if (r != NULL && r->type == JSON_STRING)
        return tok_regex_compile(&st->re, json_str(doc, r), r->len,
                                 TOK_SPACE_UNICODE, what, err);
    return err_input(err, _("%s: %s has no \"%s\""), what, "pattern", "String");
}

static int read_metaspace(pre_step *st, const json_doc *doc, const json_node *o,
                          const char *what, mx_error *err)
{
    const char *rep = string_of(doc, o, "replacement");
    const char *scheme = string_of(doc, o, "prepend_scheme");
    if (rep == NULL)
        rep = "\u2581";
    if (tok_json_flag(doc, o, "split", false))
        return err_input(err, _("%s: %s \"%s\" is not supported"), what,
                         "Metaspace", "split");
    st->prepend = PREPEND_ALWAYS;
    if (scheme != NULL && strcmp(scheme, "first") == 0)
        st->prepend = PREPEND_FIRST;
    else if (scheme != NULL && strcmp(scheme, "never") == 0)
        st->prepend = PREPEND_NEVER;
    else if (scheme == NULL && !tok_json_flag(doc, o, "add_prefix_space", true))
        st->prepend = PREPEND_NEVER;
    st->rep_len = strlen(rep);
    st->rep = malloc(st->rep_len + 1);
    if (st->rep == NULL)
        return err_nomem(err, what);
    memcpy(st->rep, rep, st->rep_len + 1);
    return 0;
}

static int read_one(pre_step *st, const char *type, const json_doc *doc,
                    const json_node *o, const char *what, mx_error *err)
{
    static const struct {
        const char *name;
        enum pre_kind kind;
    } plain[] = {
        {"BertPreTokenizer", PRE_BERT},
        {"Whitespace", PRE_WHITESPACE},
        {"WhitespaceSplit", PRE_WHITESPACE_SPLIT},
        {"Punctuation", PRE_PUNCTUATION},
    };
    for (size_t i = 0; i < sizeof plain / sizeof plain[0]; i++)
        if (strcmp(type, plain[i].name) == 0) {
            st->kind = plain[i].kind;
            return 0;
        }
    if (strcmp(type, "Split") == 0) {
        st->kind = PRE_SPLIT;
        return read_split(st, doc, o, what, err);
    }
    if (strcmp(type, "Metaspace") == 0) {
        st->kind = PRE_METASPACE;
        return read_metaspace(st, doc, o, what, err);
    }
    if (strcmp(type, "Digits") == 0) {
        st->kind = PRE_DIGITS;
        st->individual = tok_json_flag(doc, o, "individual_digits", false);
        return 0;
    }
    if (strcmp(type, "ByteLevel") == 0) {
        st->kind = PRE_BYTE_LEVEL;
        st->prefix_space = tok_json_flag(doc, o, "add_prefix_space", false);
        if (!tok_json_flag(doc, o, "use_regex", true))
            return 0;
        return tok_regex_compile(&st->re, gpt2_pattern, sizeof gpt2_pattern - 1,
                                 TOK_SPACE_JS, what, err);
    }
    return err_input(err, _("%s: %s \"%s\" is not supported"), what,
                     "pre_tokenizer", type);
}

static int read_step(tok_pretoks *ps, const json_doc *doc, const json_node *o,
                     const char *what, mx_error *err)
{
    const char *type = string_of(doc, o, "type");
    if (type == NULL)
        return err_input(err, _("%s: %s has no \"%s\""), what, "pre_tokenizer",
                         "type");
    if (strcmp(type, "Sequence") == 0) {
        const json_node *list = json_get(doc, o, "pretokenizers");
        if (list == NULL || list->type != JSON_ARRAY)
            return err_input(err, _("%s: %s has no \"%s\""), what, "Sequence",
                             "pretokenizers");
        for (const json_node *m = json_first(doc, list); m;
             m = json_next(doc, m))
            if (read_step(ps, doc, m, what, err) != 0)
                return -1;
        return 0;
    }
    if (ps->n == MAX_PRE_STEPS)
        return err_input(err, _("%s: more than %d steps in the %s"), what,
                         MAX_PRE_STEPS, "pre_tokenizer");
    return read_one(&ps->step[ps->n++], type, doc, o, what, err);
}

int tok_pretoks_read(tok_pretoks **out, const json_doc *doc,
                     const json_node *node, const char *what, mx_error *err)
{
    *out = NULL;
    if (node == NULL || node->type == JSON_NULL)
        return 0;
    tok_pretoks *ps = calloc(1, sizeof *ps);
    if (ps == NULL)
        return err_nomem(err, what);
    tok_byte_chars(ps->enc);
    if (read_step(ps, doc, node, what, err) != 0) {
        tok_pretoks_free(ps);
        return -1;
    }
    *out = ps;
    return 0;
}

bool tok_pretoks_byte_level(const tok_pretoks *ps)
{
    for (size_t i = 0; ps != NULL && i < ps->n; i++)
        if (ps->step[i].kind == PRE_BYTE_LEVEL)
            return true;
    return false;
}

int tok_pretoks_prefix_space(const tok_pretoks *ps)
{
    for (size_t i = 0; ps != NULL && i < ps->n; i++)
        if (ps->step[i].kind == PRE_BYTE_LEVEL)
            return ps->step[i].prefix_space;
    return -1;
}

void tok_pretoks_free(tok_pretoks *ps)
{
    if (ps == NULL)
        return;
    for (size_t i = 0; i < ps->n; i++) {
        tok_regex_free(ps->step[i].re);
        free(ps->step[i].rep);
    }
    free(ps);
}

/* ---- applying -------------------------------------------------------------- */

/* Where a step's matches go. */
typedef struct {
    tok_list *out;
    const char *text;
    size_t at;
    const pre_step *st;
} cutting;

static int cut_at_match(void *ctx, size_t start, size_t end)
{
    cutting *c = ctx;
    if (c->st->invert) {
        if (end > start && tok_list_add(c->out, c->text + start, end - start))
            return -1;
        return 0;
    }
    if (start > c->at &&
        tok_list_add(c->out, c->text + c->at, start - c->at) != 0)
        return -1;
    if (!c->st->removed && end > start &&
        tok_list_add(c->out, c->text + start, end - start) != 0)
        return -1;
    c->at = end;
    return 0;
}

static int split(tok_list *out, const pre_step *st, const char *t, size_t n,
                 mx_error *err)
{
    cutting c = {out, t, 0, st};
    err->msg[0] = '\0';
    int rc = tok_regex_each(st->re, t, n, cut_at_match, &c, err);
    if (rc == 0 && !st->invert && c.at < n)
        rc = tok_list_add(out, t + c.at, n - c.at);
    return rc == 0 ? 0 : err->msg[0] ? -1 : err_nomem(err, _("tokens"));
}

/* The class of a code point for the hand-cut pre-tokenizers. */
enum cls { CLS_SPACE, CLS_PUNCT, CLS_WORD, CLS_OTHER };

static bool ascii_punct(int32_t c)
{
    return (c >= 0x21 && c <= 0x2f) || (c >= 0x3a && c <= 0x40) ||
           (c >= 0x5b && c <= 0x60) || (c >= 0x7b && c <= 0x7e);
}

static bool unicode_punct(int32_t c)
{
    const utf8proc_category_t k = utf8proc_category(c);
    return ascii_punct(c) ||
           (k >= UTF8PROC_CATEGORY_PC && k <= UTF8PROC_CATEGORY_PO);
}

static enum cls class_of(enum pre_kind kind, int32_t c)
{
    switch (kind) {
    case PRE_BERT:
        return tok_is_js_space(c) ? CLS_SPACE
               : unicode_punct(c) ? CLS_PUNCT
                                  : CLS_WORD;
    case PRE_WHITESPACE:
        return tok_is_js_space(c) ? CLS_SPACE
               : (c == '_' || (c >= '0' && c <= '9') ||
                  (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'))
                   ? CLS_WORD
                   : CLS_OTHER;
    case PRE_DIGITS:
        return c >= '0' && c <= '9' ? CLS_PUNCT : CLS_WORD;
    case PRE_PUNCTUATION:
        return unicode_punct(c) ? CLS_PUNCT : CLS_WORD;
    default:
        return tok_is_js_space(c) ? CLS_SPACE : CLS_WORD;
    }
}

/* Runs of one class; spaces dropped; a run of CLS_PUNCT cut into single
 * characters when `single` is set. */
static int runs(tok_list *out, enum pre_kind kind, bool single, const char *t,
                size_t n)
{
    size_t i = 0;
    while (i < n) {
        int32_t c;
        size_t k = tok_utf8_next(t + i, n - i, &c);
        if (k == 0)
            return tok_list_add(out, t + i, n - i);
        const enum cls first = class_of(kind, c);
        size_t j = i + k;
        while (!(single && first == CLS_PUNCT) && j < n) {
            k = tok_utf8_next(t + j, n - j, &c);
            if (k == 0 || class_of(kind, c) != first)
                break;
            j += k;
        }
        if (first != CLS_SPACE && tok_list_add(out, t + i, j - i) != 0)
            return -1;
        i = j;
    }
    return 0;
}

static int byte_level(tok_list *out, const tok_pretoks *ps, const pre_step *st,
                      const char *t, size_t n, mx_error *err)
{
    tok_buf text = {0};
    int rc = 0;
    if (st->prefix_space && (n == 0 || t[0] != ' '))
        rc = tok_buf_add(&text, " ", 1);
    rc = rc || tok_buf_add(&text, t, n);
    tok_list pieces = {0};
    if (rc == 0 && st->re != NULL) {
        const pre_step isolated = {
            .kind = PRE_SPLIT, .re = st->re, .invert = true};
        rc = split(&pieces, &isolated, text.s, text.n, err);
        if (rc != 0) {
            tok_buf_free(&text);
            return -1;
        }
    } else if (rc == 0) {
        rc = tok_list_add(&pieces, text.s, text.n);
    }
    tok_buf_free(&text);
    for (size_t i = 0; i < pieces.n && rc == 0; i++) {
        tok_buf b = {0};
        for (size_t j = 0; j < pieces.len[i] && rc == 0; j++) {
            const char *e = ps->enc[(unsigned char)pieces.s[i][j]];
            rc = tok_buf_add(&b, e, strlen(e));
        }
        rc = rc || tok_list_add(out, b.s ? b.s : "", b.n);
        tok_buf_free(&b);
    }
    tok_list_free(&pieces);
    return rc == 0 ? 0 : err_nomem(err, _("tokens"));
}

static int metaspace(tok_list *out, const pre_step *st, const char *t, size_t n,
                     size_t section)
{
    tok_buf b = {0};
    int rc = 0;
    for (size_t i = 0; i < n && rc == 0; i++)
        rc = t[i] == ' ' ? tok_buf_add(&b, st->rep, st->rep_len)
                         : tok_buf_add(&b, t + i, 1);
    const bool starts =
        b.n >= st->rep_len && memcmp(b.s, st->rep, st->rep_len) == 0;
    const bool prepend = st->prepend == PREPEND_ALWAYS ||
                         (st->prepend == PREPEND_FIRST && section == 0);
    if (rc == 0 && !starts && prepend) {
        tok_buf p = {0};
        rc = tok_buf_add(&p, st->rep, st->rep_len) || tok_buf_add(&p, b.s, b.n);
        tok_buf_free(&b);
        b = p;
    }
    rc = rc || tok_list_add(out, b.s ? b.s : "", b.n);
    tok_buf_free(&b);
    return rc;
}

/* BertPreTokenizer trims first (String.prototype.trim). */
static int bert(tok_list *out, const char *t, size_t n)
{
    return runs(out, PRE_BERT, true, t, n);
}

static int apply_step(tok_list *out, const tok_pretoks *ps, const pre_step *st,
                      const char *t, size_t n, size_t section, mx_error *err)
{
    int rc = 0;
    switch (st->kind) {
    case PRE_SPLIT:
        return split(out, st, t, n, err);
    case PRE_BYTE_LEVEL:
        return byte_level(out, ps, st, t, n, err);
    case PRE_METASPACE:
        rc = metaspace(out, st, t, n, section);
        break;
    case PRE_BERT:
        rc = bert(out, t, n);
        break;
    case PRE_WHITESPACE:
    case PRE_WHITESPACE_SPLIT:
    case PRE_PUNCTUATION:
        rc = runs(out, st->kind, false, t, n);
        break;
    case PRE_DIGITS:
        rc = runs(out, st->kind, st->individual, t, n);
        break;
    }
    return rc == 0 ? 0 : err_nomem(err, _("tokens"));
}

int tok_pretoks_apply(tok_list *out, const tok_pretoks *ps, const char *text,
                      size_t n, size_t section, mx_error *err)
{
    if (ps == NULL)
        return tok_list_add(out, text, n) == 0 ? 0
                                               : err_nomem(err, _("tokens"));
    tok_list cur = {0};
    if (tok_list_add(&cur, text, n) != 0)
        return err_nomem(err, _("tokens"));
    int rc = 0;
    for (size_t s = 0; s < ps->n && rc == 0; s++) {
        tok_list next = {0};
        for (size_t i = 0; i < cur.n && rc == 0; i++)
            rc = apply_step(&next, ps, &ps->step[s], cur.s[i], cur.len[i],
                            section, err);
        tok_list_free(&cur);
        cur = next;
    }
    for (size_t i = 0; i < cur.n && rc == 0; i++)
        if (tok_list_add(out, cur.s[i], cur.len[i]) != 0)
            rc = err_nomem(err, _("tokens"));
    tok_list_free(&cur);
    return rc;
}
