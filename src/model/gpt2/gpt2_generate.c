/* gpt2_generate.c: GPT-2's step for generation (gpt2_generate.h). */
#include "model/gpt2/gpt2_generate.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <utf8proc.h>

#include "base/i18n.h"

int gpt2_generator_init(gpt2_generator *g, const gpt2_model *m,
                        const gpt2_tokenizer *tok, workers *pool,
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
}

/* model(input_ids, past_key_values=past, use_cache=True): ids (n) after
 * the cached positions; logits (V) of the last row. */
static int step(void *ctx, float *logits, const int32_t *ids, size_t n,
                mx_error *err)
{
    gpt2_generator *g = ctx;
    if (g->cache.len + n > g->cache.cap)
        return err_input(
            err,
            _("the text is %zu tokens; the model takes at most %zu (n_positions)"),
            g->cache.len + n, g->cache.cap);
    const gpt2_run run = {
        .hooks = NULL, .logits = false, .pool = g->pool, .cache = &g->cache};
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
    return gpt2_tokenizer_bytes(buf, size, g->tok, id);
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
    };
}

/* ---- into the trace ---------------------------------------------------- */

/* generated (N x 15), after the model's tables: a row per new token,
 * labelled with its piece; its id, its probability where it was picked
 * and in the model's softmax of the logits, the tokens top-k and top-p
 * left (V when off), then the GENERATE_TOP likeliest tokens where it was
 * picked with their probabilities (id -1 and probability 0 where the
 * vocabulary has fewer). */
static int put_generated(trace *tr, const gpt2_tokenizer *tok,
                         const generation *gen, mx_error *err)
{
    static const char *const columns[] = {
        "id",   "probability", "p_logits", "top_k_kept", "top_p_kept",
        "top1", "p1",          "top2",     "p2",         "top3",
        "p3",   "top4",        "p4",       "top5",       "p5"};
    _Static_assert(sizeof columns / sizeof *columns == 5 + 2 * GENERATE_TOP,
                   "a column per alternative and its probability");
    const size_t N = gen->n, W = sizeof columns / sizeof *columns;
    char **names = calloc(N > 0 ? N : 1, sizeof *names);
    if (names == NULL)
        return err_nomem(err, _("tokens"));
    int result = -1;
    for (size_t i = 0; i < N; i++) {
        char piece[256];
        gpt2_tokenizer_label(piece, sizeof piece, tok, gen->tokens[i].token);
        if ((names[i] = strdup(piece)) == NULL) {
            err_nomem(err, _("tokens"));
            goto out;
        }
    }
    const labels *rows =
        trace_word_labels(tr, "", (const char *const *)names, N, err);
    const labels *cols = trace_word_labels(tr, "", columns, W, err);
    const table_key key = {VARIANT_MODEL, 0, NO_HEAD, TABLE_GENERATED, false};
    table *t = rows && cols ? trace_new(tr, &key, rows, cols, err) : NULL;
    if (t == NULL)
        goto out;
    for (size_t i = 0; i < N; i++) {
        const generated_token *g = &gen->tokens[i];
        float *row = t->values.v + i * W;
        row[0] = (float)g->token;
        row[1] = g->p;
        row[2] = g->p_logits;
        row[3] = (float)g->effect.after_top_k;
        row[4] = (float)g->effect.after_top_p;
        for (size_t k = 0; k < GENERATE_TOP; k++) {
            row[5 + 2 * k] = k < g->n_top ? (float)g->top[k] : -1.0f;
            row[6 + 2 * k] = k < g->n_top ? g->top_p[k] : 0.0f;
        }
    }
    trace_release(tr, t);
    result = 0;
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

/* The bytes of the tokens ids (n) added to b as readable UTF-8: a byte
 * that is not part of a whole character, or a control other than a new
 * line or a tab, becomes U+FFFD. */
static bool add_tokens(text_buf *b, const gpt2_tokenizer *tok,
                       const int32_t *ids, size_t n)
{
    text_buf raw = {0};
    bool good = text_add(&raw, "", 0);
    for (size_t i = 0; good && i < n; i++) {
        unsigned char piece[1024];
        const size_t k = gpt2_tokenizer_bytes(piece, sizeof piece, tok, ids[i]);
        good = text_add(&raw, piece, k);
    }
    const utf8proc_uint8_t *p = (const utf8proc_uint8_t *)raw.s;
    for (size_t at = 0; good && at < raw.len;) {
        utf8proc_int32_t c;
        const utf8proc_ssize_t k =
            utf8proc_iterate(p + at, (utf8proc_ssize_t)(raw.len - at), &c);
        const bool shown =
            k > 0 && (c >= 0x20 || c == '\n' || c == '\t') && c != 0x7f;
        good = shown ? text_add(b, p + at, (size_t)k)
                     : text_add(b, "\xef\xbf\xbd", 3);
        at += k > 0 ? (size_t)k : 1;
    }
    free(raw.s);
    return good;
}

/* tr->model.continued: the prompt, then the new text between the marks. */
static int put_continued(trace *tr, const gpt2_tokenizer *tok,
                         const int32_t *prompt, size_t T, const generation *gen,
                         mx_error *err)
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
    tr->model.continued = l->s[0];
    return 0;
}

int gpt2_generate_into(trace *tr, const gpt2_model *m,
                       const gpt2_tokenizer *tok, const int32_t *prompt,
                       size_t T, const model_config *mc, workers *pool,
                       mx_error *err)
{
    gpt2_generator g;
    if (gpt2_generator_init(&g, m, tok, pool, T + mc->generate, err) != 0)
        return -1;
    const generate_model gm = gpt2_generator_model(&g);
    const generate_options o = {.n = mc->generate,
                                .how = mc->sampling,
                                .seed = mc->seed,
                                .stop = mc->stop};
    generation gen;
    int status = generate_run(&gen, &gm, &o, prompt, T, err);
    const size_t positions = g.cache.cap;
    gpt2_generator_free(&g);
    if (status != 0)
        return -1;
    tr->model.context_full = gen.end == GENERATE_END_CONTEXT ? positions : 0;
    status = put_generated(tr, tok, &gen, err);
    if (status == 0)
        status = put_continued(tr, tok, prompt, T, &gen, err);
    generation_free(&gen);
    return status;
}

int gpt2_generation_put(trace *tr, const gpt2_tokenizer *tok,
                        const int32_t *prompt, size_t T, const generation *gen,
                        size_t positions, mx_error *err)
{
    tr->model.context_full = gen->end == GENERATE_END_CONTEXT ? positions : 0;
    if (put_generated(tr, tok, gen, err) != 0)
        return -1;
    return put_continued(tr, tok, prompt, T, gen, err);
}
