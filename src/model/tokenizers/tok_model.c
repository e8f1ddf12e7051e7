/* tok_model.c: BPE and WordPiece over tokenizer.json's vocabulary
 * (tok_model.h). */
#include "model/tokenizers/tok_model.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/i18n.h"
#include "model/tokenizers/bpe_merge.h"

enum model_kind { MODEL_BPE, MODEL_WORDPIECE };

struct tok_model {
    enum model_kind kind;
    const tok_map *vocab; /* not owned */
    tok_map ranks;        /* BPE: "first\xffsecond" -> rank */
    int32_t unk;          /* unk_token's id, or -1 */
    bool byte_fallback, fuse_unk, ignore_merges; /* BPE */
    char *suffix; /* BPE: end_of_word_suffix, or NULL; owned */
    size_t suffix_len;
    char *prefix; /* WordPiece: continuing_subword_prefix; owned */
    size_t prefix_len;
    size_t max_chars; /* WordPiece: max_input_chars_per_word */
};

/* A string member, or NULL if absent, null or empty. */
static const json_node *text_member(const json_doc *doc, const json_node *o,
                                    const char *key)
{
    const json_node *v = json_get(doc, o, key);
    return v != NULL && v->type == JSON_STRING && v->len > 0 ? v : NULL;
}

static int dup(char **out, size_t *len, const json_doc *doc, const json_node *v,
               const char *what, mx_error *err)
{
    *out = malloc(v->len + 1);
    if (*out == NULL)
        return err_nomem(err, what);
    memcpy(*out, json_str(doc, v), v->len + 1);
    *len = v->len;
    return 0;
}

const json_node *tok_model_vocab_node(const json_doc *doc,
                                      const json_node *node)
{
    return json_get(doc, node, "vocab");
}

const char *tok_model_unk_name(const json_doc *doc, const json_node *node)
{
    const json_node *u = text_member(doc, node, "unk_token");
    return u ? json_str(doc, u) : NULL;
}

/* One merge, "a b" (the first two of its space-separated parts, as the
 * reference's split(" ", 2)) or ["a", "b"], as "a\xffb" (0xff is never
 * in UTF-8). */
static int merge_key(tok_buf *key, const json_doc *doc, const json_node *m)
{
    key->n = 0;
    if (m->type == JSON_STRING) {
        const char *s = json_str(doc, m), *end = s + m->len;
        const char *sp = memchr(s, ' ', m->len);
        if (sp == NULL)
            return 1;
        const char *sp2 = memchr(sp + 1, ' ', (size_t)(end - sp - 1));
        return tok_buf_add(key, s, (size_t)(sp - s)) ||
               tok_buf_add(key, "\xff", 1) ||
               tok_buf_add(key, sp + 1, (size_t)((sp2 ? sp2 : end) - sp - 1));
    }
    const json_node *a = json_first(doc, m), *b = a ? json_next(doc, a) : NULL;
    if (m->type != JSON_ARRAY || m->len != 2 || a->type != JSON_STRING ||
        b->type != JSON_STRING)
        return 1;
    return tok_buf_add(key, json_str(doc, a), a->len) ||
           tok_buf_add(key, "\xff", 1) ||
           tok_buf_add(key, json_str(doc, b), b->len);
}

/* The merge key ("a\xffb", merge_key) of rank refused unless a, b and
 * ab are in the vocabulary, as the reference's BPE builder refuses it
 * (tokenizers' models/bpe/model.rs: MergeTokenOutOfVocabulary). whole:
 * room for ab. */
static int merge_in_vocab(const tok_model *m, const tok_buf *key,
                          tok_buf *whole, long rank, const char *what,
                          mx_error *err)
{
    const char *sep = memchr(key->s, 0xff, key->n);
    const size_t na = (size_t)(sep - key->s), nb = key->n - na - 1;
    whole->n = 0;
    if (tok_buf_add(whole, key->s, na) || tok_buf_add(whole, sep + 1, nb))
        return err_nomem(err, what);
    const struct {
        const char *s;
        size_t n;
    } parts[] = {{key->s, na}, {sep + 1, nb}, {whole->s, whole->n}};
    for (size_t i = 0; i < 3; i++) {
        int32_t id;
        if (!tok_map_get(m->vocab, parts[i].s, parts[i].n, &id))
            /* TRANSLATORS: the file, the merge's rank, its two tokens,
             * and the one the vocabulary lacks */
            return err_input(err,
                             _("%s: merge %ld (%.*s %.*s): the token %.*s is "
                               "not in the vocabulary"),
                             what, rank, (int)na, key->s, (int)nb, sep + 1,
                             (int)parts[i].n, parts[i].s);
    }
    return 0;
}

