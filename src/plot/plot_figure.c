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
 * layout is then drawn once onto the real surface.
 */
#include "plot/plot_figure.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pango/pangocairo.h>

#include "plot/colormap.h"
#include "render/heat.h"
#include "cli/i18n.h"

/* Sizes in points (1/72 inch); a PNG has PNG_SCALE pixels per point,
 * fewer when that would pass PNG_MAX_PIXELS. */
#define PNG_SCALE 2.0
#define PNG_MAX_PIXELS 36e6
#define MARGIN 24.0
#define GAP 28.0        /* between panels */
#define PAD 6.0         /* between a heat map and its labels */
#define HEAT_SIDE 300.0 /* a heat map's longer side, before limits */
#define MAX_SIDE 600.0  /* the longest a heat map grows */
#define MAX_CELL 56.0
#define MIN_CELL 3.0
#define MIN_DRAWN 1.0      /* the smallest cell: a pixel, or a point */
#define RECT_LIMIT 4096    /* maps of more cells are drawn as one image */
#define MAX_LABEL 160.0    /* longer token labels end in an ellipsis */
#define MAX_PANELS 48      /* on one page */
#define ANNOTATE_FROM 26.0 /* cells this wide hold their value */
#define BAR_WIDTH 16.0
#define BAR_MAX 220.0 /* a colour bar's height */
#define BAR_MIN 120.0
#define LEGEND_H 50.0 /* the masked cells' legend under a bar */
#define LABEL_FONT "Sans 10"
#define TITLE_FONT "Sans Bold 11"
#define HEADING_FONT "Sans Bold 13"
#define QUARTER_TURN (-1.57079632679489661923) /* text reading upwards */

/* ---- measuring and drawing text -------------------------------------- */

/* A layout of text in font, hinting off so that every surface measures
 * alike; wider than `width` points (when width > 0) it is wrapped (wrap)
 * or cut with an ellipsis. The caller unrefs it. */
static PangoLayout *text_layout(cairo_t *cr, const char *font, const char *text,
                                double width, bool wrap)
{
    PangoLayout *layout = pango_cairo_create_layout(cr);
    cairo_font_options_t *fo = cairo_font_options_create();
    cairo_font_options_set_hint_metrics(fo, CAIRO_HINT_METRICS_OFF);
    cairo_font_options_set_hint_style(fo, CAIRO_HINT_STYLE_NONE);
    pango_cairo_context_set_font_options(pango_layout_get_context(layout), fo);
    cairo_font_options_destroy(fo);
    PangoFontDescription *desc = pango_font_description_from_string(font);
    pango_layout_set_font_description(layout, desc);
    pango_font_description_free(desc);
    pango_layout_set_text(layout, text, -1);
    if (width > 0) {
        pango_layout_set_width(layout, (int)(width * PANGO_SCALE));
        if (wrap)
            pango_layout_set_wrap(layout, PANGO_WRAP_WORD_CHAR);
        else
            pango_layout_set_ellipsize(layout, PANGO_ELLIPSIZE_END);
    }
    return layout;
}

/* The size of text as text_layout lays it out. */
static void text_size(cairo_t *cr, const char *font, const char *text,
                      double width, bool wrap, double *w, double *h)
{
    PangoLayout *layout = text_layout(cr, font, text, width, wrap);
    int pw, ph;
    pango_layout_get_size(layout, &pw, &ph);
    *w = (double)pw / PANGO_SCALE;
    *h = (double)ph / PANGO_SCALE;
    g_object_unref(layout);
}

/* Draws text (laid out as text_layout does) with its box's anchor point
 * (ax, ay in [0, 1] of its width and height) at (x, y), turned by angle
 * radians about that point. */
static void draw_text(cairo_t *cr, const char *font, const char *text,
                      double width, double x, double y, double ax, double ay,
                      double angle)
{
    PangoLayout *layout = text_layout(cr, font, text, width, false);
    int pw, ph;
    pango_layout_get_size(layout, &pw, &ph);
    cairo_save(cr);
    cairo_translate(cr, x, y);
    cairo_rotate(cr, angle);
    cairo_move_to(cr, -ax * pw / PANGO_SCALE, -ay * ph / PANGO_SCALE);
    pango_cairo_show_layout(cr, layout);
    cairo_restore(cr);
    g_object_unref(layout);
}

/* ---- what goes on a page --------------------------------------------- */

