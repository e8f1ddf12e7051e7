/* llama_trace.c: a Llama-style checkpoint's run into the trace
 * (llama_trace.h). */
#include "model/llama/llama_trace.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/i18n.h"
#include "base/text.h"
#include "model/checkpoint_lm.h"
#include "model/checkpoint_record.h"
#include "model/tokenizers/checkpoint_tokenizer.h"
#include "model/llama/llama.h"
#include "model/llama/llama_config.h"
#include "model/llama/llama_generate.h"
#include "model/next_tokens.h"
#include "numerics/workers.h"

/* What a run reads: the checkpoint, its tokenizer, and the text and
 * what is shown (checkpoint_run.h). */
typedef struct {
    checkpoint_run run;
    llama_model model;
    checkpoint_tokenizer *tokenizer;
} llama_trace_run_state;

static void run_free(llama_trace_run_state *r)
{
    llama_close(&r->model);
    checkpoint_tokenizer_free(r->tokenizer);
    checkpoint_run_free(&r->run);
}

/* The parameter name of --tables as the checkpoint spells it. */
static void full_name(char *buf, size_t size, const llama_model *m,
                      const char *name)
{
    text_join(buf, size, strcmp(name, "lm_head.weight") ? m->prefix : "", name);
}

/* An id's label, as the tokenizer ctx writes it (checkpoint_label). */
static void label_of(const void *ctx, int32_t id, char *buf, size_t size)
{
    checkpoint_tokenizer_label(buf, size, ctx, id);
}

/* A parameter --tables names (checkpoint_find_param): a weight (out x
 * in) labelled out0.. x in0.., embed_tokens and lm_head id0.. x dim0.., a
 * norm's weight one row; embed_tokens is the input's, norm and lm_head
 * after the layers. */
static bool find_param(const void *ctx, const char *name, checkpoint_param *p,
                       const safetensors **in, const st_tensor **st)
{
    const llama_trace_run_state *r = ctx;
    int layer;
    if (!llama_param_name(name, &layer))
        return false;
    char full[160];
    full_name(full, sizeof full, &r->model, name);
    *st = safetensors_set_find(&r->model.st, full, in);
    const bool embed = strncmp(name, "embed", 5) == 0;
    const bool vocab = embed || strncmp(name, "lm_head", 7) == 0;
    *p = (checkpoint_param){name, layer, embed ? VARIANT_INPUT : VARIANT_MODEL,
                            vocab ? "id" : "out", vocab ? "dim" : "in"};
    return true;
}

static int run_open(llama_trace_run_state *r, const run_request *rq,
                    const model_input *in, mx_error *err)
{
    *r = (llama_trace_run_state){0};
    if (checkpoint_run_refuse(in, err) != 0)
        return -1;
    int rc = llama_open(&r->model, rq->checkpoint, err);
    const llama_config *c = &r->model.cfg;
    if (rc == 0)
        rc = checkpoint_run_tokenizer(&r->tokenizer, rq, c->vocab_size, err);
    r->run.find_param = find_param;
    r->run.find_ctx = r;
    r->run.tied_embed = rc == 0 && c->tied ? "embed_tokens.weight" : NULL;
    if (rc == 0)
        rc = checkpoint_run_params_present(&r->run, rq, err);
    checkpoint_run *run = &r->run;
    if (rc == 0)
        rc = checkpoint_run_shown(run, c->n_layer, c->n_head, rq, err);
    if (rc == 0)
        rc = checkpoint_tokenizer_encode(&run->ids, &run->T, r->tokenizer,
                                         in->sentence, in->len, c->n_positions,
                                         err);
    if (rc == 0 && run->T == 0)
        rc = err_input(err, _("the text has no tokens"));
    size_t given = 0;
    if (rc == 0 && run->T > c->n_positions &&
        (rc = checkpoint_tokenizer_count(&given, r->tokenizer, in->sentence,
                                         in->len, err)) == 0)
        rc = checkpoint_lm_too_long(err, given, c->n_positions,
                                    LLAMA_POSITIONS_KEY);
    if (rc == 0)
        rc = llama_window_check(c, run->T, err);
    run->label = label_of;
    run->label_ctx = r->tokenizer;
    if (rc == 0)
        rc = checkpoint_run_labels(run, err);
    if (rc != 0)
        run_free(r);
    return rc;
}

/* About the values of the whole trace: per shown layer and head its
 * eight tables; per shown layer seven T x D tables and two T x F; the
 * logits (T x V) and the rest. */
static double run_values(const llama_trace_run_state *r, const run_request *rq)
{
    const llama_config *c = &r->model.cfg;
    const double T = (double)r->run.T, D = (double)c->hidden,
                 hd = D / (double)c->n_head, V = (double)c->vocab_size;
    const double layers = (double)checkpoint_run_layers_shown(&r->run),
                 heads = (double)checkpoint_run_heads_shown(&r->run);
    double v = layers * (heads * (6 * T * hd + 2 * T * T) + 7 * T * D +
                         2 * T * (double)c->inter);
    v += 3 * T * D + T * NEXT_TOKENS_K + T * V + V;
    if (rq->logits)
        v += T * V;
    return v + checkpoint_run_params_values(&r->run, rq);
}

