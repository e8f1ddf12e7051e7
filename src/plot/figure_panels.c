/* figure_panels.c: which tables of a run become the panels of a --plot
 * page, grouped by colour scale, and each panel's scale (figure_parts.h). */
#include "plot/figure_parts.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/i18n.h"
#include "render/heat.h"

static bool is_weights(const table *t)
{
    // a gradient (--grad) is drawn on its own range, not as weights
    return !t->grad && table_info_for(t)->shade == SHADE_WEIGHTS;
}

/* The scale a table is drawn on: its name, with the wrapper's heads'
 * parameters together and every table of weights (the heads' and their
 * mean) on the weights' scale. */
static void scale_name(char *out, size_t size, const table *t)
{
    const char *name =
        is_weights(t) ? table_info_of(TABLE_ATTN_WEIGHTS)->name : table_name(t);
    size_t digits =
        strncmp(name, "heads.", 6) == 0 ? strspn(name + 6, "0123456789") : 0;
    if (digits > 0 && name[6 + digits] == '.')
        snprintf(out, size, "heads.*%s", name + 6 + digits);
    else
        snprintf(out, size, "%s", name);
}

bool fig_cell_masked(const panel *p, size_t r, size_t c)
{
    float v = p->t->values.v[r * p->t->values.cols + c];
    if (!isfinite(v))
        return true;
    const table *m = p->mask;
    if (m == NULL || r >= m->values.rows || c >= m->values.cols)
        return false;
    float s = m->values.v[r * m->values.cols + c];
    return isinf(s) && s < 0;
}

/* ---- a trained run (--train): each head before and after training ---- */

/* The step of attn_weights_steps' row r ("step<n>/head<h>/Q:<word>"). */
static size_t checkpoint_step(const table *c, size_t r)
{
    size_t step = 0;
    return sscanf(c->rows->s[r], "step%zu/", &step) == 1 ? step : 0;
}

/* For head weights t of a trained run whose trace holds attn_weights_steps
 * (trained.h): at t's head 0, a panel of every head's weights before
 * training, added to found, each a table of pg->before. Returns N, the
 * step t's weights are from (the training's last), or 0 for a run
 * without such a table or trained 0 steps. */
static size_t trained_heads(figure *pg, panel *found, size_t *n_found,
                            const trace *tr, const table *t, size_t sec)
{
    const table_key key = {t->variant, t->layer, NO_HEAD,
                           TABLE_ATTN_WEIGHTS_STEPS, false};
    const table *c = trace_find(tr, &key);
    if (c == NULL || t->head == NO_HEAD)
        return 0;
    size_t heads = 0;
    while (trace_find_beside(tr, t, (int)heads, TABLE_ATTN_WEIGHTS) != NULL)
        heads++;
    const size_t T = t->values.rows, S = t->values.cols;
    if (heads == 0 || c->values.cols != S || c->values.rows % (heads * T) != 0)
        return 0;
    const size_t k = c->values.rows / (heads * T);
    const size_t last = k >= 2 ? checkpoint_step(c, (k - 1) * heads * T) : 0;
    if (last == 0)
        return 0;
    for (size_t h = 0; t->head == 0 && h < heads; h++) {
        table *b = &pg->before[pg->n_before++];
        *b = *trace_find_beside(tr, t, (int)h, TABLE_ATTN_WEIGHTS);
        // rows [h·T, (h + 1)·T) of the first checkpoint: step 0
        b->values = (matrix){T, S, c->values.v + h * T * S};
        found[(*n_found)++] = (panel){.t = b,
                                      .mask = trace_mask_of(tr, b),
                                      .section = sec,
                                      .training = true,
                                      .step = 0};
    }
    return last;
}

/* A colour scale of the page: a table name (scale_name), and the
 * columns of one unit when the table has several (figure_units.c). */
typedef struct {
    char name[64];
    const column_group *group;
} scale_key;

