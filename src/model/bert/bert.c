/* bert.c: a BERT checkpoint folder and its forward pass (bert.h). */
#include "model/bert/bert.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/i18n.h"
#include "model/layers/attention_head.h"
#include "model/layers/dense.h"
#include "model/layers/mlp.h"
#include "model/layers/transformer_block.h"
#include "numerics/gelu.h"
#include "numerics/matmul.h"

/* ---- the tensors ----------------------------------------------------------- */

/* The tensor prefix + name, or NULL; a LayerNorm's .weight and .bias are
 * also found as .gamma and .beta. */
static const st_tensor *find(const bert_model *m, const char *prefix,
                             const char *name, char *full, size_t size)
{
    snprintf(full, size, "%s%s", prefix, name);
    const st_tensor *t = safetensors_find(&m->st, full);
    const char *dot = strrchr(name, '.');
    if (t != NULL || dot == NULL || strstr(name, "LayerNorm.") == NULL)
        return t;
    char old[160];
    snprintf(old, sizeof old, "%s%.*s.%s", prefix, (int)(dot - name), name,
             strcmp(dot, ".weight") == 0 ? "gamma" : "beta");
    return safetensors_find(&m->st, old);
}

/* Binds *values to the tensor prefix + name, which must have the shape
 * (d0) or (d0, d1) (d1 0: one dimension). */
static int bind(const float **values, bert_model *m, const char *prefix,
                const char *name, size_t d0, size_t d1, mx_error *err)
{
    char full[160];
    const st_tensor *t = find(m, prefix, name, full, sizeof full);
    if (t == NULL)
        return err_input(err, _("%s: tensor %s is missing"), m->st.path, full);
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
            m->st.path, t->name, got, want);
    }
    if (t->dtype != ST_F32 && m->n_owned == m->max_owned)
        return err_nomem(err, t->name); // more binds than bert_open counted
    float *owned = NULL;
    if (safetensors_floats(values, &owned, &m->st, t, err) != 0)
        return -1;
    if (owned != NULL) // widened, or an F32 tensor off its alignment
        m->owned[m->n_owned++] = owned;
    return 0;
}

/* One tensor to bind: where, its name, its shape. */
typedef struct {
    const float **to;
    const char *name;
    size_t d0, d1;
} wanted;

static int bind_all(bert_model *m, const char *prefix, const wanted *w,
                    size_t n, mx_error *err)
{
    for (size_t k = 0; k < n; k++)
        if (bind(w[k].to, m, prefix, w[k].name, w[k].d0, w[k].d1, err) != 0)
            return -1;
    return 0;
}

static int bind_layer(bert_model *m, size_t i, mx_error *err)
{
    const bert_config *c = &m->cfg;
    const size_t D = c->d, F = c->n_inner;
    bert_layer *l = &m->layers[i];
    char prefix[48];
    snprintf(prefix, sizeof prefix, "%sencoder.layer.%zu.", m->prefix, i);
    const wanted w[] = {
        {&l->q_w, "attention.self.query.weight", D, D},
        {&l->q_b, "attention.self.query.bias", D, 0},
        {&l->k_w, "attention.self.key.weight", D, D},
        {&l->k_b, "attention.self.key.bias", D, 0},
        {&l->v_w, "attention.self.value.weight", D, D},
        {&l->v_b, "attention.self.value.bias", D, 0},
        {&l->attn_out_w, "attention.output.dense.weight", D, D},
        {&l->attn_out_b, "attention.output.dense.bias", D, 0},
        {&l->ln1_w, "attention.output.LayerNorm.weight", D, 0},
        {&l->ln1_b, "attention.output.LayerNorm.bias", D, 0},
        {&l->inter_w, "intermediate.dense.weight", F, D},
        {&l->inter_b, "intermediate.dense.bias", F, 0},
        {&l->out_w, "output.dense.weight", D, F},
        {&l->out_b, "output.dense.bias", D, 0},
        {&l->ln2_w, "output.LayerNorm.weight", D, 0},
        {&l->ln2_b, "output.LayerNorm.bias", D, 0},
    };
    _Static_assert(sizeof w / sizeof *w == BERT_LAYER_TENSORS,
                   "a layer's tensors");
    return bind_all(m, prefix, w, sizeof w / sizeof *w, err);
}

/* The masked-word head where the file has cls.predictions.bias: its
 * transform, and the decoder's weight (tied: the word embeddings, or the
 * file's own cls.predictions.decoder.weight of the same shape). */
static int bind_head(bert_model *m, mx_error *err)
{
    const bert_config *c = &m->cfg;
    const size_t D = c->d, V = c->vocab_size;
    char full[160];
    if (find(m, "", "cls.predictions.bias", full, sizeof full) == NULL)
        return 0;
    m->has_mlm = true;
    bert_mlm_head *h = &m->mlm;
    const wanted w[] = {
        {&h->bias, "predictions.bias", V, 0},
        {&h->dense_w, "predictions.transform.dense.weight", D, D},
        {&h->dense_b, "predictions.transform.dense.bias", D, 0},
        {&h->ln_w, "predictions.transform.LayerNorm.weight", D, 0},
        {&h->ln_b, "predictions.transform.LayerNorm.bias", D, 0},
    };
    if (bind_all(m, "cls.", w, sizeof w / sizeof *w, err) != 0)
        return -1;
    h->decoder = m->word;
    if (find(m, "", "cls.predictions.decoder.weight", full, sizeof full))
        return bind(&h->decoder, m, "", "cls.predictions.decoder.weight", V, D,
                    err);
    return 0;
}

/* BertModel's pooler where the file has pooler.dense.weight (under the
 * model's prefix): its weight and bias. */
