/* hf_tokenizer.c: tokenizer.json read (hf_tokenizer.h); the encoding is
 * hf_encode.c's. */
#include "model/tokenizers/hf_tokenizer.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/i18n.h"
#include "io/file_read.h"
#include "io/json.h"
#include "model/tokenizers/hf_parts.h"

/* The largest tokenizer.json read (Llama 3's is 9 MB). */
#define MAX_FILE ((size_t)256 << 20)

/* An id: a whole number below the file's size (no file of n bytes
 * names more than n tokens), so the id -> token table is bounded. A
 * negative one is named as such: ids count from 0. */
static int read_id(int32_t *id, const json_node *v, size_t file_len,
                   const char *what, const char *token, mx_error *err)
{
    size_t x;
    if (v != NULL && v->type == JSON_NUMBER && v->number < 0)
        /* TRANSLATORS: the file, the token, then its id as the file
         * gives it ("-1") */
        return err_input(err,
                         _("%s: the id of %s is %g, a negative number; "
                           "ids count from 0"),
                         what, token, v->number);
    if (v == NULL ||
        !json_size(v, file_len < INT32_MAX ? file_len : INT32_MAX, &x))
        return err_input(err,
                         _("%s: the id of %s is not a whole number below "
                           "the file's size"),
                         what, token);
    *id = (int32_t)x;
    return 0;
}

static int read_vocab(hf_tokenizer *t, const json_doc *doc,
                      const json_node *model, size_t n_added, size_t file_len,
                      const char *what, mx_error *err)
{
    const json_node *v = tok_model_vocab_node(doc, model);
    if (v == NULL || v->type != JSON_OBJECT)
        return err_input(err,
                         _("%s: the model's \"vocab\" is not an object "
                           "of tokens and ids"),
                         what);
    if (tok_map_init(&t->vocab, v->len + n_added) != 0 ||
        tok_map_init(&t->added_map, 2 * n_added) != 0)
        return err_nomem(err, what);
    for (const json_node *m = json_first(doc, v); m; m = json_next(doc, m)) {
        int32_t id = 0;
        if (read_id(&id, m, file_len, what, json_key(doc, m), err) != 0)
            return -1;
        // a key given twice: the later id, as in a JavaScript object
        if (tok_map_set(&t->vocab, json_key(doc, m), m->key_len, id) != 0)
            return err_nomem(err, what);
    }
    return 0;
}

static int read_added(hf_tokenizer *t, const json_doc *doc,
                      const json_node *list, size_t file_len, const char *what,
                      mx_error *err)
{
    t->added = calloc(list->len + 1, sizeof *t->added);
    if (t->added == NULL)
        return err_nomem(err, what);
    for (const json_node *m = json_first(doc, list); m; m = json_next(doc, m)) {
        const json_node *c = json_get(doc, m, "content");
        if (c == NULL || c->type != JSON_STRING || c->len == 0)
            return err_input(err, _("%s: %s has no \"%s\""), what,
                             "added_tokens", "content");
        hf_added *a = &t->added[t->n_added];
        if (read_id(&a->id, json_get(doc, m, "id"), file_len, what,
                    json_str(doc, c), err) != 0)
            return -1;
        a->content = malloc(c->len + 1);
        if (a->content == NULL)
            return err_nomem(err, what);
        memcpy(a->content, json_str(doc, c), c->len + 1);
        a->len = c->len;
        t->n_added++;
        a->special = tok_json_flag(doc, m, "special", false);
        a->raw = !tok_json_flag(doc, m, "normalized", !a->special);
        a->lstrip = tok_json_flag(doc, m, "lstrip", false);
        a->rstrip = tok_json_flag(doc, m, "rstrip", false);
        if (tok_map_set(&t->vocab, a->content, a->len, a->id) != 0 ||
            tok_map_set(&t->added_map, a->content, a->len, a->id) != 0)
            return err_nomem(err, what);
    }
    return 0;
}

/* The id -> token table, from the vocabulary's keys (an added token's
 * content where it shares an id). */
