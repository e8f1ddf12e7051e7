/* catalogue.h: the one description of what a run makes: its variants and
 * its tables, each a row.
 *
 * Every place that needs to know about a table (the --tables check,
 * --step, the page's step-through, --explain, the shading and the mask
 * of --color and --plot, --focus, --check) reads its row here instead of
 * comparing names: a table carries its id, its variant's id, its layer
 * and its head (trace.h). The names below, as --tables and the CSV spell
 * them, are the only place table names are written in code.
 *
 * The dropout tables (dropout_mask and attn_weights_dropped of a head,
 * the block's attn_out_dropout_mask and ffn_out_dropout_mask) are made
 * only by a run with --attn-dropout or --dropout above 0. A mask holds
 * F.dropout's noise: 0 where a value is dropped, 1 / (1 - P) where it
 * is kept.
 *
 * A trained run (--train, model/lesson/trained.h) makes, for each variant, its
 * own embedding.weight, pos_embedding.weight (--positions; an input table
 * without --train), lm_head.weight, inputs, logits (T x V) and loss
 * ((N+1) x 1), and with --grad the gradient of every table it makes: the
 * same row and shape, the key's grad set, named "<name>.grad".
 *
 * The rows from ln_1 on are made by a checkpoint's run (--model,
 * model/gpt2/gpt2_trace.c) only: a GPT-2 layer's pre-norms, its residual
 * stream and its output, the model's logits and top next tokens (k per
 * token), and the model view: each layer's and head's mean attention
 * entropy, which a stack of blocks (--layers N) makes too
 * (STACK_TABLES). A BERT checkpoint with BertModel's pooler makes
 * pooler_output: tanh(pooler.dense(the first token's out)), one row.
 *
 * A trained run (--train) adds lm_head.weight, logits, loss, the .grad
 * tables of --grad and, for --plot and --html, attn_weights_steps: every
 * head's attn_weights on the shown sentence at K steps of the training
 * (trained.h), rows "step<n>/head<h>/Q:<word>", the first before any
 * update, the last after the last one (a stack's, one table per block),
 * and head_scores_steps: each head's induction score on the shown
 * sentence at up to SCORE_STEPS_MAX steps (model/lesson/score_steps.h),
 * a row per step, a column per head. The two are made for the pictures
 * and the page: text and CSV show them only when --tables names them
 * (ON_REQUEST_TABLES).
 *
 * --generate N with --kv-steps (model/generate.h) makes, at each
 * generation step after the prompt's, every head's tables again under the
 * same rows with the step in their key: the new token's query row (1 x
 * hd), the cached keys and values (S x hd, every position so far), its
 * scores and weights over them (1 x S) and its context (1 x hd); and
 * after the steps kv_cache_size, a row per step: the positions cached,
 * the values the cache holds (keys and values of every layer) and their
 * bytes. --generate N also makes generated_top, the ten likeliest
 * tokens at each step with their probabilities, for the page's
 * Generation view: text and CSV show it only when --tables names it.
 *
 * To add a table: add its row to TABLE_LIST, then write the code that
 * fills it. To add a variant: add its line to VARIANT_LIST, its module's
 * file with its row (model/lesson/variants/, variants.h) and that file to
 * src/meson.build.
 *
 * Shapes are in the notebook's letters: V words in the vocabulary, T
 * query tokens, S key/value tokens (T for self-attention), D = d_model,
 * O the module's width (d_out; d_model in the block), hd = O / heads the
 * width of a head (O in the single head), F the block's feed-forward
 * width.
 */
#ifndef MHA_CATALOGUE_H
#define MHA_CATALOGUE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* ---- variants ---------------------------------------------------------- */

/* VARIANT(ID, name, out_step, tables): the modules in the order the
 * pipeline runs them, after the run's input tables (variant "input",
 * which is not a module and not a --variant choice). name is the
 * variant's name as an identifier: its string ("single") is what
 * --variant, the headings, the CSV and the files spell, and its row
 * (model/lesson/variants.h) is name##_variant, defined in its module's
 * file (model/lesson/variants/name.c). out_step is the step
 * its table "out" belongs to: the output projection, or the block's
 * second add and norm. tables: the tables its forward pass makes once,
 * besides every head's, as TABLE_BITs (attn_weights_avg with --average
 * only). */