enum map_kind {
    MAP_WEIGHTS,    /* attention weights: viridis from 0 to 1 */
    MAP_SEQUENTIAL, /* values of one sign: viridis, smallest to largest */
    MAP_DIVERGING,  /* both signs: the diverging map, -m to m */
};

typedef struct {
    const table *t;
    const table *mask; /* the -inf cells of this table are masked, or NULL */
    size_t section;    /* the colour scale it is drawn on */
    double x, y;       /* top left of its box on the figure */
} panel;

/* The panels of one colour scale, in a grid per variant, and their colour
 * bar. Panels of a section are next to each other in the page's list. */
typedef struct {
    char name[64]; /* the table name; the wrapper's heads.N. as heads.*. */
    enum table_shade shade; /* its tables' shading (catalogue.h) */
    enum map_kind kind;
    double lo, hi;       /* the bar's ends */
    bool masked;         /* some cell is masked (or not finite) */
    size_t first, count; /* its panels */
    size_t rows, cols;   /* the largest table's shape */
    size_t block;        /* a drawn cell is the mean of block x block */
    double cell;         /* a drawn cell's side */
    size_t label_every;  /* a label every label_every-th drawn cell */
    double row_label_w;  /* the widest row label */
    double col_label_w;  /* the widest column label */
    double title_w;      /* the widest panel title */
    bool rotate_cols;    /* column labels upright when they do not fit */
    double box_w, box_h; /* one panel's box: title, labels, map */
    double top, bar_h;   /* where its colour bar starts, its height */
} section;

struct figure {
    panel *panels;
    size_t n_panels;
    size_t dropped; /* panels left out to keep the page a sane size */
    section *sections;
    size_t n_sections;
    bool show_names; /* titles say the table's name */
    double flow;     /* 0: each variant's grid below the last; else side
                        by side while the row is at most this wide */
    const char *heading;
    char notes[4][256];
    size_t n_notes;
    double line_h, title_h; /* a label line's and a title's height */
    double header_h;        /* heading and notes: their height */
    double header_w;        /* and width */
    double bar_x, bar_w;    /* the column of colour bars */
    double width, height;   /* the page, in points */
};

