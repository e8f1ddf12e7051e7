/* llama.c: a Llama-style checkpoint folder and its forward pass
 * (llama.h). */
#include "model/llama/llama.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/i18n.h"
#include "model/layers/attention_head.h"
#include "model/layers/dense.h"
#include "model/layers/rotary.h"
#include "model/llama/llama_config.h"
#include "model/tied_head.h"
#include "numerics/matmul.h"
#include "numerics/rms_norm.h"

/* ---- the tensors --------------------------------------------------------- */

/* Binds *values to the tensor prefix + name of shape (d0) or (d0, d1)
 * (d1 0: one dimension). */
static int bind(const float **values, llama_model *m, const char *name,
                size_t d0, size_t d1, mx_error *err)
{
    char full[160];
    snprintf(full, sizeof full, "%s%s", m->prefix, name);
    const safetensors *in;
    const st_tensor *t = safetensors_set_find(&m->st, full, &in);
    if (t == NULL)
        return err_input(err, _("%s: tensor %s is missing"), m->st.shown, full);
    if (t->dtype == ST_OTHER) // its own message before its shape's
        return err_input(err,
                         _("%s: tensor %s is %s; F32, F16 or BF16 is needed"),
                         in->path, full, t->dtype_name);
    const size_t ndim = d1 ? 2 : 1;
    if (t->ndim != ndim || t->shape[0] != d0 || (d1 && t->shape[1] != d1)) {
        char got[96] = "", want[48];
        for (size_t i = 0; i < t->ndim && strlen(got) < 64; i++)
            snprintf(got + strlen(got), sizeof got - strlen(got), "%s%zu",
                     i ? ", " : "", t->shape[i]);
        if (d1)
            snprintf(want, sizeof want, "%zu, %zu", d0, d1);
        else
            snprintf(want, sizeof want, "%zu", d0);
        return err_input(
            err, _("%s: tensor %s has shape [%s]; config.json implies [%s]"),
            in->path, full, got, want);
    }
    float *owned;
    if (safetensors_floats(values, &owned, in, t, err) != 0)
        return -1;
    if (owned != NULL)
        m->owned[m->n_owned++] = owned;
    return 0;
}

/* lm_head: LlamaForCausalLM's own lm_head.weight (V, D), outside
 * "model.", or embed_tokens when config.json ties them (tied_head.h). */
static int bind_head(llama_model *m, mx_error *err)
{
    const llama_config *c = &m->cfg;
    m->lm_head = NULL;
    if (safetensors_set_find(&m->st, TIED_HEAD_NAME, NULL) != NULL) {
        char saved[sizeof m->prefix];
        memcpy(saved, m->prefix, sizeof saved);
        m->prefix[0] = '\0';
        const int rc =
            bind(&m->lm_head, m, TIED_HEAD_NAME, c->vocab_size, c->hidden, err);
        memcpy(m->prefix, saved, sizeof saved);
        if (rc != 0)
            return -1;
    }
    char embed[160];
    snprintf(embed, sizeof embed, "%sembed_tokens.weight", m->prefix);
    return tied_head_settle(&m->lm_head, m->embed, c->vocab_size * c->hidden,
                            c->tied, m->st.shown, embed, err);
}

/* Every tensor named layers.N. must have N < num_hidden_layers. */
static int check_layers(const llama_model *m, mx_error *err)
{
    const size_t plen = strlen(m->prefix);
    for (size_t k = 0; k < m->st.n_files; k++)
        for (size_t i = 0; i < m->st.files[k].n; i++) {
            const char *name = m->st.files[k].tensors[i].name;
            if (strncmp(name, m->prefix, plen) != 0 ||
                strncmp(name + plen, "layers.", 7) != 0)
                continue;
            char *end;
            const unsigned long layer = strtoul(name + plen + 7, &end, 10);
            if (*end == '.' && layer >= m->cfg.n_layer)
                return err_input(
                    err,
                    _("%s: tensor %s, but config.json says num_hidden_layers is %zu"),
                    m->st.files[k].path, name, m->cfg.n_layer);
        }
    return 0;
}

