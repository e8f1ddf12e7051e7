/* model.c: the variants of the model, in run order, and the listing of
 * each module's parameters, in state_dict() order. */
#include "model/lesson/model.h"

#include <assert.h>
#include <stdio.h>
#include <string.h>

#include "base/i18n.h"

const variant_info model_variants[MODEL_N_VARIANTS] = {
#define VARIANT_ROW(id, name, out_step, tables) \
    {#name, VARIANT_##id, VARIANT_ID_##id, tables},
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

/* ---- the names, as a message lists them ------------------------------ */

/* The joint before the last of several names: "%s or %s", "%s and %s",
 * or the joint of the others. */
static const char *last_joint(enum variant_names_joint joint)
{
    switch (joint) {
    case VARIANT_NAMES_OR:
        /* TRANSLATORS: the last two names of a list of choices, "single,
           wrapper, fused or block" */
        return _("%s or %s");
    case VARIANT_NAMES_AND:
        /* TRANSLATORS: the last two names of a list of all of them,
           "single, wrapper, fused and block" */
        return _("%s and %s");
    case VARIANT_NAMES_ALL:
        break;
    }
    /* TRANSLATORS: two names in a list, "single, wrapper" */
    return _("%s, %s");
}

void variant_names_joined(char *out, size_t size, unsigned set,
                          enum variant_names_joint joint)
{
    size_t left = 0;
    for (size_t i = 0; i < MODEL_N_VARIANTS; i++)
        left += (set & model_variants[i].bit) != 0;
    char so_far[VARIANT_NAMES_SIZE] = "";
    for (size_t i = 0; i < MODEL_N_VARIANTS; i++) {
        if (!(set & model_variants[i].bit))
            continue;
        left--;
        const char *name = model_variants[i].name;
        // the names so far, then this one: "%s, %s" ("%s or %s" last)
        const char *pair = left == 0 ? last_joint(joint) : _("%s, %s");
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
        if (so_far[0] == '\0')
            snprintf(out, size, "%s", name);
        else
            snprintf(out, size, pair, so_far, name);
#pragma GCC diagnostic pop
        snprintf(so_far, sizeof so_far, "%s", out);
    }
    if (so_far[0] == '\0' && size > 0)
        out[0] = '\0';
}

void variant_names_separated(char *out, size_t size, unsigned set,
                             const char *sep)
{
    if (size == 0)
        return;
    out[0] = '\0';
    for (size_t i = 0; i < MODEL_N_VARIANTS; i++)
        if (set & model_variants[i].bit) {
            const size_t used = strlen(out);
            snprintf(out + used, size - used, "%s%s", used ? sep : "",
                     model_variants[i].name);
        }
}

/* ---- parameters ------------------------------------------------------ */

/* Lists layer + suffix; value may be NULL. */
static int param(const param_lister *to, const char *layer, const char *suffix,
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

int list_linear(const param_lister *to, const char *layer, size_t in,
                size_t out, bool bias, bool tied, linear *l)
{
    int rc = param(to, layer, "weight", PARAM_WEIGHT, out, in, true, tied,
                   l != NULL ? &l->weight : NULL);
    if (rc == 0)
        rc = param(to, layer, "bias", PARAM_BIAS, 1, out, bias, tied,
                   l != NULL ? &l->bias : NULL);
    return rc;
}

int list_qkv(const param_lister *to, const char *prefix, size_t d_model,
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
        rc = list_linear(to, layer, d_model, width, bias, tied, layers[i]);
    }
    return rc;
}

int list_norm(const param_lister *to, const char *layer, size_t D,
              matrix *weight, matrix *bias)
{
    int rc = param(to, layer, "weight", PARAM_NORM_WEIGHT, 1, D, true, false,
                   weight);
    if (rc == 0)
        rc = param(to, layer, "bias", PARAM_NORM_BIAS, 1, D, true, false, bias);
    return rc;
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
    const table_key key = {r->variant, p->stack_layer, NO_HEAD, TABLE_PARAM,
                           r->grad};
    char name[sizeof((table *)NULL)->param];
    // a gradient is named as PyTorch's: "W_query.weight.grad"
    snprintf(name, sizeof name, r->grad ? "%s.grad" : "%s", p->name);
    return trace_add_param(tr, &key, name, rows, cols, p->value, r->err);
}
