/* page_run.h: the command line a live --html page's editor starts from
 * (html_run, docs/html.md), made from the run's options. */
#ifndef MHA_PAGE_RUN_H
#define MHA_PAGE_RUN_H

#include "cli/options.h"
#include "html/html.h"
#include "model/run_request.h"

/* The run of opt over in, as the page's editor shows and recomputes it:
 * the sentence and the settings it edits, and as arguments, as they were
 * given, the options whose rows the page keeps (option_list.h: they
 * change the page's data without being edited). A run with an option the
 * page cannot have (over --embeddings, with --weights, --model, --draw
 * or --tables) is not editable; each sentence of --input is edited as if
 * run alone. */
html_run page_run_of(const options *opt, const model_input *in);

#endif
