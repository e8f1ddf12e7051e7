/* json.c: the JSON reader of json.h, a recursive descent over the text
 * with its depth bounded. */
#include "io/json.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <utf8proc.h>

#include "base/i18n.h"

typedef struct {
    json_doc *doc;
    const char *s;
    size_t len, pos;
} parser;

static int fail(parser *p, const char *what, mx_error *err)
{
    return err_input(err, _("%s: not valid JSON (at byte %zu)"), what, p->pos);
}

static void skip_space(parser *p)
{
    while (p->pos < p->len && (p->s[p->pos] == ' ' || p->s[p->pos] == '\t' ||
                               p->s[p->pos] == '\n' || p->s[p->pos] == '\r'))
        p->pos++;
}

static size_t new_node(parser *p, enum json_type type)
{
    json_doc *d = p->doc;
    if (d->n == d->cap) {
        size_t cap = d->cap ? d->cap * 2 : 64;
        json_node *nodes = realloc(d->nodes, cap * sizeof *nodes);
        if (nodes == NULL)
            return JSON_NONE;
        d->nodes = nodes;
        d->cap = cap;
    }
    d->nodes[d->n] = (json_node){
        .type = type, .key = JSON_NONE, .first = JSON_NONE, .next = JSON_NONE};
    return d->n++;
}

static bool put_bytes(json_doc *d, const char *b, size_t n)
{
    if (d->strings_len + n > d->strings_cap) {
        size_t cap = d->strings_cap ? d->strings_cap : 256;
        while (cap < d->strings_len + n)
            cap *= 2;
        char *s = realloc(d->strings, cap);
        if (s == NULL)
            return false;
        d->strings = s;
        d->strings_cap = cap;
    }
    memcpy(d->strings + d->strings_len, b, n);
    d->strings_len += n;
    return true;
}

static int hex4(const char *s, uint32_t *out)
{
    uint32_t v = 0;
    for (int i = 0; i < 4; i++) {
        char c = s[i];
        v <<= 4;
        if (c >= '0' && c <= '9')
            v |= (uint32_t)(c - '0');
        else if (c >= 'a' && c <= 'f')
            v |= (uint32_t)(c - 'a' + 10);
        else if (c >= 'A' && c <= 'F')
            v |= (uint32_t)(c - 'A' + 10);
        else
            return -1;
    }
    *out = v;
    return 0;
}

static bool put_utf8(json_doc *d, uint32_t c)
{
    char b[4];
    size_t n;
    if (c < 0x80) {
        b[0] = (char)c;
        n = 1;
    } else if (c < 0x800) {
        b[0] = (char)(0xc0 | (c >> 6));
        b[1] = (char)(0x80 | (c & 0x3f));
        n = 2;
    } else if (c < 0x10000) {
        b[0] = (char)(0xe0 | (c >> 12));
        b[1] = (char)(0x80 | ((c >> 6) & 0x3f));
        b[2] = (char)(0x80 | (c & 0x3f));
        n = 3;
    } else {
        b[0] = (char)(0xf0 | (c >> 18));
        b[1] = (char)(0x80 | ((c >> 12) & 0x3f));
        b[2] = (char)(0x80 | ((c >> 6) & 0x3f));
        b[3] = (char)(0x80 | (c & 0x3f));
        n = 4;
    }
    return put_bytes(d, b, n);
}

/* A string at p->pos (its opening quote): its text into the strings;
 * *off and *len say where. 1: not JSON; -1: out of memory. */
static int parse_string(parser *p, size_t *off, size_t *len)
{
    json_doc *d = p->doc;
    p->pos++;
    *off = d->strings_len;
    for (;;) {
        if (p->pos >= p->len)
            return 1;
        unsigned char c = (unsigned char)p->s[p->pos];
        if (c == '"')
            break;
        if (c < 0x20)
            return 1;
        if (c != '\\') {
            size_t run = p->pos;
            while (run < p->len && p->s[run] != '"' && p->s[run] != '\\' &&
                   (unsigned char)p->s[run] >= 0x20)
                run++;
            if (!put_bytes(d, p->s + p->pos, run - p->pos))
                return -1;
            p->pos = run;
            continue;
        }
        if (p->pos + 1 >= p->len)
            return 1;
        char e = p->s[p->pos + 1];
        p->pos += 2;
        const char *simple = "\"\\/bfnrt";
        const char *at = e ? strchr(simple, e) : NULL;
        if (at != NULL) {
            const char *meant = "\"\\/\b\f\n\r\t";
            if (!put_bytes(d, meant + (at - simple), 1))
                return -1;
            continue;
        }
        if (e != 'u' || p->pos + 4 > p->len)
            return 1;
        uint32_t u;
        if (hex4(p->s + p->pos, &u) != 0)
            return 1;
        p->pos += 4;
        if (u >= 0xd800 && u < 0xdc00) {
            uint32_t lo;
            if (p->pos + 6 > p->len || p->s[p->pos] != '\\' ||
                p->s[p->pos + 1] != 'u' || hex4(p->s + p->pos + 2, &lo) != 0 ||
                lo < 0xdc00 || lo >= 0xe000)
                return 1;
            p->pos += 6;
            u = 0x10000 + ((u - 0xd800) << 10) + (lo - 0xdc00);
        } else if (u >= 0xdc00 && u < 0xe000) {
            return 1;
        }
        if (!put_utf8(d, u))
            return -1;
    }
    p->pos++;
    *len = d->strings_len - *off;
    return put_bytes(d, "", 1) ? 0 : -1;
}

