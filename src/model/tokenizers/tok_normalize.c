/* tok_normalize.c: tokenizer.json's normalisers (tok_normalize.h). */
#include "model/tokenizers/tok_normalize.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <utf8proc.h>

#include "base/i18n.h"
#include "model/tokenizers/tok_regex.h"

enum norm_kind {
    NORM_FORM, /* utf8proc options in `form` */
    NORM_LOWERCASE,
    NORM_STRIP_ACCENTS,
    NORM_STRIP,
    NORM_PREPEND,
    NORM_REPLACE,
    NORM_BERT
};

typedef struct {
    enum norm_kind kind;
    int form;         /* NORM_FORM: utf8proc_option_t */
    bool left, right; /* NORM_STRIP */
    char *text;       /* NORM_PREPEND, NORM_REPLACE's content; owned */
    size_t text_len;
    tok_regex *re;                       /* NORM_REPLACE; owned */
    bool clean, chinese, lower, accents; /* NORM_BERT */
} norm_step;

#define MAX_NORM_STEPS 64

struct tok_norms {
    norm_step step[MAX_NORM_STEPS];
    size_t n;
};

/* ---- reading ------------------------------------------------------------- */

static int copy_string(char **out, size_t *len, const json_doc *doc,
                       const json_node *v, const char *what, const char *key,
                       mx_error *err)
{
    if (v == NULL || v->type != JSON_STRING)
        return err_input(err, _("%s: \"%s\" is not a string"), what, key);
    *out = malloc(v->len + 1);
    if (*out == NULL)
        return err_nomem(err, what);
    memcpy(*out, json_str(doc, v), v->len + 1);
    *len = v->len;
    return 0;
}

/* A "pattern": {"String": s} or {"Regex": r}. */
static int read_pattern(tok_regex **re, const json_doc *doc, const json_node *o,
                        const char *what, mx_error *err)
{
    const json_node *p = json_get(doc, o, "pattern");
    const json_node *s = p ? json_get(doc, p, "String") : NULL;
    const json_node *r = p ? json_get(doc, p, "Regex") : NULL;
    if (s != NULL && s->type == JSON_STRING)
        return tok_regex_literal(re, json_str(doc, s), s->len, what, err);
    if (r != NULL && r->type == JSON_STRING)
        return tok_regex_compile(re, json_str(doc, r), r->len,
                                 TOK_SPACE_UNICODE, what, err);
    return err_input(err, _("%s: %s has no \"%s\""), what, "pattern", "String");
}

static int read_step(tok_norms *ns, const json_doc *doc, const json_node *o,
                     const char *what, mx_error *err);

static int read_one(norm_step *st, const char *type, const json_doc *doc,
                    const json_node *o, const char *what, mx_error *err)
{
    static const struct {
        const char *name;
        int form;
    } forms[] = {
        {"NFC", UTF8PROC_STABLE | UTF8PROC_COMPOSE},
        {"NFD", UTF8PROC_STABLE | UTF8PROC_DECOMPOSE},
        {"NFKC", UTF8PROC_STABLE | UTF8PROC_COMPOSE | UTF8PROC_COMPAT},
        {"NFKD", UTF8PROC_STABLE | UTF8PROC_DECOMPOSE | UTF8PROC_COMPAT},
    };
    for (size_t i = 0; i < sizeof forms / sizeof forms[0]; i++)
        if (strcmp(type, forms[i].name) == 0) {
            st->kind = NORM_FORM;
            st->form = forms[i].form;
            return 0;
        }
    if (strcmp(type, "Lowercase") == 0) {
        st->kind = NORM_LOWERCASE;
    } else if (strcmp(type, "StripAccents") == 0) {
        st->kind = NORM_STRIP_ACCENTS;
    } else if (strcmp(type, "Strip") == 0) {
        st->kind = NORM_STRIP;
        st->left = tok_json_flag(doc, o, "strip_left", false);
        st->right = tok_json_flag(doc, o, "strip_right", false);
    } else if (strcmp(type, "Prepend") == 0) {
        st->kind = NORM_PREPEND;
        return copy_string(&st->text, &st->text_len, doc,
                           json_get(doc, o, "prepend"), what, "prepend", err);
    } else if (strcmp(type, "Replace") == 0) {
        st->kind = NORM_REPLACE;
        if (copy_string(&st->text, &st->text_len, doc,
                        json_get(doc, o, "content"), what, "content", err) != 0)
            return -1;
        return read_pattern(&st->re, doc, o, what, err);
    } else if (strcmp(type, "BertNormalizer") == 0) {
        st->kind = NORM_BERT;
        st->clean = tok_json_flag(doc, o, "clean_text", false);
        st->chinese = tok_json_flag(doc, o, "handle_chinese_chars", false);
        st->lower = tok_json_flag(doc, o, "lowercase", false);
        // strip_accents: null follows lowercase
        st->accents = tok_json_flag(doc, o, "strip_accents", st->lower);
    } else {
        return err_input(err, _("%s: %s \"%s\" is not supported"), what,
                         "normalizer", type);
    }
    return 0;
}

