/* lesson_run.c: tokens -> embeddings -> attention variants -> trace, for
 * the lesson's family (lesson_run.h). */
#include "model/lesson/lesson_run.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/i18n.h"
#include "model/lesson/draws.h"
#include "model/lesson/lesson_ablate.h"
#include "model/lesson/lesson_size.h"
#include "model/lesson/trained.h"
#include "model/lesson/variants.h"
#include "model/lesson/weights.h"
#include "numerics/rng.h"
#include "numerics/workers.h"

/* Adds a column of ids (the vocab or tokens table): ids[i], or i when ids
 * is NULL. */
static int record_ids(trace *tr, table_id name, const labels *rows,
                      const size_t *ids, mx_error *err)
{
    const table_key key = {VARIANT_INPUT, 0, NO_HEAD, name, false};
    const labels *id = trace_literal_label(tr, "id", err);
    table *t = id == NULL ? NULL : trace_new(tr, &key, rows, id, err);
    if (t == NULL)
        return -1;
    t->integral = true;
    for (size_t i = 0; i < rows->n; i++)
        t->values.v[i] = ids != NULL ? (float)ids[i] : (float)i;
    return 0;
}

/* A variant's module in m (a zeroed module_room), built as its row says
 * from a copy of the generator at start, then its --weights files read
 * over the drawn parameters; *after (when not NULL) is the generator
 * after the construction. cfg and dims are the run's. The caller frees
 * it with the row's free, whether this fails or not. */
static int make_module(module_room *m, torch_rng *after, variant_id id,
                       const run_request *rq, const attention_config *cfg,
                       const model_dims *dims, const torch_rng *start,
                       mx_error *err)
{
    const variant_row *row = variant_row_of(id);
    const attention_config acfg = variant_attention(row, cfg);
    const model_dims module = variant_dims(row, dims);
    torch_rng g = *start;
    if (row->init(m, &acfg, &module, &g, err) != 0)
        return -1;
    if (after != NULL)
        *after = g;
    if (rq->weights == NULL)
        return 0;
    return weights_load(variant_by_id(id)->bit, dims, m, rq->weights,
                        &rq->weights_style, err);
}

/* Records module m's parameters as tables of the variant, in state_dict()
 * order. */
static int record_params(trace *tr, variant_id id, module_room *m,
                         const model_dims *dims, mx_error *err)
{
    param_recorder rec = {tr, id, err, false};
    return model_params_each(variant_by_id(id)->bit, dims, m, record_param,
                             &rec);
}

/* Runs one variant from a copy of the generator at start (after the
 * input's draws, or as --draw's plan says): parameters drawn, replaced by
 * --weights files, recorded, then the forward pass, whose dropout masks
 * are drawn from forward (NULL: from the generator as the construction
 * left it). */
static int run_variant(trace *tr, variant_id id, const run_request *rq,
                       const attention_config *cfg, const torch_rng *start,
                       const torch_rng *forward, const attention_input *x,
                       const sequence_labels *lab, mx_error *err)
{
    const variant_row *row = variant_row_of(id);
    const model_dims dims = lesson_dims(&rq->model, cfg->d_model);
    int rc = -1;
    // --average: the heads' weights summed as they are made
    mean_stream sum = {0};
    attention_config with_sum = *cfg;
    if (lesson_averages(rq, variant_by_id(id))) {
        if (mean_stream_init(&sum, cfg->heads, x->x->rows * x->kv->rows, err) !=
            0) {
            mean_stream_free(&sum);
            return -1;
        }
        with_sum.average = &sum;
    }
    // --tie, the one variant that takes another's parameters: the fused
    // module takes the wrapper's heads, drawn and read as the wrapper's
    // own run makes them
    const bool tie = rq->tie && row->tie != NULL;
    // the dropout this variant has, and where its masks start
    torch_rng drop;
    if (lesson_drops_outputs(id))
        with_sum.attn_dropout = 0;
    else
        with_sum.dropout = 0;
    with_sum.dropout_rng = &drop;
    module_room m = {0}, heads = {0};
    if (make_module(&m, &drop, id, rq, &with_sum, &dims, start, err) == 0 &&
        (!tie || make_module(&heads, NULL, row->tie_from, rq, &with_sum, &dims,
                             start, err) == 0)) {
        if (forward != NULL)
            drop = *forward;
        if (tie)
            row->tie(&m, &heads);
        // --ablate without an lm_head: this variant's heads switched off
        forward_hooks hk;
        replace_hook *own = NULL;
        if (record_params(tr, id, &m, &dims, err) == 0 &&
            lesson_ablate_hooks(&hk, &own, rq, id, err) == 0) {
            attention_config acfg = variant_attention(row, &with_sum);
            acfg.hooks = hk.replace != NULL ? &hk : acfg.hooks;
            rc = row->forward(tr, &m, &acfg, x, lab, err);
        }
        free(own);
    }
    if (tie)
        variant_row_of(row->tie_from)->free(&heads);
    row->free(&m);
    if (rc == 0 && with_sum.average != NULL)
        rc = record_average(tr, id, with_sum.average, cfg->hooks, err);
    mean_stream_free(&sum);
    return rc == 0 ? trace_flush(tr, err) : rc;
}