#define VARIANT_LIST(VARIANT)                                                 \
    VARIANT(SINGLE, single, OUTPUT, 0)                                        \
    VARIANT(WRAPPER, wrapper, OUTPUT, ATTENTION_TABLES)                       \
    VARIANT(FUSED, fused, OUTPUT, ATTENTION_TABLES | TABLE_BIT(OUT))          \
    VARIANT(BLOCK, block, NORM2,                                              \
            ATTENTION_TABLES | TABLE_BIT(ATTN_OUT) | TABLE_BIT(ADD_NORM1) |   \
                TABLE_BIT(FFN_HIDDEN) | TABLE_BIT(FFN_OUT) | DROPOUT_TABLES | \
                TABLE_BIT(OUT))

/* A table id as a bit of a set of tables. */
#define TABLE_BIT(id) table_bit(TABLE_##id)
/* What the heads of the wrapper, the fused module and the block's
 * attention make together: their mean and their concatenation. */
#define ATTENTION_TABLES \
    (TABLE_BIT(ATTN_WEIGHTS_AVG) | TABLE_BIT(CONCAT_CONTEXT))

/* The block's dropout masks (--dropout only). */
#define DROPOUT_TABLES \
    (TABLE_BIT(ATTN_OUT_DROPOUT_MASK) | TABLE_BIT(FFN_OUT_DROPOUT_MASK))

typedef enum {
    VARIANT_INPUT, /* the run's input tables */
#define VARIANT_ID(id, name, out_step, tables) VARIANT_ID_##id,
    VARIANT_LIST(VARIANT_ID)
#undef VARIANT_ID
        VARIANT_ID_COUNT,
    /* A checkpoint's tables after its layers (--model): ln_f and out,
     * the logits, next_tokens and the model view attn_entropy, named
     * after the model by its family's row (model/family.h: "gpt2"). Like
     * "input" not a module and not a --variant choice; it has no row of
     * VARIANT_LIST and is not counted in VARIANT_ID_COUNT. */
    VARIANT_MODEL = VARIANT_ID_COUNT
} variant_id;

/* What a checkpoint's run makes (--model, model/gpt2/gpt2_trace.c), as a
 * variant's row gives its tables: the input's tokens and inputs; in each
 * layer (variant block, layer L) its heads' tables (but the dropout's)
 * and CHECKPOINT_LAYER_TABLES; after the layers (VARIANT_MODEL)
 * CHECKPOINT_MODEL_TABLES, logits only when --tables names it. */
#define CHECKPOINT_INPUT_TABLES (TABLE_BIT(TOKENS) | TABLE_BIT(INPUTS))
#define CHECKPOINT_HEAD_TABLES                                  \
    (TABLE_BIT(QUERIES) | TABLE_BIT(KEYS) | TABLE_BIT(VALUES) | \
     TABLE_BIT(ATTN_SCORES) | TABLE_BIT(ATTN_WEIGHTS) |         \
     TABLE_BIT(HEAD_CONTEXT))
#define CHECKPOINT_LAYER_TABLES                                          \
    (TABLE_BIT(LN_1) | TABLE_BIT(CONCAT_CONTEXT) | TABLE_BIT(ATTN_OUT) | \
     TABLE_BIT(RESIDUAL) | TABLE_BIT(LN_2) | TABLE_BIT(FFN_HIDDEN) |     \
     TABLE_BIT(FFN_OUT) | TABLE_BIT(HIDDEN))
#define CHECKPOINT_MODEL_TABLES                                     \
    (TABLE_BIT(ATTN_ENTROPY) | TABLE_BIT(OUT) | TABLE_BIT(LOGITS) | \
     TABLE_BIT(NEXT_TOKENS))
/* What a BERT checkpoint with BertModel's pooler (pooler.dense.*) makes
 * after its layers besides them. */
#define POOLER_TABLES TABLE_BIT(POOLER)

