/* llama_trace.c: a Llama-style checkpoint's run into the trace
 * (llama_trace.h). */
#include "model/llama/llama_trace.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/i18n.h"
#include "model/checkpoint_record.h"
#include "model/gpt2/gpt2_tokenizer.h"
#include "model/llama/llama.h"
#include "model/llama/llama_generate.h"
#include "model/next_tokens.h"
#include "numerics/workers.h"

/* What a run reads: the checkpoint, its tokenizer, the text's ids. */
typedef struct {
    llama_model model;
    gpt2_tokenizer *tokenizer;
    int32_t *ids; /* T ids; owned */
    size_t T;
    char **pieces; /* T labels; owned */
    bool *layers;  /* n_layer: shown; owned */
    bool *heads;   /* n_head: shown; owned */
} llama_trace_run_state;

static void run_free(llama_trace_run_state *r)
{
    llama_close(&r->model);
    gpt2_tokenizer_free(r->tokenizer);
    free(r->ids);
    if (r->pieces != NULL)
        for (size_t i = 0; i < r->T; i++)
            free(r->pieces[i]);
    free(r->pieces);
    free(r->layers);
    free(r->heads);
    *r = (llama_trace_run_state){0};
}

/* The parameter name of --tables as the checkpoint spells it. */
static void full_name(char *buf, size_t size, const llama_model *m,
                      const char *name)
{
    snprintf(buf, size, "%s%s", strcmp(name, "lm_head.weight") ? m->prefix : "",
             name);
}

static int run_labels(llama_trace_run_state *r, mx_error *err)
{
    r->pieces = calloc(r->T, sizeof *r->pieces);
    if (r->pieces == NULL)
        return err_nomem(err, _("tokens"));
    for (size_t i = 0; i < r->T; i++) {
        char label[256];
        gpt2_tokenizer_label(label, sizeof label, r->tokenizer, r->ids[i]);
        if ((r->pieces[i] = strdup(label)) == NULL)
            return err_nomem(err, _("tokens"));
    }
    return 0;
}

static int run_open(llama_trace_run_state *r, const model_config *mc,
                    const model_input *in, mx_error *err)
{
    *r = (llama_trace_run_state){0};
    if (in->embeddings != NULL || in->kv != NULL)
        return err_usage(
            err,
            _("%s: does not go with --model (the checkpoint fixes its sizes, parameters, tokens and causal self-attention)"),
            in->kv ? "--kv" : "--embeddings");
    int rc = llama_open(&r->model, mc->model, err);
    if (rc == 0)
        rc = gpt2_tokenizer_open(&r->tokenizer, mc->model, err);
    const llama_config *c = &r->model.cfg;
    if (rc == 0 && gpt2_tokenizer_vocab_size(r->tokenizer) > c->vocab_size)
        rc = err_input(
            err,
            _("%s: tokenizer.json has %zu tokens, more than the model's vocab_size %zu"),
            mc->model, gpt2_tokenizer_vocab_size(r->tokenizer), c->vocab_size);
    for (size_t i = 0; rc == 0 && i < mc->n_tables; i++) {
        char full[160];
        full_name(full, sizeof full, &r->model, mc->tables[i]);
        if (llama_param_name(mc->tables[i], NULL) &&
            safetensors_set_find(&r->model.st, full, NULL) == NULL)
            rc = err_usage(err, _("--tables: the checkpoint has no tensor %s"),
                           mc->tables[i]);
    }
    if (rc == 0) {
        r->layers = calloc(c->n_layer, sizeof *r->layers);
        r->heads = calloc(c->n_head, sizeof *r->heads);
        if (r->layers == NULL || r->heads == NULL)
            rc = err_nomem(err, mc->model);
    }
    if (rc == 0)
        rc = checkpoint_select(r->layers, c->n_layer, mc->layers, mc->n_layers,
                               "--layers", err);
    if (rc == 0)
        rc = checkpoint_select(r->heads, c->n_head, mc->show_heads,
                               mc->n_show_heads, "--show-heads", err);
    if (rc == 0)
        rc = gpt2_tokenizer_encode(&r->ids, &r->T, r->tokenizer, in->sentence,
                                   in->len, c->n_positions, err);
    if (rc == 0 && r->T == 0)
        rc = err_input(err, _("the text has no tokens"));
    if (rc == 0 && r->T > c->n_positions)
        rc = err_input(
            err,
            _("the text is more than %zu tokens, the model's max_position_embeddings"),
            c->n_positions);
    if (rc == 0)
        rc = run_labels(r, err);
    if (rc != 0)
        run_free(r);
    return rc;
}

