/* render.h: turning tables into text and CSV. Renderers know tables and
 * their catalogue rows (model/catalogue.h), not the attention code; they
 * take the tables to print, already chosen. */
#ifndef MHA_RENDER_H
#define MHA_RENDER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "base/error.h"
#include "render/heat.h"
#include "io/outputs.h"
#include "render/textbuf.h"
#include "model/trace.h"

/* PyTorch prints a tensor whole up to this many values, then summarises
 * each dimension longer than 2 * EDGE_ITEMS to its first and last
 * EDGE_ITEMS entries around an ellipsis. */
#define SUMMARY_THRESHOLD 1000
#define EDGE_ITEMS 3

/* Where PyTorch would wrap a long row over many lines, a table keeps one
 * line per row: the columns of a table wider than this are summarised
 * too, however few values it holds. */
#define WIDE_COLUMNS 32

/* Something to print before a table (the --explain notes); prev is the
 * table printed before, or NULL. */
typedef void (*before_table_fn)(FILE *out, const table *t, const table *prev,
                                const void *ctx);

typedef struct {
    int precision;          /* decimals */
    bool full;              /* never summarise */
    bool color;             /* shade attention weights and scores */
    bool truecolor;         /* ... in 24-bit colour, else 256 colours */
    enum color_scale scale; /* --color-scale */
    const trace *trace;     /* the whole run, where attn_weights finds its
                               scores' mask; or NULL */
    size_t width;           /* widest line in cells, 0: no limit */
    bool grid;              /* --layout grid: the same table of the heads
                               side by side where they fit */
    bool page_breaks;       /* --step: a STEP_MARK (step.h) where each step
                               starts */
    before_table_fn before; /* or NULL */
    const void *before_ctx;
} text_style;

/* How CSV is written: the contract's defaults are ',' and '.', no BOM. */
typedef struct {
    char delimiter;     /* field separator */
    bool decimal_comma; /* write 0,25 rather than 0.25 */
    bool bom;           /* start with a UTF-8 byte-order mark */
    bool header;        /* write the header row (tidy CSV) */
    long sentence;      /* >= 0: a leading `sentence` column (--input) */
    bool layer;         /* a `layer` column after `variant` (--model): the
                           checkpoint's layer, empty outside its layers */
    bool step;          /* a `step` column after `layer` (--generate with
                           --kv-steps): the generation step, empty outside
                           the steps */
} csv_out_style;

/* Renders one table in a text style (the table's lines, no blank line). */
typedef int (*render_table_fn)(FILE *out, const table *t,
                               const text_style *style, mx_error *err);

/* Tables one after another, a blank line between (or a step mark where a
 * step starts, with style->page_breaks), style->before (if any) called
 * before each. */
int render_each(FILE *out, const table *const *tables, size_t n,
                const text_style *style, render_table_fn one, mx_error *err);

/* The same, a table at a time as a streamed trace hands them over
 * (trace.h): text_stream_put writes t as render_each would after the
 * tables put before. Each table, with the blank line or step mark and the
 * note before it, is formatted whole in memory and then written at once,
 * so a failure never leaves part of a table on out. */
typedef struct {
    FILE *out;
    const text_style *style;
    render_table_fn one; /* text_table or torch_table */
    const table *prev;   /* the table put before, or NULL */
    FILE *mem;  /* the memory stream each table is formatted in, opened at
                   the first table and rewound for the next (opening one
                   per table would clear a new buffer each time); owned */
    char *text; /* its buffer, owned by mem until text_stream_end */
    size_t len;
} text_stream;

void text_stream_begin(text_stream *s, FILE *out, const text_style *style,
                       render_table_fn one);
int text_stream_put(text_stream *s, const table *t, mx_error *err);
/* Frees what the stream holds (after the last table, or a failure). */
void text_stream_end(text_stream *s);

/* One table as render_text (without --layout grid) and --style torch
 * print it: render_table_fns for text_stream. */
int text_table(FILE *out, const table *t, const text_style *style,
               mx_error *err);
int torch_table(FILE *out, const table *t, const text_style *style,
                mx_error *err);

/* The n tables of one name (a variant's heads in order, or a module's
 * parameters of one shape) side by side as --layout grid prints them,
 * when at least two fit in style->width (*done true); else nothing is
 * written (*done false). */
int text_grid(FILE *out, const table *const *group, size_t n,
              const text_style *style, bool *done, mx_error *err);

/* Aligned tables for a terminal, one after another, a blank line between.
 * With style->grid, the same table of every head of a variant comes
 * together (queries of heads 0, 1, ..., then keys, ...), side by side
 * in rows of as many heads as fit in style->width; where not even two
 * fit, one under another. */
int render_text(FILE *out, const table *const *tables, size_t n,
                const text_style *style, mx_error *err);