/* What the interventions add after a run of a model with an lm_head
 * (model/intervene/): --ablate L.H ablation_effect (for each token, the
 * k likeliest next tokens of the clean run: their probability clean and
 * ablated, and the change of their logit) and ablation_loss (each
 * token's loss on the next one and their mean, clean, ablated and the
 * change); --ablate all-heads ablation_map (L x H: the change of the
 * mean loss when that head alone is ablated). */
#define ABLATION_TABLES (TABLE_BIT(ABLATE_EFFECT) | TABLE_BIT(ABLATE_LOSS))
#define ABLATION_MAP_TABLES TABLE_BIT(ABLATE_MAP)
/* --patch (model/intervene/patch.h): patch_baselines (2 x 1, what is
 * compared: the clean and the corrupted text, a row each, and the logit
 * difference --answer - --wrong of each, which the scores map to 1 and
 * 0), patch_heads (L x H, each head's
 * output patched from the clean run into the corrupted one) and
 * patch_resid (L x T, the residual stream before each layer at each
 * position), the normalised logit difference, 0 corrupted, 1 clean. */
#define PATCH_TABLES                                       \
    (TABLE_BIT(PATCH_BASELINES) | TABLE_BIT(PATCH_HEADS) | \
     TABLE_BIT(PATCH_RESID))
/* --head-scores (model/intervene/head_scores.h): head_scores, each
 * head's previous-token, duplicate-token and induction score. */
#define HEAD_SCORE_TABLES TABLE_BIT(HEAD_SCORES)
/* --repeat-random's drawn text, before the scores when --tables names
 * it: tokens (T x 1), each id under its token's label, as a sentence's
 * run shows its tokens. */
#define REPEAT_RANDOM_TABLES TABLE_BIT(TOKENS)
/* What a Llama-style checkpoint makes besides a GPT-2 checkpoint's
 * tables: each head's queries and keys after the rotary positions, and
 * which key/value head each query head reads (kv_heads, H x 1, before the
 * layers). */
#define ROTARY_HEAD_TABLES \
    (TABLE_BIT(QUERIES_ROTATED) | TABLE_BIT(KEYS_ROTATED))
#define ROTARY_MODEL_TABLES TABLE_BIT(KV_HEADS)

/* What a stack of the lesson's blocks (--variant block --layers N,
 * model/lesson/stack.h) makes once after its blocks, besides each block's
 * tables: the model view, as a checkpoint's run makes it. */
#define STACK_TABLES TABLE_BIT(ATTN_ENTROPY)

/* The name of a variant ("input", "single", ..., "model" for
 * VARIANT_MODEL, whose tables the headings, the CSV and the files name
 * after the model: table_variant_name in trace.h), as --variant, the
 * headings, the CSV and the files spell it. */
const char *variant_id_name(variant_id v);

/* ---- the steps of the computation ------------------------------------ */

/* STEP(ID, page id): the one grouping of tables that --step, the page's
 * step-through and --explain use, in the order of the computation. A
 * trained run (--train) adds the backward pass (every gradient table,
 * whatever its row: table_step_for in trace.h) and the updates (the
 * loss over the steps). */
#define STEP_LIST(STEP)            \
    STEP(TOKENS, "tokens")         \
    STEP(EMBEDDINGS, "embeddings") \
    STEP(PARAMETERS, "parameters") \
    STEP(QKV, "qkv")               \
    STEP(SCORES, "scores")         \
    STEP(WEIGHTS, "weights")       \
    STEP(CONTEXT, "context")       \
    STEP(CONCAT, "concat")         \
    STEP(OUTPUT, "output")         \
    STEP(NORM1, "norm1")           \
    STEP(FFN, "ffn")               \
    STEP(NORM2, "norm2")           \
    STEP(BACKWARD, "backward")     \
    STEP(UPDATE, "update")

typedef enum {
#define STEP_ID(id, name) STEP_##id,
    STEP_LIST(STEP_ID)
#undef STEP_ID
        STEP_COUNT
} step_id;

/* The step's id on the page ("tokens", "qkv", ...). */
const char *step_id_name(step_id s);

/* ---- tables -------------------------------------------------------------- */

enum table_kind {
    KIND_INPUT,     /* of the run, before any module (variant "input") */
    KIND_PARAMETER, /* a module's weight or bias, by its state_dict() name
                       (model.h lists them) */
    KIND_PER_HEAD,  /* made once per head */
    KIND_MODULE,    /* a module's output or an intermediate of the module */
};

