/* lesson_steps.c: a lesson model's generation step as tables
 * (lesson_steps.h). */
#include "model/lesson/lesson_steps.h"

#include "base/i18n.h"
#include "model/lesson/variants.h"

/* The labels a forward pass over P positions reads; the step's tables
 * are labelled again by their recorder (generate.c). */
static int pass_labels(sequence_labels *seq, trace *tr, size_t P, mx_error *err)
{
    seq->tokens = trace_index_labels(tr, "t", P, err);
    seq->queries = seq->tokens ? trace_index_labels(tr, "Q:", P, err) : NULL;
    seq->keys = seq->queries ? trace_index_labels(tr, "K:", P, err) : NULL;
    seq->values = seq->keys ? trace_index_labels(tr, "V:", P, err) : NULL;
    return seq->values != NULL ? 0 : -1;
}

/* Whether table id is one of a step's: the new token's row of it (*last)
 * or every position's (keys and values). */
static bool step_table(bool *last, table_id id)
{
    switch (id) {
    case TABLE_QUERIES:
    case TABLE_ATTN_SCORES:
    case TABLE_ATTN_WEIGHTS:
    case TABLE_HEAD_CONTEXT:
        *last = true;
        return true;
    case TABLE_KEYS:
    case TABLE_VALUES:
        *last = false;
        return true;
    default:
        return false;
    }
}

/* Hands head table t of the pass to the recorder: its last row, or all
 * of it. */
static int hand_on(const forward_hooks *hk, const table *t, bool last,
                   mx_error *err)
{
    const size_t rows = t->values.rows, cols = t->values.cols;
    matrix m = {.rows = last ? 1 : rows,
                .cols = cols,
                .v = t->values.v + (last ? (rows - 1) * cols : 0)};
    const table_key at = {t->variant, t->layer, t->head, t->id, false};
    return hook_point(hk, &at, &m, err);
}

int lesson_step_record(size_t *width, size_t *layers, const forward_hooks *hk,
                       variant_id v, const train_model *m,
                       const attention_config *cfg, const size_t *ids, size_t P,
                       mx_error *err)
{
    const size_t D = m->embedding->cols;
    trace pass;
    trace_init(&pass);
    matrix x = {0};
    sequence_labels seq;
    int rc = matrix_alloc(&x, P, D, N_("the inputs"), err);
    if (rc == 0)
        rc = pass_labels(&seq, &pass, P, err);
    if (rc == 0) {
        // x (P, D) = emb(ids) + pos(arange(P)), then the module's forward
        // pass over it, its tables in the pass's trace
        train_inputs(&x, m, ids);
        const attention_input in = {&x, &x};
        rc = variant_row_of(v)->forward(&pass, m->module, cfg, &in, &seq, err);
    }
    *width = 0;
    *layers = 0;
    for (size_t i = 0; rc == 0 && i < trace_count(&pass); i++) {
        const table *t = trace_at(&pass, i);
        bool last;
        if (t->head == NO_HEAD || t->grad || t->values.v == NULL ||
            !step_table(&last, t->id))
            continue;
        if (t->id == TABLE_KEYS && t->layer == 0)
            *width += t->values.cols;
        if ((size_t)t->layer + 1 > *layers)
            *layers = (size_t)t->layer + 1;
        rc = hand_on(hk, t, last, err);
    }
    trace_free(&pass);
    matrix_free(&x);
    return rc;
}
