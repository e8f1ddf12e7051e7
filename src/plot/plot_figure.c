/* plot_figure.c: a page of --plot laid out and drawn (plot_figure.h).
 *
 *   heading, notes
 *   [fused] head 0          [fused] head 1           colour bar
 *   Q:O     ■ □ □ □ □       Q:O     ■ □ □ □ □        1.0 ┃
 *   Q:gato  ■ ■ □ □ □       ...                          ┃
 *           K:O K:gato ...                           0.0 ┃
 *   (the next table name: its panels and its own colour bar)
 *
 * The tables are grouped by colour scale (a "section": one table name,
 * one colour bar), then by variant (a grid of heads). Sizes are in points
 * and text is measured with pango on a surface that draws nothing; the
 * layout is then drawn once onto the real surface. The parts are in the
 * files figure_parts.h lists.
 */
#include "plot/plot_figure.h"

#include <math.h>
#include <stdlib.h>

#include "base/i18n.h"
#include "plot/figure_parts.h"

/* Draws the laid-out page into cr, from (0, 0) in points. */
static void draw_page(cairo_t *cr, const figure *pg)
{
    double y = MARGIN, width = fmax(pg->width - 2 * MARGIN, 480), w, h;
    cairo_set_source_rgb(cr, 0, 0, 0);
    if (pg->heading != NULL) {
        fig_draw_text(cr, HEADING_FONT, pg->heading, width, MARGIN, y, 0, 0, 0);
        fig_text_size(cr, HEADING_FONT, pg->heading, width, false, &w, &h);
        y += h + 2 * PAD;
    }
    for (size_t i = 0; i < pg->n_notes; i++) {
        fig_draw_paragraph(cr, pg->notes[i], width, MARGIN, y);
        fig_text_size(cr, LABEL_FONT, pg->notes[i], width, true, &w, &h);
        y += h;
    }
    if (pg->n_loss > 0) {
        fig_draw_loss_chart(cr, pg, MARGIN, y + PAD);
        if (pg->scores != NULL)
            fig_draw_scores_chart(cr, pg, MARGIN + CHART_W + GAP, y + PAD);
        y += CHART_H + GAP;
    }
    fig_header_legends(pg, cr, MARGIN, y + PAD, true, &h);
    for (size_t i = 0; i < pg->n_panels; i++)
        fig_draw_panel(cr, pg, &pg->panels[i]);
    for (size_t s = 0; s < pg->n_sections; s++)
        fig_draw_colour_bar(cr, &pg->sections[s], pg->bar_x);
}

/* ---- the page as a whole --------------------------------------------- */

static void figure_release(figure *fig)
{
    for (size_t i = 0; fig->panels != NULL && i < fig->n_panels; i++) {
        free(fig->panels[i].row_lo);
        free(fig->panels[i].row_hi);
    }
    free(fig->panels);
    free(fig->sections);
    fig_view_free(fig->view);
    free(fig->before);
    fig_units_free(fig);
    free(fig);
}

figure *figure_make(const trace *tr, const table *const *tables, size_t n,
                    const char *heading, const plot_style *style, mx_error *err)
{
    figure *fig = calloc(1, sizeof *fig);
    if (fig == NULL) {
        err_nomem(err, _("the picture"));
        return NULL;
    }
    fig->heading = heading;
    fig->style = style != NULL ? *style : plot_style_default();
    // the maps of --ablate all-heads and --patch, else every layer's
    // heads: the model view (marked with any head scores), else the head
    // scores' map
    const table *maps[FIG_MAPS_MAX];
    // a generation with --kv-steps: its heads growing a row per step
    // and the chosen tokens' probabilities, else the maps
    const table **grown = NULL;
    size_t n_maps = 0;
    if (tables == NULL) {
        if (fig_generation_of_run(&grown, &n_maps, tr, err) != 0) {
            figure_release(fig);
            return NULL;
        }
        if (n_maps == 0)
            n_maps = fig_maps_of_run(maps, tr, true);
    }
    if (n_maps == 0 &&
        fig_view_make(&fig->view, tr, tables, n, &fig->style, err) != 0) {
        figure_release(fig);
        return NULL;
    }
    if (fig->view != NULL)
        return fig;
    if (tables == NULL && n_maps == 0)
        n_maps = fig_maps_of_run(maps, tr, false);
    if (n_maps > 0) {
        tables = grown != NULL ? grown : maps;
        n = n_maps;
    }
    const int collected = fig_collect_panels(fig, tr, tables, n, err);
    free(grown);
    if (collected != 0) {
        figure_release(fig);
        return NULL;
    }
    if (fig->n_panels == 0 && fig->n_loss == 0) {
        figure_release(fig);
        if (tables == NULL)
            err_usage(err, _("--plot: this run has no attention weights to "
                             "draw"));
        else
            err_usage(err, _("--plot: the chosen tables hold token ids, no "
                             "values to draw"));
        return NULL;
    }
    if (fig_scale_panels(fig, err) != 0) {
        figure_release(fig);
        return NULL;
    }
    fig_maps_scale(fig);
    fig_units_scale(fig);
    return fig;
}

double figure_lay_out(figure *fig, bool png, double width, double height,
                      double *w, double *h)
{
    /* text is measured on a surface that draws nothing */
    cairo_surface_t *rec =
        cairo_recording_surface_create(CAIRO_CONTENT_COLOR_ALPHA, NULL);
    cairo_t *cr = cairo_create(rec);
    double scale;
    if (fig->view != NULL) {
        fig_view_lay_out(fig, cr);
        scale = fig_page_scale(fig, png, width, height);
    } else {
        scale = fig_lay_out_panels(fig, cr, png, width, height);
    }
    cairo_destroy(cr);
    cairo_surface_destroy(rec);
    *w = width > 0 ? width : ceil(fig->width * scale);
    *h = height > 0 ? height : ceil(fig->height * scale);
    return scale;
}

void figure_draw(cairo_t *cr, const figure *fig, double w, double h,
                 double scale, svg_texts *texts)
{
    if (texts != NULL)
        fig_attach_texts(cr, texts);
    cairo_save(cr);
    cairo_translate(cr, floor((w - fig->width * scale) / 2),
                    floor((h - fig->height * scale) / 2));
    cairo_scale(cr, scale, scale);
    if (fig->view != NULL)
        fig_draw_view(cr, fig);
    else
        draw_page(cr, fig);
    cairo_restore(cr);
    if (texts != NULL)
        fig_attach_texts(cr, NULL);
}

void figure_free(figure *fig)
{
    if (fig != NULL)
        figure_release(fig);
}
