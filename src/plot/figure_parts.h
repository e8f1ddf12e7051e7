/* figure_parts.h: the parts of a --plot page (plot_figure.h), shared by
 * the files that measure, lay out and draw it. Not for use outside
 * src/plot/.
 *
 *   figure_text.c    fonts; text measured, drawn, or logged for an SVG
 *   figure_vertical.c  a Chinese caption set vertically
 *   figure_panels.c  which tables become panels; their colour scales
 *   figure_labels.c  panel titles, row and column labels
 *   figure_layout.c  where each panel and bar goes, blocks of cells
 *   figure_heat.c    a panel's heat map
 *   figure_bars.c    colour bars and the masked cells' legends
 *   figure_loss.c    a trained run's loss curve
 *   figure_scores.c  its heads' induction scores over the training
 *   figure_view.c    the model view: every layer's heads in one grid
 *   figure_maps.c    the interventions' maps: their axes and scales
 *   figure_generation.c  a generation's heads step by step
 *   figure_units.c   a table of several units: a panel and a scale each
 *   figure_marks.c   the model view's marks: head scores, shared
 *                    key/value heads
 *   plot_figure.c    the page as a whole (plot_figure.h)
 *
 * The tables are grouped by colour scale (a "section": one table name,
 * one colour bar), then by variant (a grid of heads). Sizes are in
 * points. */
#ifndef MHA_FIGURE_PARTS_H
#define MHA_FIGURE_PARTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cairo.h>

#include "base/error.h"
#include "model/trace.h"
#include "plot/plot_figure.h"
#include "plot/plot_style.h"
#include "render/colormap.h"

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
#define BAR_STRIP 24.0         /* the shortest bar of a strip of one row */
#define STRIP_CAPTION_W 120.0  /* a strip's caption wrapped to this wide */
#define STRIP_CAPTION_GAP 12.0 /* under the bar, clear of its last tick */
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
#define MASKED_GREY 219  /* 0.86 of 255: masked cells in an image */
#define TEXT_CELL_W 52.0 /* a cell that holds a text and its value */
#define TEXT_CELL_H 34.0
#define TEXT_CELLS_MAX 40     /* columns of such cells drawn that wide */
#define TEXT_CELL_MAX_W 96.0  /* wider for their longest text, up to this */
#define TEXT_MAP_MAX_W 1400.0 /* and while the map is no wider than this */

/* ---- fonts and text (figure_text.c) ----------------------------------- */

/* A font's name for pango, "FAMILIES [Bold] SIZE", held by value so
 * that fig_font(...).name lasts for the call it is passed to. */
typedef struct {
    char name[160];
} font_name;

/* The pictures' font families (translated: the face of the script
 * first), bold or not, at a size in points. */
font_name fig_font(bool bold, double points);

#define LABEL_FONT fig_font(false, LABEL_SIZE).name
#define TITLE_FONT fig_font(true, TITLE_SIZE).name
#define HEADING_FONT fig_font(true, HEADING_SIZE).name

/* Whether a label holds Chinese, Japanese or Korean characters, which are
 * never drawn sideways: a column label too wide for its cell, or a colour
 * bar's caption, goes down the page a character under another, each
 * upright. */
bool fig_upright(const char *label);

/* Whether a character (a code point) is one of those. */
bool fig_upright_char(uint32_t u);

/* The characters of an upright label that fit in MAX_LABEL, each line_h
 * tall. */
size_t fig_upright_count(const char *label, double line_h);

/* An upright label from (cx, top) down: one character a line, the last
 * one that fits a vertical ellipsis when it is cut short. */
void fig_draw_upright(cairo_t *cr, const char *label, double cx, double top,
                      double line_h);

/* The size of text in font, hinting off so that every surface measures
 * alike; wider than `width` points (when width > 0) it is wrapped (wrap)
 * or cut with an ellipsis. */
void fig_text_size(cairo_t *cr, const char *font, const char *text,
                   double width, bool wrap, double *w, double *h);

/* A caption set vertically as Chinese is (figure_vertical.c): its
 * characters upright, its Latin words turned to read downwards, in
 * columns a line wide from right to left, each at most height long.
 * Returns the number of columns, *longest the longest's length. */