/* About the values of the whole trace: per shown layer and head its
 * eight tables; per shown layer seven T x D tables and two T x F; the
 * logits (T x V) and the rest. */
static double run_values(const llama_trace_run_state *r, const model_config *mc)
{
    const llama_config *c = &r->model.cfg;
    const double T = (double)r->T, D = (double)c->hidden,
                 hd = D / (double)c->n_head, V = (double)c->vocab_size;
    double layers = 0, heads = 0;
    for (size_t i = 0; i < c->n_layer; i++)
        layers += r->layers[i];
    for (size_t i = 0; i < c->n_head; i++)
        heads += r->heads[i];
    double v = layers * (heads * (6 * T * hd + 2 * T * T) + 7 * T * D +
                         2 * T * (double)c->inter);
    v += 3 * T * D + T * NEXT_TOKENS_K + T * V + V;
    if (mc->logits)
        v += T * V;
    for (size_t i = 0; i < mc->n_tables; i++) {
        char full[160];
        full_name(full, sizeof full, &r->model, mc->tables[i]);
        const st_tensor *t = safetensors_set_find(&r->model.st, full, NULL);
        if (t != NULL && llama_param_name(mc->tables[i], NULL))
            v += (double)st_tensor_count(t);
    }
    return v;
}

static int too_big(double values, mx_error *err)
{
    if (values <= (double)MAX_TRACE_VALUES)
        return 0;
    return err_input(
        err,
        _("the run would hold about %.0f million values (at most %zu million): use fewer tokens, or --layers and --show-heads"),
        values / 1e6, MAX_TRACE_VALUES / 1000000);
}

int llama_trace_check(double *values, const model_config *mc,
                      const model_input *in, bool streamed, mx_error *err)
{
    (void)streamed;
    llama_trace_run_state r;
    *values = 0;
    if (run_open(&r, mc, in, err) != 0)
        return -1;
    *values = run_values(&r, mc);
    run_free(&r);
    return too_big(*values, err);
}

int llama_trace_tokens(tokenized *tok, size_t *n_queries,
                       const model_config *mc, const model_input *in,
                       mx_error *err)
{
    llama_trace_run_state r;
    if (run_open(&r, mc, in, err) != 0)
        return -1;
    const int rc = tokenize_words(tok, (const char *const *)r.pieces, r.T, err);
    *n_queries = r.T;
    run_free(&r);
    return rc;
}

bool llama_trace_makes_table(const model_config *mc, const model_input *in,
                             const char *name)
{
    (void)in;
    if (llama_param_name(name, NULL))
        return true; /* the run checks that the checkpoint has it */
    const table_id id = table_by_name(name, strlen(name));
    if (id == TABLE_COUNT)
        return false;
    if (id == TABLE_LOGITS)
        return mc->logits;
    if (id == TABLE_GENERATED)
        return mc->generate > 0;
    const table_set made = CHECKPOINT_INPUT_TABLES | CHECKPOINT_HEAD_TABLES |
                           CHECKPOINT_LAYER_TABLES | CHECKPOINT_MODEL_TABLES |
                           ROTARY_HEAD_TABLES | ROTARY_MODEL_TABLES;
    return (made & table_bit(id)) != 0;
}

/* ---- the tables -------------------------------------------------------- */

static void label_of(const void *ctx, int32_t id, char *buf, size_t size)
{
    gpt2_tokenizer_label(buf, size, ctx, id);
}

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

/* The parameters --tables names: a weight (out x in) labelled out0.. x
 * in0.., embed_tokens and lm_head id0.. x dim0.., a norm's weight one
 * row. */
