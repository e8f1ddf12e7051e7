/* plot_style.h: how --plot draws its panels, from the options the
 * notebooks pass to seaborn and matplotlib: the colour scale
 * (--color-scale, as on the terminal), the colour map (--cmap), the
 * values written in the cells (--numbers, with --precision) and the
 * colour bars (--colorbar). options.c fills it; plot_figure.c reads it. */
#ifndef MHA_PLOT_STYLE_H
#define MHA_PLOT_STYLE_H

#include <stdbool.h>

#include "model/run_request.h"
#include "render/heat.h"

/* --colorbar: where the colour bars go. */
enum plot_bars {
    BARS_AUTO,   /* shared for several panels or --color-scale fixed;
                    panel for one, or with --color-scale row */
    BARS_PANEL,  /* one beside each panel, on the panel's own scale */
    BARS_SHARED, /* one per table name, its panels on one scale */
    BARS_NONE,   /* none (each panel on its own scale) */
};

#define PLOT_DECIMALS 2 /* in the cells without --precision */

/* --cmap's defaults (its row in cli/option_list.h names them): the
 * colour map of the tables of one sign, and that of the tables of both
 * signs, centred on 0. */
#define PLOT_CMAP "viridis"
#define PLOT_CMAP_BOTH_SIGNS "RdBu_r"

typedef struct {
    enum color_scale scale; /* --color-scale: the terminal's default, table */
    const char *cmap;       /* --cmap NAME (colormap.h), or NULL: PLOT_CMAP,
                               and PLOT_CMAP_BOTH_SIGNS for tables of both
                               signs */
    bool numbers;           /* --numbers on: values in cells wide enough */
    int decimals;           /* their decimals: --precision, else 2 */
    enum plot_bars bars;    /* --colorbar */
    /* --ablate L.H,...: the heads switched off in the run drawn, which the
     * model view marks (n_ablated of them, the options'; none with
     * all-heads), and how (--ablate-mode) */
    const head_ref *ablated;
    size_t n_ablated;
    hook_action ablate_mode;
} plot_style;

/* The style of a run without these options. */
static inline plot_style plot_style_default(void)
{
    plot_style s = {SCALE_TABLE, NULL, true, PLOT_DECIMALS,
                    BARS_AUTO,   NULL, 0,    HOOK_ZERO};
    return s;
}

#endif