/* Before a streamed run writes anything: every variant's --weights files
 * read into freshly made parameters (then freed), so that a bad file
 * stops the run before the first table goes out, as in a run that keeps
 * its trace. */
static int check_weights(const run_request *rq, size_t D, mx_error *err)
{
    const attention_config cfg = {
        .d_model = D,
        .d_out = rq->model.d_out,
        .heads = rq->model.heads,
        .qkv_bias = rq->model.qkv_bias,
    };
    const model_dims dims = lesson_dims(&rq->model, D);
    // --tie reads the wrapper's files for the fused module too
    const unsigned read = rq->variants | (rq->tie ? VARIANT_WRAPPER : 0u);
    torch_rng start;
    rng_seed(&start, rq->seed);
    int rc = 0;
    for (size_t i = 0; i < MODEL_N_VARIANTS && rc == 0; i++) {
        const variant_info *v = &model_variants[i];
        if (!(read & v->bit))
            continue;
        module_room m = {0};
        rc = make_module(&m, NULL, v->id, rq, &cfg, &dims, &start, err);
        variant_row_of(v->id)->free(&m);
    }
    return rc;
}

/* Tokens of the input: the sentence split, or the embeddings' labels.
 * With --kv, the two sentences one after the other (so the vocabulary is
 * the sentence's words, then the other's new words), and *n_queries says
 * how many of the tokens are the sentence's. */
static int input_tokens(tokenized *tok, size_t *n_queries,
                        const model_input *in, enum token_mode mode,
                        const token_rules *rules, mx_error *err)
{
    if (in->embeddings != NULL) {
        *n_queries = in->embeddings->rows;
        return tokenize_words(tok, in->words, in->embeddings->rows, err);
    }
    if (tokenize_with(tok, in->sentence, in->len, mode, rules, err) != 0)
        return -1;
    *n_queries = tok->n_tokens;
    if (in->kv == NULL)
        return 0;

    tokenized other = {0};
    if (tokenize_with(&other, in->kv, strlen(in->kv), mode, rules, err) != 0) {
        char why[sizeof err->msg];
        snprintf(why, sizeof why, "%s", err->msg);
        tokenized_free(tok);
        return err_input(err, _("--kv: %s"), why);
    }
    const size_t n_other = other.n_tokens;
    tokenized_free(&other);
    if (*n_queries + n_other > MAX_TOKENS) {
        tokenized_free(tok);
        return err_input(err,
                         _("the sentence and --kv have %zu tokens together, "
                           "more than %d"),
                         *n_queries + n_other, MAX_TOKENS);
    }
    size_t n = in->len + 1 + strlen(in->kv);
    char *both = malloc(n + 1);
    tokenized_free(tok);
    if (both == NULL)
        return err_nomem(err, _("the sentences"));
    snprintf(both, n + 1, "%.*s %s", (int)in->len, in->sentence, in->kv);
    int rc = tokenize_with(tok, both, n, mode, rules, err);
    free(both);
    return rc;
}

/* The run's tokens (input_tokens); a trained run's (--train) from
 * training_tokens, its sentences in *data (freed by the caller) or, with
 * data NULL, freed here. */
