/* bpe.c: GPT-2's byte-level BPE (bpe.h). */
#include "model/bpe.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <utf8proc.h>

#include "cli/i18n.h"
#include "io/json.h"

/* ---- a string -> int map (open addressing) -------------------------------- */

typedef struct {
    char **keys; /* cap slots, NULL when free; owned */
    int32_t *values;
    size_t cap, n;
} str_map;

static uint64_t hash(const char *s, size_t n)
{
    uint64_t h = 1469598103934665603u;
    for (size_t i = 0; i < n; i++)
        h = (h ^ (unsigned char)s[i]) * 1099511628211u;
    return h;
}

static int map_init(str_map *m, size_t n)
{
    m->cap = 16;
    while (m->cap < 2 * n + 16)
        m->cap *= 2;
    m->n = 0;
    m->keys = calloc(m->cap, sizeof *m->keys);
    m->values = calloc(m->cap, sizeof *m->values);
    return m->keys && m->values ? 0 : -1;
}

static void map_free(str_map *m)
{
    if (m->keys != NULL)
        for (size_t i = 0; i < m->cap; i++)
            free(m->keys[i]);
    free(m->keys);
    free(m->values);
}

/* The slot of s[0..n): its key's, or the free one where it would go. */
static size_t map_slot(const str_map *m, const char *s, size_t n)
{
    size_t i = hash(s, n) & (m->cap - 1);
    while (m->keys[i] != NULL &&
           (strlen(m->keys[i]) != n || memcmp(m->keys[i], s, n) != 0))
        i = (i + 1) & (m->cap - 1);
    return i;
}

/* Adds s -> v unless s is there; 1 if it was, -1 out of memory or full. */
static int map_put(str_map *m, const char *s, size_t n, int32_t v)
{
    if (2 * (m->n + 1) > m->cap)
        return -1;
    size_t i = map_slot(m, s, n);
    if (m->keys[i] != NULL)
        return 1;
    char *k = malloc(n + 1);
    if (k == NULL)
        return -1;
    memcpy(k, s, n);
    k[n] = '\0';
    m->keys[i] = k;
    m->values[i] = v;
    m->n++;
    return 0;
}

static bool map_get(const str_map *m, const char *s, size_t n, int32_t *v)
{
    size_t i = map_slot(m, s, n);
    if (m->keys[i] == NULL)
        return false;
    *v = m->values[i];
    return true;
}

/* ---- the tokenizer -------------------------------------------------------- */

struct bpe {
    str_map vocab; /* token (byte-encoded) -> id */
    str_map ranks; /* "first second" -> rank */
    char **pieces; /* id -> token (byte-encoded), n_ids; not owned (the
                       vocab map's keys) */
    size_t n_ids;
    char enc[256][3]; /* byte -> its printable character, UTF-8 */
    int dec[0x180];   /* printable code point -> byte, or -1 */
};

/* bytes_to_unicode(): printable bytes stand for themselves, the others
 * (controls, space, ...) for 256, 257, ... in byte order. */
static void byte_tables(bpe *b)
{
    int n = 0;
    for (int i = 0; i < 0x180; i++)
        b->dec[i] = -1;
    for (int c = 0; c < 256; c++) {
        const bool printable = (c >= '!' && c <= '~') ||
                               (c >= 0xa1 && c <= 0xac) ||
                               (c >= 0xae && c <= 0xff);
        const int cp = printable ? c : 256 + n++;
        utf8proc_uint8_t u[4];
        const utf8proc_ssize_t len = utf8proc_encode_char(cp, u);
        memset(b->enc[c], 0, sizeof b->enc[c]);
        memcpy(b->enc[c], u, (size_t)len);
        b->dec[cp] = c;
    }
}

static int read_file(char **text, size_t *len, const char *path, mx_error *err)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL)
        return err_input(err, _("%s: cannot open: %s"), path, strerror(errno));
    char *buf = NULL;
    size_t n = 0, cap = 0;
    const size_t max = (size_t)64 << 20;
    for (;;) {
        if (n == cap) {
            cap = cap ? cap * 2 : 65536;
            char *nb = cap <= 2 * max ? realloc(buf, cap + 1) : NULL;
            if (nb == NULL) {
                free(buf);
                fclose(f);
                return err_input(err, _("%s: larger than %zu bytes"), path,
                                 max);
            }
            buf = nb;
        }
        const size_t got = fread(buf + n, 1, cap - n, f);
        n += got;
        if (got == 0)
            break;
    }
    const int bad = ferror(f);
    fclose(f);
    if (bad || n > max) {
        free(buf);
        return err_input(err, _("%s: cannot read"), path);
    }
    buf[n] = '\0';
    *text = buf;
    *len = n;
    return 0;
}

