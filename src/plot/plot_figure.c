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

#include "render/colormap.h"
#include "plot/svg_text.h"
#include "render/heat.h"
#include "base/i18n.h"

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
#define WIDE 4.0      /* a table this many times wider than tall is "wide" */
#define LEGEND_H 50.0 /* the masked cells' legend under a bar */
#define LABEL_SIZE 10.0
#define TITLE_SIZE 11.0
#define HEADING_SIZE 13.0
#define MIN_COL_SIZE 8.0  /* column labels shrink to this to go across */
#define PANEL_BAR_GAP 8.0 /* between a heat map and its own colour bar */
#define QUARTER_TURN (-1.57079632679489661923) /* text reading upwards */
#define CHART_W 440.0 /* the loss curve of a trained run, with its axes */
#define CHART_H 230.0

/* The font families of the pictures, in pango's syntax: the translators
 * name the face of their script first, so that Chinese is drawn in the
 * face of its locale (Noto Sans CJK TC for zh_TW, SC for zh_CN), not
 * the first CJK face fontconfig lists (the Japanese one). */
static const char *font_families(void)
{
    /* TRANSLATORS: the font families of the pictures (--plot), in pango's
     * syntax, comma-separated, the face for your script first; keep
     * "Sans" last. zh_TW: "Noto Sans CJK TC,Sans"; zh_CN: "Noto Sans CJK
     * SC,Sans"; languages written in Latin letters: "Sans". */
    return _("Sans");
}

/* A font's name for pango, "FAMILIES [Bold] SIZE", held by value so
 * that font_of(...).name lasts for the call it is passed to. */
typedef struct {
    char name[160];
} font_name;

static font_name font_of(bool bold, double points)
{
    font_name f;
    snprintf(f.name, sizeof f.name, "%s%s %.1f", font_families(),
             bold ? " Bold" : "", points);
    return f;
}

#define LABEL_FONT font_of(false, LABEL_SIZE).name
#define TITLE_FONT font_of(true, TITLE_SIZE).name
#define HEADING_FONT font_of(true, HEADING_SIZE).name

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
static const cairo_user_data_key_t svg_texts_key; /* its address: a key */

/* The text a layout shows: its text, or when ellipsized its start cut
 * short enough to fit with "…" (as pango draws it, near enough). */
static char *shown_text(PangoLayout *layout)
{
    const char *text = pango_layout_get_text(layout);
    if (!pango_layout_is_ellipsized(layout))
        return g_strdup(text);
    int limit = pango_layout_get_width(layout);
    PangoLayout *probe = pango_layout_copy(layout);
    pango_layout_set_width(probe, -1);
    glong n = g_utf8_strlen(text, -1);
    char *out = NULL;
    for (; n > 0; n--) {
        const char *cut = g_utf8_offset_to_pointer(text, n);
        g_free(out);
        out = g_strdup_printf("%.*s\u2026", (int)(cut - text), text);
        pango_layout_set_text(probe, out, -1);
        int w, h;
        pango_layout_get_size(probe, &w, &h);
        if (w <= limit)
            break;
    }
    g_object_unref(probe);
    return out != NULL ? out : g_strdup("\u2026");
}

/* Logs the layout's lines as SVG text (svg_text.h): cr is at the
 * layout's top left, turned as it is drawn. */
static void log_layout(cairo_t *cr, svg_texts *log, PangoLayout *layout,
                       const char *families, double points, bool bold,
                       double ax)
{
    double ux = 1, uy = 0;
    cairo_user_to_device_distance(cr, &ux, &uy);
    double angle = atan2(uy, ux) * 180.0 / 3.14159265358979323846;
    /* pango sets a size in points at its resolution (96 dots an inch
     * unless set), not at the 72 of the SVG's points */
    double dpi =
        pango_cairo_context_get_resolution(pango_layout_get_context(layout));
    if (dpi <= 0)
        dpi = pango_cairo_font_map_get_resolution(
            PANGO_CAIRO_FONT_MAP(pango_cairo_font_map_get_default()));
    double unit = hypot(ux, uy) * dpi / 72.0;
    double ink[3] = {0, 0, 0}, alpha;
    cairo_pattern_get_rgba(cairo_get_source(cr), &ink[0], &ink[1], &ink[2],
                           &alpha);
    char *shown = shown_text(layout);
    int pw, ph;
    pango_layout_get_size(layout, &pw, &ph);
    PangoLayoutIter *it = pango_layout_get_iter(layout);
    const char *text = pango_layout_get_text(layout);
    bool ellipsized = pango_layout_is_ellipsized(layout);
    do {
        PangoLayoutLine *line = pango_layout_iter_get_line_readonly(it);
        PangoRectangle logical;
        pango_layout_iter_get_line_extents(it, NULL, &logical);
        double baseline = pango_layout_iter_get_baseline(it) / PANGO_SCALE;
        const char *start = ellipsized ? shown : text + line->start_index;
        size_t len = ellipsized ? strlen(shown) : (size_t)line->length;
        while (len > 0 && (start[len - 1] == '\n' || start[len - 1] == '\r'))
            len--;
        /* the anchor: the line's left, middle or right, as ax asks */
        double lx = ((double)logical.x + ax * logical.width) / PANGO_SCALE;
        double dx = lx, dy = baseline;
        cairo_user_to_device(cr, &dx, &dy);
        if (len > 0)
            svg_texts_add(log, start, len, dx, dy, angle,
                          ax == 0   ? 's'
                          : ax == 1 ? 'e'
                                    : 'm',
                          families, points * unit, bold, ink);
        if (ellipsized)
            break;
    } while (pango_layout_iter_next_line(it));
    pango_layout_iter_free(it);
    g_free(shown);
}

/* The family, weight and size of a font name made by font_name. */
static void font_parts(const char *font, const char **families, bool *bold,
                       double *points)
{
    PangoFontDescription *d = pango_font_description_from_string(font);
    *bold = pango_font_description_get_weight(d) >= PANGO_WEIGHT_BOLD;
    *points = (double)pango_font_description_get_size(d) / PANGO_SCALE;
    pango_font_description_free(d);
    *families = font_families();
}

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
    cairo_translate(cr, -ax * pw / PANGO_SCALE, -ay * ph / PANGO_SCALE);
    cairo_move_to(cr, 0, 0);
    svg_texts *log = cairo_get_user_data(cr, &svg_texts_key);
    if (log != NULL) {
        const char *families;
        bool bold;
        double points;
        font_parts(font, &families, &bold, &points);
        log_layout(cr, log, layout, families, points, bold, ax);
    } else {
        pango_cairo_show_layout(cr, layout);
    }
    cairo_restore(cr);
    g_object_unref(layout);
}

/* ---- what goes on a page --------------------------------------------- */

/* A colour scale: a map and the values at its ends. */
typedef struct {
    colormap map;
    double lo, hi;
    bool by_row; /* each row has its own ends (--color-scale row) */
} color_range;

