/* colormap_data.h: the colour maps --cmap names, as matplotlib defines
 * them (colormap_data.c holds the numbers; colormap.c reads them). */
#ifndef MHA_COLORMAP_DATA_H
#define MHA_COLORMAP_DATA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* One of matplotlib's maps: a listed map's n colours (its whole table,
 * in whole millionths: 267004 is 0.267004, colormap.c divides), or a
 * segmented map's n anchor colours (rgb, from 0 to 1), evenly spaced from
 * 0 to 1 (at NULL) or at the positions at[n]. */
typedef struct {
    const char *name; /* matplotlib's name, e.g. "viridis", "Blues" */
    bool listed;
    size_t n;
    const double (*rgb)[3];
    const double *at;
    const uint32_t (*millionths)[3];
} colormap_def;

extern const colormap_def colormap_defs[];
extern const size_t colormap_def_count;

#endif
