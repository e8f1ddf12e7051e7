/* vocab_specials.c: a vocab.json folder's special tokens, read and split
 * out of a text (vocab_specials.h). */
#include "model/tokenizers/vocab_specials.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/i18n.h"
#include "io/file_read.h"
#include "io/json.h"
#include "model/tokenizers/tok_text.h"

struct vocab_specials {
    tok_list tokens; /* the special tokens, each once */
    int32_t *ids;    /* tokens.n: each one's id in vocab.json */
    size_t ids_cap;
};

/* The keys of tokenizer_config.json and special_tokens_map.json that name
 * one special token each (transformers' SPECIAL_TOKENS_ATTRIBUTES). */
static const char *const slots[] = {"bos_token", "eos_token", "unk_token",
                                    "sep_token", "pad_token", "cls_token",
                                    "mask_token"};

/* Adds token s[0..n) with id, once. */
static int add(vocab_specials *v, const char *s, size_t n, int32_t id,
               const char *what, mx_error *err)
{
    for (size_t i = 0; i < v->tokens.n; i++)
        if (v->tokens.len[i] == n && memcmp(v->tokens.s[i], s, n) == 0)
            return 0;
    if (v->tokens.n == v->ids_cap) {
        const size_t cap = v->ids_cap ? 2 * v->ids_cap : 8;
        int32_t *ids = realloc(v->ids, cap * sizeof *ids);
        if (ids == NULL)
            return err_nomem(err, what);
        v->ids = ids;
        v->ids_cap = cap;
    }
    if (tok_list_add(&v->tokens, s, n) != 0)
        return err_nomem(err, what);
    v->ids[v->tokens.n - 1] = id;
    return 0;
}

/* Adds the token the file `what` names, which vocab.json must have (with
 * the id `want`, where want >= 0). */
static int add_named(vocab_specials *v, const bpe *b, const char *s, size_t n,
                     long want, const char *what, const tokenizer_files *files,
                     mx_error *err)
{
    int32_t id;
    if (!bpe_token_id(b, s, n, &id))
        /* TRANSLATORS: a file of the folder ("special_tokens_map.json"),
         * the token ("<pad>"), then the file of the vocabulary
         * ("vocab.json") */
        return err_input(
            err, _("%s names the special token %s, which %s does not have"),
            what, s, files->vocab);
    if (want >= 0 && want != (long)id)
        /* TRANSLATORS: a file of the folder, the token, its id there, the
         * file of the vocabulary, its id there */
        return err_input(err,
                         _("%s gives the special token %s the id %ld, and "
                           "%s the id %ld"),
                         what, s, want, files->vocab, (long)id);
    return add(v, s, n, id, what, err);
}

/* A token node: a string, null (no token), or an object with "content"
 * (an AddedToken), which must not strip the spaces beside it. */
static int add_node(vocab_specials *v, const bpe *b, const json_doc *doc,
                    const json_node *node, const char *key, long want,
                    const char *what, const tokenizer_files *files,
                    mx_error *err)
{
    if (node->type == JSON_NULL)
        return 0;
    if (node->type == JSON_STRING)
        return add_named(v, b, json_str(doc, node), node->len, want, what,
                         files, err);
    const json_node *c =
        node->type == JSON_OBJECT ? json_get(doc, node, "content") : NULL;
    if (c == NULL || c->type != JSON_STRING)
        return err_input(
            err,
            _("%s: \"%s\" is not a token (a string or an object with \"content\")"),
            what, key);
    if (tok_json_flag(doc, node, "lstrip", false) ||
        tok_json_flag(doc, node, "rstrip", false) ||
        tok_json_flag(doc, node, "single_word", false))
        return err_input(
            err,
            _("%s: the special token %s has lstrip, rstrip or single_word set, which is not followed"),
            what, json_str(doc, c));
    return add_named(v, b, json_str(doc, c), c->len, want, what, files, err);
}

/* tokenizer_config.json's or special_tokens_map.json's tokens. */
static int read_map(vocab_specials *v, const bpe *b, const json_doc *doc,
                    const char *what, const tokenizer_files *files,
                    mx_error *err)
{
    const json_node *root = json_root(doc);
    for (size_t i = 0; i < sizeof slots / sizeof *slots; i++) {
        const json_node *n = json_get(doc, root, slots[i]);
        if (n != NULL &&
            add_node(v, b, doc, n, slots[i], -1, what, files, err) != 0)
            return -1;
    }
    const char *list = "additional_special_tokens";
    const json_node *more = json_get(doc, root, list);
    if (more != NULL && more->type != JSON_ARRAY && more->type != JSON_NULL)
        return err_input(err, _("%s: \"%s\" is not a list"), what, list);
    for (const json_node *m = more ? json_first(doc, more) : NULL; m;
         m = json_next(doc, m))
        if (add_node(v, b, doc, m, list, -1, what, files, err) != 0)
            return -1;
    const char *decoder = "added_tokens_decoder";
    const json_node *dec = json_get(doc, root, decoder);
    if (dec != NULL && dec->type != JSON_OBJECT && dec->type != JSON_NULL) {
        char where[512]; // the file and the key: "PATH: \"KEY\""
        snprintf(where, sizeof where, "%s: \"%s\"", what, decoder);
        return err_input(err, _("%s: not a JSON object"), where);
    }
    for (const json_node *m = dec ? json_first(doc, dec) : NULL; m;
         m = json_next(doc, m)) {
        char *end;
        const long id = strtol(json_key(doc, m), &end, 10);
        if (*end != '\0' || id < 0 || m->type != JSON_OBJECT)
            return err_input(
                err,
                _("%s: \"%s\" is not a token (a string or an object with \"content\")"),
                what, decoder);
        if (add_node(v, b, doc, m, decoder, id, what, files, err) != 0)
            return -1;
    }
    return 0;
}

