/* bert_trace.c: a BERT checkpoint's run into the trace (bert_trace.h). */
#include "model/bert/bert_trace.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/i18n.h"
#include "model/bert/bert.h"
#include "model/entropy.h"
#include "model/gpt2/gpt2_tokenizer.h"
#include "model/tokenizers/hf_tokenizer.h"
#include "numerics/workers.h"

/* The k likeliest words next_tokens shows at each place. */
#define MASK_TOP_K 5

/* ---- the folder, the text --------------------------------------------------- */

/* What a run reads: the checkpoint, its tokenizer, the text's ids. */
typedef struct {
    bert_model model;
    gpt2_tokenizer *tokenizer;
    int32_t *ids, *types; /* T of each; owned */
    size_t T;
    char **pieces; /* T labels; owned */
    bool *layers;  /* n_layer: shown; owned */
    bool *heads;   /* n_head: shown; owned */
} bert_checkpoint;

static void run_free(bert_checkpoint *r)
{
    bert_close(&r->model);
    gpt2_tokenizer_free(r->tokenizer);
    free(r->ids);
    free(r->types);
    if (r->pieces != NULL)
        for (size_t i = 0; i < r->T; i++)
            free(r->pieces[i]);
    free(r->pieces);
    free(r->layers);
    free(r->heads);
    *r = (bert_checkpoint){0};
}

/* keep[0..n) = the members of the ranges, or all of them (none given). */
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

/* The checkpoint's name of the parameter name as --tables gives it:
 * "bert." before it in BertForMaskedLM's file, but before cls.*. */
static void full_name(char *full, size_t size, const bert_checkpoint *r,
                      const char *name)
{
    snprintf(full, size, "%s%s",
             strncmp(name, "cls.", 4) == 0 ? "" : r->model.prefix, name);
}

/* --tables: logits and next_tokens need the masked-word head; a
 * parameter must be in the file. */