/* The scale of table t (or of its columns of group, or NULL) among the
 * n found so far, added when new. */
static size_t name_section(scale_key *keys, size_t *n, const table *t,
                           const column_group *group)
{
    char name[64];
    scale_name(name, sizeof name, t);
    size_t s = 0;
    while (s < *n &&
           (strcmp(keys[s].name, name) != 0 || keys[s].group != group))
        s++;
    if (s == *n) {
        memcpy(keys[s].name, name, sizeof name);
        keys[s].group = group;
        (*n)++;
    }
    return s;
}

/* The page's panels: the tables chosen, or every head's weights (and a
 * trained run's heads before training, trained_heads). Groups them by
 * scale, then by variant, keeping the trace's order within. */
int fig_collect_panels(figure *pg, const trace *tr, const table *const *tables,
                       size_t n, mx_error *err)
{
    size_t cap = tables != NULL ? n : trace_count(tr);
    /* room for a trained head's weights before training too, and for a
     * table of several units' panels (figure_units.c) */
    size_t parts = 0;
    for (size_t i = 0; tables != NULL && i < n; i++) {
        const column_group *g;
        parts += fig_unit_groups(tables[i], &g);
    }
    panel *found = calloc(2 * cap + parts + 1, sizeof *found);
    scale_key *names = calloc(cap + parts + 1, sizeof *names);
    variant_id *variants = calloc(cap + 1, sizeof *variants);
    pg->panels = calloc(2 * cap + parts + 1, sizeof *pg->panels);
    pg->sections = calloc(cap + parts + 1, sizeof *pg->sections);
    pg->before = calloc(cap + 1, sizeof *pg->before);
    pg->parts = calloc(parts + 1, sizeof *pg->parts);
    if (found == NULL || names == NULL || variants == NULL ||
        pg->panels == NULL || pg->sections == NULL || pg->before == NULL ||
        pg->parts == NULL) {
        free(found);
        free(names);
        free(variants);
        return err_nomem(err, _("the picture"));
    }
    size_t n_found = 0, n_names = 0, n_variants = 0;
    for (size_t i = 0; i < cap; i++) {
        const table *t = tables != NULL ? tables[i] : trace_at(tr, i);
        // a trained run's heads' scores: curves beside its loss
        if (t->id == TABLE_HEAD_SCORES_STEPS) {
            if (pg->scores == NULL)
                pg->scores = t;
            continue;
        }
        // a trained run's loss: a curve above the panels
        if (t->id == TABLE_LOSS && !t->grad) {
            if (pg->n_loss < VARIANT_ID_COUNT)
                pg->loss[pg->n_loss++] = t;
            continue;
        }
        // without --tables: every head's weights and their mean
        if (tables == NULL
                ? !is_weights(t) || t->grad
                : t->integral || t->values.rows == 0 || t->values.cols == 0)
            continue;
        // a table of several units: a panel of each unit's columns
        const column_group *groups;
        const size_t n_groups =
            tables != NULL ? fig_unit_groups(t, &groups) : 0;
        for (size_t g = 0; g < n_groups; g++) {
            table *part;
            if (fig_unit_part(&part, pg, t, &groups[g], err) != 0) {
                free(found);
                free(names);
                free(variants);
                return -1;
            }
            if (part != NULL)
                found[n_found++] = (panel){
                    .t = part,
                    .section = name_section(names, &n_names, part, &groups[g]),
                    .group = &groups[g]};
        }
        size_t v = 0;
        while (v < n_variants && variants[v] != t->variant)
            v++;
        if (v == n_variants)
            variants[n_variants++] = t->variant;
        if (n_groups > 0)
            continue;
        const size_t s = name_section(names, &n_names, t, NULL);
        size_t after = 0;
        if (tables == NULL && t->id == TABLE_ATTN_WEIGHTS)
            after = trained_heads(pg, found, &n_found, tr, t, s);
        found[n_found++] = (panel){.t = t,
                                   .mask = trace_mask_of(tr, t),
                                   .section = s,
                                   .training = after > 0,
                                   .step = after};
    }
    /* by scale, then variant; at most MAX_PANELS */
    for (size_t s = 0; s < n_names; s++)
        for (size_t v = 0; v < n_variants; v++)
            for (size_t i = 0; i < n_found; i++) {
                if (found[i].section != s || found[i].t->variant != variants[v])
                    continue;
                if (pg->n_panels == MAX_PANELS) {
                    pg->dropped++;
                    continue;
                }
                section *S = &pg->sections[s];
                if (S->count == 0) {
                    S->first = pg->n_panels;
                    memcpy(S->name, names[s].name, sizeof S->name);
                    S->group = names[s].group;
                    S->shade = table_info_for(found[i].t)->shade;
                    S->measure = tr->model.map_measure;
                    pg->n_sections = s + 1;
                }
                S->count++;
                pg->panels[pg->n_panels++] = found[i];
            }
    pg->show_names = false;
    for (size_t i = 0; i < pg->n_panels; i++)
        pg->show_names |= !is_weights(pg->panels[i].t);
    free(found);
    free(names);
    free(variants);
    return 0;
}

