/* trace.h: the unit every renderer understands, and the trace that a
 * forward pass fills with them.
 *
 * A table is a matrix with labelled rows and columns, known by its key:
 * its row of the catalogue (catalogue.h), its variant ("input", "single",
 * "wrapper", "fused", "block"), its layer and maybe its head. The trace owns every table and every label set; tables only point
 * at label sets, which many tables share (all "Q:<token>" rows, say).
 *
 * Ownership: an operation asks the trace for a new table (trace_new) and
 * writes its result straight into it, as ggml_new_tensor hands out
 * tensors of a context; nothing is computed elsewhere and copied in.
 * Only parameters, which their module owns, are copied (trace_add_param). Each
 * table is allocated on its own, so a table pointer stays valid while the
 * trace grows, until trace_free. Read the tables in order with
 * trace_count and trace_at.
 *
 * Streaming: a trace may have a sink, a function that is handed every
 * table once, in trace order, as soon as it is complete. The forward
 * passes call trace_flush where every table made so far is complete
 * (after each batch of heads, at the end of a variant), and
 * trace_release on a table they will not read again (a head's scores and
 * weights once its context is made). With a sink, a released table that
 * has been handed over loses its values (its name, labels and shape stay),
 * so a long run holds a few heads' tables at a time, not all of them.
 * Without a sink nothing is released: every table stays to the end, for
 * the outputs that need the whole run.
 */
#ifndef MHA_TRACE_H
#define MHA_TRACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/error.h"
#include "model/catalogue.h"
#include "numerics/tensor.h"

#define NO_HEAD (-1)

struct model_family; /* model/family.h: the family whose run made a table */

typedef struct {
    size_t n;
    char **s;  /* n NUL-terminated UTF-8 strings, owned */
    char *key; /* what the set was made from, for sharing; owned */
} labels;

/* Which table: its row of the catalogue, and where in the model it was
 * made. A gradient is a table too: the same key with grad set, d loss / d
 * that table, of the same shape. */
typedef struct {
    variant_id variant;
    int layer; /* 0 in a one-layer model; a stack of blocks counts on */
    int head;  /* NO_HEAD or 0..heads-1 */
    table_id id;
    bool grad;
} table_key;

/* The variant a table of a model's layers is known by: the block's. A
 * checkpoint's layers, a stack of the lesson's blocks (--layers N) and
 * the hook points the interventions name (model/intervene/) key a
 * layer's tables under it, with the layer and the head. */
#define LAYER_VARIANT VARIANT_ID_BLOCK

/* The key of table id of layer `layer`, head `head` (or NO_HEAD). */
static inline table_key layer_table_key(int layer, int head, table_id id)
{
    return (table_key){LAYER_VARIANT, layer, head, id, false};
}

/* Whether k names a table of a layer (layer_table_key's variant). */
static inline bool is_layer_table(const table_key *k)
{
    return k->variant == LAYER_VARIANT;
}

typedef struct {
    variant_id variant;
    int layer;
    int head;
    table_id id;
    bool grad;
    int step; /* a generation step's table (model/generate.h): the step,
                 from 1, given to trace_new_at; 0 outside generation's
                 steps. trace_find finds the tables outside them */
    size_t first_query;     /* a table whose rows are queries (scores, weights):
                           the position its first row queries from, 0 but
                           in a generation step's table, whose one row is
                           the fed token's, the newest of the keys */
    char param[64];         /* TABLE_PARAM: its state_dict() name */
    bool integral;          /* values are ids: print without decimals */
    uint64_t integral_cols; /* bit c (table_bit_col): column c holds ids
                               or counts, printed without decimals (a
                               table whose other columns have them) */
    int summary;            /* a summary's decimals in text (attn_entropy's 2),
                           fewer when --precision asks; 0: --precision's */
    const labels *rows;     /* owned by the trace */
    const labels *cols;     /* owned by the trace */
    const labels *cells;    /* rows x cols texts written in the cells
                               beside their values (logit_lens_grid's
                               tokens), row by row, or NULL; owned by the
                               trace */
    matrix values;          /* owned; values.v is NULL once dropped (streaming:
                           released and handed to the sink) */
    const struct model_family *family; /* the family of the run that made
                                          it (the trace's): headings and
                                          the CSV name its layer and its
                                          model as the row says
                                          (table_place) */
    size_t map_heads; /* a map whose rows are heads, layer after layer
                         (head_scores, render/map_axes.h): the heads of
                         a layer; 0 otherwise */
    bool stacked;     /* made by a block of a stack (--layers N, the
                           trace's stacked_variant): headings and the CSV
                           name its layer too */
    bool emitted;     /* handed to the trace's sink */
    bool released;    /* the forward pass will not read it again */
} table;

