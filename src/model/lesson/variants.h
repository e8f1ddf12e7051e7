/* variants.h: each variant of the model as one row: how its module is
 * built, its parameters, its forward pass, its size and how --explain
 * introduces it.
 *
 * The rows are indexed by variant_id. The catalogue's VARIANT_LIST
 * (catalogue.h) gives each variant's name, the step of its "out" and the
 * tables it makes besides its heads'; the row here gives the rest. The
 * lesson's run (lesson_run.c), training (train.c), the size estimate
 * (lesson_size.c), the page's list of variants (html_data.c), the
 * messages that list the variants (variant_names_joined, model.h), the
 * --variant line of --help (cli/option_help.c) and --explain loop over
 * the rows and know no variant by name.
 *
 * Each variant's module is one file, model/lesson/variants/NAME.c (NAME
 * its identifier in VARIANT_LIST): the struct of its parameters (or the
 * shared ones of attention.h, block.h), their construction and listing,
 * its forward pass, its training pass, its size and its sentence for
 * --explain, and its row, `const variant_row NAME_variant`, which the
 * declarations below and the table of variants.c take from VARIANT_LIST.
 *
 * To add a variant: its line in VARIANT_LIST (catalogue.h), its file
 * under variants/, that file in src/meson.build and, as the file holds
 * messages, in po/POTFILES (docs/architecture.md, "What an addition
 * touches").
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
    /* Trained (--train), its model is a language model with a residual
     * stream and an lm_head over the vocabulary, as a checkpoint's: the
     * interventions run on it (lesson_lm.c; the options of
     * TAKES_LM_HEAD). */
    bool lm_head;
    enum head_making heads;

    /* The bytes of its module (the struct of its parameters), which
     * variant_module_new allocates zeroed. */
    size_t module_size;

    /* Construction: draws the parameters into a zeroed module (of
     * module_size bytes) as the module's constructor does, in its order.
     * free accepts a zeroed or partly made module, and frees what it
     * holds, not the module's own bytes (variant_module_free does). */
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

    /* With lm_head: the module's layers first .. first + count - 1 over
     * x (T, D), the residual stream before layer first, in place, each as
     * forward runs it (stack.h, stack_layers): the interventions start a
     * pass at a layer (lesson_lm.c). NULL in the others. */
    int (*layers)(trace *tr, const void *module, const attention_config *cfg,
                  matrix *x, const sequence_labels *lab, size_t first,
                  size_t count, mx_error *err);

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

/* Each variant's row, NAME_variant, defined in its module's file
 * (variants/NAME.c). */
#define VARIANT_ROW_DECLARATION(ID, name, out_step, tables) \
    extern const variant_row name##_variant;
VARIANT_LIST(VARIANT_ROW_DECLARATION)
#undef VARIANT_ROW_DECLARATION

/* What an option needs of a variant to apply to it: the options read
 * which variants they apply to from the rows (variants_taking). */
enum variant_takes {
    TAKES_NOTHING,      /* no variant: the option row lists its own */
    TAKES_LAYERS,       /* --layers N: its module can be stacked (stacks) */
    TAKES_D_OUT,        /* --d-out: its attention is d_out wide (not
                           d_model_wide) */
    TAKES_FF,           /* --ff: it has a feed-forward network (ffn_hidden
                           among its tables) */
    TAKES_TIE,          /* --tie: it can take the wrapper's heads (tie) */
    TAKES_DROPOUT,      /* --dropout: it drops its outputs (DROPOUT_TABLES
                           among its tables) */
    TAKES_ATTN_DROPOUT, /* --attn-dropout: it drops its attention weights
                           (the others) */
    TAKES_AVERAGE,      /* --average: its heads have a mean
                           (attn_weights_avg among its tables) */
    TAKES_LM_HEAD,      /* the interventions (--patch, --head-scores,
                           ...): trained, it is a language model (lm_head) */
};

/* The variants (a set of variant_bits) whose rows take `what`. */
unsigned variants_taking(enum variant_takes what);

/* The variants whose modules a run of `variants` (a set of
 * variant_bits) with --tie also draws and reads: the tie_from of each of
 * its rows that has tie (the wrapper, for the fused module). */
unsigned variants_tied_from(unsigned variants);

/* The variants whose rows make their heads `how` (head_making). */
unsigned variants_making(enum head_making how);

/* Whether a row names every function a variant needs (all but tie, and
 * layers but with lm_head). */
bool variant_row_complete(const variant_row *row);

/* The row of a module's variant (not VARIANT_INPUT). */
const variant_row *variant_row_of(variant_id v);

/* A zeroed module of variant v (its row's module_size bytes, from
 * calloc, aligned for any of the modules' structs), or NULL with err
 * set. Its one owner builds it with the row's init and hands it to
 * variant_module_free, made or not. */
void *variant_module_new(variant_id v, mx_error *err);
/* Frees what module holds (the row's free), then the module; NULL does
 * nothing. */
void variant_module_free(variant_id v, void *module);

/* The listing of a fused module under prefix (variants/fused.c), which
 * the block's listing reuses for its attention: W_query, W_key, W_value
 * (D -> O), then out_proj (O -> O, with bias); tied: --tie replaces the
 * projections. */
int fused_list_params(const param_lister *to, const char *prefix,
                      const model_dims *d, bool tied, fused_params *p);

/* The module's sizes from the run's: d_out is d_model for a d_model_wide
 * row. */
model_dims variant_dims(const variant_row *row, const model_dims *run);
attention_config variant_attention(const variant_row *row,
                                   const attention_config *run);

/* Calls fn(p, ctx) for each parameter of `variant` (one bit of
 * variant_bits) in state_dict() order, absent biases included, and
 * returns the first nonzero result, or 0. module is the variant's module
 * (variant_module_new), or NULL to list names and shapes only. */
int model_params_each(unsigned variant, const model_dims *dims, void *module,
                      param_fn fn, void *ctx);

#endif
