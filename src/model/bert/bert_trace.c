/* bert_trace.c: a BERT checkpoint's run into the trace (bert_trace.h). */
#include "model/bert/bert_trace.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/i18n.h"
#include "base/text.h"
#include "model/bert/bert.h"
#include "model/checkpoint_lm.h"
#include "model/checkpoint_record.h"
#include "model/tokenizers/checkpoint_tokenizer.h"
#include "model/next_tokens.h"
#include "model/tokenizers/hf_tokenizer.h"
#include "numerics/workers.h"

/* ---- the folder, the text --------------------------------------------------- */

/* What a run reads: the checkpoint, its tokenizer, the token types, and
 * the text and what is shown (checkpoint_run.h). */
typedef struct {
    checkpoint_run run;
    bert_model model;
    checkpoint_tokenizer *tokenizer;
    int32_t *types; /* T: each token's type; owned */
} bert_checkpoint;

static void run_free(bert_checkpoint *r)
{
    bert_close(&r->model);
    checkpoint_tokenizer_free(r->tokenizer);
    free(r->types);
    checkpoint_run_free(&r->run);
}

/* An id's label, as the tokenizer ctx writes it (checkpoint_label). */
static void label_of(const void *ctx, int32_t id, char *buf, size_t size)
{
    checkpoint_tokenizer_label(buf, size, ctx, id);
}

/* The checkpoint's name of the parameter name as --tables gives it:
 * "bert." before it in BertForMaskedLM's file, but before cls.*. */
static void full_name(char *full, size_t size, const bert_checkpoint *r,
                      const char *name)
{
    text_join(full, size, strncmp(name, "cls.", 4) == 0 ? "" : r->model.prefix,
              name);
}

/* A parameter --tables names, as the checkpoint has it
 * (checkpoint_find_param): a weight (out x in, nn.Linear's) labelled
 * out0.. x in0.., an embedding id0.. x dim0.., a bias or a LayerNorm's
 * weight one row; the embeddings make the input, the masked-word head is
 * after the layers. */
static bool find_param(const void *ctx, const char *name, checkpoint_param *p,
                       const safetensors **in, const st_tensor **st)
{
    const bert_checkpoint *r = ctx;
    int layer;
    if (!bert_param_name(name, &layer))
        return false;
    char full[160];
    full_name(full, sizeof full, r, name);
    *in = &r->model.st;
    *st = safetensors_find(*in, full);
    const bool embedding = strstr(name, "_embeddings.") != NULL;
    *p = (checkpoint_param){
        name, layer,
        strncmp(name, "embeddings.", 11) == 0 ? VARIANT_INPUT : VARIANT_MODEL,
        embedding ? "id" : "out", embedding ? "dim" : "in"};
    return true;
}

/* --tables: logits and next_tokens need the masked-word head,
 * pooler_output the pooler; a parameter must be in the file. */
static int check_tables(const bert_checkpoint *r, const run_request *rq,
                        mx_error *err)
{
    for (size_t i = 0; i < rq->n_tables; i++) {
        const table_pick *p = &rq->tables[i];
        const char *name = p->name;
        const table_id id = table_pick_row(p);
        if ((id == TABLE_LOGITS || id == TABLE_NEXT_TOKENS) &&
            !r->model.has_mlm)
            return err_usage(
                err,
                _("--tables: %s needs the masked-word head (cls.predictions.*), which this checkpoint does not have"),
                name);
        if (id == TABLE_POOLER && !r->model.has_pooler)
            return err_usage(
                err,
                _("--tables: %s needs BertModel's pooler (pooler.dense.*), which this checkpoint does not have"),
                name);
        if (checkpoint_run_param_present(&r->run, p, err) != 0)
            return -1;
    }
    return 0;
}

/* --pair: the second text's ids appended to the first's, as BERT's pair
 * template lays them out (BertProcessing, and BertConverter's
 * TemplateProcessing): [CLS] A [SEP] B [SEP], B and the [SEP] after it of
 * token type 1; *first gets the count of type 0. */
