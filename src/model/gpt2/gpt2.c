/* gpt2.c: a GPT-2 checkpoint folder and its forward pass (gpt2.h). */
#include "model/gpt2/gpt2.h"

#include <assert.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/i18n.h"
#include "io/config_flag.h"
#include "io/config_size.h"
#include "io/file_read.h"
#include "io/json.h"
#include "model/layers/attention_sublayer.h"
#include "model/layers/dense.h"
#include "model/layers/layer_work.h"
#include "model/layers/mlp.h"
#include "model/layers/transformer_block.h"
#include "model/tied_head.h"
#include "numerics/matmul.h"

/* ---- config.json --------------------------------------------------------- */

static int config_size(size_t *out, const json_doc *doc, const char *key,
                       const char *alt, const char *path, mx_error *err)
{
    const json_node *n = json_get(doc, json_root(doc), key);
    if (n == NULL && alt != NULL)
        n = json_get(doc, json_root(doc), alt);
    // a folder naming no model_type is read as GPT-2's (model/family.c)
    if (n == NULL && json_get(doc, json_root(doc), "model_type") == NULL)
        return err_input(err,
                         _("%s: has no model_type, so it is read as GPT-2's, "
                           "and GPT-2's key %s is missing"),
                         path, key);
    if (n == NULL)
        return err_input(err, _("%s: the key %s is missing"), path, key);
    return config_size_key(out, doc, n, key, path, err);
}

static int read_config(gpt2_config *c, const char *path, mx_error *err)
{
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
    if (root->type != JSON_OBJECT) {
        err_input(err, _("%s: not a JSON object"), path);
        goto out;
    }
    /* a key given twice is refused: Python's json keeps the last value,
     * a reader that kept the first would run another model */
    const char *twice;
    const int repeated = json_repeated_key(&twice, &doc, root);
    if (repeated != 0) {
        if (repeated > 0)
            err_input(err, _("%s: the key %s appears twice"), path, twice);
        else
            err_nomem(err, path);
        goto out;
    }
    if (config_size(&c->n_layer, &doc, "n_layer", NULL, path, err) != 0 ||
        config_size(&c->n_head, &doc, "n_head", NULL, path, err) != 0 ||
        config_size(&c->n_embd, &doc, "n_embd", NULL, path, err) != 0 ||
        config_size(&c->n_positions, &doc, GPT2_POSITIONS_KEY, "n_ctx", path,
                    err) != 0 ||
        config_size(&c->vocab_size, &doc, "vocab_size", NULL, path, err) != 0)
        goto out;
    // GPT2Config leaves it to PretrainedConfig: tied unless it says false
    if (tied_head_read(&c->tied, &doc, true, path, err) != 0)
        goto out;
    const json_node *inner = json_get(&doc, root, "n_inner");
    c->n_inner = 4 * c->n_embd;
    if (inner != NULL && inner->type != JSON_NULL &&
        config_size(&c->n_inner, &doc, "n_inner", NULL, path, err) != 0)
        goto out;
    const json_node *eps = json_get(&doc, root, "layer_norm_epsilon");
    c->eps = 1e-5f;
    if (eps != NULL) {
        if (eps->type != JSON_NUMBER || !(eps->number > 0)) {
            err_input(err,
                      _("%s: layer_norm_epsilon must be a positive number"),
                      path);
            goto out;
        }
        c->eps = (float)eps->number;
    }
    const json_node *eos = json_get(&doc, root, "eos_token_id");
    c->eos = -1;
    if (eos != NULL && eos->type != JSON_NULL) {
        size_t id;
        if (!json_size(eos, c->vocab_size - 1, &id)) {
            err_input(err,
                      _("%s: eos_token_id must be a token id below "
                        "vocab_size (%zu)"),
                      path, c->vocab_size);
            goto out;
        }
        c->eos = (long)id;
    }
    const json_node *act = json_get(&doc, root, "activation_function");
    if (act != NULL && (act->type != JSON_STRING ||
                        strcmp(json_str(&doc, act), "gelu_new") != 0)) {
        err_input(err, _("%s: activation_function must be gelu_new"), path);
        goto out;
    }
    // GPT2Attention divides the scores by sqrt(hd) only if
    // scale_attn_weights (GPT2Config: True)
    if (config_flag(&c->scale, &doc, "scale_attn_weights", true, path, err) !=
        0)
        goto out;
    static const char *const unsupported[] = {"scale_attn_by_inverse_layer_idx",
                                              "reorder_and_upcast_attn",
                                              "add_cross_attention"};
    if (config_refuse_flags(&doc, unsupported,
                            sizeof unsupported / sizeof *unsupported, path,
                            err) != 0)
        goto out;
    if (c->n_embd % c->n_head != 0) {
        err_input(err, _("%s: n_embd (%zu) is not a multiple of n_head (%zu)"),
                  path, c->n_embd, c->n_head);
        goto out;
    }
    rc = 0;
out:
    json_free(&doc);
    return rc;
}

