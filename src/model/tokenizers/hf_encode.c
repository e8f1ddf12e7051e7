/* hf_encode.c: a text into ids by a read tokenizer.json (hf_tokenizer.h),
 * in the reference's order: added tokens, normaliser, added tokens again,
 * pre-tokenizer, model, post-processor. */
#include <stdlib.h>
#include <string.h>

#include "base/i18n.h"
#include "model/tokenizers/hf_parts.h"

/* A stretch of the text: text[start..end), or the added token `id`. */
typedef struct {
    size_t start, end;
    int32_t id; /* -1: text */
} stretch;

typedef struct {
    stretch *s;
    size_t n, cap;
} stretches;

static int add_stretch(stretches *l, size_t start, size_t end, int32_t id)
{
    if (l->n == l->cap) {
        const size_t cap = l->cap ? 2 * l->cap : 16;
        stretch *ns = realloc(l->s, cap * sizeof *ns);
        if (ns == NULL)
            return -1;
        l->s = ns;
        l->cap = cap;
    }
    l->s[l->n++] = (stretch){start, end, id};
    return 0;
}

/* The longest added token of the pass (raw: matched before normalising)
 * at text + i, or NULL. */
static const hf_added *added_at(const hf_tokenizer *t, bool raw,
                                const char *text, size_t n, size_t i)
{
    const hf_added *best = NULL;
    for (size_t k = 0; k < t->n_added; k++) {
        const hf_added *a = &t->added[k];
        if (a->raw == raw && a->len <= n - i &&
            (best == NULL || a->len > best->len) &&
            memcmp(text + i, a->content, a->len) == 0)
            best = a;
    }
    return best;
}

static bool js_space_before(const char *t, size_t end, size_t *at)
{
    size_t b = end - 1;
    while (b > 0 && ((unsigned char)t[b] & 0xc0) == 0x80)
        b--;
    int32_t c;
    if (tok_utf8_next(t + b, end - b, &c) == 0 || !tok_is_js_space(c))
        return false;
    *at = b;
    return true;
}

/* text[0..n) cut at the pass's added tokens, leftmost first, longest
 * there; then lstrip and rstrip trim the text beside them. */
static int cut_added(stretches *out, const hf_tokenizer *t, bool raw,
                     const char *text, size_t n)
{
    size_t start = 0;
    for (size_t i = 0; i < n;) {
        const hf_added *a = added_at(t, raw, text, n, i);
        if (a == NULL) {
            i++;
            continue;
        }
        if (i > start && add_stretch(out, start, i, -1) != 0)
            return -1;
        if (add_stretch(out, i, i + a->len, a->id) != 0)
            return -1;
        i += a->len;
        start = i;
    }
    if (start < n && add_stretch(out, start, n, -1) != 0)
        return -1;
    for (size_t k = 0; k < out->n; k++) {
        if (out->s[k].id < 0)
            continue;
        const hf_added *a = NULL;
        for (size_t j = 0; j < t->n_added && a == NULL; j++)
            if (t->added[j].id == out->s[k].id && t->added[j].raw == raw)
                a = &t->added[j];
        if (a == NULL)
            continue;
        if (a->lstrip && k > 0 && out->s[k - 1].id < 0) {
            stretch *p = &out->s[k - 1];
            size_t at;
            while (p->end > p->start && js_space_before(text, p->end, &at))
                p->end = at < p->start ? p->start : at;
        }
        if (a->rstrip && k + 1 < out->n && out->s[k + 1].id < 0) {
            stretch *p = &out->s[k + 1];
            int32_t c;
            for (size_t w; p->start < p->end; p->start += w) {
                w = tok_utf8_next(text + p->start, p->end - p->start, &c);
                if (w == 0 || !tok_is_js_space(c))
                    break;
            }
        }
    }
    return 0;
}

typedef struct {
    int32_t *ids;
    size_t n, cap, max;
} id_list;

static int push_id(id_list *l, int32_t id)
{
    if (l->n == l->cap) {
        const size_t nc = l->cap ? 2 * l->cap : 64;
        int32_t *ni = realloc(l->ids, nc * sizeof *ni);
        if (ni == NULL)
            return -1;
        l->ids = ni;
        l->cap = nc;
    }
    l->ids[l->n++] = id;
    return 0;
}

