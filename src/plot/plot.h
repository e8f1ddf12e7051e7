/* plot.h: --plot FILE, the attention weights of every head as a picture.
 *
 * One panel per head, a grid per variant, keys across and queries down,
 * the viridis colour map with a colour bar. With --tables, one panel per
 * chosen table, a colour bar per table name: viridis for values of one
 * sign, a diverging map centred on 0 for values of both. The extension of
 * FILE chooses the format: .png, .svg or .pdf. With several sentences
 * (--input) a PDF gets one page per sentence and a PNG or SVG one file per
 * sentence, FILE's name with ".sentenceN" before the extension.
 *
 * A page is as large as its panels need (at most 2 pixels per point in a
 * PNG), or exactly --plot-size. Tables too large to draw cell by cell are
 * drawn in blocks of k x k values (their mean), and at most 48 panels go
 * on a page; the page says so when it does either.
 *
 * Files are written under temporary names and moved into place only at the
 * end (replace.h), so they appear whole or not at all. A build without cairo and pango
 * (meson -Dplots=disabled) has the same functions, which only say so.
 */
#ifndef MHA_PLOT_H
#define MHA_PLOT_H

#include <stdbool.h>

#include "cli/error.h"
#include "model/trace.h"
#include "plot/plot_style.h"

typedef struct plot_file plot_file;

/* Whether this build can draw pictures. */
bool plot_available(void);

/* Starts the picture(s) at path; `pages` is how many sentences will be
 * drawn (1 for a single run); width x height is every page's size (pixels
 * for PNG, points for SVG and PDF), or 0 x 0 for the size the drawing
 * needs. Returns NULL with err set on failure. */
plot_file *plot_open(const char *path, size_t pages, size_t width,
                     size_t height, mx_error *err);

/* Draws the next sentence's page: the n tables (those --tables chose;
 * tables of token ids are left out) or, when tables is NULL, every head's
 * attn_weights and any attn_weights_avg of tr. tr gives the scores that
 * say which weights are masked. heading (or NULL) is written above;
 * style says how (plot_style.h). */
int plot_page(plot_file *pf, const trace *tr, const table *const *tables,
              size_t n, const char *heading, const plot_style *style,
              mx_error *err);

/* The end of a run, in three steps so that a run's outputs of every kind
 * go in place together (main.c): plot_ready finishes every file and
 * checks that every final name can take it (nothing moved yet);
 * plot_place moves them into place, keeping the files they replace (on
 * failure it puts its own back); plot_end(keep) then removes the kept
 * files, or (keep false) puts them back and removes every new file, and
 * frees pf. plot_end may follow any step, or none (NULL: nothing). */
int plot_ready(plot_file *pf, mx_error *err);
int plot_place(plot_file *pf, mx_error *err);
/* After every kind is placed: replace_intact (replace.h). */
int plot_intact(const plot_file *pf, mx_error *err);
void plot_end(plot_file *pf, bool keep);

/* plot_ready, plot_place and plot_end in one: every file in place, or
 * none. Frees pf. */
int plot_close(plot_file *pf, mx_error *err);

/* plot_end(pf, false): removes whatever was written and frees pf. */
void plot_discard(plot_file *pf);

#endif
