/* figure_heat.c: a --plot panel's heat map: a rectangle per drawn cell
 * (with its value when it is wide enough), or one image for large maps,
 * and the masked cells hatched (figure_parts.h). */
#include "plot/figure_parts.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* The mean of the unmasked values of block (br, bc), false if all are
 * masked. */
static bool block_mean(const panel *p, size_t kr, size_t k, size_t br,
                       size_t bc, double *mean)
{
    const matrix *m = &p->t->values;
    double sum = 0;
    size_t n = 0;
    for (size_t r = br * kr; r < m->rows && r < (br + 1) * kr; r++)
        for (size_t c = bc * k; c < m->cols && c < (bc + 1) * k; c++)
            if (!fig_cell_masked(p, r, c)) {
                sum += m->v[r * m->cols + c];
                n++;
            }
    *mean = n > 0 ? sum / (double)n : 0.0;
    return n > 0;
}

/* The value written in the middle of a cell (cell x cell_h), in a font
 * that fits its width and its height. */
static void annotate(cairo_t *cr, double v, int decimals, rgb c8, double x,
                     double y, double cell, double cell_h)
{
    char value[48];
    if (fabs(v) < 0.5 * pow(10.0, -decimals))
        v = 0.0; /* no "-0.00" */
    if (fabs(v) < 100.0)
        snprintf(value, sizeof value, "%.*f", decimals, v);
    else
        snprintf(value, sizeof value, "%.3g", v);
    double size = fmin(cell * 0.24, cell_h * 0.45);
    double w, h;
    fig_text_size(cr, fig_font(false, size).name, value, 0, false, &w, &h);
    if (w > cell * 0.9)
        size *= cell * 0.9 / w;
    if (size < 5.0)
        return;
    /* dark text on light cells, light on dark, as seaborn does */
    double lum = (0.2126 * c8.r + 0.7152 * c8.g + 0.0722 * c8.b) / 255.0;
    double ink = lum > 0.408 ? 0.0 : 1.0;
    cairo_set_source_rgb(cr, ink, ink, ink);
    fig_draw_text(cr, fig_font(false, size).name, value, 0, x + cell / 2,
                  y + cell_h / 2, 0.5, 0.5, 0);
}

/* A cell's text (table.cells: the logit lens's token) in the cell's upper
 * half, ink as annotate's, cut to the cell's width; its value under it
 * when values are written. */
static void annotate_text(cairo_t *cr, const char *text, double v,
                          bool with_value, int decimals, rgb c8, double x,
                          double y, double cell, double cell_h)
{
    const double size = fmin(LABEL_SIZE, cell_h * 0.36);
    if (size < 5.0)
        return;
    double lum = (0.2126 * c8.r + 0.7152 * c8.g + 0.0722 * c8.b) / 255.0;
    double ink = lum > 0.408 ? 0.0 : 1.0;
    cairo_set_source_rgb(cr, ink, ink, ink);
    const double top = with_value ? y + cell_h * 0.3 : y + cell_h / 2;
    fig_draw_text(cr, fig_font(true, size).name, text, cell * 0.92,
                  x + cell / 2, top, 0.5, 0.5, 0);
    if (!with_value)
        return;
    char value[48];
    snprintf(value, sizeof value, "%.*f", decimals, v);
    fig_draw_text(cr, fig_font(false, size * 0.9).name, value, cell * 0.92,
                  x + cell / 2, y + cell_h * 0.72, 0.5, 0.5, 0);
}

/* The path of a panel's masked cells. */
static void masked_path(cairo_t *cr, const panel *p, const section *S,
                        double mx, double my)
{
    const size_t k = S->block, kr = S->block_r,
                 nr = fig_blocks(p->t->values.rows, kr),
                 nc = fig_blocks(p->t->values.cols, k);
    cairo_new_path(cr);
    for (size_t r = 0; r < nr; r++)
        for (size_t c = 0; c < nc; c++) {
            double v;
            if (!block_mean(p, kr, k, r, c, &v))
                cairo_rectangle(cr, mx + (double)c * S->cell,
                                my + (double)r * S->cell_h, S->cell, S->cell_h);
        }
}

/* A panel's masked cells as fig_draw_masked draws one, all at once: one grey
 * shape, and its hatching as lines across the map clipped to it (one
 * path each, not one per cell: an SVG or PDF stays small). */
static void draw_masked_cells(cairo_t *cr, const panel *p, const section *S,
                              double mx, double my)
{
    const double side = S->cell;
    const double map_w = (double)fig_blocks(p->t->values.cols, S->block) * side,
                 map_h = (double)fig_blocks(p->t->values.rows, S->block_r) *
                         S->cell_h;
    cairo_save(cr);
    cairo_set_antialias(cr, CAIRO_ANTIALIAS_NONE);
    cairo_set_source_rgb(cr, 0.86, 0.86, 0.86);
    masked_path(cr, p, S, mx, my);
    cairo_fill(cr);
    cairo_restore(cr);
    if (side < 6.0)
        return;
    cairo_save(cr);
    masked_path(cr, p, S, mx, my);
    cairo_clip(cr);
    cairo_set_source_rgb(cr, 0.62, 0.62, 0.62);
    cairo_set_line_width(cr, side > 12.0 ? 1.0 : 0.5);
    /* the lines x + y = mx + my + n step, as each cell's own */
    double step = side > 12.0 ? side / 4.0 : 3.0;
    for (double d = 0; d <= map_w + map_h; d += step) {
        cairo_move_to(cr, mx + d - map_h, my + map_h);
        cairo_line_to(cr, mx + d, my);
    }
    cairo_stroke(cr);
    cairo_restore(cr);
}