int lesson_run_tokens(tokenized *tok, size_t *n_queries, train_data *data,
                      const run_request *rq, const model_input *in,
                      mx_error *err)
{
    if (!rq->train)
        return input_tokens(tok, n_queries, in, rq->tokens, &rq->rules, err);
    train_data own = {0};
    // --weights of a trained run: its vocabulary, the rows of the first
    // embedding.weight file of the run's variants
    char **vocab = NULL;
    size_t n_vocab = 0;
    matrix rows = {0};
    int found = 0;
    // a trained model's folder with model.json: its vocabulary, which
    // every variant's embedding and lm_head rows must follow
    const trained_manifest *saved =
        rq->weights != NULL && rq->weights->manifest.present
            ? &rq->weights->manifest
            : NULL;
    for (size_t i = 0;
         i < MODEL_N_VARIANTS && rq->weights != NULL && !found && !saved; i++)
        if ((rq->variants & model_variants[i].bit) &&
            (found = weights_read_table(&vocab, &n_vocab, &rows, rq->weights,
                                        model_variants[i].id, TABLE_EMBEDDING,
                                        &rq->weights_style, TRAINED_MAX_WIDTH,
                                        err)) < 0)
            return -1;
    matrix_free(&rows);
    const int rc = training_tokens(
        tok, data != NULL ? data : &own, in, rq,
        (const char *const *)(saved != NULL ? saved->vocab : vocab),
        saved != NULL ? saved->n_vocab : n_vocab, err);
    for (size_t i = 0; i < n_vocab; i++)
        free(vocab[i]);
    free(vocab);
    if (rc != 0)
        return -1;
    if (data == NULL) {
        // the vocabulary's words go with own: its size stays
        free(tok->vocab);
        tok->vocab = NULL;
        train_data_free(&own);
    }
    *n_queries = tok->n_tokens;
    return 0;
}

/* Rows ids[0..n) of the embedding table, or of the given embeddings,
 * into a new input table (n, D); with positions (--positions), row r of
 * them added to row r. */
static const matrix *record_inputs(trace *tr, table_id name, const labels *rows,
                                   const labels *dims, const matrix *embedding,
                                   const size_t *ids, const matrix *given,
                                   const matrix *positions,
                                   const forward_hooks *hk, mx_error *err)
{
    const table_key key = {VARIANT_INPUT, 0, NO_HEAD, name, false};
    table *t = trace_new(tr, &key, rows, dims, err);
    if (t == NULL)
        return NULL;
    const size_t D = t->values.cols;
    for (size_t r = 0; r < rows->n; r++)
        // inputs = emb(token_ids): row ids[r] of the table; or row r of
        // the file
        memcpy(matrix_at(&t->values, r, 0),
               given != NULL ? matrix_at(given, r, 0)
                             : matrix_at(embedding, ids[r], 0),
               D * sizeof(float));
    // x = emb(ids) + pos(arange(T))
    for (size_t r = 0; positions != NULL && r < rows->n; r++)
        for (size_t d = 0; d < D; d++)
            *matrix_at(&t->values, r, d) += *matrix_at(positions, r, d);
    return hook_point(hk, &key, &t->values, err) == 0 ? &t->values : NULL;
}

/* What build_drawn builds a module with: the run's attention and sizes. */
typedef struct {
    const attention_config *cfg;
    const model_dims *dims;
} build_context;

/* A draw_order's build: module v constructed from g and freed. */
static int build_drawn(variant_id v, torch_rng *g, const void *ctx,
                       mx_error *err)
{
    const build_context *b = ctx;
    const variant_row *row = variant_row_of(v);
    const attention_config acfg = variant_attention(row, b->cfg);
    const model_dims module = variant_dims(row, b->dims);
    module_room m = {0};
    const int rc = row->init(&m, &acfg, &module, g, err);
    row->free(&m);
    return rc;
}

/* The Bernoulli draws of variant id's forward pass over T queries and S
 * keys and values: the block's two (B, T, D) masks with --dropout, the
 * modules' (B, H, T, S) masks with --attn-dropout (H = 1 in the single
 * head). */
