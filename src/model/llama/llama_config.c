/* llama_config.c: a Llama-style config.json (llama_config.h). */
#include "model/llama/llama_config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/i18n.h"
#include "io/config_size.h"
#include "io/file_read.h"
#include "io/json.h"
#include "model/tied_head.h"

static const llama_kind kinds[] = {
    {"llama", false, WINDOW_NONE},
    {"qwen2", true, WINDOW_IF_USED},
    {"mistral", false, WINDOW_ALWAYS},
};

const llama_kind *llama_kind_of(const char *model_type)
{
    for (size_t i = 0; i < sizeof kinds / sizeof *kinds; i++)
        if (strcmp(kinds[i].model_type, model_type) == 0)
            return &kinds[i];
    return NULL;
}

/* The config's keys that ask for what the forward pass does not do: a
 * value other than null or false is refused, naming the key
 * (sliding_window and use_sliding_window are read_window's). */
static const char *const unsupported[] = {
    "rope_scaling",
    "mlp_bias",
    "partial_rotary_factor",
    "attn_logit_softcapping",
    "final_logit_softcapping",
};

static int positive(size_t *out, const json_doc *doc, const char *key,
                    size_t fallback, const char *path, mx_error *err)
{
    const json_node *n = json_get(doc, json_root(doc), key);
    if (n == NULL && fallback != 0) {
        *out = fallback;
        return 0;
    }
    return config_size_key(out, doc, n, key, path, err);
}

/* The number key gives (fallback when absent): positive, or with
 * zero_ok zero as well (LlamaRMSNorm adds rms_norm_eps as it is, 0
 * included, and LlamaConfig does not check it). */
static int number(double *out, const json_doc *doc, const char *key,
                  double fallback, bool zero_ok, const char *path,
                  mx_error *err)
{
    const json_node *n = json_get(doc, json_root(doc), key);
    *out = fallback;
    if (n == NULL)
        return 0;
    const bool fits = n->type == JSON_NUMBER &&
                      (zero_ok ? n->number >= 0 : n->number > 0) &&
                      n->number <= 1e30;
    if (!fits && zero_ok)
        return err_input(err, _("%s: %s must be zero or a positive number"),
                         path, key);
    if (!fits)
        return err_input(err, _("%s: %s must be a positive number"), path, key);
    *out = n->number;
    return 0;
}

/* eos_token_id: absent or null (none), one token id, or a list of them. */
static int read_eos(llama_config *c, const json_doc *doc, const char *path,
                    mx_error *err)
{
    const json_node *eos = json_get(doc, json_root(doc), "eos_token_id");
    c->n_eos = 0;
    if (eos == NULL || eos->type == JSON_NULL)
        return 0;
    const bool list = eos->type == JSON_ARRAY;
    for (const json_node *id = list ? json_first(doc, eos) : eos; id != NULL;
         id = list ? json_next(doc, id) : NULL) {
        size_t v;
        if (c->n_eos == LLAMA_MAX_EOS || !json_size(id, c->vocab_size - 1, &v))
            return err_input(
                err,
                _("%s: eos_token_id must be a token id below vocab_size (%zu), or a list of at most %d"),
                path, c->vocab_size, LLAMA_MAX_EOS);
        c->eos[c->n_eos++] = (int32_t)v;
    }
    return 0;
}

