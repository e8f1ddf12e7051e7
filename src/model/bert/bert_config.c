/* bert_config.c: a BERT checkpoint's config.json, read and checked
 * (bert.h), with BertConfig's defaults for the keys it may leave out. */
#include "model/bert/bert_config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/i18n.h"
#include "io/config_flag.h"
#include "io/config_size.h"
#include "io/file_read.h"
#include "io/json.h"

/* A size key: required (no default) or dflt when absent. */
static int size_key(size_t *out, const json_doc *doc, const char *key,
                    size_t dflt, const char *path, mx_error *err)
{
    const json_node *n = json_get(doc, json_root(doc), key);
    if (n == NULL && dflt != 0) {
        *out = dflt;
        return 0;
    }
    return config_size_key(out, doc, n, key, path, err);
}

/* A string key that the family takes with one value only (its default
 * when absent): hidden_act "gelu", position_embedding_type "absolute". */
static int only_value(const json_doc *doc, const char *key, const char *value,
                      const char *path, mx_error *err)
{
    const json_node *n = json_get(doc, json_root(doc), key);
    if (n == NULL || n->type == JSON_NULL)
        return 0;
    if (n->type != JSON_STRING)
        return err_input(err, _("%s: %s must be a string"), path, key);
    if (strcmp(json_str(doc, n), value) != 0)
        return err_input(
            err, _("%s: %s is \"%s\"; the BERT family takes only \"%s\""), path,
            key, json_str(doc, n), value);
    return 0;
}

static int read_keys(bert_config *c, const json_doc *doc, const char *path,
                     mx_error *err)
{
    const json_node *root = json_root(doc);
    if (size_key(&c->n_layer, doc, "num_hidden_layers", 0, path, err) != 0 ||
        size_key(&c->n_head, doc, "num_attention_heads", 0, path, err) != 0 ||
        size_key(&c->d, doc, "hidden_size", 0, path, err) != 0 ||
        size_key(&c->vocab_size, doc, "vocab_size", 0, path, err) != 0 ||
        size_key(&c->n_inner, doc, "intermediate_size", 3072, path, err) != 0 ||
        size_key(&c->n_positions, doc, BERT_POSITIONS_KEY, 512, path, err) !=
            0 ||
        size_key(&c->n_types, doc, "type_vocab_size", 2, path, err) != 0)
        return -1;
    const json_node *eps = json_get(doc, root, "layer_norm_eps");
    c->eps = 1e-12f;
    if (eps != NULL) {
        if (eps->type != JSON_NUMBER || !(eps->number > 0))
            return err_input(err, _("%s: %s must be a positive number"), path,
                             "layer_norm_eps");
        c->eps = (float)eps->number;
    }
    if (only_value(doc, "hidden_act", "gelu", path, err) != 0 ||
        only_value(doc, "position_embedding_type", "absolute", path, err) != 0)
        return -1;
    static const char *const unsupported[] = {"is_decoder",
                                              "add_cross_attention"};
    if (config_refuse_flags(doc, unsupported,
                            sizeof unsupported / sizeof *unsupported, path,
                            err) != 0)
        return -1;
    if (c->d % c->n_head != 0)
        return err_input(
            err,
            _("%s: hidden_size (%zu) is not a multiple of num_attention_heads (%zu)"),
            path, c->d, c->n_head);
    return 0;
}

/* config.json's text at path, parsed into doc; a repeated key refused. */
static int parse(json_doc *doc, const char *path, mx_error *err)
{
    char *text = NULL;
    size_t len = 0;
    if (file_read_small(&text, &len, path, (size_t)1 << 20, err) != 0)
        return -1;
    const int rc = json_parse(doc, text, len, path, err);
    free(text);
    if (rc != 0)
        return -1;
    if (json_root(doc)->type != JSON_OBJECT) {
        json_free(doc);
        return err_input(err, _("%s: not a JSON object"), path);
    }
    // a key given twice is refused: Python's json keeps the last value
    const char *twice;
    const int repeated = json_repeated_key(&twice, doc, json_root(doc));
    if (repeated != 0) {
        if (repeated > 0)
            err_input(err, _("%s: the key %s appears twice"), path, twice);
        else
            err_nomem(err, path);
        json_free(doc);
        return -1;
    }
    return 0;
}

int bert_config_read(bert_config *c, const char *path, mx_error *err)
{
    *c = (bert_config){0};
    json_doc doc;
    if (parse(&doc, path, err) != 0)
        return -1;
    const int rc = read_keys(c, &doc, path, err);
    json_free(&doc);
    return rc;
}
