/* pipeline.c: tokens -> embeddings -> attention variants -> trace. */
#include "model/pipeline.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/attention.h"
#include "model/block.h"
#include "cli/i18n.h"
#include "numerics/rng.h"
#include "model/tokenize.h"
#include "io/weights.h"
#include "numerics/workers.h"

/* A param_fn: adds a parameter's size, present or not (ctx: a double). */
static int add_param_size(const param_info *p, void *ctx)
{
    *(double *)ctx += (double)p->rows * (double)p->cols;
    return 0;
}

/* The model's sizes for a run of width D (d_model). */
static model_dims run_dims(const options *opt, size_t D)
{
    return (model_dims){
        .d_model = D,
        .d_out = opt->d_out,
        .heads = opt->heads,
        .ff = opt->ff ? opt->ff : 4 * D,
        .qkv_bias = opt->qkv_bias,
    };
}

/* About how many float values the whole trace of this run holds, counted
 * in double so that absurd sizes cannot overflow. */
static double trace_size(const options *opt, size_t D, size_t T, size_t V)
{
    const double t = (double)T, v = (double)V, d = (double)D,
                 o = (double)opt->d_out, h = (double)opt->heads;
    const model_dims dims = run_dims(opt, D);
    double n = v * d + t * d + v + t;
    for (size_t i = 0; i < MODEL_N_VARIANTS; i++)
        if (opt->variants & model_variants[i].bit)
            model_params_each(model_variants[i].bit, &dims, NULL,
                              add_param_size, &n);
    if (opt->variants & VARIANT_SINGLE)
        n += 4.0 * t * o + 2.0 * t * t;
    if (opt->variants & VARIANT_WRAPPER)
        n += 4.0 * t * o + h * 2.0 * t * t + t * o;
    if (opt->variants & VARIANT_FUSED)
        n += 4.0 * t * o + h * 2.0 * t * t + 2.0 * t * o;
    if (opt->variants & VARIANT_BLOCK) { /* attention d_model wide */
        const double f = (double)dims.ff;
        n += 4.0 * t * d + h * 2.0 * t * t + 2.0 * t * d + t * (f + 3.0 * d);
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

static stream_size streamed_size(const options *opt, size_t D, size_t T,
                                 size_t V)
{
    const double t = (double)T, v = (double)V, d = (double)D,
                 o = (double)opt->d_out, h = (double)opt->heads;
    const model_dims dims = run_dims(opt, D);
    stream_size n = {.kept = v * d + t * d + v + t};
    for (size_t i = 0; i < MODEL_N_VARIANTS; i++)
        if (opt->variants & model_variants[i].bit)
            model_params_each(model_variants[i].bit, &dims, NULL,
                              add_param_size, &n.kept);
    // (the block's attention is d_model wide)
    const unsigned v_bits[] = {VARIANT_SINGLE, VARIANT_WRAPPER, VARIANT_FUSED,
                               VARIANT_BLOCK};
    const double kept[] = {t * o, t * o, t * o, t * ((double)dims.ff + 4 * d)};
    const double work[] = {0, 2 * t * o, 4 * t * o, 4 * t * d};
    const double hd[] = {o, o / h, o / h, d / h};
    for (size_t i = 0; i < 4; i++) {
        if (!(opt->variants & v_bits[i]))
            continue;
        // --average: the table, and while the heads run their sum and
        // head 0's scores
        const bool avg = opt->average && v_bits[i] != VARIANT_SINGLE;
        n.kept += kept[i] + (avg ? 2 * t * t : 0);
        if (avg && work[i] + t * t > n.work)
            n.work = work[i] + t * t;
        if (work[i] > n.work)
            n.work = work[i];
        if (2 * t * t + 3 * t * hd[i] > n.per_head)
            n.per_head = 2 * t * t + 3 * t * hd[i];
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

/* Reads the --weights files of the variant over module m's drawn
 * parameters (nothing without --weights). */
static int load_weights(unsigned variant, const module_storage *m,
                        const options *opt, const model_dims *dims,
                        mx_error *err)
{
    const csv_style style = {opt->csv_delimiter, opt->decimal_comma};
    if (opt->weights == NULL)
        return 0;
    return weights_load(variant, dims, m, opt->weights, &style, err);
}

/* Records module m's parameters as tables of the variant, in state_dict()
 * order. */
static int record_params(trace *tr, unsigned variant, const module_storage *m,
                         const model_dims *dims, mx_error *err)
{
    param_recorder rec = {tr, variant_of_bit(variant), err};
    return model_params_each(variant, dims, m, record_param, &rec);
}

/* The wrapper's heads, drawn as the wrapper draws them (and read from
 * --weights files): for the wrapper itself, and for --tie. */
static int make_wrapper(wrapper_params *p, const options *opt,
                        const attention_config *cfg, const model_dims *dims,
                        const torch_rng *start, mx_error *err)
{
    torch_rng g = *start;
    if (wrapper_init(p, cfg, &g, err) != 0)
        return -1;
    return load_weights(VARIANT_WRAPPER, &(module_storage){.wrapper = p}, opt,
                        dims, err);
}

/* Runs one variant from a copy of the generator as it stands after the
 * embedding draws: parameters drawn, replaced by --weights files, recorded,
 * then the forward pass. */
static int run_variant(trace *tr, unsigned variant, const options *opt,
                       const attention_config *cfg, const torch_rng *start,
                       const attention_input *x, const sequence_labels *lab,
                       mx_error *err)
{
    // cfg holds --d-out, --heads and --qkv-bias as opt does
    const model_dims dims = run_dims(opt, cfg->d_model);
    torch_rng g = *start;
    int rc = -1;
    // --average: the heads' weights summed as they are made
    mean_stream sum = {0};
    attention_config with_sum = *cfg;
    if (opt->average && variant != VARIANT_SINGLE) {
        if (mean_stream_init(&sum, cfg->heads, x->x->rows * x->kv->rows, err) !=
            0) {
            mean_stream_free(&sum);
            return -1;
        }
        with_sum.average = &sum;
        cfg = &with_sum;
    }
    if (variant == VARIANT_SINGLE) {
        single_params p = {0};
        const module_storage m = {.single = &p};
        if (single_init(&p, cfg, &g, err) == 0 &&
            load_weights(variant, &m, opt, &dims, err) == 0 &&
            record_params(tr, variant, &m, &dims, err) == 0)
            rc = single_forward(tr, &p, cfg, x, lab, err);
        single_free(&p);
    } else if (variant == VARIANT_WRAPPER) {
        wrapper_params p = {0};
        const module_storage m = {.wrapper = &p};
        if (make_wrapper(&p, opt, cfg, &dims, start, err) == 0 &&
            record_params(tr, variant, &m, &dims, err) == 0)
            rc = wrapper_forward(tr, &p, cfg, x, lab, err);
        wrapper_free(&p);
    } else if (variant == VARIANT_FUSED) {
        fused_params p = {0};
        wrapper_params heads = {0};
        const module_storage m = {.fused = &p};
        if (fused_init(&p, cfg, &g, err) == 0 &&
            load_weights(variant, &m, opt, &dims, err) == 0 &&
            (!opt->tie ||
             make_wrapper(&heads, opt, cfg, &dims, start, err) == 0)) {
            if (opt->tie)
                fused_tie_to_wrapper(&p, &heads);
            if (record_params(tr, variant, &m, &dims, err) == 0)
                rc = fused_forward(tr, &p, cfg, x, lab, err);
        }
        wrapper_free(&heads);
        fused_free(&p);
    } else if (variant == VARIANT_BLOCK) {
        /* the residual adds the attention's output to its input: the
         * block's attention is d_model wide, whatever --d-out says */
        attention_config wide = *cfg;
        wide.d_out = cfg->d_model;
        block_params p = {0};
        const module_storage m = {.block = &p};
        if (block_init(&p, &wide, dims.ff, &g, err) == 0 &&
            load_weights(variant, &m, opt, &dims, err) == 0 &&
            record_params(tr, variant, &m, &dims, err) == 0)
            rc = block_forward(tr, &p, &wide, x, lab, err);
        block_free(&p);
    }
    if (rc == 0 && cfg->average != NULL)
        rc = record_average(tr, variant_of_bit(variant), cfg->average, err);
    mean_stream_free(&sum);
    return rc == 0 ? trace_flush(tr, err) : rc;
}

/* Before a streamed run writes anything: every variant's --weights files
 * read into freshly made parameters (then freed), so that a bad file
 * stops the run before the first table goes out, as in a run that keeps
 * its trace. */
static int check_weights(const options *opt, size_t D, mx_error *err)
{
    const attention_config cfg = {
        .d_model = D,
        .d_out = opt->d_out,
        .heads = opt->heads,
        .qkv_bias = opt->qkv_bias,
    };
    const model_dims dims = run_dims(opt, D);
    // --tie reads the wrapper's files for the fused module too
    const unsigned read = opt->variants | (opt->tie ? VARIANT_WRAPPER : 0u);
    int rc = 0;
    for (size_t i = 0; i < MODEL_N_VARIANTS && rc == 0; i++) {
        const unsigned v = model_variants[i].bit;
        if (!(read & v))
            continue;
        torch_rng g;
        rng_seed(&g, opt->seed);
        single_params single = {0};
        wrapper_params wrapper = {0};
        fused_params fused = {0};
        block_params block = {0};
        attention_config wide = cfg;
        wide.d_out = D;
        const module_storage m = {.single = &single,
                                  .wrapper = &wrapper,
                                  .fused = &fused,
                                  .block = &block};
        if (v == VARIANT_SINGLE)
            rc = single_init(&single, &cfg, &g, err);
        else if (v == VARIANT_WRAPPER)
            rc = wrapper_init(&wrapper, &cfg, &g, err);
        else if (v == VARIANT_FUSED)
            rc = fused_init(&fused, &cfg, &g, err);
        else
            rc = block_init(&block, &wide, dims.ff, &g, err);
        if (rc == 0)
            rc = load_weights(v, &m, opt, &dims, err);
        single_free(&single);
        wrapper_free(&wrapper);
        fused_free(&fused);
        block_free(&block);
    }
    return rc;
}

/* Tokens of the input: the sentence split, or the embeddings' labels.
 * With --kv, the two sentences one after the other (so the vocabulary is
 * the sentence's words, then the other's new words), and *n_queries says
 * how many of the tokens are the sentence's. */
static int input_tokens(tokenized *tok, size_t *n_queries,
                        const model_input *in, enum token_mode mode,
                        mx_error *err)
{
    if (in->embeddings != NULL) {
        *n_queries = in->embeddings->rows;
        return tokenize_words(tok, in->words, in->embeddings->rows, err);
    }
    if (tokenize_as(tok, in->sentence, in->len, mode, err) != 0)
        return -1;
    *n_queries = tok->n_tokens;
    if (in->kv == NULL)
        return 0;

    tokenized other = {0};
    if (tokenize_as(&other, in->kv, strlen(in->kv), mode, err) != 0) {
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
    int rc = tokenize_as(tok, both, n, mode, err);
    free(both);
    return rc;
}

/* The model width: --d-model, or the embeddings' width. */
static size_t model_width(const options *opt, const model_input *in)
{
    return in->embeddings != NULL ? in->embeddings->cols : opt->d_model;
}

/* The run fits the limits; *values is the size of its whole trace. A
 * streamed run (trace.h) is held to what it holds at once with one head
 * in flight; *batch is how many heads it may then compute at once on
 * `threads` threads. */
static int check_size(double *values, size_t *batch, const options *opt,
                      const model_input *in, const tokenized *tok,
                      bool streamed, size_t threads, mx_error *err)
{
    const size_t D = model_width(opt, in);
    if (in->embeddings != NULL && opt->d_model_given && opt->d_model != D)
        return err_usage(err,
                         ngettext("--d-model %zu: the embeddings have %zu "
                                  "column (d_model is taken from the file)",
                                  "--d-model %zu: the embeddings have %zu "
                                  "columns (d_model is taken from the file)",
                                  D),
                         opt->d_model, D);
    if ((opt->variants & VARIANT_BLOCK) && D % opt->heads != 0)
        return err_usage(err,
                         _("--heads: %zu heads do not divide --d-model %zu "
                           "(the block's attention is d_model wide: each "
                           "head needs d_model / heads columns)"),
                         opt->heads, D);
    const double whole = trace_size(opt, D, tok->n_tokens, tok->n_vocab);
    const stream_size part = streamed_size(opt, D, tok->n_tokens, tok->n_vocab);
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

int pipeline_check(double *values, const options *opt, const model_input *in,
                   bool streamed, mx_error *err)
{
    tokenized tok = {0};
    size_t n_queries, batch;
    *values = 0;
    if (input_tokens(&tok, &n_queries, in, opt->tokens, err) != 0)
        return -1;
    int rc = check_size(values, &batch, opt, in, &tok, streamed, 1, err);
    size_t position;
    if (rc == 0 && opt->focus != NULL)
        rc = find_token(&position, opt->focus, (const char *const *)tok.tokens,
                        n_queries, err);
    tokenized_free(&tok);
    return rc;
}

/* Rows ids[0..n) of the embedding table, or of the given embeddings,
 * into a new input table (n, D). */
static const matrix *record_inputs(trace *tr, table_id name, const labels *rows,
                                   const labels *dims, const matrix *embedding,
                                   const size_t *ids, const matrix *given,
                                   mx_error *err)
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
    return &t->values;
}

int pipeline_run(trace *tr, const options *opt, const model_input *in,
                 mx_error *err)
{
    tokenized tok = {0};
    size_t T = 0;
    workers *pool = NULL;
    int rc = -1;

    if (input_tokens(&tok, &T, in, opt->tokens, err) != 0)
        return -1;
    double values;
    size_t batch = 0;
    const size_t threads =
        opt->threads != 0 ? opt->threads : workers_available();
    if (check_size(&values, &batch, opt, in, &tok, trace_streams(tr), threads,
                   err) != 0 ||
        (trace_streams(tr) && opt->weights != NULL &&
         check_weights(opt, model_width(opt, in), err) != 0) ||
        workers_init(&pool, threads, err) != 0)
        goto done;
    // T query tokens, then S key/value tokens (S = 0 for self-attention)
    const size_t S = tok.n_tokens - T, V = tok.n_vocab;
    const size_t D = model_width(opt, in);

    const attention_config cfg = {
        .d_model = D,
        .d_out = opt->d_out,
        .heads = opt->heads,
        .causal = opt->causal && in->kv == NULL,
        .scale = opt->scale,
        .qkv_bias = opt->qkv_bias,
        .pool = pool,
        .heads_at_once = batch,
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
    rng_seed(&g, opt->seed);
    const matrix *embedding = NULL;
    if (in->embeddings == NULL) {
        // torch.manual_seed(seed); emb = nn.Embedding(V, D)
        const table_key key = {VARIANT_INPUT, 0, NO_HEAD, TABLE_EMBEDDING,
                               false};
        table *e = trace_new(tr, &key, vocab, dims, err);
        if (e == NULL)
            goto done;
        rng_normal_fill(e->values.v, V * D, 0.0, 1.0, &g);
        embedding = &e->values;
    }
    // inputs (T, D), and with --kv kv_inputs (S, D)
    const matrix *inputs =
        record_inputs(tr, TABLE_INPUTS, lab.tokens, dims, embedding, tok.ids,
                      in->embeddings, err);
    const matrix *kv_inputs =
        inputs == NULL || in->kv == NULL
            ? inputs
            : record_inputs(tr, TABLE_KV_INPUTS, kv_rows, dims, embedding,
                            tok.ids + T, NULL, err);
    if (kv_inputs == NULL)
        goto done;

    const attention_input x = {inputs, kv_inputs};
    for (size_t i = 0; i < MODEL_N_VARIANTS; i++) {
        const unsigned v = model_variants[i].bit;
        if ((opt->variants & v) &&
            run_variant(tr, v, opt, &cfg, &g, &x, &lab, err) != 0)
            goto done;
    }
    rc = trace_flush(tr, err);
done:
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
static bool makes_input(table_id id, const model_input *in)
{
    switch (id) {
    case TABLE_KV_TOKENS:
    case TABLE_KV_INPUTS:
        return in->kv != NULL;
    case TABLE_EMBEDDING:
        return in->embeddings == NULL;
    default:
        return true;
    }
}

bool pipeline_makes_table(const options *opt, const model_input *in,
                          const char *name)
{
    const table_id id = table_by_name(name, strlen(name));
    if (id != TABLE_COUNT && table_info_of(id)->kind == KIND_INPUT)
        return makes_input(id, in);
    const model_dims dims = {.heads = opt->heads, .qkv_bias = opt->qkv_bias};
    for (size_t i = 0; i < MODEL_N_VARIANTS; i++) {
        const variant_info *v = &model_variants[i];
        if (!(opt->variants & v->bit))
            continue;
        if (id == TABLE_COUNT) { /* a parameter's name, or no table's */
            if (model_params_each(v->bit, &dims, NULL, is_present_named,
                                  &name) != 0)
                return true;
            continue;
        }
        // every head's tables, and what the module makes once
        if (table_info_of(id)->kind == KIND_PER_HEAD ||
            ((v->tables & (1ul << id)) &&
             (id != TABLE_ATTN_WEIGHTS_AVG || opt->average)))
            return true;
    }
    return false;
}