/* ---- the tensors ----------------------------------------------------------- */

/* Binds *values to the tensor prefix + name (name alone when prefix is
 * NULL), which must have the shape (d0) or (d0, d1) (d1 0: one
 * dimension). */
static int bind_as(const float **values, gpt2_model *m, const char *prefix,
                   const char *name, size_t d0, size_t d1, mx_error *err)
{
    char full[128];
    snprintf(full, sizeof full, "%s%s", prefix ? prefix : "", name);
    const st_tensor *t = safetensors_find(&m->st, full);
    if (t == NULL)
        return err_input(err, _("%s: tensor %s is missing"), m->st.path, full);
    if (t->dtype == ST_OTHER) // its own message before its shape's
        return err_input(err,
                         _("%s: tensor %s is %s; F32, F16 or BF16 is needed"),
                         m->st.path, full, t->dtype_name);
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
            m->st.path, full, got, want);
    }
    float *owned;
    if (safetensors_floats(values, &owned, &m->st, t, err) != 0)
        return -1;
    if (owned != NULL)
        m->owned[m->n_owned++] = owned;
    return 0;
}

/* A tensor of the base model: prefix + name. */
static int bind(const float **values, gpt2_model *m, const char *name,
                size_t d0, size_t d1, mx_error *err)
{
    return bind_as(values, m, m->prefix, name, d0, d1, err);
}

/* lm_head: GPT2LMHeadModel's own lm_head.weight (V, D), outside
 * "transformer.", or wte when config.json ties them (tied_head.h). */
static int bind_head(gpt2_model *m, mx_error *err)
{
    const gpt2_config *c = &m->cfg;
    m->lm_head = NULL;
    if (safetensors_find(&m->st, TIED_HEAD_NAME) != NULL &&
        bind_as(&m->lm_head, m, NULL, TIED_HEAD_NAME, c->vocab_size, c->n_embd,
                err) != 0)
        return -1;
    return tied_head_settle(&m->lm_head, m->wte, c->vocab_size * c->n_embd,
                            c->tied, m->st.path, "wte.weight", err);
}

/* Every tensor named h.N. must have N < n_layer. */
static int check_layers(const gpt2_model *m, mx_error *err)
{
    const size_t plen = strlen(m->prefix);
    for (size_t i = 0; i < m->st.n; i++) {
        const char *name = m->st.tensors[i].name;
        if (strncmp(name, m->prefix, plen) != 0 ||
            strncmp(name + plen, "h.", 2) != 0)
            continue;
        char *end;
        unsigned long layer = strtoul(name + plen + 2, &end, 10);
        if (*end == '.' && layer >= m->cfg.n_layer)
            return err_input(
                err, _("%s: tensor %s, but config.json says n_layer is %zu"),
                m->st.path, name, m->cfg.n_layer);
    }
    return 0;
}

