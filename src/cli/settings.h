/* settings.h: how a run renders, from its options and the terminal:
 * colour, width, the grid of heads, streaming, --explain's context and
 * the text style. */
#ifndef MHA_SETTINGS_H
#define MHA_SETTINGS_H

#include <stdbool.h>
#include <stddef.h>

#include "cli/options.h"
#include "model/run_request.h"
#include "model/trace.h"
#include "render/explain.h"
#include "render/render.h"

/* --color: auto shades only a terminal, and NO_COLOR turns it off. */
bool use_color(const options *opt);

/* The widest text line: --width, else the terminal's width when standard
 * output is one, else $COLUMNS, else 80 as PyTorch's linewidth. */
size_t screen_width(const options *opt);

/* --layout auto: heads side by side on a terminal; a pipe or a file keeps
 * one table under another, in the trace's order, and so does a run too
 * large to keep every table, which the grid needs (trace.h). */
bool use_grid(const options *opt, const model_input *in);

/* Whether a run keeps every table until it ends, for an output that
 * reads the whole trace (the --html page and --plot picture of every
 * head, the heads side by side of --layout grid); otherwise its tables go
 * to the output as they are made (trace.h). grid: the text is laid out as
 * a grid. */
bool keeps_all(const options *opt, bool grid);

/* What --explain needs to know about the run. */
explain_context explain_for(const options *opt, const trace *tr);

/* The text style of a run. ctx is filled when the first table goes out
 * (explain_for reads the input tables). */
text_style text_style_of(const options *opt, const trace *tr,
                         const explain_context *ctx, bool grid);

#endif