static size_t forward_draws(const run_request *rq, const attention_config *cfg,
                            variant_id id, size_t T, size_t S)
{
    const size_t B = cfg->batch;
    if (lesson_drops_outputs(id)) // each block of a stack draws its two
        return rq->model.dropout > 0
                   ? 2 * B * T * cfg->d_model * lesson_blocks(&rq->model)
                   : 0;
    if (!(rq->model.attn_dropout > 0))
        return 0;
    const size_t H = variant_row_of(id)->heads == HEADS_ONE ? 1 : cfg->heads;
    return H * B * T * S;
}

/* With --weights of a trained run with positions, *C is the number of
 * positions it learned (its pos_embedding.weight's rows), which the
 * sentence's T tokens must not pass; otherwise *C stays. */
int lesson_trained_positions(size_t *C, const run_request *rq, size_t T,
                             mx_error *err)
{
    for (size_t i = 0; i < MODEL_N_VARIANTS && rq->weights != NULL; i++) {
        if (!(rq->variants & model_variants[i].bit))
            continue;
        char **rows = NULL;
        size_t n = 0;
        matrix m = {0};
        const int rc = weights_read_table(
            &rows, &n, &m, rq->weights, model_variants[i].id,
            TABLE_POS_EMBEDDING, &rq->weights_style, TRAINED_MAX_WIDTH, err);
        for (size_t r = 0; r < n; r++)
            free(rows[r]);
        free(rows);
        matrix_free(&m);
        if (rc < 0)
            return -1;
        if (rc == 0)
            continue;
        if (T > n)
            return err_input(err,
                             _("the sentence has %zu tokens, more than the "
                               "%zu positions of the trained "
                               "pos_embedding.weight"),
                             T, n);
        *C = n;
        return 0;
    }
    return 0;
}

/* --positions: pos = nn.Embedding(C, D) drawn from g into *pos: the
 * input table pos_embedding.weight, or (trained: each variant shows its
 * own) own, allocated here. */
static int draw_positions(const matrix **pos, matrix *own, trace *tr, size_t C,
                          const labels *dims, bool trained, torch_rng *g,
                          mx_error *err)
{
    matrix *values = own;
    if (trained) {
        if (matrix_alloc(own, C, dims->n, N_("the positions"), err) != 0)
            return -1;
    } else {
        const labels *rows = trace_index_labels(tr, "pos", C, err);
        const table_key key = {VARIANT_INPUT, 0, NO_HEAD, TABLE_POS_EMBEDDING,
                               false};
        table *t = rows == NULL ? NULL : trace_new(tr, &key, rows, dims, err);
        if (t == NULL)
            return -1;
        values = &t->values;
    }
    rng_normal_fill(values->v, C * dims->n, 0.0, 1.0, g);
    *pos = values;
    return 0;
}

/* What a run of the lesson's variants holds while it runs (run_free). */
typedef struct {
    tokenized tok;
    size_t T; /* the query tokens (then S key/value tokens) */
    workers *pool;
    matrix randn;          /* --randn-input: the batch (B x T, D) */
    draw_plan *plan;       /* --draw */
    train_data data;       /* --train: the sentences */
    matrix drawn;          /* --train: the embedding as drawn */
    matrix positions;      /* --positions: (C, D) */
    const labels *vocab;   /* the words of the vocabulary */
    const labels *dims;    /* dim0 .. dim(D-1) */
    const labels *kv_rows; /* --kv: the other sentence's words */
    sequence_labels lab;   /* tokens, Q:, K:, V: */
} lesson_state;

static void run_free(lesson_state *s)
{
    free(s->plan);
    matrix_free(&s->randn);
    matrix_free(&s->drawn);
    matrix_free(&s->positions);
    train_data_free(&s->data);
    workers_free(s->pool);
    tokenized_free(&s->tok);
}

/* The run's size checked, its --weights files read first when it
 * streams, its workers started; *batch: the heads it computes at once. */