int gpt2_open(gpt2_model *m, const char *dir, mx_error *err)
{
    *m = (gpt2_model){0};
    const size_t dlen = strlen(dir);
    m->paths = malloc(2 * dlen + 64);
    if (m->paths == NULL)
        return err_nomem(err, dir);
    char *config_path = m->paths, *st_path = m->paths + dlen + 32;
    snprintf(config_path, dlen + 32, "%s/config.json", dir);
    snprintf(st_path, dlen + 32, "%s/model.safetensors", dir);
    if (read_config(&m->cfg, config_path, err) != 0 ||
        safetensors_open(&m->st, st_path, err) != 0) {
        gpt2_close(m);
        return -1;
    }
    const gpt2_config *c = &m->cfg;
    /* each layer has GPT2_LAYER_TENSORS tensors: a larger n_layer is
     * refused before anything is allocated for its layers */
    const size_t tensors = m->st.n, most = tensors / GPT2_LAYER_TENSORS;
    if (c->n_layer > most) {
        const size_t layers = c->n_layer; // gpt2_close clears *c
        gpt2_close(m);
        return err_input(
            err,
            ngettext(
                "%s/config.json: n_layer is %zu, but the %zu tensors of model.safetensors make at most %zu layer (%d tensors each)",
                "%s/config.json: n_layer is %zu, but the %zu tensors of model.safetensors make at most %zu layers (%d tensors each)",
                most),
            dir, layers, tensors, most, GPT2_LAYER_TENSORS);
    }
    if (safetensors_find(&m->st, "transformer.wte.weight") != NULL)
        snprintf(m->prefix, sizeof m->prefix, "transformer.");
    m->layers = calloc(c->n_layer, sizeof *m->layers);
    m->owned = calloc(5 + GPT2_LAYER_TENSORS * c->n_layer, sizeof *m->owned);
    if (m->layers == NULL || m->owned == NULL) {
        gpt2_close(m);
        return err_nomem(err, dir);
    }
    const size_t D = c->n_embd, F = c->n_inner;
    int rc = bind(&m->wte, m, "wte.weight", c->vocab_size, D, err);
    if (rc == 0)
        rc = bind(&m->wpe, m, "wpe.weight", c->n_positions, D, err);
    for (size_t i = 0; rc == 0 && i < c->n_layer; i++) {
        gpt2_layer *l = &m->layers[i];
        const struct {
            const float **to;
            const char *name;
            size_t d0, d1;
        } want[] = {
            {&l->ln_1_w, "ln_1.weight", D, 0},
            {&l->ln_1_b, "ln_1.bias", D, 0},
            {&l->c_attn_w, "attn.c_attn.weight", D, 3 * D},
            {&l->c_attn_b, "attn.c_attn.bias", 3 * D, 0},
            {&l->attn_proj_w, "attn.c_proj.weight", D, D},
            {&l->attn_proj_b, "attn.c_proj.bias", D, 0},
            {&l->ln_2_w, "ln_2.weight", D, 0},
            {&l->ln_2_b, "ln_2.bias", D, 0},
            {&l->c_fc_w, "mlp.c_fc.weight", D, F},
            {&l->c_fc_b, "mlp.c_fc.bias", F, 0},
            {&l->mlp_proj_w, "mlp.c_proj.weight", F, D},
            {&l->mlp_proj_b, "mlp.c_proj.bias", D, 0},
        };
        _Static_assert(sizeof want / sizeof *want == GPT2_LAYER_TENSORS,
                       "a layer's tensors");
        for (size_t k = 0; rc == 0 && k < sizeof want / sizeof *want; k++) {
            char name[96];
            snprintf(name, sizeof name, "h.%zu.%s", i, want[k].name);
            rc = bind(want[k].to, m, name, want[k].d0, want[k].d1, err);
        }
    }
    if (rc == 0)
        rc = bind(&m->ln_f_w, m, "ln_f.weight", D, 0, err);
    if (rc == 0)
        rc = bind(&m->ln_f_b, m, "ln_f.bias", D, 0, err);
    if (rc == 0)
        rc = bind_head(m, err);
    if (rc == 0)
        rc = check_layers(m, err);
    if (rc != 0)
        gpt2_close(m);
    return rc;
}

void gpt2_close(gpt2_model *m)
{
    for (size_t i = 0; i < m->n_owned; i++)
        free(m->owned[i]);
    free(m->owned);
    free(m->layers);
    safetensors_close(&m->st);
    free(m->paths);
    *m = (gpt2_model){0};
}

bool gpt2_param_name(const char *name, int *layer)
{
    static const char *const top[] = {"wte.weight", "wpe.weight", "ln_f.weight",
                                      "ln_f.bias", TIED_HEAD_NAME};
    static const char *const parts[] = {"ln_1", "attn.c_attn", "attn.c_proj",
                                        "ln_2", "mlp.c_fc",    "mlp.c_proj"};
    for (size_t i = 0; i < sizeof top / sizeof *top; i++)
        if (strcmp(name, top[i]) == 0) {
            if (layer != NULL)
                *layer = -1;
            return true;
        }
    if (strncmp(name, "h.", 2) != 0 || name[2] < '0' || name[2] > '9')
        return false;
    char *end;
    const unsigned long n = strtoul(name + 2, &end, 10);
    if (*end != '.' || n > 100000 || (name[2] == '0' && end != name + 3))
        return false;
    for (size_t i = 0; i < sizeof parts / sizeof *parts; i++) {
        const size_t len = strlen(parts[i]);
        if (strncmp(end + 1, parts[i], len) == 0 &&
            (strcmp(end + 1 + len, ".weight") == 0 ||
             strcmp(end + 1 + len, ".bias") == 0)) {
            if (layer != NULL)
                *layer = (int)n;
            return true;
        }
    }
    return false;
}

