/* lesson_generate.c: a trained lesson model writes (lesson_generate.h). */
#include "model/lesson/lesson_generate.h"

#include <assert.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/i18n.h"
#include "base/limits.h"
#include "model/generate.h"
#include "model/lesson/lesson_steps.h"

/* What the steps share: the model and the sequence so far. */
typedef struct {
    variant_id variant;
    const train_model *m;
    const model_dims *dims;
    attention_config cfg; /* the module's, without hooks */
    const labels *vocab;
    size_t *ids; /* (cap) the prompt, then the new words */
    size_t n, cap;
    /* the steps' tables (--kv-steps, the page): whom a step hands its
       heads' tables to (NULL: no one), and the cache the module would
       keep, which kv_cache_size shows (lesson_steps.h) */
    const forward_hooks *listener;
    kv_cache would_keep;
} lesson_steps;

/* ids (n) appended to the sequence; logits (V) of its last row:
 * lm_head(module(emb(ids) + pos(arange(len(ids)))))[-1], the whole
 * sequence run again. */
static int step(void *ctx, float *logits, const int32_t *ids, size_t n,
                mx_error *err)
{
    lesson_steps *s = ctx;
    // generate_run steps only while the sequence is shorter than the
    // context (s->cap), and the prompt fits the positions
    assert(s->n + n <= s->cap);
    for (size_t i = 0; i < n; i++)
        s->ids[s->n + i] = (size_t)ids[i];
    s->n += n;
    const size_t V = s->m->lm_head->rows;
    matrix all = {0};
    if (matrix_alloc(&all, s->n, V, N_("the logits"), err) != 0)
        return -1;
    float loss;
    const train_sentence seq = {s->ids, s->n};
    int rc = train_pass(&loss, &all, NULL, s->m, s->variant, s->dims, &s->cfg,
                        &seq, NULL, err);
    if (rc == 0)
        memcpy(logits, matrix_at(&all, s->n - 1, 0), V * sizeof *logits);
    matrix_free(&all);
    // the step's tables: the last rows of the module's pass over the
    // whole sequence again
    if (rc == 0 && s->listener != NULL)
        rc = lesson_step_record(&s->would_keep.width, &s->would_keep.n_layer,
                                s->listener, s->variant, s->m, &s->cfg, s->ids,
                                s->n, err);
    return rc;
}

/* generate_model.listen: the steps from now on hand their tables to hk. */
static void listen(void *ctx, const forward_hooks *hk)
{
    lesson_steps *s = ctx;
    s->listener = hk;
}

/* --stop reads the new text as the words joined by spaces: a space,
 * then the word. */
static size_t bytes(void *ctx, unsigned char *buf, size_t size, int32_t id)
{
    const lesson_steps *s = ctx;
    const char *word = s->vocab->s[id];
    const size_t n = strlen(word) + 1;
    if (size == 0)
        return 0;
    buf[0] = ' ';
    const size_t k = n <= size ? n - 1 : size - 1;
    memcpy(buf + 1, word, k);
    return k + 1;
}

/* Word id of the vocabulary ctx (labels) as a table's label. */
static void word_label(const void *ctx, char *buf, size_t size, int32_t id)
{
    const labels *vocab = ctx;
    snprintf(buf, size, "%s", vocab->s[id]);
}

/* generate_model.label: word id of the steps' vocabulary. */
static void step_label(void *ctx, char *buf, size_t size, int32_t id)
{
    const lesson_steps *s = ctx;
    word_label(s->vocab, buf, size, id);
}

/* generated (N x 15) of variant v (generate.h's table), each row
 * labelled with its word, and generated_top. */
static int put_generated(trace *tr, variant_id v, const labels *vocab,
                         const generation *gen, mx_error *err)
{
    const size_t N = gen->n;
    const char **names = calloc(N > 0 ? N : 1, sizeof *names);
    if (names == NULL)
        return err_nomem(err, _("tokens"));
    for (size_t i = 0; i < N; i++)
        names[i] = vocab->s[gen->tokens[i].token];
    int rc = generation_put_table(tr, v, gen, names, err);
    free(names);
    if (rc == 0)
        rc = generation_put_top(tr, v, gen, word_label, vocab, err);
    return rc;
}

int lesson_generate_into(trace *tr, variant_id id, const run_request *rq,
                         const train_model *m, const model_dims *dims,
                         const attention_config *cfg, const size_t *prompt,
                         size_t T, size_t context, const labels *vocab,
                         mx_error *err)
{
    // the positions learned bound the sequence; without them the
    // notebook's classes are built for the longest sentence trained on
    // (their masks' context_length), which bounds it the same; not known
    // (an older folder), the longest sentence the program reads
    const size_t C = m->positions != NULL ? m->positions->rows
                     : context > 0        ? context
                                          : MAX_TOKENS;
    // a prompt longer than that (no positions to refuse it) gets the one
    // word its last position predicts
    lesson_steps s = {.variant = id,
                      .m = m,
                      .dims = dims,
                      .cfg = *cfg,
                      .vocab = vocab,
                      .cap = T > C ? T : C};
    s.cfg.hooks = NULL;
    int32_t *start = malloc(T * sizeof *start);
    s.ids = malloc(s.cap * sizeof *s.ids);
    if (start == NULL || s.ids == NULL) {
        free(start);
        free(s.ids);
        return err_nomem(err, _("tokens"));
    }
    for (size_t i = 0; i < T; i++)
        start[i] = (int32_t)prompt[i];
    // with --kv-steps (or for the page) the steps' tables, as a cache
    // would have made them
    const bool steps = rq->kv_steps || rq->page_steps;
    const generate_model gm = {.ctx = &s,
                               .vocab = m->lm_head->rows,
                               .context = C,
                               .end = -1,
                               .step = step,
                               .bytes = bytes,
                               .listen = steps ? listen : NULL,
                               .label = step_label,
                               .cache = &s.would_keep};
    const generate_options o = {.n = rq->generate,
                                .how = rq->sampling,
                                .seed = rq->seed,
                                .stop = rq->stop,
                                .steps = steps ? tr : NULL,
                                .weights_only = !rq->kv_steps,
                                .variant = id};
    generation gen;
    int rc = generate_run(&gen, &gm, &o, start, T, err);
    free(start);
    free(s.ids);
    if (rc != 0)
        return -1;
    if (gen.end == GENERATE_END_CONTEXT)
        tr->model.context_full = C;
    rc = put_generated(tr, id, vocab, &gen, err);
    generation_free(&gen);
    return rc;
}