static int append_pair(bert_checkpoint *r, size_t *first, const char *pair,
                       size_t max, mx_error *err)
{
    const struct hf_tokenizer *hf = checkpoint_tokenizer_json(r->tokenizer);
    if (hf == NULL)
        return err_input(err, _("--pair: the checkpoint has no %s"),
                         "tokenizer.json");
    int32_t *b = NULL;
    size_t n = 0;
    if (hf_tokenizer_encode(&b, &n, hf, pair, strlen(pair), false, max, err) !=
        0)
        return -1;
    const int32_t *before, *after;
    size_t n_before, n_after;
    hf_tokenizer_specials(&before, &n_before, &after, &n_after, hf);
    *first = r->run.T;
    const size_t T = r->run.T + n + n_after;
    int32_t *ids = T <= max + 1 ? realloc(r->run.ids, T * sizeof *ids) : NULL;
    if (ids != NULL) {
        memcpy(ids + r->run.T, b, n * sizeof *ids);
        memcpy(ids + r->run.T + n, after, n_after * sizeof *ids);
        r->run.ids = ids;
        r->run.T = T;
    }
    free(b);
    if (T > max) {
        // the whole pair's tokens, for the count the message gives
        if (hf_tokenizer_encode(&b, &n, hf, pair, strlen(pair), false, SIZE_MAX,
                                err) != 0)
            return -1;
        free(b);
        return checkpoint_lm_too_long(err, *first + n + n_after, max,
                                      BERT_POSITIONS_KEY);
    }
    return ids == NULL ? err_nomem(err, _("tokens")) : 0;
}

/* The text's ids (with [CLS] and [SEP]), their types and labels. */
static int read_text(bert_checkpoint *r, const model_input *in, mx_error *err)
{
    const bert_config *c = &r->model.cfg;
    checkpoint_run *run = &r->run;
    if (checkpoint_tokenizer_encode(&run->ids, &run->T, r->tokenizer,
                                    in->sentence, in->len, c->n_positions,
                                    err) != 0)
        return -1;
    if (run->T == 0)
        return err_input(err, _("the text has no tokens"));
    size_t given = 0;
    if (run->T > c->n_positions)
        return checkpoint_tokenizer_count(&given, r->tokenizer, in->sentence,
                                          in->len, err) != 0
                   ? -1
                   : checkpoint_lm_too_long(err, given, c->n_positions,
                                            BERT_POSITIONS_KEY);
    size_t first = run->T; // the tokens of type 0
    if (in->pair != NULL &&
        append_pair(r, &first, in->pair, c->n_positions, err) != 0)
        return -1;
    r->types = calloc(run->T, sizeof *r->types);
    if (r->types == NULL)
        return err_nomem(err, _("tokens"));
    for (size_t i = first; i < run->T; i++)
        r->types[i] = 1;
    return checkpoint_run_labels(run, err);
}

static int open_all(bert_checkpoint *r, const run_request *rq,
                    const model_input *in, mx_error *err)
{
    if (checkpoint_run_refuse(in, err) != 0)
        return -1;
    if (bert_open(&r->model, rq->checkpoint, err) != 0 ||
        checkpoint_tokenizer_open_files(&r->tokenizer, rq->checkpoint,
                                        TOKENIZER_JSON, err) != 0)
        return -1;
    const bert_config *c = &r->model.cfg;
    const size_t n_tokens = checkpoint_tokenizer_vocab_size(r->tokenizer);
    if (n_tokens > c->vocab_size)
        return err_input(
            err,
            _("%s: tokenizer.json has %zu tokens, more than the model's vocab_size %zu"),
            rq->checkpoint, n_tokens, c->vocab_size);
    r->run.find_param = find_param;
    r->run.find_ctx = r;
    if (check_tables(r, rq, err) != 0)
        return -1;
    r->run.label = label_of;
    r->run.label_ctx = r->tokenizer;
    if (checkpoint_run_shown(&r->run, c->n_layer, c->n_head, rq, err) != 0)
        return -1;
    return read_text(r, in, err);
}

static int run_open(bert_checkpoint *r, const run_request *rq,
                    const model_input *in, mx_error *err)
{
    *r = (bert_checkpoint){0};
    if (open_all(r, rq, in, err) != 0) {
        run_free(r);
        return -1;
    }
    return 0;
}

/* About the values of the whole trace: per shown layer and head, its six
 * tables; per shown layer, six T x D tables and ffn_hidden; the rest,
 * the logits (T x V) among them with the masked-word head. */
