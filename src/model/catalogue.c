/* catalogue.c: the rows of the variants, the steps and the tables
 * (catalogue.h). */
#include "model/catalogue.h"

#include <assert.h>
#include <string.h>

static const char *const variant_names[] = {"input",
#define VARIANT_NAME(id, name, out_step, tables) #name,
                                            VARIANT_LIST(VARIANT_NAME)
#undef VARIANT_NAME
                                                "model"};
static_assert(sizeof variant_names / sizeof variant_names[0] ==
                  VARIANT_MODEL + 1,
              "a name for every variant, and for a model's outputs after "
              "its layers (which its family names: trace.h)");

/* The step of each variant's table "out". */
static const step_id variant_out_step[] = {
    STEP_OUTPUT, /* the input has no "out" */
#define VARIANT_OUT(id, name, out_step, tables) STEP_##out_step,
    VARIANT_LIST(VARIANT_OUT)
#undef VARIANT_OUT
        STEP_OUTPUT, /* a checkpoint's out, after ln_f */
};
static_assert(sizeof variant_out_step / sizeof variant_out_step[0] ==
                  VARIANT_MODEL + 1,
              "an output step for every variant");

static const char *const step_names[] = {
#define STEP_NAME(id, name) name,
    STEP_LIST(STEP_NAME)
#undef STEP_NAME
};
static_assert(sizeof step_names / sizeof step_names[0] == STEP_COUNT,
              "a name for every step");

static const table_info tables[] = {
#define TABLE_ROW(id, name_, kind_, step_, shade_, mask_, shape_) \
    {                                                             \
        .name = name_,                                            \
        .kind = KIND_##kind_,                                     \
        .step = STEP_##step_,                                     \
        .shade = SHADE_##shade_,                                  \
        .mask = MASK_##mask_,                                     \
        .shape = shape_,                                          \
    },
    TABLE_LIST(TABLE_ROW)
#undef TABLE_ROW
};
static_assert(sizeof tables / sizeof tables[0] == TABLE_COUNT,
              "a row for every table");
static_assert(TABLE_COUNT <= 64, "a set of tables fits a table_set");

/* The column groups of the tables whose columns hold numbers of
 * different kinds (catalogue.h), by the columns each table's maker
 * writes: ablation_effect (clean, ablated, logit_change) and
 * ablation_loss (clean, ablated, change) by model/intervene/ablate.c,
 * generated and generated_clean (id, probability, p_logits, top_k_kept,
 * top_p_kept, then top1, p1 ... top5, p5) by model/generate.c,
 * generated_top (id, probability) too. */
#define COLS(a, b) \
    ((uint64_t)(((uint64_t)1 << ((b) + 1)) - ((uint64_t)1 << (a))))
static const column_group effect_groups[] = {
    {COLS(0, 1), UNIT_PROBABILITY},
    {COLS(2, 2), UNIT_CHANGE},
};
static const column_group loss_groups[] = {
    {COLS(0, 1), UNIT_LOSS},
    {COLS(2, 2), UNIT_CHANGE},
};
#define ALTERNATIVES(first) (0x155ULL << (first)) /* 5 columns, one in two */
static const column_group generated_groups[] = {
    {COLS(0, 0) | ALTERNATIVES(5), UNIT_ID},
    {COLS(1, 2) | ALTERNATIVES(6), UNIT_PROBABILITY},
    {COLS(3, 4), UNIT_COUNT},
};
static const column_group top_groups[] = {
    {COLS(0, 0), UNIT_ID},
    {COLS(1, 1), UNIT_PROBABILITY},
};
#undef ALTERNATIVES
#undef COLS

#define GROUPS(rows) rows, sizeof rows / sizeof rows[0]
static const struct {
    table_id id;
    const column_group *groups;
    size_t n;
} column_groups[] = {
    {TABLE_ABLATE_EFFECT, GROUPS(effect_groups)},
    {TABLE_ABLATE_LOSS, GROUPS(loss_groups)},
    {TABLE_GENERATED, GROUPS(generated_groups)},
    {TABLE_GENERATED_CLEAN, GROUPS(generated_groups)},
    {TABLE_GENERATED_TOP, GROUPS(top_groups)},
};
#undef GROUPS

const column_group *table_column_groups(table_id id, size_t *n)
{
    for (size_t i = 0; i < sizeof column_groups / sizeof column_groups[0]; i++)
        if (column_groups[i].id == id) {
            *n = column_groups[i].n;
            return column_groups[i].groups;
        }
    *n = 0;
    return NULL;
}

const char *variant_id_name(variant_id v)
{
    return variant_names[v];
}

const char *step_id_name(step_id s)
{
    return step_names[s];
}

const table_info *table_info_of(table_id id)
{
    return &tables[id];
}

table_id table_by_name(const char *name, size_t n)
{
    for (size_t i = 0; i < TABLE_COUNT; i++)
        if (tables[i].name[0] != '\0' && strlen(tables[i].name) == n &&
            memcmp(tables[i].name, name, n) == 0)
            return (table_id)i;
    return TABLE_COUNT;
}

step_id table_step(table_id id, variant_id v)
{
    return id == TABLE_OUT ? variant_out_step[v] : tables[id].step;
}