/* The keys every Llama-style config has, and their defaults. */
static int read_sizes(llama_config *c, const json_doc *doc, const char *path,
                      mx_error *err)
{
    if (positive(&c->n_layer, doc, "num_hidden_layers", 0, path, err) != 0 ||
        positive(&c->n_head, doc, "num_attention_heads", 0, path, err) != 0 ||
        positive(&c->n_kv_head, doc, "num_key_value_heads", c->n_head, path,
                 err) != 0 ||
        positive(&c->hidden, doc, "hidden_size", 0, path, err) != 0 ||
        positive(&c->inter, doc, "intermediate_size", 0, path, err) != 0 ||
        positive(&c->vocab_size, doc, "vocab_size", 0, path, err) != 0 ||
        positive(&c->n_positions, doc, LLAMA_POSITIONS_KEY, 2048, path, err) !=
            0)
        return -1;
    double eps, theta;
    if (number(&eps, doc, "rms_norm_eps", 1e-6, true, path, err) != 0 ||
        number(&theta, doc, "rope_theta", 10000.0, false, path, err) != 0)
        return -1;
    c->eps = (float)eps;
    c->theta = theta;
    // LlamaConfig, Qwen2Config and MistralConfig: untied unless it says
    if (tied_head_read(&c->tied, doc, false, path, err) != 0)
        return -1;
    const json_node *bias = json_get(doc, json_root(doc), "attention_bias");
    if (bias != NULL && bias->type != JSON_BOOL)
        return err_input(err, _("%s: %s must be true or false"), path,
                         "attention_bias");
    c->o_bias = bias != NULL && bias->number != 0;
    c->qkv_bias = c->qkv_bias || c->o_bias;
    return read_eos(c, doc, path, err);
}

/* Whether the config has no key `key`, or it is null or false. */
static bool unset(const json_doc *doc, const char *key)
{
    const json_node *n = json_get(doc, json_root(doc), key);
    return n == NULL || n->type == JSON_NULL ||
           (n->type == JSON_BOOL && n->number == 0);
}

/* Qwen2Config's max_window_layers when the config has none. */
#define QWEN2_MAX_WINDOW_LAYERS 28

/* Whether Qwen2's modeling code slides a window in some layer: only with
 * use_sliding_window true (Qwen2Config sets sliding_window to None
 * otherwise), and then in the layers from max_window_layers on
 * (Qwen2Attention: layer_idx >= max_window_layers); *slides false when
 * none does. */
static int qwen2_slides(bool *slides, const llama_config *c,
                        const json_doc *doc, const char *path, mx_error *err)
{
    *slides = false;
    const json_node *used = json_get(doc, json_root(doc), "use_sliding_window");
    if (used != NULL && used->type != JSON_NULL && used->type != JSON_BOOL)
        return err_input(err, _("%s: %s must be true or false"), path,
                         "use_sliding_window");
    if (unset(doc, "use_sliding_window"))
        return 0;
    size_t from = QWEN2_MAX_WINDOW_LAYERS;
    const json_node *m = json_get(doc, json_root(doc), "max_window_layers");
    if (m != NULL && m->type != JSON_NULL &&
        !json_size(m, CONFIG_SIZE_MAX, &from))
        return err_input(err, _("%s: %s must be a whole number"), path,
                         "max_window_layers");
    *slides = from < c->n_layer;
    return 0;
}

/* The sliding window where the model_type's modeling code uses it, into
 * c->window (0: none): sliding_window, a positive whole number, or null,
 * false or absent for none; none for Llama, whose code reads neither
 * key; Qwen2's only where qwen2_slides says a layer slides it. */
static int read_window(llama_config *c, const llama_kind *kind,
                       const json_doc *doc, const char *path, mx_error *err)
{
    c->window = 0;
    bool slides = kind->window != WINDOW_NONE;
    if (kind->window == WINDOW_IF_USED &&
        qwen2_slides(&slides, c, doc, path, err) != 0)
        return -1;
    if (!slides || unset(doc, "sliding_window"))
        return 0;
    return config_size_key(&c->window, doc,
                           json_get(doc, json_root(doc), "sliding_window"),
                           "sliding_window", path, err);
}

/* rope_scaling {"rope_type": "default"} (or "type"): the plain rotary
 * positions, as no rope_scaling. */
static bool rope_default(const json_doc *doc)
{
    const json_node *n = json_get(doc, json_root(doc), "rope_scaling");
    if (n == NULL || n->type != JSON_OBJECT)
        return false;
    const json_node *t = json_get(doc, n, "rope_type");
    if (t == NULL)
        t = json_get(doc, n, "type");
    return t != NULL && t->type == JSON_STRING &&
           strcmp(json_str(doc, t), "default") == 0;
}

