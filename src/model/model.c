/* model.c: the variants of the model, in run order, and each module's
 * parameters, in state_dict() order. */
#include "model/model.h"

#include <assert.h>
#include <stdio.h>
#include <string.h>

#include "model/attention.h"
#include "model/block.h"

const variant_info model_variants[MODEL_N_VARIANTS] = {
#define VARIANT_ROW(id, name, out_step, tables) \
    {name, VARIANT_##id, VARIANT_ID_##id, tables},
    VARIANT_LIST(VARIANT_ROW)
#undef VARIANT_ROW
};

static_assert(sizeof model_variants / sizeof model_variants[0] ==
                  MODEL_N_VARIANTS,
              "model_variants lists every variant once");
static_assert(VARIANT_INPUT == 0, "model_variants[i] is variant i + 1");

const variant_info *variant_by_name(const char *name, size_t n)
{
    for (size_t i = 0; i < MODEL_N_VARIANTS; i++)
        if (strlen(model_variants[i].name) == n &&
            strncmp(name, model_variants[i].name, n) == 0)
            return &model_variants[i];
    return NULL;
}

const variant_info *variant_by_id(variant_id v)
{
    assert(v > VARIANT_INPUT && v < VARIANT_ID_COUNT);
    return &model_variants[v - 1];
}

variant_id variant_of_bit(unsigned bit)
{
    for (size_t i = 0; i < MODEL_N_VARIANTS; i++)
        if (model_variants[i].bit == bit)
            return model_variants[i].id;
    return VARIANT_INPUT;
}

/* ---- parameters ------------------------------------------------------ */

/* Where the listing is sent. */
typedef struct {
    param_fn fn;
    void *ctx;
} lister;

/* Lists layer + suffix; value may be NULL. */
static int param(const lister *to, const char *layer, const char *suffix,
                 enum param_kind kind, size_t rows, size_t cols, bool present,
                 bool tied, matrix *value)
{
    char name[80];
    snprintf(name, sizeof name, "%s.%s", layer, suffix);
    const param_info p = {
        .layer = layer,
        .name = name,
        .kind = kind,
        .rows = rows,
        .cols = cols,
        .present = present,
        .tied = tied,
        .value = present ? value : NULL,
    };
    return to->fn(&p, to->ctx);
}

/* nn.Linear(in, out, bias): `layer`.weight (out, in), `layer`.bias
 * (1, out), the bias listed absent when the layer has none. l may be
 * NULL. */
static int linear_params(const lister *to, const char *layer, size_t in,
                         size_t out, bool bias, bool tied, linear *l)
{
    int rc = param(to, layer, "weight", PARAM_WEIGHT, out, in, true, tied,
                   l != NULL ? &l->weight : NULL);
    if (rc == 0)
        rc = param(to, layer, "bias", PARAM_BIAS, 1, out, bias, tied,
                   l != NULL ? &l->bias : NULL);
    return rc;
}

/* prefix + W_query, W_key, W_value, each nn.Linear(D, width). p may be
 * NULL. */
static int qkv_params(const lister *to, const char *prefix, size_t d_model,
                      size_t width, bool bias, bool tied, qkv *p)
{
    static const char *const names[3] = {"W_query", "W_key", "W_value"};
    linear *layers[3] = {NULL, NULL, NULL};
    if (p != NULL) {
        layers[0] = &p->query;
        layers[1] = &p->key;
        layers[2] = &p->value;
    }
    int rc = 0;
    for (int i = 0; i < 3 && rc == 0; i++) {
        char layer[48];
        snprintf(layer, sizeof layer, "%s%s", prefix, names[i]);
        rc = linear_params(to, layer, d_model, width, bias, tied, layers[i]);
    }
    return rc;
}

/* The fused module under prefix: W_query, W_key, W_value (D -> O), then
 * out_proj (O -> O, with bias). tied: --tie replaces the projections. */
static int fused_params_of(const lister *to, const char *prefix,
                           const model_dims *d, bool tied, fused_params *p)
{
    char layer[48];
    snprintf(layer, sizeof layer, "%sout_proj", prefix);
    int rc = qkv_params(to, prefix, d->d_model, d->d_out, d->qkv_bias, tied,
                        p != NULL ? &p->attn : NULL);
    if (rc == 0)
        rc = linear_params(to, layer, d->d_out, d->d_out, true, false,
                           p != NULL ? &p->out_proj : NULL);
    return rc;
}

/* nn.LayerNorm(D): `layer`.weight and `layer`.bias, each (1, D). */
static int norm_params(const lister *to, const char *layer, size_t D,
                       matrix *weight, matrix *bias)
{
    int rc = param(to, layer, "weight", PARAM_NORM_WEIGHT, 1, D, true, false,
                   weight);
    if (rc == 0)
        rc = param(to, layer, "bias", PARAM_NORM_BIAS, 1, D, true, false, bias);
    return rc;
}

int model_params_each(unsigned variant, const model_dims *d,
                      const module_storage *m, param_fn fn, void *ctx)
{
    const module_storage none = {0};
    const lister to = {fn, ctx};
    if (m == NULL)
        m = &none;
    const size_t D = d->d_model, O = d->d_out;
    if (variant == VARIANT_SINGLE)
        // SelfAttention: W_query, W_key, W_value (D -> O)
        return qkv_params(&to, "", D, O, d->qkv_bias, false,
                          m->single != NULL ? &m->single->attn : NULL);
    if (variant == VARIANT_WRAPPER) {
        // heads.h.W_query ... for each head, each D -> hd
        int rc = 0;
        for (size_t h = 0; h < d->heads && rc == 0; h++) {
            char prefix[32];
            snprintf(prefix, sizeof prefix, "heads.%zu.", h);
            rc = qkv_params(&to, prefix, D, O / d->heads, d->qkv_bias, false,
                            m->wrapper != NULL ? &m->wrapper->head[h] : NULL);
        }
        return rc;
    }
    if (variant == VARIANT_FUSED)
        return fused_params_of(&to, "", d, true, m->fused);
    if (variant == VARIANT_BLOCK) {
        // attention.*, norm1, ff.0 (D -> F), ff.2 (F -> D), norm2; the
        // residual adds the attention's output to its input, so the
        // attention is D wide whatever d_out says
        block_params *b = m->block;
        model_dims wide = *d;
        wide.d_out = D;
        int rc = fused_params_of(&to, "attention.", &wide, false,
                                 b != NULL ? &b->attention : NULL);
        if (rc == 0)
            rc = norm_params(&to, "norm1", D, b ? &b->norm1_weight : NULL,
                             b ? &b->norm1_bias : NULL);
        if (rc == 0)
            rc = linear_params(&to, "ff.0", D, d->ff, true, false,
                               b ? &b->ff0 : NULL);
        if (rc == 0)
            rc = linear_params(&to, "ff.2", d->ff, D, true, false,
                               b ? &b->ff2 : NULL);
        if (rc == 0)
            rc = norm_params(&to, "norm2", D, b ? &b->norm2_weight : NULL,
                             b ? &b->norm2_bias : NULL);
        return rc;
    }
    return 0;
}

int record_param(const param_info *p, void *ctx)
{
    const param_recorder *r = ctx;
    if (p->value == NULL) /* absent, or listed without a module */
        return 0;
    assert(p->value->rows == p->rows && p->value->cols == p->cols);
    trace *tr = r->tr;
    const labels *rows, *cols;
    switch (p->kind) {
    case PARAM_WEIGHT:
        rows = trace_index_labels(tr, "out", p->rows, r->err);
        cols = trace_index_labels(tr, "in", p->cols, r->err);
        break;
    case PARAM_BIAS:
        rows = trace_literal_label(tr, "bias", r->err);
        cols = trace_index_labels(tr, "out", p->cols, r->err);
        break;
    case PARAM_NORM_WEIGHT:
        rows = trace_literal_label(tr, "weight", r->err);
        cols = trace_index_labels(tr, "dim", p->cols, r->err);
        break;
    default: /* PARAM_NORM_BIAS */
        rows = trace_literal_label(tr, "bias", r->err);
        cols = trace_index_labels(tr, "dim", p->cols, r->err);
        break;
    }
    if (rows == NULL || cols == NULL)
        return -1;
    const table_key key = {r->variant, 0, NO_HEAD, TABLE_PARAM, false};
    return trace_add_param(tr, &key, p->name, rows, cols, p->value, r->err);
}