/* added_tokens.json: token -> id. */
static int read_added(vocab_specials *v, const bpe *b, const json_doc *doc,
                      const char *what, const tokenizer_files *files,
                      mx_error *err)
{
    for (const json_node *m = json_first(doc, json_root(doc)); m;
         m = json_next(doc, m)) {
        size_t id;
        if (!json_size(m, (uint64_t)1 << 31, &id))
            return err_input(err, _("%s: the id of %s is not a whole number"),
                             what, json_key(doc, m));
        if (add_named(v, b, json_key(doc, m), m->key_len, (long)id, what, files,
                      err) != 0)
            return -1;
    }
    return 0;
}

/* The file `name` of dir, where the folder has it, read by `read`. */
static int read_file(vocab_specials *v, const bpe *b, const char *dir,
                     const char *name, const tokenizer_files *files,
                     int (*read)(vocab_specials *, const bpe *,
                                 const json_doc *, const char *,
                                 const tokenizer_files *, mx_error *),
                     mx_error *err)
{
    if (name == NULL)
        return 0;
    const size_t size = strlen(dir) + strlen(name) + 2;
    char *path = malloc(size);
    if (path == NULL)
        return err_nomem(err, dir);
    snprintf(path, size, "%s/%s", dir, name);
    char *text = NULL;
    size_t len = 0;
    json_doc doc;
    int rc = 0;
    if (file_present(path)) {
        rc = file_read_small(&text, &len, path, (size_t)64 << 20, err);
        if (rc == 0)
            rc = json_parse(&doc, text, len, path, err);
        free(text);
        if (rc == 0) {
            rc = json_root(&doc)->type != JSON_OBJECT
                     ? err_input(err, _("%s: not a JSON object"), path)
                     : read(v, b, &doc, path, files, err);
            json_free(&doc);
        }
    }
    free(path);
    return rc;
}

int vocab_specials_read(vocab_specials **out, const bpe *b, const char *dir,
                        const tokenizer_files *files, mx_error *err)
{
    *out = NULL;
    vocab_specials *v = calloc(1, sizeof *v);
    if (v == NULL)
        return err_nomem(err, dir);
    int32_t id;
    const char *own = files->special;
    int rc = own != NULL && bpe_token_id(b, own, strlen(own), &id)
                 ? add(v, own, strlen(own), id, dir, err)
                 : 0;
    if (rc == 0)
        rc = read_file(v, b, dir, files->json_config, files, read_map, err);
    if (rc == 0)
        rc = read_file(v, b, dir, files->special_map, files, read_map, err);
    if (rc == 0)
        rc = read_file(v, b, dir, files->added, files, read_added, err);
    if (rc != 0) {
        vocab_specials_free(v);
        return -1;
    }
    *out = v;
    return 0;
}

void vocab_specials_free(vocab_specials *s)
{
    if (s == NULL)
        return;
    tok_list_free(&s->tokens);
    free(s->ids);
    free(s);
}

/* The longest special token at text[0..len), as the index into s's
 * tokens; -1 where none starts there. */
static long special_at(const vocab_specials *s, const char *text, size_t len)
{
    long best = -1;
    for (size_t i = 0; s != NULL && i < s->tokens.n; i++) {
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

int vocab_specials_encode(int32_t **ids, size_t *n, const vocab_specials *s,
                          const bpe *b, const char *text, size_t len,
                          size_t max, mx_error *err)
{
    if (s == NULL || s->tokens.n == 0)
        return bpe_encode(ids, n, b, text, len, max, err);
    *ids = NULL;
    *n = 0;
    size_t cap = 0, start = 0;
    int rc = 0;
    // the stretches between special tokens through BPE, each token its id
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
                rc = append(ids, n, &cap, part, m, err);
            free(part);
        }
        if (k < 0 || rc != 0)
            break;
        rc = append(ids, n, &cap, &s->ids[k], 1, err);
        i += s->tokens.len[k];
        start = i;
    }
    if (rc != 0) {
        free(*ids);
        *ids = NULL;
        *n = 0;
    }
    return rc;
}
