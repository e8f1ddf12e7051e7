/* figure_layout.c: where every panel and colour bar of a --plot page
 * goes, in points, and the blocks of values a drawn cell summarises when
 * cells would be smaller than a pixel of the output (figure_parts.h). */
#include "plot/figure_parts.h"

#include <math.h>
#include <stdio.h>

#include "base/i18n.h"

size_t fig_blocks(size_t n, size_t k)
{
    return (n + k - 1) / k;
}

/* The width a cell of S takes to hold the longest text of its tables'
 * cells (table.cells: the logit lens's tokens) whole, as annotate_text
 * writes it (bold, at most LABEL_SIZE, in 0.92 of the cell), up to
 * TEXT_CELL_MAX_W and a map TEXT_MAP_MAX_W wide: a longer text ends in
 * an ellipsis. */
static double text_cell_width(const section *S, const figure *pg, cairo_t *cr)
{
    double widest = 0;
    for (size_t i = S->first; i < S->first + S->count; i++) {
        const table *t = pg->panels[i].t;
        for (size_t k = 0; t->cells != NULL && k < t->cells->n; k++) {
            double w, h;
            fig_text_size(cr, fig_font(true, LABEL_SIZE).name, t->cells->s[k],
                          0, false, &w, &h);
            widest = fmax(widest, w);
        }
    }
    const double most = fmax(
        TEXT_CELL_W, fmin(TEXT_CELL_MAX_W, TEXT_MAP_MAX_W / (double)S->cols));
    return fmin(most, fmax(TEXT_CELL_W, ceil(widest / 0.92) + 2.0));
}

/* The tallest a map of one column grows to name each of its rows. */
#define ONE_COLUMN_SIDE (2 * MAX_SIDE)