typedef struct {
    const table *t;
    const table *mask; /* the -inf cells of this table are masked, or NULL */
    size_t section;    /* the table name it is drawn with */
    color_range sc;    /* its colours */
    double *row_lo, *row_hi; /* [rows], with sc.by_row; owned */
    double x, y;             /* top left of its box on the figure */
    bool training;           /* a trained run's head, at a step: */
    size_t step;             /* 0 before training, N after it */
} panel;

/* The panels of one colour scale, in a grid per variant, and their colour
 * bar. Panels of a section are next to each other in the page's list. */
typedef struct {
    char name[64]; /* the table name; the wrapper's heads.N. as heads.*. */
    enum table_shade shade; /* its tables' shading (catalogue.h) */
    color_range sc;         /* the shared bar's scale */
    bool shared_bar;        /* one bar for the name, beside the grids */
    bool panel_bars;        /* a bar beside each panel */
    double panel_bar_w;     /* a panel's bar with its ticks */
    bool masked;            /* some cell is masked (or not finite) */
    size_t first, count;    /* its panels */
    size_t rows, cols;      /* the largest table's shape */
    size_t block;           /* a drawn cell is the mean of block x block */
    size_t block_r;         /* rows of a block: block, or 1 in a wide
                               table of few rows (block_r x block) */
    double cell;            /* a drawn cell's width */
    double cell_h;          /* and height: its width, or taller in a wide
                               table of few rows (size_section) */
    size_t label_every;     /* a label every label_every-th drawn column */
    size_t row_every;       /* a label every row_every-th drawn row */
    double row_label_w;     /* the widest row label */
    double col_label_w;     /* the widest column label */
    double col_label_v;     /* the tallest column label turned or upright */
    double title_w;         /* the widest panel title */
    bool rotate_cols;       /* column labels upright when they do not fit */
    double col_size;        /* their size in points when they go across */
    double box_w, box_h;    /* one panel's box: title, labels, map */
    double top, bar_h;      /* where its colour bar starts, its height */
} section;

struct figure {
    plot_style style;
    panel *panels;
    size_t n_panels;
    size_t dropped; /* panels left out to keep the page a sane size */
    section *sections;
    size_t n_sections;
    bool show_names; /* titles say the table's name */
    double flow;     /* each variant's grid below the last, as square as
                        its heads allow (0), or in rows of panels at most
                        this wide */
    const char *heading;
    char notes[4][256];
    size_t n_notes;
    double line_h, title_h;  /* a label line's and a title's height */
    double header_h;         /* heading and notes: their height */
    double header_w;         /* and width */
    double bar_x, bar_w;     /* the column of colour bars */
    double width, height;    /* the page, in points */
    struct model_view *view; /* the model view instead of panels, or NULL */
    const table *loss[VARIANT_ID_COUNT]; /* a trained run's loss curves */
    size_t n_loss;
    table *before; /* n_before heads' weights before training: copies of
                      the trained heads' tables whose values point into
                      attn_weights_steps; owned (not their values) */
    size_t n_before;
};

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

/* The page's panels: the tables chosen, or every head's weights (and a
 * trained run's heads before training, trained_heads). Groups them by
 * scale, then by variant, keeping the trace's order within. */
