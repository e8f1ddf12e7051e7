/* plot.c: --plot FILE with cairo (PNG, SVG and PDF from one drawing) and
 * pango (token labels in any script, with the system's font fallback).
 *
 *   [fused] head 0          [fused] head 1         colour bar
 *   Q:O     ■ □ □ □ □       Q:O     ■ □ □ □ □       1.0 ┃
 *   Q:gato  ■ ■ □ □ □       ...                         ┃
 *           K:O K:gato ...                          0.0 ┃
 *
 * A page is drawn twice: into a cairo recording surface, which measures
 * it, then onto a PNG, SVG or PDF surface of that size. Every file goes to a temporary name beside its final one and is
 * renamed only when all of them are complete.
 */
#include "plot.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cairo-pdf.h>
#include <cairo-svg.h>
#include <cairo.h>
#include <fontconfig/fontconfig.h>
#include <pango/pangocairo.h>

#include "cleanup.h"
#include "heat.h"
#include "i18n.h"
#include "render.h"

/* Sizes in points (1/72 inch); a PNG has PNG_SCALE pixels per point. */
#define PNG_SCALE 2.0
#define MARGIN 24.0
#define GAP 28.0        /* between panels */
#define PAD 6.0         /* between a heat map and its labels */
#define HEAT_SIDE 300.0 /* a heat map's longer side, before limits */
#define MAX_CELL 56.0
#define MIN_CELL 3.0
#define ANNOTATE_FROM 26.0 /* cells this wide hold their value */
#define BAR_WIDTH 16.0
#define BAR_HEIGHT 220.0
#define LABEL_FONT "Sans 10"
#define TITLE_FONT "Sans Bold 11"
#define HEADING_FONT "Sans Bold 13"
#define QUARTER_TURN (-1.57079632679489661923) /* text reading upwards */

enum plot_format { PLOT_PNG, PLOT_SVG, PLOT_PDF };

typedef struct {
    char *final_path;
    char *temp_path;
    FILE *out;
    int write_errno; /* errno of the first failed write, or 0 */
} plot_output;

struct plot_file {
    enum plot_format format;
    size_t pages, drawn;
    plot_output *outputs; /* one, or one per page for PNG and SVG */
    size_t n_outputs;
    cairo_surface_t *pdf; /* the PDF surface, across pages */
    cleanup_hook hook;    /* remove_temps, while the files are open */
};

/* ---- files ------------------------------------------------------------ */

static int format_of(enum plot_format *f, const char *path, mx_error *err)
{
    const char *dot = strrchr(path, '.');
    const char *slash = strrchr(path, '/');
    if (dot != NULL && (slash == NULL || dot > slash)) {
        if (strcmp(dot, ".png") == 0 || strcmp(dot, ".PNG") == 0) {
            *f = PLOT_PNG;
            return 0;
        }
        if (strcmp(dot, ".svg") == 0 || strcmp(dot, ".SVG") == 0) {
            *f = PLOT_SVG;
            return 0;
        }
        if (strcmp(dot, ".pdf") == 0 || strcmp(dot, ".PDF") == 0) {
            *f = PLOT_PDF;
            return 0;
        }
    }
    return err_usage(err, _("--plot: '%s' does not end in .png, .svg or .pdf"),
                     path);
}

/* path, or with several pages "<stem>.sentence<i><ext>". */
static char *page_path(const char *path, size_t pages, size_t i)
{
    size_t len = strlen(path) + 48;
    char *s = malloc(len);
    if (s == NULL)
        return NULL;
    if (pages <= 1) {
        snprintf(s, len, "%s", path);
        return s;
    }
    const char *dot = strrchr(path, '.');
    snprintf(s, len, "%.*s.sentence%zu%s", (int)(dot - path), path, i, dot);
    return s;
}

/* Opens dir/.name.XXXXXX beside final. */
static int output_open(plot_output *o, const char *final, mx_error *err)
{
    o->final_path = strdup(final);
    const char *slash = strrchr(final, '/');
    size_t dir_len = slash != NULL ? (size_t)(slash - final) + 1 : 0;
    size_t len = strlen(final) + 16;
    o->temp_path = malloc(len);
    if (o->final_path == NULL || o->temp_path == NULL)
        return err_nomem(err, _("a path"));
    snprintf(o->temp_path, len, "%.*s.%s.XXXXXX", (int)dir_len, final,
             final + dir_len);
    int fd = mkstemp(o->temp_path);
    if (fd < 0) {
        int e = errno;
        free(o->temp_path);
        o->temp_path = NULL;
        return err_write(err, final, e);
    }
    /* mkstemp makes files private; give them the usual permissions */
    mode_t mask = umask(0);
    umask(mask);
    fchmod(fd, 0666 & ~mask);
    o->out = fdopen(fd, "wb");
    if (o->out == NULL) {
        int e = errno;
        close(fd);
        return err_write(err, final, e);
    }
    return 0;
}