static int run_start(lesson_state *s, size_t *batch, const trace *tr,
                     const run_request *rq, const model_input *in,
                     mx_error *err)
{
    double values;
    /* every product of the run is at most 2 x tokens x the values of its
     * whole trace in work: a run whose bound is below what threads share
     * (WORKERS_MIN_FLOPS) runs on one, without looking for processors and
     * control-group quotas (which costs a small run a tenth of its time) */
    const size_t C = rq->train ? s->data.context : s->tok.n_tokens;
    const double bound = 2.0 * (double)s->tok.n_tokens *
                         lesson_trace_size(rq, lesson_width(rq, in),
                                           s->tok.n_tokens, C, s->tok.n_vocab);
    const size_t threads = rq->threads != 0            ? rq->threads
                           : bound < WORKERS_MIN_FLOPS ? 1
                                                       : workers_available();
    if (lesson_check_size(&values, batch, rq, in, &s->tok, C, trace_streams(tr),
                          threads, err) != 0 ||
        (trace_streams(tr) && rq->weights != NULL &&
         check_weights(rq, lesson_width(rq, in), err) != 0))
        return -1;
    return workers_init(&s->pool, threads, err);
}

/* The run's label sets, and its input tables of ids: vocab, tokens and
 * with --kv kv_tokens. */
static int record_tokens(lesson_state *s, trace *tr, const model_input *in,
                         size_t D, mx_error *err)
{
    // T query tokens, then S key/value tokens (S = 0 for self-attention)
    const size_t T = s->T, S = s->tok.n_tokens - T, V = s->tok.n_vocab;
    const char *const *words = (const char *const *)s->tok.tokens;
    const char *const *kv_words = words + T;
    sequence_labels *lab = &s->lab;
    s->vocab =
        trace_word_labels(tr, "", (const char *const *)s->tok.vocab, V, err);
    s->dims = trace_index_labels(tr, "dim", D, err);
    s->kv_rows = trace_word_labels(tr, "", kv_words, S, err);
    lab->tokens = trace_word_labels(tr, "", words, T, err);
    lab->queries = trace_word_labels(tr, "Q:", words, T, err);
    lab->keys =
        trace_word_labels(tr, "K:", S ? kv_words : words, S ? S : T, err);
    lab->values =
        trace_word_labels(tr, "V:", S ? kv_words : words, S ? S : T, err);
    if (!s->vocab || !s->dims || !s->kv_rows || !lab->tokens || !lab->queries ||
        !lab->keys || !lab->values ||
        record_ids(tr, TABLE_VOCAB, s->vocab, NULL, err) ||
        record_ids(tr, TABLE_TOKENS, lab->tokens, s->tok.ids, err) ||
        (in->kv != NULL &&
         record_ids(tr, TABLE_KV_TOKENS, s->kv_rows, s->tok.ids + T, err)))
        return -1;
    return 0;
}

/* Where the input's draws go: torch.randn(B, T, D), or nn.Embedding(V,
 * D)'s table, or none (--embeddings). */
typedef struct {
    const matrix *embedding; /* the table looked up, or NULL */
    const matrix *given;     /* rows given (--embeddings, --randn-input) */
    float *draws;            /* the values drawn, n of them */
    size_t n;
} input_draws;

static int input_room(input_draws *d, lesson_state *s, trace *tr,
                      const run_request *rq, const model_input *in, size_t B,
                      size_t D, mx_error *err)
{
    const size_t T = s->T, V = s->tok.n_vocab;
    *d = (input_draws){NULL, in->embeddings, NULL, 0};
    if (rq->randn_input) {
        if (matrix_alloc(&s->randn, B * T, D, N_("the random input"), err) != 0)
            return -1;
        // element 0's rows come first
        *d = (input_draws){NULL, &s->randn, s->randn.v, B * T * D};
    } else if (in->embeddings == NULL && rq->train) {
        // each trained variant shows its own embedding (trained.h)
        if (matrix_alloc(&s->drawn, V, D, N_("the embedding"), err) != 0)
            return -1;
        *d = (input_draws){&s->drawn, NULL, s->drawn.v, V * D};
    } else if (in->embeddings == NULL) {
        // torch.manual_seed(seed); emb = nn.Embedding(V, D)
        const table_key key = {VARIANT_INPUT, 0, NO_HEAD, TABLE_EMBEDDING,
                               false};
        table *e = trace_new(tr, &key, s->vocab, s->dims, err);
        if (e == NULL)
            return -1;
        *d = (input_draws){&e->values, NULL, e->values.v, V * D};
    }
    return 0;
}

/* --draw: one generator through the order given, each module built and
 * each forward pass's draws counted from it (draws.h). */