/* What the sizes must satisfy for the forward pass. */
static int check_sizes(llama_config *c, const llama_kind *kind,
                       const json_doc *doc, const char *path, mx_error *err)
{
    if (c->hidden % c->n_head != 0)
        return err_input(
            err,
            _("%s: hidden_size (%zu) is not a multiple of num_attention_heads (%zu)"),
            path, c->hidden, c->n_head);
    if (c->n_head % c->n_kv_head != 0)
        return err_input(
            err,
            _("%s: num_attention_heads (%zu) is not a multiple of num_key_value_heads (%zu)"),
            path, c->n_head, c->n_kv_head);
    const size_t hd = c->hidden / c->n_head;
    if (hd % 2 != 0)
        return err_input(
            err,
            _("%s: the head width %zu is odd; rotary positions need it even"),
            path, hd);
    size_t head_dim;
    const json_node *h = json_get(doc, json_root(doc), "head_dim");
    if (h != NULL && h->type != JSON_NULL &&
        (!json_size(h, (uint64_t)1 << 32, &head_dim) || head_dim != hd))
        return err_input(
            err,
            _("%s: head_dim must be hidden_size / num_attention_heads (%zu)"),
            path, hd);
    // transformers' ACT2FN (activations.py) maps "silu" and "swish" both
    // to SiLU
    const json_node *act = json_get(doc, json_root(doc), "hidden_act");
    if (act != NULL && (act->type != JSON_STRING ||
                        (strcmp(json_str(doc, act), "silu") != 0 &&
                         strcmp(json_str(doc, act), "swish") != 0)))
        return err_input(err,
                         _("%s: hidden_act must be silu (or swish, its other "
                           "name)"),
                         path);
    if (read_window(c, kind, doc, path, err) != 0)
        return -1;
    const bool plain_rope = rope_default(doc);
    for (size_t i = 0; i < sizeof unsupported / sizeof *unsupported; i++) {
        if (plain_rope && strcmp(unsupported[i], "rope_scaling") == 0)
            continue;
        const json_node *n = json_get(doc, json_root(doc), unsupported[i]);
        if (!unset(doc, unsupported[i]) &&
            !(strcmp(unsupported[i], "partial_rotary_factor") == 0 &&
              n->type == JSON_NUMBER && n->number == 1))
            return err_input(err, _("%s: %s is not supported"), path,
                             unsupported[i]);
    }
    return 0;
}

size_t llama_context(const llama_config *c, const char **key)
{
    const bool window = c->window != 0 && c->window < c->n_positions;
    *key = window ? "sliding_window" : LLAMA_POSITIONS_KEY;
    return window ? c->window : c->n_positions;
}

int llama_read_config(llama_config *c, const char *path, mx_error *err)
{
    *c = (llama_config){0};
    char *text = NULL;
    size_t len = 0;
    if (file_read_small(&text, &len, path, (size_t)1 << 20, err) != 0)
        return -1;
    json_doc doc;
    int rc = json_parse(&doc, text, len, path, err);
    free(text);
    if (rc != 0)
        return -1;
    rc = -1;
    const json_node *root = json_root(&doc);
    const char *twice = NULL;
    const json_node *type = json_get(&doc, root, "model_type");
    const llama_kind *kind = NULL;
    int repeated;
    if (root->type != JSON_OBJECT) {
        err_input(err, _("%s: not a JSON object"), path);
    } else if ((repeated = json_repeated_key(&twice, &doc, root)) != 0) {
        if (repeated > 0)
            err_input(err, _("%s: the key %s appears twice"), path, twice);
        else
            err_nomem(err, path);
    } else if (type == NULL || type->type != JSON_STRING ||
               (kind = llama_kind_of(json_str(&doc, type))) == NULL) {
        err_input(err, _("%s: model_type must be llama, qwen2 or mistral"),
                  path);
    } else {
        snprintf(c->model_type, sizeof c->model_type, "%s", kind->model_type);
        c->qkv_bias = kind->qkv_bias;
        if (read_sizes(c, &doc, path, err) == 0 &&
            check_sizes(c, kind, &doc, path, err) == 0)
            rc = 0;
    }
    json_free(&doc);
    return rc;
}