static int parse_number(parser *p, double *out)
{
    size_t start = p->pos;
    if (p->pos < p->len && p->s[p->pos] == '-')
        p->pos++;
    size_t digits = p->pos;
    while (p->pos < p->len &&
           ((p->s[p->pos] >= '0' && p->s[p->pos] <= '9') ||
            p->s[p->pos] == '.' || p->s[p->pos] == 'e' || p->s[p->pos] == 'E' ||
            p->s[p->pos] == '+' || p->s[p->pos] == '-'))
        p->pos++;
    char buf[64];
    size_t n = p->pos - start;
    if (p->pos == digits || n >= sizeof buf)
        return 1;
    memcpy(buf, p->s + start, n);
    buf[n] = '\0';
    char *end;
    *out = strtod(buf, &end);
    return *end == '\0' ? 0 : 1;
}

/* A value at p->pos into a new node; *index gets it. 1: not JSON; -1:
 * out of memory. */
static int parse_value(parser *p, int depth, size_t *index)
{
    skip_space(p);
    if (p->pos >= p->len || depth > JSON_MAX_DEPTH)
        return 1;
    char c = p->s[p->pos];
    size_t i;
    if (c == '{' || c == '[') {
        bool obj = c == '{';
        if ((i = new_node(p, obj ? JSON_OBJECT : JSON_ARRAY)) == JSON_NONE)
            return -1;
        p->pos++;
        skip_space(p);
        if (p->pos < p->len && p->s[p->pos] == (obj ? '}' : ']')) {
            p->pos++;
            *index = i;
            return 0;
        }
        size_t last = JSON_NONE;
        for (;;) {
            size_t key = JSON_NONE, key_len = 0, m;
            int r;
            if (obj) {
                skip_space(p);
                if (p->pos >= p->len || p->s[p->pos] != '"')
                    return 1;
                if ((r = parse_string(p, &key, &key_len)) != 0)
                    return r;
                skip_space(p);
                if (p->pos >= p->len || p->s[p->pos] != ':')
                    return 1;
                p->pos++;
            }
            if ((r = parse_value(p, depth + 1, &m)) != 0)
                return r;
            json_node *nodes = p->doc->nodes;
            nodes[m].key = key;
            nodes[m].key_len = key_len;
            if (last == JSON_NONE)
                nodes[i].first = m;
            else
                nodes[last].next = m;
            nodes[i].len++;
            last = m;
            skip_space(p);
            if (p->pos >= p->len)
                return 1;
            if (p->s[p->pos] == ',') {
                p->pos++;
                continue;
            }
            if (p->s[p->pos] != (obj ? '}' : ']'))
                return 1;
            p->pos++;
            break;
        }
    } else if (c == '"') {
        if ((i = new_node(p, JSON_STRING)) == JSON_NONE)
            return -1;
        size_t off, len;
        int r = parse_string(p, &off, &len);
        if (r != 0)
            return r;
        p->doc->nodes[i].str = off;
        p->doc->nodes[i].len = len;
    } else if (c == '-' || (c >= '0' && c <= '9')) {
        if ((i = new_node(p, JSON_NUMBER)) == JSON_NONE)
            return -1;
        const size_t start = p->pos;
        if (parse_number(p, &p->doc->nodes[i].number) != 0)
            return 1;
        // the number as written, for json_u64
        json_node *n = &p->doc->nodes[i];
        n->str = p->doc->strings_len;
        n->len = p->pos - start;
        if (!put_bytes(p->doc, p->s + start, n->len) ||
            !put_bytes(p->doc, "", 1))
            return -1;
    } else {
        static const struct {
            const char *word;
            enum json_type type;
            double value;
        } words[] = {{"true", JSON_BOOL, 1},
                     {"false", JSON_BOOL, 0},
                     {"null", JSON_NULL, 0}};
        size_t w = 0;
        while (w < 3 && (p->len - p->pos < strlen(words[w].word) ||
                         memcmp(p->s + p->pos, words[w].word,
                                strlen(words[w].word)) != 0))
            w++;
        if (w == 3)
            return 1;
        if ((i = new_node(p, words[w].type)) == JSON_NONE)
            return -1;
        p->doc->nodes[i].number = words[w].value;
        p->pos += strlen(words[w].word);
    }
    *index = i;
    return 0;
}