static int plan_draws(lesson_state *s, const run_request *rq,
                      const attention_config *cfg, const input_draws *d,
                      torch_rng *g, mx_error *err)
{
    if ((s->plan = malloc(sizeof *s->plan)) == NULL)
        return err_nomem(err, _("the order of the draws"));
    const size_t S = s->tok.n_tokens - s->T;
    const model_dims run = lesson_dims(&rq->model, cfg->d_model);
    const build_context ctx = {cfg, &run};
    draw_order order = {.order = rq->draw,
                        .n = rq->n_draw,
                        .input = d->draws,
                        .input_n = d->n,
                        .build = build_drawn,
                        .ctx = &ctx};
    for (size_t i = 0; i < MODEL_N_VARIANTS; i++)
        order.forward_draws[model_variants[i].id] =
            forward_draws(rq, cfg, model_variants[i].id, s->T, S ? S : s->T);
    return draws_plan(s->plan, &order, g, err);
}

/* The input tables (inputs, and with --kv kv_inputs), then each chosen
 * variant run from the generator g (or --draw's plan). */
static int run_variants(trace *tr, lesson_state *s, const run_request *rq,
                        const model_input *in, const attention_config *cfg,
                        const input_draws *d, const matrix *pos,
                        const torch_rng *g, mx_error *err)
{
    // inputs (T, D), and with --kv kv_inputs (S, D)
    const matrix *inputs =
        record_inputs(tr, TABLE_INPUTS, s->lab.tokens, s->dims, d->embedding,
                      s->tok.ids, d->given, pos, cfg->hooks, err);
    const matrix *kv_inputs =
        inputs == NULL || in->kv == NULL
            ? inputs
            : record_inputs(tr, TABLE_KV_INPUTS, s->kv_rows, s->dims,
                            d->embedding, s->tok.ids + s->T, NULL, NULL,
                            cfg->hooks, err);
    if (kv_inputs == NULL)
        return -1;
    const attention_input x = {inputs, kv_inputs};
    const draw_plan *plan = s->plan;
    for (size_t i = 0; i < MODEL_N_VARIANTS; i++) {
        const variant_id v = model_variants[i].id;
        if ((rq->variants & model_variants[i].bit) &&
            run_variant(tr, v, rq, cfg, plan != NULL ? &plan->build[v] : g,
                        plan != NULL ? &plan->forward[v] : NULL, &x, &s->lab,
                        err) != 0)
            return -1;
    }
    return trace_flush(tr, err);
}

/* --generate: a lesson model has an lm_head once trained
 * (lesson_generate.h). */
static int check_generates(const run_request *rq, mx_error *err)
{
    if (rq->generate > 0 && !rq->train)
        return err_usage(err,
                         _("--generate: a lesson model has an lm_head only "
                           "once trained: it goes with --train N, a trained "
                           "--weights DIR, or --model DIR"));
    return 0;
}