/* ---- the forward pass ------------------------------------------------------ */

/* A Conv1D of the checkpoint: weight (in, out), bias (out). */
static dense conv1d(const float *weight, const float *bias, size_t in,
                    size_t out)
{
    return (dense){weight, bias, in, out, true};
}

/* Layer li's attention sublayer (attention_sublayer.h): the fused
 * c_attn, qkv (T, 3D) = addmm(c_attn.bias, x, c_attn.weight), each head
 * over its columns of qkv.split(D) (view, permute), and attn_out =
 * addmm(attn.c_proj.bias, concat, attn.c_proj.weight). Its heads:
 * attn_weights / torch.full([], hd ** 0.5), then torch.where(causal,
 * attn_weights, finfo.min). The causal mask of one new token over the
 * cache, bias[:, :, S - 1 : S, :S], hides nothing: causal is the
 * prompt's square mask only. */
static attention_layer layer_attention(const gpt2_model *m, size_t li,
                                       bool causal)
{
    const gpt2_config *c = &m->cfg;
    const gpt2_layer *l = &m->layers[li];
    const size_t D = c->n_embd, hd = D / c->n_head;
    return (attention_layer){
        .fused = conv1d(l->c_attn_w, l->c_attn_b, D, 3 * D),
        .out = conv1d(l->attn_proj_w, l->attn_proj_b, D, D),
        .n_head = c->n_head,
        .n_kv_head = c->n_head,
        .hd = hd,
        .spec = {.causal = causal,
                 .divisor = score_divisor(hd, c->scale),
                 .scale = SCALE_SCORES},
    };
}

/* GPT2Block li as the one Transformer block (transformer_block.h): the
 * norms before, gelu_new, and attn_output + residual. */
static block_layer layer_block(const gpt2_model *m, size_t li)
{
    const gpt2_config *c = &m->cfg;
    const gpt2_layer *l = &m->layers[li];
    const size_t D = c->n_embd, F = c->n_inner;
    return (block_layer){
        .norm = NORM_BEFORE,
        .norm1 = {l->ln_1_w, l->ln_1_b, c->eps},
        .norm2 = {l->ln_2_w, l->ln_2_b, c->eps},
        .ffn = {conv1d(l->c_fc_w, l->c_fc_b, D, F),
                conv1d(l->mlp_proj_w, l->mlp_proj_b, F, D), ACT_GELU_NEW},
        .attn_out_first = true,
    };
}

/* The work of every layer, allocated once for a pass over rows (texts of
 * T new tokens each) over S keys (S = T without a cache): a head's tables
 * are one text's. */
static int work_alloc(layer_work *w, const gpt2_model *m, size_t rows, size_t T,
                      size_t S, mx_error *err)
{
    const attention_layer a = layer_attention(m, 0, true);
    const block_layer b = layer_block(m, 0);
    return layer_work_alloc(w, &a, &b, rows, T, S, err);
}

/* One layer over h (rows, D), in place (layer_work.h): GPT2Block
 * (layer_block) with the attention sublayer (attention_sublayer.h) as
 * pass gives it: one text with the run's hooks and cache, or stacked
 * texts each attending to their own rows with their own heads' hooks. */
static int layer_forward(matrix *h, layer_work *w, const gpt2_model *m,
                         size_t li, attention_pass *pass, mx_error *err)
{
    const block_layer b = layer_block(m, li);
    const bool prompt = pass->cache == NULL || pass->cache->len == 0;
    const attention_layer a = layer_attention(m, li, prompt);
    pass->layer = (int)li;
    const table_key at = layer_table_key((int)li, NO_HEAD, TABLE_HIDDEN);
    return layer_work_run(h, w, &b, &a, pass, &at, err);
}

