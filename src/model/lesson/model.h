/* model.h: the variants as the command line and the files name them, and
 * each module's parameters.
 *
 * Every place that needs the variants (the --variant parser, the order in
 * which the pipeline runs them, their names in the trace) loops over
 * model_variants, made from the catalogue's VARIANT_LIST (catalogue.h).
 * The list is in run order: single, wrapper, fused, block. What each one
 * builds, computes and costs is its row of variants.h.
 *
 * Every place that needs the parameters (recording them in the trace,
 * loading and checking --weights files, validating --tables, counting
 * them for --explain) loops over model_params_each (variants.h), which
 * lists a module's parameters in state_dict() order with their names,
 * shapes and storage: the variant's row lists them with the layers
 * below (list_linear, list_qkv, list_norm). Adding a
 * parameter touches the row's listing (variants/NAME.c) and the forward code
 * only.
 */
#ifndef MHA_MODEL_H
#define MHA_MODEL_H

#include <stdbool.h>
#include <stddef.h>

#include "base/error.h"
#include "model/linear.h"
#include "model/trace.h"
#include "numerics/tensor.h"

/* A set of variants, as --variant chooses them: one bit each
 * (VARIANT_SINGLE, VARIANT_WRAPPER, ...), in run order. */
enum variant_bits {
#define VARIANT_BIT(id, name, out_step, tables) \
    VARIANT_##id = 1u << (VARIANT_ID_##id - 1),
    VARIANT_LIST(VARIANT_BIT)
#undef VARIANT_BIT
};

#define MODEL_N_VARIANTS (VARIANT_ID_COUNT - 1)
/* Every variant of VARIANT_LIST, as a set of variant_bits. */
#define VARIANTS_ALL ((unsigned)((1u << MODEL_N_VARIANTS) - 1u))

typedef struct {
    const char *name; /* as --variant, the tables and the files name it */
    unsigned bit;     /* its bit in a set of variant_bits */
    variant_id id;    /* its row in the catalogue (catalogue.h) */
    table_set tables; /* what it makes besides its heads (catalogue.h) */
} variant_info;

/* MODEL_N_VARIANTS entries, in the order the pipeline runs them. */
extern const variant_info model_variants[MODEL_N_VARIANTS];

/* The variant whose name is the n bytes at name, or NULL. */
const variant_info *variant_by_name(const char *name, size_t n);

/* The row of a module's variant (not VARIANT_INPUT). */
const variant_info *variant_by_id(variant_id v);

/* The variant with this bit (one of variant_bits). */
variant_id variant_of_bit(unsigned bit);

/* The names of the variants of set (variant_bits), in run order, into
 * out (size bytes), joined as a list in the user's language: "single,
 * wrapper, fused or block" (VARIANT_NAMES_OR), "... and block"
 * (VARIANT_NAMES_AND) or "single, wrapper, fused, block"
 * (VARIANT_NAMES_ALL). Messages that list the variants take it as %s;
 * out has VARIANT_NAMES_SIZE bytes at most. */
#define VARIANT_NAMES_SIZE 256 /* room for the names of every variant */
enum variant_names_joint {
    VARIANT_NAMES_OR,
    VARIANT_NAMES_AND,
    VARIANT_NAMES_ALL,
};
void variant_names_joined(char *out, size_t size, unsigned set,
                          enum variant_names_joint joint);

/* The names of the variants of set (variant_bits), in run order, into
 * out (size bytes), each after the first preceded by sep: "single,fused"
 * as --variant takes them (sep ","), "single, fused" (sep ", "). */
void variant_names_separated(char *out, size_t size, unsigned set,
                             const char *sep);

/* ---- parameters ------------------------------------------------------ */

/* The sizes the modules' parameters are made from. */
typedef struct model_dims {
    size_t d_model; /* D */
    size_t d_out;   /* O; the block's attention is D wide whatever O is */
    size_t heads;   /* H; a wrapper head is hd = O / H wide */
    size_t ff;      /* F, the block's feed-forward width */
    bool qkv_bias;  /* W_query, W_key, W_value have biases */
    size_t layers;  /* --layers N: the block is a stack of N blocks
                       (model/lesson/stack.h); 0: one block alone */
    bool attn_only; /* --attn-only: each block its attention and the
                       residual only (block.h), ff unused */
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
    bool tied;       /* --tie takes it from the wrapper's heads */
    matrix *value;   /* its values in the module, or NULL (listed without a
                      module, or not present) */
    int stack_layer; /* in a stack of blocks (--layers N): its block's
                        index, which its name starts with; 0 elsewhere */
} param_info;

/* Called for each parameter; a nonzero return stops the listing. */
typedef int (*param_fn)(const param_info *p, void *ctx);

/* ---- the layers a module's listing is made of ------------------------- */

/* Where a listing is sent. */
typedef struct param_lister {
    param_fn fn;
    void *ctx;
} param_lister;

/* nn.Linear(in, out, bias): `layer`.weight (out, in), `layer`.bias
 * (1, out), the bias listed absent when the layer has none. l may be
 * NULL. */
int list_linear(const param_lister *to, const char *layer, size_t in,
                size_t out, bool bias, bool tied, linear *l);

/* prefix + W_query, W_key, W_value, each nn.Linear(D, width). p may be
 * NULL. */
int list_qkv(const param_lister *to, const char *prefix, size_t d_model,
             size_t width, bool bias, bool tied, qkv *p);

/* nn.LayerNorm(D): `layer`.weight and `layer`.bias, each (1, D); weight
 * and bias may be NULL. */
int list_norm(const param_lister *to, const char *layer, size_t D,
              matrix *weight, matrix *bias);

/* A param_fn: records a present parameter as a table of the trace (a
 * copy: the module owns it). ctx is a param_recorder. */
typedef struct {
    trace *tr;
    variant_id variant;
    mx_error *err;
    bool grad; /* the values are gradients: "<name>.grad" tables */
} param_recorder;
int record_param(const param_info *p, void *ctx);

#endif