/* The offset of the first byte of text that is not UTF-8 (an overlong
 * form, a surrogate, past U+10FFFF), or len. */
static size_t utf8_end(const char *text, size_t len)
{
    size_t at = 0;
    while (at < len) {
        if ((unsigned char)text[at] < 0x80) {
            at++;
            continue;
        }
        utf8proc_int32_t c;
        const size_t rest = len - at < 4 ? len - at : 4;
        const utf8proc_ssize_t n = utf8proc_iterate(
            (const utf8proc_uint8_t *)text + at, (utf8proc_ssize_t)rest, &c);
        if (n <= 0)
            return at;
        at += (size_t)n;
    }
    return len;
}

int json_parse(json_doc *doc, const char *text, size_t len, const char *what,
               mx_error *err)
{
    *doc = (json_doc){0};
    /* JSON text is UTF-8 (RFC 8259), as Python's json and the
     * safetensors library read it */
    const size_t bad = utf8_end(text, len);
    if (bad != len)
        return err_input(err, _("%s: not valid UTF-8 (at byte %zu)"), what,
                         bad);
    parser p = {doc, text, len, 0};
    size_t root;
    int r = parse_value(&p, 0, &root);
    if (r == 0) {
        skip_space(&p);
        if (p.pos != len)
            r = 1;
    }
    if (r == 0)
        return 0;
    json_free(doc);
    if (r < 0)
        return err_nomem(err, what);
    return fail(&p, what, err);
}

void json_free(json_doc *doc)
{
    free(doc->nodes);
    free(doc->strings);
    *doc = (json_doc){0};
}

const json_node *json_first(const json_doc *doc, const json_node *o)
{
    if ((o->type != JSON_ARRAY && o->type != JSON_OBJECT) ||
        o->first == JSON_NONE)
        return NULL;
    return &doc->nodes[o->first];
}

const json_node *json_next(const json_doc *doc, const json_node *m)
{
    return m->next == JSON_NONE ? NULL : &doc->nodes[m->next];
}

const json_node *json_get(const json_doc *doc, const json_node *o,
                          const char *key)
{
    if (o->type != JSON_OBJECT)
        return NULL;
    size_t n = strlen(key);
    for (const json_node *m = json_first(doc, o); m; m = json_next(doc, m))
        if (m->key_len == n && memcmp(json_key(doc, m), key, n) == 0)
            return m;
    return NULL;
}

bool json_size(const json_node *node, uint64_t max, size_t *out)
{
    /* on a 32-bit target (the page's core) size_t ends below max */
    const uint64_t limit = max < SIZE_MAX ? max : (uint64_t)SIZE_MAX;
    if (node == NULL || node->type != JSON_NUMBER || !(node->number >= 0) ||
        node->number > (double)limit ||
        node->number != (double)(size_t)node->number)
        return false;
    *out = (size_t)node->number;
    return true;
}

bool json_u64(const json_doc *doc, const json_node *node, uint64_t *out)
{
    if (node == NULL || node->type != JSON_NUMBER || node->len == 0)
        return false;
    const char *s = json_str(doc, node);
    uint64_t value = 0;
    for (size_t i = 0; i < node->len; i++) {
        if (s[i] < '0' || s[i] > '9')
            return false;
        const unsigned digit = (unsigned)(s[i] - '0');
        if (value > (UINT64_MAX - digit) / 10)
            return false;
        value = value * 10 + digit;
    }
    *out = value;
    return true;
}

/* A member's key, for sorting the members by key. */
typedef struct {
    const char *key;
    size_t len;
} key_ref;

static int by_key(const void *a, const void *b)
{
    const key_ref *x = a, *y = b;
    const size_t n = x->len < y->len ? x->len : y->len;
    const int c = memcmp(x->key, y->key, n);
    return c != 0 ? c : (x->len > y->len) - (x->len < y->len);
}

int json_repeated_key(const char **key, const json_doc *doc, const json_node *o)
{
    *key = NULL;
    if (o->type != JSON_OBJECT || o->len < 2)
        return 0;
    key_ref *keys = malloc(o->len * sizeof *keys);
    if (keys == NULL)
        return -1;
    size_t n = 0;
    for (const json_node *m = json_first(doc, o); m; m = json_next(doc, m))
        keys[n++] = (key_ref){json_key(doc, m), m->key_len};
    qsort(keys, n, sizeof *keys, by_key);
    for (size_t i = 1; i < n && *key == NULL; i++)
        if (by_key(&keys[i - 1], &keys[i]) == 0)
            *key = keys[i].key;
    free(keys);
    return *key != NULL;
}
