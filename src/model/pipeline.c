/* pipeline.c: tokens -> embeddings -> attention variants -> trace. */
#include "model/pipeline.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/i18n.h"
#include "model/lesson/weights.h"
#include "model/lesson/draws.h"
#include "model/gpt2/gpt2_trace.h"
#include "model/tokenize.h"
#include "model/lesson/trained.h"
#include "model/lesson/variants.h"
#include "numerics/rng.h"
#include "numerics/workers.h"

/* A param_fn: adds a parameter's size, present or not (ctx: a double). */
static int add_param_size(const param_info *p, void *ctx)
{
    *(double *)ctx += (double)p->rows * (double)p->cols;
    return 0;
}

/* The model's sizes for a run of width D (d_model). */
static model_dims run_dims(const model_config *mc, size_t D)
{
    return (model_dims){
        .d_model = D,
        .d_out = mc->d_out,
        .heads = mc->heads,
        .ff = mc->ff ? mc->ff : 4 * D,
        .qkv_bias = mc->qkv_bias,
        .layers = mc->block_layers,
    };
}

/* Whether variant v makes attn_weights_avg in this run: with --average,
 * in a module whose tables include it (one of several heads). */
static bool averages(const model_config *mc, const variant_info *v)
{
    return mc->average && (v->tables & TABLE_BIT(ATTN_WEIGHTS_AVG));
}

/* Adds the parameters of the run's variants, present or not, to *n. */
static void add_params_size(double *n, const model_config *mc,
                            const model_dims *dims)
{
    for (size_t i = 0; i < MODEL_N_VARIANTS; i++)
        if (mc->variants & model_variants[i].bit)
            model_params_each(model_variants[i].bit, dims, NULL, add_param_size,
                              n);
}

/* The values of --randn-input's batch (B x T, D), held through the run. */
static double randn_size(const model_config *mc, double t, double d)
{
    return mc->randn_input ? (double)(mc->batch > 1 ? mc->batch : 1) * t * d
                           : 0;
}

/* The blocks of the block variant: --layers N stacks N, else one. */
static size_t block_count(const model_config *mc)
{
    return mc->block_layers > 0 ? mc->block_layers : 1;
}

/* Whether variant id's dropout is the block's, on its outputs
 * (--dropout), rather than the modules' on the weights (--attn-dropout). */
static bool drops_outputs(variant_id id)
{
    return (variant_by_id(id)->tables & DROPOUT_TABLES) != 0;
}

/* The dropout tables a variant adds: with --attn-dropout a mask and the
 * dropped weights (T, S) per head, with the block's --dropout a mask
 * (T, D) on each of its two outputs. */
typedef struct {
    double module;   /* the block's masks */
    double per_head; /* one head's mask and dropped weights */
} dropout_size;

static dropout_size dropout_tables(const model_config *mc,
                                   const variant_info *info, double t, double d)
{
    dropout_size n = {0, 0};
    if (drops_outputs(info->id))
        n.module = mc->dropout > 0 ? 2 * t * d * (double)block_count(mc) : 0;
    else
        n.per_head = mc->attn_dropout > 0 ? 2 * t * t : 0;
    return n;
}

/* --train: what a trained run holds besides a run's tables. Each
 * variant keeps its trained embedding, positions, parameters and lm_head
 * (p values), with --grad their gradients and the intermediates', its
 * logits (T, V), the losses and attn_weights_steps. While a variant
 * trains (one at a time) it holds besides: p for the parameters, p for
 * their gradients and (Adam) 2p for the running averages, lm_head packed
 * once more for the logits' product, the top's logits, log-probabilities,
 * their gradient and its transpose (4 x C x V), and the backward pass's
 * tape, about twice the variant's tables over C tokens. C is the longest
 * sentence trained on; T the shown sentence. */
