/* hooks.c: the hook points of the forward passes (hooks.h). */
#include "model/hooks.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "base/i18n.h"

static bool same_place(const table_key *a, const table_key *b)
{
    return a->variant == b->variant && a->layer == b->layer &&
           a->head == b->head && a->id == b->id && !a->grad && !b->grad;
}

/* m (T, n) = each column's mean over the T rows, repeated on every row:
 * the sums of x.mean(dim=0) (mean_rows, PyTorch's order). */
static int mean_over_rows(matrix *m, mx_error *err)
{
    const size_t T = m->rows, n = m->cols;
    const float **rows = calloc(T > 0 ? T : 1, sizeof *rows);
    float *mean = calloc(n > 0 ? n : 1, sizeof *mean);
    if (rows == NULL || mean == NULL) {
        free(rows);
        free(mean);
        return err_nomem(err, _("a hook's mean"));
    }
    for (size_t t = 0; t < T; t++)
        rows[t] = matrix_at(m, t, 0);
    mean_rows(mean, rows, T, n);
    for (size_t t = 0; t < T; t++)
        memcpy(matrix_at(m, t, 0), mean, n * sizeof *mean);
    free(rows);
    free(mean);
    return 0;
}

/* Applies one replacing hook to m. */
static int apply(const replace_hook *k, matrix *m, mx_error *err)
{
    const size_t n = m->rows * m->cols;
    switch (k->action) {
    case HOOK_ZERO:
        memset(m->v, 0, n * sizeof *m->v);
        return 0;
    case HOOK_SET:
        if (k->value == NULL || k->value->rows != m->rows ||
            k->value->cols != m->cols)
            return err_input(
                err,
                _("a hook sets %s (%zu x %zu) to a matrix of another shape"),
                table_info_of(k->at.id)->name, m->rows, m->cols);
        memcpy(m->v, k->value->v, n * sizeof *m->v);
        return 0;
    case HOOK_MEAN:
        return mean_over_rows(m, err);
    case HOOK_ROW:
        if (k->value == NULL || k->value->rows != 1 ||
            k->value->cols != m->cols)
            return err_input(
                err,
                _("a hook sets %s (%zu x %zu) to a matrix of another shape"),
                table_info_of(k->at.id)->name, m->rows, m->cols);
        for (size_t t = 0; t < m->rows; t++)
            memcpy(matrix_at(m, t, 0), k->value->v, m->cols * sizeof *m->v);
        return 0;
    }
    return 0;
}

int hook_point(const forward_hooks *h, const table_key *at, matrix *m,
               mx_error *err)
{
    if (h == NULL)
        return 0;
    for (size_t i = 0; i < h->n_replace; i++)
        if (same_place(&h->replace[i].at, at) &&
            apply(&h->replace[i], m, err) != 0)
            return -1;
    return h->record != NULL ? h->record(h->ctx, at, m, err) : 0;
}

int hook_layer_point(const forward_hooks *h, int L, int head, table_id id,
                     matrix *m, mx_error *err)
{
    if (h == NULL)
        return 0;
    const table_key at = layer_table_key(L, head, id);
    return hook_point(h, &at, m, err);
}

int hook_outer_point(const forward_hooks *h, variant_id v, table_id id,
                     matrix *m, mx_error *err)
{
    if (h == NULL)
        return 0;
    const table_key at = {v, 0, NO_HEAD, id, false};
    return hook_point(h, &at, m, err);
}