static int read_merges(tok_model *m, const json_doc *doc, const json_node *o,
                       const char *what, mx_error *err)
{
    const json_node *merges = json_get(doc, o, "merges");
    if (merges == NULL || merges->type != JSON_ARRAY)
        return err_input(err, _("%s: %s has no \"%s\""), what, "BPE", "merges");
    if (tok_map_init(&m->ranks, merges->len) != 0)
        return err_nomem(err, what);
    tok_buf key = {0}, whole = {0};
    int32_t rank = 0;
    int rc = 0;
    for (const json_node *e = json_first(doc, merges); e && rc == 0;
         e = json_next(doc, e)) {
        const int k = merge_key(&key, doc, e);
        if (k != 0) {
            rc = k < 0 ? err_nomem(err, what)
                       : err_input(err, _("%s: merge %ld is not two tokens"),
                                   what, (long)rank);
            break;
        }
        if (merge_in_vocab(m, &key, &whole, (long)rank, what, err) != 0) {
            rc = -1;
            break;
        }
        // a merge listed twice has its later rank, as in the
        // reference's Map
        if (tok_map_set(&m->ranks, key.s, key.n, rank) != 0)
            rc = err_nomem(err, what);
        rank++;
    }
    tok_buf_free(&key);
    tok_buf_free(&whole);
    return rc;
}

static int read_wordpiece(tok_model *m, const json_doc *doc, const json_node *o,
                          const char *what, mx_error *err)
{
    m->kind = MODEL_WORDPIECE;
    const char *unk = tok_model_unk_name(doc, o);
    const json_node *p = json_get(doc, o, "continuing_subword_prefix");
    if (p != NULL && p->type == JSON_STRING) {
        if (dup(&m->prefix, &m->prefix_len, doc, p, what, err) != 0)
            return -1;
    } else {
        return err_input(err, _("%s: %s has no \"%s\""), what, "WordPiece",
                         "continuing_subword_prefix");
    }
    size_t max = 100;
    const json_node *mx = json_get(doc, o, "max_input_chars_per_word");
    if (mx != NULL && !json_size(mx, (size_t)1 << 30, &max))
        return err_input(err, _("%s: \"%s\" is not a whole number"), what,
                         "max_input_chars_per_word");
    m->max_chars = max;
    if (m->unk < 0)
        return err_input(err, _("%s: the token %s is not in the vocabulary"),
                         what, unk ? unk : "unk_token");
    return 0;
}

int tok_model_read(tok_model **out, const json_doc *doc, const json_node *node,
                   const tok_map *vocab, const char *what, mx_error *err)
{
    *out = NULL;
    const json_node *t = json_get(doc, node, "type");
    if (t == NULL || t->type != JSON_STRING)
        return err_input(err, _("%s: %s has no \"%s\""), what, "model", "type");
    tok_model *m = calloc(1, sizeof *m);
    if (m == NULL)
        return err_nomem(err, what);
    m->vocab = vocab;
    m->unk = -1;
    const char *unk = tok_model_unk_name(doc, node);
    if (unk != NULL && !tok_map_get(vocab, unk, strlen(unk), &m->unk))
        m->unk = -1;
    int rc;
    if (strcmp(json_str(doc, t), "BPE") == 0) {
        m->kind = MODEL_BPE;
        m->byte_fallback = tok_json_flag(doc, node, "byte_fallback", false);
        m->fuse_unk = tok_json_flag(doc, node, "fuse_unk", false);
        m->ignore_merges = tok_json_flag(doc, node, "ignore_merges", false);
        const json_node *sfx = text_member(doc, node, "end_of_word_suffix");
        rc = sfx ? dup(&m->suffix, &m->suffix_len, doc, sfx, what, err) : 0;
        if (rc == 0 && text_member(doc, node, "continuing_subword_prefix"))
            rc = err_input(err, _("%s: %s \"%s\" is not supported"), what,
                           "BPE", "continuing_subword_prefix");
        if (rc == 0 && json_get(doc, node, "dropout") != NULL &&
            json_get(doc, node, "dropout")->type == JSON_NUMBER)
            rc = err_input(err, _("%s: %s \"%s\" is not supported"), what,
                           "BPE", "dropout");
        rc = rc ? rc : read_merges(m, doc, node, what, err);
    } else if (strcmp(json_str(doc, t), "WordPiece") == 0) {
        rc = read_wordpiece(m, doc, node, what, err);
    } else {
        rc = err_input(err, _("%s: %s \"%s\" is not supported"), what, "model",
                       json_str(doc, t));
    }
    if (rc != 0) {
        tok_model_free(m);
        return -1;
    }
    *out = m;
    return 0;
}

void tok_model_free(tok_model *m)
{
    if (m == NULL)
        return;
    tok_map_free(&m->ranks);
    free(m->suffix);
    free(m->prefix);
    free(m);
}

static int push(int32_t **ids, size_t *n, size_t *cap, int32_t id)
{
    if (*n == *cap) {
        const size_t nc = *cap ? 2 * *cap : 64;
        int32_t *ni = realloc(*ids, nc * sizeof *ni);
        if (ni == NULL)
            return -1;
        *ids = ni;
        *cap = nc;
    }
    (*ids)[(*n)++] = id;
    return 0;
}

