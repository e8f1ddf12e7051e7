/* colormap.h: the colour maps of the terminal (viridis, heat.h), the
 * pictures and the page (--cmap): the colours matplotlib's and seaborn's maps of the same names give.
 *
 * A map is named as a notebook names it for matplotlib or seaborn:
 * viridis, magma, inferno, plasma, cividis, Blues, Greens, Greys,
 * Oranges, Purples, Reds, YlGnBu, YlOrRd, RdBu, PuOr, RdYlBu, Spectral,
 * coolwarm, each also with "_r" for the reversed map. As matplotlib does,
 * a map is a table of 256 colours (a listed map's own, or a segmented
 * map's anchors interpolated at 0, 1/255, ..., 1) and x in [0, 1] takes
 * entry floor(256 x) (255 at 1), channels rounded to 8 bits. */
#ifndef MHA_COLORMAP_H
#define MHA_COLORMAP_H

#include <stdbool.h>
#include <stddef.h>

#include "render/colormap_data.h"
#include "render/heat.h"

#define COLORMAP_ENTRIES 256

typedef struct {
    const colormap_def *def;
    bool reversed; /* the name ended in "_r" */
} colormap;

/* The map called name (matplotlib's spelling); false if there is none. */
bool colormap_find(colormap *out, const char *name);

/* The names, comma-separated, for an error message. */
void colormap_list(char *out, size_t size);

/* Whether the map is meant to be centred on a middle value (RdBu, PuOr,
 * RdYlBu, Spectral, coolwarm): tables of both signs are drawn on it
 * from -m to m. */
bool colormap_diverging(const colormap *m);

/* Entry i (0 to 255) of the map's table, channels from 0 to 1, exactly
 * as matplotlib computes it (LinearSegmentedColormap's lookup table). */
void colormap_entry(const colormap *m, size_t i, double out[3]);

/* The colour at x (clamped to [0, 1]; NaN as 0), 8 bits a channel. */
rgb colormap_color(const colormap *m, double x);

#endif
