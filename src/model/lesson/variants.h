/* variants.h: each variant of the model as one row: how its module is
 * built, its parameters, its forward pass, its size and how --explain
 * introduces it.
 *
 * The rows are indexed by variant_id. The catalogue's VARIANT_LIST
 * (catalogue.h) gives each variant's name, the step of its "out" and the
 * tables it makes besides its heads'; the row here gives the rest. The
 * lesson's run (lesson_run.c), training (train.c), the size estimate
 * (lesson_size.c), the page's list of variants (html_data.c) and
 * --explain loop over the rows and know no variant by name.
 *
 * To add a variant: its line in VARIANT_LIST (catalogue.h), its member
 * of module_room here, its row in variants.c, its module's files (the
 * struct of its parameters, their init and free, its forward pass; its
 * training pass in a file of its own, as model/heads.h and train_parts.h
 * each define a head_work) and src/meson.build (docs/architecture.md,
 * "What an addition touches").
 */
#ifndef MHA_VARIANTS_H
#define MHA_VARIANTS_H

#include <stdbool.h>
#include <stddef.h>

#include "base/error.h"
#include "model/lesson/attention.h"
#include "model/lesson/block.h"
#include "model/lesson/stack.h"
#include "model/lesson/model.h"
#include "model/lesson/train_parts.h"
#include "model/trace.h"
#include "numerics/rng.h"

/* Room for the module of any variant. A run builds one module at a time
 * in a zeroed module_room and hands its address to the row's functions,
 * which know which member is theirs. */
typedef union {
    single_params single;
    wrapper_params wrapper;
    fused_params fused;
    block_stack block; /* one block, or a stack of them */
} module_room;

/* What a variant's forward pass makes and holds besides its parameters,
 * in float values, for t tokens: the size estimates of pipeline.c. */
typedef struct {
    double tables;     /* every table it makes, kept to the end (trace.h) */
    double kept;       /* what a streamed run keeps to the end: its output */
    double work;       /* the most its pass holds besides: Q, K, V (fused,
                      block), the heads' contexts, concat_context */
    double head_width; /* hd: one head's queries, keys and values are
                          t x hd each, its scores and weights t x t */
} variant_size;

/* How a module makes its heads' queries, keys and values. */
enum head_making {
    HEADS_ONE,   /* one head, as wide as the module (O) */
    HEADS_APART, /* each head its own W_query, W_key, W_value, hd wide */
    HEADS_SPLIT, /* one W_query, W_key, W_value O wide, split into heads
                    by view and transpose */
};

/* One variant. The dims (model_dims) and the attention_config its
 * functions are handed are the module's: variant_dims and
 * variant_attention of the run's. */
typedef struct {
    /* Its attention is d_model wide whatever d_out says: the block's
     * residual adds the attention's output to its input. */
    bool d_model_wide;
    /* --layers N stacks N of its modules (stack.h). */
    bool stacks;
    enum head_making heads;

    /* Construction: draws the parameters into a zeroed module_room as the
     * module's constructor does, in its order. free accepts a zeroed or
     * partly made module. */
    int (*init)(void *module, const attention_config *cfg, const model_dims *d,
                torch_rng *g, mx_error *err);
    void (*free)(void *module);

    /* Parameters: lists them in state_dict() order (model_params_each);
     * module NULL lists names and shapes only. */
    int (*params)(const param_lister *to, const model_dims *d, void *module);

    /* Forward: the module's tables into tr, its parameters already
     * recorded (attention.h, block.h). */
    int (*forward)(trace *tr, const void *module, const attention_config *cfg,
                   const attention_input *in, const sequence_labels *lab,
                   mx_error *err);

    /* Training (--train): the module's forward over x, the top layer
     * over its output, then its backward (train_parts.h). */
    module_pass_fn train;

    /* Size estimate for t tokens (lesson_size.c adds the parameters). */
    variant_size (*size)(const model_dims *d, double t);

    /* Explanation: the sentence --explain opens the module with, into
     * text (size bytes), in the user's language. */
    void (*explain)(char *text, size_t size, const model_dims *d);

    /* --tie, the fused row only (NULL in the others): the module takes the
     * heads of `wrapper`, a module of variant tie_from drawn and read as
     * that variant's own run makes it (--check then compares the two
     * variants' concat_context). */
    void (*tie)(void *module, const void *wrapper);
    variant_id tie_from; /* with tie: VARIANT_ID_WRAPPER */
} variant_row;

/* What an option needs of a variant to apply to it: the options read
 * which variants they apply to from the rows (variants_taking). */
enum variant_takes {
    TAKES_NOTHING,      /* no variant: the option row lists its own */
    TAKES_LAYERS,       /* --layers N: its module can be stacked (stacks) */
    TAKES_FF,           /* --ff: it has a feed-forward network (ffn_hidden
                           among its tables) */
    TAKES_TIE,          /* --tie: it can take the wrapper's heads (tie) */
    TAKES_DROPOUT,      /* --dropout: it drops its outputs (DROPOUT_TABLES
                           among its tables) */
    TAKES_ATTN_DROPOUT, /* --attn-dropout: it drops its attention weights
                           (the others) */
    TAKES_AVERAGE,      /* --average: its heads have a mean
                           (attn_weights_avg among its tables) */
};

/* The variants (a set of variant_bits) whose rows take `what`. */
unsigned variants_taking(enum variant_takes what);

/* Whether a row names every function a variant needs (all but tie). */
bool variant_row_complete(const variant_row *row);

/* The row of a module's variant (not VARIANT_INPUT). */
const variant_row *variant_row_of(variant_id v);

/* The module's sizes from the run's: d_out is d_model for a d_model_wide
 * row. */
model_dims variant_dims(const variant_row *row, const model_dims *run);
attention_config variant_attention(const variant_row *row,
                                   const attention_config *run);

/* Calls fn(p, ctx) for each parameter of `variant` (one bit of
 * variant_bits) in state_dict() order, absent biases included, and
 * returns the first nonzero result, or 0. module is the variant's module
 * (its row's storage, variants.h), or NULL to list names and shapes
 * only. */
int model_params_each(unsigned variant, const model_dims *dims, void *module,
                      param_fn fn, void *ctx);

#endif