static int id_table(hf_tokenizer *t, const char *what, mx_error *err)
{
    size_t n = 0;
    for (size_t i = 0; i < t->vocab.cap; i++)
        if (t->vocab.keys[i] != NULL && (size_t)t->vocab.values[i] + 1 > n)
            n = (size_t)t->vocab.values[i] + 1;
    t->n_ids = n;
    t->pieces = calloc(n + 1, sizeof *t->pieces);
    t->piece_len = calloc(n + 1, sizeof *t->piece_len);
    if (t->pieces == NULL || t->piece_len == NULL)
        return err_nomem(err, what);
    for (size_t i = 0; i < t->vocab.cap; i++)
        if (t->vocab.keys[i] != NULL) {
            const int32_t id = t->vocab.values[i];
            t->pieces[id] = t->vocab.keys[i];
            t->piece_len[id] = t->vocab.key_len[i];
        }
    for (size_t i = 0; i < t->n_added; i++) {
        t->pieces[t->added[i].id] = t->added[i].content;
        t->piece_len[t->added[i].id] = t->added[i].len;
    }
    return 0;
}

/* Added tokens matched after normalising: their normalised contents. */
static int normalised_added(hf_tokenizer *t, const char *what, mx_error *err)
{
    if (t->norms == NULL) {
        for (size_t i = 0; i < t->n_added; i++)
            t->added[i].raw = true;
        return 0;
    }
    tok_buf b = {0};
    for (size_t i = 0; i < t->n_added; i++) {
        hf_added *a = &t->added[i];
        if (a->raw)
            continue;
        if (tok_norms_apply(&b, t->norms, a->content, a->len, err) != 0) {
            tok_buf_free(&b);
            return -1;
        }
        char *c = malloc(b.n + 1);
        if (c == NULL || tok_map_set(&t->added_map, b.s, b.n, a->id) != 0) {
            free(c);
            tok_buf_free(&b);
            return err_nomem(err, what);
        }
        memcpy(c, b.s, b.n + 1);
        free(a->content);
        a->content = c;
        a->len = b.n;
    }
    tok_buf_free(&b);
    return 0;
}

/* A special token of the post-processor, by its token string. */
static int special_id(int32_t *id, const hf_tokenizer *t, const char *s,
                      const char *what, mx_error *err)
{
    if (tok_map_get(&t->added_map, s, strlen(s), id) ||
        tok_map_get(&t->vocab, s, strlen(s), id))
        return 0;
    return err_input(err, _("%s: the token %s is not in the vocabulary"), what,
                     s);
}

/* One processor's special tokens: `before` go in front of the text and
 * of an earlier processor's, `after` behind both. */
typedef struct {
    int32_t before[HF_MAX_SPECIAL], after[HF_MAX_SPECIAL];
    size_t n_before, n_after;
} wrapping;

static int wrap_add(wrapping *w, const hf_tokenizer *t, bool after,
                    const char *s, const char *what, mx_error *err)
{
    size_t *n = after ? &w->n_after : &w->n_before;
    if (*n == HF_MAX_SPECIAL)
        return err_input(err,
                         _("%s: more than %d special tokens around a text"),
                         what, HF_MAX_SPECIAL);
    if (special_id(after ? &w->after[*n] : &w->before[*n], t, s, what, err))
        return -1;
    ++*n;
    return 0;
}

static int wrap_apply(hf_tokenizer *t, const wrapping *w, const char *what,
                      mx_error *err)
{
    if (t->n_before + w->n_before > HF_MAX_SPECIAL ||
        t->n_after + w->n_after > HF_MAX_SPECIAL)
        return err_input(err,
                         _("%s: more than %d special tokens around a text"),
                         what, HF_MAX_SPECIAL);
    memmove(t->before + w->n_before, t->before,
            t->n_before * sizeof *t->before);
    memcpy(t->before, w->before, w->n_before * sizeof *t->before);
    memcpy(t->after + t->n_after, w->after, w->n_after * sizeof *t->after);
    t->n_before += w->n_before;
    t->n_after += w->n_after;
    return 0;
}

