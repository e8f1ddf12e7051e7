/* llama_generate.c: a Llama-style checkpoint's step for generation
 * (llama_generate.h). */
#include "model/llama/llama_generate.h"

#include "base/i18n.h"
#include "model/gpt2/gpt2_generate.h"
#include "model/llama/llama_config.h"

int llama_generator_init(llama_generator *g, const llama_model *m,
                         const checkpoint_tokenizer *tok, workers *pool,
                         size_t positions, mx_error *err)
{
    *g = (llama_generator){.m = m, .tok = tok, .pool = pool};
    const llama_config *c = &m->cfg;
    // a text that grows past the sliding window ends there
    const char *key;
    const size_t most = llama_context(c, &key);
    if (positions > most)
        positions = most;
    const size_t kv_width = c->n_kv_head * (c->hidden / c->n_head);
    return kv_cache_init(&g->cache, c->n_layer, positions, kv_width, err);
}

void llama_generator_free(llama_generator *g)
{
    kv_cache_free(&g->cache);
}

/* model(input_ids, past_key_values=past, use_cache=True,
 * logits_to_keep=1): ids (n) after the cached positions; logits (V) of
 * the last row. */
static int step(void *ctx, float *logits, const int32_t *ids, size_t n,
                mx_error *err)
{
    llama_generator *g = ctx;
    if (g->cache.len + n > g->cache.cap) {
        const char *key;
        llama_context(&g->m->cfg, &key);
        return err_input(
            err, _("the text is %zu tokens; the model takes at most %zu (%s)"),
            g->cache.len + n, g->cache.cap, key);
    }
    const llama_run run = {.hooks = g->hooks,
                           .logits = false,
                           .pool = g->pool,
                           .cache = &g->cache};
    matrix out = {0};
    if (llama_forward(&out, g->m, ids, n, &run, err) != 0)
        return -1;
    // logits = lm_head(hidden_states[:, -1:, :])
    const size_t D = g->m->cfg.hidden;
    const matrix last = {1, D, out.v + (n - 1) * D};
    matrix row = {1, g->m->cfg.vocab_size, logits};
    llama_logits(&row, g->m, &last, g->pool);
    matrix_free(&out);
    return 0;
}

static size_t bytes(void *ctx, unsigned char *buf, size_t size, int32_t id)
{
    const llama_generator *g = ctx;
    return checkpoint_tokenizer_bytes(buf, size, g->tok, id);
}

static void label(void *ctx, char *buf, size_t size, int32_t id)
{
    const llama_generator *g = ctx;
    checkpoint_tokenizer_label(buf, size, g->tok, id);
}

static void listen(void *ctx, const forward_hooks *hooks)
{
    llama_generator *g = ctx;
    g->hooks = hooks;
}

generate_model llama_generator_model(llama_generator *g)
{
    const llama_config *c = &g->m->cfg;
    return (generate_model){
        .ctx = g,
        .vocab = c->vocab_size,
        .context = g->cache.cap,
        .end = c->n_eos > 0 ? c->eos[0] : -1,
        .more_ends = c->n_eos > 1 ? c->eos + 1 : NULL,
        .n_more_ends = c->n_eos > 1 ? c->n_eos - 1 : 0,
        .step = step,
        .bytes = bytes,
        .listen = listen,
        .label = label,
        .cache = &g->cache,
    };
}

/* *gen: m's generation from the prompt as o says, over a cache of its
 * own; *positions its cache's. */
static int generate_once(generation *gen, size_t *positions,
                         const llama_model *m, const checkpoint_tokenizer *tok,
                         const int32_t *prompt, size_t T,
                         const generate_options *o, workers *pool,
                         mx_error *err)
{
    llama_generator g;
    if (llama_generator_init(&g, m, tok, pool, T + o->n, err) != 0)
        return -1;
    const generate_model gm = llama_generator_model(&g);
    const int status = generate_run(gen, &gm, o, prompt, T, err);
    *positions = g.cache.cap;
    llama_generator_free(&g);
    return status;
}

int llama_generate_into(trace *tr, const llama_model *m,
                        const checkpoint_tokenizer *tok, const int32_t *prompt,
                        size_t T, const run_request *rq, workers *pool,
                        mx_error *err)
{
    const generate_options o = {.n = rq->generate,
                                .how = rq->sampling,
                                .seed = rq->seed,
                                .stop = rq->stop,
                                .steps = rq->kv_steps ? tr : NULL,
                                .layers = rq->layers,
                                .n_layers = rq->n_layers,
                                .heads = rq->show_heads,
                                .n_heads = rq->n_show_heads,
                                .replace = rq->replace,
                                .n_replace = rq->n_replace};
    // with heads switched off, the clean model's generation beside it:
    // the same options and seed, no hooks and no steps' tables
    const generate_options plain = {.n = rq->generate,
                                    .how = rq->sampling,
                                    .seed = rq->seed,
                                    .stop = rq->stop};
    generation gen = {0}, clean = {0};
    size_t positions = 0;
    const char *context_key; // the key of the positions that end it
    llama_context(&m->cfg, &context_key);
    const bool beside = rq->n_replace > 0;
    int rc = beside ? generate_once(&clean, &positions, m, tok, prompt, T,
                                    &plain, pool, err)
                    : 0;
    if (rc == 0)
        rc = generate_once(&gen, &positions, m, tok, prompt, T, &o, pool, err);
    if (rc == 0)
        rc = gpt2_generation_put(tr, tok, prompt, T, &gen, positions,
                                 context_key, beside ? &clean : NULL, err);
    generation_free(&gen);
    generation_free(&clean);
    return rc;
}
