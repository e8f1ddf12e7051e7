/* shading.h: where each cell of a table sits on the --color heat scale
 * (heat.h): which cells are masked, and the smallest and largest values
 * each row is compared with, as --color-scale says. Used by the text
 * tables and by --focus. */
#ifndef MHA_SHADING_H
#define MHA_SHADING_H

#include <stdbool.h>
#include <stddef.h>

#include "render/heat.h"
#include "model/trace.h"

/* The tables shaded with --color: attention weights (and their average)
 * and scores. */
bool is_shaded(const table *t);

/* Whether t's cells sit on the fixed scale 0 to 1 under scale: with
 * --color-scale fixed, the weights; the scores keep their own range
 * (shade_fixed_scale, catalogue.h). */
bool on_fixed_scale(const table *t, enum color_scale scale);

/* How a shaded table is coloured: its mask, and the ends of the scale
 * each row's cells are placed on. */
typedef struct {
    const matrix *mask; /* -inf where a cell is masked, or NULL */
    double *lo, *hi;    /* [rows], owned */
} shading;

/* The shading of t under scale; tr (or NULL) is the run, where weights
 * find their scores' mask. Returns -1 when out of memory; shading_free
 * in either case. */
int shading_init(shading *sh, const table *t, enum color_scale scale,
                 const trace *tr);

void shading_free(shading *sh);

/* Whether the cell (i, j) is masked (its score is -inf). */
bool shading_masked(const shading *sh, size_t i, size_t j);

/* Where v, a value of row i, sits on the scale: 0 at its smallest, 1 at
 * its largest (1 when they are equal). */
double shading_x(const shading *sh, size_t i, float v);

#endif
