/* vocab_specials_page.c: vocab_specials_read for the core every live page
 * carries (src/wasm/meson.build names it in the place of
 * vocab_specials_files.c). The page copies a folder's
 * tokenizer_config.json and neither special_tokens_map.json nor
 * added_tokens.json (html/page/model_open.js), so here the special token
 * is the family's own ("<|endoftext|>"), split out as the program splits
 * it; tokenizer_config.json's add_prefix_space and add_bos_token are
 * followed as there, and a token it names that is not the family's own
 * (or strips the spaces beside it) is refused naming the file and the
 * key, with the messages the page has already. The program gives the
 * same ids for every folder the page runs. */
#include "model/tokenizers/vocab_specials.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/i18n.h"
#include "io/file_read.h"
#include "io/json.h"
#include "model/tokenizers/tok_text.h"

/* Whether node names no token (null) or the token own, as it is. */
static bool own_or_none(const json_doc *doc, const json_node *node,
                        const char *own)
{
    if (node->type == JSON_NULL)
        return true;
    const json_node *c = node;
    if (node->type == JSON_OBJECT) {
        c = json_get(doc, node, "content");
        if (tok_json_flag(doc, node, "lstrip", false) ||
            tok_json_flag(doc, node, "rstrip", false) ||
            tok_json_flag(doc, node, "single_word", false))
            return false;
    }
    return c != NULL && c->type == JSON_STRING && own != NULL &&
           c->len == strlen(own) && memcmp(json_str(doc, c), own, c->len) == 0;
}

/* Whether the list or the decoder n (keys[7], keys[8]) names own alone,
 * the decoder with own_id. */
static bool own_list(const json_doc *doc, const json_node *n, bool decoder,
                     const char *own, long own_id)
{
    bool ok = true;
    for (const json_node *m = json_first(doc, n); m && ok;
         m = json_next(doc, m)) {
        char *end = NULL;
        ok = m->type != JSON_NULL && own_or_none(doc, m, own) &&
             (!decoder ||
              (strtol(json_key(doc, m), &end, 10) == own_id && *end == '\0'));
    }
    return ok;
}

/* tokenizer_config.json's token keys: each names own (id own_id) or
 * none; *bos_null is whether its bos_token is null. */
static int own_only(bool *bos_null, const json_doc *doc, const char *own,
                    long own_id, const char *path, mx_error *err)
{
    static const char *const keys[] = {
        "bos_token",           "eos_token",
        "unk_token",           "sep_token",
        "pad_token",           "cls_token",
        "mask_token",          "additional_special_tokens",
        "added_tokens_decoder"};
    const json_node *root = json_root(doc);
    for (size_t i = 0; i < sizeof keys / sizeof *keys; i++) {
        const json_node *n = json_get(doc, root, keys[i]);
        const bool many = n != NULL && i >= 7 &&
                          (n->type == JSON_ARRAY || n->type == JSON_OBJECT);
        if (n != NULL && !(many ? own_list(doc, n, i == 8, own, own_id)
                                : (i < 7 || n->type == JSON_NULL) &&
                                      own_or_none(doc, n, own)))
            return err_input(err, _("%s: %s is not supported"), path, keys[i]);
        if (i == 0)
            *bos_null = n != NULL && n->type == JSON_NULL;
    }
    return 0;
}

/* tokenizer_config.json at path into v, own's id being own_id (-1: vocab
 * has no such token). */
static int read_config(vocab_specials *v, const char *path, const char *own,
                       long own_id, mx_error *err)
{
    char *text = NULL;
    size_t len = 0;
    json_doc doc;
    if (file_read_small(&text, &len, path, (size_t)64 << 20, err) != 0)
        return -1;
    int rc = json_parse(&doc, text, len, path, err);
    free(text);
    if (rc != 0)
        return -1;
    bool bos_null = false, add_bos = false;
    if (json_root(&doc)->type != JSON_OBJECT)
        rc = err_input(err, _("%s: not a JSON object"), path);
    else if (own_only(&bos_null, &doc, own, own_id, path, err) != 0 ||
             vocab_specials_flags(&add_bos, v, &doc, path, err) != 0)
        rc = -1;
    else if (add_bos && (bos_null || own_id < 0))
        rc =
            err_input(err, _("%s: %s is not supported"), path, "add_bos_token");
    else if (add_bos)
        vocab_specials_set_bos(v, (int32_t)own_id);
    json_free(&doc);
    return rc;
}

/* dir/name, or NULL (no memory, or no name). */
static char *join(const char *dir, const char *name)
{
    const size_t size = strlen(dir) + (name ? strlen(name) : 0) + 2;
    char *path = name != NULL ? malloc(size) : NULL;
    if (path != NULL)
        snprintf(path, size, "%s/%s", dir, name);
    return path;
}

int vocab_specials_read(vocab_specials **out, const bpe *b, const char *dir,
                        const tokenizer_files *files, mx_error *err)
{
    *out = NULL;
    vocab_specials *v = vocab_specials_new();
    if (v == NULL)
        return err_nomem(err, dir);
    const char *own = files->special;
    int32_t id;
    const long own_id =
        own != NULL && bpe_token_id(b, own, strlen(own), &id) ? id : -1;
    int rc = own_id >= 0 && vocab_specials_add(v, own, strlen(own), id) != 0
                 ? err_nomem(err, dir)
                 : 0;
    // the files the page does not copy are refused where they are there
    const char *const others[] = {files->special_map, files->added};
    for (size_t i = 0; i < 2 && rc == 0; i++) {
        char *path = join(dir, others[i]);
        if (path != NULL && file_present(path))
            rc = err_input(err, _("%s: %s is not supported"), dir, others[i]);
        free(path);
    }
    char *config = join(dir, files->json_config);
    if (rc == 0 && config != NULL && file_present(config))
        rc = read_config(v, config, own, own_id, err);
    free(config);
    if (rc != 0) {
        vocab_specials_free(v);
        return -1;
    }
    *out = v;
    return 0;
}
