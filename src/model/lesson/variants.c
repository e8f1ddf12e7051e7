/* variants.c: the table of the variants' rows (variants.h), in the
 * order of VARIANT_LIST, each row defined in its module's file
 * (variants/NAME.c); what the options, the runs and the messages read
 * of the rows. */
#include "model/lesson/variants.h"

#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/i18n.h"

/* ---- the rows ---------------------------------------------------------- */

static const variant_row *const rows[] = {
#define VARIANT_ROW(ID, name, out_step, tables) \
    [VARIANT_ID_##ID - 1] = &name##_variant,
    VARIANT_LIST(VARIANT_ROW)
#undef VARIANT_ROW
};
static_assert(sizeof rows / sizeof rows[0] == VARIANT_ID_COUNT - 1,
              "a row for every variant");

/* Whether variant i's row takes `what` (variants_taking). */
static bool takes(size_t i, enum variant_takes what)
{
    const variant_row *row = rows[i];
    const table_set tables = model_variants[i].tables;
    switch (what) {
    case TAKES_NOTHING:
        return false;
    case TAKES_LAYERS:
        return row->stacks;
    case TAKES_D_OUT:
        return !row->d_model_wide;
    case TAKES_FF:
        return (tables & TABLE_BIT(FFN_HIDDEN)) != 0;
    case TAKES_TIE:
        return row->tie != NULL;
    case TAKES_DROPOUT:
        return (tables & DROPOUT_TABLES) != 0;
    case TAKES_ATTN_DROPOUT:
        return (tables & DROPOUT_TABLES) == 0;
    case TAKES_AVERAGE:
        return (tables & TABLE_BIT(ATTN_WEIGHTS_AVG)) != 0;
    case TAKES_LM_HEAD:
        return row->lm_head;
    }
    return false;
}

unsigned variants_taking(enum variant_takes what)
{
    unsigned set = 0;
    for (size_t i = 0; i < MODEL_N_VARIANTS; i++)
        if (takes(i, what))
            set |= model_variants[i].bit;
    return set;
}

unsigned variants_tied_from(unsigned variants)
{
    unsigned set = 0;
    for (size_t i = 0; i < MODEL_N_VARIANTS; i++)
        if ((variants & model_variants[i].bit) && rows[i]->tie != NULL)
            set |= model_variants[rows[i]->tie_from - 1].bit;
    return set;
}

unsigned variants_making(enum head_making how)
{
    unsigned set = 0;
    for (size_t i = 0; i < MODEL_N_VARIANTS; i++)
        if (rows[i]->heads == how)
            set |= model_variants[i].bit;
    return set;
}

bool variant_row_complete(const variant_row *row)
{
    return row->module_size > 0 && row->init != NULL && row->free != NULL &&
           row->params != NULL && row->forward != NULL && row->train != NULL &&
           row->size != NULL && row->explain != NULL &&
           (!row->lm_head || row->layers != NULL);
}

const variant_row *variant_row_of(variant_id v)
{
    assert(v > VARIANT_INPUT && v < VARIANT_ID_COUNT);
    assert(variant_row_complete(rows[v - 1])); /* every variant has its row */
    return rows[v - 1];
}

model_dims variant_dims(const variant_row *row, const model_dims *run)
{
    model_dims d = *run;
    if (row->d_model_wide)
        d.d_out = d.d_model;
    return d;
}

attention_config variant_attention(const variant_row *row,
                                   const attention_config *run)
{
    attention_config cfg = *run;
    if (row->d_model_wide)
        cfg.d_out = cfg.d_model;
    return cfg;
}

int model_params_each(unsigned variant, const model_dims *d, void *module,
                      param_fn fn, void *ctx)
{
    const variant_id id = variant_of_bit(variant);
    if (id == VARIANT_INPUT)
        return 0;
    const variant_row *row = variant_row_of(id);
    const param_lister to = {fn, ctx};
    const model_dims dims = variant_dims(row, d);
    return row->params(&to, &dims, module);
}

void *variant_module_new(variant_id v, mx_error *err)
{
    void *module = calloc(1, variant_row_of(v)->module_size);
    if (module == NULL)
        err_nomem(err, _("the model"));
    return module;
}

void variant_module_free(variant_id v, void *module)
{
    if (module == NULL)
        return;
    variant_row_of(v)->free(module);
    free(module);
}