/* How --color, --plot and the page shade a table. */
enum table_shade {
    SHADE_NONE,    /* not shaded in the terminal; a picture's own range */
    SHADE_SCORES,  /* always on its own range, whatever --color-scale */
    SHADE_WEIGHTS, /* probabilities: 0 to 1 on the fixed scale */
};

/* Whether a table shaded so goes on the fixed scale 0 to 1 when asked
 * (--color-scale fixed): probabilities do, scores keep their own range. */
static inline bool shade_fixed_scale(enum table_shade shade)
{
    return shade == SHADE_WEIGHTS;
}

/* Which cells are masked: where a score is -inf. */
enum table_mask {
    MASK_NONE,
    MASK_OWN,        /* its own -inf cells (the scores), or NaN ones */
    MASK_HEAD,       /* the same head's attn_scores */
    MASK_FIRST_HEAD, /* head 0's attn_scores (every head has one mask) */
    MASK_LATER,      /* its own NaN cells of keys after the row's query
                        (trace_cell_masked): keys a row cannot see yet,
                        which the outputs print as the weight 0 softmax
                        gives a masked key (attn_weights_generated) */
};

/* TABLE(ID, name, kind, step, shade, mask, shape), in the order a run
 * makes them. PARAM stands for every parameter: its name is its
 * state_dict() name, listed by model.h. */