/* The cell size and the panel's box for the section's block size. */
static void size_section(section *S, const figure *pg, cairo_t *cr)
{
    const double line_h = pg->line_h, title_h = pg->title_h;
    size_t longest = S->rows > S->cols ? S->rows : S->cols;
    size_t nb = fig_blocks(longest, S->block);
    double cell = floor(HEAT_SIDE / (double)nb);
    cell = cell > MAX_CELL ? MAX_CELL : cell < MIN_CELL ? MIN_CELL : cell;
    if ((double)nb * cell > MAX_SIDE)
        cell = MAX_SIDE / (double)nb;
    /* a map of the interventions labels each column a reader looks up
     * (patch_resid's positions, a prompt of 40 tokens): its cells up to
     * a line wide as the longest side allows, its turned labels smaller
     * to fit them (not under MIN_COL_SIZE) */
    const bool label_all = fig_map_caption(S) != NULL && S->block == 1;
    if (label_all && cell < line_h)
        cell = fmax(cell, fmin(line_h, MAX_SIDE / (double)nb));
    /* a wide table of few rows (GPT-2's logits, T x 50257) would be a
     * strip too thin for its row labels: its rows are taller, a label
     * each and the map as tall as a colour bar if the page allows */
    const size_t cols_b = fig_blocks(S->cols, S->block);
    S->block_r = S->block;
    if (cell < line_h && (double)cols_b >= WIDE * (double)S->rows &&
        (double)S->rows * line_h <= MAX_SIDE)
        S->block_r = 1; /* every row its own, however wide its blocks */
    const size_t rows_b = fig_blocks(S->rows, S->block_r);
    S->cell_h = cell;
    if (cell < line_h && (double)cols_b >= WIDE * (double)rows_b)
        S->cell_h = fmax(cell, fmin(fmin(MAX_CELL, MAX_SIDE / (double)rows_b),
                                    fmax(line_h, BAR_MIN / (double)rows_b)));
    /* a map of one column (next_tokens, a layer's logit_lens: tokens x
     * guesses rows) would name only every second or third row: its rows
     * a line tall, each named, as far as the map stays under
     * ONE_COLUMN_SIDE (write_notes says which rows are named when not) */
    if (S->cols == 1 && S->block == 1 && S->cell_h < line_h)
        S->cell_h =
            fmax(S->cell_h, fmin(line_h, ONE_COLUMN_SIDE / (double)rows_b));
    /* a map much taller than wide (head_scores: L·H rows x 3 scores, 144
     * x 3 for GPT-2 small) would be a strip too narrow for its column
     * labels: its columns are wider, each labelled */
    if (fig_map_caption(S) != NULL && cell <= line_h &&
        (double)rows_b >= WIDE * (double)cols_b)
        cell = fmax(cell, fmin(MAX_CELL, MAX_SIDE / (double)cols_b));
    // a table with a text in each cell (the logit lens's tokens): cells
    // wide and tall enough to read it, when it has few enough columns
    const table *first = pg->panels[S->first].t;
    if (first->cells != NULL && S->block == 1 && S->cols <= TEXT_CELLS_MAX) {
        cell = fmax(cell, text_cell_width(S, pg, cr));
        S->cell_h = fmax(S->cell_h, TEXT_CELL_H);
    }
    // a size given: the cells stretched to fill the page (stretch)
    S->cell_h *= pg->stretch_h;
    cell *= pg->stretch_w;
    S->cell = cell;
    S->turn_size = LABEL_SIZE;
    if (label_all && cell < line_h)
        S->turn_size =
            fmax(MIN_COL_SIZE, floor(LABEL_SIZE * cell / line_h * 10) / 10);
    // the room a turned label takes across: its line
    const double across = line_h * S->turn_size / LABEL_SIZE;
    S->label_every = (size_t)fmax(1.0, ceil(across / cell - 1e-9));
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
    double map_w = (double)fig_blocks(S->cols, S->block) * cell;
    double map_h = (double)rows_b * S->cell_h;
    double beside = S->panel_bars ? PANEL_BAR_GAP + S->panel_bar_w : 0;
    S->box_w = S->row_label_w + PAD + fmax(map_w + beside, S->title_w);
    S->box_h = title_h + PAD + map_h + PAD + col_label_h + S->axis_h;
    S->bar_h = map_h > BAR_MAX ? BAR_MAX : map_h < BAR_MIN ? BAR_MIN : map_h;
    /* a map's bar as tall as the map, as matplotlib's colorbar beside
     * its axes (a 2 x 2 map's about as its two rows, 144 x 3 head
     * scores' as their column), and at least BAR_MIN for its ticks and
     * a caption on a line or two; the caption (figure_maps.c) wrapped
     * beside it on as many lines, or Chinese columns, as it takes
     * (bar_lines) */
    const char *caption = fig_map_caption(S);
    S->bar_lines = 1;
    if (caption != NULL) {
        S->bar_h = fmin(fmax(map_h, BAR_MIN), MAX_SIDE * pg->stretch_h);
        S->bar_lines = fig_map_caption_lines(cr, S, S->bar_h, line_h);
    }
    /* a map of one row (generated_p): a bar as tall as the row, its
     * caption under it */
    S->strip = caption != NULL && rows_b == 1;
    if (S->strip) {
        S->bar_h = fmax(map_h, BAR_STRIP);
        S->bar_lines = 1;
    }
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

/* Whether panels a and b go in one grid: the same variant, and for a
 * generation's heads (attn_weights_generated) the same layer, a row of
 * heads per layer. */
static bool same_grid(const panel *a, const panel *b)
{
    if (a->t->variant != b->t->variant)
        return false;
    return a->t->id != TABLE_ATTN_WEIGHTS_GENERATED ||
           a->t->layer == b->t->layer;
}

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
                   same_grid(&pg->panels[i + run], &pg->panels[i]))
                run++;
            size_t gr, gc;
            grid_shape(run, &gr, &gc);
            if (pg->panels[i].t->id == TABLE_ATTN_WEIGHTS_GENERATED) {
                gr = 1; /* a layer's heads side by side */
                gc = run;
            }
            if (pg->flow > 0) { /* as many columns as the row holds */
                gc = (size_t)floor(
                    (pg->flow - MARGIN + GAP) / (S->box_w + GAP) + 1e-9);
                gc = gc < 1 ? 1 : gc > run ? run : gc;
                gr = (run + gc - 1) / gc;
            }
            double run_w = (double)gc * S->box_w + (double)(gc - 1) * GAP;
            /* each variant's grid below the last; with a flow beside it
             * when the row holds the whole grid */
            if (x > MARGIN && (pg->flow == 0 || x + run_w > pg->flow + 1e-6)) {
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
        double cw, bar_bottom = S->shared_bar
                                    ? S->top + S->bar_h +
                                          fig_strip_caption(cr, S, &cw) +
                                          (S->masked ? LEGEND_H : 0)
                                    : 0;
        y = bar_bottom + GAP > y ? bar_bottom + GAP : y;
        double bw = fig_bar_width(cr, S);
        pg->bar_w = bw > pg->bar_w ? bw : pg->bar_w;
    }
    /* room for a shared bar's upright caption, of one line or more */
    size_t lines = 1;
    for (size_t s = 0; s < pg->n_sections; s++)
        if (pg->sections[s].shared_bar && pg->sections[s].bar_lines > lines)
            lines = pg->sections[s].bar_lines;
    pg->bar_x = pg->bar_w > 0
                    ? right + GAP + 20 + (double)(lines - 1) * pg->line_h
                    : right;
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
        fig_text_size(cr, HEADING_FONT, pg->heading, width, false, &w, &lh);
        h += lh + 2 * PAD;
        pg->header_w = w;
    }
    for (size_t i = 0; i < pg->n_notes; i++) {
        fig_text_size(cr, LABEL_FONT, pg->notes[i], width, true, &w, &lh);
        h += lh + (i + 1 == pg->n_notes ? PAD : 0);
        pg->header_w = w > pg->header_w ? w : pg->header_w;
    }
    if (pg->n_loss > 0) { /* the loss curve, above the panels' legends */
        h += CHART_H + GAP;
        pg->header_w = fmax(pg->header_w, CHART_W);
    }
    if (pg->n_loss > 0 && pg->scores != NULL) /* the scores beside it */
        pg->header_w = fmax(pg->header_w, 2 * CHART_W + GAP);
    w = fig_header_legends(pg, cr, 0, 0, false, &lh);
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
        if (S->cols == 1 && S->row_every > 1 && pg->n_notes < 3)
            snprintf(pg->notes[pg->n_notes++], sizeof pg->notes[0],
                     /* TRANSLATORS: a picture's note: a number, a table
                      * name; the other rows' labels are left out */
                     _("Labels: one row in %zu of %s is named."),
                     S->row_every * S->block_r, S->name);
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
double fig_page_scale(const figure *pg, bool png, double width, double height)
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
            size_section(&pg->sections[s], pg, cr);
        write_notes(pg);
        pg->header_h = pg->header_w = 0;
        place(pg, cr);
        pg->header_h = header_height(pg, cr, fmax(pg->width - 2 * MARGIN, 480));
        place(pg, cr);
        scale = fig_page_scale(pg, png, width, height);
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