static double run_values(const bert_checkpoint *r, const run_request *rq)
{
    const bert_config *c = &r->model.cfg;
    const double T = (double)r->run.T, D = (double)c->d,
                 hd = D / (double)c->n_head;
    const double layers = (double)checkpoint_run_layers_shown(&r->run),
                 heads = (double)checkpoint_run_heads_shown(&r->run);
    double v = layers * (heads * (4 * T * hd + 2 * T * T) + 6 * T * D +
                         T * (double)c->n_inner);
    v += 3 * T * D;
    if (r->model.has_mlm) {
        const double V = (double)c->vocab_size;
        v += T * NEXT_TOKENS_K + T * V + V + 2 * T * D;
        if (rq->logits)
            v += T * V;
    }
    return v + checkpoint_run_params_values(&r->run, rq);
}

int bert_trace_check(double *values, const run_request *rq,
                     const model_input *in, bool streamed, mx_error *err)
{
    (void)streamed;
    bert_checkpoint r;
    *values = 0;
    if (run_open(&r, rq, in, err) != 0)
        return -1;
    *values = run_values(&r, rq);
    run_free(&r);
    return checkpoint_run_fits(*values, err);
}

int bert_trace_tokens(tokenized *tok, size_t *n_queries, const run_request *rq,
                      const model_input *in, mx_error *err)
{
    bert_checkpoint r;
    if (run_open(&r, rq, in, err) != 0)
        return -1;
    const int rc = checkpoint_run_tokens(tok, n_queries, &r.run, err);
    run_free(&r);
    return rc;
}

/* What a BERT run makes, as the catalogue's sets of a checkpoint's tables
 * but for its layers: post-norm's add_norm1 and hidden, no ln_1, ln_2 or
 * residual. */
#define BERT_LAYER_TABLES                                                     \
    (TABLE_BIT(CONCAT_CONTEXT) | TABLE_BIT(ATTN_OUT) | TABLE_BIT(ADD_NORM1) | \
     TABLE_BIT(FFN_HIDDEN) | TABLE_BIT(FFN_OUT) | TABLE_BIT(HIDDEN))

bool bert_trace_makes_table(const run_request *rq, const model_input *in,
                            const table_pick *p)
{
    (void)in;
    return checkpoint_makes_table(
        rq, p, bert_param_name,
        CHECKPOINT_INPUT_TABLES | CHECKPOINT_HEAD_TABLES | BERT_LAYER_TABLES |
            CHECKPOINT_MODEL_TABLES | POOLER_TABLES);
}

/* ---- the tables --------------------------------------------------------------- */

/* The tokens, the parameters --tables names, and the forward pass's
 * tables through rec's hook points. */
static int forward(checkpoint_recorder *rec, const bert_checkpoint *r,
                   workers *pool, mx_error *err)
{
    if (checkpoint_record_ids(rec, err) != 0 ||
        checkpoint_record_params(rec, err) != 0)
        return -1;
    matrix out = {0};
    const forward_hooks hooks = {.record = checkpoint_record, .ctx = rec};
    const bert_run run = {&hooks, true, pool};
    const int rc = bert_forward(&out, &r->model, r->run.ids, r->types, r->run.T,
                                &run, err);
    matrix_free(&out);
    return rc == 0 ? trace_flush(rec->tr, err) : -1;
}

int bert_trace_run(trace *tr, const run_request *rq, const model_input *in,
                   mx_error *err)
{
    bert_checkpoint r;
    if (run_open(&r, rq, in, err) != 0)
        return -1;
    workers *pool;
    if (checkpoint_run_pool(&pool, run_values(&r, rq), rq, err) != 0) {
        run_free(&r);
        return -1;
    }
    const bert_config *c = &r.model.cfg;
    tr->model = (trace_model){
        .checkpoint = true,
        .d_model = c->d,
        .d_out = c->d,
        .heads = c->n_head,
        .ff = c->n_inner,
        .layers = c->n_layer,
        .causal = false,
        .scale = true,
        .qkv_bias = true,
    };
    // a post-norm layer's output passes its hook point as out, shown as
    // its hidden; next_tokens shows the words at each [MASK]
    checkpoint_recorder rec = {
        .tr = tr,
        .rq = rq,
        .run = &r.run,
        .vocab_size = r.model.has_mlm ? c->vocab_size : 0,
        .layer_prefix = "layer.",
        .layer_output = TABLE_OUT,
        .only_at = "[MASK]",
    };
    int rc = checkpoint_record_init(&rec, err);
    if (rc == 0)
        rc = forward(&rec, &r, pool, err);
    checkpoint_record_free(&rec);
    workers_free(pool);
    run_free(&r);
    return rc;
}