void tok_norms_bert_case(tok_norms *n, bool lower, int accents, bool chinese)
{
    for (size_t i = 0; n != NULL && i < n->n; i++)
        if (n->step[i].kind == NORM_BERT) {
            n->step[i].lower = lower;
            n->step[i].accents = accents < 0 ? lower : accents != 0;
            n->step[i].chinese = chinese;
        }
}

static int read_step(tok_norms *ns, const json_doc *doc, const json_node *o,
                     const char *what, mx_error *err)
{
    const json_node *t = json_get(doc, o, "type");
    if (t == NULL || t->type != JSON_STRING)
        return err_input(err, _("%s: %s has no \"%s\""), what, "normalizer",
                         "type");
    const char *type = json_str(doc, t);
    if (strcmp(type, "Sequence") == 0) {
        const json_node *list = json_get(doc, o, "normalizers");
        if (list == NULL || list->type != JSON_ARRAY)
            return err_input(err, _("%s: %s has no \"%s\""), what, "Sequence",
                             "normalizers");
        for (const json_node *m = json_first(doc, list); m;
             m = json_next(doc, m))
            if (read_step(ns, doc, m, what, err) != 0)
                return -1;
        return 0;
    }
    if (ns->n == MAX_NORM_STEPS)
        return err_input(err, _("%s: more than %d steps in the %s"), what,
                         MAX_NORM_STEPS, "normalizer");
    return read_one(&ns->step[ns->n++], type, doc, o, what, err);
}

int tok_norms_read(tok_norms **out, const json_doc *doc, const json_node *node,
                   const char *what, mx_error *err)
{
    *out = NULL;
    if (node == NULL || node->type == JSON_NULL)
        return 0;
    tok_norms *ns = calloc(1, sizeof *ns);
    if (ns == NULL)
        return err_nomem(err, what);
    if (read_step(ns, doc, node, what, err) != 0) {
        tok_norms_free(ns);
        return -1;
    }
    *out = ns;
    return 0;
}

void tok_norms_free(tok_norms *ns)
{
    if (ns == NULL)
        return;
    for (size_t i = 0; i < ns->n; i++) {
        free(ns->step[i].text);
        tok_regex_free(ns->step[i].re);
    }
    free(ns);
}

/* ---- applying -------------------------------------------------------------- */

static bool is_cased(int32_t c)
{
    return utf8proc_tolower(c) != c || utf8proc_toupper(c) != c ||
           utf8proc_category(c) == UTF8PROC_CATEGORY_LT;
}

static bool case_ignorable(int32_t c)
{
    const utf8proc_category_t k = utf8proc_category(c);
    return k == UTF8PROC_CATEGORY_MN || k == UTF8PROC_CATEGORY_ME ||
           k == UTF8PROC_CATEGORY_CF || k == UTF8PROC_CATEGORY_LM ||
           k == UTF8PROC_CATEGORY_SK || c == '\'' || c == '.' || c == ':' ||
           c == 0xb7 || c == 0x2019;
}

/* Unicode's Final_Sigma: a cased letter before (past case-ignorables),
 * none after. */
