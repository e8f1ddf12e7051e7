/* heat.h: the --color heat scale, viridis from dark purple to yellow.
 *
 * A cell's value is placed on the scale as x in [0, 1] (from the smallest
 * to the largest value it is compared with); its background is viridis at
 * x, its text black or white, whichever contrasts more. Terminals that
 * say they draw 24-bit colour (COLORTERM=truecolor or 24bit) get the
 * exact colour, others one of 14 steps of the 256-colour palette that
 * follow viridis. Masked cells get no scale colour at all: grey text on the
 * terminal's own background. */
#ifndef MHA_HEAT_H
#define MHA_HEAT_H

#include <stdbool.h>
#include <stdio.h>

/* --color-scale: what a value is compared with. */
enum color_scale {
    SCALE_TABLE, /* the table's smallest to largest unmasked value */
    SCALE_ROW,   /* each row's own smallest to largest */
    SCALE_FIXED, /* weights 0 to 1 (scores as SCALE_TABLE) */
};

typedef struct {
    unsigned char r, g, b;
} rgb;

/* Viridis at x (clamped to [0, 1]): matplotlib's own colour there
 * (colormap.h), as --plot and the --html page draw it. */
rgb heat_color(double x);

/* Starts a cell shaded at x; heat_end ends it. */
void heat_start(FILE *out, double x, bool truecolor);

/* Starts a masked cell. */
void heat_masked(FILE *out, bool truecolor);

void heat_end(FILE *out);

/* "scale: 0.0618 [ramp] 1.0000, per table; masked: 0.0000" : the scale
 * from lo to hi (already formatted), what they are the smallest and
 * largest of, and how masked cells look (NULL when there are none). No
 * line is wider than width cells (0: no limit) unless a single word is:
 * a shorter ramp first, then the legend is broken at spaces, the lines
 * after the first indented by two spaces. */
void heat_legend(FILE *out, const char *lo, const char *hi, const char *of,
                 const char *masked, size_t width, bool truecolor);

/* "0.0618 [ramp] 1.0000" without a line end: the short legend under one
 * table of a grid (layout.h), its scale from lo to hi. */
void heat_ramp(FILE *out, const char *lo, const char *hi, bool truecolor);

#endif
