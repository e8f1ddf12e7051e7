/* figure_view.c: the model view of --plot (figure_parts.h). */
#include "plot/figure_parts.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/i18n.h"

/* A run with several layers (a checkpoint's, --model, or a stack of
 * blocks, --layers N) whose picture is every head's attention weights
 * gets BertViz's model view: a grid of thumbnails, a row per layer (or
 * module) in trace order, a column per head, every weight on one scale
 * from 0 to 1, masked cells grey, weights that are not a number (a
 * checkpoint's NaN) grey and hatched, as a heat map's. */
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
    double text_w;            /* the title's width: the page's, margins off */
    double grid_x, grid_y;    /* the grid's top left */
    bool bare_heads;  /* "head 12" is wider than a thumbnail: the columns
                        say "12", the row labels' column "head" */
    view_marks marks; /* head scores, shared key/value heads
                           (figure_marks.c) */
    double row_pitch; /* from a row's top to the next's */
    double legend_y;  /* the marks' legends, under the masked legend */
    bool masked;      /* some weight is masked (a causal model's): the
                         masked legend; BERT's, none masked, has none */
    bool nan;         /* some weight is not a number: its legend */
};

/* Whether weight i of t is not a number (NaN or infinite). */
static bool weight_nan(const table *t, size_t i)
{
    return !isfinite(t->values.v[i]);
}

/* Whether t is a head's weights of a layer of a model or a stack. */
static bool view_table(const table *t)
{
    return t->id == TABLE_ATTN_WEIGHTS && t->head != NO_HEAD &&
           t->values.rows > 0 && t->values.cols > 0;
}

void fig_view_free(struct model_view *v)
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
int fig_view_make(struct model_view **out, const trace *tr,
                  const table *const *tables, size_t n, const plot_style *style,
                  mx_error *err)
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
        fig_view_free(v);
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
        fig_view_free(v);
        return 0;
    }
    v->cells = calloc(v->rows * v->cols, sizeof *v->cells);
    v->masks = calloc(v->rows * v->cols, sizeof *v->masks);
    if (v->cells == NULL || v->masks == NULL) {
        fig_view_free(v);
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
        const panel p = {.t = t, .mask = v->masks[r * v->cols + c]};
        for (size_t k = 0; k < t->values.rows * t->values.cols; k++) {
            const bool nan = weight_nan(t, k);
            v->nan |= nan;
            v->masked |= !nan && fig_cell_masked(&p, k / t->values.cols,
                                                 k % t->values.cols);
        }
    }
    if (style->cmap == NULL || !colormap_find(&v->map, style->cmap))
        colormap_find(&v->map, PLOT_CMAP);
    fig_marks_find(&v->marks, tr, style);
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

/* The legend of the weights that are not a number. */
static const char *view_nan_legend(void)
{
    /* TRANSLATORS: a picture's legend for infinite or NaN values */
    return _("not a\nnumber");
}