/* Column c as a bit of table.integral_cols (columns from 64 on have
 * none). */
#define table_bit_col(c) ((c) < 64 ? (uint64_t)1 << (c) : 0)

/* Whether column c of t is printed without decimals: the whole table's
 * integral, or the column's bit. */
static inline bool table_col_integral(const table *t, size_t c)
{
    return t->integral || (c < 64 && (t->integral_cols >> c & 1) != 0);
}

/* A table's name, as --tables, the headings and the CSV spell it: its
 * catalogue row's, or a parameter's state_dict() name. */
const char *table_name(const table *t);

/* Where a table was made, as headings write it: its variant's name
 * ("fused"), for a stacked block's its variant and its index in the stack
 * ("block.2", as nn.Sequential names its modules), or for a checkpoint's
 * table its layer's name in the checkpoint ("h.3") or, outside the
 * layers, the model's (its family's model_name). buf holds 16 bytes. */
const char *table_place(char *buf, size_t size, const table *t);

/* The variant of t's key by name: its variant's, or for a model's tables
 * after its layers (VARIANT_MODEL) the model's name ("gpt2"). */
const char *table_variant_name(const table *t);

/* What made t, as the CSV's variant column and --csv-dir's files name
 * it: the model's name for every table of a family that names its model
 * (a checkpoint's), else its variant's. */
const char *table_source_name(const table *t);

/* Whether the table was made by a family whose tables have layers (a
 * checkpoint's): headings, the CSV and the pictures name its layer. */
bool table_in_layered_model(const table *t);

/* The name of the model that made t ("gpt2"), or NULL for the lesson's
 * variants (family.h's model_name). */
const char *table_model_name(const table *t);

/* A layer's name in the model that made t ("h"), or NULL. */
const char *table_layer_name(const table *t);

/* A checkpoint's table's layer or a stacked block's index, or -1 outside
 * the layers (a checkpoint's model-level tables, the input tables, the
 * other variants' tables and a lone block's). */
int table_model_layer(const table *t);

/* A table's row of the catalogue. */
static inline const table_info *table_info_for(const table *t)
{
    return table_info_of(t->id);
}

/* The step of the computation t belongs to: its row's (table_step), or
 * for a gradient (grad set) the backward pass. */
static inline step_id table_step_for(const table *t)
{
    return t->grad ? STEP_BACKWARD : table_step(t->id, t->variant);
}

/* Where a streamed trace hands each complete table (see above); returns 0,
 * or -1 with err set, which stops the run. */
typedef int (*trace_sink_fn)(void *ctx, const table *t, mx_error *err);

/* What --ablate set a switched-off head's output z to. */
enum ablated_to {
    ABLATED_NONE,        /* no head switched off */
    ABLATED_ZERO,        /* 0 (--ablate-mode zero) */
    ABLATED_TEXT_MEAN,   /* its mean over the text's positions */
    ABLATED_CORPUS_MEAN, /* its mean over every position of a corpus */
};

/* The model a run made, as its tables show it (what --explain, the page
 * and the headings tell of it), set by the pipeline before its first
 * table: its architecture, never how the command line asked for it. */
