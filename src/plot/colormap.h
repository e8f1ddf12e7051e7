/* colormap.h: the pictures' diverging colour map, for tables whose values
 * have both signs (--plot with --tables).
 *
 * ColorBrewer's RdBu, reversed as matplotlib's "RdBu_r": dark blue at the
 * most negative value, near-white at 0, dark red at the most positive. It
 * stays readable for red-green colour blindness. Tables of one sign use
 * viridis (heat_color in heat.h). */
#ifndef MHA_COLORMAP_H
#define MHA_COLORMAP_H

#include "render/heat.h"

/* The map at x in [0, 1] (clamped; NaN as 0.5): 0 is the most negative
 * end, 0.5 is zero, 1 the most positive. Interpolated in sRGB between
 * ColorBrewer's eleven samples. */
rgb diverging_color(double x);

#endif
