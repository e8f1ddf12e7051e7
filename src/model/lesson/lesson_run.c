/* lesson_run.c: tokens -> embeddings -> attention variants -> trace, for
 * the lesson's family (lesson_run.h); the tokens are lesson_tokens.c's,
 * which tables a run makes lesson_tables.c's. */
#include "model/lesson/lesson_run.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/i18n.h"
#include "model/lesson/draws.h"
#include "model/lesson/lesson_ablate.h"
#include "model/lesson/lesson_size.h"
#include "model/lesson/lesson_tokens.h"
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

/* A variant's module in *m (variant_module_new), built as its row says
 * from a copy of the generator at start, then its --weights files read
 * over the drawn parameters; *after (when not NULL) is the generator
 * after the construction. cfg and dims are the run's. The caller frees
 * *m with variant_module_free, whether this fails or not. */
static int make_module(void **m, torch_rng *after, variant_id id,
                       const run_request *rq, const attention_config *cfg,
                       const model_dims *dims, const torch_rng *start,
                       mx_error *err)
{
    const variant_row *row = variant_row_of(id);
    const attention_config acfg = variant_attention(row, cfg);
    const model_dims module = variant_dims(row, dims);
    torch_rng g = *start;
    if ((*m = variant_module_new(id, err)) == NULL ||
        row->init(*m, &acfg, &module, &g, err) != 0)
        return -1;
    if (after != NULL)
        *after = g;
    if (rq->weights == NULL)
        return 0;
    return weights_load(variant_by_id(id)->bit, dims, *m, rq->weights,
                        &rq->weights_style, err);
}

/* Records module m's parameters as tables of the variant, in state_dict()
 * order. */
static int record_params(trace *tr, variant_id id, void *m,
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
    void *m = NULL, *heads = NULL;
    if (make_module(&m, &drop, id, rq, &with_sum, &dims, start, err) == 0 &&
        (!tie || make_module(&heads, NULL, row->tie_from, rq, &with_sum, &dims,
                             start, err) == 0)) {
        if (forward != NULL)
            drop = *forward;
        if (tie)
            row->tie(m, heads);
        // --ablate without an lm_head: this variant's heads switched off
        forward_hooks hk;
        replace_hook *own = NULL;
        if (record_params(tr, id, m, &dims, err) == 0 &&
            lesson_ablate_hooks(&hk, &own, rq, id, err) == 0) {
            attention_config acfg = variant_attention(row, &with_sum);
            acfg.hooks = hk.replace != NULL ? &hk : acfg.hooks;
            rc = row->forward(tr, m, &acfg, x, lab, err);
        }
        free(own);
    }
    if (tie)
        variant_module_free(row->tie_from, heads);
    variant_module_free(id, m);
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
    // --tie reads the files of the module the fused one takes its heads
    // from (its row's tie_from: the wrapper's) too
    const unsigned read =
        rq->variants | (rq->tie ? variants_tied_from(rq->variants) : 0u);
    torch_rng start;
    rng_seed(&start, rq->seed);
    int rc = 0;
    for (size_t i = 0; i < MODEL_N_VARIANTS && rc == 0; i++) {
        const variant_info *v = &model_variants[i];
        if (!(read & v->bit))
            continue;
        void *m = NULL;
        rc = make_module(&m, NULL, v->id, rq, &cfg, &dims, &start, err);
        variant_module_free(v->id, m);
    }
    return rc;
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
    void *m = variant_module_new(v, err);
    const int rc = m != NULL ? row->init(m, &acfg, &module, g, err) : -1;
    variant_module_free(v, m);
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

/* The error of a variant's pos_embedding.weight file of n rows where the
 * folder's model.json says "positions" is another number. */
static int positions_differ(const run_request *rq, variant_id v, size_t n,
                            mx_error *err)
{
    return err_input(err,
                     _("%s/%s: the field 'positions' is %zu, but %s.%s.csv "
                       "has %zu rows (one per position)"),
                     rq->weights->dir, MANIFEST_NAME,
                     rq->weights->manifest.positions, variant_id_name(v),
                     table_info_of(TABLE_POS_EMBEDDING)->name, n);
}

/* With --weights of a trained run with positions, *C is the number of
 * positions it learned (its pos_embedding.weight's rows), which the
 * sentence's T tokens must not pass; otherwise *C stays. A folder with
 * model.json has as many rows in each variant's file as its
 * "positions" says. */
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
        const trained_manifest *saved = &rq->weights->manifest;
        if (saved->present && n != saved->positions)
            return positions_differ(rq, model_variants[i].id, n, err);
        if (T > n)
            return err_input(err,
                             _("the sentence has %zu tokens, more than the "
                               "%zu positions of the trained "
                               "pos_embedding.weight"),
                             T, n);
        *C = n;
        if (!saved->present) // the first file decides; with model.json,
            return 0;        // each is checked against it
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
        return err_detail_set(err, RUN_GENERATE_UNTRAINED, 0, 0, 0);
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
        .cross = in->kv != NULL,
        .tied = rq->tie,
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
    tr->model.trained_context = trained_context(rq, &s.data);
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