static bool final_sigma(const char *t, size_t len, size_t at, size_t k)
{
    bool before = false;
    for (size_t i = 0; i < at;) {
        int32_t c;
        const size_t w = tok_utf8_next(t + i, at - i, &c);
        if (w == 0)
            break;
        if (!case_ignorable(c))
            before = is_cased(c);
        i += w;
    }
    if (!before)
        return false;
    for (size_t i = at + k; i < len;) {
        int32_t c;
        const size_t w = tok_utf8_next(t + i, len - i, &c);
        if (w == 0)
            break;
        if (!case_ignorable(c))
            return !is_cased(c);
        i += w;
    }
    return true;
}

int tok_lowercase(tok_buf *out, const char *text, size_t len)
{
    for (size_t i = 0; i < len;) {
        int32_t c;
        const size_t k = tok_utf8_next(text + i, len - i, &c);
        if (k == 0)
            return tok_buf_add(out, text + i, len - i);
        int rc;
        if (c == 0x130) // İ: i and a combining dot above
            rc = tok_buf_add(out, "i\xcc\x87", 3);
        else if (c == 0x3a3 && final_sigma(text, len, i, k))
            rc = tok_buf_add_cp(out, 0x3c2);
        else
            rc = tok_buf_add_cp(out, utf8proc_tolower(c));
        if (rc != 0)
            return -1;
        i += k;
    }
    return tok_buf_add(out, "", 0);
}

static int unicode_form(tok_buf *out, const char *t, size_t n, int form)
{
    utf8proc_uint8_t *r = NULL;
    const utf8proc_ssize_t k = utf8proc_map((const utf8proc_uint8_t *)t,
                                            (utf8proc_ssize_t)n, &r, form);
    if (k < 0)
        return k == UTF8PROC_ERROR_NOMEM ? -1 : tok_buf_add(out, t, n);
    const int rc = tok_buf_add(out, (const char *)r, (size_t)k);
    free(r);
    return rc;
}

/* Code points kept unless drop says otherwise. */
static int filter(tok_buf *out, const char *t, size_t n, bool (*drop)(int32_t))
{
    for (size_t i = 0; i < n;) {
        int32_t c;
        const size_t k = tok_utf8_next(t + i, n - i, &c);
        if (k == 0)
            return tok_buf_add(out, t + i, n - i);
        if (!drop(c) && tok_buf_add(out, t + i, k) != 0)
            return -1;
        i += k;
    }
    return tok_buf_add(out, "", 0);
}

static bool is_mark(int32_t c)
{
    const utf8proc_category_t k = utf8proc_category(c);
    return k == UTF8PROC_CATEGORY_MN || k == UTF8PROC_CATEGORY_MC ||
           k == UTF8PROC_CATEGORY_ME;
}

static bool is_nonspacing(int32_t c)
{
    return utf8proc_category(c) == UTF8PROC_CATEGORY_MN;
}

static int strip(tok_buf *out, const char *t, size_t n, bool left, bool right)
{
    size_t s = 0, e = n;
    for (int32_t c; left && s < e;) {
        const size_t k = tok_utf8_next(t + s, e - s, &c);
        if (k == 0 || !tok_is_js_space(c))
            break;
        s += k;
    }
    while (right && e > s) {
        size_t b = e - 1;
        while (b > s && ((unsigned char)t[b] & 0xc0) == 0x80)
            b--;
        int32_t c;
        if (tok_utf8_next(t + b, e - b, &c) == 0 || !tok_is_js_space(c))
            break;
        e = b;
    }
    return tok_buf_add(out, t + s, e - s);
}

typedef struct {
    tok_buf *out;
    const char *text, *with;
    size_t at, with_len;
} replacing;

static int replace_one(void *ctx, size_t start, size_t end)
{
    replacing *r = ctx;
    if (tok_buf_add(r->out, r->text + r->at, start - r->at) != 0 ||
        tok_buf_add(r->out, r->with, r->with_len) != 0)
        return -1; // no memory
    r->at = end;
    return 0;
}

/* BertNormalizer's CJK ideographs, as the reference tests them: one
 * UTF-16 unit at a time, so the supplementary planes' never are. */
static bool is_chinese(int32_t c)
{
    return (c >= 0x4e00 && c <= 0x9fff) || (c >= 0x3400 && c <= 0x4dbf) ||
           (c >= 0xf900 && c <= 0xfaff);
}

