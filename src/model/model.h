/* model.h: the one description of the model: its variants and, per
 * module, its parameters.
 *
 * Every place that needs the variants (the --variant parser, the order in
 * which the pipeline runs them, their names in the trace) loops over
 * model_variants, so adding a variant starts here. The list is in run
 * order: single, wrapper, fused, block.
 *
 * Every place that needs the parameters (recording them in the trace,
 * loading and checking --weights files, validating --tables, counting
 * them for --explain) loops over model_params_each, which lists a
 * module's parameters in state_dict() order with their names, shapes and
 * storage. Adding a parameter touches model.c and the forward code only.
 */
#ifndef MHA_MODEL_H
#define MHA_MODEL_H

#include <stdbool.h>
#include <stddef.h>

#include "cli/error.h"
#include "numerics/tensor.h"
#include "model/trace.h"

/* A set of variants, as --variant chooses them: one bit each. */
enum variant_bits {
    VARIANT_SINGLE = 1u << 0,
    VARIANT_WRAPPER = 1u << 1,
    VARIANT_FUSED = 1u << 2,
    VARIANT_BLOCK = 1u << 3,
};

#define MODEL_N_VARIANTS (VARIANT_ID_COUNT - 1)

typedef struct {
    const char *name;     /* as --variant, the tables and the files name it */
    unsigned bit;         /* its bit in a set of variant_bits */
    variant_id id;        /* its row in the catalogue (catalogue.h) */
    unsigned long tables; /* what it makes besides its heads (catalogue.h) */
} variant_info;

/* MODEL_N_VARIANTS entries, in the order the pipeline runs them. */
extern const variant_info model_variants[MODEL_N_VARIANTS];

/* The variant whose name is the n bytes at name, or NULL. */
const variant_info *variant_by_name(const char *name, size_t n);

/* The row of a module's variant (not VARIANT_INPUT). */
const variant_info *variant_by_id(variant_id v);

/* The variant with this bit (one of variant_bits). */
variant_id variant_of_bit(unsigned bit);

/* ---- parameters ------------------------------------------------------ */

/* The sizes the modules' parameters are made from. */
typedef struct {
    size_t d_model; /* D */
    size_t d_out;   /* O; the block's attention is D wide whatever O is */
    size_t heads;   /* H; a wrapper head is hd = O / H wide */
    size_t ff;      /* F, the block's feed-forward width */
    bool qkv_bias;  /* W_query, W_key, W_value have biases */
} model_dims;

/* What a parameter is, which decides the labels of its table. */
enum param_kind {
    PARAM_WEIGHT,      /* nn.Linear weight (out, in): rows out*, cols in* */
    PARAM_BIAS,        /* nn.Linear bias (1, out): row "bias", cols out* */
    PARAM_NORM_WEIGHT, /* nn.LayerNorm weight (1, D): row "weight", dim* */
    PARAM_NORM_BIAS,   /* nn.LayerNorm bias (1, D): row "bias", dim* */
};

/* One parameter, as model_params_each hands it to a param_fn; layer and
 * name are valid during the call only. */
typedef struct {
    const char *layer; /* the layer: "W_query", "heads.1.W_key", "norm1" */
    const char *name;  /* state_dict() name: layer + ".weight" or ".bias" */
    enum param_kind kind;
    size_t rows, cols; /* its shape */
    /* false: a bias the layer is made without (no --qkv-bias), listed so
     * that a file for it is explained */
    bool present;
    bool tied;     /* --tie takes it from the wrapper's heads */
    matrix *value; /* its values in the module, or NULL (listed without a
                      module, or not present) */
} param_info;

/* Called for each parameter; a nonzero return stops the listing. */
typedef int (*param_fn)(const param_info *p, void *ctx);

/* The module whose parameters to list with their storage: the pointer of
 * the variant listed (single for VARIANT_SINGLE, ...); NULL, or that
 * pointer NULL, lists names and shapes only. */
struct single_params;
struct wrapper_params;
struct fused_params;
struct block_params;
typedef struct {
    struct single_params *single;
    struct wrapper_params *wrapper;
    struct fused_params *fused;
    struct block_params *block;
} module_storage;

/* Calls fn(p, ctx) for each parameter of `variant` (one bit of
 * variant_bits) in state_dict() order, absent biases included, and
 * returns the first nonzero result, or 0. */
int model_params_each(unsigned variant, const model_dims *dims,
                      const module_storage *m, param_fn fn, void *ctx);

/* A param_fn: records a present parameter as a table of the trace (a
 * copy: the module owns it). ctx is a param_recorder. */
typedef struct {
    trace *tr;
    variant_id variant;
    mx_error *err;
} param_recorder;
int record_param(const param_info *p, void *ctx);

#endif
