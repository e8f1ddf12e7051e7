/* gpt2_trace.c: a GPT-2 checkpoint's run into the trace (gpt2_trace.h). */
#include "model/gpt2/gpt2_trace.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/i18n.h"
#include "model/entropy.h"
#include "model/gpt2/gpt2.h"
#include "model/gpt2/gpt2_generate.h"
#include "model/gpt2/gpt2_tokenizer.h"
#include "numerics/workers.h"

/* ---- the folder, the text --------------------------------------------------- */

/* What a run reads: the checkpoint, its tokenizer, the text's ids. */
typedef struct {
    gpt2_model model;
    gpt2_tokenizer *tokenizer;
    int32_t *ids; /* T ids; owned */
    size_t T;
    char **pieces; /* T labels; owned */
    bool *layers;  /* n_layer: shown; owned */
    bool *heads;   /* n_head: shown; owned */
} checkpoint_run;

static void run_free(checkpoint_run *r)
{
    gpt2_close(&r->model);
    gpt2_tokenizer_free(r->tokenizer);
    free(r->ids);
    if (r->pieces != NULL)
        for (size_t i = 0; i < r->T; i++)
            free(r->pieces[i]);
    free(r->pieces);
    free(r->layers);
    free(r->heads);
    *r = (checkpoint_run){0};
}

/* keep[0..n) = the members of the n_ranges ranges, or all of them (none
 * given); a range past the model's n is an error of the option named. */
static int select_list(bool *keep, size_t n, const index_range *ranges,
                       size_t n_ranges, const char *option, mx_error *err)
{
    for (size_t i = 0; i < n; i++)
        keep[i] = n_ranges == 0;
    for (size_t k = 0; k < n_ranges; k++) {
        if (ranges[k].hi >= n) // the number as typed
            return err_usage(
                err,
                _("%s: %.*s is out of range; the model has %zu (0 to %zu)"),
                option, (int)ranges[k].typed_len, ranges[k].typed, n, n - 1);
        for (size_t i = ranges[k].lo; i <= ranges[k].hi; i++)
            keep[i] = true;
    }
    return 0;
}

static int run_open(checkpoint_run *r, const model_config *mc,
                    const model_input *in, mx_error *err)
{
    *r = (checkpoint_run){0};
    if (in->embeddings != NULL || in->kv != NULL)
        return err_usage(
            err,
            _("%s: does not go with --model (the checkpoint fixes its sizes, parameters, tokens and causal self-attention)"),
            in->kv ? "--kv" : "--embeddings");
    if (mc->pair != NULL)
        return err_usage(err, _("--pair: a second text is for a BERT "
                                "checkpoint; this one is GPT-2's"));
    int rc = gpt2_open(&r->model, mc->model, err);
    if (rc == 0)
        rc = gpt2_tokenizer_open(&r->tokenizer, mc->model, err);
    if (rc != 0) {
        run_free(r);
        return -1;
    }
    const gpt2_config *c = &r->model.cfg;
    const size_t n_tokens = gpt2_tokenizer_vocab_size(r->tokenizer);
    if (n_tokens > c->vocab_size) {
        // run_free clears *c and the tokenizer
        const size_t most = c->vocab_size;
        const bool json = gpt2_tokenizer_from_json(r->tokenizer);
        run_free(r);
        return err_input(
            err,
            json
                ? _("%s: tokenizer.json has %zu tokens, more than the model's vocab_size %zu")
                : _("%s: vocab.json has %zu tokens, more than the model's vocab_size %zu"),
            mc->model, n_tokens, most);
    }
    for (size_t i = 0; i < mc->n_tables; i++) {
        char full[128];
        snprintf(full, sizeof full, "%s%s", r->model.prefix, mc->tables[i]);
        if (gpt2_param_name(mc->tables[i], NULL) &&
            safetensors_find(&r->model.st, full) == NULL) {
            run_free(r);
            return err_usage(err,
                             _("--tables: the checkpoint has no tensor %s"),
                             mc->tables[i]);
        }
    }
    r->layers = calloc(c->n_layer, sizeof *r->layers);
    r->heads = calloc(c->n_head, sizeof *r->heads);
    if (r->layers == NULL || r->heads == NULL) {
        run_free(r);
        return err_nomem(err, mc->model);
    }
    if (select_list(r->layers, c->n_layer, mc->layers, mc->n_layers, "--layers",
                    err) != 0 ||
        select_list(r->heads, c->n_head, mc->show_heads, mc->n_show_heads,
                    "--show-heads", err) != 0 ||
        gpt2_tokenizer_encode(&r->ids, &r->T, r->tokenizer, in->sentence,
                              in->len, c->n_positions, err) != 0) {
        run_free(r);
        return -1;
    }
    if (r->T == 0) {
        run_free(r);
        return err_input(err, _("the text has no tokens"));
    }
    if (r->T > c->n_positions) {
        const size_t most = c->n_positions; // run_free clears *c
        run_free(r);
        return err_input(
            err, _("the text is more than %zu tokens, the model's n_positions"),
            most);
    }
    r->pieces = calloc(r->T, sizeof *r->pieces);
    if (r->pieces == NULL) {
        run_free(r);
        return err_nomem(err, _("tokens"));
    }
    for (size_t i = 0; i < r->T; i++) {
        char label[256];
        gpt2_tokenizer_label(label, sizeof label, r->tokenizer, r->ids[i]);
        if ((r->pieces[i] = strdup(label)) == NULL) {
            run_free(r);
            return err_nomem(err, _("tokens"));
        }
    }
    return 0;
}