#define TABLE_LIST(TABLE)                                                      \
    TABLE(VOCAB, "vocab", INPUT, TOKENS, NONE, NONE, "V x 1")                  \
    TABLE(TOKENS, "tokens", INPUT, TOKENS, NONE, NONE, "T x 1")                \
    TABLE(KV_TOKENS, "kv_tokens", INPUT, TOKENS, NONE, NONE, "S x 1")          \
    TABLE(EMBEDDING, "embedding.weight", INPUT, EMBEDDINGS, NONE, NONE,        \
          "V x D")                                                             \
    TABLE(POS_EMBEDDING, "pos_embedding.weight", INPUT, EMBEDDINGS, NONE,      \
          NONE, "C x D")                                                       \
    TABLE(INPUTS, "inputs", INPUT, EMBEDDINGS, NONE, NONE, "T x D")            \
    TABLE(KV_INPUTS, "kv_inputs", INPUT, EMBEDDINGS, NONE, NONE, "S x D")      \
    TABLE(PARAM, "", PARAMETER, PARAMETERS, NONE, NONE, "")                    \
    TABLE(LM_HEAD, "lm_head.weight", PARAMETER, PARAMETERS, NONE, NONE,        \
          "V x W")                                                             \
    TABLE(QUERIES, "queries", PER_HEAD, QKV, NONE, NONE, "T x hd")             \
    TABLE(KEYS, "keys", PER_HEAD, QKV, NONE, NONE, "S x hd")                   \
    TABLE(VALUES, "values", PER_HEAD, QKV, NONE, NONE, "S x hd")               \
    TABLE(QUERIES_ROTATED, "queries_rotated", PER_HEAD, QKV, NONE, NONE,       \
          "T x hd")                                                            \
    TABLE(KEYS_ROTATED, "keys_rotated", PER_HEAD, QKV, NONE, NONE, "S x hd")   \
    TABLE(ATTN_SCORES, "attn_scores", PER_HEAD, SCORES, SCORES, OWN, "T x S")  \
    TABLE(ATTN_WEIGHTS, "attn_weights", PER_HEAD, WEIGHTS, WEIGHTS, HEAD,      \
          "T x S")                                                             \
    TABLE(DROPOUT_MASK, "dropout_mask", PER_HEAD, WEIGHTS, NONE, NONE,         \
          "T x S")                                                             \
    TABLE(ATTN_WEIGHTS_DROPPED, "attn_weights_dropped", PER_HEAD, WEIGHTS,     \
          WEIGHTS, HEAD, "T x S")                                              \
    TABLE(HEAD_CONTEXT, "head_context", PER_HEAD, CONTEXT, NONE, NONE,         \
          "T x hd")                                                            \
    TABLE(ATTN_WEIGHTS_AVG, "attn_weights_avg", MODULE, WEIGHTS, WEIGHTS,      \
          FIRST_HEAD, "T x S")                                                 \
    TABLE(CONCAT_CONTEXT, "concat_context", MODULE, CONCAT, NONE, NONE,        \
          "T x O")                                                             \
    TABLE(ATTN_OUT, "attn_out", MODULE, OUTPUT, NONE, NONE, "T x O")           \
    TABLE(ATTN_OUT_DROPOUT_MASK, "attn_out_dropout_mask", MODULE, OUTPUT,      \
          NONE, NONE, "T x D")                                                 \
    TABLE(ADD_NORM1, "add_norm1", MODULE, NORM1, NONE, NONE, "T x D")          \
    TABLE(FFN_HIDDEN, "ffn_hidden", MODULE, FFN, NONE, NONE, "T x F")          \
    TABLE(FFN_OUT, "ffn_out", MODULE, FFN, NONE, NONE, "T x D")                \
    TABLE(FFN_OUT_DROPOUT_MASK, "ffn_out_dropout_mask", MODULE, FFN, NONE,     \
          NONE, "T x D")                                                       \
    TABLE(OUT, "out", MODULE, OUTPUT, NONE, NONE, "T x O")                     \
    TABLE(LN_1, "ln_1", MODULE, NORM1, NONE, NONE, "T x D")                    \
    TABLE(RESIDUAL, "residual", MODULE, OUTPUT, NONE, NONE, "T x D")           \
    TABLE(LN_2, "ln_2", MODULE, NORM2, NONE, NONE, "T x D")                    \
    TABLE(HIDDEN, "hidden", MODULE, FFN, NONE, NONE, "T x D")                  \
    TABLE(LOGITS, "logits", MODULE, OUTPUT, NONE, NONE, "T x V")               \
    TABLE(LOSS, "loss", MODULE, UPDATE, NONE, NONE, "(N+1) x 1")               \
    TABLE(ATTN_WEIGHTS_STEPS, "attn_weights_steps", MODULE, UPDATE, NONE,      \
          NONE, "(K·H·T) x S")                                                 \
    TABLE(HEAD_SCORES_STEPS, "head_scores_steps", MODULE, UPDATE, NONE, NONE,  \
          "K x (L·H)")                                                         \
    TABLE(NEXT_TOKENS, "next_tokens", MODULE, OUTPUT, NONE, NONE, "T·k x 1")   \
    TABLE(POOLER, "pooler_output", MODULE, OUTPUT, NONE, NONE, "1 x D")        \
    TABLE(ABLATE_EFFECT, "ablation_effect", MODULE, OUTPUT, NONE, NONE,        \
          "T·k x 3")                                                           \
    TABLE(ABLATE_LOSS, "ablation_loss", MODULE, OUTPUT, NONE, NONE, "T x 3")   \
    TABLE(ABLATE_MAP, "ablation_map", MODULE, OUTPUT, NONE, NONE, "L x H")     \
    TABLE(PATCH_BASELINES, "patch_baselines", MODULE, OUTPUT, NONE, NONE,      \
          "2 x 1")                                                             \
    TABLE(PATCH_HEADS, "patch_heads", MODULE, OUTPUT, NONE, NONE, "L x H")     \
    TABLE(PATCH_RESID, "patch_resid", MODULE, OUTPUT, NONE, NONE, "L x T")     \
    TABLE(HEAD_SCORES, "head_scores", MODULE, WEIGHTS, NONE, NONE,             \
          "(L·H) x 3")                                                         \
    TABLE(ATTN_ENTROPY, "attn_entropy", MODULE, WEIGHTS, NONE, NONE, "L x H")  \
    TABLE(KV_HEADS, "kv_heads", MODULE, QKV, NONE, NONE, "H x 1")              \
    TABLE(GENERATED, "generated", MODULE, OUTPUT, NONE, NONE, "N x 15")        \
    TABLE(GENERATED_TOP, "generated_top", MODULE, OUTPUT, NONE, NONE,          \
          "N·k x 2")                                                           \
    TABLE(LOGIT_LENS, "logit_lens", MODULE, OUTPUT, NONE, NONE, "T·k x 1")     \
    TABLE(KV_CACHE_SIZE, "kv_cache_size", MODULE, OUTPUT, NONE, NONE, "N x 3") \
    TABLE(LOGIT_LENS_GRID, "logit_lens_grid", MODULE, OUTPUT, NONE, NONE,      \
          "L x T")                                                             \
    TABLE(ATTN_WEIGHTS_GENERATED, "attn_weights_generated", MODULE, WEIGHTS,   \
          WEIGHTS, LATER, "(T+N-1) x (T+N-1)")                                 \
    TABLE(GENERATED_P, "generated_p", MODULE, OUTPUT, NONE, NONE, "1 x N")     \
    TABLE(GENERATED_CLEAN, "generated_clean", MODULE, OUTPUT, NONE, NONE,      \
          "N x 15")

