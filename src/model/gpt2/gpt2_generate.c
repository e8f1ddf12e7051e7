/* gpt2_generate.c: GPT-2's step for generation (gpt2_generate.h). */
#include "model/gpt2/gpt2_generate.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/i18n.h"
#include "model/decoded_text.h"

int gpt2_generator_init(gpt2_generator *g, const gpt2_model *m,
                        const checkpoint_tokenizer *tok, workers *pool,
                        size_t positions, mx_error *err)
{
    *g = (gpt2_generator){.m = m, .tok = tok, .pool = pool};
    if (positions > m->cfg.n_positions)
        positions = m->cfg.n_positions;
    return kv_cache_init(&g->cache, m->cfg.n_layer, positions, m->cfg.n_embd,
                         err);
}

void gpt2_generator_free(gpt2_generator *g)
{
    kv_cache_free(&g->cache);
    free(g->first);
    g->first = NULL;
}

int gpt2_generator_prefilled(gpt2_generator *g, const matrix *out,
                             mx_error *err)
{
    const size_t D = g->m->cfg.n_embd, V = g->m->cfg.vocab_size;
    free(g->first);
    g->first = malloc(V * sizeof *g->first);
    if (g->first == NULL)
        return err_nomem(err, _("logits"));
    const matrix last = {1, D, out->v + (out->rows - 1) * D};
    matrix row = {1, V, g->first};
    gpt2_logits(&row, g->m, &last, g->pool);
    return 0;
}

/* model(input_ids, past_key_values=past, use_cache=True): ids (n) after
 * the cached positions; logits (V) of the last row. */
static int step(void *ctx, float *logits, const int32_t *ids, size_t n,
                mx_error *err)
{
    gpt2_generator *g = ctx;
    if (g->first != NULL && g->cache.len == n) {
        // the prompt, already run into the cache (gpt2_generator_prefilled)
        memcpy(logits, g->first, g->m->cfg.vocab_size * sizeof *logits);
        free(g->first);
        g->first = NULL;
        return 0;
    }
    if (g->cache.len + n > g->cache.cap)
        return err_input(
            err, _("the text is %zu tokens; the model takes at most %zu (%s)"),
            g->cache.len + n, g->cache.cap, GPT2_POSITIONS_KEY);
    const gpt2_run run = {.hooks = g->hooks,
                          .logits = false,
                          .pool = g->pool,
                          .cache = &g->cache};
    matrix out = {0};
    if (gpt2_forward(&out, g->m, ids, n, &run, err) != 0)
        return -1;
    // next_token_logits = outputs.logits[:, -1, :]: lm_head of the last
    // row (each logit is its own sum: the same bits as over every row)
    const size_t D = g->m->cfg.n_embd;
    const matrix last = {1, D, out.v + (n - 1) * D};
    matrix row = {1, g->m->cfg.vocab_size, logits};
    gpt2_logits(&row, g->m, &last, g->pool);
    matrix_free(&out);
    return 0;
}

static size_t bytes(void *ctx, unsigned char *buf, size_t size, int32_t id)
{
    const gpt2_generator *g = ctx;
    return checkpoint_tokenizer_bytes(buf, size, g->tok, id);
}

static void label(void *ctx, char *buf, size_t size, int32_t id)
{
    const gpt2_generator *g = ctx;
    checkpoint_tokenizer_label(buf, size, g->tok, id);
}

static void listen(void *ctx, const forward_hooks *hooks)
{
    gpt2_generator *g = ctx;
    g->hooks = hooks;
}

generate_model gpt2_generator_model(gpt2_generator *g)
{
    return (generate_model){
        .ctx = g,
        .vocab = g->m->cfg.vocab_size,
        .context = g->cache.cap,
        .end = (int32_t)g->m->cfg.eos,
        .step = step,
        .bytes = bytes,
        .listen = listen,
        .label = label,
        .cache = &g->cache,
    };
}

/* ---- into the trace ---------------------------------------------------- */