/* About the values of the whole trace: per shown layer and head, its six
 * tables; per shown layer, seven T x D tables and ffn_hidden; the rest,
 * the logits (T x V) among them, shown or not. */
static double run_values(const checkpoint_run *r, const model_config *mc)
{
    const gpt2_config *c = &r->model.cfg;
    const double T = (double)r->T, D = (double)c->n_embd,
                 hd = D / (double)c->n_head;
    double layers = 0, heads = 0;
    for (size_t i = 0; i < c->n_layer; i++)
        layers += r->layers[i];
    for (size_t i = 0; i < c->n_head; i++)
        heads += r->heads[i];
    double v = layers * (heads * (4 * T * hd + 2 * T * T) + 7 * T * D +
                         T * (double)c->n_inner);
    // the logits are always computed (next_tokens needs them), with one
    // row of their probabilities; a second copy when they are shown
    const double V = (double)c->vocab_size;
    v += 3 * T * D + T * NEXT_TOKENS_K + T * V + V;
    if (mc->logits)
        v += T * V;
    for (size_t i = 0; i < mc->n_tables; i++) {
        char full[128];
        snprintf(full, sizeof full, "%s%s", r->model.prefix, mc->tables[i]);
        const st_tensor *t = safetensors_find(&r->model.st, full);
        if (t != NULL && gpt2_param_name(mc->tables[i], NULL))
            v += (double)st_tensor_count(t);
    }
    return v;
}

int gpt2_trace_check(double *values, const model_config *mc,
                     const model_input *in, bool streamed, mx_error *err)
{
    (void)streamed;
    checkpoint_run r;
    *values = 0;
    if (run_open(&r, mc, in, err) != 0)
        return -1;
    *values = run_values(&r, mc);
    run_free(&r);
    if (*values > (double)MAX_TRACE_VALUES)
        return err_input(
            err,
            _("the run would hold about %.0f million values (at most %zu million): use fewer tokens, or --layers and --show-heads"),
            *values / 1e6, MAX_TRACE_VALUES / 1000000);
    return 0;
}

int gpt2_trace_tokens(tokenized *tok, size_t *n_queries, const model_config *mc,
                      const model_input *in, mx_error *err)
{
    checkpoint_run r;
    if (run_open(&r, mc, in, err) != 0)
        return -1;
    const int rc = tokenize_words(tok, (const char *const *)r.pieces, r.T, err);
    *n_queries = r.T;
    run_free(&r);
    return rc;
}