/* A signal's clean-up: the temporary files (async-signal-safe). */
static void remove_temps(const void *ctx)
{
    const plot_file *pf = ctx;
    for (size_t i = 0; i < pf->n_outputs; i++)
        if (pf->outputs[i].temp_path != NULL)
            unlink(pf->outputs[i].temp_path);
}

static void outputs_remove(plot_file *pf)
{
    sigset_t old;
    cleanup_block(&old);
    cleanup_pop(&pf->hook);
    cleanup_unblock(&old);
    for (size_t i = 0; i < pf->n_outputs; i++) {
        plot_output *o = &pf->outputs[i];
        if (o->out != NULL)
            fclose(o->out);
        if (o->temp_path != NULL)
            unlink(o->temp_path);
        free(o->temp_path);
        free(o->final_path);
    }
    free(pf->outputs);
    pf->outputs = NULL;
    pf->n_outputs = 0;
}

/* cairo's write callback: to the FILE of a plot_output. */
static cairo_status_t write_to(void *closure, const unsigned char *data,
                               unsigned int length)
{
    plot_output *o = closure;
    if (fwrite(data, 1, length, o->out) != length) {
        if (o->write_errno == 0)
            o->write_errno = errno ? errno : EIO;
        return CAIRO_STATUS_WRITE_ERROR;
    }
    return CAIRO_STATUS_SUCCESS;
}

/* The PDF's creation date: SOURCE_DATE_EPOCH when set, else the epoch,
 * so that the same command writes the same bytes. */
static void pdf_fixed_metadata(cairo_surface_t *pdf)
{
    const char *sde = getenv("SOURCE_DATE_EPOCH");
    time_t when = 0;
    if (sde != NULL) {
        char *end = NULL;
        long long v = strtoll(sde, &end, 10);
        if (end != sde && *end == '\0' && v >= 0)
            when = (time_t)v;
    }
    struct tm tm;
    char date[32];
    gmtime_r(&when, &tm);
    strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", &tm);
    cairo_pdf_surface_set_metadata(pdf, CAIRO_PDF_METADATA_CREATE_DATE, date);
    cairo_pdf_surface_set_metadata(pdf, CAIRO_PDF_METADATA_CREATOR,
                                   "mha-explain " MHA_VERSION);
}

bool plot_available(void)
{
    return true;
}

plot_file *plot_open(const char *path, size_t pages, mx_error *err)
{
    enum plot_format format = PLOT_PNG;
    if (format_of(&format, path, err) != 0)
        return NULL;
    plot_file *pf = calloc(1, sizeof *pf);
    if (pf == NULL) {
        err_nomem(err, _("the picture"));
        return NULL;
    }
    pf->format = format;
    pf->pages = pages > 0 ? pages : 1;
    size_t n = format == PLOT_PDF ? 1 : pf->pages;
    pf->outputs = calloc(n, sizeof *pf->outputs);
    if (pf->outputs == NULL) {
        free(pf);
        err_nomem(err, _("the picture"));
        return NULL;
    }
    cleanup_push(&pf->hook, remove_temps, pf);
    for (size_t i = 0; i < n; i++) {
        char *final = page_path(path, format == PLOT_PDF ? 1 : pf->pages, i);
        sigset_t old;
        cleanup_block(&old);
        pf->n_outputs = i + 1;
        int rc = final == NULL ? err_nomem(err, _("a path"))
                               : output_open(&pf->outputs[i], final, err);
        cleanup_unblock(&old);
        free(final);
        if (rc != 0) {
            plot_discard(pf);
            return NULL;
        }
    }
    if (format == PLOT_PDF) {
        /* every page sets its own size before it is drawn */
        pf->pdf = cairo_pdf_surface_create_for_stream(write_to, &pf->outputs[0],
                                                      1, 1);
        pdf_fixed_metadata(pf->pdf);
    }
    return pf;
}

/* ---- measuring and drawing text -------------------------------------- */

/* A layout of text in font, hinting off so that every surface measures
 * alike. The caller unrefs it. */