typedef struct {
    bool checkpoint;     /* a checkpoint's run (--model), else the lessons' */
    size_t d_model;      /* D, the embedding width */
    size_t d_out;        /* O, the attention's width, all heads together */
    size_t heads;        /* H */
    size_t ff;           /* F, the feed-forward width */
    size_t layers;       /* the blocks stacked (--layers N) or the
                        checkpoint's layers; 0: one block alone */
    bool attn_only;      /* the lesson's blocks are attention-only */
    bool causal;         /* the causal mask applies (not with --kv) */
    bool cross;          /* cross-attention: the keys and values are
                            another sequence's (--kv) */
    bool tied;           /* a module took another's heads (--tie, its
                            variant's row: the fused one the wrapper's) */
    bool scale;          /* the scores are divided by sqrt(head width) */
    bool qkv_bias;       /* W_query, W_key, W_value have biases */
    bool positions;      /* learned absolute positions are added to the input */
    bool own_head;       /* a checkpoint's lm_head is its own lm_head.weight,
                            not its embedding (model/tied_head.h) */
    double dropout;      /* the block's dropout P, training mode (0: none) */
    double attn_dropout; /* the modules' dropout P on the weights */
    /* --generate: the prompt then, between the marks, the new text
     * (UTF-8, owned by the trace's labels), or NULL; and the model's
     * positions when generation stopped there (0: it did not), with a
     * checkpoint's config.json key that gives them ("n_positions",
     * "sliding_window"; NULL for the lesson's); when it stopped at the
     * model's end-of-text token, how many new tokens there are, that
     * token the last, and its id (0: it did not) */
    const char *continued;
    size_t context_full;
    const char *context_key;
    size_t end_token_at;
    long end_token;
    /* --generate: the first new token (1, 2, ...) whose step's logits
     * were not finite (NaN or infinity: the token picked means nothing),
     * or 0: every step's were */
    size_t not_finite_at;
    /* a trained lesson model: the longest sentence it was trained on (a
     * --weights folder's model.json "context_length", and the sentences
     * trained on since), which bounds its generation without learned
     * positions; 0: not known (a folder written before model.json
     * recorded it) */
    size_t trained_context;
    /* --generate with --ablate: what the clean model (no head switched
     * off) wrote, as continued, or NULL; how many new tokens the two
     * share from the first on, and whether they are the same */
    const char *continued_clean;
    size_t clean_common;
    bool clean_same;
    /* --ablate all-heads: what ablation_map's values measure (a msgid
     * of the metric used, model/intervene/metric.h), or NULL */
    const char *map_measure;
    /* --ablate: what a switched-off head's z was set to (set by the
     * ablation, model/intervene/ablate.h), which the page says under
     * ablation_map; for a mean over a corpus, how many texts and where
     * they come from (--corpus FILE's --column NAME, borrowed from the
     * input) */
    enum ablated_to ablated_to;
    size_t ablated_texts;
    const char *ablated_file, *ablated_column;
} trace_model;

typedef struct {
    trace_model model; /* the model that made the tables */
    table **tables;    /* n_tables tables, each allocated on its own; owned */
    size_t n_tables, cap_tables;
    labels **label_sets;
    size_t n_label_sets, cap_label_sets;
    trace_sink_fn sink; /* or NULL: the whole trace is kept */
    void *sink_ctx;
    size_t n_emitted; /* tables [0, n_emitted) went to the sink */
    /* the variant whose module is a stack (--layers N: its row stacks),
       or VARIANT_INPUT: none; its tables are marked stacked, their
       layer the block's index */
    variant_id stacked_variant;
    /* the run's interventions or logit lens make tables of the model's
       layers (their maps, a row per layer: set by pipeline_run before
       the first table), so the CSV has its layer column */
    bool layer_maps;
    const struct model_family *family; /* of the run that fills it (set by
                                          pipeline_run; trace_init: the
                                          lesson's), given to every table */
    /* the first table of each key and step, for trace_find_step
       (trace_index.h): cap_index slots, n_index of them used; owned */
    const table **index_slots;
    size_t cap_index, n_index;
} trace;

void trace_init(trace *tr);
void trace_free(trace *tr);

/* Whether the run's tables belong to layers: its family's have layers (a
 * checkpoint's), it stacked the lesson's block (--layers N), or its
 * interventions make maps of the layers (layer_maps). The CSV
 * then has its layer column. Known once the run has begun (its family
 * set, and a lesson's model before its first table). */
bool trace_layered(const trace *tr);

/* Streams the trace: every table goes to sink(ctx, ...) at trace_flush,
 * and released tables are dropped once handed over. Set before the first
 * table is made. */
void trace_set_sink(trace *tr, trace_sink_fn sink, void *ctx);

/* Whether the trace streams (has a sink). */
static inline bool trace_streams(const trace *tr)
{
    return tr->sink != NULL;
}

/* Hands every table not yet handed over to the sink, in order (all of
 * them must be complete), then drops the values of those released. Does
 * nothing without a sink. Returns the sink's failure. */