bool gpt2_trace_makes_table(const model_config *mc, const model_input *in,
                            const char *name)
{
    (void)in;
    if (gpt2_param_name(name, NULL))
        return true; /* the run checks that the checkpoint has it */
    const table_id id = table_by_name(name, strlen(name));
    if (id == TABLE_COUNT)
        return false;
    if (id == TABLE_LOGITS)
        return mc->logits;
    if (id == TABLE_GENERATED)
        return mc->generate > 0;
    if (id == TABLE_KV_CACHE_SIZE)
        return mc->generate > 0 && mc->kv_steps;
    // the catalogue's sets of a checkpoint's tables
    const table_set made = CHECKPOINT_INPUT_TABLES | CHECKPOINT_HEAD_TABLES |
                           CHECKPOINT_LAYER_TABLES | CHECKPOINT_MODEL_TABLES;
    return (made & table_bit(id)) != 0;
}

/* ---- the tables --------------------------------------------------------------- */

/* What the observer needs to put each table the pass hands it. */
typedef struct {
    trace *tr;
    const checkpoint_run *r;
    const model_config *mc;
    const labels *tokens, *queries, *keys, *values; /* T rows or columns */
    const labels *dims, *ffn_dims, *head_dims, *vocab;
    matrix entropy; /* (n_layer, n_head) attn_entropy, filled as the
                       weights come */
} recorder;

/* A copy of m into a new table of the checkpoint's (rows x cols), or
 * NULL. */
static table *put_table(recorder *rc, variant_id v, int layer, int head,
                        table_id id, const labels *rows, const labels *cols,
                        const matrix *m, mx_error *err)
{
    const table_key key = {v, layer, head, id, false};
    table *t = trace_new(rc->tr, &key, rows, cols, err);
    if (t == NULL)
        return NULL;
    memcpy(t->values.v, m->v, m->rows * m->cols * sizeof *m->v);
    trace_release(rc->tr, t);
    return t;
}

static int put(recorder *rc, variant_id v, int layer, int head, table_id id,
               const labels *rows, const labels *cols, const matrix *m,
               mx_error *err)
{
    return put_table(rc, v, layer, head, id, rows, cols, m, err) != NULL ? 0
                                                                         : -1;
}

/* attn_entropy (n_layer, n_head) after the layers (variant "gpt2"): a
 * row per layer ("h.3"), a column per head (model/entropy.h). */
static int put_entropy(recorder *rc, mx_error *err)
{
    const table_key key = {VARIANT_MODEL, 0, NO_HEAD, TABLE_ATTN_ENTROPY,
                           false};
    table *t = attn_entropy_record(rc->tr, &key, "h.", &rc->entropy, err);
    if (t == NULL)
        return -1;
    return 0;
}

/* The parameters --tables names, as the checkpoint has them: a weight
 * (rows x cols) labelled in0.. x out0.. (Conv1D's in x out), wte and wpe
 * id0.. and pos0.. x dim0.., a bias or a LayerNorm's weight one row. */
static int put_params(recorder *rc, mx_error *err)
{
    const checkpoint_run *r = rc->r;
    const model_config *mc = rc->mc;
    for (size_t i = 0; i < mc->n_tables; i++) {
        int layer;
        if (!gpt2_param_name(mc->tables[i], &layer))
            continue;
        char full[128];
        snprintf(full, sizeof full, "%s%s", r->model.prefix, mc->tables[i]);
        const st_tensor *st = safetensors_find(&r->model.st, full);
        const float *v;
        float *owned;
        if (st == NULL ||
            safetensors_floats(&v, &owned, &r->model.st, st, err) != 0)
            return -1;
        const size_t rows = st->ndim == 2 ? st->shape[0] : 1;
        const size_t cols = st->ndim == 2 ? st->shape[1] : st->shape[0];
        const char *name = mc->tables[i];
        const bool embedding =
            strncmp(name, "wte", 3) == 0 || strncmp(name, "wpe", 3) == 0;
        const char *last = strrchr(name, '.') + 1;
        const labels *rl =
            st->ndim != 2 ? trace_literal_label(rc->tr, last, err)
            : embedding   ? trace_index_labels(
                                rc->tr, name[1] == 't' ? "id" : "pos", rows, err)
                        : trace_index_labels(rc->tr, "in", rows, err);
        const labels *cl = trace_index_labels(
            rc->tr, embedding || st->ndim != 2 ? "dim" : "out", cols, err);
        // a layer's parameters are its block's; ln_f is after the layers,
        // wte and wpe make the input
        const variant_id where = layer >= 0 ? VARIANT_ID_BLOCK
                                 : strncmp(name, "ln_f", 4) == 0
                                     ? VARIANT_MODEL
                                     : VARIANT_INPUT;
        const table_key key = {where, layer >= 0 ? layer : 0, NO_HEAD,
                               TABLE_PARAM, false};
        table *t = rl && cl ? trace_new(rc->tr, &key, rl, cl, err) : NULL;
        if (t != NULL) {
            snprintf(t->param, sizeof t->param, "%s", name);
            memcpy(t->values.v, v, rows * cols * sizeof *v);
            trace_release(rc->tr, t);
        }
        free(owned);
        if (t == NULL || trace_flush(rc->tr, err) != 0)
            return -1;
    }
    return 0;
}

