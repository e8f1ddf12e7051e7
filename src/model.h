/* model.h: the one list of the model's variants.
 *
 * Every place that needs the variants (the --variant parser, the order in
 * which the pipeline runs them, their names in the trace) loops over
 * model_variants, so adding a variant starts here. The list is in run
 * order: single, wrapper, fused, block.
 */
#ifndef MHA_MODEL_H
#define MHA_MODEL_H

#include <stddef.h>

/* A set of variants, as --variant chooses them: one bit each. */
enum variant_bits {
    VARIANT_SINGLE = 1u << 0,
    VARIANT_WRAPPER = 1u << 1,
    VARIANT_FUSED = 1u << 2,
    VARIANT_BLOCK = 1u << 3,
};

#define MODEL_N_VARIANTS 4

typedef struct {
    const char *name; /* as --variant, the tables and the files name it */
    unsigned bit;     /* its bit in a set of variant_bits */
} variant_info;

/* MODEL_N_VARIANTS entries, in the order the pipeline runs them. */
extern const variant_info model_variants[MODEL_N_VARIANTS];

/* The variant whose name is the n bytes at name, or NULL. */
const variant_info *variant_by_name(const char *name, size_t n);

/* The name of the variant with this bit ("single", ...), or NULL. */
const char *variant_name(unsigned bit);

#endif