/* ---- BPE ------------------------------------------------------------------ */

/* One symbol's ids: itself, its bytes, unk_token or nothing. */
static int symbol_ids(int32_t **ids, size_t *n, size_t *cap, const tok_model *m,
                      const char *t, size_t len)
{
    int32_t id;
    if (tok_map_get(m->vocab, t, len, &id))
        return push(ids, n, cap, id);
    if (m->byte_fallback && len <= 64) {
        int32_t bytes[64];
        size_t nb = 0;
        for (; nb < len; nb++) {
            char name[8];
            snprintf(name, sizeof name, "<0x%02X>", (unsigned char)t[nb]);
            if (!tok_map_get(m->vocab, name, 6, &bytes[nb]))
                break;
        }
        if (nb == len) {
            for (size_t i = 0; i < nb; i++)
                if (push(ids, n, cap, bytes[i]) != 0)
                    return -1;
            return 0;
        }
    }
    return m->unk < 0 ? 0 : push(ids, n, cap, m->unk);
}

static int encode_bpe(int32_t **ids, size_t *n, size_t *cap, const tok_model *m,
                      const char *piece, size_t len, mx_error *err)
{
    int32_t id;
    if (len == 0)
        return 0;
    if (m->ignore_merges && tok_map_get(m->vocab, piece, len, &id))
        return push(ids, n, cap, id) ? err_nomem(err, _("tokens")) : 0;
    tok_buf word = {0};
    bpe_word w = {0};
    int rc = tok_buf_add(&word, piece, len) ||
             tok_buf_add(&word, m->suffix, m->suffix_len);
    rc = rc ? rc : bpe_word_init(&w, word.s, word.n);
    for (size_t i = 0; i < len && rc == 0;) {
        int32_t c;
        size_t k = tok_utf8_next(word.s + i, len - i, &c);
        if (k == 0)
            k = 1;
        if (i + k == len) // the suffix joins the last character
            k += m->suffix_len;
        bpe_word_add(&w, i, k);
        i += k;
    }
    // merges one pair at a time, as the reference's priority queue does
    rc = rc ? rc
            : bpe_word_merge(&w, &m->ranks, '\xff', BPE_MERGE_ONE_AT_A_TIME);
    for (size_t p = 0; p < w.tl && rc == 0; p += w.len[p])
        rc = symbol_ids(ids, n, cap, m, w.text + p, w.len[p]);
    bpe_word_free(&w);
    tok_buf_free(&word);
    return rc ? err_nomem(err, _("tokens")) : 0;
}

/* ---- WordPiece ------------------------------------------------------------ */

static int encode_wordpiece(int32_t **ids, size_t *n, size_t *cap,
                            const tok_model *m, const char *piece, size_t len,
                            mx_error *err)
{
    size_t chars = 0;
    for (size_t i = 0; i < len; chars++) {
        int32_t c;
        const size_t k = tok_utf8_next(piece + i, len - i, &c);
        i += k ? k : 1;
    }
    const size_t first = *n;
    tok_buf sub = {0};
    bool unknown = chars > m->max_chars;
    for (size_t start = 0; start < len && !unknown;) {
        size_t end = len;
        int32_t id = -1;
        while (end > start) {
            sub.n = 0;
            if ((start > 0 && tok_buf_add(&sub, m->prefix, m->prefix_len)) ||
                tok_buf_add(&sub, piece + start, end - start)) {
                tok_buf_free(&sub);
                return err_nomem(err, _("tokens"));
            }
            if (tok_map_get(m->vocab, sub.s, sub.n, &id))
                break;
            id = -1;
            do // back one whole character
                end--;
            while (end > start && ((unsigned char)piece[end] & 0xc0) == 0x80);
        }
        if (id < 0) {
            unknown = true;
            break;
        }
        if (push(ids, n, cap, id) != 0) {
            tok_buf_free(&sub);
            return err_nomem(err, _("tokens"));
        }
        start = end;
    }
    tok_buf_free(&sub);
    if (unknown) {
        *n = first;
        return push(ids, n, cap, m->unk) ? err_nomem(err, _("tokens")) : 0;
    }
    return 0;
}

size_t tok_model_fuse_unk(const tok_model *m, int32_t *ids, size_t start,
                          size_t n)
{
    if (!m->fuse_unk || m->unk < 0)
        return n;
    size_t out = start;
    for (size_t i = start; i < n; i++)
        if (!(ids[i] == m->unk && out > start && ids[out - 1] == m->unk))
            ids[out++] = ids[i];
    return out;
}

int tok_model_encode(int32_t **ids, size_t *n, size_t *cap, const tok_model *m,
                     const char *piece, size_t len, mx_error *err)
{
    if (m->kind == MODEL_BPE)
        return encode_bpe(ids, n, cap, m, piece, len, err);
    return encode_wordpiece(ids, n, cap, m, piece, len, err);
}
