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
