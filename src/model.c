/* model.c: the variants of the model, in run order. */
#include "model.h"

#include <assert.h>
#include <string.h>

const variant_info model_variants[MODEL_N_VARIANTS] = {
    {"single", VARIANT_SINGLE},
    {"wrapper", VARIANT_WRAPPER},
    {"fused", VARIANT_FUSED},
    {"block", VARIANT_BLOCK},
};

static_assert(sizeof model_variants / sizeof model_variants[0] ==
                  MODEL_N_VARIANTS,
              "model_variants lists every variant once");

const variant_info *variant_by_name(const char *name, size_t n)
{
    for (size_t i = 0; i < MODEL_N_VARIANTS; i++)
        if (strlen(model_variants[i].name) == n &&
            strncmp(name, model_variants[i].name, n) == 0)
            return &model_variants[i];
    return NULL;
}

const char *variant_name(unsigned bit)
{
    for (size_t i = 0; i < MODEL_N_VARIANTS; i++)
        if (model_variants[i].bit == bit)
            return model_variants[i].name;
    return NULL;
}
