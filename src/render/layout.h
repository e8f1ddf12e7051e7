/* layout.h: blocks of text side by side, for --layout grid.
 *
 *   [fused] heads 0 to 1: attn_weights (5 x 5)
 *              head 0                       |    head 1
 *                 K:O  K:gato  ...          |       K:O  K:gato  ...
 *   Q:O        1.0000  0.0000  ...          |    1.0000  0.0000  ...
 *
 * A block is text of lines ending in '\n', possibly with colour escape
 * sequences (ESC [ ... m), which take no cells. */
#ifndef MHA_LAYOUT_H
#define MHA_LAYOUT_H

#include <stddef.h>
#include <stdio.h>

/* What goes between two blocks of a row, and its cells. */
#define LAYOUT_SEPARATOR " |"
#define LAYOUT_SEPARATOR_CELLS 2

/* Display cells of the first n bytes of line, colour escapes skipped. */
size_t visible_width(const char *line, size_t n);

/* Cells of the widest line of block. */
size_t block_width(const char *block);

/* Writes the n blocks side by side: line k of the output is line k of
 * each block, each but the last padded to its block's width, with
 * `separator` between blocks i and i + 1 where sep[i] is nonzero (after
 * the row labels there is none). A block shorter than the others is
 * padded with blank lines. Returns -1 when out of memory. */
int layout_side_by_side(FILE *out, const char *const *blocks, size_t n,
                        const unsigned char *sep);

#endif
