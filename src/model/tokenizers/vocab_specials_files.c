/* vocab_specials_files.c: a vocab.json folder's special tokens read from
 * the files beside it (vocab_specials.h); the page's core reads them in
 * vocab_specials_page.c. */
#include "model/tokenizers/vocab_specials.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/i18n.h"
#include "io/file_read.h"
#include "io/json.h"
#include "model/tokenizers/tok_text.h"

/* The set being read, with what its bos token is. */
typedef struct {
    vocab_specials *v;
    const bpe *b;
    const tokenizer_files *files;
    int32_t bos;  /* the bos token's id, where has_bos */
    bool has_bos; /* a bos token named, and in vocab.json */
    bool add_bos; /* tokenizer_config.json's add_bos_token */
} reading;

/* The keys of tokenizer_config.json and special_tokens_map.json that name
 * one special token each (transformers' SPECIAL_TOKENS_ATTRIBUTES). */
static const char *const slots[] = {"bos_token", "eos_token", "unk_token",
                                    "sep_token", "pad_token", "cls_token",
                                    "mask_token"};

/* Adds the token the file `what` names under key, which vocab.json must
 * have (with the id `want`, where want >= 0). */
static int add_named(reading *r, const char *s, size_t n, long want,
                     const char *key, const char *what, mx_error *err)
{
    int32_t id;
    if (!bpe_token_id(r->b, s, n, &id))
        /* TRANSLATORS: a file of the folder ("special_tokens_map.json"),
         * the token ("<pad>"), then the file of the vocabulary
         * ("vocab.json") */
        return err_input(
            err, _("%s names the special token %s, which %s does not have"),
            what, s, r->files->vocab);
    if (want >= 0 && want != (long)id)
        /* TRANSLATORS: a file of the folder, the token, its id there, the
         * file of the vocabulary, its id there */
        return err_input(err,
                         _("%s gives the special token %s the id %ld, and "
                           "%s the id %ld"),
                         what, s, want, r->files->vocab, (long)id);
    if (strcmp(key, "bos_token") == 0) {
        r->bos = id;
        r->has_bos = true;
    }
    return vocab_specials_add(r->v, s, n, id) != 0 ? err_nomem(err, what) : 0;
}

/* A token node: a string, null (no token), or an object with "content"
 * (an AddedToken), which must not strip the spaces beside it. */
static int add_node(reading *r, const json_doc *doc, const json_node *node,
                    const char *key, long want, const char *what, mx_error *err)
{
    if (node->type == JSON_NULL) {
        if (strcmp(key, "bos_token") == 0)
            r->has_bos = false;
        return 0;
    }
    if (node->type == JSON_STRING)
        return add_named(r, json_str(doc, node), node->len, want, key, what,
                         err);
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
    return add_named(r, json_str(doc, c), c->len, want, key, what, err);
}

/* added_tokens_decoder: id -> AddedToken. */
static int read_decoder(reading *r, const json_doc *doc, const char *what,
                        mx_error *err)
{
    const char *decoder = "added_tokens_decoder";
    const json_node *dec = json_get(doc, json_root(doc), decoder);
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
        if (add_node(r, doc, m, decoder, id, what, err) != 0)
            return -1;
    }
    return 0;
}

/* tokenizer_config.json's or special_tokens_map.json's tokens. */
static int read_map(reading *r, const json_doc *doc, const char *what,
                    mx_error *err)
{
    const json_node *root = json_root(doc);
    for (size_t i = 0; i < sizeof slots / sizeof *slots; i++) {
        const json_node *n = json_get(doc, root, slots[i]);
        if (n != NULL && add_node(r, doc, n, slots[i], -1, what, err) != 0)
            return -1;
    }
    const char *list = "additional_special_tokens";
    const json_node *more = json_get(doc, root, list);
    if (more != NULL && more->type != JSON_ARRAY && more->type != JSON_NULL)
        return err_input(err, _("%s: \"%s\" is not a list"), what, list);
    for (const json_node *m = more ? json_first(doc, more) : NULL; m;
         m = json_next(doc, m))
        if (add_node(r, doc, m, list, -1, what, err) != 0)
            return -1;
    return read_decoder(r, doc, what, err);
}

/* tokenizer_config.json: its tokens, add_prefix_space and add_bos_token. */
static int read_config(reading *r, const json_doc *doc, const char *what,
                       mx_error *err)
{
    return read_map(r, doc, what, err) != 0 ||
                   vocab_specials_flags(&r->add_bos, r->v, doc, what, err) != 0
               ? -1
               : 0;
}

/* added_tokens.json: token -> id. */
static int read_added(reading *r, const json_doc *doc, const char *what,
                      mx_error *err)
{
    for (const json_node *m = json_first(doc, json_root(doc)); m;
         m = json_next(doc, m)) {
        size_t id;
        if (!json_size(m, (uint64_t)1 << 31, &id))
            return err_input(err, _("%s: the id of %s is not a whole number"),
                             what, json_key(doc, m));
        if (add_named(r, json_key(doc, m), m->key_len, (long)id, "", what,
                      err) != 0)
            return -1;
    }
    return 0;
}

/* The file `name` of dir, where the folder has it, read by `read`. */
static int read_file(reading *r, const char *dir, const char *name,
                     int (*read)(reading *, const json_doc *, const char *,
                                 mx_error *),
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
                     : read(r, &doc, path, err);
            json_free(&doc);
        }
    }
    free(path);
    return rc;
}

/* add_bos_token true: the bos token's id in front of every text; a
 * folder whose bos token is null is refused, as GPT2Tokenizer would put
 * None there. */
static int put_bos(reading *r, const char *dir, mx_error *err)
{
    if (!r->add_bos)
        return 0;
    if (!r->has_bos)
        /* TRANSLATORS: the folder, then the file and its key
         * ("tokenizer_config.json", "add_bos_token") */
        return err_input(err,
                         _("%s: %s's %s is true, but the folder has no "
                           "bos_token in %s"),
                         dir, r->files->json_config, "add_bos_token",
                         r->files->vocab);
    vocab_specials_set_bos(r->v, r->bos);
    return 0;
}

int vocab_specials_read(vocab_specials **out, const bpe *b, const char *dir,
                        const tokenizer_files *files, mx_error *err)
{
    *out = NULL;
    reading r = {.v = vocab_specials_new(), .b = b, .files = files};
    if (r.v == NULL)
        return err_nomem(err, dir);
    // the family's own token: GPT2Tokenizer's default bos, eos and unk
    const char *own = files->special;
    int rc = 0;
    if (own != NULL && bpe_token_id(b, own, strlen(own), &r.bos)) {
        r.has_bos = true;
        if (vocab_specials_add(r.v, own, strlen(own), r.bos) != 0)
            rc = err_nomem(err, dir);
    }
    if (rc == 0)
        rc = read_file(&r, dir, files->json_config, read_config, err);
    if (rc == 0)
        rc = read_file(&r, dir, files->special_map, read_map, err);
    if (rc == 0)
        rc = read_file(&r, dir, files->added, read_added, err);
    if (rc == 0)
        rc = put_bos(&r, dir, err);
    if (rc != 0) {
        vocab_specials_free(r.v);
        return -1;
    }
    *out = r.v;
    return 0;
}
