/* corpus_mean.c: each head's z, its mean over --corpus's texts
 * (corpus_mean.h). */
#include "model/intervene/corpus_mean.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/i18n.h"

bool corpus_mean_asked(const lm_ops *lm, const run_request *rq,
                       const model_input *in)
{
    return lm != NULL && !lm->own_corpus && in->corpus != NULL &&
           rq->ablate_mode == HOOK_MEAN && (rq->n_ablate > 0 || rq->ablate_all);
}

/* err's message about corpus text i (from 0), said as --input says it:
 * "FILE:LINE: column 'NAME': why". */
static int text_error(mx_error *err, const model_input *in, size_t i)
{
    char why[sizeof err->msg];
    snprintf(why, sizeof why, "%s", err->msg);
    if (in->corpus_lines != NULL)
        return err_input(err, _("%s:%zu: column '%s': %s"), in->corpus_file,
                         in->corpus_lines[i], in->corpus_column, why);
    return err_input(err, _("--corpus: sentence %zu: %s"), i, why);
}

/* *ids (*T of them, malloc'ed) = corpus text i through s's tokenizer. */
static int text_ids(int32_t **ids, size_t *T, const lm_ops *lm,
                    const lm_session *s, const model_input *in, size_t i,
                    mx_error *err)
{
    const char *text = in->corpus[i];
    if (lm->encode(ids, T, s, text, strlen(text), err) != 0)
        return text_error(err, in, i);
    return 0;
}

static int no_text(const model_input *in, mx_error *err)
{
    if (in->n_corpus > 0)
        return 0;
    if (in->corpus_file != NULL)
        return err_input(err, _("%s: column '%s' holds no sentence"),
                         in->corpus_file, in->corpus_column);
    return err_input(err, _("--corpus: the column holds no sentence"));
}

int corpus_mean_check(const lm_text *run, const model_input *in, mx_error *err)
{
    if (no_text(in, err) != 0)
        return -1;
    for (size_t i = 0; i < in->n_corpus; i++) {
        int32_t *ids = NULL;
        size_t T = 0;
        if (text_ids(&ids, &T, run->lm, run->s, in, i, err) != 0)
            return -1;
        free(ids);
    }
    return 0;
}

/* The recorder of the corpus's passes: each head's z (T, hd), its rows
 * added to the head's stream (heads of them a layer), which the head's
 * first z makes, for `total` rows of its width. */
typedef struct {
    mean_stream *each; /* layers * heads */
    size_t layers, heads, total;
} z_streams;

static int add_z(void *ctx, const table_key *at, const matrix *m, mx_error *err)
{
    const z_streams *z = ctx;
    if (!is_layer_table(at) || at->id != TABLE_HEAD_CONTEXT || at->head < 0 ||
        (size_t)at->layer >= z->layers || (size_t)at->head >= z->heads)
        return 0;
    mean_stream *s = &z->each[(size_t)at->layer * z->heads + (size_t)at->head];
    if (s->acc == NULL && mean_stream_init(s, z->total, m->cols, err) != 0)
        return -1;
    if (s->added + m->rows > s->rows || m->cols != s->n)
        return err_set(err, 1,
                       _("a hook sets %s (%zu x %zu) to a matrix of "
                         "another shape"),
                       table_info_of(at->id)->name, m->rows, m->cols);
    for (size_t t = 0; t < m->rows; t++)
        mean_stream_add(s, m->v + t * m->cols);
    return 0;
}

void corpus_mean_free(head_means *m)
{
    for (size_t i = 0; m->rows != NULL && i < m->layers * m->heads; i++)
        matrix_free(&m->rows[i]);
    free(m->rows);
    *m = (head_means){0};
}

/* ids[i] (lengths[i] of them) = each text of the corpus, tokenized, and
 * *total their count: every text is checked before the first pass. */
static int corpus_texts(int32_t **ids, size_t *lengths, size_t *total,
                        const lm_ops *lm, const lm_session *s,
                        const model_input *in, mx_error *err)
{
    *total = 0;
    for (size_t i = 0; i < in->n_corpus; i++) {
        if (text_ids(&ids[i], &lengths[i], lm, s, in, i, err) != 0)
            return -1;
        *total += lengths[i];
    }
    return 0;
}

/* The clean passes over the n texts (ids, lengths), their z into the
 * streams z, then each stream's mean into m's rows (1 x hd). */
static int run_passes(head_means *m, z_streams *z, lm_session *s,
                      const lm_ops *lm, int32_t *const *ids,
                      const size_t *lengths, size_t n, const run_request *rq,
                      mx_error *err)
{
    const forward_hooks record = {NULL, 0, add_z, z};
    for (size_t i = 0; i < n; i++) {
        if (lm->forward(s, ids[i], lengths[i], &record, err) != 0)
            return -1;
        passes_tell(rq->passes, "--corpus", i + 1, n);
    }
    for (size_t i = 0; i < m->layers * m->heads; i++) {
        const mean_stream *one = &z->each[i];
        if (one->acc == NULL)
            return err_set(err, 1, _("the model made no head_context"));
        if (matrix_alloc(&m->rows[i], 1, one->n, N_("the corpus"), err) != 0 ||
            mean_stream_finish(m->rows[i].v, one, err) != 0)
            return -1;
    }
    return 0;
}

int corpus_mean_of(head_means *m, const lm_ops *lm, const run_request *rq,
                   const model_input *in, mx_error *err)
{
    *m = (head_means){0};
    if (no_text(in, err) != 0)
        return -1;
    lm_session *s = NULL;
    lm_shape shape;
    if (lm->open(&s, &shape, rq, err) != 0)
        return -1;
    const size_t n = in->n_corpus, count = shape.layers * shape.heads;
    int32_t **ids = calloc(n, sizeof *ids);
    size_t *lengths = calloc(n, sizeof *lengths);
    z_streams z = {calloc(count, sizeof *z.each), shape.layers, shape.heads, 0};
    m->layers = shape.layers;
    m->heads = shape.heads;
    m->rows = calloc(count, sizeof *m->rows);
    int rc = ids && lengths && z.each && m->rows
                 ? 0
                 : err_nomem(err, _("the corpus"));
    if (rc == 0)
        rc = corpus_texts(ids, lengths, &z.total, lm, s, in, err);
    if (rc == 0)
        rc = run_passes(m, &z, s, lm, ids, lengths, n, rq, err);
    for (size_t i = 0; z.each != NULL && i < count; i++)
        mean_stream_free(&z.each[i]);
    free(z.each);
    for (size_t i = 0; ids != NULL && i < n; i++)
        free(ids[i]);
    free(ids);
    free(lengths);
    lm->close(s);
    if (rc != 0)
        corpus_mean_free(m);
    return rc;
}
