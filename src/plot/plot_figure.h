/* plot_figure.h: one page of --plot, for any cairo surface.
 *
 * Which tables become panels and on which colour scale, where every panel
 * and colour bar goes (in points, summarised in blocks when cells would
 * be smaller than a pixel of the output), and the drawing itself. plot.c
 * owns the files and the PNG, SVG and PDF surfaces. */
#ifndef MHA_PLOT_FIGURE_H
#define MHA_PLOT_FIGURE_H

#include <stdbool.h>
#include <stddef.h>

#include <cairo.h>

#include "base/error.h"
#include "model/trace.h"
#include "plot/plot_style.h"
#include "plot/svg_text.h"

typedef struct figure figure;

/* The page of the n tables of tr (tables of ids left out) or, when tables
 * is NULL, of every head's attn_weights and any attn_weights_avg (a
 * trained run's heads also before training); a loss table is a curve
 * above the panels (plot.h); heading
 * (or NULL) above them. NULL with err set when there is nothing to draw
 * (a usage error) or no memory. The caller frees it (figure_free); it
 * points into tr, which must outlive it. */
figure *figure_make(const trace *tr, const table *const *tables, size_t n,
                    const char *heading, const plot_style *style,
                    mx_error *err);

/* Lays the page out for an output of width x height units (pixels for a
 * PNG, else points), or of its own size when width is 0. Returns the
 * output's units per point and sets *w x *h, the output's size in
 * units. */
double figure_lay_out(figure *fig, bool png, double width, double height,
                      double *w, double *h);

/* Draws the laid-out page into cr, centred on an output of w x h units
 * at scale units per point (figure_lay_out's answers). With texts (an
 * SVG), the text is logged there instead of drawn (svg_text.h). */
void figure_draw(cairo_t *cr, const figure *fig, double w, double h,
                 double scale, svg_texts *texts);

void figure_free(figure *fig);

#endif