/* next_tokens (T·k x 1): for each token, the k likeliest next tokens,
 * "token → next", and their probabilities, softmax over the logits
 * (next_tokens.h). */
static int put_next_tokens(recorder *rc, const matrix *logits, mx_error *err)
{
    const checkpoint_run *r = rc->r;
    const size_t T = logits->rows, K = NEXT_TOKENS_K;
    size_t *best = calloc(T * K, sizeof *best), n = 0;
    char **names = calloc(T * K, sizeof *names);
    matrix top = {0};
    int result = -1;
    if (names == NULL || best == NULL) {
        err_nomem(err, _("tokens"));
        goto out;
    }
    if (matrix_alloc(&top, T * K, 1, N_("logits"), err) != 0 ||
        next_tokens_top(best, top.v, &n, logits, err) != 0)
        goto out;
    top.rows = T * n;
    for (size_t i = 0; i < T * n; i++) {
        char next[256], line[600];
        gpt2_tokenizer_label(next, sizeof next, r->tokenizer, (int32_t)best[i]);
        snprintf(line, sizeof line, "%s \u2192 %s", r->pieces[i / n], next);
        if ((names[i] = strdup(line)) == NULL) {
            err_nomem(err, _("tokens"));
            goto out;
        }
    }
    const labels *rows =
        trace_word_labels(rc->tr, "", (const char *const *)names, T * n, err);
    const labels *col = trace_literal_label(rc->tr, "probability", err);
    if (rows != NULL && col != NULL)
        result = put(rc, VARIANT_MODEL, 0, NO_HEAD, TABLE_NEXT_TOKENS, rows,
                     col, &top, err);
out:
    if (names != NULL)
        for (size_t i = 0; i < T * K; i++)
            free(names[i]);
    free(names);
    free(best);
    matrix_free(&top);
    return result;
}

/* The rows and columns of a checkpoint's table id (T rows but
 * next_tokens's). */
static void table_labels(const labels **rows, const labels **cols,
                         const recorder *rc, table_id id)
{
    *rows = rc->tokens;
    *cols = rc->dims;
    switch (id) {
    case TABLE_QUERIES:
        *rows = rc->queries;
        *cols = rc->head_dims;
        break;
    case TABLE_KEYS:
        *rows = rc->keys;
        *cols = rc->head_dims;
        break;
    case TABLE_VALUES:
        *rows = rc->values;
        *cols = rc->head_dims;
        break;
    case TABLE_ATTN_SCORES:
    case TABLE_ATTN_WEIGHTS:
        *rows = rc->queries;
        *cols = rc->keys;
        break;
    case TABLE_HEAD_CONTEXT:
        *cols = rc->head_dims;
        break;
    case TABLE_FFN_HIDDEN:
        *cols = rc->ffn_dims;
        break;
    case TABLE_LOGITS:
        *cols = rc->vocab;
        break;
    default:
        break;
    }
}

/* The recorder of the forward pass's hook points (hooks.h): each table
 * of a shown layer and head copied into the trace under its key; a
 * layer's end flushes the trace; attn_entropy goes before out and
 * next_tokens after the logits. */