static int check_tables(const bert_checkpoint *r, const model_config *mc,
                        mx_error *err)
{
    for (size_t i = 0; i < mc->n_tables; i++) {
        const char *name = mc->tables[i];
        const table_id id = table_by_name(name, strlen(name));
        if ((id == TABLE_LOGITS || id == TABLE_NEXT_TOKENS) &&
            !r->model.has_mlm)
            return err_usage(
                err,
                _("--tables: %s needs the masked-word head (cls.predictions.*), which this checkpoint does not have"),
                name);
        char full[160];
        full_name(full, sizeof full, r, name);
        if (bert_param_name(name, NULL) &&
            safetensors_find(&r->model.st, full) == NULL)
            return err_usage(
                err, _("--tables: the checkpoint has no tensor %s"), name);
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
    const struct hf_tokenizer *hf = gpt2_tokenizer_json(r->tokenizer);
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
    *first = r->T;
    const size_t T = r->T + n + n_after;
    int32_t *ids = T <= max + 1 ? realloc(r->ids, T * sizeof *ids) : NULL;
    if (ids != NULL) {
        memcpy(ids + r->T, b, n * sizeof *ids);
        memcpy(ids + r->T + n, after, n_after * sizeof *ids);
        r->ids = ids;
        r->T = T;
    }
    free(b);
    if (T > max)
        return err_input(
            err,
            _("the text is more than %zu tokens, the model's max_position_embeddings"),
            max);
    return ids == NULL ? err_nomem(err, _("tokens")) : 0;
}

/* The text's ids (with [CLS] and [SEP]), their types and labels. */
static int read_text(bert_checkpoint *r, const model_config *mc,
                     const model_input *in, mx_error *err)
{
    const bert_config *c = &r->model.cfg;
    if (gpt2_tokenizer_encode(&r->ids, &r->T, r->tokenizer, in->sentence,
                              in->len, c->n_positions, err) != 0)
        return -1;
    if (r->T == 0)
        return err_input(err, _("the text has no tokens"));
    if (r->T > c->n_positions)
        return err_input(
            err,
            _("the text is more than %zu tokens, the model's max_position_embeddings"),
            c->n_positions);
    size_t first = r->T; // the tokens of type 0
    if (mc->pair != NULL &&
        append_pair(r, &first, mc->pair, c->n_positions, err) != 0)
        return -1;
    r->types = calloc(r->T, sizeof *r->types);
    r->pieces = calloc(r->T, sizeof *r->pieces);
    if (r->types == NULL || r->pieces == NULL)
        return err_nomem(err, _("tokens"));
    for (size_t i = first; i < r->T; i++)
        r->types[i] = 1;
    for (size_t i = 0; i < r->T; i++) {
        char label[256];
        gpt2_tokenizer_label(label, sizeof label, r->tokenizer, r->ids[i]);
        if ((r->pieces[i] = strdup(label)) == NULL)
            return err_nomem(err, _("tokens"));
    }
    return 0;
}

static int open_all(bert_checkpoint *r, const model_config *mc,
                    const model_input *in, mx_error *err)
{
    if (in->embeddings != NULL || in->kv != NULL)
        return err_usage(
            err,
            _("%s: does not go with --model (the checkpoint fixes its sizes, parameters, tokens and causal self-attention)"),
            in->kv ? "--kv" : "--embeddings");
    if (bert_open(&r->model, mc->model, err) != 0 ||
        gpt2_tokenizer_open(&r->tokenizer, mc->model, err) != 0)
        return -1;
    const bert_config *c = &r->model.cfg;
    const size_t n_tokens = gpt2_tokenizer_vocab_size(r->tokenizer);
    if (n_tokens > c->vocab_size)
        return err_input(
            err,
            _("%s: tokenizer.json has %zu tokens, more than the model's vocab_size %zu"),
            mc->model, n_tokens, c->vocab_size);
    if (check_tables(r, mc, err) != 0)
        return -1;
    r->layers = calloc(c->n_layer, sizeof *r->layers);
    r->heads = calloc(c->n_head, sizeof *r->heads);
    if (r->layers == NULL || r->heads == NULL)
        return err_nomem(err, mc->model);
    if (select_list(r->layers, c->n_layer, mc->layers, mc->n_layers, "--layers",
                    err) != 0 ||
        select_list(r->heads, c->n_head, mc->show_heads, mc->n_show_heads,
                    "--show-heads", err) != 0)
        return -1;
    return read_text(r, mc, in, err);
}

static int run_open(bert_checkpoint *r, const model_config *mc,
                    const model_input *in, mx_error *err)
{
    *r = (bert_checkpoint){0};
    if (open_all(r, mc, in, err) != 0) {
        run_free(r);
        return -1;
    }
    return 0;
}

/* About the values of the whole trace: per shown layer and head, its six
 * tables; per shown layer, six T x D tables and ffn_hidden; the rest,
 * the logits (T x V) among them with the masked-word head. */
static double run_values(const bert_checkpoint *r, const model_config *mc)
{
    const bert_config *c = &r->model.cfg;
    const double T = (double)r->T, D = (double)c->d, hd = D / (double)c->n_head;
    double layers = 0, heads = 0;
    for (size_t i = 0; i < c->n_layer; i++)
        layers += r->layers[i];
    for (size_t i = 0; i < c->n_head; i++)
        heads += r->heads[i];
    double v = layers * (heads * (4 * T * hd + 2 * T * T) + 6 * T * D +
                         T * (double)c->n_inner);
    v += 3 * T * D;
    if (r->model.has_mlm) {
        const double V = (double)c->vocab_size;
        v += T * MASK_TOP_K + T * V + V + 2 * T * D;
        if (mc->logits)
            v += T * V;
    }
    for (size_t i = 0; i < mc->n_tables; i++) {
        const char *name = mc->tables[i];
        char full[160];
        full_name(full, sizeof full, r, name);
        const st_tensor *t = safetensors_find(&r->model.st, full);
        if (t != NULL && bert_param_name(name, NULL))
            v += (double)st_tensor_count(t);
    }
    return v;
}

int bert_trace_check(double *values, const model_config *mc,
                     const model_input *in, bool streamed, mx_error *err)
{
    (void)streamed;
    bert_checkpoint r;
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

int bert_trace_tokens(tokenized *tok, size_t *n_queries, const model_config *mc,
                      const model_input *in, mx_error *err)
{
    bert_checkpoint r;
    if (run_open(&r, mc, in, err) != 0)
        return -1;
    const int rc = tokenize_words(tok, (const char *const *)r.pieces, r.T, err);
    *n_queries = r.T;
    run_free(&r);
    return rc;
}

/* What a BERT run makes, as the catalogue's sets of a checkpoint's tables
 * but for its layers: post-norm's add_norm1 and hidden, no ln_1, ln_2 or
 * residual. */
#define BERT_LAYER_TABLES                                                     \
    (TABLE_BIT(CONCAT_CONTEXT) | TABLE_BIT(ATTN_OUT) | TABLE_BIT(ADD_NORM1) | \
     TABLE_BIT(FFN_HIDDEN) | TABLE_BIT(FFN_OUT) | TABLE_BIT(HIDDEN))

bool bert_trace_makes_table(const model_config *mc, const model_input *in,
                            const char *name)
{
    (void)in;
    if (bert_param_name(name, NULL))
        return true; /* the run checks that the checkpoint has it */
    const table_id id = table_by_name(name, strlen(name));
    if (id == TABLE_COUNT)
        return false;
    if (id == TABLE_LOGITS)
        return mc->logits; /* the run checks the masked-word head */
    const table_set made = CHECKPOINT_INPUT_TABLES | CHECKPOINT_HEAD_TABLES |
                           BERT_LAYER_TABLES | CHECKPOINT_MODEL_TABLES;
    return (made & table_bit(id)) != 0;
}

/* ---- the tables --------------------------------------------------------------- */

/* What the recorder needs to put each table the pass hands it. */
typedef struct {
    trace *tr;
    const bert_checkpoint *r;
    const model_config *mc;
    const labels *tokens, *queries, *keys, *values; /* T rows or columns */
    const labels *dims, *ffn_dims, *head_dims, *vocab;
    matrix entropy; /* (n_layer, n_head) attn_entropy */
} recorder;

static int put(recorder *rc, variant_id v, int layer, int head, table_id id,
               const labels *rows, const labels *cols, const matrix *m,
               mx_error *err)
{
    const table_key key = {v, layer, head, id, false};
    table *t = trace_new(rc->tr, &key, rows, cols, err);
    if (t == NULL)
        return -1;
    memcpy(t->values.v, m->v, m->rows * m->cols * sizeof *m->v);
    trace_release(rc->tr, t);
    return 0;
}

/* The parameters --tables names, as the checkpoint has them: a weight
 * (out x in, nn.Linear's) labelled out0.. x in0.., an embedding id0.. or
 * pos0.. x dim0.., a bias or a LayerNorm's weight one row. */
static int put_params(recorder *rc, mx_error *err)
{
    const bert_checkpoint *r = rc->r;
    const model_config *mc = rc->mc;
    for (size_t i = 0; i < mc->n_tables; i++) {
        const char *name = mc->tables[i];
        int layer;
        if (!bert_param_name(name, &layer))
            continue;
        char full[160];
        full_name(full, sizeof full, r, name);
        const st_tensor *st = safetensors_find(&r->model.st, full);
        const float *v;
        float *owned;
        if (st == NULL ||
            safetensors_floats(&v, &owned, &r->model.st, st, err) != 0)
            return -1;
        const size_t rows = st->ndim == 2 ? st->shape[0] : 1;
        const size_t cols = st->ndim == 2 ? st->shape[1] : st->shape[0];
        const bool embedding = strstr(name, "_embeddings.") != NULL;
        const char *last = strrchr(name, '.') + 1;
        const labels *rl =
            st->ndim != 2 ? trace_literal_label(rc->tr, last, err)
            : embedding   ? trace_index_labels(rc->tr, "id", rows, err)
                          : trace_index_labels(rc->tr, "out", rows, err);
        const labels *cl = trace_index_labels(
            rc->tr, embedding || st->ndim != 2 ? "dim" : "in", cols, err);
        const variant_id where = layer >= 0 ? VARIANT_ID_BLOCK
                                 : strncmp(name, "embeddings.", 11) == 0
                                     ? VARIANT_INPUT
                                     : VARIANT_MODEL;
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

/* The k best words of one row of probabilities p (V): the larger
 * probability first, then the smaller id. */
static size_t top_k(size_t best[MASK_TOP_K], const float *p, size_t V)
{
    size_t n = 0;
    for (size_t v = 0; v < V; v++) {
        size_t at = n;
        while (at > 0 && p[v] > p[best[at - 1]])
            at--;
        if (at >= MASK_TOP_K)
            continue;
        if (n < MASK_TOP_K)
            n++;
        memmove(best + at + 1, best + at, (n - 1 - at) * sizeof *best);
        best[at] = v;
    }
    return n;
}

/* Whether token t of the text is [MASK]; with none, every token is
 * shown. */
static bool shown_place(const bert_checkpoint *r, size_t t, bool any_mask)
{
    return !any_mask || strcmp(r->pieces[t], "[MASK]") == 0;
}

/* next_tokens (P·k x 1): at each [MASK] (each token when there is none),
 * the k likeliest words, "[MASK] → word", and their probabilities,
 * softmax over the logits. */
static int put_masked_words(recorder *rc, const matrix *logits, mx_error *err)
{
    const bert_checkpoint *r = rc->r;
    const size_t T = logits->rows, V = logits->cols, K = MASK_TOP_K;
    bool any_mask = false;
    for (size_t t = 0; t < T; t++)
        any_mask |= strcmp(r->pieces[t], "[MASK]") == 0;
    matrix probs = {0}, top = {0};
    char **names = calloc(T * K, sizeof *names);
    size_t rows = 0;
    int result = -1;
    if (names == NULL) {
        err_nomem(err, _("tokens"));
        goto out;
    }
    if (matrix_alloc(&probs, 1, V, N_("logits"), err) != 0 ||
        matrix_alloc(&top, T * K, 1, N_("logits"), err) != 0)
        goto out;
    for (size_t t = 0; t < T; t++) {
        if (!shown_place(r, t, any_mask))
            continue;
        const matrix row = {1, V, logits->v + t * V};
        softmax_rows(&probs, &row, 1.0f);
        size_t best[MASK_TOP_K];
        const size_t n = top_k(best, probs.v, V);
        for (size_t k = 0; k < n; k++) {
            char word[256], line[600];
            gpt2_tokenizer_label(word, sizeof word, r->tokenizer,
                                 (int32_t)best[k]);
            snprintf(line, sizeof line, "%s \u2192 %s", r->pieces[t], word);
            if ((names[rows] = strdup(line)) == NULL) {
                err_nomem(err, _("tokens"));
                goto out;
            }
            top.v[rows++] = probs.v[best[k]];
        }
    }
    top.rows = rows;
    const labels *rl =
        trace_word_labels(rc->tr, "", (const char *const *)names, rows, err);
    const labels *col = trace_literal_label(rc->tr, "probability", err);
    if (rl != NULL && col != NULL)
        result = put(rc, VARIANT_MODEL, 0, NO_HEAD, TABLE_NEXT_TOKENS, rl, col,
                     &top, err);
out:
    if (names != NULL)
        for (size_t i = 0; i < T * K; i++)
            free(names[i]);
    free(names);
    matrix_free(&probs);
    matrix_free(&top);
    return result;
}

/* The rows and columns of table id. */
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

/* The recorder of the forward pass's hook points: each table of a shown
 * layer and head copied into the trace under its key, a layer's output
 * (the block's "out") as its "hidden"; attn_entropy goes before out,
 * next_tokens after the logits. */
static int record(void *ctx, const table_key *at, const matrix *m,
                  mx_error *err)
{
    recorder *rc = ctx;
    const bert_checkpoint *r = rc->r;
    const bool layer = at->variant == VARIANT_ID_BLOCK;
    if (at->id == TABLE_ATTN_WEIGHTS)
        *matrix_at(&rc->entropy, (size_t)at->layer, (size_t)at->head) =
            attn_mean_entropy(m);
    if ((layer && !r->layers[at->layer]) ||
        (at->head != NO_HEAD && !r->heads[at->head]))
        return 0;
    const table_id id = layer && at->id == TABLE_OUT ? TABLE_HIDDEN : at->id;
    if (!layer && id == TABLE_OUT) {
        const table_key key = {VARIANT_MODEL, 0, NO_HEAD, TABLE_ATTN_ENTROPY,
                               false};
        if (attn_entropy_record(rc->tr, &key, "layer.", &rc->entropy, err) ==
            NULL)
            return -1;
    }
    const labels *rows, *cols;
    table_labels(&rows, &cols, rc, id);
    if ((id != TABLE_LOGITS || rc->mc->logits) &&
        put(rc, at->variant, at->layer, at->head, id, rows, cols, m, err) != 0)
        return -1;
    if (id == TABLE_LOGITS)
        return put_masked_words(rc, m, err);
    return layer && id == TABLE_HIDDEN ? trace_flush(rc->tr, err) : 0;
}

static int forward(recorder *rec, workers *pool, mx_error *err)
{
    trace *tr = rec->tr;
    const bert_checkpoint *r = rec->r;
    const labels *id = trace_literal_label(tr, "id", err);
    if (!(rec->tokens && rec->queries && rec->keys && rec->values &&
          rec->dims && rec->ffn_dims && rec->head_dims && rec->vocab && id))
        return -1;
    const table_key key = {VARIANT_INPUT, 0, NO_HEAD, TABLE_TOKENS, false};
    table *ids = trace_new(tr, &key, rec->tokens, id, err);
    if (ids == NULL)
        return -1;
    ids->integral = true;
    for (size_t i = 0; i < r->T; i++)
        ids->values.v[i] = (float)r->ids[i];
    trace_release(tr, ids);
    if (put_params(rec, err) != 0)
        return -1;
    matrix out = {0};
    const forward_hooks hooks = {.record = record, .ctx = rec};
    const bert_run run = {&hooks, true, pool};
    const int rc =
        bert_forward(&out, &r->model, r->ids, r->types, r->T, &run, err);
    matrix_free(&out);
    return rc == 0 ? trace_flush(tr, err) : -1;
}

int bert_trace_run(trace *tr, const model_config *mc, const model_input *in,
                   mx_error *err)
{
    bert_checkpoint r;
    if (run_open(&r, mc, in, err) != 0)
        return -1;
    const double values = run_values(&r, mc);
    if (values > (double)MAX_TRACE_VALUES) {
        run_free(&r);
        return err_input(
            err,
            _("the run would hold about %.0f million values (at most %zu million): use fewer tokens, or --layers and --show-heads"),
            values / 1e6, MAX_TRACE_VALUES / 1000000);
    }
    const bert_config *c = &r.model.cfg;
    workers *pool = NULL;
    const size_t threads = mc->threads != 0 ? mc->threads : workers_available();
    if (workers_init(&pool, threads, err) != 0) {
        run_free(&r);
        return -1;
    }
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
    const char *const *words = (const char *const *)r.pieces;
    recorder rec = {.tr = tr, .r = &r, .mc = mc};
    int rc = matrix_alloc(&rec.entropy, c->n_layer, c->n_head,
                          N_("attention weights"), err);
    if (rc == 0) {
        rec.tokens = trace_word_labels(tr, "", words, r.T, err);
        rec.queries = trace_word_labels(tr, "Q:", words, r.T, err);
        rec.keys = trace_word_labels(tr, "K:", words, r.T, err);
        rec.values = trace_word_labels(tr, "V:", words, r.T, err);
        rec.dims = trace_index_labels(tr, "dim", c->d, err);
        rec.ffn_dims = trace_index_labels(tr, "dim", c->n_inner, err);
        rec.head_dims = trace_index_labels(tr, "dim", c->d / c->n_head, err);
        rec.vocab = mc->logits && r.model.has_mlm
                        ? trace_index_labels(tr, "id", c->vocab_size, err)
                        : rec.dims;
        rc = forward(&rec, pool, err);
    }
    matrix_free(&rec.entropy);
    workers_free(pool);
    run_free(&r);
    return rc;
}
