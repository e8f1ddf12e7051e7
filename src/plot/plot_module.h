/* plot_module.h: what the picture module exports to the program.
 *
 * Drawing (plot.c and plot_figure.c, with cairo, pango and fontconfig) is
 * built as a module of its own, mha-explain-plot.so, that the program
 * opens on the first --plot (plot_load.c), so that a run without --plot
 * loads none of the picture libraries. The module exports one table of
 * functions under PLOT_MODULE_SYMBOL; the program checks its version and
 * size before it calls any. The module calls the program's own functions
 * (the run's transaction, the trace, the error helpers), which the
 * program exports to it. */
#ifndef MHA_PLOT_MODULE_H
#define MHA_PLOT_MODULE_H

#include <stddef.h>

#include "base/error.h"
#include "io/outputs.h"
#include "model/trace.h"
#include "plot/plot_style.h"

/* The picture files of a run, as the module keeps them. */
typedef struct plot_picture plot_picture;

/* The module's functions: plot.h's plot_begin, plot_page, plot_finish and
 * plot_free, on a plot_picture. */
typedef struct {
    const char *version; /* MHA_VERSION of the module's build */
    size_t size;         /* sizeof (plot_functions) there */
    plot_picture *(*begin)(outputs *tx, const char *path, size_t pages,
                           size_t width, size_t height, mx_error *err);
    int (*page)(plot_picture *pic, const trace *tr, const table *const *tables,
                size_t n, const char *heading, const plot_style *style,
                mx_error *err);
    int (*finish)(plot_picture *pic, mx_error *err);
    void (*free)(plot_picture *pic);
} plot_functions;

#define PLOT_MODULE_SYMBOL "mha_plot_functions"
#define PLOT_MODULE_NAME "mha-explain-plot.so"

/* The table, defined by the module (plot.c). */
extern const plot_functions mha_plot_functions;

#endif
