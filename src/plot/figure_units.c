/* figure_units.c: a table whose columns hold numbers of different kinds
 * (ablation_effect's probabilities and logit changes, generated's ids,
 * probabilities and counts) drawn as one panel per kind, each on its own
 * colour scale with its own bar, as the table's column groups say
 * (catalogue.h); its token ids are not drawn (figure_parts.h). */
#include "plot/figure_parts.h"

#include <math.h>
#include <stdlib.h>

#include "base/i18n.h"

/* The columns of group g that table t has. */
static size_t group_cols(const table *t, const column_group *g)
{
    size_t k = 0;
    for (size_t c = 0; c < t->values.cols && c < 64; c++)
        k += (g->cols >> c & 1) != 0;
    return k;
}

size_t fig_unit_groups(const table *t, const column_group **groups)
{
    size_t n = 0;
    *groups = t->grad ? NULL : table_column_groups(t->id, &n);
    return *groups != NULL ? n : 0;
}

int fig_unit_part(table **out, figure *pg, const table *t,
                  const column_group *g, mx_error *err)
{
    *out = NULL;
    const size_t k = group_cols(t, g), rows = t->values.rows;
    if (g->unit == UNIT_ID || k == 0 || t->values.v == NULL)
        return 0;
    unit_part *p = &pg->parts[pg->n_parts];
    p->values = malloc(rows * k * sizeof *p->values);
    p->names = malloc(k * sizeof *p->names);
    if (p->values == NULL || p->names == NULL) {
        free(p->values);
        free(p->names);
        return err_nomem(err, _("the picture"));
    }
    pg->n_parts++;
    // values (rows x k): the group's columns, in the table's order
    size_t j = 0;
    for (size_t c = 0; c < t->values.cols && c < 64; c++) {
        if ((g->cols >> c & 1) == 0)
            continue;
        p->names[j] = t->cols->s[c];
        for (size_t r = 0; r < rows; r++)
            p->values[r * k + j] = t->values.v[r * t->values.cols + c];
        j++;
    }
    p->cols = (labels){.n = k, .s = p->names, .key = NULL};
    p->t = *t;
    p->t.values = (matrix){rows, k, p->values};
    p->t.cols = &p->cols;
    p->t.cells = NULL;
    p->t.integral_cols = 0;
    *out = &p->t;
    return 0;
}

void fig_units_free(figure *pg)
{
    for (size_t i = 0; pg->parts != NULL && i < pg->n_parts; i++) {
        free(pg->parts[i].values);
        free(pg->parts[i].names);
    }
    free(pg->parts);
}

const char *fig_unit_caption(const section *S)
{
    if (S->group == NULL)
        return NULL;
    switch (S->group->unit) {
    case UNIT_PROBABILITY:
        /* TRANSLATORS: a --plot colour bar's caption */
        return _("probability");
    case UNIT_COUNT:
        /* TRANSLATORS: a --plot colour bar's caption */
        return _("number of tokens");
    case UNIT_LOSS:
        /* TRANSLATORS: a --plot colour bar's caption */
        return _("loss (nats)");
    case UNIT_CHANGE:
        /* TRANSLATORS: a --plot colour bar's caption */
        return _("change (ablated - clean)");
    case UNIT_ID:
        break;
    }
    return NULL;
}

void fig_units_scale(figure *pg)
{
    for (size_t s = 0; s < pg->n_sections; s++) {
        section *S = &pg->sections[s];
        if (S->group == NULL)
            continue;
        color_range sc = S->sc;
        const bool cmap =
            pg->style.cmap != NULL && colormap_find(&sc.map, pg->style.cmap);
        if (S->group->unit == UNIT_CHANGE) {
            // centred on 0 whatever the signs found: no change is white
            double most = fmax(fabs(sc.lo), fabs(sc.hi));
            if (!(most > 0))
                most = 1.0;
            sc.lo = -most;
            sc.hi = most;
            if (!cmap || !colormap_diverging(&sc.map))
                colormap_find(&sc.map, PLOT_CMAP_BOTH_SIGNS);
        } else if (!cmap || colormap_diverging(&sc.map)) {
            // a quantity from its least to its most: a sequential map
            colormap_find(&sc.map, PLOT_CMAP);
        }
        sc.by_row = false;
        S->sc = sc;
        S->shared_bar = pg->style.bars != BARS_NONE;
        S->panel_bars = false;
        for (size_t i = S->first; i < S->first + S->count; i++)
            pg->panels[i].sc = sc;
    }
}
