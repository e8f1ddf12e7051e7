/* sink.h: the table sink of a run: each table, as the model makes it, to
 * every output that wants it. */
#ifndef MHA_SINK_H
#define MHA_SINK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "base/error.h"
#include "cli/options.h"
#include "model/trace.h"
#include "render/check.h"
#include "render/explain.h"
#include "render/render.h"

/* Where one run's chosen tables go, a table at a time: --csv-dir files,
 * then CSV or text on out, or the --focus view (written at the end); the
 * text of --layout grid, which needs every table together, is written
 * after the run instead. */
typedef struct {
    const options *opt;
    const trace *tr;
    csv_dir_set *files; /* or NULL */
    const char *sub;
    csv_out_style file_csv; /* --csv-dir's files */
    csv_out_style csv_out;  /* --format csv's standard output */
    csv_stream csv;         /* of csv_out */
    bool layered_known;     /* the styles' layer column set from the
                               trace (put_table's first table) */
    text_stream text;
    bool text_streams; /* the text goes table by table */
    text_style style;
    explain_context notes;
    size_t n;            /* chosen tables that went out */
    check_report report; /* --check, measured over every table */
    focus_stream focus;  /* --focus, begun at the first table */
    bool focus_begun;
} run_output;

/* The CSV styles' layer column, from the model the trace shows
 * (trace_layered): set at the first table, or before the CSV ends. */
void run_output_layered(run_output *o);

/* A trace_sink_fn: table t of the run to every output that wants it. */
int put_table(void *ctx, const table *t, mx_error *err);

/* The text of --layout grid, once the whole trace is made. */
int render_grid_text(FILE *out, const options *opt, const trace *tr,
                     const text_style *style, mx_error *err);

/* The tables the user asked for, in trace order: a new array (*n of
 * them) that the caller frees, or NULL without memory. */
const table **select_tables(const trace *tr, const options *opt, size_t *n);

#endif