static double training_size(const model_config *mc, const model_dims *dims,
                            double t, double c, double v, double d)
{
    if (!mc->train)
        return 0;
    const double copies = mc->training.optimizer == OPTIMIZER_ADAM ? 4.0 : 2.0;
    const double steps = (double)mc->training.steps + 1;
    const double shots = steps < TRAIN_CHECKPOINTS ? steps : TRAIN_CHECKPOINTS;
    double kept = 0, training = 0;
    for (size_t i = 0; i < MODEL_N_VARIANTS; i++) {
        const variant_info *info = &model_variants[i];
        if (!(mc->variants & info->bit))
            continue;
        const variant_row *row = variant_row_of(info->id);
        const model_dims module = variant_dims(row, dims);
        const double heads = row->heads == HEADS_ONE ? 1 : (double)module.heads;
        const double lm_head = v * (double)module.d_out;
        double params = v * d + lm_head + (mc->positions ? c * d : 0);
        model_params_each(info->bit, dims, NULL, add_param_size, &params);
        kept += (mc->grad ? 2 : 1) * params + t * v + steps +
                (mc->grad ? row->size(&module, t).tables : 0) +
                (mc->checkpoints ? shots * heads * t * t : 0);
        const double pass = copies * params + lm_head + 4 * c * v +
                            2 * row->size(&module, c).tables;
        if (pass > training)
            training = pass;
    }
    return kept + training;
}

/* About how many float values the whole trace of this run holds, counted
 * in double so that absurd sizes cannot overflow: T tokens shown, C the
 * longest sentence a trained run learns from (T without --train). */
static double trace_size(const model_config *mc, size_t D, size_t T, size_t C,
                         size_t V)
{
    const double t = (double)T, v = (double)V, d = (double)D;
    const model_dims dims = run_dims(mc, D);
    double n = v * d + t * d + v + t + randn_size(mc, t, d) +
               training_size(mc, &dims, t, (double)C, v, d);
    add_params_size(&n, mc, &dims);
    for (size_t i = 0; i < MODEL_N_VARIANTS; i++) {
        const variant_info *info = &model_variants[i];
        if (!(mc->variants & info->bit))
            continue;
        const variant_row *row = variant_row_of(info->id);
        const model_dims module = variant_dims(row, &dims);
        const dropout_size drop = dropout_tables(mc, info, t, d);
        const double heads = row->heads == HEADS_ONE ? 1 : (double)dims.heads;
        n += row->size(&module, t).tables + drop.module + heads * drop.per_head;
    }
    return n;
}

/* What a streamed run (trace.h) holds at its worst moment with b heads in
 * flight: about kept + work + b * per_head values. */
typedef struct {
    double kept;     /* tables kept to the end: the input tables, the
                        parameters, each variant's output */
    double work;     /* the most one variant's pass holds besides: Q, K, V
                        (fused, block), the heads' contexts, concat_context */
    double per_head; /* one head's queries, keys, values, scores, weights */
} stream_size;

static stream_size streamed_size(const model_config *mc, size_t D, size_t T,
                                 size_t C, size_t V)
{
    const double t = (double)T, v = (double)V, d = (double)D;
    const model_dims dims = run_dims(mc, D);
    stream_size n = {.kept = v * d + t * d + v + t + randn_size(mc, t, d) +
                             training_size(mc, &dims, t, (double)C, v, d)};
    add_params_size(&n.kept, mc, &dims);
    for (size_t i = 0; i < MODEL_N_VARIANTS; i++) {
        const variant_info *info = &model_variants[i];
        if (!(mc->variants & info->bit))
            continue;
        const variant_row *row = variant_row_of(info->id);
        const model_dims module = variant_dims(row, &dims);
        const variant_size s = row->size(&module, t);
        const dropout_size drop = dropout_tables(mc, info, t, d);
        // --average: the table, and while the heads run their sum and
        // head 0's scores
        const bool avg = averages(mc, info);
        n.kept += s.kept + drop.module + (avg ? 2 * t * t : 0);
        if (avg && s.work + t * t > n.work)
            n.work = s.work + t * t;
        if (s.work > n.work)
            n.work = s.work;
        const double head = 2 * t * t + 3 * t * s.head_width + drop.per_head;
        if (head > n.per_head)
            n.per_head = head;
    }
    return n;
}

/* The heads a streamed run computes at once: one per thread, fewer when
 * more would not fit MAX_TRACE_VALUES (at least one). */
