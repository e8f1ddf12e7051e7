/* llama_lm.c: a Llama-style checkpoint as the interventions' language
 * model (llama_lm.h): its row of checkpoint_lm.h. */
#include "model/llama/llama_lm.h"

#include "model/checkpoint_lm.h"
#include "model/llama/llama.h"
#include "numerics/rms_norm.h"

static int open_model(void *m, const char *dir, mx_error *err)
{
    return llama_open(m, dir, err);
}

static void close_model(void *m)
{
    llama_close(m);
}

static lm_shape shape(const void *m)
{
    const llama_config *c = &((const llama_model *)m)->cfg;
    return (lm_shape){c->n_layer, c->n_head, c->vocab_size, c->n_positions,
                      NULL};
}

static size_t width(const void *m)
{
    return ((const llama_model *)m)->cfg.hidden;
}

static int forward(const void *m, const int32_t *ids, size_t T,
                   const forward_hooks *hk, workers *pool, mx_error *err)
{
    matrix out = {0};
    const llama_run run = {hk, true, pool, NULL};
    const int rc = llama_forward(&out, m, ids, T, &run, err);
    matrix_free(&out);
    return rc;
}

/* The final RMSNorm. */
static void final_norm(matrix *out, const void *model, const matrix *resid)
{
    const llama_model *m = model;
    rms_norm(out, resid, m->norm, m->cfg.eps);
}

/* lm_head (embed_tokens when tied). */
static void logits(matrix *logits, const void *m, const matrix *normed,
                   workers *pool)
{
    llama_logits(logits, m, normed, pool);
}

static int layers(const void *m, matrix *resid, size_t n, size_t first,
                  size_t count, const forward_hooks *hooks, workers *pool,
                  mx_error *err)
{
    return llama_layers(resid, m, n, first, count, hooks, pool, err);
}

static const checkpoint_lm_row row = {
    .model_size = sizeof(llama_model),
    .open = open_model,
    .close = close_model,
    .shape = shape,
    .width = width,
    .forward = forward,
    .final_norm = final_norm,
    .logits = logits,
    .layers = layers,
};

static int open_lm(lm_session **s, lm_shape *shape_out, const run_request *rq,
                   mx_error *err)
{
    return checkpoint_lm_open(s, shape_out, &row, rq, err);
}

/* --repeat-random draws the tokenizer's ordinary tokens, never its
 * special ones (bos, eos, pad), with the post-processor's around them */
const lm_ops llama_lm =
    CHECKPOINT_LM_OPS(open_lm, checkpoint_lm_layers, checkpoint_lm_draws);
