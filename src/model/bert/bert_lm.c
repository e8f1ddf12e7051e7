/* bert_lm.c: a BERT checkpoint as the model the head scores read
 * (bert_lm.h): its row of checkpoint_lm.h. */
#include "model/bert/bert_lm.h"

#include <stdlib.h>

#include "base/i18n.h"
#include "model/bert/bert.h"
#include "model/checkpoint_lm.h"

static int open_model(void *m, const char *dir, mx_error *err)
{
    return bert_open(m, dir, err);
}

static void close_model(void *m)
{
    bert_close(m);
}

static lm_shape shape(const void *m)
{
    const bert_config *c = &((const bert_model *)m)->cfg;
    return (lm_shape){c->n_layer, c->n_head, c->vocab_size, c->n_positions,
                      NULL};
}

static size_t width(const void *m)
{
    return ((const bert_model *)m)->cfg.d;
}

/* BertModel's forward over one text: every token of type 0 (the
 * token_type_ids BertModel makes when none are given); no masked-word
 * head, whose logits no intervention reads. */
static int forward(const void *m, const int32_t *ids, size_t T,
                   const forward_hooks *hk, workers *pool, mx_error *err)
{
    int32_t *types = calloc(T > 0 ? T : 1, sizeof *types);
    if (types == NULL)
        return err_nomem(err, _("tokens"));
    matrix out = {0};
    const bert_run run = {hk, false, pool};
    const int rc = bert_forward(&out, m, ids, types, T, &run, err);
    matrix_free(&out);
    free(types);
    return rc;
}

static const checkpoint_lm_row row = {
    .model_size = sizeof(bert_model),
    .open = open_model,
    .close = close_model,
    .shape = shape,
    .width = width,
    .forward = forward,
};

static int open_lm(lm_session **s, lm_shape *shape_out, const run_request *rq,
                   mx_error *err)
{
    return checkpoint_lm_open(s, shape_out, &row, rq, err);
}

const lm_ops bert_scores_lm = {
    .open = open_lm,
    .encode = checkpoint_lm_encode,
    .encode_word = checkpoint_lm_encode_word,
    .label = checkpoint_lm_label,
    .forward = checkpoint_lm_forward,
    .close = checkpoint_lm_close,
    .draws = checkpoint_lm_draws,
};