/* A token's piece as a table's label (generation_put_top). */
static void piece_label(const void *ctx, char *buf, size_t size, int32_t id)
{
    checkpoint_tokenizer_label(buf, size, ctx, id);
}

/* generated (N x 15), after the model's tables (generate.h's table),
 * each row labelled with its token's piece, and generated_top; or, id
 * TABLE_GENERATED_CLEAN, the clean model's generation as generated
 * alone. */
static int put_generated(trace *tr, const checkpoint_tokenizer *tok,
                         const generation *gen, table_id id, mx_error *err)
{
    const size_t N = gen->n;
    char **names = calloc(N > 0 ? N : 1, sizeof *names);
    if (names == NULL)
        return err_nomem(err, _("tokens"));
    int result = -1;
    for (size_t i = 0; i < N; i++) {
        char piece[256];
        checkpoint_tokenizer_label(piece, sizeof piece, tok,
                                   gen->tokens[i].token);
        if ((names[i] = strdup(piece)) == NULL) {
            err_nomem(err, _("tokens"));
            goto out;
        }
    }
    result = generation_put_as(tr, VARIANT_MODEL, id, gen,
                               (const char *const *)names, err);
    if (result == 0 && id == TABLE_GENERATED)
        result =
            generation_put_top(tr, VARIANT_MODEL, gen, piece_label, tok, err);
out:
    for (size_t i = 0; i < N; i++)
        free(names[i]);
    free(names);
    return result;
}

/* A growing text. */
typedef struct {
    char *s;
    size_t len, cap;
} text_buf;

static bool text_add(text_buf *b, const void *bytes, size_t n)
{
    if (b->len + n + 1 > b->cap) {
        const size_t cap = 2 * (b->len + n) + 64;
        char *p = realloc(b->s, cap);
        if (p == NULL)
            return false;
        b->s = p;
        b->cap = cap;
    }
    memcpy(b->s + b->len, bytes, n);
    b->len += n;
    b->s[b->len] = '\0';
    return true;
}

/* The bytes of the tokens ids (n) joined, decoded as the text is shown
 * (decoded_text.h: each ill-formed part, and each control but a new
 * line or a tab, U+FFFD), added to b. */
static bool add_tokens(text_buf *b, const checkpoint_tokenizer *tok,
                       const int32_t *ids, size_t n)
{
    decoded_text text = {0};
    bool good = decoded_text_add(&text, "", 0) == 0;
    for (size_t i = 0; good && i < n; i++) {
        unsigned char piece[1024];
        const size_t k =
            checkpoint_tokenizer_bytes(piece, sizeof piece, tok, ids[i]);
        good = decoded_text_add(&text, piece, k) == 0;
    }
    good =
        good && decoded_text_end(&text) == 0 && text_add(b, text.s, text.len);
    decoded_text_free(&text);
    return good;
}

/* *text: the prompt, then gen's new text between the marks, held by
 * tr's labels. */
static int continued_text(const char **text, trace *tr,
                          const checkpoint_tokenizer *tok,
                          const int32_t *prompt, size_t T,
                          const generation *gen, mx_error *err)
{
    int32_t *ids = malloc((gen->n > 0 ? gen->n : 1) * sizeof *ids);
    text_buf b = {0};
    bool good = ids != NULL;
    for (size_t i = 0; good && i < gen->n; i++)
        ids[i] = gen->tokens[i].token;
    good = good && add_tokens(&b, tok, prompt, T) &&
           text_add(&b, "\u27e6", strlen("\u27e6")) &&
           add_tokens(&b, tok, ids, gen->n) &&
           text_add(&b, "\u27e7", strlen("\u27e7"));
    free(ids);
    const labels *l = good ? trace_literal_label(tr, b.s, err) : NULL;
    free(b.s);
    if (l == NULL)
        return good ? -1 : err_nomem(err, _("tokens"));
    *text = l->s[0];
    return 0;
}

