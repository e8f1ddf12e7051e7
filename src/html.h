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

#include "error.h"
#include "explain.h"
#include "render.h"
#include "trace.h"

/* What the page says about the run besides its tables. */
typedef struct {
    bool masked;            /* the causal mask applies (causal, no --kv) */
    bool scaled;            /* scores divided by sqrt(head_dim) */
    const text_style *text; /* the step-through's tables: precision,
                                      full (colour and width are the page's) */
    const explain_context *explain; /* the step-through's notes, with
                                      width EXPLAIN_NO_WRAP */
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

/* Renames every page into place and frees the set: the pages appear
 * whole, all together (a failed rename leaves the later ones out). */
int html_close(html_set *set, mx_error *err);

/* Removes the unfinished pages and frees the set (NULL: nothing). */
void html_discard(html_set *set);

#endif
