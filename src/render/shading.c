/* shading.c: the --color scale of a table: its mask and its ranges. */
#include "render/shading.h"

#include <math.h>
#include <stdlib.h>

bool is_shaded(const table *t)
{
    // a gradient (--grad) is not a table of weights or scores
    return !t->grad && table_info_for(t)->shade != SHADE_NONE;
}

bool on_fixed_scale(const table *t, enum color_scale scale)
{
    return scale == SCALE_FIXED && shade_fixed_scale(table_info_for(t)->shade);
}

/* The scores whose -inf cells are t's masked cells (trace.h), or NULL. */
static const matrix *mask_of(const table *t, const trace *tr)
{
    const table *m = trace_mask_of(tr, t);
    return m != NULL ? &m->values : NULL;
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
    const bool fixed = on_fixed_scale(t, scale);
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
