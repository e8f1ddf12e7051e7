/* checkpoint_lm.c: a checkpoint family's model as the interventions'
 * language model (checkpoint_lm.h). */
#include "model/checkpoint_lm.h"

#include <stdlib.h>
#include <string.h>

#include "base/i18n.h"
#include "model/checkpoint_run.h"
#include "model/family.h"
#include "model/tokenizers/checkpoint_tokenizer.h"
#include "model/tokenizers/hf_tokenizer.h"

struct lm_session {
    const checkpoint_lm_row *row;
    const char *positions_key; /* the family row's (family.h) */
    void *model; /* the family's model, row->model_size bytes; owned */
    checkpoint_tokenizer *tokenizer;
    workers *pool;
    size_t positions; /* the most tokens a text may have */
};

void checkpoint_lm_close(lm_session *s)
{
    if (s == NULL)
        return;
    if (s->model != NULL)
        s->row->close(s->model);
    free(s->model);
    checkpoint_tokenizer_free(s->tokenizer);
    workers_free(s->pool);
    free(s);
}

int checkpoint_lm_open(lm_session **out, lm_shape *shape,
                       const checkpoint_lm_row *row, const run_request *rq,
                       mx_error *err)
{
    *out = NULL;
    const model_family *family = family_of(rq, err);
    if (family == NULL)
        return -1;
    lm_session *s = calloc(1, sizeof *s);
    if (s != NULL) {
        s->positions_key = family->positions_key;
        s->row = row;
        s->model = calloc(1, row->model_size);
    }
    if (s == NULL || s->model == NULL) {
        checkpoint_lm_close(s);
        return err_nomem(err, rq->checkpoint);
    }
    const size_t threads = rq->threads != 0 ? rq->threads : workers_available();
    if (row->open(s->model, rq->checkpoint, err) != 0) {
        checkpoint_lm_close(s);
        return -1;
    }
    *shape = row->shape(s->model);
    s->positions = shape->positions;
    // the family's run checks its size too, which --repeat-random's skips
    if (checkpoint_run_tokenizer(&s->tokenizer, rq, shape->vocab, err) != 0 ||
        workers_init(&s->pool, threads, err) != 0) {
        checkpoint_lm_close(s);
        return -1;
    }
    *out = s;
    return 0;
}

int checkpoint_lm_too_long(mx_error *err, size_t given, size_t most,
                           const char *key)
{
    return err_input(
        err, _("the text is %zu tokens; the model takes at most %zu (%s)"),
        given, most, key);
}

/* The text's ids, with the post-processor's special tokens if
 * add_special; a text with no tokens or too many is refused. */
static int encode_ids(int32_t **ids, size_t *T, const lm_session *s,
                      const char *text, size_t len, bool add_special,
                      mx_error *err)
{
    const size_t most = s->positions;
    *ids = NULL;
    if ((add_special ? checkpoint_tokenizer_encode(ids, T, s->tokenizer, text,
                                                   len, most, err)
                     : checkpoint_tokenizer_encode_word(
                           ids, T, s->tokenizer, text, len, most, err)) != 0)
        return -1;
    if (*T == 0 || *T > most) {
        free(*ids);
        *ids = NULL;
        size_t given = 0;
        if (*T == 0)
            return err_input(err, _("the text has no tokens"));
        return checkpoint_tokenizer_count(&given, s->tokenizer, text, len,
                                          err) != 0
                   ? -1
                   : checkpoint_lm_too_long(err, given, most, s->positions_key);
    }
    return 0;
}

int checkpoint_lm_encode(int32_t **ids, size_t *T, const lm_session *s,
                         const char *text, size_t len, mx_error *err)
{
    return encode_ids(ids, T, s, text, len, true, err);
}

int checkpoint_lm_encode_word(int32_t **ids, size_t *T, const lm_session *s,
                              const char *text, size_t len, mx_error *err)
{
    return encode_ids(ids, T, s, text, len, false, err);
}

void checkpoint_lm_label(char *buf, size_t size, const lm_session *s,
                         int32_t id)
{
    checkpoint_tokenizer_label(buf, size, s->tokenizer, id);
}

int checkpoint_lm_forward(lm_session *s, const int32_t *ids, size_t T,
                          const forward_hooks *hk, mx_error *err)
{
    return s->row->forward(s->model, ids, T, hk, s->pool, err);
}

/* The final norm, then lm_head. */
int checkpoint_lm_unembed(lm_session *s, matrix *logits, const matrix *resid,
                          mx_error *err)
{
    matrix out = {0};
    if (matrix_alloc(&out, resid->rows, s->row->width(s->model),
                     N_("hidden states"), err) != 0)
        return -1;
    s->row->final_norm(&out, s->model, resid);
    s->row->logits(logits, s->model, &out, s->pool);
    matrix_free(&out);
    return 0;
}

int checkpoint_lm_layers(lm_session *s, matrix *resid, size_t n, size_t first,
                         size_t count, const forward_hooks *hooks,
                         mx_error *err)
{
    return s->row->layers(s->model, resid, n, first, count, hooks, s->pool,
                          err);
}

/* Whether id is an ordinary token of the tokenizer: a token of
 * tokenizer.json not marked special, or, read from vocab.json, a token
 * of it but GPT2Tokenizer's special one, <|endoftext|>. */
static bool ordinary(const lm_session *s, const struct hf_tokenizer *hf,
                     int32_t id)
{
    size_t len;
    if (hf != NULL)
        return hf_tokenizer_piece(hf, id, &len) != NULL &&
               !hf_tokenizer_special(hf, id);
    static const char eot[] = "<|endoftext|>";
    unsigned char raw[sizeof eot];
    const size_t n =
        checkpoint_tokenizer_bytes(raw, sizeof raw, s->tokenizer, id);
    return n > 0 && !(n == sizeof eot - 1 && memcmp(raw, eot, n) == 0);
}

int checkpoint_lm_draws(lm_draws *d, const lm_session *s, mx_error *err)
{
    const struct hf_tokenizer *hf = checkpoint_tokenizer_json(s->tokenizer);
    const size_t n = checkpoint_tokenizer_vocab_size(s->tokenizer);
    *d = (lm_draws){0};
    if ((d->words = calloc(n > 0 ? n : 1, sizeof *d->words)) == NULL)
        return err_nomem(err, _("tokens"));
    // the ids a token has, in order, but the special ones
    for (size_t id = 0; id < n; id++)
        if (ordinary(s, hf, (int32_t)id))
            d->words[d->n_words++] = (int32_t)id;
    checkpoint_tokenizer_specials(&d->before, &d->n_before, &d->after,
                                  &d->n_after, s->tokenizer);
    if (d->n_words == 0) {
        free(d->words);
        *d = (lm_draws){0};
        return err_input(err,
                         _("--repeat-random: the tokenizer has only special "
                           "tokens"));
    }
    return 0;
}