size_t fig_vertical_size(cairo_t *cr, const char *text, double height,
                         double line_h, double *longest);

/* Draws it: its first column's right edge at `right`, the columns
 * top-aligned and centred together along [top, top + height]. */
void fig_draw_vertical(cairo_t *cr, const char *text, double right, double top,
                       double height, double line_h);

/* Draws text (one line, cut to width when width > 0) with its box's
 * anchor point (ax, ay in [0, 1] of its width and height) at (x, y),
 * turned by angle radians about that point; logged instead when an SVG's
 * texts are attached to cr. */
void fig_draw_text(cairo_t *cr, const char *font, const char *text,
                   double width, double x, double y, double ax, double ay,
                   double angle);

/* fig_draw_text with the text wrapped to width, each line centred. */
void fig_draw_wrapped(cairo_t *cr, const char *font, const char *text,
                      double width, double x, double y, double ax, double ay,
                      double angle);

/* Draws text in LABEL_FONT wrapped to width from its top left (x, y), or
 * logs it as fig_draw_text does. */
void fig_draw_paragraph(cairo_t *cr, const char *text, double width, double x,
                        double y);

/* Attaches an SVG's texts to cr (svg_text.h): text drawn on cr is logged
 * there instead of drawn; NULL detaches them. */
void fig_attach_texts(cairo_t *cr, svg_texts *texts);

/* ---- what goes on a page ---------------------------------------------- */

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
    /* t holds these columns of its table (figure_units.c), or NULL */
    const column_group *group;
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
    double turn_size;       /* and when they are turned (a map of the
                               interventions shrinks them to label every
                               column: size_section) */
    double box_w, box_h;    /* one panel's box: title, labels, map */
    double top, bar_h;      /* where its colour bar starts, its height */
    size_t bar_lines;       /* the lines its caption wraps to beside it */
    bool strip;             /* a map of one row (generated_p): its bar as
                               tall as the row, its caption across under
                               it (fig_strip_caption) */
    double axis_h;          /* a map's title of its columns' axis, with
                               its gap (figure_maps.c), or 0 */
    const char *measure;    /* the run's map_measure (trace.h), or NULL */
    /* its tables' columns of one unit (figure_units.c), or NULL */
    const column_group *group;
} section;

/* The columns of one unit of a table (figure_units.c): a copy of the
 * table holding those columns only. */
typedef struct {
    table t;       /* its values and cols point here */
    labels cols;   /* the columns' labels: s is names, its strings the
                      table's */
    char **names;  /* owned */
    float *values; /* rows x cols, owned */
} unit_part;

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
    double stretch_w, stretch_h; /* a size given (--plot-size): the cells
                                    widened or heightened to fill the page
                                    the panels leave blank (1: square) */
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
    const table *scores; /* its head_scores_steps (the first), or NULL */
    table *before;       /* n_before heads' weights before training: copies of
                      the trained heads' tables whose values point into
                      attn_weights_steps; owned (not their values) */
    size_t n_before;
    unit_part *parts; /* n_parts tables' columns of one unit; owned */
    size_t n_parts;
};

/* ---- the panels and their scales (figure_panels.c) -------------------- */

/* The page's panels: the tables chosen, or every head's weights (and a
 * trained run's heads before training). Groups them by scale, then by
 * variant, keeping the trace's order within. */
int fig_collect_panels(figure *pg, const trace *tr, const table *const *tables,
                       size_t n, mx_error *err);

/* Every panel's colour scale (plot_style.h). */
int fig_scale_panels(figure *pg, mx_error *err);

/* Whether cell (r, c) of a panel is masked or not finite. */
bool fig_cell_masked(const panel *p, size_t r, size_t c);

/* Where v, a value of row r, lies on the panel's scale, as a colour. */
rgb fig_scale_color(const panel *p, size_t r, double v);

/* ---- tables of several units (figure_units.c) ------------------------- */

/* The column groups of t (catalogue.h) into *groups; how many, 0 when
 * its columns hold one kind of number (or t is a gradient). */
size_t fig_unit_groups(const table *t, const column_group **groups);

/* *out: a table of t's columns of group g, owned by pg (a new entry of
 * pg->parts, which has room), or NULL when the group is token ids or t
 * has none of its columns. */
