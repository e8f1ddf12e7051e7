/* plot.h: --plot FILE, the attention weights of every head as a picture.
 *
 * One panel per head, a grid per variant, keys across and queries down,
 * the viridis colour map with a colour bar. The extension of FILE chooses
 * the format: .png, .svg or .pdf. With several sentences (--input) a PDF
 * gets one page per sentence and a PNG or SVG one file per sentence,
 * FILE's name with ".sentenceN" before the extension.
 *
 * Files are written under temporary names and renamed only by plot_close,
 * so they appear whole or not at all. A build without cairo and pango
 * (meson -Dplots=disabled) has the same functions, which only say so.
 */
#ifndef MHA_PLOT_H
#define MHA_PLOT_H

#include <stdbool.h>

#include "error.h"
#include "trace.h"

typedef struct plot_file plot_file;

/* Whether this build can draw pictures. */
bool plot_available(void);

/* Starts the picture(s) at path; `pages` is how many sentences will be
 * drawn (1 for a single run). Returns NULL with err set on failure. */
plot_file *plot_open(const char *path, size_t pages, mx_error *err);

/* Draws the next sentence's heads from the trace; heading (or NULL) is
 * written above them. */
int plot_page(plot_file *pf, const trace *tr, const char *heading,
              mx_error *err);

/* Finishes every file and moves it into place; on failure removes them.
 * Frees pf. */
int plot_close(plot_file *pf, mx_error *err);

/* Removes whatever was written and frees pf (after another failure). */
void plot_discard(plot_file *pf);

#endif