static size_t heads_at_once(const stream_size *n, size_t threads)
{
    const double room = (double)MAX_TRACE_VALUES - n->kept - n->work;
    size_t b = 1;
    while (b < threads && (double)(b + 1) * n->per_head <= room)
        b++;
    return b;
}

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
                       const model_config *mc, const attention_config *cfg,
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
    if (mc->weights == NULL)
        return 0;
    return weights_load(variant_by_id(id)->bit, dims, m, mc->weights,
                        &mc->weights_style, err);
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
static int run_variant(trace *tr, variant_id id, const model_config *mc,
                       const attention_config *cfg, const torch_rng *start,
                       const torch_rng *forward, const attention_input *x,
                       const sequence_labels *lab, mx_error *err)
{
    const variant_row *row = variant_row_of(id);
    const model_dims dims = run_dims(mc, cfg->d_model);
    int rc = -1;
    // --average: the heads' weights summed as they are made
    mean_stream sum = {0};
    attention_config with_sum = *cfg;
    if (averages(mc, variant_by_id(id))) {
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
    const bool tie = mc->tie && row->tie != NULL;
    // the dropout this variant has, and where its masks start
    torch_rng drop;
    if (drops_outputs(id))
        with_sum.attn_dropout = 0;
    else
        with_sum.dropout = 0;
    with_sum.dropout_rng = &drop;
    module_room m = {0}, heads = {0};
    if (make_module(&m, &drop, id, mc, &with_sum, &dims, start, err) == 0 &&
        (!tie || make_module(&heads, NULL, VARIANT_ID_WRAPPER, mc, &with_sum,
                             &dims, start, err) == 0)) {
        if (forward != NULL)
            drop = *forward;
        if (tie)
            row->tie(&m, &heads);
        if (record_params(tr, id, &m, &dims, err) == 0) {
            const attention_config acfg = variant_attention(row, &with_sum);
            rc = row->forward(tr, &m, &acfg, x, lab, err);
        }
    }
    if (tie)
        variant_row_of(VARIANT_ID_WRAPPER)->free(&heads);
    row->free(&m);
    if (rc == 0 && with_sum.average != NULL)
        rc = record_average(tr, id, with_sum.average, err);
    mean_stream_free(&sum);
    return rc == 0 ? trace_flush(tr, err) : rc;
}

/* Before a streamed run writes anything: every variant's --weights files
 * read into freshly made parameters (then freed), so that a bad file
 * stops the run before the first table goes out, as in a run that keeps
 * its trace. */
static int check_weights(const model_config *mc, size_t D, mx_error *err)
{
    const attention_config cfg = {
        .d_model = D,
        .d_out = mc->d_out,
        .heads = mc->heads,
        .qkv_bias = mc->qkv_bias,
    };
    const model_dims dims = run_dims(mc, D);
    // --tie reads the wrapper's files for the fused module too
    const unsigned read = mc->variants | (mc->tie ? VARIANT_WRAPPER : 0u);
    torch_rng start;
    rng_seed(&start, mc->seed);
    int rc = 0;
    for (size_t i = 0; i < MODEL_N_VARIANTS && rc == 0; i++) {
        const variant_info *v = &model_variants[i];
        if (!(read & v->bit))
            continue;
        module_room m = {0};
        rc = make_module(&m, NULL, v->id, mc, &cfg, &dims, &start, err);
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
static int run_tokens(tokenized *tok, size_t *n_queries, train_data *data,
                      const model_config *mc, const model_input *in,
                      mx_error *err)
{
    if (!mc->train)
        return input_tokens(tok, n_queries, in, mc->tokens, &mc->rules, err);
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
        mc->weights != NULL && mc->weights->manifest.present
            ? &mc->weights->manifest
            : NULL;
    for (size_t i = 0;
         i < MODEL_N_VARIANTS && mc->weights != NULL && !found && !saved; i++)
        if ((mc->variants & model_variants[i].bit) &&
            (found = weights_read_table(&vocab, &n_vocab, &rows, mc->weights,
                                        model_variants[i].id, TABLE_EMBEDDING,
                                        &mc->weights_style, TRAINED_MAX_WIDTH,
                                        err)) < 0)
            return -1;
    matrix_free(&rows);
    const int rc = training_tokens(
        tok, data != NULL ? data : &own, in, mc,
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

/* The model width: --d-model, or the embeddings' width. */
static size_t model_width(const model_config *mc, const model_input *in)
{
    return in->embeddings != NULL ? in->embeddings->cols : mc->d_model;
}

/* Whether the run has a variant whose attention is d_model wide (the
 * block's), whose heads must then divide d_model. */
static bool runs_d_model_wide(const model_config *mc)
{
    for (size_t i = 0; i < MODEL_N_VARIANTS; i++)
        if ((mc->variants & model_variants[i].bit) &&
            variant_row_of(model_variants[i].id)->d_model_wide)
            return true;
    return false;
}

/* The run fits the limits; *values is the size of its whole trace. C is
 * the longest sentence trained on (--train; else the tokens). A
 * streamed run (trace.h) is held to what it holds at once with one head
 * in flight; *batch is how many heads it may then compute at once on
 * `threads` threads. */
static int check_size(double *values, size_t *batch, const model_config *mc,
                      const model_input *in, const tokenized *tok, size_t C,
                      bool streamed, size_t threads, mx_error *err)
{
    const size_t D = model_width(mc, in);
    if (in->embeddings != NULL && mc->d_model_given && mc->d_model != D)
        return err_usage(err,
                         ngettext("--d-model %zu: the embeddings have %zu "
                                  "column (d_model is taken from the file)",
                                  "--d-model %zu: the embeddings have %zu "
                                  "columns (d_model is taken from the file)",
                                  D),
                         mc->d_model, D);
    if (runs_d_model_wide(mc) && D % mc->heads != 0)
        return err_usage(err,
                         _("--heads: %zu heads do not divide --d-model %zu "
                           "(the block's attention is d_model wide: each "
                           "head needs d_model / heads columns)"),
                         mc->heads, D);
    const double whole = trace_size(mc, D, tok->n_tokens, C, tok->n_vocab);
    const stream_size part =
        streamed_size(mc, D, tok->n_tokens, C, tok->n_vocab);
    const double least = part.kept + part.work + part.per_head;
    const double max = (double)MAX_TRACE_VALUES;
    *values = whole;
    *batch = streamed ? heads_at_once(&part, threads) : 0;
    if (streamed ? least > max : whole > max && least > max)
        return err_input(err,
                         _("the run would hold about %.0f million values (at "
                           "most %zu million): use fewer tokens, heads or "
                           "variants, or smaller widths"),
                         (streamed ? least : whole) / 1e6,
                         MAX_TRACE_VALUES / 1000000);
    if (whole > max && !streamed)
        return err_input(err,
                         _("the run would hold about %.0f million values (at "
                           "most %zu million) with every table kept to the "
                           "end, as --html, --plot and --layout grid "
                           "need: without them the "
                           "tables go out as they are made and it fits"),
                         whole / 1e6, MAX_TRACE_VALUES / 1000000);
    return 0;
}

int pipeline_tokens(tokenized *tok, size_t *n_queries, const model_config *mc,
                    const model_input *in, mx_error *err)
{
    if (mc->model != NULL)
        return gpt2_trace_tokens(tok, n_queries, mc, in, err);
    return run_tokens(tok, n_queries, NULL, mc, in, err);
}

int pipeline_check(double *values, const model_config *mc,
                   const model_input *in, bool streamed, mx_error *err)
{
    tokenized tok = {0};
    train_data data = {0}; /* --train: the sentences, for their lengths */
    size_t n_queries, batch;
    *values = 0;
    if (mc->model != NULL)
        return gpt2_trace_check(values, mc, in, err);
    if (run_tokens(&tok, &n_queries, mc->train ? &data : NULL, mc, in, err) !=
        0) {
        train_data_free(&data);
        return -1;
    }
    const size_t C = mc->train ? data.context : tok.n_tokens;
    int rc = check_size(values, &batch, mc, in, &tok, C, streamed, 1, err);
    tokenized_free(&tok);
    train_data_free(&data);
    return rc;
}

/* Rows ids[0..n) of the embedding table, or of the given embeddings,
 * into a new input table (n, D); with positions (--positions), row r of
 * them added to row r. */
static const matrix *record_inputs(trace *tr, table_id name, const labels *rows,
                                   const labels *dims, const matrix *embedding,
                                   const size_t *ids, const matrix *given,
                                   const matrix *positions, mx_error *err)
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
    return &t->values;
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
static size_t forward_draws(const model_config *mc, const attention_config *cfg,
                            variant_id id, size_t T, size_t S)
{
    const size_t B = cfg->batch;
    if (drops_outputs(id)) // each block of a stack draws its two
        return mc->dropout > 0 ? 2 * B * T * cfg->d_model * block_count(mc) : 0;
    if (!(mc->attn_dropout > 0))
        return 0;
    const size_t H = variant_row_of(id)->heads == HEADS_ONE ? 1 : cfg->heads;
    return H * B * T * S;
}

/* With --weights of a trained run with positions, *C is the number of
 * positions it learned (its pos_embedding.weight's rows), which the
 * sentence's T tokens must not pass; otherwise *C stays. */
static int trained_positions(size_t *C, const model_config *mc, size_t T,
                             mx_error *err)
{
    for (size_t i = 0; i < MODEL_N_VARIANTS && mc->weights != NULL; i++) {
        if (!(mc->variants & model_variants[i].bit))
            continue;
        char **rows = NULL;
        size_t n = 0;
        matrix m = {0};
        const int rc = weights_read_table(
            &rows, &n, &m, mc->weights, model_variants[i].id,
            TABLE_POS_EMBEDDING, &mc->weights_style, TRAINED_MAX_WIDTH, err);
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

int pipeline_run(trace *tr, const model_config *mc, const model_input *in,
                 mx_error *err)
{
    if (mc->model != NULL)
        return gpt2_trace_run(tr, mc, in, err);
    tokenized tok = {0};
    size_t T = 0;
    workers *pool = NULL;
    matrix randn = {0};     /* --randn-input: the batch (B x T, D) */
    draw_plan *plan = NULL; /* --draw */
    train_data data = {0};  /* --train: the sentences */
    matrix drawn = {0};     /* --train: the embedding as drawn */
    matrix positions = {0}; /* --positions: (C, D) */
    int rc = -1;

    if (run_tokens(&tok, &T, &data, mc, in, err) != 0)
        return -1;
    // a stack's tables name their block (model/lesson/stack.h)
    tr->stacked_block = mc->block_layers > 0;
    double values;
    size_t batch = 0;
    /* every product of the run is at most 2 x tokens x the values of its
     * whole trace in work: a run whose bound is below what threads share
     * (WORKERS_MIN_FLOPS) runs on one, without looking for processors and
     * control-group quotas (which costs a small run a tenth of its time) */
    const double bound =
        2.0 * (double)tok.n_tokens *
        trace_size(mc, model_width(mc, in), tok.n_tokens,
                   mc->train ? data.context : tok.n_tokens, tok.n_vocab);
    const size_t threads = mc->threads != 0            ? mc->threads
                           : bound < WORKERS_MIN_FLOPS ? 1
                                                       : workers_available();
    if (check_size(&values, &batch, mc, in, &tok,
                   mc->train ? data.context : tok.n_tokens, trace_streams(tr),
                   threads, err) != 0 ||
        (trace_streams(tr) && mc->weights != NULL &&
         check_weights(mc, model_width(mc, in), err) != 0) ||
        workers_init(&pool, threads, err) != 0)
        goto done;
    // T query tokens, then S key/value tokens (S = 0 for self-attention)
    const size_t S = tok.n_tokens - T, V = tok.n_vocab;
    const size_t D = model_width(mc, in);
    const model_dims sizes = run_dims(mc, D);
    tr->model = (trace_model){
        .d_model = D,
        .d_out = sizes.d_out,
        .heads = sizes.heads,
        .ff = sizes.ff,
        .layers = sizes.layers,
        .causal = mc->causal && in->kv == NULL,
        .scale = mc->scale,
        .qkv_bias = sizes.qkv_bias,
    };

    const attention_config cfg = {
        .d_model = D,
        .d_out = mc->d_out,
        .heads = mc->heads,
        .causal = mc->causal && in->kv == NULL,
        .scale = mc->scale,
        .qkv_bias = mc->qkv_bias,
        .pool = pool,
        .heads_at_once = batch,
        .batch = mc->batch > 1 ? mc->batch : 1,
        .attn_dropout = mc->attn_dropout,
        .dropout = mc->dropout,
    };

    const char *const *words = (const char *const *)tok.tokens;
    const char *const *kv_words = words + T;
    sequence_labels lab;
    const labels *vocab =
        trace_word_labels(tr, "", (const char *const *)tok.vocab, V, err);
    const labels *dims = trace_index_labels(tr, "dim", D, err);
    const labels *kv_rows = trace_word_labels(tr, "", kv_words, S, err);
    lab.tokens = trace_word_labels(tr, "", words, T, err);
    lab.queries = trace_word_labels(tr, "Q:", words, T, err);
    lab.keys =
        trace_word_labels(tr, "K:", S ? kv_words : words, S ? S : T, err);
    lab.values =
        trace_word_labels(tr, "V:", S ? kv_words : words, S ? S : T, err);
    if (!vocab || !dims || !kv_rows || !lab.tokens || !lab.queries ||
        !lab.keys || !lab.values ||
        record_ids(tr, TABLE_VOCAB, vocab, NULL, err) ||
        record_ids(tr, TABLE_TOKENS, lab.tokens, tok.ids, err) ||
        (in->kv != NULL &&
         record_ids(tr, TABLE_KV_TOKENS, kv_rows, tok.ids + T, err)))
        goto done;

    torch_rng g;
    rng_seed(&g, mc->seed);
    // the input's draws: torch.randn(B, T, D), or nn.Embedding(V, D)'s
    // table, or none (--embeddings)
    const matrix *embedding = NULL, *given = in->embeddings;
    float *draws = NULL;
    size_t n_draws = 0;
    if (mc->randn_input) {
        if (matrix_alloc(&randn, cfg.batch * T, D, N_("the random input"),
                         err) != 0)
            goto done;
        // element 0's rows come first
        given = &randn;
        draws = randn.v;
        n_draws = cfg.batch * T * D;
    } else if (in->embeddings == NULL && mc->train) {
        // each trained variant shows its own embedding (trained.h)
        if (matrix_alloc(&drawn, V, D, N_("the embedding"), err) != 0)
            goto done;
        embedding = &drawn;
        draws = drawn.v;
        n_draws = V * D;
    } else if (in->embeddings == NULL) {
        // torch.manual_seed(seed); emb = nn.Embedding(V, D)
        const table_key key = {VARIANT_INPUT, 0, NO_HEAD, TABLE_EMBEDDING,
                               false};
        table *e = trace_new(tr, &key, vocab, dims, err);
        if (e == NULL)
            goto done;
        embedding = &e->values;
        draws = e->values.v;
        n_draws = V * D;
    }
    const model_dims run = run_dims(mc, D);
    if (mc->n_draw == 0)
        // each variant its own notebook: the input drawn first
        rng_normal_fill(draws, n_draws, 0.0, 1.0, &g);
    // --positions: pos = nn.Embedding(C, D), right after the embedding
    const matrix *pos = NULL;
    size_t contexts = mc->train ? data.context : T;
    if (mc->positions && trained_positions(&contexts, mc, T, err) != 0)
        goto done;
    if (mc->positions && draw_positions(&pos, &positions, tr, contexts, dims,
                                        mc->train, &g, err) != 0)
        goto done;
    if (mc->n_draw != 0 && (plan = malloc(sizeof *plan)) == NULL) {
        err_nomem(err, _("the order of the draws"));
        goto done;
    } else if (mc->n_draw != 0) {
        const build_context ctx = {&cfg, &run};
        draw_order order = {.order = mc->draw,
                            .n = mc->n_draw,
                            .input = draws,
                            .input_n = n_draws,
                            .build = build_drawn,
                            .ctx = &ctx};
        for (size_t i = 0; i < MODEL_N_VARIANTS; i++)
            order.forward_draws[model_variants[i].id] =
                forward_draws(mc, &cfg, model_variants[i].id, T, S ? S : T);
        if (draws_plan(plan, &order, &g, err) != 0)
            goto done;
    }
    if (mc->train) {
        // --train: each variant's notebook trained, then shown
        const trained_labels tlab = {vocab, dims, &lab};
        // every variant's --weights files read before a table goes out
        if (trace_streams(tr) && mc->weights != NULL &&
            trained_check_files(mc, &cfg, &g, embedding, pos, &tlab, err) != 0)
            goto done;
        for (size_t i = 0; i < MODEL_N_VARIANTS; i++)
            if ((mc->variants & model_variants[i].bit) &&
                trained_variant(tr, model_variants[i].id, mc, &cfg, &g,
                                embedding, pos, &data, tok.ids, &tlab,
                                err) != 0)
                goto done;
        rc = trace_flush(tr, err);
        goto done;
    }
    // inputs (T, D), and with --kv kv_inputs (S, D)
    const matrix *inputs = record_inputs(tr, TABLE_INPUTS, lab.tokens, dims,
                                         embedding, tok.ids, given, pos, err);
    const matrix *kv_inputs =
        inputs == NULL || in->kv == NULL
            ? inputs
            : record_inputs(tr, TABLE_KV_INPUTS, kv_rows, dims, embedding,
                            tok.ids + T, NULL, NULL, err);
    if (kv_inputs == NULL)
        goto done;

    const attention_input x = {inputs, kv_inputs};
    for (size_t i = 0; i < MODEL_N_VARIANTS; i++)
        if ((mc->variants & model_variants[i].bit) &&
            run_variant(tr, model_variants[i].id, mc, &cfg,
                        plan != NULL ? &plan->build[model_variants[i].id] : &g,
                        plan != NULL ? &plan->forward[model_variants[i].id]
                                     : NULL,
                        &x, &lab, err) != 0)
            goto done;
    rc = trace_flush(tr, err);
done:
    free(plan);
    matrix_free(&randn);
    matrix_free(&drawn);
    matrix_free(&positions);
    train_data_free(&data);
    workers_free(pool);
    tokenized_free(&tok);
    return rc;
}

/* A param_fn: stops the listing (returns 1) at the present parameter
 * whose name ctx (a const char *) points to. */
static int is_present_named(const param_info *p, void *ctx)
{
    const char *const *name = ctx;
    return p->present && strcmp(p->name, *name) == 0;
}

/* Whether the run makes the input table id (pipeline_run). */
static bool makes_input(table_id id, const model_config *mc,
                        const model_input *in)
{
    switch (id) {
    case TABLE_KV_TOKENS:
    case TABLE_KV_INPUTS:
        return in->kv != NULL;
    case TABLE_EMBEDDING:
        return in->embeddings == NULL && !mc->randn_input;
    case TABLE_POS_EMBEDDING:
        return mc->positions;
    default:
        return true;
    }
}

/* Whether a trained run (--train) makes the table `name` besides the
 * tables of a run without training: lm_head.weight, logits, loss, and
 * with --grad the gradients of the parameters it makes. */
static bool trained_makes(const model_config *mc, const model_input *in,
                          const char *name)
{
    const size_t n = strlen(name), suffix = strlen(".grad");
    if (mc->grad && n > suffix && strcmp(name + n - suffix, ".grad") == 0) {
        char base[sizeof((table *)NULL)->param];
        if (n - suffix >= sizeof base)
            return false;
        memcpy(base, name, n - suffix);
        base[n - suffix] = '\0';
        model_config plain = *mc;
        plain.grad = false;
        // every table but the ids, the loss and the mean of the heads
        const table_id id = table_by_name(base, strlen(base));
        return id != TABLE_VOCAB && id != TABLE_TOKENS && id != TABLE_LOSS &&
               id != TABLE_ATTN_WEIGHTS_AVG &&
               pipeline_makes_table(&plain, in, base);
    }
    const table_id id = table_by_name(name, n);
    return id == TABLE_LM_HEAD || id == TABLE_LOGITS || id == TABLE_LOSS ||
           (id == TABLE_ATTN_WEIGHTS_STEPS && mc->checkpoints);
}

bool pipeline_makes_table(const model_config *mc, const model_input *in,
                          const char *name)
{
    if (mc->model != NULL)
        return gpt2_trace_makes_table(mc, name);
    if (mc->train && trained_makes(mc, in, name))
        return true;
    const table_id id = table_by_name(name, strlen(name));
    if (id != TABLE_COUNT && table_info_of(id)->kind == KIND_INPUT)
        return makes_input(id, mc, in);
    const model_dims dims = {.heads = mc->heads,
                             .qkv_bias = mc->qkv_bias,
                             .layers = mc->block_layers};
    for (size_t i = 0; i < MODEL_N_VARIANTS; i++) {
        const variant_info *v = &model_variants[i];
        if (!(mc->variants & v->bit))
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
        if (table_info_of(id)->kind == KIND_PER_HEAD &&
            (!head_dropout || (mc->attn_dropout > 0 && !drops_outputs(v->id))))
            return true;
        // a stack of blocks adds the model view (STACK_TABLES)
        const table_set stack =
            v->id == VARIANT_ID_BLOCK && mc->block_layers > 0 ? STACK_TABLES
                                                              : 0;
        if (((v->tables | stack) & table_bit(id)) &&
            (id != TABLE_ATTN_WEIGHTS_AVG || averages(mc, v)) &&
            (!(DROPOUT_TABLES & table_bit(id)) || mc->dropout > 0))
            return true;
    }
    return false;
}
