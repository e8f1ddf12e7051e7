/* shading.c: the --color scale of a table: its mask and its ranges. */
#include "render/shading.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

bool is_shaded(const table *t)
{
    return strcmp(t->name, "attn_weights") == 0 ||
           strcmp(t->name, "attn_weights_avg") == 0 ||
           strcmp(t->name, "attn_scores") == 0;
}

/* The scores whose -inf cells are t's masked cells: t itself, or for
 * weights the same head's scores in the run (head 0's for the average:
 * every head has the same mask). NULL when unknown. */
static const matrix *mask_of(const table *t, const trace *tr)
{
    if (strcmp(t->name, "attn_scores") == 0)
        return &t->values;
    if (tr == NULL)
        return NULL;
    int head = t->head == NO_HEAD ? 0 : t->head;
    const table *s = trace_find(tr, t->variant, head, "attn_scores");
    if (s == NULL || s->values.rows != t->values.rows ||
        s->values.cols != t->values.cols)
        return NULL;
    return &s->values;
}

static bool is_masked(const matrix *mask, size_t i, size_t j)
{
    if (mask == NULL)
        return false;
    const float s = *matrix_at(mask, i, j);
    return isinf(s) && s < 0;
}

/* The smallest and largest finite unmasked values of rows [r0, r1) of t;
 * false when there are none. */
static bool value_range(const table *t, const matrix *mask, size_t r0,
                        size_t r1, double *lo, double *hi)
{
    bool any = false;
    for (size_t i = r0; i < r1; i++)
        for (size_t j = 0; j < t->values.cols; j++) {
            const double v = *matrix_at(&t->values, i, j);
            if (!isfinite(v) || is_masked(mask, i, j))
                continue;
            if (!any || v < *lo)
                *lo = v;
            if (!any || v > *hi)
                *hi = v;
            any = true;
        }
    return any;
}

int shading_init(shading *sh, const table *t, enum color_scale scale,
                 const trace *tr)
{
    const size_t R = t->values.rows;
    sh->mask = mask_of(t, tr);
    sh->lo = malloc((R + 1) * sizeof *sh->lo);
    sh->hi = malloc((R + 1) * sizeof *sh->hi);
    if (sh->lo == NULL || sh->hi == NULL)
        return -1;
    double lo = 0.0, hi = 1.0;
    const bool fixed =
        scale == SCALE_FIXED && strcmp(t->name, "attn_scores") != 0;
    if (!fixed && scale != SCALE_ROW)
        value_range(t, sh->mask, 0, R, &lo, &hi);
    for (size_t i = 0; i < R; i++) {
        sh->lo[i] = lo;
        sh->hi[i] = hi;
        if (scale == SCALE_ROW &&
            !value_range(t, sh->mask, i, i + 1, &sh->lo[i], &sh->hi[i]))
            sh->lo[i] = 0.0, sh->hi[i] = 1.0;
    }
    return 0;
}

void shading_free(shading *sh)
{
    free(sh->lo);
    free(sh->hi);
}

bool shading_masked(const shading *sh, size_t i, size_t j)
{
    return is_masked(sh->mask, i, j);
}

double shading_x(const shading *sh, size_t i, float v)
{
    const double lo = sh->lo[i], hi = sh->hi[i];
    /* in double, where no float difference overflows */
    return hi > lo ? ((double)v - lo) / (hi - lo) : 1.0;
}