/* One normalised stretch (no added token in it): pre-tokenised, each
 * piece through the model, unk_tokens fused. */
static int encode_words(id_list *out, const hf_tokenizer *t, const char *s,
                        size_t n, size_t section, mx_error *err)
{
    tok_list pieces = {0};
    int rc = tok_pretoks_apply(&pieces, t->pretoks, s, n, section, err);
    const size_t first = out->n;
    for (size_t i = 0; i < pieces.n && rc == 0 && out->n <= out->max; i++)
        rc = tok_model_encode(&out->ids, &out->n, &out->cap, t->model,
                              pieces.s[i], pieces.len[i], err);
    tok_list_free(&pieces);
    if (rc == 0)
        out->n = tok_model_fuse_unk(t->model, out->ids, first, out->n);
    return rc;
}

/* One stretch of the text between raw added tokens. */
static int encode_section(id_list *out, const hf_tokenizer *t, const char *s,
                          size_t n, size_t section, mx_error *err)
{
    tok_buf norm = {0};
    stretches parts = {0};
    int rc = tok_norms_apply(&norm, t->norms, s, n, err);
    if (rc == 0 && norm.n > 0 &&
        cut_added(&parts, t, false, norm.s, norm.n) != 0)
        rc = err_nomem(err, _("tokens"));
    for (size_t k = 0; k < parts.n && rc == 0 && out->n <= out->max; k++) {
        const stretch *p = &parts.s[k];
        if (p->id >= 0)
            rc = push_id(out, p->id) ? err_nomem(err, _("tokens")) : 0;
        else if (p->end > p->start)
            rc = encode_words(out, t, norm.s + p->start, p->end - p->start,
                              section, err);
    }
    free(parts.s);
    tok_buf_free(&norm);
    return rc;
}

static int encode_text(id_list *out, const hf_tokenizer *t, const char *text,
                       size_t len, mx_error *err)
{
    stretches parts = {0};
    if (cut_added(&parts, t, true, text, len) != 0) {
        free(parts.s);
        return err_nomem(err, _("tokens"));
    }
    int rc = 0;
    for (size_t k = 0; k < parts.n && rc == 0 && out->n <= out->max; k++) {
        const stretch *p = &parts.s[k];
        int32_t id;
        if (p->id >= 0)
            rc = push_id(out, p->id) ? err_nomem(err, _("tokens")) : 0;
        else if (p->end == p->start)
            continue;
        else if (tok_map_get(&t->added_map, text + p->start, p->end - p->start,
                             &id))
            rc = push_id(out, id) ? err_nomem(err, _("tokens")) : 0;
        else
            rc = encode_section(out, t, text + p->start, p->end - p->start, k,
                                err);
    }
    free(parts.s);
    return rc;
}

int hf_tokenizer_encode(int32_t **ids, size_t *n, const hf_tokenizer *t,
                        const char *text, size_t len, bool add_special,
                        size_t max, mx_error *err)
{
    *ids = NULL;
    *n = 0;
    for (size_t i = 0; i < len;) {
        int32_t c;
        const size_t k = tok_utf8_next(text + i, len - i, &c);
        if (k == 0)
            return err_input(err,
                             _("the text is not valid UTF-8 (at byte %zu)"), i);
        i += k;
    }
    id_list out = {NULL, 0, 0, max};
    int rc = 0;
    for (size_t i = 0; add_special && i < t->n_before && rc == 0; i++)
        rc = push_id(&out, t->before[i]) ? err_nomem(err, _("tokens")) : 0;
    if (rc == 0)
        rc = encode_text(&out, t, text, len, err);
    for (size_t i = 0; add_special && i < t->n_after && rc == 0; i++)
        rc = push_id(&out, t->after[i]) ? err_nomem(err, _("tokens")) : 0;
    if (rc != 0) {
        free(out.ids);
        return -1;
    }
    *ids = out.ids;
    *n = out.n;
    return 0;
}
