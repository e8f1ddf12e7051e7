/* tok_text.c: strings, lists and the map of the tokenizer's steps, and
 * GPT-2's byte characters (tok_text.h). */
#include "model/tokenizers/tok_text.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <utf8proc.h>

int tok_buf_add(tok_buf *b, const char *s, size_t n)
{
    if (b->n + n + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 64;
        while (cap < b->n + n + 1)
            cap *= 2;
        char *ns = realloc(b->s, cap);
        if (ns == NULL)
            return -1;
        b->s = ns;
        b->cap = cap;
    }
    if (n > 0)
        memcpy(b->s + b->n, s, n);
    b->n += n;
    b->s[b->n] = '\0';
    return 0;
}

int tok_buf_add_cp(tok_buf *b, int32_t c)
{
    utf8proc_uint8_t u[4];
    const utf8proc_ssize_t k = utf8proc_encode_char(c, u);
    return tok_buf_add(b, (const char *)u, (size_t)k);
}

void tok_buf_free(tok_buf *b)
{
    free(b->s);
    *b = (tok_buf){0};
}

int tok_list_add(tok_list *l, const char *s, size_t n)
{
    if (l->n == l->cap) {
        const size_t cap = l->cap ? 2 * l->cap : 16;
        char **ns = realloc(l->s, cap * sizeof *ns);
        if (ns == NULL)
            return -1;
        l->s = ns;
        size_t *nl = realloc(l->len, cap * sizeof *nl);
        if (nl == NULL)
            return -1;
        l->len = nl;
        l->cap = cap;
    }
    char *c = malloc(n + 1);
    if (c == NULL)
        return -1;
    if (n > 0)
        memcpy(c, s, n);
    c[n] = '\0';
    l->s[l->n] = c;
    l->len[l->n++] = n;
    return 0;
}

void tok_list_free(tok_list *l)
{
    for (size_t i = 0; i < l->n; i++)
        free(l->s[i]);
    free(l->s);
    free(l->len);
    *l = (tok_list){0};
}

static uint64_t hash(const char *s, size_t n)
{
    uint64_t h = 1469598103934665603u;
    for (size_t i = 0; i < n; i++)
        h = (h ^ (unsigned char)s[i]) * 1099511628211u;
    return h;
}

int tok_map_init(tok_map *m, size_t n)
{
    *m = (tok_map){0};
    m->cap = 16;
    while (m->cap < 2 * n + 16)
        m->cap *= 2;
    m->keys = calloc(m->cap, sizeof *m->keys);
    m->key_len = calloc(m->cap, sizeof *m->key_len);
    m->values = calloc(m->cap, sizeof *m->values);
    return m->keys && m->key_len && m->values ? 0 : -1;
}

void tok_map_free(tok_map *m)
{
    if (m->keys != NULL)
        for (size_t i = 0; i < m->cap; i++)
            free(m->keys[i]);
    free(m->keys);
    free(m->key_len);
    free(m->values);
    *m = (tok_map){0};
}

/* The slot of s[0..n): its key's, or the free one where it would go. */
static size_t slot(const tok_map *m, const char *s, size_t n)
{
    size_t i = hash(s, n) & (m->cap - 1);
    while (m->keys[i] != NULL &&
           (m->key_len[i] != n || memcmp(m->keys[i], s, n) != 0))
        i = (i + 1) & (m->cap - 1);
    return i;
}

int tok_map_put(tok_map *m, const char *s, size_t n, int32_t v)
{
    if (m->cap == 0 || 2 * (m->n + 1) > m->cap)
        return -1;
    const size_t i = slot(m, s, n);
    if (m->keys[i] != NULL)
        return 1;
    char *k = malloc(n + 1);
    if (k == NULL)
        return -1;
    if (n > 0)
        memcpy(k, s, n);
    k[n] = '\0';
    m->keys[i] = k;
    m->key_len[i] = n;
    m->values[i] = v;
    m->n++;
    return 0;
}

int tok_map_set(tok_map *m, const char *s, size_t n, int32_t v)
{
    if (m->cap == 0)
        return -1;
    const size_t i = slot(m, s, n);
    if (m->keys[i] != NULL) {
        m->values[i] = v;
        return 0;
    }
    return tok_map_put(m, s, n, v) == 0 ? 0 : -1;
}

bool tok_map_get(const tok_map *m, const char *s, size_t n, int32_t *v)
{
    if (m->cap == 0)
        return false;
    const size_t i = slot(m, s, n);
    if (m->keys[i] == NULL)
        return false;
    *v = m->values[i];
    return true;
}

size_t tok_utf8_next(const char *s, size_t n, int32_t *c)
{
    if (n == 0)
        return 0;
    utf8proc_int32_t cp;
    const utf8proc_ssize_t k =
        utf8proc_iterate((const utf8proc_uint8_t *)s, (utf8proc_ssize_t)n, &cp);
    if (k <= 0)
        return 0;
    *c = cp;
    return (size_t)k;
}

bool tok_is_js_space(int32_t c)
{
    return (c >= 0x09 && c <= 0x0d) || c == 0x20 || c == 0xa0 || c == 0x1680 ||
           (c >= 0x2000 && c <= 0x200a) || c == 0x2028 || c == 0x2029 ||
           c == 0x202f || c == 0x205f || c == 0x3000 || c == 0xfeff;
}

bool tok_json_flag(const json_doc *doc, const json_node *o, const char *key,
                   bool dflt)
{
    const json_node *v = json_get(doc, o, key);
    return v != NULL && v->type == JSON_BOOL ? v->number != 0 : dflt;
}

void tok_byte_chars(char enc[256][3])
{
    int n = 0;
    for (int c = 0; c < 256; c++) {
        const bool printable = (c >= '!' && c <= '~') ||
                               (c >= 0xa1 && c <= 0xac) ||
                               (c >= 0xae && c <= 0xff);
        const int cp = printable ? c : 256 + n++;
        utf8proc_uint8_t u[4] = {0};
        utf8proc_encode_char(cp, u);
        memcpy(enc[c], u, 2);
        enc[c][cp < 0x80 ? 1 : 2] = '\0';
    }
}