static int put_params(trace *tr, const llama_trace_run_state *r,
                      const model_config *mc, mx_error *err)
{
    for (size_t i = 0; i < mc->n_tables; i++) {
        int layer;
        if (!llama_param_name(mc->tables[i], &layer))
            continue;
        char full[160];
        full_name(full, sizeof full, &r->model, mc->tables[i]);
        const safetensors *in;
        const st_tensor *st = safetensors_set_find(&r->model.st, full, &in);
        const float *v;
        float *owned;
        if (st == NULL || safetensors_floats(&v, &owned, in, st, err) != 0)
            return -1;
        const size_t rows = st->ndim == 2 ? st->shape[0] : 1;
        const size_t cols = st->ndim == 2 ? st->shape[1] : st->shape[0];
        const char *name = mc->tables[i];
        const bool vocab =
            strncmp(name, "embed", 5) == 0 || strncmp(name, "lm_head", 7) == 0;
        const char *last = strrchr(name, '.') + 1;
        const labels *rl =
            st->ndim != 2
                ? trace_literal_label(tr, last, err)
                : trace_index_labels(tr, vocab ? "id" : "out", rows, err);
        const labels *cl = trace_index_labels(
            tr, vocab || st->ndim != 2 ? "dim" : "in", cols, err);
        const variant_id where = layer >= 0 ? VARIANT_ID_BLOCK
                                 : strncmp(name, "embed", 5) == 0
                                     ? VARIANT_INPUT
                                     : VARIANT_MODEL;
        const table_key key = {where, layer >= 0 ? layer : 0, NO_HEAD,
                               TABLE_PARAM, false};
        table *t = rl && cl ? trace_new(tr, &key, rl, cl, err) : NULL;
        if (t != NULL) {
            snprintf(t->param, sizeof t->param, "%s", name);
            memcpy(t->values.v, v, rows * cols * sizeof *v);
            trace_release(tr, t);
        }
        free(owned);
        if (t == NULL || trace_flush(tr, err) != 0)
            return -1;
    }
    return 0;
}

int llama_trace_run(trace *tr, const model_config *mc, const model_input *in,
                    mx_error *err)
{
    llama_trace_run_state r;
    if (run_open(&r, mc, in, err) != 0)
        return -1;
    if (too_big(run_values(&r, mc), err) != 0) {
        run_free(&r);
        return -1;
    }
    const llama_config *c = &r.model.cfg;
    workers *pool = NULL;
    const size_t threads = mc->threads != 0 ? mc->threads : workers_available();
    if (workers_init(&pool, threads, err) != 0) {
        run_free(&r);
        return -1;
    }
    tr->model = (trace_model){
        .checkpoint = true,
        .d_model = c->hidden,
        .d_out = c->hidden,
        .heads = c->n_head,
        .ff = c->inter,
        .layers = c->n_layer,
        .causal = true,
        .scale = true,
        .qkv_bias = c->qkv_bias,
    };
    checkpoint_recorder rec = {
        .tr = tr,
        .mc = mc,
        .pieces = (const char *const *)r.pieces,
        .T = r.T,
        .layers = r.layers,
        .heads = r.heads,
        .n_layer = c->n_layer,
        .n_head = c->n_head,
        .d_model = c->hidden,
        .d_ffn = c->inter,
        .head_dim = c->hidden / c->n_head,
        .vocab_size = c->vocab_size,
        .layer_prefix = "layers.",
        .label = label_of,
        .label_ctx = r.tokenizer,
    };
    int rc = checkpoint_record_init(&rec, err);
    if (rc == 0)
        rc = checkpoint_record_ids(&rec, r.ids, err);
    if (rc == 0)
        rc = put_kv_heads(tr, c, err);
    if (rc == 0)
        rc = put_params(tr, &r, mc, err);
    if (rc == 0) {
        matrix out = {0};
        const forward_hooks hooks = {.replace = mc->replace,
                                     .n_replace = mc->n_replace,
                                     .record = checkpoint_record,
                                     .ctx = &rec};
        const llama_run run = {&hooks, true, pool, NULL};
        rc = llama_forward(&out, &r.model, r.ids, r.T, &run, err);
        matrix_free(&out);
    }
    if (rc == 0 && mc->generate > 0)
        rc = llama_generate_into(tr, &r.model, r.tokenizer, r.ids, r.T, mc,
                                 pool, err);
    if (rc == 0)
        rc = trace_flush(tr, err);
    checkpoint_record_free(&rec);
    workers_free(pool);
    run_free(&r);
    return rc;
}