typedef enum {
#define TABLE_ID(id, name, kind, step, shade, mask, shape) TABLE_##id,
    TABLE_LIST(TABLE_ID)
#undef TABLE_ID
        TABLE_COUNT
} table_id;

/* A head's tables are the rows queries to head_context, in the order a
 * head makes them: head_table(id) numbers them from 0, head_context (the
 * last) is HEAD_TABLE_COUNT - 1. */
#define HEAD_TABLE_COUNT (TABLE_HEAD_CONTEXT - TABLE_QUERIES + 1)
#define head_table(id) ((size_t)((id)-TABLE_QUERIES))

/* A set of tables: bit id for the table id. */
typedef uint64_t table_set;
#define table_bit(id) ((table_set)1 << (id))

/* One row of the catalogue. */
typedef struct {
    const char *name; /* as --tables and the CSV spell it; "" for PARAM */
    enum table_kind kind;
    step_id step;
    enum table_shade shade;
    enum table_mask mask;
    const char *shape; /* rows x cols in the notebook's letters */
} table_info;

/* The tables of a generation's picture (model/generate_maps.h), made
 * with --generate N --kv-steps. */
#define GENERATE_MAP_TABLES \
    (TABLE_BIT(ATTN_WEIGHTS_GENERATED) | TABLE_BIT(GENERATED_P))

/* What --generate with --ablate adds (model/generate.h): the clean
 * model's generation from the same prompt, options and seed, as the
 * table generated (N x 15), the text output's clean text. */
#define GENERATE_CLEAN_TABLES TABLE_BIT(GENERATED_CLEAN)

/* Tables shown in text and CSV only when --tables names them. */
#define ON_REQUEST_TABLES                                           \
    (TABLE_BIT(ATTN_WEIGHTS_STEPS) | TABLE_BIT(HEAD_SCORES_STEPS) | \
     TABLE_BIT(ATTN_WEIGHTS_GENERATED) | TABLE_BIT(GENERATED_P) |   \
     TABLE_BIT(GENERATED_TOP))

/* The row of a table id. */
const table_info *table_info_of(table_id id);

/* What a group of a table's columns holds, when its columns do not all
 * hold one kind of number: a picture (--plot) draws each group of one
 * unit on its own colour scale, and never colours token ids. */
enum column_unit {
    UNIT_ID,          /* token ids: labels, not quantities */
    UNIT_PROBABILITY, /* probabilities, 0 to 1 */
    UNIT_COUNT,       /* numbers of tokens */
    UNIT_LOSS,        /* cross-entropy losses, in nats */
    UNIT_CHANGE,      /* signed changes (ablated - clean): 0 is "no
                         change", drawn diverging around it */
};

/* One group: the columns (bit c: column c, as table_bit_col) and their
 * unit. */
typedef struct {
    uint64_t cols;
    enum column_unit unit;
} column_group;

/* The column groups of a table, *n of them, or NULL (*n = 0) when all
 * its columns hold one kind of number. */
const column_group *table_column_groups(table_id id, size_t *n);

/* The id of the table named by the n bytes at name, or TABLE_COUNT when
 * no row has that name (a parameter's name is not a row's: model.h). */
table_id table_by_name(const char *name, size_t n);

/* The step of a table of variant v: its row's, except for "out", whose
 * step the variant's row gives. */
step_id table_step(table_id id, variant_id v);

#endif