int lesson_run(trace *tr, const run_request *rq, const model_input *in,
               mx_error *err)
{
    lesson_state s = {0};
    size_t batch = 0;
    if (check_generates(rq, err) != 0 ||
        lesson_run_tokens(&s.tok, &s.T, &s.data, rq, in, err) != 0)
        return -1;
    // a stack's tables name their block (model/lesson/stack.h): the
    // variant whose row stacks
    tr->stacked_variant = VARIANT_INPUT;
    for (size_t i = 0; rq->model.block_layers > 0 && i < MODEL_N_VARIANTS; i++)
        if (variant_row_of(model_variants[i].id)->stacks)
            tr->stacked_variant = model_variants[i].id;
    int rc = -1;
    const size_t D = lesson_width(rq, in);
    if (run_start(&s, &batch, tr, rq, in, err) != 0)
        goto done;
    // the model the run makes, as the renderers and the page show it
    const model_dims sizes = lesson_dims(&rq->model, D);
    tr->model = (trace_model){
        .d_model = D,
        .d_out = sizes.d_out,
        .heads = sizes.heads,
        .ff = sizes.ff,
        .layers = sizes.layers,
        .attn_only = sizes.attn_only,
        .causal = rq->model.causal && in->kv == NULL,
        .scale = rq->model.scale,
        .qkv_bias = sizes.qkv_bias,
        .positions = rq->model.positions,
        .dropout = rq->model.dropout,
        .attn_dropout = rq->model.attn_dropout,
    };
    const attention_config cfg = {
        .d_model = D,
        .d_out = rq->model.d_out,
        .heads = rq->model.heads,
        .causal = rq->model.causal && in->kv == NULL,
        .scale = rq->model.scale,
        .qkv_bias = rq->model.qkv_bias,
        .pool = s.pool,
        .heads_at_once = batch,
        .batch = rq->batch > 1 ? rq->batch : 1,
        .attn_dropout = rq->model.attn_dropout,
        .dropout = rq->model.dropout,
    };
    input_draws d;
    if (record_tokens(&s, tr, in, D, err) != 0 ||
        input_room(&d, &s, tr, rq, in, cfg.batch, D, err) != 0)
        goto done;
    torch_rng g;
    rng_seed(&g, rq->seed);
    if (rq->n_draw == 0)
        // each variant its own notebook: the input drawn first
        rng_normal_fill(d.draws, d.n, 0.0, 1.0, &g);
    // --positions: pos = nn.Embedding(C, D), right after the embedding
    const matrix *pos = NULL;
    size_t contexts = rq->train ? s.data.context : s.T;
    if (rq->model.positions &&
        (lesson_trained_positions(&contexts, rq, s.T, err) != 0 ||
         draw_positions(&pos, &s.positions, tr, contexts, s.dims, rq->train, &g,
                        err) != 0))
        goto done;
    if (rq->n_draw != 0 && plan_draws(&s, rq, &cfg, &d, &g, err) != 0)
        goto done;
    if (!rq->train) {
        rc = run_variants(tr, &s, rq, in, &cfg, &d, pos, &g, err);
        goto done;
    }
    // --train: each variant's notebook trained, then shown
    const trained_labels tlab = {s.vocab, s.dims, &s.lab};
    // every variant's --weights files read before a table goes out
    if (trace_streams(tr) && rq->weights != NULL &&
        trained_check_files(rq, &cfg, &g, d.embedding, pos, &tlab, err) != 0)
        goto done;
    for (size_t i = 0; i < MODEL_N_VARIANTS; i++)
        if ((rq->variants & model_variants[i].bit) &&
            trained_variant(tr, model_variants[i].id, rq, &cfg, &g, d.embedding,
                            pos, &s.data, s.tok.ids, &tlab, err) != 0)
            goto done;
    rc = trace_flush(tr, err);
done:
    run_free(&s);
    return rc;
}

/* A param_fn: stops the listing (returns 1) at the present parameter
 * whose name ctx (a const char *) points to. */
static int is_present_named(const param_info *p, void *ctx)
{
    const char *const *name = ctx;
    return p->present && strcmp(p->name, *name) == 0;
}

/* Whether the run makes the input table id (lesson_run). */
static bool makes_input(table_id id, const run_request *rq,
                        const model_input *in)
{
    switch (id) {
    case TABLE_KV_TOKENS:
    case TABLE_KV_INPUTS:
        return in->kv != NULL;
    case TABLE_EMBEDDING:
        return in->embeddings == NULL && !rq->randn_input;
    case TABLE_POS_EMBEDDING:
        return rq->model.positions;
    default:
        return true;
    }
}

/* Whether a trained run (--train) makes the table `name` besides the
 * tables of a run without training: lm_head.weight, logits, loss, and
 * with --grad the gradients of the parameters it makes. */
