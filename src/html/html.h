/* html.h: --html FILE, one self-contained interactive page.
 *
 * The page holds its style, its script (src/page/, compiled into the
 * program) and the run's data as JSON, and asks for nothing from any
 * network. With --input, one page per sentence. Its views and the DOM contract tests rely on are described in
 * docs/html.md.
 */
#ifndef MHA_HTML_H
#define MHA_HTML_H

#include <stdbool.h>

#include "cli/error.h"
#include "render/explain.h"
#include "render/render.h"
#include "model/trace.h"
#include "plot/plot_style.h"

/* What the page says about the run besides its tables. */
typedef struct {
    bool masked;            /* the causal mask applies (causal, no --kv) */
    bool scaled;            /* scores divided by sqrt(head_dim) */
    const text_style *text; /* the step-through's tables: precision,
                                      full (colour and width are the page's) */
    const explain_context *explain; /* the step-through's notes, with
                                      width EXPLAIN_NO_WRAP */
    const plot_style *look;         /* the matrix view's colours and numbers, as
                               --plot draws them (NULL: the defaults) */
} html_page;

/* The pages of a run: one, or with --input one per sentence. */
typedef struct html_set html_set;

/* Begins `pages` pages: path itself for one page, else
 * "<stem>.sentence<i><ext>" for i = 0 .. pages - 1 (page.html gives
 * page.sentence0.html, ...). Nothing is on disk until html_close. */
int html_open(html_set **set, const char *path, size_t pages, mx_error *err);

/* Writes the next page, for every variant of tr that has attention
 * weights, under a temporary name beside its final one. The same trace
 * gives the same bytes. Called once per page. */
int html_add(html_set *set, const trace *tr, const html_page *page,
             mx_error *err);

/* The end of a run, in three steps so that a run's outputs of every kind
 * go in place together (main.c; replace.h): html_ready checks that every
 * page's name can take it; html_place moves the pages into place, keeping
 * the files they replace (on failure it puts its own back); html_end(keep)
 * then removes the kept files, or (keep false) puts them back and removes
 * every new or unfinished page, and frees the set. html_end may follow
 * any step, or none (NULL: nothing). */
int html_ready(html_set *set, mx_error *err);
int html_place(html_set *set, mx_error *err);
/* After every kind is placed: replace_intact (replace.h). */
int html_intact(const html_set *set, mx_error *err);
void html_end(html_set *set, bool keep);

/* html_ready, html_place and html_end in one: every page in place, or
 * none. Frees the set. */
int html_close(html_set *set, mx_error *err);

/* html_end(set, false): removes the unfinished pages, frees the set. */
void html_discard(html_set *set);

#endif