static bool is_weights(const table *t)
{
    return table_info_for(t)->shade == SHADE_WEIGHTS;
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

static bool cell_masked(const panel *p, size_t r, size_t c)
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

/* The page's panels: the tables chosen, or every head's weights. Groups
 * them by scale, then by variant, keeping the trace's order within. */
static int collect_panels(figure *pg, const trace *tr,
                          const table *const *tables, size_t n, mx_error *err)
{
    size_t cap = tables != NULL ? n : trace_count(tr);
    panel *found = calloc(cap + 1, sizeof *found);
    char(*names)[64] = calloc(cap + 1, sizeof *names);
    variant_id *variants = calloc(cap + 1, sizeof *variants);
    pg->panels = calloc(cap + 1, sizeof *pg->panels);
    pg->sections = calloc(cap + 1, sizeof *pg->sections);
    if (found == NULL || names == NULL || variants == NULL ||
        pg->panels == NULL || pg->sections == NULL) {
        free(found);
        free(names);
        free(variants);
        return err_nomem(err, _("the picture"));
    }
    size_t n_found = 0, n_names = 0, n_variants = 0;
    for (size_t i = 0; i < cap; i++) {
        const table *t = tables != NULL ? tables[i] : trace_at(tr, i);
        // without --tables: every head's weights and their mean
        if (tables == NULL
                ? !is_weights(t)
                : t->integral || t->values.rows == 0 || t->values.cols == 0)
            continue;
        char name[64];
        scale_name(name, sizeof name, t);
        size_t s = 0;
        while (s < n_names && strcmp(names[s], name) != 0)
            s++;
        if (s == n_names)
            memcpy(names[n_names++], name, sizeof name);
        size_t v = 0;
        while (v < n_variants && variants[v] != t->variant)
            v++;
        if (v == n_variants)
            variants[n_variants++] = t->variant;
        found[n_found++] =
            (panel){.t = t, .mask = trace_mask_of(tr, t), .section = s};
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
                    memcpy(S->name, names[s], sizeof S->name);
                    S->shade = table_info_for(found[i].t)->shade;
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

/* The colour scale of a section: its kind and the bar's ends, from every
 * value of its panels. */
static void scale_section(section *S, const panel *p)
{
    double lo = INFINITY, hi = -INFINITY;
    S->rows = S->cols = 0;
    for (size_t i = S->first; i < S->first + S->count; i++) {
        const matrix *m = &p[i].t->values;
        S->rows = m->rows > S->rows ? m->rows : S->rows;
        S->cols = m->cols > S->cols ? m->cols : S->cols;
        for (size_t r = 0; r < m->rows; r++)
            for (size_t c = 0; c < m->cols; c++) {
                if (cell_masked(&p[i], r, c)) {
                    S->masked = true;
                    continue;
                }
                double v = m->v[r * m->cols + c];
                lo = v < lo ? v : lo;
                hi = v > hi ? v : hi;
            }
    }
    if (S->shade == SHADE_WEIGHTS) {
        S->kind = MAP_WEIGHTS;
        S->lo = 0.0;
        S->hi = 1.0;
    } else if (lo < 0.0 && hi > 0.0) {
        S->kind = MAP_DIVERGING;
        S->hi = -lo > hi ? -lo : hi;
        S->lo = -S->hi;
    } else {
        S->kind = MAP_SEQUENTIAL;
        S->lo = lo <= hi ? lo : 0.0; /* no finite value: any scale */
        S->hi = lo <= hi ? hi : 1.0;
        if (S->hi == S->lo) { /* one value: the middle of the map */
            S->lo -= 0.5;
            S->hi += 0.5;
        }
    }
}

/* Where v lies on the section's map, as a colour. */
static rgb scale_color(const section *S, double v)
{
    double x = (v - S->lo) / (S->hi - S->lo);
    return S->kind == MAP_DIVERGING ? diverging_color(x) : heat_color(x);
}

static void panel_title(char *out, size_t size, const panel *p, bool names)
{
    const table *t = p->t;
    char who[96], place[16];
    const char *where = table_place(place, sizeof place, t);
    if (t->head != NO_HEAD)
        /* TRANSLATORS: a picture's panel title: variant, head number */
        snprintf(who, sizeof who, _("[%s] head %d"), where, t->head);
    else if (t->id == TABLE_ATTN_WEIGHTS_AVG)
        /* TRANSLATORS: a picture's panel title: the mean of a variant's
         * heads' attention weights */
        snprintf(who, sizeof who, _("[%s] mean of the heads"), where);
    else {
        snprintf(out, size, "[%s] %s", where, table_name(t));
        return;
    }
    if (names)
        snprintf(out, size, "%s: %s", who, table_name(t));
    else
        snprintf(out, size, "%s", who);
}

/* The widest label of a set, at most MAX_LABEL. */
static double widest_label(cairo_t *cr, const labels *l)
{
    double widest = 0;
    for (size_t k = 0; k < l->n; k++) {
        double w, h;
        text_size(cr, LABEL_FONT, l->s[k], MAX_LABEL, false, &w, &h);
        widest = w > widest ? w : widest;
    }
    return widest;
}

/* What does not depend on the page's scale: label and title widths. */
static void measure_section(section *S, cairo_t *cr, const panel *p, bool names)
{
    S->block = 1;
    for (size_t i = S->first; i < S->first + S->count; i++) {
        const labels *rows = p[i].t->rows, *cols = p[i].t->cols;
        bool seen_rows = false, seen_cols = false; /* label sets are shared */
        for (size_t j = S->first; j < i; j++) {
            seen_rows |= p[j].t->rows == rows;
            seen_cols |= p[j].t->cols == cols;
        }
        if (!seen_rows) {
            double w = widest_label(cr, rows);
            S->row_label_w = w > S->row_label_w ? w : S->row_label_w;
        }
        if (!seen_cols) {
            double w = widest_label(cr, cols);
            S->col_label_w = w > S->col_label_w ? w : S->col_label_w;
        }
        char title[256];
        double w, h;
        panel_title(title, sizeof title, &p[i], names);
        text_size(cr, TITLE_FONT, title, 0, false, &w, &h);
        S->title_w = w > S->title_w ? w : S->title_w;
    }
}

static size_t blocks(size_t n, size_t k)
{
    return (n + k - 1) / k;
}

/* The cell size and the panel's box for the section's block size. */
static void size_section(section *S, double line_h, double title_h)
{
    size_t longest = S->rows > S->cols ? S->rows : S->cols;
    size_t nb = blocks(longest, S->block);
    double cell = floor(HEAT_SIDE / (double)nb);
    cell = cell > MAX_CELL ? MAX_CELL : cell < MIN_CELL ? MIN_CELL : cell;
    if ((double)nb * cell > MAX_SIDE)
        cell = MAX_SIDE / (double)nb;
    S->cell = cell;
    S->label_every = (size_t)ceil(line_h / cell);
    S->label_every = S->label_every < 1 ? 1 : S->label_every;
    S->rotate_cols = S->col_label_w > cell - 2.0;
    double col_label_h = S->rotate_cols ? S->col_label_w : line_h;
    double map_w = (double)blocks(S->cols, S->block) * cell;
    double map_h = (double)blocks(S->rows, S->block) * cell;
    S->box_w = S->row_label_w + PAD + (map_w > S->title_w ? map_w : S->title_w);
    S->box_h = title_h + PAD + map_h + PAD + col_label_h;
    S->bar_h = map_h > BAR_MAX ? BAR_MAX : map_h < BAR_MIN ? BAR_MIN : map_h;
}

/* Rows and columns of the grid for h heads: as square as h allows, wider
 * than tall (2: 1x2, 8: 2x4, 12: 3x4). */
static void grid_shape(size_t h, size_t *rows, size_t *cols)
{
    size_t r = (size_t)floor(sqrt((double)h));
    r = r < 1 ? 1 : r;
    *rows = r;
    *cols = (h + r - 1) / r;
}

/* The width of a colour bar with its ticks and legend. */
static double bar_width(cairo_t *cr, const section *S);

/* Places every panel and bar; sets the page's size. */
static void place(figure *pg, cairo_t *cr)
{
    double y = pg->header_h, right = MARGIN;
    pg->bar_w = 0;
    for (size_t s = 0; s < pg->n_sections; s++) {
        section *S = &pg->sections[s];
        double top = y, x = MARGIN, row_h = 0;
        for (size_t i = S->first; i < S->first + S->count;) {
            size_t run = 1; /* the panels of this variant */
            while (i + run < S->first + S->count &&
                   pg->panels[i + run].t->variant == pg->panels[i].t->variant)
                run++;
            size_t gr, gc;
            grid_shape(run, &gr, &gc);
            double run_w = (double)gc * S->box_w + (double)(gc - 1) * GAP;
            if (x > MARGIN && (pg->flow == 0 || x + run_w > pg->flow)) {
                y += row_h; /* the next row of grids */
                x = MARGIN;
                row_h = 0;
            }
            for (size_t k = 0; k < run; k++) {
                pg->panels[i + k].x = x + (double)(k % gc) * (S->box_w + GAP);
                pg->panels[i + k].y = y + (double)(k / gc) * (S->box_h + GAP);
            }
            right = x + run_w > right ? x + run_w : right;
            x += run_w + GAP;
            row_h = fmax(row_h, (double)gr * (S->box_h + GAP));
            i += run;
        }
        y += row_h;
        S->top = top + pg->title_h + PAD;
        double bar_bottom = S->top + S->bar_h + (S->masked ? LEGEND_H : 0);
        y = bar_bottom + GAP > y ? bar_bottom + GAP : y;
        double bw = bar_width(cr, S);
        pg->bar_w = bw > pg->bar_w ? bw : pg->bar_w;
    }
    pg->bar_x = right + GAP + 20; /* room for the bar's upright caption */
    pg->width =
        ceil(fmax(pg->bar_x + pg->bar_w, pg->header_w + MARGIN) + MARGIN);
    pg->height = ceil(y - GAP + MARGIN);
}

/* The heading and the notes, at most as wide as the panels (or 480
 * points): their height. */
static double header_height(figure *pg, cairo_t *cr, double width)
{
    double h = MARGIN, w, lh;
    pg->header_w = 0;
    if (pg->heading != NULL) {
        text_size(cr, HEADING_FONT, pg->heading, width, false, &w, &lh);
        h += lh + 2 * PAD;
        pg->header_w = w;
    }
    for (size_t i = 0; i < pg->n_notes; i++) {
        text_size(cr, LABEL_FONT, pg->notes[i], width, true, &w, &lh);
        h += lh + (i + 1 == pg->n_notes ? PAD : 0);
        pg->header_w = w > pg->header_w ? w : pg->header_w;
    }
    return h;
}

/* The notes of a summarised page: blocks of values, panels left out. */
static void write_notes(figure *pg)
{
    pg->n_notes = 0;
    for (size_t s = 0; s < pg->n_sections && pg->n_notes < 3; s++) {
        const section *S = &pg->sections[s];
        if (S->block > 1)
            snprintf(pg->notes[pg->n_notes++], sizeof pg->notes[0],
                     /* TRANSLATORS: a picture too large to draw value by
                      * value: table name, block size twice */
                     _("Summarised: each cell of %s is the mean of a block "
                       "of %zu x %zu values."),
                     S->name, S->block, S->block);
    }
    const bool model = pg->n_panels > 0 && pg->panels[0].t->model;
    if (pg->dropped > 0 && model)
        snprintf(pg->notes[pg->n_notes++], sizeof pg->notes[0],
                 _("Summarised: %zu of %zu tables drawn; choose fewer with "
                   "--tables, --layers or --show-heads."),
                 pg->n_panels, pg->n_panels + pg->dropped);
    else if (pg->dropped > 0)
        snprintf(pg->notes[pg->n_notes++], sizeof pg->notes[0],
                 _("Summarised: %zu of %zu tables drawn; choose fewer with "
                   "--tables, --variant or --heads."),
                 pg->n_panels, pg->n_panels + pg->dropped);
}

/* The output's units per point: fixed (width x height given) or what a
 * page of this size gets. */
static double page_scale(const figure *pg, bool png, double width,
                         double height)
{
    if (width > 0)
        return fmin(width / pg->width, height / pg->height);
    if (!png)
        return 1.0;
    double most = sqrt(PNG_MAX_PIXELS / (pg->width * pg->height));
    return most < PNG_SCALE ? most : PNG_SCALE;
}

/* Lays the page out with pg->flow for the output (png or not, size),
 * summarising tables whose cells would be smaller than MIN_DRAWN output
 * units. Returns the output's units per point. */
static double fit(figure *pg, cairo_t *cr, bool png, double width,
                  double height)
{
    for (size_t s = 0; s < pg->n_sections; s++) {
        section *S = &pg->sections[s];
        size_t longest = S->rows > S->cols ? S->rows : S->cols;
        S->block = (size_t)ceil((double)longest * MIN_DRAWN / MAX_SIDE);
        S->block = S->block < 1 ? 1 : S->block;
    }
    double scale = 1.0;
    for (int round = 0; round < 16; round++) {
        for (size_t s = 0; s < pg->n_sections; s++)
            size_section(&pg->sections[s], pg->line_h, pg->title_h);
        write_notes(pg);
        pg->header_h = pg->header_w = 0;
        place(pg, cr);
        pg->header_h = header_height(pg, cr, fmax(pg->width - 2 * MARGIN, 480));
        place(pg, cr);
        scale = page_scale(pg, png, width, height);
        bool again = false;
        for (size_t s = 0; s < pg->n_sections; s++) {
            section *S = &pg->sections[s];
            size_t longest = S->rows > S->cols ? S->rows : S->cols;
            if (S->cell * scale >= MIN_DRAWN * 0.999 || S->block >= longest)
                continue;
            size_t k =
                (size_t)ceil((double)S->block * MIN_DRAWN / (S->cell * scale));
            S->block = k > S->block ? k : S->block + 1;
            S->block = S->block > longest ? longest : S->block;
            again = true;
        }
        if (!again)
            break;
    }
    return scale;
}

/* Measures the page's text, then lays it out: each variant's grid below
 * the last, or for a size given (--plot-size) the arrangement of grids
 * side by side that draws the page largest. Returns the output's units
 * per point. */
static double lay_out(figure *pg, cairo_t *cr, bool png, double width,
                      double height)
{
    double unused;
    text_size(cr, LABEL_FONT, "Ag", 0, false, &unused, &pg->line_h);
    text_size(cr, TITLE_FONT, "Ag", 0, false, &unused, &pg->title_h);
    for (size_t s = 0; s < pg->n_sections; s++) {
        scale_section(&pg->sections[s], pg->panels);
        measure_section(&pg->sections[s], cr, pg->panels, pg->show_names);
    }
    pg->flow = 0;
    double scale = fit(pg, cr, png, width, height);
    if (width == 0)
        return scale;
    /* rows as wide as 2, 3, ... panels of a section */
    double best = scale, best_flow = 0;
    for (size_t s = 0; s < pg->n_sections; s++) {
        const section *S = &pg->sections[s];
        double box_w = S->box_w;
        for (size_t m = 2; m <= S->count; m++) {
            pg->flow = MARGIN + (double)m * box_w + (double)(m - 1) * GAP;
            double tried = fit(pg, cr, png, width, height);
            if (tried > best * 1.001) {
                best = tried;
                best_flow = pg->flow;
            }
        }
    }
    pg->flow = best_flow;
    return fit(pg, cr, png, width, height);
}

/* ---- drawing ---------------------------------------------------------- */

/* A masked cell: neutral grey, with darker diagonal hatching when it is
 * large enough to show it. */
static void draw_masked(cairo_t *cr, double x, double y, double side)
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

#define MASKED_GREY 219 /* 0.86 of 255: masked cells in an image */

/* The mean of the unmasked values of block (br, bc), false if all are
 * masked. */
static bool block_mean(const panel *p, size_t k, size_t br, size_t bc,
                       double *mean)
{
    const matrix *m = &p->t->values;
    double sum = 0;
    size_t n = 0;
    for (size_t r = br * k; r < m->rows && r < (br + 1) * k; r++)
        for (size_t c = bc * k; c < m->cols && c < (bc + 1) * k; c++)
            if (!cell_masked(p, r, c)) {
                sum += m->v[r * m->cols + c];
                n++;
            }
    *mean = n > 0 ? sum / (double)n : 0.0;
    return n > 0;
}

/* The value written in a cell, in a font that fits the cell's width. */
static void annotate(cairo_t *cr, double v, rgb c8, double x, double y,
                     double cell)
{
    char value[32];
    if (fabs(v) < 0.005)
        v = 0.0; /* no "-0.00" */
    if (fabs(v) < 100.0)
        snprintf(value, sizeof value, "%.2f", v);
    else
        snprintf(value, sizeof value, "%.3g", v);
    double size = cell * 0.24;
    char font[32];
    snprintf(font, sizeof font, "Sans %.1f", size);
    double w, h;
    text_size(cr, font, value, 0, false, &w, &h);
    if (w > cell * 0.9) {
        size *= cell * 0.9 / w;
        snprintf(font, sizeof font, "Sans %.1f", size);
    }
    if (size < 5.0)
        return;
    /* dark text on light cells, light on dark, as seaborn does */
    double lum = (0.2126 * c8.r + 0.7152 * c8.g + 0.0722 * c8.b) / 255.0;
    double ink = lum > 0.408 ? 0.0 : 1.0;
    cairo_set_source_rgb(cr, ink, ink, ink);
    draw_text(cr, font, value, 0, x + cell / 2, y + cell / 2, 0.5, 0.5, 0);
}

/* The heat map of a panel from (mx, my): a rectangle per drawn cell, or
 * for large maps one image of a pixel per cell, scaled up. */
static void draw_map(cairo_t *cr, const panel *p, const section *S, double mx,
                     double my)
{
    const size_t k = S->block, nr = blocks(p->t->values.rows, k),
                 nc = blocks(p->t->values.cols, k);
    const double cell = S->cell;
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
                if (block_mean(p, k, r, c, &v))
                    c8 = scale_color(S, v);
                uint32_t px = (uint32_t)c8.r << 16 | (uint32_t)c8.g << 8 | c8.b;
                memcpy(data + r * (size_t)stride + c * 4, &px, 4);
            }
        cairo_surface_mark_dirty(img);
        cairo_save(cr);
        cairo_translate(cr, mx, my);
        cairo_scale(cr, cell, cell);
        cairo_set_source_surface(cr, img, 0, 0);
        cairo_pattern_set_filter(cairo_get_source(cr), CAIRO_FILTER_NEAREST);
        cairo_rectangle(cr, 0, 0, (double)nc, (double)nr);
        cairo_fill(cr);
        cairo_restore(cr);
        cairo_surface_destroy(img);
        return;
    }
    bool values = cell >= ANNOTATE_FROM && k == 1;
    const double overlap = fmin(0.5, cell / 8);
    for (size_t r = 0; r < nr; r++)
        for (size_t c = 0; c < nc; c++) {
            double x = mx + (double)c * cell, y = my + (double)r * cell, v;
            if (!block_mean(p, k, r, c, &v)) {
                draw_masked(cr, x, y, cell);
                continue;
            }
            rgb c8 = scale_color(S, v);
            cairo_set_source_rgb(cr, c8.r / 255.0, c8.g / 255.0, c8.b / 255.0);
            cairo_set_antialias(cr, CAIRO_ANTIALIAS_NONE);
            /* under the next cell a little, so that an SVG or PDF viewer
             * shows no seam between neighbours */
            cairo_rectangle(cr, x, y, cell + (c + 1 < nc ? overlap : 0),
                            cell + (r + 1 < nr ? overlap : 0));
            cairo_fill(cr);
            cairo_set_antialias(cr, CAIRO_ANTIALIAS_DEFAULT);
            if (values)
                annotate(cr, v, c8, x, y, cell);
        }
}

static void draw_panel(cairo_t *cr, const figure *pg, const panel *p)
{
    const section *S = &pg->sections[p->section];
    const table *t = p->t;
    char title[256];
    panel_title(title, sizeof title, p, pg->show_names);
    double mx = p->x + S->row_label_w + PAD;
    double my = p->y + pg->title_h + PAD;
    cairo_set_source_rgb(cr, 0, 0, 0);
    draw_text(cr, TITLE_FONT, title, 0, mx, p->y, 0, 0, 0);
    draw_map(cr, p, S, mx, my);

    /* a drawn cell's labels are those of its first row or column */
    const size_t k = S->block, every = S->label_every * k;
    const double cell = S->cell;
    cairo_set_source_rgb(cr, 0, 0, 0);
    for (size_t r = 0; r < t->rows->n; r += every)
        draw_text(cr, LABEL_FONT, t->rows->s[r], MAX_LABEL, mx - PAD,
                  my + ((double)(r / k) + 0.5) * cell, 1.0, 0.5, 0);
    double under = my + (double)blocks(t->values.rows, k) * cell + PAD;
    for (size_t c = 0; c < t->cols->n; c += every) {
        double cx = mx + ((double)(c / k) + 0.5) * cell;
        if (S->rotate_cols) /* reading upwards, ending under the column */
            draw_text(cr, LABEL_FONT, t->cols->s[c], MAX_LABEL, cx, under, 1.0,
                      0.5, QUARTER_TURN);
        else
            draw_text(cr, LABEL_FONT, t->cols->s[c], MAX_LABEL, cx, under, 0.5,
                      0, 0);
    }
}

/* The n-th of a bar's five ticks, as text. */
static void tick_text(char *out, size_t size, const section *S, int n)
{
    double v = S->lo + (S->hi - S->lo) * n / 4.0;
    double big = fmax(fabs(S->lo), fabs(S->hi));
    if (fabs(v) < 1e-12 * big)
        v = 0.0; /* the diverging bar's middle */
    if (big >= 100.0 || S->hi - S->lo < 0.04)
        snprintf(out, size, "%.3g", v);
    else
        snprintf(out, size, "%.2f", v);
}

/* The caption beside a bar, and the legend of its masked cells. */
static const char *bar_caption(const section *S)
{
    if (S->kind == MAP_WEIGHTS)
        return _("attention weight");
    if (S->shade == SHADE_SCORES)
        return _("attention score");
    return S->name;
}

static const char *masked_legend(const section *S)
{
    if (S->kind == MAP_WEIGHTS)
        /* TRANSLATORS: a picture's legend; keep the line break */
        return _("masked\n(weight 0)");
    if (S->shade == SHADE_SCORES)
        /* TRANSLATORS: a picture's legend; keep the line break */
        return _("masked\n(-inf)");
    /* TRANSLATORS: a picture's legend for infinite or NaN values */
    return _("not a\nnumber");
}

static double bar_width(cairo_t *cr, const section *S)
{
    double widest = 0, w, h;
    for (int k = 0; k <= 4; k++) {
        char tick[32];
        tick_text(tick, sizeof tick, S, k);
        text_size(cr, LABEL_FONT, tick, 0, false, &w, &h);
        widest = w > widest ? w : widest;
    }
    if (S->masked) {
        text_size(cr, LABEL_FONT, masked_legend(S), 0, false, &w, &h);
        widest = w > widest ? w : widest;
    }
    return BAR_WIDTH + 6 + widest;
}

/* The section's colour bar at (x, S->top), with its scale. */
static void draw_colour_bar(cairo_t *cr, const section *S, double x)
{
    const int steps = 256;
    const double y = S->top, height = S->bar_h;
    cairo_set_antialias(cr, CAIRO_ANTIALIAS_NONE);
    for (int i = 0; i < steps; i++) {
        double v = S->lo + (S->hi - S->lo) * (i + 0.5) / steps;
        rgb c8 = scale_color(S, v);
        cairo_set_source_rgb(cr, c8.r / 255.0, c8.g / 255.0, c8.b / 255.0);
        double y1 = y + height * (1.0 - (double)(i + 1) / steps);
        cairo_rectangle(cr, x, y1, BAR_WIDTH, height / steps + 0.5);
        cairo_fill(cr);
    }
    cairo_set_antialias(cr, CAIRO_ANTIALIAS_DEFAULT);
    cairo_set_source_rgb(cr, 0, 0, 0);
    cairo_set_line_width(cr, 0.75);
    cairo_rectangle(cr, x, y, BAR_WIDTH, height);
    cairo_stroke(cr);
    for (int k = 0; k <= 4; k++) {
        double ty = y + height * (1.0 - k / 4.0);
        char tick[32];
        tick_text(tick, sizeof tick, S, k);
        cairo_move_to(cr, x + BAR_WIDTH, ty);
        cairo_line_to(cr, x + BAR_WIDTH + 4, ty);
        cairo_stroke(cr);
        draw_text(cr, LABEL_FONT, tick, 0, x + BAR_WIDTH + 6, ty, 0, 0.5, 0);
    }
    draw_text(cr, LABEL_FONT, bar_caption(S), height, x - 6, y + height / 2,
              0.5, 1.0, QUARTER_TURN);
    if (S->masked) {
        double ly = y + height + 20;
        draw_masked(cr, x, ly, BAR_WIDTH);
        cairo_set_source_rgb(cr, 0, 0, 0);
        cairo_rectangle(cr, x, ly, BAR_WIDTH, BAR_WIDTH);
        cairo_stroke(cr);
        draw_text(cr, LABEL_FONT, masked_legend(S), 0, x + BAR_WIDTH + 6, ly, 0,
                  0, 0);
    }
}

/* Draws the laid-out page into cr, from (0, 0) in points. */
static void draw_page(cairo_t *cr, const figure *pg)
{
    double y = MARGIN, width = fmax(pg->width - 2 * MARGIN, 480), w, h;
    cairo_set_source_rgb(cr, 0, 0, 0);
    if (pg->heading != NULL) {
        draw_text(cr, HEADING_FONT, pg->heading, width, MARGIN, y, 0, 0, 0);
        text_size(cr, HEADING_FONT, pg->heading, width, false, &w, &h);
        y += h + 2 * PAD;
    }
    for (size_t i = 0; i < pg->n_notes; i++) {
        PangoLayout *layout =
            text_layout(cr, LABEL_FONT, pg->notes[i], width, true);
        cairo_move_to(cr, MARGIN, y);
        pango_cairo_show_layout(cr, layout);
        text_size(cr, LABEL_FONT, pg->notes[i], width, true, &w, &h);
        y += h;
        g_object_unref(layout);
    }
    for (size_t i = 0; i < pg->n_panels; i++)
        draw_panel(cr, pg, &pg->panels[i]);
    for (size_t s = 0; s < pg->n_sections; s++)
        draw_colour_bar(cr, &pg->sections[s], pg->bar_x);
}

/* ---- the page as a whole --------------------------------------------- */

static void figure_release(figure *fig)
{
    free(fig->panels);
    free(fig->sections);
    free(fig);
}

figure *figure_make(const trace *tr, const table *const *tables, size_t n,
                    const char *heading, mx_error *err)
{
    figure *fig = calloc(1, sizeof *fig);
    if (fig == NULL) {
        err_nomem(err, _("the picture"));
        return NULL;
    }
    fig->heading = heading;
    if (collect_panels(fig, tr, tables, n, err) != 0) {
        figure_release(fig);
        return NULL;
    }
    if (fig->n_panels == 0) {
        figure_release(fig);
        if (tables == NULL)
            err_usage(err, _("--plot: this run has no attention weights to "
                             "draw"));
        else
            err_usage(err, _("--plot: the chosen tables hold token ids, no "
                             "values to draw"));
        return NULL;
    }
    return fig;
}

double figure_lay_out(figure *fig, bool png, double width, double height,
                      double *w, double *h)
{
    /* text is measured on a surface that draws nothing */
    cairo_surface_t *rec =
        cairo_recording_surface_create(CAIRO_CONTENT_COLOR_ALPHA, NULL);
    cairo_t *cr = cairo_create(rec);
    double scale = lay_out(fig, cr, png, width, height);
    cairo_destroy(cr);
    cairo_surface_destroy(rec);
    *w = width > 0 ? width : ceil(fig->width * scale);
    *h = height > 0 ? height : ceil(fig->height * scale);
    return scale;
}

void figure_draw(cairo_t *cr, const figure *fig, double w, double h,
                 double scale)
{
    cairo_save(cr);
    cairo_translate(cr, floor((w - fig->width * scale) / 2),
                    floor((h - fig->height * scale) / 2));
    cairo_scale(cr, scale, scale);
    draw_page(cr, fig);
    cairo_restore(cr);
}

void figure_free(figure *fig)
{
    if (fig != NULL)
        figure_release(fig);
}