/* The smallest and largest unmasked finite values of rows [r0, r1) of a
 * panel; false when there are none. */
static bool panel_range(const panel *p, size_t r0, size_t r1, double *lo,
                        double *hi)
{
    const matrix *m = &p->t->values;
    bool any = false;
    for (size_t r = r0; r < r1; r++)
        for (size_t c = 0; c < m->cols; c++) {
            if (fig_cell_masked(p, r, c))
                continue;
            double v = m->v[r * m->cols + c];
            *lo = !any || v < *lo ? v : *lo;
            *hi = !any || v > *hi ? v : *hi;
            any = true;
        }
    return any;
}

/* The ends for values from lo to hi (any: there are some): centred on 0
 * for both signs on a diverging map; a single value at the top of a scale
 * below it, as the terminal puts it (shading.h); none at all: 0 to 1. */
static void set_ends(double *lo, double *hi, bool any, bool centred)
{
    if (!any) {
        *lo = 0.0;
        *hi = 1.0;
        return;
    }
    if (centred && *lo < 0.0 && *hi > 0.0) {
        double m = -*lo > *hi ? -*lo : *hi;
        *lo = -m;
        *hi = m;
    }
    if (*hi == *lo)
        *lo = *hi - (fabs(*hi) > 0.0 ? fabs(*hi) : 1.0);
}

/* The map for values from lo to hi: --cmap, else PLOT_CMAP, and
 * PLOT_CMAP_BOTH_SIGNS for both signs. */
static colormap scale_map(const plot_style *st, double lo, double hi)
{
    colormap m;
    if (st->cmap == NULL || !colormap_find(&m, st->cmap))
        colormap_find(&m,
                      lo < 0.0 && hi > 0.0 ? PLOT_CMAP_BOTH_SIGNS : PLOT_CMAP);
    return m;
}

static bool centred(const colormap *m, const plot_style *st)
{
    return st->cmap == NULL || colormap_diverging(m);
}

/* Every panel's colour scale (plot_style.h): weights from 0 to 1 with
 * --color-scale fixed; each row's own range (row); otherwise the range of
 * every panel of the table name (one bar: --colorbar shared, the default
 * for several panels) or each panel's own (a bar each: --colorbar
 * panel). */
