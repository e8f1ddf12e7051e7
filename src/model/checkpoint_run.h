/* checkpoint_run.h: what a run of any checkpoint family reads besides its
 * own model and tokenizer: the text's ids and their labels, the layers
 * and heads that --layers and --show-heads show, and where the family
 * finds a parameter --tables names (its find_param). A family's run
 * holds one beside what is its own (gpt2_trace.c, bert_trace.c,
 * llama_trace.c), and its recorder reads it (checkpoint_record.h).
 *
 *   open: checkpoint_run_refuse (the inputs a checkpoint fixes),
 *         checkpoint_run_params_present (--tables' parameters, found by
 *         the family's find_param), checkpoint_run_shown (layers,
 *         heads), the family's tokenizer (checkpoint_run_tokenizer)
 *         into ids and T,
 *         checkpoint_run_labels (pieces)
 *   size: checkpoint_run_layers_shown, checkpoint_run_heads_shown,
 *         checkpoint_run_params_values,
 *         checkpoint_run_fits; then checkpoint_run_pool for the forward
 */
#ifndef MHA_CHECKPOINT_RUN_H
#define MHA_CHECKPOINT_RUN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/error.h"
#include "io/safetensors.h"
#include "model/catalogue.h"
#include "model/run_request.h"
#include "model/tokenize.h"
#include "model/tokenizers/checkpoint_tokenizer.h"
#include "numerics/workers.h"

/* A token id's label into buf (size bytes), as the tokenizer ctx writes
 * it. */
typedef void checkpoint_label(const void *ctx, int32_t id, char *buf,
                              size_t size);

/* A parameter --tables names, as its family places and labels it. */
typedef struct {
    const char *name; /* as --tables gives it ("h.0.attn.c_attn.weight") */
    int layer;        /* its layer, or -1 */
    variant_id where; /* outside the layers: VARIANT_INPUT or VARIANT_MODEL */
    const char *rows, *cols; /* a matrix's labels: "out", "in", "id"... */
} checkpoint_param;

/* Where a family finds the parameter --tables names as name, ctx its
 * run: false when name is none of its parameters; else *p, and the file
 * *in and its tensor *st (NULL: the checkpoint lacks it). */
typedef bool checkpoint_find_param(const void *ctx, const char *name,
                                   checkpoint_param *p, const safetensors **in,
                                   const st_tensor **st);

typedef struct {
    int32_t *ids; /* T ids; owned */
    size_t T;
    char **pieces; /* T labels; owned */
    bool *layers;  /* n_layer: shown; owned */
    bool *heads;   /* n_head: shown; owned */
    size_t n_layer, n_head;
    checkpoint_label *label; /* how an id is written, by label_ctx */
    const void *label_ctx;
    checkpoint_find_param *find_param; /* a parameter, in find_ctx */
    const void *find_ctx;
    /* The embedding the lm_head is tied to (model/tied_head.h), as
     * --tables names it ("wte.weight"), or NULL: the checkpoint has its
     * own head, or none. */
    const char *tied_embed;
} checkpoint_run;

/* Frees what r owns; r zeroed. */
void checkpoint_run_free(checkpoint_run *r);

/* --embeddings and --kv are refused: the checkpoint fixes its sizes,
 * parameters and tokens. */
int checkpoint_run_refuse(const model_input *in, mx_error *err);

/* keep[0..n) = the members of the ranges (all when none is given); a
 * range past n is an item of `list` out of range (enum run_mistake:
 * RUN_LIST_LAYERS, RUN_LIST_SHOW_HEADS). */
int checkpoint_run_select(bool *keep, size_t n, const index_range *ranges,
                          size_t n_ranges, int list, mx_error *err);

/* r->layers (n_layer) and r->heads (n_head): the members of --layers and
 * --show-heads, all of them when none is given; a number past the
 * model's is an item out of range (RUN_LIST_LAYERS or
 * RUN_LIST_SHOW_HEADS, model/pipeline.h). */
int checkpoint_run_shown(checkpoint_run *r, size_t n_layer, size_t n_head,
                         const run_request *rq, mx_error *err);

/* The table p names, when it is a parameter (by r->find_param), is in
 * the checkpoint; else an error naming it (lm_head.weight of a tied
 * checkpoint: naming the embedding that is its head). */
int checkpoint_run_param_present(const checkpoint_run *r, const table_pick *p,
                                 mx_error *err);

/* Every parameter --tables names is in the checkpoint; else an error
 * naming the first that is not. */
int checkpoint_run_params_present(const checkpoint_run *r,
                                  const run_request *rq, mx_error *err);

/* The floats of the parameters --tables names. */
double checkpoint_run_params_values(const checkpoint_run *r,
                                    const run_request *rq);

/* r->pieces: the label of each of the T ids, by r->label. */
int checkpoint_run_labels(checkpoint_run *r, mx_error *err);

/* How many layers and heads are shown. */
size_t checkpoint_run_layers_shown(const checkpoint_run *r);
size_t checkpoint_run_heads_shown(const checkpoint_run *r);

/* 0 when a run of about values floats fits MAX_TRACE_VALUES; else an
 * error naming what makes it smaller. */
int checkpoint_run_fits(double values, mx_error *err);

/* *pool: rq->threads workers (0: as many as the machine has) for a run
 * of about values floats, which must fit (checkpoint_run_fits). */
int checkpoint_run_pool(workers **pool, double values, const run_request *rq,
                        mx_error *err);

/* Whether a checkpoint family's run makes the table or parameter p names
 * (a family row's makes_table): a parameter (param_name, the family's;
 * the run checks that the file has it), logits when asked for, and the
 * tables of `made` (the family's sets of the catalogue), generated with
 * --generate and kv_cache_size with --kv-steps among them. */
bool checkpoint_makes_table(const run_request *rq, const table_pick *p,
                            bool (*param_name)(const char *name, int *layer),
                            table_set made);

/* *out: the tokenizer of the checkpoint folder rq->checkpoint, from the
 * files its family's row names (model/family.h), with no more tokens
 * than vocab, the model's vocab_size (checkpoint_tokenizer_fits); on
 * failure *out is NULL. The family's run and its language model
 * (checkpoint_lm.h) open it so. */
int checkpoint_run_tokenizer(checkpoint_tokenizer **out, const run_request *rq,
                             size_t vocab, mx_error *err);

/* The run's tokens as the words of tok (its labels), *n_queries = T. */
int checkpoint_run_tokens(tokenized *tok, size_t *n_queries,
                          const checkpoint_run *r, mx_error *err);

#endif