/* render_text, counting in *apart the groups of two or more heads' tables
 * printed one under another, since not even two fit side by side. */
int render_text_apart(FILE *out, const table *const *tables, size_t n,
                      const text_style *style, size_t *apart, mx_error *err);

/* --focus: one token across every head of every variant, compactly: its
 * query, key and value, whom it attends to, who attends to it, and its
 * context, then each variant's output. position indexes tokens, the query
 * sequence. With cross (--kv) the keys and values belong to the other
 * sentence, so only the query side is shown.
 *
 * Made a table at a time, as a streamed trace hands them over (trace.h):
 * focus_stream_put takes every table of the run in order, saying whether
 * it is chosen (--tables); a head's block is made from its chosen tables
 * when its last table (head_context) arrives, and a variant's output row
 * is kept until its tables end. focus_stream_end writes the view whole,
 * each line wrapped at style->width. focus_stream_free frees the stream,
 * whatever happened. */
typedef struct {
    const text_style *style;
    size_t position;
    bool cross;
    FILE *mem; /* the view so far, into text */
    char *text;
    size_t len;
    /* the chosen tables of the head being made, by head_table(id) */
    const table *head[HEAD_TABLE_COUNT];
    variant_id variant; /* the variant being made */
    char place[16];     /* where, as table_place writes it ("block.1") */
    float *output;      /* its output row (out or concat_context), or
                           NULL; owned */
    size_t output_cols;
    table_id output_id;
} focus_stream;

int focus_stream_begin(focus_stream *s, const labels *tokens, size_t position,
                       bool cross, const text_style *style, mx_error *err);
int focus_stream_put(focus_stream *s, const table *t, bool chosen,
                     mx_error *err);
int focus_stream_end(focus_stream *s, FILE *out, mx_error *err);
void focus_stream_free(focus_stream *s);

/* The tidy CSV of the contract:
 * variant,head,table,row,row_label,col,col_label,value
 * (with style->layer: variant,layer,head,...; with style->step a step
 * column after layer: variant,layer,step,head,...) */
int render_csv(FILE *out, const table *const *tables, size_t n,
               const csv_out_style *style, mx_error *err);

/* The same, a table at a time (trace.h): the byte-order mark and header
 * come before the first table, or at csv_stream_end when there was none.
 * Everything a table needs in memory is allocated before its first row is
 * written, so a failure never leaves part of a table on out. After a
 * failure, csv_stream_free frees the stream instead of csv_stream_end. */
typedef struct {
    FILE *out;
    const csv_out_style *style;
    bool started; /* the header is written */
    textbuf chunk;
} csv_stream;

void csv_stream_begin(csv_stream *s, FILE *out, const csv_out_style *style);
int csv_stream_put(csv_stream *s, const table *t, mx_error *err);
int csv_stream_end(csv_stream *s, mx_error *err);
void csv_stream_free(csv_stream *s);

/* --csv-dir: one matrix-shaped CSV per table,
 * dir[/sub]/<variant>.<table>.csv or dir[/sub]/<variant>.head<h>.<table>.csv,
 * written as one unit with the run's other files (io/outputs.h).
 * csv_dir_begin makes dir (if missing) and a private temporary folder in
 * it; csv_dir_add writes tables there (sub, such as "sentence0", or
 * NULL); the transaction puts them in place (outputs_commit) or removes
 * them, and the folders it made (outputs_end). csv_dir_end frees the set
 * (NULL: nothing); call it once, even when begin failed. */
typedef struct csv_dir_set csv_dir_set;
int csv_dir_begin(csv_dir_set **set, outputs *tx, const char *dir,
                  mx_error *err);
int csv_dir_add(csv_dir_set *set, const char *sub, const table *const *tables,
                size_t n, const csv_out_style *style, mx_error *err);
/* A file of other bytes (len of them) in the set: dir[/sub]/name. */
int csv_dir_add_file(csv_dir_set *set, const char *sub, const char *name,
                     const char *bytes, size_t len, mx_error *err);
void csv_dir_end(csv_dir_set *set);

/* DIR as the user named it, and whether the set wrote name ("name" in
 * DIR, or "sub/name"): for the warning about the files another run left
 * there (cli/csv_dir_stale.h). */
const char *csv_dir_path(const csv_dir_set *set);
bool csv_dir_wrote(const csv_dir_set *set, const char *name);

/* The whole of it for one set of tables in dir itself, in a transaction
 * of its own. */
int render_csv_dir(const char *dir, const table *const *tables, size_t n,
                   const csv_out_style *style, mx_error *err);

/* The shortest decimal text that reads back (strtod, then float32) as
 * exactly v:
 * "0.3367", "-inf", "12"; with decimal_comma "0,3367". buf must hold 32
 * bytes. */
void format_float_exact(char *buf, size_t size, float v, bool decimal_comma);

#endif