int trace_flush(trace *tr, mx_error *err);

/* The forward pass will not read t again: with a sink, its values are
 * dropped once it has been handed over (now, or at the next flush).
 * Without a sink, nothing happens. */
void trace_release(trace *tr, table *t);

/* Labels "<prefix><word>" for each word, e.g. "Q:gato". The set is made
 * once per trace and shared. Returns NULL on failure. */
const labels *trace_word_labels(trace *tr, const char *prefix,
                                const char *const *words, size_t n,
                                mx_error *err);

/* Labels "<prefix><word>" for each word in a set of their own, never
 * shared: for words in a list that is freed after the call, whose
 * address a later list may have (trace_word_labels tells lists apart by
 * address). */
const labels *trace_new_word_labels(trace *tr, const char *prefix,
                                    const char *const *words, size_t n,
                                    mx_error *err);

/* Labels "<prefix>0" .. "<prefix>(n-1)", e.g. "dim0". */
const labels *trace_index_labels(trace *tr, const char *prefix, size_t n,
                                 mx_error *err);

/* Labels given literally (one label: "bias", "id"). */
const labels *trace_literal_label(trace *tr, const char *text, mx_error *err);

/* Appends a new table of rows->n x cols->n zeros under key, for the
 * caller to fill in, and returns it (NULL with err set on failure). The
 * trace owns it; the pointer stays valid until trace_free. */
table *trace_new(trace *tr, const table_key *key, const labels *rows,
                 const labels *cols, mx_error *err);

/* trace_new for generation step `step` (table.step; 0: as trace_new). */
table *trace_new_at(trace *tr, const table_key *key, int step,
                    const labels *rows, const labels *cols, mx_error *err);

/* A parameter, whose module owns it: the table TABLE_PARAM named `name`
 * (its state_dict() name) under key, with m's values copied in. rows->n
 * and cols->n must equal m's shape. */
int trace_add_param(trace *tr, const table_key *key, const char *name,
                    const labels *rows, const labels *cols, const matrix *m,
                    mx_error *err);

/* How many tables the trace holds, and the i-th of them (i < count), in
 * the order they were made. */
static inline size_t trace_count(const trace *tr)
{
    return tr->n_tables;
}

static inline const table *trace_at(const trace *tr, size_t i)
{
    return tr->tables[i];
}

/* The table with this key (not a parameter: those are found by name), or
 * NULL. */
const table *trace_find(const trace *tr, const table_key *key);

/* The run's input table id (variant "input"), or NULL; for inputs in a
 * trained run (--train), where each variant has its own, the first
 * variant's. */
const table *trace_find_input(const trace *tr, table_id id);

/* The table whose rows are the run's query tokens: the input's inputs,
 * or in a trained run (whose inputs are each variant's, trained.h) the
 * input's tokens. NULL when the run has neither. */
const table *trace_find_tokens(const trace *tr);

/* The table with this key made at generation step `step` (0: outside
 * the steps, as trace_find), or NULL; the first made, when several
 * share the key. Found in the trace's index, without a scan. */
const table *trace_find_step(const trace *tr, const table_key *key, int step);

/* The table `id` of t's variant, layer and step, of head `head`, or
 * NULL. */
const table *trace_find_beside(const trace *tr, const table *t, int head,
                               table_id id);

/* The table whose -inf cells are t's masked cells, as t's catalogue row
 * says (t itself for scores, the same head's scores for weights, head 0's
 * for their mean), if it is in tr (NULL: tr may be NULL) and has t's
 * shape; NULL for a table without a mask. */
const table *trace_mask_of(const trace *tr, const table *t);

/* Whether cell (r, c) of t is a key its row cannot see yet, of a table
 * whose catalogue row says so (MASK_LATER): NaN, after the row's query
 * (c > first_query + r). A NaN the model computed for a key the row
 * sees is not. */
bool trace_cell_masked(const table *t, size_t r, size_t c);

/* Cell (r, c) of t as text, CSV and torch-style print it: a masked key
 * (trace_cell_masked) is the weight 0 that softmax gives a masked key,
 * as attn_weights prints one and the picture's legend names it ("masked
 * (weight 0)"); any other value as it is. */
float trace_cell(const table *t, size_t r, size_t c);

#endif