/* The heat map of a panel from (mx, my): a rectangle per drawn cell, or
 * for large maps one image of a pixel per cell, scaled up. */
static void draw_map(cairo_t *cr, const figure *pg, const panel *p,
                     const section *S, double mx, double my)
{
    const size_t k = S->block, kr = S->block_r,
                 nr = fig_blocks(p->t->values.rows, kr),
                 nc = fig_blocks(p->t->values.cols, k);
    const double cell = S->cell, cell_h = S->cell_h;
    if (nr * nc > RECT_LIMIT) {
        cairo_surface_t *img =
            cairo_image_surface_create(CAIRO_FORMAT_RGB24, (int)nc, (int)nr);
        if (cairo_surface_status(img) != CAIRO_STATUS_SUCCESS) {
            cairo_surface_destroy(img);
            return;
        }
        cairo_surface_flush(img);
        unsigned char *data = cairo_image_surface_get_data(img);
        int stride = cairo_image_surface_get_stride(img);
        for (size_t r = 0; r < nr; r++)
            for (size_t c = 0; c < nc; c++) {
                double v;
                rgb c8 = {MASKED_GREY, MASKED_GREY, MASKED_GREY};
                if (block_mean(p, kr, k, r, c, &v))
                    c8 = fig_scale_color(p, r * kr, v);
                uint32_t px = (uint32_t)c8.r << 16 | (uint32_t)c8.g << 8 | c8.b;
                memcpy(data + r * (size_t)stride + c * 4, &px, 4);
            }
        cairo_surface_mark_dirty(img);
        cairo_save(cr);
        cairo_translate(cr, mx, my);
        cairo_scale(cr, cell, cell_h);
        cairo_set_source_surface(cr, img, 0, 0);
        cairo_pattern_set_filter(cairo_get_source(cr), CAIRO_FILTER_NEAREST);
        cairo_rectangle(cr, 0, 0, (double)nc, (double)nr);
        cairo_fill(cr);
        cairo_restore(cr);
        cairo_surface_destroy(img);
        return;
    }
    bool values = pg->style.numbers && cell >= ANNOTATE_FROM && k == 1;
    // a table with a text in each cell writes it (and its value) instead
    const bool texts =
        p->t->cells != NULL && k == 1 && kr == 1 && cell >= ANNOTATE_FROM;
    const double overlap = fmin(0.5, cell / 8);
    bool any_masked = false;
    for (size_t r = 0; r < nr; r++)
        for (size_t c = 0; c < nc; c++) {
            double x = mx + (double)c * cell, y = my + (double)r * cell_h, v;
            if (!block_mean(p, kr, k, r, c, &v)) {
                any_masked = true;
                continue;
            }
            rgb c8 = fig_scale_color(p, r * kr, v);
            cairo_set_source_rgb(cr, c8.r / 255.0, c8.g / 255.0, c8.b / 255.0);
            cairo_set_antialias(cr, CAIRO_ANTIALIAS_NONE);
            /* under the next cell a little, so that an SVG or PDF viewer
             * shows no seam between neighbours */
            cairo_rectangle(cr, x, y, cell + (c + 1 < nc ? overlap : 0),
                            cell_h + (r + 1 < nr ? overlap : 0));
            cairo_fill(cr);
            cairo_set_antialias(cr, CAIRO_ANTIALIAS_DEFAULT);
            if (texts)
                annotate_text(cr, p->t->cells->s[r * p->t->values.cols + c], v,
                              pg->style.numbers, pg->style.decimals, c8, x, y,
                              cell, cell_h);
            else if (values)
                annotate(cr, v, pg->style.decimals, c8, x, y, cell, cell_h);
        }
    if (any_masked)
        draw_masked_cells(cr, p, S, mx, my);
}

void fig_draw_panel(cairo_t *cr, const figure *pg, const panel *p)
{
    const section *S = &pg->sections[p->section];
    const table *t = p->t;
    char title[256];
    fig_panel_title(title, sizeof title, p, pg->show_names);
    double mx = p->x + S->row_label_w + PAD;
    double my = p->y + pg->title_h + PAD;
    cairo_set_source_rgb(cr, 0, 0, 0);
    fig_draw_text(cr, TITLE_FONT, title, 0, mx, p->y, 0, 0, 0);
    draw_map(cr, pg, p, S, mx, my);
    double map_w = (double)fig_blocks(t->values.cols, S->block) * S->cell;
    double map_h = (double)fig_blocks(t->values.rows, S->block_r) * S->cell_h;
    if (S->panel_bars)
        fig_draw_bar(cr, &p->sc, mx + map_w + PANEL_BAR_GAP, my, map_h);

    fig_draw_labels(cr, pg, p, mx, my, map_h);
    fig_draw_map_axes(cr, pg, p, mx, my, map_w, map_h);
}