int gpt2_generate_with(trace *tr, gpt2_generator *g, const int32_t *prompt,
                       size_t T, const run_request *rq, const generation *clean,
                       mx_error *err)
{
    const generate_model gm = gpt2_generator_model(g);
    const generate_options o = {.n = rq->generate,
                                .how = rq->sampling,
                                .seed = rq->seed,
                                .stop = rq->stop,
                                .steps =
                                    rq->kv_steps || rq->page_steps ? tr : NULL,
                                .weights_only = !rq->kv_steps,
                                .layers = rq->layers,
                                .n_layers = rq->n_layers,
                                .heads = rq->show_heads,
                                .n_heads = rq->n_show_heads,
                                .replace = rq->replace,
                                .n_replace = rq->n_replace};
    generation gen;
    if (generate_run(&gen, &gm, &o, prompt, T, err) != 0)
        return -1;
    int status = gpt2_generation_put(tr, g->tok, prompt, T, &gen, g->cache.cap,
                                     GPT2_POSITIONS_KEY, clean, err);
    generation_free(&gen);
    return status;
}

/* The clean model's generation beside one with heads switched off
 * (rq->n_replace > 0; else none, *clean empty): the same prompt, options
 * and seed, no hooks and no steps' tables. */
static int generate_clean(generation *clean, const gpt2_model *m,
                          const checkpoint_tokenizer *tok,
                          const int32_t *prompt, size_t T,
                          const run_request *rq, workers *pool, mx_error *err)
{
    *clean = (generation){0};
    if (rq->n_replace == 0)
        return 0;
    gpt2_generator g;
    const generate_options o = {.n = rq->generate,
                                .how = rq->sampling,
                                .seed = rq->seed,
                                .stop = rq->stop};
    int status = gpt2_generator_init(&g, m, tok, pool, T + rq->generate, err);
    if (status == 0) {
        const generate_model gm = gpt2_generator_model(&g);
        status = generate_run(clean, &gm, &o, prompt, T, err);
    }
    gpt2_generator_free(&g);
    return status;
}

int gpt2_generate_into(trace *tr, const gpt2_model *m,
                       const checkpoint_tokenizer *tok, const int32_t *prompt,
                       size_t T, const run_request *rq, workers *pool,
                       mx_error *err)
{
    generation clean;
    if (generate_clean(&clean, m, tok, prompt, T, rq, pool, err) != 0)
        return -1;
    gpt2_generator g;
    int status =
        gpt2_generator_init(&g, m, tok, pool, T + rq->generate, err) == 0
            ? gpt2_generate_with(tr, &g, prompt, T, rq,
                                 rq->n_replace > 0 ? &clean : NULL, err)
            : -1;
    gpt2_generator_free(&g);
    generation_free(&clean);
    return status;
}

int gpt2_generation_put(trace *tr, const checkpoint_tokenizer *tok,
                        const int32_t *prompt, size_t T, const generation *gen,
                        size_t positions, const char *positions_key,
                        const generation *clean, mx_error *err)
{
    tr->model.context_full = gen->end == GENERATE_END_CONTEXT ? positions : 0;
    tr->model.context_key = tr->model.context_full > 0 ? positions_key : NULL;
    const bool at_end = gen->end == GENERATE_END_TOKEN && gen->n > 0;
    tr->model.end_token_at = at_end ? gen->n : 0;
    tr->model.end_token = at_end ? (long)gen->tokens[gen->n - 1].token : 0;
    if (put_generated(tr, tok, gen, TABLE_GENERATED, err) != 0 ||
        continued_text(&tr->model.continued, tr, tok, prompt, T, gen, err) != 0)
        return -1;
    if (clean == NULL)
        return 0;
    if (put_generated(tr, tok, clean, TABLE_GENERATED_CLEAN, err) != 0)
        return -1;
    tr->model.clean_common = generation_common(gen, clean);
    tr->model.clean_same =
        tr->model.clean_common == gen->n && gen->n == clean->n;
    return continued_text(&tr->model.continued_clean, tr, tok, prompt, T, clean,
                          err);
}
