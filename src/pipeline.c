/* pipeline.c: tokens -> embeddings -> attention variants -> trace. */
#include "pipeline.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "attention.h"
#include "block.h"
#include "i18n.h"
#include "rng.h"
#include "tokenize.h"
#include "weights.h"
#include "workers.h"

/* A param_fn: adds a parameter's size, present or not (ctx: a double). */
static int add_param_size(const param_info *p, void *ctx)
{
    *(double *)ctx += (double)p->rows * (double)p->cols;
    return 0;
}

/* About how many float values the trace of this run will hold, counted in
 * double so that absurd sizes cannot overflow. */
static double trace_size(const options *opt, size_t D, size_t T, size_t V)
{
    const double t = (double)T, v = (double)V, d = (double)D,
                 o = (double)opt->d_out, h = (double)opt->heads;
    const model_dims dims = {
        .d_model = D,
        .d_out = opt->d_out,
        .heads = opt->heads,
        .ff = opt->ff ? opt->ff : 4 * D,
        .qkv_bias = opt->qkv_bias,
    };
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

/* Adds a column of ids (the vocab or tokens table): ids[i], or i when ids
 * is NULL. */
static int record_ids(trace *tr, const char *name, const labels *rows,
                      const size_t *ids, mx_error *err)
{
    const labels *id = trace_literal_label(tr, "id", err);
    table *t = id == NULL
                   ? NULL
                   : trace_new(tr, "input", NO_HEAD, name, rows, id, err);
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
    param_recorder rec = {tr, variant_name(variant), err};
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
    const model_dims dims = {
        .d_model = cfg->d_model,
        .d_out = cfg->d_out,
        .heads = cfg->heads,
        .ff = opt->ff ? opt->ff : 4 * cfg->d_model,
        .qkv_bias = cfg->qkv_bias,
    };
    torch_rng g = *start;
    int rc = -1;
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
    if (rc == 0 && opt->average && variant != VARIANT_SINGLE)
        rc = record_average(tr, variant_name(variant), cfg->heads, err);
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

/* The run fits the limits; *values is the size of its trace. */
static int check_size(double *values, const options *opt, const model_input *in,
                      const tokenized *tok, mx_error *err)
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
    double size = trace_size(opt, D, tok->n_tokens, tok->n_vocab);
    *values = size;
    if (size > (double)MAX_TRACE_VALUES)
        return err_input(err,
                         _("the run would hold about %.0f million values (at "
                           "most %zu million): use fewer tokens, heads or "
                           "variants, or smaller widths"),
                         size / 1e6, MAX_TRACE_VALUES / 1000000);
    return 0;
}

int pipeline_check(double *values, const options *opt, const model_input *in,
                   mx_error *err)
{
    tokenized tok = {0};
    size_t n_queries;
    *values = 0;
    if (input_tokens(&tok, &n_queries, in, opt->tokens, err) != 0)
        return -1;
    int rc = check_size(values, opt, in, &tok, err);
    size_t position;
    if (rc == 0 && opt->focus != NULL)
        rc = find_token(&position, opt->focus, (const char *const *)tok.tokens,
                        n_queries, err);
    tokenized_free(&tok);
    return rc;
}

/* Rows ids[0..n) of the embedding table, or of the given embeddings,
 * into a new input table (n, D). */
static const matrix *record_inputs(trace *tr, const char *name,
                                   const labels *rows, const labels *dims,
                                   const matrix *embedding, const size_t *ids,
                                   const matrix *given, mx_error *err)
{
    table *t = trace_new(tr, "input", NO_HEAD, name, rows, dims, err);
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
    if (check_size(&values, opt, in, &tok, err) != 0 ||
        workers_init(&pool,
                     opt->threads != 0 ? opt->threads : workers_available(),
                     err) != 0)
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
        !lab.keys || !lab.values || record_ids(tr, "vocab", vocab, NULL, err) ||
        record_ids(tr, "tokens", lab.tokens, tok.ids, err) ||
        (in->kv != NULL &&
         record_ids(tr, "kv_tokens", kv_rows, tok.ids + T, err)))
        goto done;

    torch_rng g;
    rng_seed(&g, opt->seed);
    const matrix *embedding = NULL;
    if (in->embeddings == NULL) {
        // torch.manual_seed(seed); emb = nn.Embedding(V, D)
        table *e = trace_new(tr, "input", NO_HEAD, "embedding.weight", vocab,
                             dims, err);
        if (e == NULL)
            goto done;
        rng_normal_fill(e->values.v, V * D, 0.0, 1.0, &g);
        embedding = &e->values;
    }
    // inputs (T, D), and with --kv kv_inputs (S, D)
    const matrix *inputs =
        record_inputs(tr, "inputs", lab.tokens, dims, embedding, tok.ids,
                      in->embeddings, err);
    const matrix *kv_inputs =
        inputs == NULL || in->kv == NULL
            ? inputs
            : record_inputs(tr, "kv_inputs", kv_rows, dims, embedding,
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
    rc = 0;
done:
    workers_free(pool);
    tokenized_free(&tok);
    return rc;
}
