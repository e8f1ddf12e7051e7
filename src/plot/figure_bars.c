/* figure_bars.c: the colour bars of a --plot page with their ticks and
 * captions, and the legends of masked cells (figure_parts.h). */
#include "plot/figure_parts.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "base/i18n.h"

void fig_draw_masked(cairo_t *cr, double x, double y, double side)
{
    cairo_save(cr);
    cairo_set_antialias(cr, CAIRO_ANTIALIAS_NONE);
    cairo_set_source_rgb(cr, 0.86, 0.86, 0.86);
    cairo_rectangle(cr, x, y, side, side);
    cairo_fill(cr);
    cairo_restore(cr);
    if (side < 6.0)
        return;
    cairo_save(cr);
    cairo_rectangle(cr, x, y, side, side);
    cairo_clip(cr);
    cairo_set_source_rgb(cr, 0.62, 0.62, 0.62);
    cairo_set_line_width(cr, side > 12.0 ? 1.0 : 0.5);
    double step = side > 12.0 ? side / 4.0 : 3.0;
    for (double d = -side; d < side; d += step) {
        cairo_move_to(cr, x + d, y + side);
        cairo_line_to(cr, x + d + side, y);
    }
    cairo_stroke(cr);
    cairo_restore(cr);
}

/* The n-th of a bar's five ticks (0 at the bottom), as text; a bar of
 * each row's own range says so at its ends and has no ticks between. */
static void tick_text(char *out, size_t size, const color_range *sc, int n)
{
    if (sc->by_row) {
        /* TRANSLATORS: the ends of a picture's colour bar with
         * --color-scale row: each row's smallest and largest value */
        snprintf(out, size, "%s",
                 n == 0   ? _("row's smallest")
                 : n == 4 ? _("row's largest")
                          : "");
        return;
    }
    double v = sc->lo + (sc->hi - sc->lo) * n / 4.0;
    double big = fmax(fabs(sc->lo), fabs(sc->hi));
    if (fabs(v) < 1e-12 * big)
        v = 0.0; /* the diverging bar's middle */
    if (big >= 100.0 || sc->hi - sc->lo < 0.04)
        snprintf(out, size, "%.3g", v);
    else
        snprintf(out, size, "%.2f", v);
}

/* The caption beside a bar, and the legend of its masked cells. */
static const char *bar_caption(const section *S)
{
    const char *map = fig_map_caption(S);
    if (map != NULL)
        return map;
    const char *unit = fig_unit_caption(S);
    if (unit != NULL)
        return unit;
    if (S->shade == SHADE_WEIGHTS)
        return _("attention weight");
    if (S->shade == SHADE_SCORES)
        return _("attention score");
    return S->name;
}

static const char *masked_legend(const section *S)
{
    if (S->shade == SHADE_WEIGHTS)
        /* TRANSLATORS: a picture's legend; keep the line break */
        return _("masked\n(weight 0)");
    if (S->shade == SHADE_SCORES)
        /* TRANSLATORS: a picture's legend; keep the line break */
        return _("masked\n(-inf)");
    /* TRANSLATORS: a picture's legend for infinite or NaN values */
    return _("not a\nnumber");
}

/* A bar's width with its ticks. */
double fig_ticks_width(cairo_t *cr, const color_range *sc)
{
    double widest = 0, w, h;
    for (int k = 0; k <= 4; k++) {
        char tick[64];
        tick_text(tick, sizeof tick, sc, k);
        fig_text_size(cr, LABEL_FONT, tick, 0, false, &w, &h);
        widest = w > widest ? w : widest;
    }
    return BAR_WIDTH + 6 + widest;
}

/* The height of a strip's caption under its bar, wrapped (*w wide), or
 * 0 for another section. */
double fig_strip_caption(cairo_t *cr, const section *S, double *w)
{
    double h = 0;
    *w = 0;
    if (S->strip && S->shared_bar) {
        fig_text_size(cr, LABEL_FONT, bar_caption(S), STRIP_CAPTION_W, true, w,
                      &h);
        h += STRIP_CAPTION_GAP;
    }
    return h;
}

/* The right-hand column's width for a section: its shared bar (and a
 * strip's caption under it), and the legend of its masked cells. */
double fig_bar_width(cairo_t *cr, const section *S)
{
    double widest = S->shared_bar ? fig_ticks_width(cr, &S->sc) : 0, w, h;
    fig_strip_caption(cr, S, &w);
    widest = fmax(widest, w);
    if (S->masked && S->shared_bar) {
        fig_text_size(cr, LABEL_FONT, masked_legend(S), 0, false, &w, &h);
        widest = fmax(widest, BAR_WIDTH + 6 + w);
    }
    return widest;
}

/* A colour bar of scale sc at (x, y), height tall, with its ticks (five,
 * or three on a short bar). */