static int collect_panels(figure *pg, const trace *tr,
                          const table *const *tables, size_t n, mx_error *err)
{
    size_t cap = tables != NULL ? n : trace_count(tr);
    /* room for a trained head's weights before training too */
    panel *found = calloc(2 * cap + 1, sizeof *found);
    char(*names)[64] = calloc(cap + 1, sizeof *names);
    variant_id *variants = calloc(cap + 1, sizeof *variants);
    pg->panels = calloc(2 * cap + 1, sizeof *pg->panels);
    pg->sections = calloc(cap + 1, sizeof *pg->sections);
    pg->before = calloc(cap + 1, sizeof *pg->before);
    if (found == NULL || names == NULL || variants == NULL ||
        pg->panels == NULL || pg->sections == NULL || pg->before == NULL) {
        free(found);
        free(names);
        free(variants);
        return err_nomem(err, _("the picture"));
    }
    size_t n_found = 0, n_names = 0, n_variants = 0;
    for (size_t i = 0; i < cap; i++) {
        const table *t = tables != NULL ? tables[i] : trace_at(tr, i);
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

/* The smallest and largest unmasked finite values of rows [r0, r1) of a
 * panel; false when there are none. */
static bool panel_range(const panel *p, size_t r0, size_t r1, double *lo,
                        double *hi)
{
    const matrix *m = &p->t->values;
    bool any = false;
    for (size_t r = r0; r < r1; r++)
        for (size_t c = 0; c < m->cols; c++) {
            if (cell_masked(p, r, c))
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

/* The map for values from lo to hi: --cmap, else viridis, and RdBu_r for
 * both signs. */
static colormap scale_map(const plot_style *st, double lo, double hi)
{
    colormap m;
    if (st->cmap == NULL || !colormap_find(&m, st->cmap))
        colormap_find(&m, lo < 0.0 && hi > 0.0 ? "RdBu_r" : "viridis");
    return m;
}

static bool centred(const colormap *m, const plot_style *st)
{
    return st->cmap == NULL || colormap_diverging(m);
}

/* Every panel's colour scale (plot_style.h): weights from 0 to 1 with
 * --color-scale fixed; otherwise each panel's own range (a bar each),
 * each row's (row), or with --colorbar shared the range of every panel of
 * the table name (one bar). */
static int scale_panels(figure *pg, mx_error *err)
{
    const plot_style *st = &pg->style;
    enum plot_bars bars = st->bars;
    if (bars == BARS_AUTO)
        bars = st->scale == SCALE_FIXED ? BARS_SHARED : BARS_PANEL;
    for (size_t s = 0; s < pg->n_sections; s++) {
        section *S = &pg->sections[s];
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
                    S->masked |= cell_masked(p, r, c);
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
                    double qa, qb;
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
static rgb scale_color(const panel *p, size_t r, double v)
{
    double lo = p->sc.by_row ? p->row_lo[r] : p->sc.lo;
    double hi = p->sc.by_row ? p->row_hi[r] : p->sc.hi;
    return colormap_color(&p->sc.map, hi > lo ? (v - lo) / (hi - lo) : 1.0);
}

static void panel_title(char *out, size_t size, const panel *p, bool names)
{
    const table *t = p->t;
    char who[96], layer[16];
    const char *where = table_place(layer, sizeof layer, t);
    if (t->head != NO_HEAD && p->training && p->step == 0)
        /* TRANSLATORS: a picture's panel title: variant, head number */
        snprintf(who, sizeof who, _("[%s] head %d, before training"), where,
                 t->head);
    else if (t->head != NO_HEAD && p->training)
        /* TRANSLATORS: a picture's panel title: variant, head number,
         * the number of training steps */
        snprintf(who, sizeof who,
                 ngettext("[%s] head %d, after %zu step",
                          "[%s] head %d, after %zu steps", p->step),
                 where, t->head, p->step);
    else if (t->head != NO_HEAD)
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

/* The UTF-8 character after c's (tokenize.c checked the text). */
static const char *next_char(const char *c)
{
    const unsigned char b = (unsigned char)*c;
    size_t n = b < 0x80 ? 1 : b < 0xE0 ? 2 : b < 0xF0 ? 3 : 4;
    for (size_t i = 1; i < n; i++)
        if (c[i] == '\0')
            return c + i;
    return c + n;
}

/* Whether a label holds Chinese, Japanese or Korean characters, which are
 * never drawn sideways: a column label too wide for its cell goes down
 * the page a character under another, each upright. */
static bool upright(const char *label)
{
    for (const char *c = label; *c != '\0'; c = next_char(c)) {
        gunichar u = g_utf8_get_char(c);
        if ((u >= 0x2E80 && u <= 0xA4CF) || (u >= 0xAC00 && u <= 0xD7AF) ||
            (u >= 0xF900 && u <= 0xFAFF) || (u >= 0xFE30 && u <= 0xFE4F) ||
            (u >= 0xFF00 && u <= 0xFFEF) || u >= 0x20000)
            return true;
    }
    return false;
}

/* The characters of an upright label that fit in MAX_LABEL, each line_h
 * tall. */
static size_t upright_count(const char *label, double line_h)
{
    size_t n = (size_t)g_utf8_strlen(label, -1);
    size_t most = (size_t)(MAX_LABEL / line_h);
    return n < most ? n : most;
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

static double ticks_width(cairo_t *cr, const color_range *sc);
static void draw_bar(cairo_t *cr, const color_range *sc, double x, double y,
                     double height);

/* What does not depend on the page's scale: label and title widths. */
static void measure_section(section *S, cairo_t *cr, const panel *p, bool names,
                            double line_h)
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
            for (size_t k = 0; k < cols->n; k++) {
                double v, h;
                if (upright(cols->s[k]))
                    v = (double)upright_count(cols->s[k], line_h) * line_h;
                else
                    text_size(cr, LABEL_FONT, cols->s[k], MAX_LABEL, false, &v,
                              &h);
                S->col_label_v = v > S->col_label_v ? v : S->col_label_v;
            }
        }
        char title[256];
        double w, h;
        panel_title(title, sizeof title, &p[i], names);
        text_size(cr, TITLE_FONT, title, 0, false, &w, &h);
        S->title_w = w > S->title_w ? w : S->title_w;
        if (S->panel_bars)
            S->panel_bar_w = fmax(S->panel_bar_w, ticks_width(cr, &p[i].sc));
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
    /* a wide table of few rows (GPT-2's logits, T x 50257) would be a
     * strip too thin for its row labels: its rows are taller, a label
     * each and the map as tall as a colour bar if the page allows */
    const size_t cols_b = blocks(S->cols, S->block);
    S->block_r = S->block;
    if (cell < line_h && (double)cols_b >= WIDE * (double)S->rows &&
        (double)S->rows * line_h <= MAX_SIDE)
        S->block_r = 1; /* every row its own, however wide its blocks */
    const size_t rows_b = blocks(S->rows, S->block_r);
    S->cell_h = cell;
    if (cell < line_h && (double)cols_b >= WIDE * (double)rows_b)
        S->cell_h = fmax(cell, fmin(fmin(MAX_CELL, MAX_SIDE / (double)rows_b),
                                    fmax(line_h, BAR_MIN / (double)rows_b)));
    S->row_every = (size_t)ceil(line_h / S->cell_h);
    S->row_every = S->row_every < 1 ? 1 : S->row_every;
    /* across the page when they fit, at a smaller size if need be */
    S->col_size = LABEL_SIZE;
    if (S->col_label_w > cell - 2.0 &&
        S->col_label_w * MIN_COL_SIZE / LABEL_SIZE <= cell - 2.0)
        S->col_size =
            floor(LABEL_SIZE * (cell - 2.0) / S->col_label_w * 10) / 10;
    S->rotate_cols = S->col_label_w * S->col_size / LABEL_SIZE > cell - 2.0;
    double col_label_h = S->rotate_cols ? S->col_label_v : line_h;
    double map_w = (double)blocks(S->cols, S->block) * cell;
    double map_h = (double)rows_b * S->cell_h;
    double beside = S->panel_bars ? PANEL_BAR_GAP + S->panel_bar_w : 0;
    S->box_w = S->row_label_w + PAD + fmax(map_w + beside, S->title_w);
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
            if (pg->flow > 0) { /* as many columns as the row holds */
                gc = (size_t)floor(
                    (pg->flow - MARGIN + GAP) / (S->box_w + GAP) + 1e-9);
                gc = gc < 1 ? 1 : gc > run ? run : gc;
                gr = (run + gc - 1) / gc;
            }
            double run_w = (double)gc * S->box_w + (double)(gc - 1) * GAP;
            if (x > MARGIN) { /* each variant's grid below the last */
                y += row_h;
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
        double bar_bottom =
            S->shared_bar ? S->top + S->bar_h + (S->masked ? LEGEND_H : 0) : 0;
        y = bar_bottom + GAP > y ? bar_bottom + GAP : y;
        double bw = bar_width(cr, S);
        pg->bar_w = bw > pg->bar_w ? bw : pg->bar_w;
    }
    /* room for a shared bar's upright caption */
    pg->bar_x = pg->bar_w > 0 ? right + GAP + 20 : right;
    pg->width =
        ceil(fmax(pg->bar_x + pg->bar_w, pg->header_w + MARGIN) + MARGIN);
    pg->height = ceil(y - GAP + MARGIN);
}

/* The heading and the notes, at most as wide as the panels (or 480
 * points): their height. */
static const char *masked_legend(const section *S);
static void draw_masked(cairo_t *cr, double x, double y, double side);

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
static double header_legends(const figure *pg, cairo_t *cr, double x, double y,
                             bool draw, double *h)
{
    double at = x, w, lh;
    *h = 0;
    for (size_t s = 0; s < pg->n_sections; s++) {
        if (!legend_in_header(pg, s))
            continue;
        const char *text = masked_legend(&pg->sections[s]);
        text_size(cr, LABEL_FONT, text, 0, false, &w, &lh);
        if (draw) {
            draw_masked(cr, at, y, BAR_WIDTH);
            cairo_set_source_rgb(cr, 0, 0, 0);
            cairo_set_line_width(cr, 0.75);
            cairo_rectangle(cr, at, y, BAR_WIDTH, BAR_WIDTH);
            cairo_stroke(cr);
            draw_text(cr, LABEL_FONT, text, 0, at + BAR_WIDTH + 6, y, 0, 0, 0);
        }
        *h = fmax(*h, fmax(lh, BAR_WIDTH));
        at += BAR_WIDTH + 6 + w + GAP;
    }
    return at > x ? at - x - GAP : 0;
}

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
    if (pg->n_loss > 0) { /* the loss curve, above the panels' legends */
        h += CHART_H + GAP;
        pg->header_w = fmax(pg->header_w, CHART_W);
    }
    w = header_legends(pg, cr, 0, 0, false, &lh);
    if (w > 0) {
        h += lh + PAD + GAP;
        pg->header_w = fmax(pg->header_w, w);
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
                      * value: table name, a block's rows and columns */
                     _("Summarised: each cell of %s is the mean of a block "
                       "of %zu x %zu values."),
                     S->name, S->block_r, S->block);
    }
    const bool model =
        pg->n_panels > 0 && table_in_layered_model(pg->panels[0].t);
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
 * the last (the 2 x 4 grid of 8 heads), or for a size given (--plot-size)
 * the number of columns that draws the page largest. Returns the output's units
 * per point. */
static double lay_out(figure *pg, cairo_t *cr, bool png, double width,
                      double height)
{
    double unused;
    text_size(cr, LABEL_FONT, "Ag", 0, false, &unused, &pg->line_h);
    text_size(cr, TITLE_FONT, "Ag", 0, false, &unused, &pg->title_h);
    for (size_t s = 0; s < pg->n_sections; s++)
        measure_section(&pg->sections[s], cr, pg->panels, pg->show_names,
                        pg->line_h);
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
static bool block_mean(const panel *p, size_t kr, size_t k, size_t br,
                       size_t bc, double *mean)
{
    const matrix *m = &p->t->values;
    double sum = 0;
    size_t n = 0;
    for (size_t r = br * kr; r < m->rows && r < (br + 1) * kr; r++)
        for (size_t c = bc * k; c < m->cols && c < (bc + 1) * k; c++)
            if (!cell_masked(p, r, c)) {
                sum += m->v[r * m->cols + c];
                n++;
            }
    *mean = n > 0 ? sum / (double)n : 0.0;
    return n > 0;
}

/* The value written in a cell, in a font that fits the cell's width. */
static void annotate(cairo_t *cr, double v, int decimals, rgb c8, double x,
                     double y, double cell)
{
    char value[48];
    if (fabs(v) < 0.5 * pow(10.0, -decimals))
        v = 0.0; /* no "-0.00" */
    if (fabs(v) < 100.0)
        snprintf(value, sizeof value, "%.*f", decimals, v);
    else
        snprintf(value, sizeof value, "%.3g", v);
    double size = cell * 0.24;
    double w, h;
    text_size(cr, font_of(false, size).name, value, 0, false, &w, &h);
    if (w > cell * 0.9)
        size *= cell * 0.9 / w;
    if (size < 5.0)
        return;
    /* dark text on light cells, light on dark, as seaborn does */
    double lum = (0.2126 * c8.r + 0.7152 * c8.g + 0.0722 * c8.b) / 255.0;
    double ink = lum > 0.408 ? 0.0 : 1.0;
    cairo_set_source_rgb(cr, ink, ink, ink);
    draw_text(cr, font_of(false, size).name, value, 0, x + cell / 2,
              y + cell / 2, 0.5, 0.5, 0);
}

/* The path of a panel's masked cells. */
static void masked_path(cairo_t *cr, const panel *p, const section *S,
                        double mx, double my)
{
    const size_t k = S->block, kr = S->block_r,
                 nr = blocks(p->t->values.rows, kr),
                 nc = blocks(p->t->values.cols, k);
    cairo_new_path(cr);
    for (size_t r = 0; r < nr; r++)
        for (size_t c = 0; c < nc; c++) {
            double v;
            if (!block_mean(p, kr, k, r, c, &v))
                cairo_rectangle(cr, mx + (double)c * S->cell,
                                my + (double)r * S->cell_h, S->cell, S->cell_h);
        }
}

/* A panel's masked cells as draw_masked draws one, all at once: one grey
 * shape, and its hatching as lines across the map clipped to it (one
 * path each, not one per cell: an SVG or PDF stays small). */
static void draw_masked_cells(cairo_t *cr, const panel *p, const section *S,
                              double mx, double my)
{
    const double side = S->cell;
    const double map_w = (double)blocks(p->t->values.cols, S->block) * side,
                 map_h =
                     (double)blocks(p->t->values.rows, S->block_r) * S->cell_h;
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
                 nr = blocks(p->t->values.rows, kr),
                 nc = blocks(p->t->values.cols, k);
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
                    c8 = scale_color(p, r * kr, v);
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
    const double overlap = fmin(0.5, cell / 8);
    bool any_masked = false;
    for (size_t r = 0; r < nr; r++)
        for (size_t c = 0; c < nc; c++) {
            double x = mx + (double)c * cell, y = my + (double)r * cell_h, v;
            if (!block_mean(p, kr, k, r, c, &v)) {
                any_masked = true;
                continue;
            }
            rgb c8 = scale_color(p, r * kr, v);
            cairo_set_source_rgb(cr, c8.r / 255.0, c8.g / 255.0, c8.b / 255.0);
            cairo_set_antialias(cr, CAIRO_ANTIALIAS_NONE);
            /* under the next cell a little, so that an SVG or PDF viewer
             * shows no seam between neighbours */
            cairo_rectangle(cr, x, y, cell + (c + 1 < nc ? overlap : 0),
                            cell_h + (r + 1 < nr ? overlap : 0));
            cairo_fill(cr);
            cairo_set_antialias(cr, CAIRO_ANTIALIAS_DEFAULT);
            if (values)
                annotate(cr, v, pg->style.decimals, c8, x, y, cell);
        }
    if (any_masked)
        draw_masked_cells(cr, p, S, mx, my);
}

/* An upright label from (cx, top) down: one character a line, the last
 * one that fits a vertical ellipsis when it is cut short. */
static void draw_upright(cairo_t *cr, const char *label, double cx, double top,
                         double line_h)
{
    size_t n = (size_t)g_utf8_strlen(label, -1),
           shown = upright_count(label, line_h);
    const char *c = label;
    for (size_t i = 0; i < shown; i++, c = next_char(c)) {
        char one[8] = "\xef\xb8\x99"; /* U+FE19 PRESENTATION FORM FOR
                                       VERTICAL HORIZONTAL ELLIPSIS */
        if (i + 1 < shown || shown == n)
            snprintf(one, sizeof one, "%.*s", (int)(next_char(c) - c), c);
        draw_text(cr, LABEL_FONT, one, 0, cx, top + ((double)i + 0.5) * line_h,
                  0.5, 0.5, 0);
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
    draw_map(cr, pg, p, S, mx, my);
    double map_w = (double)blocks(t->values.cols, S->block) * S->cell;
    double map_h = (double)blocks(t->values.rows, S->block_r) * S->cell_h;
    if (S->panel_bars)
        draw_bar(cr, &p->sc, mx + map_w + PANEL_BAR_GAP, my, map_h);

    /* a drawn cell's labels are those of its first row or column */
    const size_t k = S->block, kr = S->block_r, every = S->label_every * k,
                 row_every = S->row_every * kr;
    const double cell = S->cell;
    cairo_set_source_rgb(cr, 0, 0, 0);
    for (size_t r = 0; r < t->rows->n; r += row_every)
        draw_text(cr, LABEL_FONT, t->rows->s[r], MAX_LABEL, mx - PAD,
                  my + ((double)(r / kr) + 0.5) * S->cell_h, 1.0, 0.5, 0);
    double under = my + map_h + PAD;
    for (size_t c = 0; c < t->cols->n; c += every) {
        double cx = mx + ((double)(c / k) + 0.5) * cell;
        if (S->rotate_cols && upright(t->cols->s[c]))
            draw_upright(cr, t->cols->s[c], cx, under, pg->line_h);
        else if (S->rotate_cols) /* reading upwards, ending under it */
            draw_text(cr, LABEL_FONT, t->cols->s[c], MAX_LABEL, cx, under, 1.0,
                      0.5, QUARTER_TURN);
        else
            draw_text(cr, font_of(false, S->col_size).name, t->cols->s[c],
                      MAX_LABEL, cx, under, 0.5, 0, 0);
    }
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
static double ticks_width(cairo_t *cr, const color_range *sc)
{
    double widest = 0, w, h;
    for (int k = 0; k <= 4; k++) {
        char tick[64];
        tick_text(tick, sizeof tick, sc, k);
        text_size(cr, LABEL_FONT, tick, 0, false, &w, &h);
        widest = w > widest ? w : widest;
    }
    return BAR_WIDTH + 6 + widest;
}

/* The right-hand column's width for a section: its shared bar, and the
 * legend of its masked cells. */
static double bar_width(cairo_t *cr, const section *S)
{
    double widest = S->shared_bar ? ticks_width(cr, &S->sc) : 0, w, h;
    if (S->masked && S->shared_bar) {
        text_size(cr, LABEL_FONT, masked_legend(S), 0, false, &w, &h);
        widest = fmax(widest, BAR_WIDTH + 6 + w);
    }
    return widest;
}

/* A colour bar of scale sc at (x, y), height tall, with its ticks (five,
 * or three on a short bar). */
static void draw_bar(cairo_t *cr, const color_range *sc, double x, double y,
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
    int step = height < 90.0 ? 2 : 1;
    for (int k = 0; k <= 4; k += step) {
        double ty = y + height * (1.0 - k / 4.0);
        char tick[64];
        tick_text(tick, sizeof tick, sc, k);
        if (tick[0] == '\0')
            continue;
        cairo_move_to(cr, x + BAR_WIDTH, ty);
        cairo_line_to(cr, x + BAR_WIDTH + 4, ty);
        cairo_stroke(cr);
        draw_text(cr, LABEL_FONT, tick, 0, x + BAR_WIDTH + 6, ty, 0, 0.5, 0);
    }
}

/* The section's shared colour bar at (x, S->top) and its caption, or
 * only the legend of its masked cells. */
static void draw_colour_bar(cairo_t *cr, const section *S, double x)
{
    const double y = S->top, height = S->bar_h;
    double ly = y;
    if (S->shared_bar) {
        draw_bar(cr, &S->sc, x, y, height);
        draw_text(cr, LABEL_FONT, bar_caption(S), height, x - 6, y + height / 2,
                  0.5, 1.0, QUARTER_TURN);
        ly = y + height + 20;
    }
    if (S->masked && S->shared_bar) {
        draw_masked(cr, x, ly, BAR_WIDTH);
        cairo_set_source_rgb(cr, 0, 0, 0);
        cairo_rectangle(cr, x, ly, BAR_WIDTH, BAR_WIDTH);
        cairo_stroke(cr);
        draw_text(cr, LABEL_FONT, masked_legend(S), 0, x + BAR_WIDTH + 6, ly, 0,
                  0, 0);
    }
}

/* ---- the loss curve of a trained run ------------------------------------ */

/* Colours of the variants' curves (matplotlib's first four). */
static const double curve_rgb[][3] = {
    {0.122, 0.467, 0.706},
    {1.000, 0.498, 0.055},
    {0.173, 0.627, 0.173},
    {0.839, 0.153, 0.157},
};

/* An axis tick's text: a step (integral) or a loss. */
static void axis_text(char *out, size_t size, double v, bool integral)
{
    if (integral)
        snprintf(out, size, "%.0f", v);
    else
        snprintf(out, size, "%.3g", v);
}

/* Each trained variant's loss (N + 1 values, row i at step i) as a line
 * over the steps, in a CHART_W x CHART_H box from (x, y): a title, the
 * axes with their ticks and names, a legend of the variants. A value
 * that is not finite breaks its line. */
static void draw_loss_chart(cairo_t *cr, const figure *pg, double x, double y)
{
    const double right = 12, top = 32, bottom = 40;
    double lo = INFINITY, hi = -INFINITY;
    size_t steps = 0;
    for (size_t i = 0; i < pg->n_loss; i++) {
        const matrix *m = &pg->loss[i]->values;
        steps = m->rows - 1 > steps ? m->rows - 1 : steps;
        for (size_t r = 0; r < m->rows; r++)
            if (isfinite(m->v[r * m->cols])) {
                lo = fmin(lo, m->v[r * m->cols]);
                hi = fmax(hi, m->v[r * m->cols]);
            }
    }
    if (!(lo <= hi)) { /* nothing finite */
        lo = 0;
        hi = 1;
    }
    // ticks at round values: a step of 1, 2 or 5 times a power of ten
    const double raw = fmax(hi > lo ? (hi - lo) / 4 : 0.25, 1e-12);
    const double mag = pow(10, floor(log10(raw)));
    const double tick_step = raw <= mag       ? mag
                             : raw <= 2 * mag ? 2 * mag
                             : raw <= 5 * mag ? 5 * mag
                                              : 10 * mag;
    lo = floor(lo / tick_step) * tick_step;
    hi = ceil(hi / tick_step) * tick_step;
    if (hi <= lo)
        hi = lo + tick_step;
    // the widest tick of the losses, and the axis's name left of it
    char tick[48];
    double widest = 0, tw, th = LABEL_SIZE;
    for (double v = lo; v <= hi + tick_step / 2; v += tick_step) {
        axis_text(tick, sizeof tick, v, false);
        text_size(cr, LABEL_FONT, tick, 0, false, &tw, &th);
        widest = fmax(widest, tw);
    }
    const double left = fmax(52, widest + th + 18);
    const double x0 = x + left, y0 = y + top;
    const double w = CHART_W - left - right, h = CHART_H - top - bottom;
    cairo_set_source_rgb(cr, 0, 0, 0);
    /* TRANSLATORS: the title of --plot's loss curve (--train) */
    draw_text(cr, TITLE_FONT, _("loss at each training step"), CHART_W, x, y, 0,
              0, 0);
    cairo_set_line_width(cr, 0.75);
    cairo_rectangle(cr, x0, y0, w, h);
    cairo_stroke(cr);
    for (double v = lo; v <= hi + tick_step / 2; v += tick_step) {
        const double ty = y0 + h * (hi - v) / (hi - lo);
        cairo_move_to(cr, x0 - 4, ty);
        cairo_line_to(cr, x0, ty);
        cairo_stroke(cr);
        axis_text(tick, sizeof tick, v, false);
        draw_text(cr, LABEL_FONT, tick, 0, x0 - 6, ty, 1.0, 0.5, 0);
    }
    // the steps' ticks at round numbers too, about four of them
    const double raw_every = steps > 4 ? (double)steps / 4 : 1;
    const double every_mag = pow(10, floor(log10(raw_every)));
    const size_t every =
        (size_t)(raw_every <= every_mag       ? every_mag
                 : raw_every <= 2 * every_mag ? 2 * every_mag
                 : raw_every <= 5 * every_mag ? 5 * every_mag
                                              : 10 * every_mag);
    for (size_t s = 0; s <= steps; s += every) {
        const double tx = x0 + (steps > 0 ? w * (double)s / (double)steps : 0);
        cairo_move_to(cr, tx, y0 + h);
        cairo_line_to(cr, tx, y0 + h + 4);
        cairo_stroke(cr);
        axis_text(tick, sizeof tick, (double)s, true);
        draw_text(cr, LABEL_FONT, tick, 0, tx, y0 + h + 6, 0.5, 0, 0);
    }
    /* TRANSLATORS: the axes of --plot's loss curve */
    draw_text(cr, LABEL_FONT, _("training step"), 0, x0 + w / 2, y + CHART_H,
              0.5, 1.0, 0);
    draw_text(cr, LABEL_FONT, _("loss"), 0, x0 - 8 - widest - th, y0 + h / 2,
              0.5, 0, QUARTER_TURN);
    for (size_t i = 0; i < pg->n_loss; i++) {
        const matrix *m = &pg->loss[i]->values;
        const double *c = curve_rgb[i % (sizeof curve_rgb / sizeof *curve_rgb)];
        cairo_set_source_rgb(cr, c[0], c[1], c[2]);
        cairo_set_line_width(cr, 1.5);
        cairo_new_path(cr);
        bool drawing = false;
        for (size_t r = 0; r < m->rows; r++) {
            const double v = m->v[r * m->cols];
            if (!isfinite(v)) {
                drawing = false;
                continue;
            }
            const double px =
                x0 + (steps > 0 ? w * (double)r / (double)steps : w / 2);
            const double py = y0 + h * (hi - v) / (hi - lo);
            if (drawing)
                cairo_line_to(cr, px, py);
            else
                cairo_move_to(cr, px, py);
            drawing = true;
        }
        cairo_stroke(cr);
        if (m->rows == 1 && isfinite(m->v[0])) { /* --train 0: a dot */
            cairo_arc(cr, x0 + w / 2, y0 + h * (hi - m->v[0]) / (hi - lo), 3, 0,
                      2 * G_PI);
            cairo_fill(cr);
        }
        /* the legend, top right inside the box */
        const double ly = y0 + 8 + 14 * (double)i, lx = x0 + w - 96;
        cairo_move_to(cr, lx, ly);
        cairo_line_to(cr, lx + 18, ly);
        cairo_stroke(cr);
        cairo_set_source_rgb(cr, 0, 0, 0);
        draw_text(cr, LABEL_FONT, variant_id_name(pg->loss[i]->variant), 0,
                  lx + 22, ly, 0, 0.5, 0);
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
        svg_texts *log = cairo_get_user_data(cr, &svg_texts_key);
        cairo_save(cr);
        cairo_translate(cr, MARGIN, y);
        cairo_move_to(cr, 0, 0);
        if (log != NULL)
            log_layout(cr, log, layout, font_families(), LABEL_SIZE, false, 0);
        else
            pango_cairo_show_layout(cr, layout);
        cairo_restore(cr);
        text_size(cr, LABEL_FONT, pg->notes[i], width, true, &w, &h);
        y += h;
        g_object_unref(layout);
    }
    if (pg->n_loss > 0) {
        draw_loss_chart(cr, pg, MARGIN, y + PAD);
        y += CHART_H + GAP;
    }
    header_legends(pg, cr, MARGIN, y + PAD, true, &h);
    for (size_t i = 0; i < pg->n_panels; i++)
        draw_panel(cr, pg, &pg->panels[i]);
    for (size_t s = 0; s < pg->n_sections; s++)
        draw_colour_bar(cr, &pg->sections[s], pg->bar_x);
}

/* ---- the model view: every layer's heads in one grid ------------------ */

/* A run with several layers (a checkpoint's, --model, or a stack of
 * blocks, --layers N) whose picture is every head's attention weights
 * gets BertViz's model view: a grid of thumbnails, a row per layer (or
 * module) in trace order, a column per head, every weight on one scale
 * from 0 to 1, masked cells grey. */
#define VIEW_THUMB_MAX 120.0 /* a thumbnail's side, at most */
#define VIEW_THUMB_MIN 40.0  /* and at least */
#define VIEW_GRID_W 900.0    /* the thumbnails of a row share about this */
#define VIEW_GAP 6.0         /* between thumbnails */
#define VIEW_BAR_H 160.0
#define VIEW_TEXT_W 420.0 /* the title's width, at least */

struct model_view {
    const table **cells; /* rows x cols weights tables, NULL where absent */
    const table **masks; /* rows x cols: each one's mask (trace_mask_of) */
    char (*places)[16];  /* each row's place (table_place) */
    int *heads;          /* each column's head */
    size_t rows, cols;
    colormap map;
    double thumb;             /* a thumbnail's side */
    double label_w, header_h; /* row labels' width, the header's height */
    double grid_x, grid_y;    /* the grid's top left */
    bool bare_heads; /* "head 12" is wider than a thumbnail: the columns
                        say "12", the row labels' column "head" */
};

/* Whether t is a head's weights of a layer of a model or a stack. */
static bool view_table(const table *t)
{
    return t->id == TABLE_ATTN_WEIGHTS && t->head != NO_HEAD &&
           t->values.rows > 0 && t->values.cols > 0;
}

static void view_free(struct model_view *v)
{
    if (v == NULL)
        return;
    free(v->cells);
    free(v->masks);
    free(v->places);
    free(v->heads);
    free(v);
}

/* The model view of the chosen tables (every table of tr when tables is
 * NULL), or *out NULL when the picture is not one: other tables chosen,
 * no checkpoint's or stacked table, or a single layer. */
static int view_make(struct model_view **out, const trace *tr,
                     const table *const *tables, size_t n,
                     const plot_style *style, mx_error *err)
{
    *out = NULL;
    const size_t cap = tables != NULL ? n : trace_count(tr);
    size_t layered = 0, chosen = 0;
    for (size_t i = 0; i < cap; i++) {
        const table *t = tables != NULL ? tables[i] : trace_at(tr, i);
        if (!view_table(t)) {
            if (tables != NULL)
                return 0; /* another table asked for: panels */
            continue;
        }
        chosen++;
        layered += table_in_layered_model(t) || t->stacked;
    }
    if (layered == 0)
        return 0;
    struct model_view *v = calloc(1, sizeof *v);
    if (v == NULL || (v->places = calloc(chosen, sizeof *v->places)) == NULL ||
        (v->heads = calloc(chosen, sizeof *v->heads)) == NULL) {
        view_free(v);
        return err_nomem(err, _("the picture"));
    }
    // rows: the places in order; columns: the heads, in order
    for (size_t i = 0; i < cap; i++) {
        const table *t = tables != NULL ? tables[i] : trace_at(tr, i);
        if (!view_table(t))
            continue;
        char buf[16];
        const char *where = table_place(buf, sizeof buf, t);
        size_t r = 0;
        while (r < v->rows && strcmp(v->places[r], where) != 0)
            r++;
        if (r == v->rows)
            snprintf(v->places[v->rows++], sizeof v->places[0], "%s", where);
        size_t c = 0;
        while (c < v->cols && v->heads[c] != t->head)
            c++;
        if (c == v->cols) {
            for (c = v->cols; c > 0 && v->heads[c - 1] > t->head; c--)
                v->heads[c] = v->heads[c - 1];
            v->heads[c] = t->head;
            v->cols++;
        }
    }
    if (v->rows < 2) {
        view_free(v);
        return 0;
    }
    v->cells = calloc(v->rows * v->cols, sizeof *v->cells);
    v->masks = calloc(v->rows * v->cols, sizeof *v->masks);
    if (v->cells == NULL || v->masks == NULL) {
        view_free(v);
        return err_nomem(err, _("the picture"));
    }
    for (size_t i = 0; i < cap; i++) {
        const table *t = tables != NULL ? tables[i] : trace_at(tr, i);
        if (!view_table(t))
            continue;
        char buf[16];
        const char *where = table_place(buf, sizeof buf, t);
        size_t r = 0, c = 0;
        while (strcmp(v->places[r], where) != 0)
            r++;
        while (v->heads[c] != t->head)
            c++;
        v->cells[r * v->cols + c] = t;
        v->masks[r * v->cols + c] = trace_mask_of(tr, t);
    }
    if (style->cmap == NULL || !colormap_find(&v->map, style->cmap))
        colormap_find(&v->map, "viridis");
    *out = v;
    return 0;
}

/* The title above the grid. */
static const char *view_title(void)
{
    /* TRANSLATORS: the title of --plot's model view (BertViz's name for
     * it); attn_weights is a table's name, kept as is */
    return _("Model view: attn_weights of every layer (rows) and head "
             "(columns), from 0 to 1");
}

/* The scale of the view's colour bar: the weights, 0 to 1. */
static color_range view_scale(const struct model_view *v)
{
    return (color_range){.map = v->map, .lo = 0.0, .hi = 1.0};
}

/* The heading of the row labels' column when the columns give only
 * their heads' numbers. */
static const char *view_head_word(void)
{
    /* TRANSLATORS: --plot's model view, above the layers' names when the
     * columns are headed by bare head numbers (0, 1, ..., 24) */
    return _("head");
}

/* Lays the view out; sets the page's size in points. */
static void view_lay_out(figure *pg, cairo_t *cr)
{
    struct model_view *v = pg->view;
    double w, h;
    v->thumb =
        fmin(VIEW_THUMB_MAX,
             fmax(VIEW_THUMB_MIN, VIEW_GRID_W / (double)v->cols - VIEW_GAP));
    v->label_w = 0;
    for (size_t r = 0; r < v->rows; r++) {
        text_size(cr, LABEL_FONT, v->places[r], 0, false, &w, &h);
        v->label_w = fmax(v->label_w, w);
    }
    v->bare_heads = false;
    for (size_t c = 0; c < v->cols && !v->bare_heads; c++) {
        char head[32];
        snprintf(head, sizeof head, _("head %d"), v->heads[c]);
        text_size(cr, LABEL_FONT, head, 0, false, &w, &h);
        v->bare_heads = w > v->thumb + VIEW_GAP;
    }
    if (v->bare_heads) {
        text_size(cr, LABEL_FONT, view_head_word(), 0, false, &w, &h);
        v->label_w = fmax(v->label_w, w);
    }
    double y = MARGIN;
    const double grid_w = (double)v->cols * (v->thumb + VIEW_GAP);
    const double text_w = fmax(grid_w, VIEW_TEXT_W);
    if (pg->heading != NULL) {
        text_size(cr, HEADING_FONT, pg->heading, text_w, false, &w, &h);
        y += h + PAD;
    }
    text_size(cr, LABEL_FONT, view_title(), text_w, true, &w, &h);
    y += h + 2 * PAD;
    text_size(cr, LABEL_FONT, "head 0", 0, false, &w, &h);
    v->header_h = h;
    v->grid_x = MARGIN + v->label_w + PAD;
    v->grid_y = y + h + PAD;
    const color_range sc = view_scale(v);
    text_size(cr, LABEL_FONT, _("masked\n(weight 0)"), 0, false, &w, &h);
    pg->width = fmax(v->grid_x + grid_w + GAP +
                         fmax(ticks_width(cr, &sc), BAR_WIDTH + 6 + w),
                     MARGIN + text_w) +
                MARGIN;
    pg->height = fmax(v->grid_y + (double)v->rows * (v->thumb + VIEW_GAP),
                      v->grid_y + VIEW_BAR_H + 2 * GAP + BAR_WIDTH) +
                 MARGIN;
}

/* One head's weights (T, S) as an image, each weight a k x k square
 * (k pixels: an SVG viewer may smooth the image, which then blurs only
 * the squares' edges): the map's colour of each weight, grey where
 * masked. NULL when cairo fails. */
static cairo_surface_t *view_image(const struct model_view *v, const table *t,
                                   const table *mask, int k)
{
    const int rows = (int)t->values.rows, cols = (int)t->values.cols;
    cairo_surface_t *img =
        cairo_image_surface_create(CAIRO_FORMAT_RGB24, cols * k, rows * k);
    if (cairo_surface_status(img) != CAIRO_STATUS_SUCCESS) {
        cairo_surface_destroy(img);
        return NULL;
    }
    const panel p = {.t = t, .mask = mask};
    cairo_surface_flush(img);
    unsigned char *data = cairo_image_surface_get_data(img);
    const size_t stride = (size_t)cairo_image_surface_get_stride(img);
    for (int r = 0; r < rows; r++)
        for (int c = 0; c < cols; c++) {
            const double x = t->values.v[(size_t)r * (size_t)cols + (size_t)c];
            rgb c8 = {MASKED_GREY, MASKED_GREY, MASKED_GREY};
            if (!cell_masked(&p, (size_t)r, (size_t)c))
                c8 = colormap_color(&v->map, fmin(1.0, fmax(0.0, x)));
            const uint32_t px =
                (uint32_t)c8.r << 16 | (uint32_t)c8.g << 8 | c8.b;
            for (int dy = 0; dy < k; dy++)
                for (int dx = 0; dx < k; dx++)
                    memcpy(data + (size_t)(r * k + dy) * stride +
                               4 * (size_t)(c * k + dx),
                           &px, 4);
        }
    cairo_surface_mark_dirty(img);
    return img;
}

/* Draws the laid-out view from (0, 0) in points. */
static void draw_view(cairo_t *cr, const figure *pg)
{
    const struct model_view *v = pg->view;
    const double grid_w = (double)v->cols * (v->thumb + VIEW_GAP);
    const double text_w = fmax(grid_w, VIEW_TEXT_W);
    double y = MARGIN, w, h;
    cairo_set_source_rgb(cr, 0, 0, 0);
    if (pg->heading != NULL) {
        draw_text(cr, HEADING_FONT, pg->heading, text_w, MARGIN, y, 0, 0, 0);
        text_size(cr, HEADING_FONT, pg->heading, text_w, false, &w, &h);
        y += h + PAD;
    }
    PangoLayout *layout =
        text_layout(cr, LABEL_FONT, view_title(), text_w, true);
    svg_texts *log = cairo_get_user_data(cr, &svg_texts_key);
    cairo_save(cr);
    cairo_translate(cr, MARGIN, y);
    cairo_move_to(cr, 0, 0);
    if (log != NULL)
        log_layout(cr, log, layout, font_families(), LABEL_SIZE, false, 0);
    else
        pango_cairo_show_layout(cr, layout);
    cairo_restore(cr);
    g_object_unref(layout);
    if (v->bare_heads)
        draw_text(cr, LABEL_FONT, view_head_word(), 0, v->grid_x - PAD,
                  v->grid_y - PAD, 1.0, 1.0, 0);
    for (size_t c = 0; c < v->cols; c++) {
        char head[32];
        if (v->bare_heads)
            snprintf(head, sizeof head, "%d", v->heads[c]);
        else
            snprintf(head, sizeof head, _("head %d"), v->heads[c]);
        draw_text(cr, LABEL_FONT, head, v->thumb + VIEW_GAP,
                  v->grid_x + (double)c * (v->thumb + VIEW_GAP) + v->thumb / 2,
                  v->grid_y - PAD, 0.5, 1.0, 0);
    }
    for (size_t r = 0; r < v->rows; r++) {
        const double ty = v->grid_y + (double)r * (v->thumb + VIEW_GAP);
        cairo_set_source_rgb(cr, 0, 0, 0);
        draw_text(cr, LABEL_FONT, v->places[r], 0, v->grid_x - PAD,
                  ty + v->thumb / 2, 1.0, 0.5, 0);
        for (size_t c = 0; c < v->cols; c++) {
            const table *t = v->cells[r * v->cols + c];
            if (t == NULL)
                continue;
            const double tx = v->grid_x + (double)c * (v->thumb + VIEW_GAP);
            // about two pixels a point, 512 at most a side
            const size_t longest = t->values.rows > t->values.cols
                                       ? t->values.rows
                                       : t->values.cols;
            const int k =
                (int)fmax(1.0, fmin(ceil(2 * v->thumb / (double)longest),
                                    floor(512.0 / (double)longest)));
            cairo_surface_t *img =
                view_image(v, t, v->masks[r * v->cols + c], k);
            if (img != NULL) {
                cairo_save(cr);
                cairo_translate(cr, tx, ty);
                cairo_scale(cr, v->thumb / (double)(t->values.cols * (size_t)k),
                            v->thumb / (double)(t->values.rows * (size_t)k));
                cairo_set_source_surface(cr, img, 0, 0);
                cairo_pattern_set_filter(cairo_get_source(cr),
                                         CAIRO_FILTER_NEAREST);
                cairo_paint(cr);
                cairo_restore(cr);
                cairo_surface_destroy(img);
            }
            cairo_set_source_rgb(cr, 0.5, 0.5, 0.5);
            cairo_set_line_width(cr, 0.5);
            cairo_rectangle(cr, tx, ty, v->thumb, v->thumb);
            cairo_stroke(cr);
        }
    }
    // the one colour bar, its caption, and the masked cells' legend
    const color_range sc = view_scale(v);
    const double bx = v->grid_x + grid_w + GAP;
    draw_bar(cr, &sc, bx, v->grid_y, VIEW_BAR_H);
    draw_text(cr, LABEL_FONT, _("attention weight"), VIEW_BAR_H, bx - 6,
              v->grid_y + VIEW_BAR_H / 2, 0.5, 1.0, QUARTER_TURN);
    const double ly = v->grid_y + VIEW_BAR_H + GAP;
    // plain grey, as the thumbnails' masked cells (view_image)
    cairo_set_source_rgb(cr, MASKED_GREY / 255.0, MASKED_GREY / 255.0,
                         MASKED_GREY / 255.0);
    cairo_rectangle(cr, bx, ly, BAR_WIDTH, BAR_WIDTH);
    cairo_fill(cr);
    cairo_set_source_rgb(cr, 0, 0, 0);
    cairo_rectangle(cr, bx, ly, BAR_WIDTH, BAR_WIDTH);
    cairo_stroke(cr);
    draw_text(cr, LABEL_FONT, _("masked\n(weight 0)"), 0, bx + BAR_WIDTH + 6,
              ly, 0, 0, 0);
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
    view_free(fig->view);
    free(fig->before);
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
    // every layer's heads: the model view
    if (view_make(&fig->view, tr, tables, n, &fig->style, err) != 0) {
        figure_release(fig);
        return NULL;
    }
    if (fig->view != NULL)
        return fig;
    if (collect_panels(fig, tr, tables, n, err) != 0) {
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
    if (scale_panels(fig, err) != 0) {
        figure_release(fig);
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
    double scale;
    if (fig->view != NULL) {
        view_lay_out(fig, cr);
        scale = page_scale(fig, png, width, height);
    } else {
        scale = lay_out(fig, cr, png, width, height);
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
        cairo_set_user_data(cr, &svg_texts_key, texts, NULL);
    cairo_save(cr);
    cairo_translate(cr, floor((w - fig->width * scale) / 2),
                    floor((h - fig->height * scale) / 2));
    cairo_scale(cr, scale, scale);
    if (fig->view != NULL)
        draw_view(cr, fig);
    else
        draw_page(cr, fig);
    cairo_restore(cr);
    if (texts != NULL)
        cairo_set_user_data(cr, &svg_texts_key, NULL, NULL);
}

void figure_free(figure *fig)
{
    if (fig != NULL)
        figure_release(fig);
}