static int record(void *ctx, const table_key *at, const matrix *m,
                  mx_error *err)
{
    recorder *rc = ctx;
    const checkpoint_run *r = rc->r;
    const bool layer = at->variant == VARIANT_ID_BLOCK;
    if (at->id == TABLE_ATTN_WEIGHTS)
        *matrix_at(&rc->entropy, (size_t)at->layer, (size_t)at->head) =
            attn_mean_entropy(m);
    if ((layer && !r->layers[at->layer]) ||
        (at->head != NO_HEAD && !r->heads[at->head]))
        return 0;
    if (at->id == TABLE_OUT && put_entropy(rc, err) != 0)
        return -1;
    const labels *rows, *cols;
    table_labels(&rows, &cols, rc, at->id);
    if ((at->id != TABLE_LOGITS || rc->mc->logits) &&
        put(rc, at->variant, at->layer, at->head, at->id, rows, cols, m, err) !=
            0)
        return -1;
    if (at->id == TABLE_LOGITS)
        return put_next_tokens(rc, m, err);
    return layer && at->id == TABLE_HIDDEN ? trace_flush(rc->tr, err) : 0;
}

int gpt2_trace_run(trace *tr, const model_config *mc, const model_input *in,
                   mx_error *err)
{
    checkpoint_run r;
    if (run_open(&r, mc, in, err) != 0)
        return -1;
    if (run_values(&r, mc) > (double)MAX_TRACE_VALUES) {
        run_free(&r);
        return err_input(
            err,
            _("the run would hold about %.0f million values (at most %zu million): use fewer tokens, or --layers and --show-heads"),
            run_values(&r, mc) / 1e6, MAX_TRACE_VALUES / 1000000);
    }
    const gpt2_config *c = &r.model.cfg;
    workers *pool = NULL;
    const size_t threads = mc->threads != 0 ? mc->threads : workers_available();
    if (workers_init(&pool, threads, err) != 0) {
        run_free(&r);
        return -1;
    }
    tr->model = (trace_model){
        .checkpoint = true,
        .d_model = c->n_embd,
        .d_out = c->n_embd,
        .heads = c->n_head,
        .ff = c->n_inner,
        .layers = c->n_layer,
        .causal = true,
        .scale = true,
        .qkv_bias = true,
    };
    const char *const *words = (const char *const *)r.pieces;
    recorder rec = {.tr = tr, .r = &r, .mc = mc};
    if (matrix_alloc(&rec.entropy, c->n_layer, c->n_head,
                     N_("attention weights"), err) != 0) {
        workers_free(pool);
        run_free(&r);
        return -1;
    }
    rec.tokens = trace_word_labels(tr, "", words, r.T, err);
    rec.queries = trace_word_labels(tr, "Q:", words, r.T, err);
    rec.keys = trace_word_labels(tr, "K:", words, r.T, err);
    rec.values = trace_word_labels(tr, "V:", words, r.T, err);
    rec.dims = trace_index_labels(tr, "dim", c->n_embd, err);
    rec.ffn_dims = trace_index_labels(tr, "dim", c->n_inner, err);
    rec.head_dims = trace_index_labels(tr, "dim", c->n_embd / c->n_head, err);
    rec.vocab = mc->logits ? trace_index_labels(tr, "id", c->vocab_size, err)
                           : rec.dims;
    const labels *id = trace_literal_label(tr, "id", err);
    int rc = -1;
    table *ids = NULL;
    if (rec.tokens && rec.queries && rec.keys && rec.values && rec.dims &&
        rec.ffn_dims && rec.head_dims && rec.vocab && id) {
        const table_key key = {VARIANT_INPUT, 0, NO_HEAD, TABLE_TOKENS, false};
        ids = trace_new(tr, &key, rec.tokens, id, err);
    }
    if (ids != NULL) {
        ids->integral = true;
        for (size_t i = 0; i < r.T; i++)
            ids->values.v[i] = (float)r.ids[i];
        trace_release(tr, ids);
        if (put_params(&rec, err) != 0)
            goto done;
        matrix out = {0};
        const forward_hooks hooks = {.replace = mc->replace,
                                     .n_replace = mc->n_replace,
                                     .record = record,
                                     .ctx = &rec};
        const gpt2_run run = {&hooks, true, pool, NULL};
        rc = gpt2_forward(&out, &r.model, r.ids, r.T, &run, err);
        matrix_free(&out);
        if (rc == 0 && mc->generate > 0)
            rc = gpt2_generate_into(tr, &r.model, r.tokenizer, r.ids, r.T, mc,
                                    pool, err);
    }
    if (rc == 0)
        rc = trace_flush(tr, err);
done:
    matrix_free(&rec.entropy);
    workers_free(pool);
    run_free(&r);
    return rc;
}