void fig_draw_bar(cairo_t *cr, const color_range *sc, double x, double y,
                  double height)
{
    /* the map's 256 colours as an image a pixel wide, stretched: small
     * in an SVG or PDF, where 256 rectangles a bar are not */
    cairo_surface_t *img =
        cairo_image_surface_create(CAIRO_FORMAT_RGB24, 1, COLORMAP_ENTRIES);
    if (cairo_surface_status(img) == CAIRO_STATUS_SUCCESS) {
        cairo_surface_flush(img);
        unsigned char *data = cairo_image_surface_get_data(img);
        int stride = cairo_image_surface_get_stride(img);
        for (int i = 0; i < COLORMAP_ENTRIES; i++) {
            rgb c8 = colormap_color(&sc->map, (i + 0.5) / COLORMAP_ENTRIES);
            uint32_t px = (uint32_t)c8.r << 16 | (uint32_t)c8.g << 8 | c8.b;
            memcpy(data + (size_t)(COLORMAP_ENTRIES - 1 - i) * (size_t)stride,
                   &px, 4);
        }
        cairo_surface_mark_dirty(img);
        cairo_save(cr);
        cairo_translate(cr, x, y);
        cairo_scale(cr, BAR_WIDTH, height / COLORMAP_ENTRIES);
        cairo_set_source_surface(cr, img, 0, 0);
        cairo_pattern_set_filter(cairo_get_source(cr), CAIRO_FILTER_NEAREST);
        cairo_pattern_set_extend(cairo_get_source(cr), CAIRO_EXTEND_PAD);
        cairo_rectangle(cr, 0, 0, 1, COLORMAP_ENTRIES);
        cairo_fill(cr);
        cairo_restore(cr);
    }
    cairo_surface_destroy(img);
    cairo_set_source_rgb(cr, 0, 0, 0);
    cairo_set_line_width(cr, 0.75);
    cairo_rectangle(cr, x, y, BAR_WIDTH, height);
    cairo_stroke(cr);
    // five ticks; three on a short bar, the ends alone on a strip's
    int step = height < 50.0 ? 4 : height < 90.0 ? 2 : 1;
    for (int k = 0; k <= 4; k += step) {
        double ty = y + height * (1.0 - k / 4.0);
        char tick[64];
        tick_text(tick, sizeof tick, sc, k);
        if (tick[0] == '\0')
            continue;
        cairo_move_to(cr, x + BAR_WIDTH, ty);
        cairo_line_to(cr, x + BAR_WIDTH + 4, ty);
        cairo_stroke(cr);
        fig_draw_text(cr, LABEL_FONT, tick, 0, x + BAR_WIDTH + 6, ty, 0, 0.5,
                      0);
    }
}

/* The section's shared colour bar at (x, S->top) and its caption, or
 * only the legend of its masked cells. */
void fig_draw_colour_bar(cairo_t *cr, const section *S, double x)
{
    const double y = S->top, height = S->bar_h;
    double ly = y;
    if (S->shared_bar) {
        fig_draw_bar(cr, &S->sc, x, y, height);
        const char *caption = bar_caption(S);
        double w, line_h;
        fig_text_size(cr, LABEL_FONT, "Ag", 0, false, &w, &line_h);
        if (S->strip) // across, under the bar of a strip's one row
            fig_draw_wrapped(cr, LABEL_FONT, caption, STRIP_CAPTION_W, x,
                             y + height + STRIP_CAPTION_GAP, 0, 0, 0);
        else if (fig_upright(caption)) /* Chinese never sideways */
            fig_draw_vertical(cr, caption, x - 6, y, height, line_h);
        else // on more lines beside a bar shorter than it (bar_lines)
            fig_draw_wrapped(cr, LABEL_FONT, caption, height, x - 6,
                             y + height / 2, 0.5, 1.0, QUARTER_TURN);
        ly = y + height + fig_strip_caption(cr, S, &w) + 20;
    }
    if (S->masked && S->shared_bar) {
        fig_draw_masked(cr, x, ly, BAR_WIDTH);
        cairo_set_source_rgb(cr, 0, 0, 0);
        cairo_rectangle(cr, x, ly, BAR_WIDTH, BAR_WIDTH);
        cairo_stroke(cr);
        fig_draw_text(cr, LABEL_FONT, masked_legend(S), 0, x + BAR_WIDTH + 6,
                      ly, 0, 0, 0);
    }
}

/* Whether section s's masked legend goes in the header: it has masked
 * cells and no shared bar to put it under, and no section before it
 * says the same. */
static bool legend_in_header(const figure *pg, size_t s)
{
    const section *S = &pg->sections[s];
    if (!S->masked || S->shared_bar)
        return false;
    for (size_t e = 0; e < s; e++)
        if (legend_in_header(pg, e) &&
            strcmp(masked_legend(&pg->sections[e]), masked_legend(S)) == 0)
            return false;
    return true;
}

/* The masked legends of the header side by side from (x, y), drawn
 * (draw) or only measured; returns their width, *h their height. */
double fig_header_legends(const figure *pg, cairo_t *cr, double x, double y,
                          bool draw, double *h)
{
    double at = x, w, lh;
    *h = 0;
    for (size_t s = 0; s < pg->n_sections; s++) {
        if (!legend_in_header(pg, s))
            continue;
        const char *text = masked_legend(&pg->sections[s]);
        fig_text_size(cr, LABEL_FONT, text, 0, false, &w, &lh);
        if (draw) {
            fig_draw_masked(cr, at, y, BAR_WIDTH);
            cairo_set_source_rgb(cr, 0, 0, 0);
            cairo_set_line_width(cr, 0.75);
            cairo_rectangle(cr, at, y, BAR_WIDTH, BAR_WIDTH);
            cairo_stroke(cr);
            fig_draw_text(cr, LABEL_FONT, text, 0, at + BAR_WIDTH + 6, y, 0, 0,
                          0);
        }
        *h = fmax(*h, fmax(lh, BAR_WIDTH));
        at += BAR_WIDTH + 6 + w + GAP;
    }
    return at > x ? at - x - GAP : 0;
}