static int read_vocab(bpe *b, const char *path, mx_error *err)
{
    char *text;
    size_t len;
    if (read_file(&text, &len, path, err) != 0)
        return -1;
    json_doc doc;
    const int rc = json_parse(&doc, text, len, path, err);
    free(text);
    if (rc != 0)
        return -1;
    const json_node *root = json_root(&doc);
    if (root->type != JSON_OBJECT || root->len == 0) {
        json_free(&doc);
        return err_input(err, _("%s: not a JSON object of tokens and ids"),
                         path);
    }
    if (map_init(&b->vocab, root->len) != 0) {
        json_free(&doc);
        return err_nomem(err, path);
    }
    size_t max_id = 0;
    for (const json_node *m = json_first(&doc, root); m;
         m = json_next(&doc, m)) {
        size_t id;
        if (!json_size(m, (size_t)1 << 30, &id)) {
            err_input(err, _("%s: the id of %s is not a whole number"), path,
                      json_key(&doc, m));
            json_free(&doc);
            return -1;
        }
        if (id > max_id)
            max_id = id;
        const int put =
            map_put(&b->vocab, json_key(&doc, m), m->key_len, (int32_t)id);
        if (put != 0) {
            json_free(&doc);
            return put > 0 ? err_input(err, _("%s: token %s appears twice"),
                                       path, json_key(&doc, m))
                           : err_nomem(err, path);
        }
    }
    json_free(&doc);
    b->n_ids = max_id + 1;
    b->pieces = calloc(b->n_ids, sizeof *b->pieces);
    if (b->pieces == NULL)
        return err_nomem(err, path);
    for (size_t i = 0; i < b->vocab.cap; i++)
        if (b->vocab.keys[i] != NULL)
            b->pieces[b->vocab.values[i]] = b->vocab.keys[i];
    return 0;
}

static int read_merges(bpe *b, const char *path, mx_error *err)
{
    char *text;
    size_t len;
    if (read_file(&text, &len, path, err) != 0)
        return -1;
    size_t lines = 1;
    for (size_t i = 0; i < len; i++)
        lines += text[i] == '\n';
    if (map_init(&b->ranks, lines) != 0) {
        free(text);
        return err_nomem(err, path);
    }
    int32_t rank = 0;
    size_t line_no = 0;
    for (char *line = text; line < text + len;) {
        char *end = memchr(line, '\n', (size_t)(text + len - line));
        if (end == NULL)
            end = text + len;
        line_no++;
        size_t n = (size_t)(end - line);
        if (n > 0 && line[n - 1] == '\r')
            n--;
        if (n > 0 && !(line_no == 1 && strncmp(line, "#version", 8) == 0)) {
            const char *space = memchr(line, ' ', n);
            if (space == NULL || space == line || space == line + n - 1 ||
                memchr(space + 1, ' ', (size_t)(line + n - space - 1))) {
                free(text);
                return err_input(
                    err,
                    _("%s:%zu: a merge is two tokens separated by one space"),
                    path, line_no);
            }
            const int put = map_put(&b->ranks, line, n, rank++);
            if (put < 0) {
                free(text);
                return err_nomem(err, path);
            }
        }
        line = end + 1;
    }
    free(text);
    if (rank == 0)
        return err_input(err, _("%s: no merges"), path);
    return 0;
}

int bpe_open(bpe **out, const char *vocab_path, const char *merges_path,
             mx_error *err)
{
    *out = NULL;
    bpe *b = calloc(1, sizeof *b);
    if (b == NULL)
        return err_nomem(err, vocab_path);
    byte_tables(b);
    if (read_vocab(b, vocab_path, err) != 0 ||
        read_merges(b, merges_path, err) != 0) {
        bpe_free(b);
        return -1;
    }
    *out = b;
    return 0;
}

void bpe_free(bpe *b)
{
    if (b == NULL)
        return;
    map_free(&b->vocab);
    map_free(&b->ranks);
    free(b->pieces);
    free(b);
}

size_t bpe_vocab_size(const bpe *b)
{
    return b->n_ids;
}

/* ---- the pre-tokenizer ----------------------------------------------------- */

/* JavaScript's \s. */
static bool is_space(int32_t c)
{
    return (c >= 0x09 && c <= 0x0d) || c == 0x20 || c == 0xa0 || c == 0x1680 ||
           (c >= 0x2000 && c <= 0x200a) || c == 0x2028 || c == 0x2029 ||
           c == 0x202f || c == 0x205f || c == 0x3000 || c == 0xfeff;
}