/* Lays the view out; sets the page's size in points. */
void fig_view_lay_out(figure *pg, cairo_t *cr)
{
    struct model_view *v = pg->view;
    double w, h;
    v->thumb =
        fmin(VIEW_THUMB_MAX,
             fmax(VIEW_THUMB_MIN, VIEW_GRID_W / (double)v->cols - VIEW_GAP));
    v->label_w = 0;
    for (size_t r = 0; r < v->rows; r++) {
        fig_text_size(cr, LABEL_FONT, v->places[r], 0, false, &w, &h);
        v->label_w = fmax(v->label_w, w);
    }
    v->bare_heads = false;
    for (size_t c = 0; c < v->cols && !v->bare_heads; c++) {
        char head[32];
        snprintf(head, sizeof head, _("head %d"), v->heads[c]);
        fig_text_size(cr, LABEL_FONT, head, 0, false, &w, &h);
        v->bare_heads = w > v->thumb + VIEW_GAP;
    }
    if (v->bare_heads) {
        fig_text_size(cr, LABEL_FONT, view_head_word(), 0, false, &w, &h);
        v->label_w = fmax(v->label_w, w);
    }
    // the title and heading across the grid and its colour bar (at least
    // VIEW_TEXT_W), the same with marks or without; the page as wide as
    // they are, or as the marks' legend under the bar
    const double grid_w = (double)v->cols * (v->thumb + VIEW_GAP);
    v->grid_x = MARGIN + v->label_w + PAD;
    const color_range sc = view_scale(v);
    double masked_w, masked_h, nan_w, nan_h;
    fig_text_size(cr, LABEL_FONT, _("masked\n(weight 0)"), 0, false, &masked_w,
                  &masked_h);
    fig_text_size(cr, LABEL_FONT, view_nan_legend(), 0, false, &nan_w, &nan_h);
    double legend_w, legend_h;
    fig_marks_legend_size(cr, &v->marks, &legend_w, &legend_h);
    const double bar_x = v->grid_x + grid_w + GAP;
    const double bar_w =
        fmax(fig_ticks_width(cr, &sc), BAR_WIDTH + 6 + fmax(masked_w, nan_w));
    v->text_w = fmax(bar_x + bar_w - MARGIN, VIEW_TEXT_W);
    pg->width = fmax(MARGIN + v->text_w, bar_x + legend_w) + MARGIN;
    double y = MARGIN;
    if (pg->heading != NULL) {
        fig_text_size(cr, HEADING_FONT, pg->heading, v->text_w, false, &w, &h);
        y += h + PAD;
    }
    fig_text_size(cr, LABEL_FONT, view_title(), v->text_w, true, &w, &h);
    y += h + 2 * PAD;
    fig_text_size(cr, LABEL_FONT, "head 0", 0, false, &w, &h);
    v->header_h = h;
    v->grid_y = y + fig_marks_groups_h(&v->marks, h) + h + PAD;
    v->row_pitch = v->thumb + VIEW_GAP + fig_marks_strip_h(&v->marks);
    v->legend_y = v->grid_y + VIEW_BAR_H + GAP +
                  (v->masked ? 2 * masked_h + GAP : 0) +
                  (v->nan ? 2 * nan_h + GAP : 0);
    pg->height =
        fmax(v->grid_y + (double)v->rows * v->row_pitch,
             legend_h > 0 ? v->legend_y + legend_h
                          : v->grid_y + VIEW_BAR_H + 2 * GAP + BAR_WIDTH +
                                (v->masked && v->nan ? 2 * nan_h + GAP : 0)) +
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
            if (!fig_cell_masked(&p, (size_t)r, (size_t)c)) // NaN too
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

/* Hatches the weights of t (a thumbnail at (tx, ty)) that are not a
 * number, over the grey view_image gives them: one path of their cells,
 * lines across the thumbnail clipped to it. */
static void hatch_nan(cairo_t *cr, const struct model_view *v, const table *t,
                      double tx, double ty)
{
    const size_t rows = t->values.rows, cols = t->values.cols;
    const double cw = v->thumb / (double)cols, ch = v->thumb / (double)rows;
    bool any = false;
    cairo_new_path(cr);
    for (size_t i = 0; i < rows * cols; i++)
        if (weight_nan(t, i)) {
            cairo_rectangle(cr, tx + (double)(i % cols) * cw,
                            ty + (double)(i / cols) * ch, cw, ch);
            any = true;
        }
    if (!any) {
        cairo_new_path(cr);
        return;
    }
    cairo_save(cr);
    cairo_clip(cr);
    cairo_set_source_rgb(cr, 0.62, 0.62, 0.62);
    cairo_set_line_width(cr, 0.5);
    for (double d = 0; d <= 2 * v->thumb; d += 3.0) {
        cairo_move_to(cr, tx + d - v->thumb, ty + v->thumb);
        cairo_line_to(cr, tx + d, ty);
    }
    cairo_stroke(cr);
    cairo_restore(cr);
}

/* Draws the laid-out view from (0, 0) in points. */
void fig_draw_view(cairo_t *cr, const figure *pg)
{
    const struct model_view *v = pg->view;
    const double text_w = v->text_w;
    double y = MARGIN, w, h;
    cairo_set_source_rgb(cr, 0, 0, 0);
    if (pg->heading != NULL) {
        fig_draw_text(cr, HEADING_FONT, pg->heading, text_w, MARGIN, y, 0, 0,
                      0);
        fig_text_size(cr, HEADING_FONT, pg->heading, text_w, false, &w, &h);
        y += h + PAD;
    }
    fig_draw_paragraph(cr, view_title(), text_w, MARGIN, y);
    if (v->bare_heads)
        fig_draw_text(cr, LABEL_FONT, view_head_word(), 0, v->grid_x - PAD,
                      v->grid_y - PAD, 1.0, 1.0, 0);
    fig_marks_draw_groups(cr, &v->marks, v->heads, v->cols, v->grid_x,
                          v->grid_y - PAD - v->header_h - 2.0,
                          v->thumb + VIEW_GAP, v->thumb);
    for (size_t c = 0; c < v->cols; c++) {
        char head[32];
        if (v->bare_heads)
            snprintf(head, sizeof head, "%d", v->heads[c]);
        else
            snprintf(head, sizeof head, _("head %d"), v->heads[c]);
        fig_draw_text(cr, LABEL_FONT, head, v->thumb + VIEW_GAP,
                      v->grid_x + (double)c * (v->thumb + VIEW_GAP) +
                          v->thumb / 2,
                      v->grid_y - PAD, 0.5, 1.0, 0);
    }
    for (size_t r = 0; r < v->rows; r++) {
        const double ty = v->grid_y + (double)r * v->row_pitch;
        cairo_set_source_rgb(cr, 0, 0, 0);
        fig_draw_text(cr, LABEL_FONT, v->places[r], 0, v->grid_x - PAD,
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
            if (v->nan)
                hatch_nan(cr, v, t, tx, ty);
            cairo_set_source_rgb(cr, 0.5, 0.5, 0.5);
            cairo_set_line_width(cr, 0.5);
            cairo_rectangle(cr, tx, ty, v->thumb, v->thumb);
            cairo_stroke(cr);
            if (fig_marks_is_off(&v->marks, t))
                fig_marks_draw_off(cr, tx, ty, v->thumb);
            fig_marks_draw_scores(cr, &v->marks, v->places[r], t->head, tx,
                                  ty + v->thumb, v->thumb);
        }
    }
    // the one colour bar, its caption, and the masked cells' legend
    const color_range sc = view_scale(v);
    const double bx = v->grid_x + (double)v->cols * (v->thumb + VIEW_GAP) + GAP;
    fig_draw_bar(cr, &sc, bx, v->grid_y, VIEW_BAR_H);
    const char *caption = _("attention weight");
    if (fig_upright(caption)) /* Chinese never sideways */
        fig_draw_vertical(cr, caption, bx - 6, v->grid_y, VIEW_BAR_H,
                          v->header_h);
    else
        fig_draw_text(cr, LABEL_FONT, caption, VIEW_BAR_H, bx - 6,
                      v->grid_y + VIEW_BAR_H / 2, 0.5, 1.0, QUARTER_TURN);
    double ly = v->grid_y + VIEW_BAR_H + GAP;
    if (v->masked) {
        // plain grey, as the thumbnails' masked cells (view_image)
        cairo_set_source_rgb(cr, MASKED_GREY / 255.0, MASKED_GREY / 255.0,
                             MASKED_GREY / 255.0);
        cairo_rectangle(cr, bx, ly, BAR_WIDTH, BAR_WIDTH);
        cairo_fill(cr);
        cairo_set_source_rgb(cr, 0, 0, 0);
        cairo_rectangle(cr, bx, ly, BAR_WIDTH, BAR_WIDTH);
        cairo_stroke(cr);
        const char *text = _("masked\n(weight 0)");
        fig_draw_text(cr, LABEL_FONT, text, 0, bx + BAR_WIDTH + 6, ly, 0, 0, 0);
        fig_text_size(cr, LABEL_FONT, text, 0, false, &w, &h);
        ly += 2 * h + GAP;
    }
    if (v->nan) {
        // grey and hatched, as a heat map's cells that are not a number
        fig_draw_masked(cr, bx, ly, BAR_WIDTH);
        cairo_set_source_rgb(cr, 0, 0, 0);
        cairo_set_line_width(cr, 0.75);
        cairo_rectangle(cr, bx, ly, BAR_WIDTH, BAR_WIDTH);
        cairo_stroke(cr);
        fig_draw_text(cr, LABEL_FONT, view_nan_legend(), 0, bx + BAR_WIDTH + 6,
                      ly, 0, 0, 0);
    }
    fig_marks_draw_legend(cr, &v->marks, bx, v->legend_y);
}