static int bind_pooler(bert_model *m, mx_error *err)
{
    const size_t D = m->cfg.d;
    char prefix[32], full[160];
    snprintf(prefix, sizeof prefix, "%spooler.", m->prefix);
    if (find(m, prefix, "dense.weight", full, sizeof full) == NULL)
        return 0;
    m->has_pooler = true;
    const wanted w[] = {
        {&m->pooler.dense_w, "dense.weight", D, D},
        {&m->pooler.dense_b, "dense.bias", D, 0},
    };
    return bind_all(m, prefix, w, sizeof w / sizeof *w, err);
}

/* Every tensor named encoder.layer.N. must have N < num_hidden_layers. */
static int check_layers(const bert_model *m, mx_error *err)
{
    char start[32];
    snprintf(start, sizeof start, "%sencoder.layer.", m->prefix);
    const size_t len = strlen(start);
    for (size_t i = 0; i < m->st.n; i++) {
        const char *name = m->st.tensors[i].name;
        if (strncmp(name, start, len) != 0)
            continue;
        char *end;
        const unsigned long layer = strtoul(name + len, &end, 10);
        if (*end == '.' && layer >= m->cfg.n_layer)
            return err_input(
                err,
                _("%s: tensor %s, but config.json says num_hidden_layers is %zu"),
                m->st.path, name, m->cfg.n_layer);
    }
    return 0;
}

static int bind_model(bert_model *m, mx_error *err)
{
    const bert_config *c = &m->cfg;
    const size_t D = c->d;
    char prefix[32];
    snprintf(prefix, sizeof prefix, "%sembeddings.", m->prefix);
    const wanted w[] = {
        {&m->word, "word_embeddings.weight", c->vocab_size, D},
        {&m->pos, "position_embeddings.weight", c->n_positions, D},
        {&m->types, "token_type_embeddings.weight", c->n_types, D},
        {&m->emb_ln_w, "LayerNorm.weight", D, 0},
        {&m->emb_ln_b, "LayerNorm.bias", D, 0},
    };
    if (bind_all(m, prefix, w, sizeof w / sizeof *w, err) != 0)
        return -1;
    for (size_t i = 0; i < c->n_layer; i++)
        if (bind_layer(m, i, err) != 0)
            return -1;
    if (bind_head(m, err) != 0 || bind_pooler(m, err) != 0)
        return -1;
    return check_layers(m, err);
}

int bert_open(bert_model *m, const char *dir, mx_error *err)
{
    *m = (bert_model){0};
    const size_t dlen = strlen(dir);
    m->paths = malloc(2 * dlen + 64);
    if (m->paths == NULL)
        return err_nomem(err, dir);
    char *config_path = m->paths, *st_path = m->paths + dlen + 32;
    snprintf(config_path, dlen + 32, "%s/config.json", dir);
    snprintf(st_path, dlen + 32, "%s/model.safetensors", dir);
    if (bert_config_read(&m->cfg, config_path, err) != 0 ||
        safetensors_open(&m->st, st_path, err) != 0) {
        bert_close(m);
        return -1;
    }
    const bert_config *c = &m->cfg;
    // each layer has BERT_LAYER_TENSORS tensors: a larger count is
    // refused before anything is allocated for its layers
    const size_t tensors = m->st.n, most = tensors / BERT_LAYER_TENSORS;
    if (c->n_layer > most) {
        const size_t layers = c->n_layer; // bert_close clears *c
        bert_close(m);
        return err_input(
            err,
            ngettext(
                "%s/config.json: num_hidden_layers is %zu, but the %zu tensors of model.safetensors make at most %zu layer (%d tensors each)",
                "%s/config.json: num_hidden_layers is %zu, but the %zu tensors of model.safetensors make at most %zu layers (%d tensors each)",
                most),
            dir, layers, tensors, most, BERT_LAYER_TENSORS);
    }
    if (safetensors_find(&m->st, "bert.embeddings.word_embeddings.weight"))
        snprintf(m->prefix, sizeof m->prefix, "bert.");
    m->layers = calloc(c->n_layer, sizeof *m->layers);
    // the embeddings' 5 tensors, the head's 6, the pooler's 2 and each
    // layer's
    m->max_owned = 16 + BERT_LAYER_TENSORS * c->n_layer;
    m->owned = calloc(m->max_owned, sizeof *m->owned);
    if (m->layers == NULL || m->owned == NULL) {
        bert_close(m);
        return err_nomem(err, dir);
    }
    if (bind_model(m, err) != 0) {
        bert_close(m);
        return -1;
    }
    return 0;
}

void bert_close(bert_model *m)
{
    free(m->layers);
    for (size_t i = 0; i < m->n_owned; i++)
        free(m->owned[i]);
    free(m->owned);
    safetensors_close(&m->st);
    free(m->paths);
    *m = (bert_model){0};
}

bool bert_param_name(const char *name, int *layer)
{
    if (layer != NULL)
        *layer = -1;
    if (strncmp(name, "embeddings.", 11) == 0 ||
        strncmp(name, "pooler.", 7) == 0 ||
        strncmp(name, "cls.predictions.", 16) == 0)
        return strchr(name, '.') != NULL;
    if (strncmp(name, "encoder.layer.", 14) != 0 || name[14] < '0' ||
        name[14] > '9')
        return false;
    char *end;
    const unsigned long n = strtoul(name + 14, &end, 10);
    if (*end != '.' || end[1] == '\0' || n > 100000 ||
        (name[14] == '0' && end != name + 15))
        return false;
    if (layer != NULL)
        *layer = (int)n;
    return true;
}