static bool is_letter(int32_t c)
{
    const utf8proc_category_t k = utf8proc_category(c);
    return k == UTF8PROC_CATEGORY_LU || k == UTF8PROC_CATEGORY_LL ||
           k == UTF8PROC_CATEGORY_LT || k == UTF8PROC_CATEGORY_LM ||
           k == UTF8PROC_CATEGORY_LO;
}

static bool is_number(int32_t c)
{
    const utf8proc_category_t k = utf8proc_category(c);
    return k == UTF8PROC_CATEGORY_ND || k == UTF8PROC_CATEGORY_NL ||
           k == UTF8PROC_CATEGORY_NO;
}

static bool is_other(int32_t c)
{
    return !is_space(c) && !is_letter(c) && !is_number(c);
}

/* The code points of the text, decoded once. */
typedef struct {
    int32_t *cp; /* n code points */
    size_t *at;  /* n + 1 byte offsets */
    size_t n;
} decoded;

/* The end (in code points) of a run of class from i (i itself must be in
 * it). */
static size_t run_end(const decoded *d, size_t i, bool (*in)(int32_t))
{
    while (i < d->n && in(d->cp[i]))
        i++;
    return i;
}

/* The length, in code points, of the piece starting at i (> 0). */
static size_t piece_at(const decoded *d, size_t i)
{
    const int32_t c = d->cp[i];
    if (c == '\'' && i + 1 < d->n) {
        static const char *const contractions[] = {"s", "t",  "re", "ve",
                                                   "m", "ll", "d"};
        for (size_t k = 0; k < 7; k++) {
            const char *s = contractions[k];
            size_t j = 0;
            while (s[j] && i + 1 + j < d->n && d->cp[i + 1 + j] == s[j])
                j++;
            if (s[j] == '\0')
                return 1 + j;
        }
    }
    // ' ?\p{L}+', ' ?\p{N}+', ' ?[^\s\p{L}\p{N}]+'
    bool (*const classes[])(int32_t) = {is_letter, is_number, is_other};
    for (size_t k = 0; k < 3; k++) {
        size_t j = i;
        if (d->cp[j] == ' ' && j + 1 < d->n && classes[k](d->cp[j + 1]))
            j++;
        if (classes[k](d->cp[j]))
            return run_end(d, j, classes[k]) - i;
    }
    // '\s+(?!\S)': a run of spaces, less its last if a non-space follows
    // (and it is not the only one); else '\s+'
    const size_t end = run_end(d, i, is_space);
    if (end < d->n && end - i > 1)
        return end - i - 1;
    return end - i;
}

/* ---- merges ---------------------------------------------------------------- */

/* One piece's symbols: byte-encoded text, symbol k at text[start[k] ..
 * start[k + 1]). Merging two symbols removes a boundary. */
static int encode_piece(int32_t **ids, size_t *n, size_t *cap, const bpe *b,
                        const char *bytes, size_t len, mx_error *err)
{
    char *text = malloc(2 * len + 1);
    size_t *start = malloc((len + 1) * sizeof *start);
    char *pair = malloc(4 * len + 2);
    if (text == NULL || start == NULL || pair == NULL) {
        free(text);
        free(start);
        free(pair);
        return err_nomem(err, _("tokens"));
    }
    size_t tl = 0, syms = len;
    for (size_t i = 0; i < len; i++) {
        const char *e = b->enc[(unsigned char)bytes[i]];
        const size_t el = strlen(e);
        start[i] = tl;
        memcpy(text + tl, e, el);
        tl += el;
    }
    start[len] = tl;
    while (syms > 1) {
        // the adjacent pair of lowest rank
        int32_t best = -1;
        size_t best_k = 0;
        for (size_t k = 0; k + 1 < syms; k++) {
            const size_t a = start[k + 1] - start[k],
                         c = start[k + 2] - start[k + 1];
            memcpy(pair, text + start[k], a);
            pair[a] = ' ';
            memcpy(pair + a + 1, text + start[k + 1], c);
            int32_t r;
            if (map_get(&b->ranks, pair, a + 1 + c, &r) &&
                (best < 0 || r < best)) {
                best = r;
                best_k = k;
            }
        }
        if (best < 0)
            break;
        // merge every occurrence of that pair, left to right
        const size_t a = start[best_k + 1] - start[best_k];
        const size_t c = start[best_k + 2] - start[best_k + 1];
        const char *first = text + start[best_k];
        const char *second = text + start[best_k + 1];
        size_t out = 0;
        for (size_t k = 0; k < syms;) {
            start[out++] = start[k];
            // text never changes, only the boundaries: first and second
            // stay valid while start[] is rewritten behind k
            if (k + 1 < syms && start[k + 1] - start[k] == a &&
                start[k + 2] - start[k + 1] == c &&
                memcmp(text + start[k], first, a) == 0 &&
                memcmp(text + start[k + 1], second, c) == 0)
                k += 2;
            else
                k += 1;
        }
        start[out] = tl;
        syms = out;
    }
    int rc = 0;
    for (size_t k = 0; k < syms && rc == 0; k++) {
        int32_t id;
        if (!map_get(&b->vocab, text + start[k], start[k + 1] - start[k],
                     &id)) {
            rc = err_input(err, _("vocab.json has no token for the piece %.*s"),
                           (int)(start[k + 1] - start[k]), text + start[k]);
            break;
        }
        if (*n == *cap) {
            const size_t nc = *cap ? 2 * *cap : 64;
            int32_t *ni = realloc(*ids, nc * sizeof *ni);
            if (ni == NULL) {
                rc = err_nomem(err, _("tokens"));
                break;
            }
            *ids = ni;
            *cap = nc;
        }
        (*ids)[(*n)++] = id;
    }
    free(text);
    free(start);
    free(pair);
    return rc;
}

