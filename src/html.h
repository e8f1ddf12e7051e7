/* html.h: --html FILE, one self-contained interactive page.
 *
 * The page holds its style, its script (src/page/, compiled into the
 * program) and the run's data as JSON, and asks for nothing from any
 * network. Its views and the DOM contract tests rely on are described in
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

/* Writes the page for every variant of tr that has attention weights to
 * path, under a temporary name first and renamed when complete: the file
 * appears whole or not at all. The same trace gives the same bytes. */
int html_write(const char *path, const trace *tr, const html_page *page,
               mx_error *err);

#endif