int gpt2_forward(matrix *out, const gpt2_model *m, const int32_t *ids, size_t T,
                 const gpt2_run *run, mx_error *err)
{
    const gpt2_config *c = &m->cfg;
    const size_t D = c->n_embd;
    const size_t past = run->cache != NULL ? run->cache->len : 0;
    if (T == 0)
        return err_input(err, _("the text has no tokens"));
    if (T > c->n_positions - past)
        return err_input(
            err, _("the text is %zu tokens; the model takes at most %zu (%s)"),
            past + T, c->n_positions, GPT2_POSITIONS_KEY);
    for (size_t t = 0; t < T; t++)
        if (ids[t] < 0 || (size_t)ids[t] >= c->vocab_size)
            return err_input(
                err, _("token id %ld is outside the vocabulary (%zu words)"),
                (long)ids[t], c->vocab_size);
    matrix h = {0};
    layer_work w;
    if (matrix_alloc(&h, T, D, N_("hidden states"), err) != 0)
        return -1;
    if (work_alloc(&w, m, T, T, past + T, err) != 0) {
        matrix_free(&h);
        return -1;
    }
    int rc = -1;
    for (size_t t = 0; t < T; t++)
        for (size_t d = 0; d < D; d++)
            h.v[t * D + d] =
                m->wte[(size_t)ids[t] * D + d] + m->wpe[(past + t) * D + d];
    if (hook_outer_point(run->hooks, VARIANT_INPUT, TABLE_INPUTS, &h, err) != 0)
        goto out;
    attention_pass pass = {
        .hooks = run->hooks, .cache = run->cache, .pool = run->pool};
    for (size_t li = 0; li < c->n_layer; li++)
        if (layer_forward(&h, &w, m, li, &pass, err) != 0)
            goto out;
    if (run->cache != NULL)
        kv_cache_advance(run->cache, T);
    if (matrix_alloc(out, T, D, N_("hidden states"), err) != 0)
        goto out;
    layer_norm(out, &h, m->ln_f_w, m->ln_f_b, c->eps);
    if (hook_outer_point(run->hooks, VARIANT_MODEL, TABLE_OUT, out, err) != 0)
        goto fail_out;
    if (run->logits) {
        matrix logits = {0};
        if (matrix_alloc(&logits, T, c->vocab_size, N_("logits"), err) != 0)
            goto fail_out;
        gpt2_logits(&logits, m, out, run->pool);
        rc = hook_outer_point(run->hooks, VARIANT_MODEL, TABLE_LOGITS, &logits,
                              err);
        matrix_free(&logits);
        if (rc != 0)
            goto fail_out;
    }
    rc = 0;
    goto out;
fail_out:
    matrix_free(out);
out:
    layer_work_free(&w);
    matrix_free(&h);
    return rc;
}

int gpt2_layers(matrix *h, const gpt2_model *m, size_t n, size_t first,
                size_t count, const forward_hooks *hooks, workers *pool,
                mx_error *err)
{
    const gpt2_config *c = &m->cfg;
    assert(n > 0 && h->rows % n == 0 && h->cols == c->n_embd &&
           first + count <= c->n_layer);
    const size_t T = h->rows / n;
    layer_work w;
    if (work_alloc(&w, m, h->rows, T, T, err) != 0)
        return -1;
    // text i's heads through hooks[i]; the block's own points unhooked
    attention_pass pass = {.texts = n, .each_text = hooks, .pool = pool};
    int rc = 0;
    for (size_t li = first; rc == 0 && li < first + count; li++)
        rc = layer_forward(h, &w, m, li, &pass, err);
    layer_work_free(&w);
    return rc;
}

void gpt2_logits(matrix *logits, const gpt2_model *m, const matrix *out,
                 workers *pool)
{
    const size_t T = out->rows, D = m->cfg.n_embd, V = m->cfg.vocab_size;
    // logits = out @ lm_head^T, nn.Linear without a bias (lm_head is wte
    // when tied), a slice of the vocabulary at a time: each cell is its
    // own sum, and the product packs one slice of lm_head, not a copy of
    // all of it (a generated
    // token's one row packs nothing, and takes the whole vocabulary)
    const size_t slice = T == 1 ? V : 4096;
    for (size_t v0 = 0; v0 < V; v0 += slice) {
        const size_t n = V - v0 < slice ? V - v0 : slice;
        const matmul_problem p = {
            .M = T,
            .N = n,
            .K = D,
            .a = out->v,
            .lda = D,
            .b = m->lm_head + v0 * D,
            .ldb = D,
            .b_transposed = true,
            .c = logits->v + v0,
            .ldc = V,
            .shape = MATMUL_FULL,
        };
        matmul_run(&p, matmul_kernel_best(), pool);
    }
}