int bpe_encode(int32_t **ids, size_t *n, const bpe *b, const char *text,
               size_t len, mx_error *err)
{
    *ids = NULL;
    *n = 0;
    decoded d = {malloc((len + 1) * sizeof(int32_t)),
                 malloc((len + 2) * sizeof(size_t)), 0};
    if (d.cp == NULL || d.at == NULL) {
        free(d.cp);
        free(d.at);
        return err_nomem(err, _("tokens"));
    }
    for (size_t i = 0; i < len;) {
        utf8proc_int32_t c;
        const utf8proc_ssize_t k =
            utf8proc_iterate((const utf8proc_uint8_t *)text + i,
                             (utf8proc_ssize_t)(len - i), &c);
        if (k <= 0) {
            free(d.cp);
            free(d.at);
            return err_input(err,
                             _("the text is not valid UTF-8 (at byte %zu)"), i);
        }
        d.at[d.n] = i;
        d.cp[d.n++] = c;
        i += (size_t)k;
    }
    d.at[d.n] = len;
    size_t cap = 0;
    int rc = 0;
    for (size_t i = 0; i < d.n && rc == 0;) {
        const size_t k = piece_at(&d, i);
        rc = encode_piece(ids, n, &cap, b, text + d.at[i],
                          d.at[i + k] - d.at[i], err);
        i += k;
    }
    free(d.cp);
    free(d.at);
    if (rc != 0) {
        free(*ids);
        *ids = NULL;
        *n = 0;
    }
    return rc;
}

/* ---- labels ---------------------------------------------------------------- */

void bpe_label(char *buf, size_t size, const bpe *b, int32_t id)
{
    if (size == 0)
        return;
    buf[0] = '\0';
    if (id < 0 || (size_t)id >= b->n_ids || b->pieces[id] == NULL) {
        snprintf(buf, size, "<id %ld>", (long)id);
        return;
    }
    // the piece's raw bytes
    unsigned char raw[256];
    size_t n = 0;
    const utf8proc_uint8_t *p = (const utf8proc_uint8_t *)b->pieces[id];
    for (utf8proc_ssize_t k; *p && n < sizeof raw; p += k) {
        utf8proc_int32_t c;
        k = utf8proc_iterate(p, -1, &c);
        if (k <= 0 || c < 0 || c >= 0x180 || b->dec[c] < 0)
            break;
        raw[n++] = (unsigned char)b->dec[c];
    }
    size_t out = 0;
#define PUT(...)                                                     \
    do {                                                             \
        int w = snprintf(buf + out, size - out, __VA_ARGS__);        \
        out = w < 0 || (size_t)w >= size - out ? size - 1 : out + w; \
    } while (0)
    for (size_t i = 0; i < n && out + 1 < size;) {
        utf8proc_int32_t c;
        const utf8proc_ssize_t k =
            utf8proc_iterate(raw + i, (utf8proc_ssize_t)(n - i), &c);
        if (i == 0 && raw[0] == ' ') {
            PUT("\u2423");
            i++;
        } else if (raw[i] == '\n') {
            PUT("\\n");
            i++;
        } else if (raw[i] == '\t') {
            PUT("\\t");
            i++;
        } else if (k > 0 && c >= 0x20 && c != 0x7f) {
            PUT("%.*s", (int)k, (const char *)raw + i);
            i += (size_t)k;
        } else {
            // bytes that are not whole characters, or controls: in hex
            PUT("<%02x", raw[i]);
            i++;
            while (i < n && out + 1 < size &&
                   utf8proc_iterate(raw + i, (utf8proc_ssize_t)(n - i), &c) <=
                       0) {
                PUT(" %02x", raw[i]);
                i++;
            }
            PUT(">");
        }
    }
#undef PUT
}