/* The tensors of layer i. */
static int bind_layer(llama_model *m, size_t i, mx_error *err)
{
    const llama_config *c = &m->cfg;
    llama_layer *l = &m->layers[i];
    const size_t D = c->hidden, hd = D / c->n_head, Q = c->n_head * hd,
                 KV = c->n_kv_head * hd, F = c->inter;
    const struct {
        const float **to;
        const char *name;
        size_t d0, d1;
        bool present;
    } want[] = {
        {&l->ln_1, "input_layernorm.weight", D, 0, true},
        {&l->q_w, "self_attn.q_proj.weight", Q, D, true},
        {&l->q_b, "self_attn.q_proj.bias", Q, 0, c->qkv_bias},
        {&l->k_w, "self_attn.k_proj.weight", KV, D, true},
        {&l->k_b, "self_attn.k_proj.bias", KV, 0, c->qkv_bias},
        {&l->v_w, "self_attn.v_proj.weight", KV, D, true},
        {&l->v_b, "self_attn.v_proj.bias", KV, 0, c->qkv_bias},
        {&l->o_w, "self_attn.o_proj.weight", D, Q, true},
        {&l->o_b, "self_attn.o_proj.bias", D, 0, c->o_bias},
        {&l->ln_2, "post_attention_layernorm.weight", D, 0, true},
        {&l->gate_w, "mlp.gate_proj.weight", F, D, true},
        {&l->up_w, "mlp.up_proj.weight", F, D, true},
        {&l->down_w, "mlp.down_proj.weight", D, F, true},
    };
    for (size_t k = 0; k < sizeof want / sizeof *want; k++) {
        if (!want[k].present)
            continue;
        char name[128];
        snprintf(name, sizeof name, "layers.%zu.%s", i, want[k].name);
        if (bind(want[k].to, m, name, want[k].d0, want[k].d1, err) != 0)
            return -1;
    }
    return 0;
}

/* At most this many tensors per layer (bind_layer's list). */
#define LLAMA_LAYER_TENSORS 13

int llama_open(llama_model *m, const char *dir, mx_error *err)
{
    *m = (llama_model){0};
    char path[4096];
    if (snprintf(path, sizeof path, "%s/config.json", dir) >= (int)sizeof path)
        return err_input(err, _("%s: the folder's name is too long"), dir);
    if (llama_read_config(&m->cfg, path, err) != 0 ||
        safetensors_set_open(&m->st, dir, err) != 0) {
        llama_close(m);
        return -1;
    }
    const llama_config *c = &m->cfg;
    // every layer has at least 9 tensors: a larger num_hidden_layers is
    // refused before anything is allocated for its layers
    const size_t tensors = safetensors_set_count(&m->st), most = tensors / 9;
    if (c->n_layer > most) {
        const size_t layers = c->n_layer; // llama_close clears *c
        llama_close(m);
        return err_input(
            err,
            ngettext(
                "%s/config.json: num_hidden_layers is %zu, but the %zu tensors of the checkpoint make at most %zu layer",
                "%s/config.json: num_hidden_layers is %zu, but the %zu tensors of the checkpoint make at most %zu layers",
                most),
            dir, layers, tensors, most);
    }
    if (safetensors_set_find(&m->st, "model.embed_tokens.weight", NULL) != NULL)
        snprintf(m->prefix, sizeof m->prefix, "model.");
    m->max_owned = 3 + LLAMA_LAYER_TENSORS * c->n_layer;
    m->layers = calloc(c->n_layer, sizeof *m->layers);
    m->owned = calloc(m->max_owned, sizeof *m->owned);
    if (m->layers == NULL || m->owned == NULL) {
        llama_close(m);
        return err_nomem(err, dir);
    }
    const size_t D = c->hidden;
    int rc = bind(&m->embed, m, "embed_tokens.weight", c->vocab_size, D, err);
    for (size_t i = 0; rc == 0 && i < c->n_layer; i++)
        rc = bind_layer(m, i, err);
    if (rc == 0)
        rc = bind(&m->norm, m, "norm.weight", D, 0, err);
    if (rc == 0)
        rc = bind_head(m, err);
    if (rc == 0)
        rc = check_layers(m, err);
    if (rc != 0)
        llama_close(m);
    return rc;
}

void llama_close(llama_model *m)
{
    for (size_t i = 0; i < m->n_owned; i++)
        free(m->owned[i]);
    free(m->owned);
    free(m->layers);
    safetensors_set_close(&m->st);
    *m = (llama_model){0};
}

bool llama_param_name(const char *name, int *layer)
{
    static const char *const top[] = {"embed_tokens.weight", "norm.weight",
                                      "lm_head.weight"};
    static const char *const parts[] = {
        "input_layernorm.weight", "self_attn.q_proj.weight",
        "self_attn.q_proj.bias",  "self_attn.k_proj.weight",
        "self_attn.k_proj.bias",  "self_attn.v_proj.weight",
        "self_attn.v_proj.bias",  "self_attn.o_proj.weight",
        "self_attn.o_proj.bias",  "post_attention_layernorm.weight",
        "mlp.gate_proj.weight",   "mlp.up_proj.weight",
        "mlp.down_proj.weight"};
    for (size_t i = 0; i < sizeof top / sizeof *top; i++)
        if (strcmp(name, top[i]) == 0) {
            if (layer != NULL)
                *layer = -1;
            return true;
        }
    if (strncmp(name, "layers.", 7) != 0 || name[7] < '0' || name[7] > '9')
        return false;
    char *end;
    const unsigned long n = strtoul(name + 7, &end, 10);
    if (*end != '.' || n > 100000 || (name[7] == '0' && end != name + 8))
        return false;
    for (size_t i = 0; i < sizeof parts / sizeof *parts; i++)
        if (strcmp(end + 1, parts[i]) == 0) {
            if (layer != NULL)
                *layer = (int)n;
            return true;
        }
    return false;
}
