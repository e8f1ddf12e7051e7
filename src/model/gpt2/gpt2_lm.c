/* gpt2_lm.c: a GPT-2 checkpoint as the interventions' language model
 * (gpt2_lm.h): its row of checkpoint_lm.h. */
#include "model/gpt2/gpt2_lm.h"

#include "model/checkpoint_lm.h"
#include "model/gpt2/gpt2.h"

static int open_model(void *m, const char *dir, mx_error *err)
{
    return gpt2_open(m, dir, err);
}

static void close_model(void *m)
{
    gpt2_close(m);
}

static lm_shape shape(const void *m)
{
    const gpt2_config *c = &((const gpt2_model *)m)->cfg;
    return (lm_shape){c->n_layer, c->n_head, c->vocab_size, c->n_positions,
                      NULL};
}

static size_t width(const void *m)
{
    return ((const gpt2_model *)m)->cfg.n_embd;
}

static int forward(const void *m, const int32_t *ids, size_t T,
                   const forward_hooks *hk, workers *pool, mx_error *err)
{
    matrix out = {0};
    const gpt2_run run = {hk, true, pool, NULL};
    const int rc = gpt2_forward(&out, m, ids, T, &run, err);
    matrix_free(&out);
    return rc;
}

/* ln_f. */
static void final_norm(matrix *out, const void *model, const matrix *resid)
{
    const gpt2_model *m = model;
    layer_norm(out, resid, m->ln_f_w, m->ln_f_b, m->cfg.eps);
}

/* The lm_head (wte when tied). */
static void logits(matrix *logits, const void *m, const matrix *normed,
                   workers *pool)
{
    gpt2_logits(logits, m, normed, pool);
}

static int layers(const void *m, matrix *resid, size_t n, size_t first,
                  size_t count, const forward_hooks *hooks, workers *pool,
                  mx_error *err)
{
    return gpt2_layers(resid, m, n, first, count, hooks, pool, err);
}

static const checkpoint_lm_row row = {
    .model_size = sizeof(gpt2_model),
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

const lm_ops gpt2_lm =
    CHECKPOINT_LM_OPS(open_lm, checkpoint_lm_layers, checkpoint_lm_draws);