int fig_unit_part(table **out, figure *pg, const table *t,
                  const column_group *g, mx_error *err);

void fig_units_free(figure *pg);

/* What the colour bar of a section of one unit says, or NULL. */
const char *fig_unit_caption(const section *S);

/* The scale of each section of one unit: centred on 0 on a diverging map
 * for changes, else from the least value to the most on a sequential
 * map; one bar beside its panels. After fig_scale_panels. */
void fig_units_scale(figure *pg);

/* ---- labels (figure_labels.c) ----------------------------------------- */

/* A panel's title: variant, head, and with names the table's name. */
void fig_panel_title(char *out, size_t size, const panel *p, bool names);

/* What does not depend on the page's scale: label and title widths. */
void fig_measure_section(section *S, cairo_t *cr, const panel *p, bool names,
                         double line_h);

/* A panel's row labels left of its map at (mx, my) and its column labels
 * under it (map_h tall). */
void fig_draw_labels(cairo_t *cr, const figure *pg, const panel *p, double mx,
                     double my, double map_h);

/* ---- layout (figure_layout.c) ----------------------------------------- */

/* The number of blocks of k that n values make. */
size_t fig_blocks(size_t n, size_t k);

/* The output's units per point: fixed (width x height given) or what a
 * page of this size gets. */
double fig_page_scale(const figure *pg, bool png, double width, double height);

/* Measures the page's text, then lays its panels out for the output.
 * Returns the output's units per point. */
double fig_lay_out_panels(figure *pg, cairo_t *cr, bool png, double width,
                          double height);

/* ---- heat maps (figure_heat.c) ---------------------------------------- */

/* A laid-out panel: its title, heat map, labels and own colour bar. */
void fig_draw_panel(cairo_t *cr, const figure *pg, const panel *p);

/* ---- colour bars and legends (figure_bars.c) -------------------------- */

/* A bar's width with its ticks. */
double fig_ticks_width(cairo_t *cr, const color_range *sc);
/* A masked cell (or one that is not a number) of side points at (x, y):
 * neutral grey, with darker diagonal hatching when it is large enough to
 * show it; the legends' square. */
void fig_draw_masked(cairo_t *cr, double x, double y, double side);

/* The right-hand column's width for a section: its shared bar, and the
 * legend of its masked cells. */
double fig_bar_width(cairo_t *cr, const section *S);
/* The height of a strip's caption under its bar (wrapped, *w wide), or 0
 * for another section. */
double fig_strip_caption(cairo_t *cr, const section *S, double *w);

/* A colour bar of scale sc at (x, y), height tall, with its ticks. */
void fig_draw_bar(cairo_t *cr, const color_range *sc, double x, double y,
                  double height);

/* The section's shared colour bar at (x, S->top) and its caption, or
 * only the legend of its masked cells. */
void fig_draw_colour_bar(cairo_t *cr, const section *S, double x);

/* The masked legends of the header side by side from (x, y), drawn
 * (draw) or only measured; returns their width, *h their height. */
double fig_header_legends(const figure *pg, cairo_t *cr, double x, double y,
                          bool draw, double *h);

/* ---- the loss curve (figure_loss.c) ----------------------------------- */

/* Each trained variant's loss as a line over the steps, in a CHART_W x
 * CHART_H box from (x, y). */
void fig_draw_loss_chart(cairo_t *cr, const figure *pg, double x, double y);

/* The ticks of steps 0 to steps under the chart box (x0, y0, w, h), at
 * round numbers, about four. */
void fig_step_ticks(cairo_t *cr, double x0, double y0, double w, double h,
                    size_t steps);

/* ---- the heads' scores over the training (figure_scores.c) ----------- */

/* pg->scores, each head's induction score at the steps it was taken, as
 * a line over the steps in a CHART_W x CHART_H box from (x, y), beside
 * the loss curve. */
void fig_draw_scores_chart(cairo_t *cr, const figure *pg, double x, double y);

/* ---- the interventions' maps (figure_maps.c) -------------------------- */

/* The most maps a run makes. */
#define FIG_MAPS_MAX 8

/* The maps of the interventions tr made, in trace order, into out (room
 * for FIG_MAPS_MAX): those drawn rather than the model view, and when
 * the page has no model view (view false) the head scores too. */
