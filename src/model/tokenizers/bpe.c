/* bpe.c: GPT-2's byte-level BPE (bpe.h). */
#include "model/tokenizers/bpe.h"

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <utf8proc.h>

#include "base/i18n.h"
#include "io/file_read.h"
#include "io/json.h"
#include "model/tokenizers/bpe_merge.h"
#include "model/tokenizers/tok_text.h"

/* ---- the tokenizer -------------------------------------------------------- */

struct bpe {
    tok_map vocab; /* token (byte-encoded) -> id */
    tok_map ranks; /* "first second" -> rank */
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

/* The error of member m of vocab.json, whose id is no whole number
 * from 0 to 2^52: a negative or a larger whole number is said so, with
 * the ids count tokens have (0 to count - 1); anything else (a fraction,
 * a string) is not a whole number. */
static int bad_id(const json_doc *doc, const json_node *m, size_t count,
                  const char *path, mx_error *err)
{
    const bool whole = m->type == JSON_NUMBER && isfinite(m->number) &&
                       m->number == floor(m->number);
    if (whole && m->number < 0)
        return err_input(err,
                         _("%s: the id of %s is %.*s, a negative number: "
                           "with %zu tokens the ids go from 0 to %zu"),
                         path, json_key(doc, m), (int)m->len, json_str(doc, m),
                         count, count - 1);
    if (whole)
        return err_input(err,
                         _("%s: the id of %s is %.*s, too large: with %zu "
                           "tokens the ids go from 0 to %zu"),
                         path, json_key(doc, m), (int)m->len, json_str(doc, m),
                         count, count - 1);
    return err_input(err, _("%s: the id of %s is not a whole number"), path,
                     json_key(doc, m));
}

/* Every id of the object root (vocab.json) is a whole number below the
 * number of tokens, as when each id from 0 to the largest names one
 * token; else err names an id no token has and the largest, before
 * anything is allocated for so many ids. */
static int check_ids(const json_doc *doc, const json_node *root,
                     const char *path, mx_error *err)
{
    const size_t count = root->len;
    const json_node *largest = NULL;
    size_t max_id = 0;
    for (const json_node *m = json_first(doc, root); m; m = json_next(doc, m)) {
        size_t id;
        if (!json_size(m, (uint64_t)1 << 52, &id))
            return bad_id(doc, m, count, path, err);
        if (largest == NULL || id > max_id) {
            largest = m;
            max_id = id;
        }
    }
    if (max_id < count)
        return 0;
    // count tokens, one id past count - 1: an id below count is free
    bool *used = calloc(count, sizeof *used);
    if (used == NULL)
        return err_nomem(err, path);
    for (const json_node *m = json_first(doc, root); m; m = json_next(doc, m))
        if ((size_t)m->number < count)
            used[(size_t)m->number] = true;
    size_t free_id = 0;
    while (used[free_id])
        free_id++;
    free(used);
    return err_input(
        err,
        _("%s: no token has the id %zu, and %s has the id %zu: with %zu tokens the ids go from 0 to %zu"),
        path, free_id, json_key(doc, largest), max_id, count, count - 1);
}

static int read_vocab(bpe *b, const char *path, mx_error *err)
{
    char *text;
    size_t len;
    if (file_read_small(&text, &len, path, (size_t)64 << 20, err) != 0)
        return -1;
    json_doc doc;
    const int parsed = json_parse(&doc, text, len, path, err);
    free(text);
    if (parsed != 0)
        return -1;
    const json_node *root = json_root(&doc);
    if (root->type != JSON_OBJECT || root->len == 0) {
        json_free(&doc);
        return err_input(err, _("%s: not a JSON object of tokens and ids"),
                         path);
    }
    if (tok_map_init(&b->vocab, root->len) != 0) {
        json_free(&doc);
        return err_nomem(err, path);
    }
    int rc = check_ids(&doc, root, path, err);
    size_t max_id = 0;
    for (const json_node *m = json_first(&doc, root); m && rc == 0;
         m = json_next(&doc, m)) {
        const size_t id = (size_t)m->number; // below count: check_ids
        if (id > max_id)
            max_id = id;
        const int put =
            tok_map_put(&b->vocab, json_key(&doc, m), m->key_len, (int32_t)id);
        if (put > 0)
            rc = err_input(err, _("%s: token %s appears twice"), path,
                           json_key(&doc, m));
        else if (put < 0)
            rc = err_nomem(err, path);
    }
    if (rc != 0) {
        json_free(&doc);
        return -1;
    }
    json_free(&doc);
    b->n_ids = max_id + 1;
    b->pieces = calloc(b->n_ids, sizeof *b->pieces);
    if (b->pieces == NULL)
        return err_nomem(err, path);
    // every id from 0 to the largest, each for one token
    for (size_t i = 0; i < b->vocab.cap; i++) {
        char *key = b->vocab.keys[i];
        if (key == NULL)
            continue;
        char **at = &b->pieces[b->vocab.values[i]];
        if (*at != NULL)
            return err_input(err,
                             _("%s: the tokens %s and %s have one id, %ld"),
                             path, *at, key, (long)b->vocab.values[i]);
        *at = key;
    }
    for (size_t id = 0; id < b->n_ids; id++)
        if (b->pieces[id] == NULL)
            return err_input(
                err, _("%s: no token has the id %zu (the ids go to %zu)"), path,
                id, max_id);
    return 0;
}

static int read_merges(bpe *b, const char *path, mx_error *err)
{
    char *text;
    size_t len;
    if (file_read_small(&text, &len, path, (size_t)64 << 20, err) != 0)
        return -1;
    size_t lines = 1;
    for (size_t i = 0; i < len; i++)
        lines += text[i] == '\n';
    if (tok_map_init(&b->ranks, lines) != 0) {
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
            const int put = tok_map_put(&b->ranks, line, n, rank++);
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
    tok_map_free(&b->vocab);
    tok_map_free(&b->ranks);
    free(b->pieces);
    free(b);
}

size_t bpe_vocab_size(const bpe *b)
{
    return b->n_ids;
}

bool bpe_token_id(const bpe *b, const char *s, size_t n, int32_t *id)
{
    return tok_map_get(&b->vocab, s, n, id);
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

/* One piece's ids, appended to (*ids)[*n ..] (*cap allocated). */
static int encode_piece(int32_t **ids, size_t *n, size_t *cap, const bpe *b,
                        const char *bytes, size_t len, mx_error *err)
{
    // the piece's bytes as bytes_to_unicode()'s characters, one symbol
    // each; then encoder.py's merges, round by round
    char *text = malloc(2 * len + 1);
    size_t tl = 0;
    for (size_t i = 0; i < len && text != NULL; i++) {
        const char *e = b->enc[(unsigned char)bytes[i]];
        memcpy(text + tl, e, strlen(e));
        tl += strlen(e);
    }
    bpe_word w = {0};
    int rc = 0;
    if (text == NULL || bpe_word_init(&w, text, tl) != 0)
        rc = err_nomem(err, _("tokens"));
    for (size_t i = 0, p = 0; i < len && rc == 0; i++) {
        const size_t el = strlen(b->enc[(unsigned char)bytes[i]]);
        bpe_word_add(&w, p, el);
        p += el;
    }
    if (rc == 0 && bpe_word_merge(&w, &b->ranks, ' ', BPE_MERGE_BY_ROUND) != 0)
        rc = err_nomem(err, _("tokens"));
    for (size_t p = 0; p < w.tl && rc == 0; p += w.len[p]) {
        int32_t id;
        if (!tok_map_get(&b->vocab, text + p, w.len[p], &id)) {
            rc = err_input(err, _("vocab.json has no token for the piece %.*s"),
                           (int)w.len[p], text + p);
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
    bpe_word_free(&w);
    free(text);
    return rc;
}

int bpe_encode(int32_t **ids, size_t *n, const bpe *b, const char *text,
               size_t len, size_t max, mx_error *err)
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
    for (size_t i = 0; i < d.n && rc == 0 && *n <= max;) {
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

size_t bpe_bytes(unsigned char *raw, size_t cap, const bpe *b, int32_t id)
{
    if (id < 0 || (size_t)id >= b->n_ids || b->pieces[id] == NULL)
        return 0;
    size_t n = 0;
    const utf8proc_uint8_t *p = (const utf8proc_uint8_t *)b->pieces[id];
    for (utf8proc_ssize_t k; *p && n < cap; p += k) {
        utf8proc_int32_t c;
        k = utf8proc_iterate(p, -1, &c);
        if (k <= 0 || c < 0 || c >= 0x180 || b->dec[c] < 0)
            break;
        raw[n++] = (unsigned char)b->dec[c];
    }
    return n;
}

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
    const size_t n = bpe_bytes(raw, sizeof raw, b, id);
    bpe_label_bytes(buf, size, raw, n);
}

void bpe_label_bytes(char *buf, size_t size, const unsigned char *raw, size_t n)
{
    if (size == 0)
        return;
    buf[0] = '\0';
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
