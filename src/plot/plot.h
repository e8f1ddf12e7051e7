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
 * A trained run (--train) gets its loss curve above the panels, a line
 * per variant over the steps (the table loss; with --tables, when loss
 * is chosen), and without --tables each head twice: before training and
 * after it (the first and last steps of attn_weights_steps, trained.h),
 * the two on one colour range so that their colours compare.
 *
 * A page is as large as its panels need (at most 2 pixels per point in a
 * PNG), or exactly --plot-size. Tables too large to draw cell by cell are
 * drawn in blocks of k x k values (their mean), and at most 48 panels go
 * on a page; the page says so when it does either.
 *
 * The files are files of the run's transaction (io/outputs.h), so they
 * appear whole or not at all, with the run's other files. A build without
 * cairo and pango (meson -Dplots=disabled) has the same functions, which
 * only say so.
 */
#ifndef MHA_PLOT_H
#define MHA_PLOT_H

#include <stdbool.h>

#include "base/error.h"
#include "io/outputs.h"
#include "model/trace.h"
#include "plot/plot_style.h"

typedef struct plot_file plot_file;

/* Whether this build can draw pictures. */
bool plot_available(void);

/* Starts the picture(s) at path, files of the run's transaction tx;
 * `pages` is how many sentences will be drawn (1 for a single run);
 * width x height is every page's size (pixels for PNG, points for SVG and
 * PDF), or 0 x 0 for the size the drawing needs. Returns NULL with err
 * set on failure. */
plot_file *plot_begin(outputs *tx, const char *path, size_t pages, size_t width,
                      size_t height, mx_error *err);

/* Draws the next sentence's page: the n tables (those --tables chose;
 * tables of token ids are left out) or, when tables is NULL, every head's
 * attn_weights and any attn_weights_avg of tr. tr gives the scores that
 * say which weights are masked. heading (or NULL) is written above;
 * style says how (plot_style.h). */
int plot_page(plot_file *pf, const trace *tr, const table *const *tables,
              size_t n, const char *heading, const plot_style *style,
              mx_error *err);

/* Completes every file (a PDF's last bytes) and closes it: before the
 * transaction commits. */
int plot_finish(plot_file *pf, mx_error *err);

/* Frees pf (NULL: nothing), closing any file still open; the files are
 * the transaction's. */
void plot_free(plot_file *pf);

/* The same on its own, in a transaction of its own: plot_open begins it,
 * plot_close finishes the files and puts them in place (all or none) and
 * frees pf; plot_discard puts nothing in place and frees pf. */
plot_file *plot_open(const char *path, size_t pages, size_t width,
                     size_t height, mx_error *err);
int plot_close(plot_file *pf, mx_error *err);
void plot_discard(plot_file *pf);

#endif
