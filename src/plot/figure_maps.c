/* figure_maps.c: the maps of the interventions on a --plot page
 * (figure_parts.h), each as its row of render/map_axes.h says: the
 * titles of its axes, the caption of its colour bar, and its scale
 * (centred on 0 for signed values, 0 to 1 for shares). */
#include "plot/figure_parts.h"

#include <math.h>
#include <string.h>

#include "base/i18n.h"
#include "render/map_axes.h"

/* The row of a section's tables (by its name), or NULL. */
static const map_axes *section_map(const section *S)
{
    return map_axes_of_picture(table_by_name(S->name, strlen(S->name)));
}

size_t fig_maps_of_run(const table **out, const trace *tr, bool view)
{
    size_t n = 0;
    for (size_t i = 0; i < trace_count(tr) && n < FIG_MAPS_MAX; i++) {
        const table *t = trace_at(tr, i);
        const map_axes *m = t->grad ? NULL : map_axes_of_picture(t->id);
        if (m != NULL && (m->over_view || !view) && t->values.rows > 0 &&
            t->values.cols > 0)
            out[n++] = t;
    }
    return n;
}

const char *fig_map_caption(const section *S)
{
    const map_axes *m = section_map(S);
    return m != NULL ? _(map_axes_measure(m, S->measure)) : NULL;
}

void fig_maps_scale(figure *pg)
{
    for (size_t s = 0; s < pg->n_sections; s++) {
        section *S = &pg->sections[s];
        const map_axes *m = section_map(S);
        if (m == NULL)
            continue;
        color_range sc = S->sc;
        if (m->signed_values) {
            // centred on 0 whatever the signs found: a change of +0.3
            // and one of -0.3 are as far from "nothing changed"
            double most = fmax(fabs(sc.lo), fabs(sc.hi));
            if (!(most > 0))
                most = 1.0;
            sc.lo = -most;
            sc.hi = most;
            if (pg->style.cmap == NULL ||
                !colormap_find(&sc.map, pg->style.cmap))
                colormap_find(&sc.map, PLOT_CMAP_BOTH_SIGNS);
        } else {
            sc.lo = 0.0;
            sc.hi = 1.0;
        }
        sc.by_row = false;
        S->sc = sc;
        // one bar beside the maps, with its caption (what the colour
        // is), unless --colorbar none
        S->shared_bar = pg->style.bars != BARS_NONE;
        S->panel_bars = false;
        for (size_t i = S->first; i < S->first + S->count; i++)
            pg->panels[i].sc = sc;
    }
}

void fig_maps_measure(section *S, double line_h)
{
    const map_axes *m = section_map(S);
    if (m == NULL || S->axis_h > 0) /* measured once */
        return;
    // the rows' title turned up, left of the row labels; the columns'
    // under the column labels
    S->row_label_w += line_h + PAD;
    S->axis_h = line_h + PAD;
}

size_t fig_map_caption_lines(cairo_t *cr, const section *S, double height,
                             double line_h)
{
    const char *caption = fig_map_caption(S);
    double w, h;
    if (caption == NULL)
        return 1;
    if (fig_upright(caption))
        return fig_vertical_size(cr, caption, height, line_h, &h);
    fig_text_size(cr, LABEL_FONT, caption, height, true, &w, &h);
    return (size_t)fmax(1.0, round(h / line_h));
}

void fig_draw_map_axes(cairo_t *cr, const figure *pg, const panel *p, double mx,
                       double my, double map_w, double map_h)
{
    const section *S = &pg->sections[p->section];
    const map_axes *m = section_map(S);
    if (m == NULL)
        return;
    const double col_label_h = S->rotate_cols ? S->col_label_v : pg->line_h;
    cairo_set_source_rgb(cr, 0, 0, 0);
    fig_draw_text(cr, LABEL_FONT, _(m->cols), fmax(map_w, S->box_w),
                  mx + map_w / 2, my + map_h + PAD + col_label_h + PAD, 0.5,
                  0.0, 0);
    const char *rows = _(m->rows);
    if (fig_upright(rows)) { /* Chinese never sideways */
        fig_draw_vertical(cr, rows, p->x + pg->line_h, my, map_h, pg->line_h);
        return;
    }
    fig_draw_text(cr, LABEL_FONT, rows, fmax(map_h, BAR_MIN),
                  p->x + pg->line_h / 2, my + map_h / 2, 0.5, 0.5,
                  QUARTER_TURN);
}