size_t fig_maps_of_run(const table **out, const trace *tr, bool view);

/* A map's colour scale: centred on 0 for signed values, 0 to 1 for
 * shares; one bar beside the maps. After fig_scale_panels. */
void fig_maps_scale(figure *pg);

/* The room of a map's axis titles, added to the section's measures
 * (after fig_measure_section). */
void fig_maps_measure(section *S, double line_h);

/* The caption of a map's colour bar, or NULL for another table. */
const char *fig_map_caption(const section *S);

/* The lines (sideways) or columns (Chinese, upright) the caption of a
 * map's colour bar takes beside a bar height tall; 1 for another table. */
size_t fig_map_caption_lines(cairo_t *cr, const section *S, double height,
                             double line_h);

/* A map panel's axis titles around its map (mx, my, map_w x map_h);
 * nothing for another table. */
void fig_draw_map_axes(cairo_t *cr, const figure *pg, const panel *p, double mx,
                       double my, double map_w, double map_h);

/* ---- a generation's page (figure_generation.c) ------------------------ */

/* The tables of a generation's picture, in trace order: every head's
 * attn_weights_generated, then generated_p; *out (owned by the caller)
 * NULL and *n 0 when the run made none. */
int fig_generation_of_run(const table ***out, size_t *n, const trace *tr,
                          mx_error *err);

/* ---- the model view's marks (figure_marks.c) -------------------------- */

/* What the model view marks on its heads: each head's scores
 * (head_scores, --head-scores), the heads that share a key/value head
 * (kv_heads, when some do), and the heads switched off (--ablate); NULL
 * or none when the run has none. */
typedef struct {
    const table *scores; /* (L·H) x 3, rows "h.L.H" */
    const table *kv;     /* H x 1: the key/value head of each query head */
    colormap map;        /* the scores' colours, 0 to 1 */
    const head_ref *off; /* n_off heads switched off (the style's) */
    size_t n_off;
    hook_action off_mode; /* how: their z set to 0, or to its mean */
} view_marks;

void fig_marks_find(view_marks *m, const trace *tr, const plot_style *style);

/* Whether the head whose weights t are was switched off (--ablate). */
bool fig_marks_is_off(const view_marks *m, const table *t);

/* The mark of a head switched off over its thumbnail (x, y, thumb
 * square): dimmed as the page dims it, and a dashed frame. */
void fig_marks_draw_off(cairo_t *cr, double x, double y, double thumb);

/* The height of the scores' strip under each thumbnail, and of the
 * brackets over the columns' headings (0 when there are none). */
double fig_marks_strip_h(const view_marks *m);
double fig_marks_groups_h(const view_marks *m, double line_h);

/* The scores of head `head` of the layer at place, under its thumbnail
 * (x, y the thumbnail's bottom left, thumb its side). */
void fig_marks_draw_scores(cairo_t *cr, const view_marks *m, const char *place,
                           int head, double x, double y, double thumb);

/* The brackets of the heads that share a key/value head over the
 * columns (heads[c] at x + c * pitch, thumb wide), their ends down to y. */
void fig_marks_draw_groups(cairo_t *cr, const view_marks *m, const int *heads,
                           size_t cols, double x, double y, double pitch,
                           double thumb);

/* The legends of the marks: their size, and drawn from (x, y). */
void fig_marks_legend_size(cairo_t *cr, const view_marks *m, double *w,
                           double *h);
void fig_marks_draw_legend(cairo_t *cr, const view_marks *m, double x,
                           double y);

/* ---- the model view (figure_view.c) ----------------------------------- */

/* The model view of the chosen tables (every table of tr when tables is
 * NULL), or *out NULL when the picture is not one. */
int fig_view_make(struct model_view **out, const trace *tr,
                  const table *const *tables, size_t n, const plot_style *style,
                  mx_error *err);
void fig_view_free(struct model_view *v);

/* Lays the view out; sets the page's size in points. */
void fig_view_lay_out(figure *pg, cairo_t *cr);

/* Draws the laid-out view from (0, 0) in points. */
void fig_draw_view(cairo_t *cr, const figure *pg);

#endif