static int read_template(hf_tokenizer *t, const json_doc *doc,
                         const json_node *o, const char *what, mx_error *err)
{
    const json_node *single = json_get(doc, o, "single");
    if (single == NULL || single->type != JSON_ARRAY)
        return err_input(err, _("%s: %s has no \"%s\""), what,
                         "TemplateProcessing", "single");
    wrapping w = {0};
    bool seen_a = false;
    for (const json_node *m = json_first(doc, single); m;
         m = json_next(doc, m)) {
        const json_node *sp = json_get(doc, m, "SpecialToken");
        const json_node *seq = json_get(doc, m, "Sequence");
        const json_node *id = sp ? json_get(doc, sp, "id") : NULL;
        const json_node *sid = seq ? json_get(doc, seq, "id") : NULL;
        if (id != NULL && id->type == JSON_STRING) {
            if (wrap_add(&w, t, seen_a, json_str(doc, id), what, err) != 0)
                return -1;
        } else if (sid != NULL && sid->type == JSON_STRING &&
                   strcmp(json_str(doc, sid), "A") == 0 && !seen_a) {
            seen_a = true;
        } else {
            return err_input(err,
                             _("%s: TemplateProcessing's \"single\" is not "
                               "special tokens around $A"),
                             what);
        }
    }
    if (!seen_a)
        return err_input(err,
                         _("%s: TemplateProcessing's \"single\" is not "
                           "special tokens around $A"),
                         what);
    return wrap_apply(t, &w, what, err);
}

static int read_post(hf_tokenizer *t, const json_doc *doc, const json_node *o,
                     const char *what, mx_error *err)
{
    if (o == NULL || o->type == JSON_NULL)
        return 0;
    const json_node *ty = json_get(doc, o, "type");
    const char *type = ty && ty->type == JSON_STRING ? json_str(doc, ty) : "";
    if (strcmp(type, "ByteLevel") == 0)
        return 0;
    if (strcmp(type, "TemplateProcessing") == 0)
        return read_template(t, doc, o, what, err);
    if (strcmp(type, "Sequence") == 0) {
        const json_node *list = json_get(doc, o, "processors");
        if (list == NULL || list->type != JSON_ARRAY)
            return err_input(err, _("%s: %s has no \"%s\""), what, "Sequence",
                             "processors");
        for (const json_node *m = json_first(doc, list); m;
             m = json_next(doc, m))
            if (read_post(t, doc, m, what, err) != 0)
                return -1;
        return 0;
    }
    if (strcmp(type, "BertProcessing") == 0 ||
        strcmp(type, "RobertaProcessing") == 0) {
        const json_node *cls = json_get(doc, o, "cls");
        const json_node *sep = json_get(doc, o, "sep");
        const json_node *c = cls ? json_first(doc, cls) : NULL;
        const json_node *s = sep ? json_first(doc, sep) : NULL;
        if (c == NULL || s == NULL || c->type != JSON_STRING ||
            s->type != JSON_STRING)
            return err_input(err, _("%s: %s has no \"%s\""), what, type,
                             c == NULL || c->type != JSON_STRING ? "cls"
                                                                 : "sep");
        wrapping w = {0};
        if (wrap_add(&w, t, false, json_str(doc, c), what, err) != 0 ||
            wrap_add(&w, t, true, json_str(doc, s), what, err) != 0)
            return -1;
        return wrap_apply(t, &w, what, err);
    }
    return err_input(err, _("%s: %s \"%s\" is not supported"), what,
                     "post_processor", type);
}

/* tokenizer_config.json's case keys (hf_tokenizer_open_config), and its
 * add_bos_token and add_prefix_space, which tokenizer.json must already
 * do (config_agrees). */
typedef struct {
    bool lower;
    int accents;    /* 0, 1, or -1: null */
    bool chinese;   /* tokenize_chinese_chars */
    int add_bos;    /* 0, 1, or -1: null or absent */
    int add_prefix; /* 0, 1, or -1: null or absent */
} config_keys;