/* The steps' tables of --kv-steps fit MAX_STEP_VALUES (generate.h),
 * checked before anything is written; else an error saying how to
 * narrow them. */
static int steps_fit(const llama_trace_run_state *r, const run_request *rq,
                     mx_error *err)
{
    const llama_config *c = &r->model.cfg;
    // a text that grows past the sliding window ends there
    const char *key;
    const generate_steps_size steps = {
        .T = r->run.T,
        .n = rq->generate,
        .context = llama_context(c, &key),
        .layers = checkpoint_run_layers_shown(&r->run),
        .heads = checkpoint_run_heads_shown(&r->run),
        .hd = c->hidden / c->n_head,
        .rotary = true,
    };
    return generate_steps_fit(&steps, rq, err);
}

int llama_trace_check(double *values, const run_request *rq,
                      const model_input *in, bool streamed, mx_error *err)
{
    (void)streamed;
    llama_trace_run_state r;
    *values = 0;
    if (run_open(&r, rq, in, err) != 0)
        return -1;
    *values = run_values(&r, rq);
    const int rc =
        checkpoint_run_fits(*values, err) != 0 || steps_fit(&r, rq, err) != 0
            ? -1
            : 0;
    run_free(&r);
    return rc;
}

int llama_trace_tokens(tokenized *tok, size_t *n_queries, const run_request *rq,
                       const model_input *in, mx_error *err)
{
    llama_trace_run_state r;
    if (run_open(&r, rq, in, err) != 0)
        return -1;
    const int rc = checkpoint_run_tokens(tok, n_queries, &r.run, err);
    run_free(&r);
    return rc;
}

bool llama_trace_makes_table(const run_request *rq, const model_input *in,
                             const table_pick *p)
{
    (void)in;
    return checkpoint_makes_table(
        rq, p, llama_param_name,
        CHECKPOINT_INPUT_TABLES | CHECKPOINT_HEAD_TABLES |
            CHECKPOINT_LAYER_TABLES | CHECKPOINT_MODEL_TABLES |
            ROTARY_HEAD_TABLES | ROTARY_MODEL_TABLES |
            table_bit(TABLE_GENERATED) | table_bit(TABLE_GENERATED_TOP) |
            table_bit(TABLE_KV_CACHE_SIZE) | GENERATE_MAP_TABLES |
            GENERATE_CLEAN_TABLES);
}

/* ---- the tables -------------------------------------------------------- */

/* kv_heads (H x 1): the key/value head each query head reads. */
static int put_kv_heads(trace *tr, const llama_config *c, mx_error *err)
{
    const labels *rows = trace_index_labels(tr, "head", c->n_head, err);
    const labels *col = trace_literal_label(tr, "kv_head", err);
    if (rows == NULL || col == NULL)
        return -1;
    const table_key key = {VARIANT_INPUT, 0, NO_HEAD, TABLE_KV_HEADS, false};
    table *t = trace_new(tr, &key, rows, col, err);
    if (t == NULL)
        return -1;
    t->integral = true;
    const size_t groups = c->n_head / c->n_kv_head;
    for (size_t h = 0; h < c->n_head; h++)
        t->values.v[h] = (float)(h / groups);
    trace_release(tr, t);
    return 0;
}

int llama_trace_run(trace *tr, const run_request *rq, const model_input *in,
                    mx_error *err)
{
    llama_trace_run_state r;
    if (run_open(&r, rq, in, err) != 0)
        return -1;
    workers *pool;
    if (steps_fit(&r, rq, err) != 0 ||
        checkpoint_run_pool(&pool, run_values(&r, rq), rq, err) != 0) {
        run_free(&r);
        return -1;
    }
    const llama_config *c = &r.model.cfg;
    tr->model = (trace_model){
        .checkpoint = true,
        .d_model = c->hidden,
        .d_out = c->hidden,
        .heads = c->n_head,
        .ff = c->inter,
        .layers = c->n_layer,
        .causal = true,
        .scale = true,
        .own_head = !c->tied,
        .qkv_bias = c->qkv_bias,
    };
    checkpoint_recorder rec = {
        .tr = tr,
        .rq = rq,
        .run = &r.run,
        .vocab_size = c->vocab_size,
        .layer_prefix = "layers.",
        .layer_output = TABLE_HIDDEN,
    };
    int rc = checkpoint_record_init(&rec, err);
    if (rc == 0)
        rc = checkpoint_record_ids(&rec, err);
    if (rc == 0)
        rc = put_kv_heads(tr, c, err);
    if (rc == 0)
        rc = checkpoint_record_params(&rec, err);
    if (rc == 0) {
        matrix out = {0};
        const forward_hooks hooks = {.replace = rq->replace,
                                     .n_replace = rq->n_replace,
                                     .record = checkpoint_record,
                                     .ctx = &rec};
        const llama_run run = {&hooks, true, pool, NULL};
        rc = llama_forward(&out, &r.model, r.run.ids, r.run.T, &run, err);
        matrix_free(&out);
    }
    if (rc == 0 && rq->generate > 0)
        rc = llama_generate_into(tr, &r.model, r.tokenizer, r.run.ids, r.run.T,
                                 rq, pool, err);
    if (rc == 0)
        rc = trace_flush(tr, err);
    checkpoint_record_free(&rec);
    workers_free(pool);
    run_free(&r);
    return rc;
}