static PangoLayout *text_layout(cairo_t *cr, const char *font, const char *text)
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
    return layout;
}

static void text_size(cairo_t *cr, const char *font, const char *text,
                      double *w, double *h)
{
    PangoLayout *layout = text_layout(cr, font, text);
    int pw, ph;
    pango_layout_get_size(layout, &pw, &ph);
    *w = (double)pw / PANGO_SCALE;
    *h = (double)ph / PANGO_SCALE;
    g_object_unref(layout);
}

/* Draws text with its box's anchor point (ax, ay in [0, 1] of its width
 * and height) at (x, y), turned by angle radians about that point. */
static void draw_text(cairo_t *cr, const char *font, const char *text, double x,
                      double y, double ax, double ay, double angle)
{
    PangoLayout *layout = text_layout(cr, font, text);
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

/* ---- the figure ------------------------------------------------------- */

typedef struct {
    const table *weights; /* attn_weights of one head */
    const table *scores;  /* its attn_scores (masked where -inf), or NULL */
} panel;

/* Sizes shared by every panel of a page. */
typedef struct {
    size_t rows, cols; /* queries, keys */
    double cell;
    double row_label_w; /* widest query label */
    double col_label_h; /* room under the map for key labels */
    bool rotate_cols;   /* key labels upright when they do not fit */
    size_t label_every; /* label every k-th token when cells are tiny */
    double title_h;
    double w, h; /* one panel */
} panel_layout;

/* The attention-weight tables of every variant's heads, in trace order. */
static panel *collect_panels(const trace *tr, size_t *n)
{
    panel *p = calloc(trace_count(tr) + 1, sizeof *p);
    *n = 0;
    if (p == NULL)
        return NULL;
    for (size_t i = 0; i < trace_count(tr); i++) {
        const table *t = trace_at(tr, i);
        if (t->head == NO_HEAD || strcmp(t->name, "attn_weights") != 0)
            continue;
        p[*n].weights = t;
        p[*n].scores = trace_find(tr, t->variant, t->head, "attn_scores");
        (*n)++;
    }
    return p;
}

static void layout_panels(panel_layout *L, cairo_t *cr, const panel *p,
                          size_t n)
{
    memset(L, 0, sizeof *L);
    for (size_t i = 0; i < n; i++) {
        const table *t = p[i].weights;
        if (t->values.rows > L->rows)
            L->rows = t->values.rows;
        if (t->values.cols > L->cols)
            L->cols = t->values.cols;
    }
    size_t longest = L->rows > L->cols ? L->rows : L->cols;
    L->cell = floor(HEAT_SIDE / (double)(longest > 0 ? longest : 1));
    L->cell = L->cell > MAX_CELL   ? MAX_CELL
              : L->cell < MIN_CELL ? MIN_CELL
                                   : L->cell;
    double line_h, unused;
    text_size(cr, LABEL_FONT, "Ag", &unused, &line_h);
    L->label_every = (size_t)ceil(line_h / L->cell);
    if (L->label_every < 1)
        L->label_every = 1;
    double col_w = 0.0;
    for (size_t i = 0; i < n; i++) {
        const labels *r = p[i].weights->rows, *c = p[i].weights->cols;
        for (size_t k = 0; k < r->n; k++) {
            double w, h;
            text_size(cr, LABEL_FONT, r->s[k], &w, &h);
            L->row_label_w = w > L->row_label_w ? w : L->row_label_w;
        }
        for (size_t k = 0; k < c->n; k++) {
            double w, h;
            text_size(cr, LABEL_FONT, c->s[k], &w, &h);
            col_w = w > col_w ? w : col_w;
        }
    }
    L->rotate_cols = col_w > L->cell - 2.0;
    L->col_label_h = L->rotate_cols ? col_w : line_h;
    text_size(cr, TITLE_FONT, "Ag", &unused, &L->title_h);
    L->w = L->row_label_w + PAD + (double)L->cols * L->cell;
    L->h = L->title_h + PAD + (double)L->rows * L->cell + PAD + L->col_label_h;
}

/* A masked cell: neutral grey with darker diagonal hatching. */
static void draw_masked(cairo_t *cr, double x, double y, double side)
{
    cairo_save(cr);
    cairo_rectangle(cr, x, y, side, side);
    cairo_clip(cr);
    cairo_set_source_rgb(cr, 0.86, 0.86, 0.86);
    cairo_paint(cr);
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

static bool is_masked(const panel *p, size_t r, size_t c)
{
    if (p->scores == NULL || r >= p->scores->values.rows ||
        c >= p->scores->values.cols)
        return false;
    float s = p->scores->values.v[r * p->scores->values.cols + c];
    return isinf(s) && s < 0;
}

static void draw_panel(cairo_t *cr, const panel *p, const panel_layout *L,
                       double x0, double y0)
{
    const table *t = p->weights;
    char title[128];
    snprintf(title, sizeof title, _("[%s] head %d"), t->variant, t->head);
    cairo_set_source_rgb(cr, 0, 0, 0);
    draw_text(cr, TITLE_FONT, title, x0 + L->row_label_w + PAD, y0, 0, 0, 0);

    double mx = x0 + L->row_label_w + PAD;
    double my = y0 + L->title_h + PAD;
    double cell = L->cell;
    bool annotate = cell >= ANNOTATE_FROM;
    char annot_font[32];
    snprintf(annot_font, sizeof annot_font, "Sans %.1f", cell * 0.24);
    for (size_t r = 0; r < t->values.rows; r++) {
        for (size_t c = 0; c < t->values.cols; c++) {
            double x = mx + (double)c * cell, y = my + (double)r * cell;
            if (is_masked(p, r, c)) {
                draw_masked(cr, x, y, cell);
                continue;
            }
            float v = t->values.v[r * t->values.cols + c];
            rgb c8 = heat_color((double)v);
            double col[3] = {c8.r / 255.0, c8.g / 255.0, c8.b / 255.0};
            cairo_set_source_rgb(cr, col[0], col[1], col[2]);
            cairo_rectangle(cr, x, y, cell, cell);
            cairo_fill(cr);
            if (!annotate)
                continue;
            /* dark text on light cells, light on dark, as seaborn does */
            double lum = 0.2126 * col[0] + 0.7152 * col[1] + 0.0722 * col[2];
            double ink = lum > 0.408 ? 0.0 : 1.0;
            char value[32];
            snprintf(value, sizeof value, "%.2f", (double)v);
            cairo_set_source_rgb(cr, ink, ink, ink);
            draw_text(cr, annot_font, value, x + cell / 2, y + cell / 2, 0.5,
                      0.5, 0);
        }
    }
    cairo_set_source_rgb(cr, 0, 0, 0);
    for (size_t r = 0; r < t->rows->n; r += L->label_every)
        draw_text(cr, LABEL_FONT, t->rows->s[r], mx - PAD,
                  my + ((double)r + 0.5) * cell, 1.0, 0.5, 0);
    double under = my + (double)t->values.rows * cell + PAD;
    for (size_t c = 0; c < t->cols->n; c += L->label_every) {
        double cx = mx + ((double)c + 0.5) * cell;
        if (L->rotate_cols) /* reading upwards, ending under the column */
            draw_text(cr, LABEL_FONT, t->cols->s[c], cx, under, 1.0, 0.5,
                      QUARTER_TURN);
        else
            draw_text(cr, LABEL_FONT, t->cols->s[c], cx, under, 0.5, 0, 0);
    }
}

/* The colour bar with its scale, and the legend of masked cells. Returns
 * the width used. */
static double draw_colour_bar(cairo_t *cr, double x, double y, bool masked)
{
    const int steps = 256;
    for (int i = 0; i < steps; i++) {
        rgb c8 = heat_color((double)i / (steps - 1));
        cairo_set_source_rgb(cr, c8.r / 255.0, c8.g / 255.0, c8.b / 255.0);
        double y1 = y + BAR_HEIGHT * (1.0 - (double)(i + 1) / steps);
        cairo_rectangle(cr, x, y1, BAR_WIDTH, BAR_HEIGHT / steps + 0.5);
        cairo_fill(cr);
    }
    cairo_set_source_rgb(cr, 0, 0, 0);
    cairo_set_line_width(cr, 0.75);
    cairo_rectangle(cr, x, y, BAR_WIDTH, BAR_HEIGHT);
    cairo_stroke(cr);
    double widest = 0;
    for (int k = 0; k <= 4; k++) {
        double v = k / 4.0, ty = y + BAR_HEIGHT * (1.0 - v);
        char tick[16];
        snprintf(tick, sizeof tick, "%.2f", v);
        cairo_move_to(cr, x + BAR_WIDTH, ty);
        cairo_line_to(cr, x + BAR_WIDTH + 4, ty);
        cairo_stroke(cr);
        draw_text(cr, LABEL_FONT, tick, x + BAR_WIDTH + 6, ty, 0, 0.5, 0);
        double w, h;
        text_size(cr, LABEL_FONT, tick, &w, &h);
        widest = w > widest ? w : widest;
    }
    draw_text(cr, LABEL_FONT, _("attention weight"), x - 6, y + BAR_HEIGHT / 2,
              0.5, 1.0, QUARTER_TURN);
    double used = BAR_WIDTH + 6 + widest;
    if (masked) {
        double ly = y + BAR_HEIGHT + 20;
        draw_masked(cr, x, ly, BAR_WIDTH);
        cairo_set_source_rgb(cr, 0, 0, 0);
        cairo_rectangle(cr, x, ly, BAR_WIDTH, BAR_WIDTH);
        cairo_stroke(cr);
        /* TRANSLATORS: the legend of masked cells in --plot, on two lines */
        const char *text = _("masked\n(weight 0)");
        draw_text(cr, LABEL_FONT, text, x + BAR_WIDTH + 6, ly, 0, 0, 0);
        double w, h;
        text_size(cr, LABEL_FONT, text, &w, &h);
        used = BAR_WIDTH + 6 + w > used ? BAR_WIDTH + 6 + w : used;
    }
    return used;
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

/* Draws the page into cr, from (0, 0); sets its size. */
static void draw_page(cairo_t *cr, const panel *p, size_t n,
                      const char *heading, double *width, double *height)
{
    panel_layout L;
    layout_panels(&L, cr, p, n);
    double y = MARGIN, right = 0;
    cairo_set_source_rgb(cr, 0, 0, 0);
    if (heading != NULL) {
        double w, h;
        text_size(cr, HEADING_FONT, heading, &w, &h);
        draw_text(cr, HEADING_FONT, heading, MARGIN, y, 0, 0, 0);
        y += h + PAD;
        right = MARGIN + w;
    }
    bool any_masked = false;
    double top = y;
    for (size_t i = 0; i < n;) {
        size_t heads = 1; /* the run of panels of this variant */
        while (i + heads < n && strcmp(p[i + heads].weights->variant,
                                       p[i].weights->variant) == 0)
            heads++;
        size_t gr, gc;
        grid_shape(heads, &gr, &gc);
        for (size_t k = 0; k < heads; k++) {
            double px = MARGIN + (double)(k % gc) * (L.w + GAP);
            double py = y + (double)(k / gc) * (L.h + GAP);
            draw_panel(cr, &p[i + k], &L, px, py);
            for (size_t r = 0; r < L.rows && !any_masked; r++)
                for (size_t c = 0; c < L.cols && !any_masked; c++)
                    any_masked = is_masked(&p[i + k], r, c);
        }
        double w = MARGIN + (double)gc * L.w + (double)(gc - 1) * GAP;
        right = w > right ? w : right;
        y += (double)gr * (L.h + GAP);
        i += heads;
    }
    double bar_x = right + GAP + 20;
    double used = draw_colour_bar(cr, bar_x, top + L.title_h + PAD, any_masked);
    double bottom = top + L.title_h + PAD + BAR_HEIGHT + (any_masked ? 60 : 0);
    *width = ceil(bar_x + used + MARGIN);
    *height = ceil((y - GAP + MARGIN) > bottom + MARGIN ? y - GAP + MARGIN
                                                        : bottom + MARGIN);
}

/* ---- pages ------------------------------------------------------------ */

static int surface_failed(cairo_surface_t *s, const plot_output *o,
                          mx_error *err)
{
    cairo_status_t st = cairo_surface_status(s);
    if (st == CAIRO_STATUS_SUCCESS)
        return 0;
    if (st == CAIRO_STATUS_WRITE_ERROR)
        return err_write(err, o->final_path,
                         o->write_errno ? o->write_errno : EIO);
    return err_set(err, EXIT_OUTPUT_ERROR, _("cannot draw %s: %s"),
                   o->final_path, cairo_status_to_string(st));
}

/* Draws the page onto target, white behind, at scale units per point. */
static void draw_on(cairo_surface_t *target, const panel *p, size_t n,
                    const char *heading, double scale)
{
    cairo_t *cr = cairo_create(target);
    cairo_scale(cr, scale, scale);
    cairo_set_source_rgb(cr, 1, 1, 1);
    cairo_paint(cr);
    double w, h;
    draw_page(cr, p, n, heading, &w, &h);
    cairo_destroy(cr);
}

int plot_page(plot_file *pf, const trace *tr, const char *heading,
              mx_error *err)
{
    if (pf->drawn >= pf->pages)
        return err_set(err, EXIT_BAD_INPUT,
                       _("--plot: more sentences than "
                         "expected"));
    size_t n = 0;
    panel *p = collect_panels(tr, &n);
    if (p == NULL)
        return err_nomem(err, _("the picture"));
    if (n == 0) {
        free(p);
        return err_usage(err, _("--plot: this run has no attention weights to "
                                "draw"));
    }
    /* a first drawing, into nothing, measures the page */
    cairo_surface_t *rec =
        cairo_recording_surface_create(CAIRO_CONTENT_COLOR_ALPHA, NULL);
    cairo_t *cr = cairo_create(rec);
    double w = 0, h = 0;
    draw_page(cr, p, n, heading, &w, &h);
    cairo_destroy(cr);
    cairo_surface_destroy(rec);

    plot_output *o = &pf->outputs[pf->format == PLOT_PDF ? 0 : pf->drawn];
    cairo_surface_t *s = NULL;
    int rc = 0;
    switch (pf->format) {
    case PLOT_PNG:
        s = cairo_image_surface_create(CAIRO_FORMAT_RGB24, (int)(w * PNG_SCALE),
                                       (int)(h * PNG_SCALE));
        draw_on(s, p, n, heading, PNG_SCALE);
        cairo_surface_flush(s);
        if (cairo_surface_status(s) == CAIRO_STATUS_SUCCESS &&
            cairo_surface_write_to_png_stream(s, write_to, o) !=
                CAIRO_STATUS_SUCCESS)
            rc = err_write(err, o->final_path,
                           o->write_errno ? o->write_errno : EIO);
        break;
    case PLOT_SVG:
        s = cairo_svg_surface_create_for_stream(write_to, o, w, h);
        cairo_svg_surface_set_document_unit(s, CAIRO_SVG_UNIT_PT);
        draw_on(s, p, n, heading, 1.0);
        cairo_surface_finish(s);
        break;
    case PLOT_PDF:
        cairo_pdf_surface_set_size(pf->pdf, w, h);
        draw_on(pf->pdf, p, n, heading, 1.0);
        cairo_surface_show_page(pf->pdf);
        break;
    }
    if (rc == 0 && s != NULL)
        rc = surface_failed(s, o, err);
    if (rc == 0 && pf->format == PLOT_PDF)
        rc = surface_failed(pf->pdf, o, err);
    if (s != NULL)
        cairo_surface_destroy(s);
    free(p);
    pf->drawn++;
    return rc;
}

/* Gives back pango's font map, which it keeps for the whole process.
 * (fontconfig's and cairo's caches cannot be released safely while
 * pango's font-loading thread may still hold them; see
 * tests/valgrind.supp and tests/lsan.supp.) */
static void release_fonts(void)
{
    pango_cairo_font_map_set_default(NULL);
}

int plot_close(plot_file *pf, mx_error *err)
{
    int rc = 0;
    if (pf->pdf != NULL) {
        cairo_surface_finish(pf->pdf);
        rc = surface_failed(pf->pdf, &pf->outputs[0], err);
        cairo_surface_destroy(pf->pdf);
        pf->pdf = NULL;
    }
    for (size_t i = 0; i < pf->n_outputs && rc == 0; i++) {
        plot_output *o = &pf->outputs[i];
        FILE *f = o->out;
        o->out = NULL;
        if (fclose(f) != 0)
            rc = err_write(err, o->final_path, errno);
    }
    sigset_t old;
    cleanup_block(&old);
    for (size_t i = 0; i < pf->n_outputs && rc == 0; i++) {
        plot_output *o = &pf->outputs[i];
        if (rename(o->temp_path, o->final_path) != 0)
            rc = err_write(err, o->final_path, errno);
        else {
            free(o->temp_path);
            o->temp_path = NULL;
        }
    }
    cleanup_unblock(&old);
    if (rc != 0) {
        /* files already renamed stay removed with the rest */
        for (size_t i = 0; i < pf->n_outputs; i++)
            if (pf->outputs[i].temp_path == NULL)
                unlink(pf->outputs[i].final_path);
    }
    outputs_remove(pf);
    free(pf);
    release_fonts();
    return rc;
}

void plot_discard(plot_file *pf)
{
    if (pf == NULL)
        return;
    if (pf->pdf != NULL) {
        cairo_surface_finish(pf->pdf);
        cairo_surface_destroy(pf->pdf);
    }
    outputs_remove(pf);
    free(pf);
    release_fonts();
}