static int read_doc(hf_tokenizer *t, const json_doc *doc, size_t file_len,
                    const config_keys *cased, const char *what, mx_error *err)
{
    const json_node *root = json_root(doc);
    const json_node *model = json_get(doc, root, "model");
    const json_node *added = json_get(doc, root, "added_tokens");
    if (root->type != JSON_OBJECT || model == NULL ||
        model->type != JSON_OBJECT)
        return err_input(err, _("%s: not a tokenizer.json (no \"model\")"),
                         what);
    if (added != NULL && added->type != JSON_ARRAY && added->type != JSON_NULL)
        return err_input(err, _("%s: \"%s\" is not a list"), what,
                         "added_tokens");
    const size_t n_added = added && added->type == JSON_ARRAY ? added->len : 0;
    if (read_vocab(t, doc, model, n_added, file_len, what, err) != 0 ||
        (n_added > 0 && read_added(t, doc, added, file_len, what, err) != 0) ||
        id_table(t, what, err) != 0 ||
        tok_norms_read(&t->norms, doc, json_get(doc, root, "normalizer"), what,
                       err) != 0)
        return -1;
    if (cased != NULL) // before the added tokens are normalised
        tok_norms_bert_case(t->norms, cased->lower, cased->accents,
                            cased->chinese);
    if (tok_pretoks_read(&t->pretoks, doc, json_get(doc, root, "pre_tokenizer"),
                         what, err) != 0 ||
        tok_model_read(&t->model, doc, model, &t->vocab, what, err) != 0 ||
        normalised_added(t, what, err) != 0 ||
        read_post(t, doc, json_get(doc, root, "post_processor"), what, err))
        return -1;
    t->byte_level = tok_pretoks_byte_level(t->pretoks);
    return 0;
}

static int read_text(hf_tokenizer **out, const char *text, size_t len,
                     const config_keys *cased, const char *what, mx_error *err)
{
    *out = NULL;
    json_doc doc;
    if (json_parse(&doc, text, len, what, err) != 0)
        return -1;
    hf_tokenizer *t = calloc(1, sizeof *t);
    if (t == NULL) {
        json_free(&doc);
        return err_nomem(err, what);
    }
    const int rc = read_doc(t, &doc, len, cased, what, err);
    json_free(&doc);
    if (rc != 0) {
        hf_tokenizer_free(t);
        return -1;
    }
    *out = t;
    return 0;
}

int hf_tokenizer_read(hf_tokenizer **out, const char *text, size_t len,
                      const char *what, mx_error *err)
{
    return read_text(out, text, len, NULL, what, err);
}

/* A flag of tokenizer_config.json: true or false; *v stays as it is when
 * the key is absent, and is -1 for null where null is allowed. */
static int config_flag(int *v, const json_doc *doc, const char *key,
                       bool null_ok, const char *path, mx_error *err)
{
    const json_node *n = json_get(doc, json_root(doc), key);
    if (n == NULL)
        return 0;
    if (n->type == JSON_BOOL) {
        *v = n->number != 0;
        return 0;
    }
    if (n->type == JSON_NULL && null_ok) {
        *v = -1;
        return 0;
    }
    return err_input(err, _("%s: \"%s\" is not true or false"), path, key);
}

/* tokenizer_config.json at path into *c. */
static int read_config(config_keys *c, const char *path, mx_error *err)
{
    char *buf = NULL;
    size_t n = 0;
    if (file_read_small(&buf, &n, path, MAX_FILE, err) != 0)
        return -1;
    json_doc doc;
    int rc = json_parse(&doc, buf, n, path, err);
    free(buf);
    if (rc != 0)
        return -1;
    // BertTokenizerFast's defaults
    int lower = 1, accents = -1, chinese = 1;
    c->add_bos = c->add_prefix = -1;
    if (json_root(&doc)->type != JSON_OBJECT)
        rc = err_input(err, _("%s: not a JSON object"), path);
    else if (config_flag(&lower, &doc, "do_lower_case", false, path, err) ||
             config_flag(&accents, &doc, "strip_accents", true, path, err) ||
             config_flag(&chinese, &doc, "tokenize_chinese_chars", false, path,
                         err) ||
             config_flag(&c->add_bos, &doc, "add_bos_token", true, path, err) ||
             config_flag(&c->add_prefix, &doc, "add_prefix_space", true, path,
                         err))
        rc = -1;
    json_free(&doc);
    c->lower = lower != 0;
    c->accents = accents;
    c->chinese = chinese != 0;
    return rc;
}

