/* figure_maps.c: the maps of the interventions on a --plot page
 * (figure_parts.h): --ablate all-heads' ablation_map and --patch's
 * patch_heads (layers x heads), patch_resid (layers x positions), and
 * --head-scores' head_scores (heads x the three scores).
 *
 * Each map is a row of maps[] below: what its rows, its columns and its
 * values are, written as the titles of its axes and the caption of its
 * colour bar, and whether its values are signed (a change, or a score
 * that may pass 1 or go below 0: a diverging map centred on 0, as
 * TransformerLens's patching demos draw them) or a share from 0 to 1
 * (the head scores: one fixed scale, so that colours compare between
 * runs). */
#include "plot/figure_parts.h"

#include <math.h>
#include <string.h>

#include "base/i18n.h"

typedef struct {
    table_id id;
    const char *rows;    /* the title of its rows' axis */
    const char *cols;    /* and of its columns' */
    const char *measure; /* its colour bar's caption */
    bool signed_values;  /* centred on 0; else from 0 to 1 */
    bool over_view;      /* drawn rather than the model view; the head
                            scores go on the model view when there is one
                            (figure_marks.c) */
} fig_map;

static const fig_map maps[] = {
    /* TRANSLATORS: the axes and colour bars of --plot's maps of the
     * interventions (--ablate all-heads, --patch, --head-scores) */
    {TABLE_ABLATE_MAP, N_("layer"), N_("head ablated"),
     N_("change of the mean loss"), true, true},
    {TABLE_PATCH_HEADS, N_("layer"), N_("head patched"),
     N_("restored: 0 corrupted, 1 clean"), true, true},
    {TABLE_PATCH_RESID, N_("layer"),
     N_("position patched (residual stream before the layer)"),
     N_("restored: 0 corrupted, 1 clean"), true, true},
    {TABLE_HEAD_SCORES, N_("head (layer.head)"), N_("pattern"),
     N_("share of attention on the pattern"), false, false},
};

#define N_MAPS (sizeof maps / sizeof maps[0])

/* The row of table id, or NULL when it is not a map. */
static const fig_map *map_of(table_id id)
{
    for (size_t i = 0; i < N_MAPS; i++)
        if (maps[i].id == id)
            return &maps[i];
    return NULL;
}

/* The row of a section's tables (by its name), or NULL. */
static const fig_map *section_map(const section *S)
{
    return map_of(table_by_name(S->name, strlen(S->name)));
}

size_t fig_maps_of_run(const table **out, const trace *tr, bool view)
{
    size_t n = 0;
    for (size_t i = 0; i < trace_count(tr) && n < FIG_MAPS_MAX; i++) {
        const table *t = trace_at(tr, i);
        const fig_map *m = t->grad ? NULL : map_of(t->id);
        if (m != NULL && (m->over_view || !view) && t->values.rows > 0 &&
            t->values.cols > 0)
            out[n++] = t;
    }
    return n;
}

const char *fig_map_caption(const section *S)
{
    const fig_map *m = section_map(S);
    return m != NULL ? _(m->measure) : NULL;
}

void fig_maps_scale(figure *pg)
{
    for (size_t s = 0; s < pg->n_sections; s++) {
        section *S = &pg->sections[s];
        const fig_map *m = section_map(S);
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
                colormap_find(&sc.map, "RdBu_r");
        } else {
            sc.lo = 0.0;
            sc.hi = 1.0;
        }
        sc.by_row = false;
        S->sc = sc;
        // one bar beside the maps, with its caption (what the colour is)
        S->shared_bar = true;
        S->panel_bars = false;
        for (size_t i = S->first; i < S->first + S->count; i++)
            pg->panels[i].sc = sc;
    }
}

void fig_maps_measure(section *S, cairo_t *cr, double line_h)
{
    const fig_map *m = section_map(S);
    if (m == NULL || S->axis_h > 0) /* measured once */
        return;
    double h;
    fig_text_size(cr, LABEL_FONT, _(m->measure), 0, false, &S->caption_w, &h);
    S->caption_w += 2 * PAD;
    // the rows' title turned up, left of the row labels; the columns'
    // under the column labels
    S->row_label_w += line_h + PAD;
    S->axis_h = line_h + PAD;
}

void fig_draw_map_axes(cairo_t *cr, const figure *pg, const panel *p, double mx,
                       double my, double map_w, double map_h)
{
    const section *S = &pg->sections[p->section];
    const fig_map *m = section_map(S);
    if (m == NULL)
        return;
    const double col_label_h = S->rotate_cols ? S->col_label_v : pg->line_h;
    cairo_set_source_rgb(cr, 0, 0, 0);
    fig_draw_text(cr, LABEL_FONT, _(m->cols), fmax(map_w, S->box_w),
                  mx + map_w / 2, my + map_h + PAD + col_label_h + PAD, 0.5,
                  0.0, 0);
    fig_draw_text(cr, LABEL_FONT, _(m->rows), fmax(map_h, BAR_MIN),
                  p->x + pg->line_h / 2, my + map_h / 2, 0.5, 0.5,
                  QUARTER_TURN);
}
