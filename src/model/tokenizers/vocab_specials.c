/* vocab_specials.c: a vocab.json folder's special tokens split out of a
 * text, the prefix space and the bos token put in front
 * (vocab_specials.h); read by vocab_specials_files.c or, in the page's
 * core, vocab_specials_page.c. */
#include "model/tokenizers/vocab_specials.h"

#include <stdlib.h>
#include <string.h>

#include "base/i18n.h"
#include "io/config_flag.h"
#include "model/tokenizers/tok_text.h"

struct vocab_specials {
    tok_list tokens; /* the special tokens, each once */
    int32_t *ids;    /* tokens.n: each one's id in vocab.json */
    size_t ids_cap;
    int32_t bos;       /* the id put in front of a text's ids */
    size_t n_bos;      /* 1 with add_bos_token, else 0 */
    bool prefix_space; /* add_prefix_space: " " in front of the text */
};

vocab_specials *vocab_specials_new(void)
{
    return calloc(1, sizeof(vocab_specials));
}

int vocab_specials_add(vocab_specials *v, const char *s, size_t n, int32_t id)
{
    for (size_t i = 0; i < v->tokens.n; i++)
        if (v->tokens.len[i] == n && memcmp(v->tokens.s[i], s, n) == 0)
            return 0;
    if (v->tokens.n == v->ids_cap) {
        const size_t cap = v->ids_cap ? 2 * v->ids_cap : 8;
        int32_t *ids = realloc(v->ids, cap * sizeof *ids);
        if (ids == NULL)
            return -1;
        v->ids = ids;
        v->ids_cap = cap;
    }
    if (tok_list_add(&v->tokens, s, n) != 0)
        return -1;
    v->ids[v->tokens.n - 1] = id;
    return 0;
}

void vocab_specials_set_bos(vocab_specials *v, int32_t id)
{
    v->bos = id;
    v->n_bos = 1;
}

/* A flag of tokenizer_config.json; null is false, as Python reads it. */
static int flag(bool *out, const json_doc *doc, const char *key,
                const char *path, mx_error *err)
{
    const json_node *n = json_get(doc, json_root(doc), key);
    *out = false;
    if (n == NULL || n->type == JSON_NULL)
        return 0;
    return config_flag(out, doc, key, false, path, err);
}

int vocab_specials_flags(bool *add_bos, vocab_specials *v, const json_doc *doc,
                         const char *path, mx_error *err)
{
    return flag(&v->prefix_space, doc, "add_prefix_space", path, err) != 0 ||
                   flag(add_bos, doc, "add_bos_token", path, err) != 0
               ? -1
               : 0;
}

void vocab_specials_free(vocab_specials *s)
{
    if (s == NULL)
        return;
    tok_list_free(&s->tokens);
    free(s->ids);
    free(s);
}

void vocab_specials_before(const int32_t **before, size_t *n,
                           const vocab_specials *s)
{
    *before = s != NULL && s->n_bos > 0 ? &s->bos : NULL;
    *n = s != NULL ? s->n_bos : 0;
}

/* The longest special token at text[0..len), as the index into s's
 * tokens; -1 where none starts there. */
static long special_at(const vocab_specials *s, const char *text, size_t len)
{
    long best = -1;
    for (size_t i = 0; i < s->tokens.n; i++) {
        const size_t k = s->tokens.len[i];
        if (k > 0 && k <= len && memcmp(text, s->tokens.s[i], k) == 0 &&
            (best < 0 || k > s->tokens.len[best]))
            best = (long)i;
    }
    return best;
}

/* ids[0..m) appended to (*out)[*n ..] (*cap allocated). */
static int append(int32_t **out, size_t *n, size_t *cap, const int32_t *ids,
                  size_t m, mx_error *err)
{
    if (*n + m > *cap) {
        size_t nc = *cap ? *cap : 64;
        while (nc < *n + m)
            nc *= 2;
        int32_t *grown = realloc(*out, nc * sizeof *grown);
        if (grown == NULL)
            return err_nomem(err, _("tokens"));
        *out = grown;
        *cap = nc;
    }
    if (m > 0)
        memcpy(*out + *n, ids, m * sizeof *ids);
    *n += m;
    return 0;
}

/* text[0..len): the stretches between special tokens through BPE, each
 * token its id, appended to *ids (*n, *cap), until there are more than
 * max. */
static int split(int32_t **ids, size_t *n, size_t *cap, const vocab_specials *s,
                 const bpe *b, const char *text, size_t len, size_t max,
                 mx_error *err)
{
    size_t start = 0;
    int rc = 0;
    for (size_t i = 0; i <= len && rc == 0 && *n <= max;) {
        const long k = i < len ? special_at(s, text + i, len - i) : -1;
        if (k < 0 && i < len) {
            i++;
            continue;
        }
        if (i > start) {
            int32_t *part;
            size_t m;
            rc = bpe_encode(&part, &m, b, text + start, i - start, max - *n,
                            err);
            if (rc == 0)
                rc = append(ids, n, cap, part, m, err);
            free(part);
        }
        if (k < 0 || rc != 0)
            break;
        rc = append(ids, n, cap, &s->ids[k], 1, err);
        i += s->tokens.len[k];
        start = i;
    }
    return rc;
}

int vocab_specials_encode(int32_t **ids, size_t *n, const vocab_specials *s,
                          const bpe *b, const char *text, size_t len,
                          bool add_special, size_t max, mx_error *err)
{
    *ids = NULL;
    *n = 0;
    if (s == NULL)
        return bpe_encode(ids, n, b, text, len, max, err);
    size_t cap = 0;
    int rc = add_special ? append(ids, n, &cap, &s->bos, s->n_bos, err) : 0;
    // add_prefix_space: the text with " " in front
    char *spaced = s->prefix_space ? malloc(len + 1) : NULL;
    if (s->prefix_space && spaced == NULL)
        rc = err_nomem(err, _("tokens"));
    else if (spaced != NULL) {
        spaced[0] = ' ';
        memcpy(spaced + 1, text, len);
        text = spaced;
        len++;
    }
    if (rc == 0 && *n <= max)
        rc = split(ids, n, &cap, s, b, text, len, max, err);
    free(spaced);
    if (rc != 0) {
        free(*ids);
        *ids = NULL;
        *n = 0;
    }
    return rc;
}