int fig_scale_panels(figure *pg, mx_error *err)
{
    const plot_style *st = &pg->style;
    for (size_t s = 0; s < pg->n_sections; s++) {
        section *S = &pg->sections[s];
        /* by default the panels of a table name side by side (the heads)
         * share one range, so that a colour means one value across them;
         * with --color-scale row each row has its own */
        enum plot_bars bars = st->bars;
        if (bars == BARS_AUTO)
            bars = st->scale == SCALE_FIXED ||
                           (st->scale == SCALE_TABLE && S->count > 1)
                       ? BARS_SHARED
                       : BARS_PANEL;
        double lo = 0, hi = 0;
        bool any = false;
        S->rows = S->cols = 0;
        for (size_t i = S->first; i < S->first + S->count; i++) {
            const panel *p = &pg->panels[i];
            const matrix *m = &p->t->values;
            S->rows = m->rows > S->rows ? m->rows : S->rows;
            S->cols = m->cols > S->cols ? m->cols : S->cols;
            double a, b;
            if (panel_range(p, 0, m->rows, &a, &b)) {
                lo = !any || a < lo ? a : lo;
                hi = !any || b > hi ? b : hi;
                any = true;
            }
            for (size_t r = 0; r < m->rows && !S->masked; r++)
                for (size_t c = 0; c < m->cols; c++)
                    S->masked |= fig_cell_masked(p, r, c);
        }
        bool fixed = st->scale == SCALE_FIXED && shade_fixed_scale(S->shade);
        if (fixed) {
            lo = 0.0;
            hi = 1.0;
        }
        S->sc.map = scale_map(st, lo, hi);
        S->sc.by_row = st->scale == SCALE_ROW;
        set_ends(&lo, &hi, any || fixed, centred(&S->sc.map, st));
        S->sc.lo = lo;
        S->sc.hi = hi;
        S->shared_bar = bars == BARS_SHARED;
        S->panel_bars = bars == BARS_PANEL;
        for (size_t i = S->first; i < S->first + S->count; i++) {
            panel *p = &pg->panels[i];
            const size_t rows = p->t->values.rows;
            if (bars == BARS_SHARED || fixed) {
                p->sc = S->sc;
            } else {
                double a = 0, b = 0;
                bool some = panel_range(p, 0, rows, &a, &b);
                // a trained head before and after: one range for both, so
                // that their colours compare
                for (size_t j = S->first;
                     p->training && j < S->first + S->count; j++) {
                    const panel *q = &pg->panels[j];
                    double qa = 0, qb = 0;
                    if (j != i && q->training &&
                        q->t->variant == p->t->variant &&
                        q->t->head == p->t->head &&
                        panel_range(q, 0, q->t->values.rows, &qa, &qb)) {
                        a = some ? fmin(a, qa) : qa;
                        b = some ? fmax(b, qb) : qb;
                        some = true;
                    }
                }
                p->sc.map = scale_map(st, a, b);
                p->sc.by_row = S->sc.by_row;
                set_ends(&a, &b, some, centred(&p->sc.map, st));
                p->sc.lo = a;
                p->sc.hi = b;
            }
            if (!p->sc.by_row)
                continue;
            p->row_lo = malloc((rows + 1) * sizeof *p->row_lo);
            p->row_hi = malloc((rows + 1) * sizeof *p->row_hi);
            if (p->row_lo == NULL || p->row_hi == NULL)
                return err_nomem(err, _("the picture"));
            for (size_t r = 0; r < rows; r++) {
                bool some =
                    panel_range(p, r, r + 1, &p->row_lo[r], &p->row_hi[r]);
                set_ends(&p->row_lo[r], &p->row_hi[r], some,
                         centred(&p->sc.map, st));
            }
        }
    }
    return 0;
}

/* Where v, a value of row r, lies on the panel's scale, as a colour: at
 * (v - lo) / (hi - lo), as on the terminal (shading.h). */
rgb fig_scale_color(const panel *p, size_t r, double v)
{
    double lo = p->sc.by_row ? p->row_lo[r] : p->sc.lo;
    double hi = p->sc.by_row ? p->row_hi[r] : p->sc.hi;
    return colormap_color(&p->sc.map, hi > lo ? (v - lo) / (hi - lo) : 1.0);
}