/* tokenizer_config.json's add_bos_token and add_prefix_space (c, from
 * config), where given, against what tokenizer.json (t, from path) does.
 * The classes transformers opens tokenizer.json with take them apart:
 * LlamaTokenizerFast makes its post-processor anew from add_bos_token
 * (update_post_processor: the bos token in front, or none) and, given
 * add_prefix_space, converts its slow tokenizer (from_slow);
 * GPT2TokenizerFast sets its ByteLevel pre-tokenizer's add_prefix_space
 * from it; BertTokenizerFast reads neither. A value tokenizer.json
 * already follows (a post-processor with one token in front, or none; a
 * ByteLevel step with the same add_prefix_space) gives the same ids
 * under each; any other is refused naming the key, not guessed. */
static int config_agrees(const hf_tokenizer *t, const config_keys *c,
                         const char *config, const char *path, mx_error *err)
{
    const struct {
        const char *key, *part;
        int given, does;
    } keys[] = {
        {"add_bos_token", "post_processor", c->add_bos, t->n_before == 1},
        {"add_prefix_space", "pre_tokenizer", c->add_prefix,
         tok_pretoks_prefix_space(t->pretoks)},
    };
    for (size_t i = 0; i < sizeof keys / sizeof *keys; i++) {
        const int does = i == 0 && t->n_before > 1 ? -1 : keys[i].does;
        if (keys[i].given >= 0 && keys[i].given != does)
            /* TRANSLATORS: tokenizer_config.json, its key
             * ("add_bos_token"), its value ("true"), then tokenizer.json
             * and the part of it that does otherwise ("post_processor") */
            return err_input(err,
                             _("%s: %s is %s, which %s's \"%s\" does not "
                               "do; this is not followed"),
                             config, keys[i].key,
                             keys[i].given ? "true" : "false", path,
                             keys[i].part);
    }
    return 0;
}

int hf_tokenizer_open_config(hf_tokenizer **out, const char *path,
                             const char *config, mx_error *err)
{
    *out = NULL;
    config_keys cased;
    if (config != NULL && read_config(&cased, config, err) != 0)
        return -1;
    char *buf = NULL;
    size_t n = 0;
    // a regular file only: a FIFO in its place is refused, not waited on
    if (file_read_small(&buf, &n, path, MAX_FILE, err) != 0)
        return -1;
    int rc = read_text(out, buf, n, config != NULL ? &cased : NULL, path, err);
    free(buf);
    if (rc == 0 && config != NULL &&
        config_agrees(*out, &cased, config, path, err) != 0) {
        hf_tokenizer_free(*out);
        *out = NULL;
        rc = -1;
    }
    return rc;
}

int hf_tokenizer_open(hf_tokenizer **out, const char *path, mx_error *err)
{
    return hf_tokenizer_open_config(out, path, NULL, err);
}

void hf_tokenizer_free(hf_tokenizer *t)
{
    if (t == NULL)
        return;
    tok_map_free(&t->vocab);
    tok_map_free(&t->added_map);
    free(t->pieces);
    free(t->piece_len);
    for (size_t i = 0; i < t->n_added; i++)
        free(t->added[i].content);
    free(t->added);
    tok_norms_free(t->norms);
    tok_pretoks_free(t->pretoks);
    tok_model_free(t->model);
    free(t);
}

size_t hf_tokenizer_vocab_size(const hf_tokenizer *t)
{
    return t->n_ids;
}

bool hf_tokenizer_byte_level(const hf_tokenizer *t)
{
    return t->byte_level;
}

const char *hf_tokenizer_piece(const hf_tokenizer *t, int32_t id, size_t *len)
{
    if (id < 0 || (size_t)id >= t->n_ids || t->pieces[id] == NULL)
        return NULL;
    *len = t->piece_len[id];
    return t->pieces[id];
}

void hf_tokenizer_specials(const int32_t **before, size_t *n_before,
                           const int32_t **after, size_t *n_after,
                           const hf_tokenizer *t)
{
    *before = t->before;
    *n_before = t->n_before;
    *after = t->after;
    *n_after = t->n_after;
}

bool hf_tokenizer_special(const hf_tokenizer *t, int32_t id)
{
    for (size_t i = 0; i < t->n_added; i++)
        if (t->added[i].id == id && t->added[i].special)
            return true;
    return false;
}
