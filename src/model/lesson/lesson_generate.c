/* lesson_generate.c: a trained lesson model writes (lesson_generate.h). */
#include "model/lesson/lesson_generate.h"

#include <assert.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/i18n.h"
#include "model/generate.h"

/* What the steps share: the model and the sequence so far. */
typedef struct {
    variant_id variant;
    const train_model *m;
    const model_dims *dims;
    attention_config cfg; /* the module's, without hooks */
    const labels *vocab;
    size_t *ids; /* (cap) the prompt, then the new words */
    size_t n, cap;
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
    const int rc = train_pass(&loss, &all, NULL, s->m, s->variant, s->dims,
                              &s->cfg, &seq, NULL, err);
    if (rc == 0)
        memcpy(logits, matrix_at(&all, s->n - 1, 0), V * sizeof *logits);
    matrix_free(&all);
    return rc;
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

/* generated (N x 15) of variant v, each row labelled with its word: the
 * columns of a checkpoint's (model/gpt2/gpt2_generate.h). */
static int put_generated(trace *tr, variant_id v, const labels *vocab,
                         const generation *gen, mx_error *err)
{
    static const char *const columns[] = {
        "id",   "probability", "p_logits", "top_k_kept", "top_p_kept",
        "top1", "p1",          "top2",     "p2",         "top3",
        "p3",   "top4",        "p4",       "top5",       "p5"};
    _Static_assert(sizeof columns / sizeof *columns == 5 + 2 * GENERATE_TOP,
                   "a column per alternative and its probability");
    const size_t N = gen->n, W = sizeof columns / sizeof *columns;
    const char **names = calloc(N > 0 ? N : 1, sizeof *names);
    if (names == NULL)
        return err_nomem(err, _("tokens"));
    for (size_t i = 0; i < N; i++)
        names[i] = vocab->s[gen->tokens[i].token];
    const labels *rows = trace_word_labels(tr, "", names, N, err);
    free(names);
    const labels *cols =
        rows != NULL ? trace_word_labels(tr, "", columns, W, err) : NULL;
    const table_key key = {v, 0, NO_HEAD, TABLE_GENERATED, false};
    table *t = cols != NULL ? trace_new(tr, &key, rows, cols, err) : NULL;
    if (t == NULL)
        return -1;
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
    return 0;
}

int lesson_generate_into(trace *tr, variant_id id, const model_config *mc,
                         const train_model *m, const model_dims *dims,
                         const attention_config *cfg, const size_t *prompt,
                         size_t T, size_t context, const labels *vocab,
                         mx_error *err)
{
    // the positions learned bound the sequence; without them the
    // notebook's classes are built for the longest sentence trained on
    // (their masks' context_length), which bounds it the same
    const size_t C = m->positions != NULL ? m->positions->rows : context;
    lesson_steps s = {.variant = id,
                      .m = m,
                      .dims = dims,
                      .cfg = *cfg,
                      .vocab = vocab,
                      .cap = C};
    s.cfg.hooks = NULL;
    int32_t *start = malloc(T * sizeof *start);
    s.ids = malloc(C * sizeof *s.ids);
    if (start == NULL || s.ids == NULL) {
        free(start);
        free(s.ids);
        return err_nomem(err, _("tokens"));
    }
    for (size_t i = 0; i < T; i++)
        start[i] = (int32_t)prompt[i];
    const generate_model gm = {.ctx = &s,
                               .vocab = m->lm_head->rows,
                               .context = C,
                               .end = -1,
                               .step = step,
                               .bytes = bytes};
    const generate_options o = {.n = mc->generate,
                                .how = mc->sampling,
                                .seed = mc->seed,
                                .stop = mc->stop};
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