static bool trained_makes(const run_request *rq, const model_input *in,
                          const char *name)
{
    const size_t n = strlen(name), suffix = strlen(".grad");
    if (rq->grad && n > suffix && strcmp(name + n - suffix, ".grad") == 0) {
        char base[sizeof((table *)NULL)->param];
        if (n - suffix >= sizeof base)
            return false;
        memcpy(base, name, n - suffix);
        base[n - suffix] = '\0';
        run_request plain = *rq;
        plain.grad = false;
        // every table but the ids, the loss and the mean of the heads
        const table_id id = table_by_name(base, strlen(base));
        return id != TABLE_VOCAB && id != TABLE_TOKENS && id != TABLE_LOSS &&
               id != TABLE_ATTN_WEIGHTS_AVG &&
               lesson_makes_table(&plain, in, base);
    }
    const table_id id = table_by_name(name, n);
    return id == TABLE_LM_HEAD || id == TABLE_LOGITS ||
           id == TABLE_NEXT_TOKENS || id == TABLE_LOSS ||
           ((id == TABLE_GENERATED || id == TABLE_GENERATED_TOP) &&
            rq->generate > 0) ||
           ((id == TABLE_KV_CACHE_SIZE ||
             (id != TABLE_COUNT && (table_bit(id) & GENERATE_MAP_TABLES))) &&
            rq->generate > 0 && rq->kv_steps) ||
           ((id == TABLE_ATTN_WEIGHTS_STEPS || id == TABLE_HEAD_SCORES_STEPS) &&
            rq->checkpoints);
}

bool lesson_makes_table(const run_request *rq, const model_input *in,
                        const char *name)
{
    if (rq->train && trained_makes(rq, in, name))
        return true;
    const table_id id = table_by_name(name, strlen(name));
    if (id != TABLE_COUNT && table_info_of(id)->kind == KIND_INPUT)
        return makes_input(id, rq, in);
    const model_dims dims = {.heads = rq->model.heads,
                             .qkv_bias = rq->model.qkv_bias,
                             .layers = rq->model.block_layers,
                             .attn_only = rq->model.attn_only};
    // --attn-only: the block makes attn_out and out, none of these
    const table_set feed_forward = TABLE_BIT(ADD_NORM1) |
                                   TABLE_BIT(FFN_HIDDEN) | TABLE_BIT(FFN_OUT) |
                                   DROPOUT_TABLES;
    for (size_t i = 0; i < MODEL_N_VARIANTS; i++) {
        const variant_info *v = &model_variants[i];
        if (!(rq->variants & v->bit))
            continue;
        if (id == TABLE_COUNT) { /* a parameter's name, or no table's */
            if (model_params_each(v->bit, &dims, NULL, is_present_named,
                                  &name) != 0)
                return true;
            continue;
        }
        // every head's tables (the dropout's with --attn-dropout in the
        // modules that drop weights), and what the module makes once (the
        // block's masks with --dropout)
        const bool head_dropout =
            id == TABLE_DROPOUT_MASK || id == TABLE_ATTN_WEIGHTS_DROPPED;
        // (no lesson module has rotary positions)
        if (table_info_of(id)->kind == KIND_PER_HEAD &&
            (table_bit(id) & ROTARY_HEAD_TABLES) == 0 &&
            (!head_dropout ||
             (rq->model.attn_dropout > 0 && !lesson_drops_outputs(v->id))))
            return true;
        // a stack of blocks adds the model view (STACK_TABLES)
        const table_set stack =
            variant_row_of(v->id)->stacks && rq->model.block_layers > 0
                ? STACK_TABLES
                : 0;
        const table_set left_out = rq->model.attn_only ? feed_forward : 0;
        if (((v->tables | stack) & ~left_out & table_bit(id)) &&
            (id != TABLE_ATTN_WEIGHTS_AVG || lesson_averages(rq, v)) &&
            (!(DROPOUT_TABLES & table_bit(id)) || rq->model.dropout > 0))
            return true;
    }
    return false;
}

int lesson_tokens(tokenized *tok, size_t *n_queries, const run_request *rq,
                  const model_input *in, mx_error *err)
{
    return lesson_run_tokens(tok, n_queries, NULL, rq, in, err);
}

int lesson_check(double *values, const run_request *rq, const model_input *in,
                 bool streamed, mx_error *err)
{
    tokenized tok = {0};
    train_data data = {0}; /* --train: the sentences, for their lengths */
    size_t n_queries, batch;
    *values = 0;
    if (check_generates(rq, err) != 0)
        return -1;
    if (lesson_run_tokens(&tok, &n_queries, rq->train ? &data : NULL, rq, in,
                          err) != 0) {
        train_data_free(&data);
        return -1;
    }
    const size_t C = rq->train ? data.context : tok.n_tokens;
    int rc =
        lesson_check_size(values, &batch, rq, in, &tok, C, streamed, 1, err);
    tokenized_free(&tok);
    train_data_free(&data);
    return rc;
}