/* The most a cell is stretched: twice as tall as wide, or as wide as
 * tall. */
#define MAX_STRETCH 2.0

/* A size given: the cells heightened (a page wider than the panels'
 * drawing) or, when each variant's grid is as square as its heads allow,
 * widened (a page taller) so that the drawing fills the page rather than
 * leaving blank bands, each cell at most MAX_STRETCH times as long one
 * way as the other. The page's height (width) grows linearly with the
 * stretch but for the colour bars' bounds: a few secant steps find it.
 * Returns the output's units per point. */
static double stretch(figure *pg, cairo_t *cr, bool png, double width,
                      double height, double scale)
{
    const bool taller = width / pg->width < height / pg->height;
    if (!taller && pg->flow > 0)
        return scale; /* a wider cell would change the rows' columns */
    double *k = taller ? &pg->stretch_h : &pg->stretch_w;
    const double want = taller ? height / width : width / height;
    double k0 = 1.0,
           r0 = taller ? pg->height / pg->width : pg->width / pg->height;
    if (r0 >= want * 0.99)
        return scale;
    double k1 = MAX_STRETCH;
    for (int step = 0; step < 4; step++) {
        *k = k1;
        scale = fit(pg, cr, png, width, height);
        const double r1 =
            taller ? pg->height / pg->width : pg->width / pg->height;
        if (fabs(r1 - want) < want * 0.005 || fabs(r1 - r0) < 1e-9)
            break;
        const double next = k1 + (want - r1) * (k1 - k0) / (r1 - r0);
        k0 = k1;
        r0 = r1;
        k1 = fmin(MAX_STRETCH, fmax(1.0, next));
    }
    /* never past the page: the last stretch that fits */
    if ((taller ? pg->height / pg->width : pg->width / pg->height) >
        want * 1.001) {
        *k = fmax(1.0, *k * want /
                           (taller ? pg->height / pg->width
                                   : pg->width / pg->height));
        scale = fit(pg, cr, png, width, height);
    }
    return scale;
}

/* Measures the page's text, then lays it out: each variant's grid below
 * the last (the 2 x 4 grid of 8 heads), or for a size given (--plot-size)
 * the number of columns that draws the page largest. Returns the output's units
 * per point. */
double fig_lay_out_panels(figure *pg, cairo_t *cr, bool png, double width,
                          double height)
{
    double unused;
    fig_text_size(cr, LABEL_FONT, "Ag", 0, false, &unused, &pg->line_h);
    fig_text_size(cr, TITLE_FONT, "Ag", 0, false, &unused, &pg->title_h);
    for (size_t s = 0; s < pg->n_sections; s++) {
        fig_measure_section(&pg->sections[s], cr, pg->panels, pg->show_names,
                            pg->line_h);
        fig_maps_measure(&pg->sections[s], pg->line_h);
    }
    pg->flow = 0;
    pg->stretch_w = pg->stretch_h = 1.0;
    double scale = fit(pg, cr, png, width, height);
    if (width == 0)
        return scale;
    /* rows as wide as 1, 2, 3, ... panels of a section */
    double best = scale, best_flow = 0;
    for (size_t s = 0; s < pg->n_sections; s++) {
        const section *S = &pg->sections[s];
        double box_w = S->box_w;
        for (size_t m = 1; m <= S->count; m++) {
            pg->flow = MARGIN + (double)m * box_w + (double)(m - 1) * GAP;
            double tried = fit(pg, cr, png, width, height);
            if (tried > best * 1.001) {
                best = tried;
                best_flow = pg->flow;
            }
        }
    }
    pg->flow = best_flow;
    scale = fit(pg, cr, png, width, height);
    return stretch(pg, cr, png, width, height, scale);
}