static bool bert_control(int32_t c)
{
    if (c == '\t' || c == '\n' || c == '\r')
        return false;
    const utf8proc_category_t k = utf8proc_category(c);
    return k == UTF8PROC_CATEGORY_CC || k == UTF8PROC_CATEGORY_CF ||
           k == UTF8PROC_CATEGORY_CO || k == UTF8PROC_CATEGORY_CS;
}

static int bert_clean(tok_buf *out, const char *t, size_t n, bool clean,
                      bool chinese)
{
    for (size_t i = 0; i < n;) {
        int32_t c;
        const size_t k = tok_utf8_next(t + i, n - i, &c);
        if (k == 0)
            return tok_buf_add(out, t + i, n - i);
        i += k;
        int rc = 0;
        if (clean && (c == 0 || c == 0xfffd || bert_control(c)))
            continue;
        if (clean && tok_is_js_space(c))
            rc = tok_buf_add(out, " ", 1);
        else if (chinese && is_chinese(c))
            rc = tok_buf_add(out, " ", 1) || tok_buf_add_cp(out, c) ||
                 tok_buf_add(out, " ", 1);
        else
            rc = tok_buf_add_cp(out, c);
        if (rc != 0)
            return -1;
    }
    return tok_buf_add(out, "", 0);
}

/* One step from `in` into `out` (reset first): 0, -1 no memory, or an
 * error's status (set in err). */
static int step_into(tok_buf *out, const norm_step *st, const tok_buf *in,
                     mx_error *err)
{
    out->n = 0;
    switch (st->kind) {
    case NORM_FORM:
        return unicode_form(out, in->s, in->n, st->form);
    case NORM_LOWERCASE:
        return tok_lowercase(out, in->s, in->n);
    case NORM_STRIP_ACCENTS:
        return filter(out, in->s, in->n, is_mark);
    case NORM_STRIP:
        return strip(out, in->s, in->n, st->left, st->right);
    case NORM_PREPEND:
        return tok_buf_add(out, st->text, st->text_len) ||
               tok_buf_add(out, in->s, in->n);
    case NORM_REPLACE: {
        replacing r = {out, in->s, st->text, 0, st->text_len};
        const int rc =
            tok_regex_each(st->re, in->s, in->n, replace_one, &r, err);
        return rc == 0 ? tok_buf_add(out, in->s + r.at, in->n - r.at) : rc;
    }
    case NORM_BERT: {
        tok_buf a = {0}, b = {0};
        int rc = bert_clean(&a, in->s, in->n, st->clean, st->chinese);
        if (rc == 0 && st->lower)
            rc = tok_lowercase(&b, a.s, a.n);
        else if (rc == 0)
            rc = tok_buf_add(&b, a.s, a.n);
        if (rc == 0 && st->accents) {
            a.n = 0;
            rc = unicode_form(&a, b.s, b.n,
                              UTF8PROC_STABLE | UTF8PROC_DECOMPOSE) ||
                 filter(out, a.s, a.n, is_nonspacing);
        } else if (rc == 0) {
            rc = tok_buf_add(out, b.s, b.n);
        }
        tok_buf_free(&a);
        tok_buf_free(&b);
        return rc;
    }
    }
    return 0;
}

static int apply_step(tok_buf *out, const norm_step *st, const tok_buf *in,
                      mx_error *err)
{
    err->msg[0] = '\0';
    const int rc = step_into(out, st, in, err);
    return rc == 0 ? 0 : err->msg[0] ? -1 : err_nomem(err, _("tokens"));
}

int tok_norms_apply(tok_buf *out, const tok_norms *ns, const char *text,
                    size_t len, mx_error *err)
{
    out->n = 0;
    if (tok_buf_add(out, text, len) != 0)
        return err_nomem(err, _("tokens"));
    if (ns == NULL)
        return 0;
    tok_buf tmp = {0};
    int rc = 0;
    for (size_t i = 0; i < ns->n && rc == 0; i++) {
        rc = apply_step(&tmp, &ns->step[i], out, err);
        const tok_buf t = *out; // swap
        *out = tmp;
        tmp = t;
    }
    tok_buf_free(&tmp);
    return rc;
}
