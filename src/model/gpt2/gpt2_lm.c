/* gpt2_lm.c: a GPT-2 checkpoint as the interventions' language model
 * (gpt2_lm.h). */
#include "model/gpt2/gpt2_lm.h"

#include <stdlib.h>

#include "base/i18n.h"
#include "model/gpt2/gpt2.h"
#include "model/gpt2/gpt2_tokenizer.h"
#include "model/pipeline.h"
#include "numerics/workers.h"

struct lm_session {
    gpt2_model model;
    gpt2_tokenizer *tokenizer;
    workers *pool;
};

static void close_session(lm_session *s)
{
    if (s == NULL)
        return;
    gpt2_close(&s->model);
    gpt2_tokenizer_free(s->tokenizer);
    workers_free(s->pool);
    free(s);
}

static int open_session(lm_session **out, lm_shape *shape,
                        const model_config *mc, mx_error *err)
{
    lm_session *s = calloc(1, sizeof *s);
    *out = NULL;
    if (s == NULL)
        return err_nomem(err, mc->model);
    const size_t threads = mc->threads != 0 ? mc->threads : workers_available();
    if (gpt2_open(&s->model, mc->model, err) != 0 ||
        gpt2_tokenizer_open(&s->tokenizer, mc->model, err) != 0 ||
        workers_init(&s->pool, threads, err) != 0) {
        close_session(s);
        return -1;
    }
    const gpt2_config *c = &s->model.cfg;
    *shape = (lm_shape){c->n_layer, c->n_head, c->vocab_size, c->n_positions};
    *out = s;
    return 0;
}

static int encode(int32_t **ids, size_t *T, const lm_session *s,
                  const char *text, size_t len, mx_error *err)
{
    const size_t most = s->model.cfg.n_positions;
    *ids = NULL;
    if (gpt2_tokenizer_encode(ids, T, s->tokenizer, text, len, most, err) != 0)
        return -1;
    if (*T == 0 || *T > most) {
        free(*ids);
        *ids = NULL;
        return *T == 0
                   ? err_input(err, _("the text has no tokens"))
                   : err_input(
                         err,
                         _("the text is more than %zu tokens, the model's n_positions"),
                         most);
    }
    return 0;
}

static void label(char *buf, size_t size, const lm_session *s, int32_t id)
{
    gpt2_tokenizer_label(buf, size, s->tokenizer, id);
}

static int forward(lm_session *s, const int32_t *ids, size_t T,
                   const forward_hooks *hk, mx_error *err)
{
    matrix out = {0};
    const gpt2_run run = {hk, true, s->pool, NULL};
    const int rc = gpt2_forward(&out, &s->model, ids, T, &run, err);
    matrix_free(&out);
    return rc;
}

/* ln_f, then the lm_head tied to wte. */
static int unembed(lm_session *s, matrix *logits, const matrix *resid,
                   mx_error *err)
{
    const gpt2_model *m = &s->model;
    matrix out = {0};
    if (matrix_alloc(&out, resid->rows, m->cfg.n_embd, N_("hidden states"),
                     err) != 0)
        return -1;
    layer_norm(&out, resid, m->ln_f_w, m->ln_f_b, m->cfg.eps);
    gpt2_logits(logits, m, &out, s->pool);
    matrix_free(&out);
    return 0;
}

static int layers(lm_session *s, matrix *resid, size_t n, size_t first,
                  size_t count, const forward_hooks *hooks, mx_error *err)
{
    return gpt2_layers(resid, &s->model, n, first, count, hooks, s->pool, err);
}

const lm_ops gpt2_lm = {
    .open = open_session,
    .encode = encode,
    .label = label,
    .forward = forward,
    .unembed = unembed,
    .close = close_session,
    .layers = layers,
};
