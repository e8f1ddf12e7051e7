/* page_run.h: the command line a live --html page's editor starts from
 * (html_run, docs/html.md), made from the run's options. */
#ifndef MHA_PAGE_RUN_H
#define MHA_PAGE_RUN_H

#include "cli/options.h"
#include "html/html.h"
#include "model/pipeline.h"

/* The run of opt over in, as the page's editor shows and recomputes it:
 * the sentence and the settings it edits, and as arguments the options
 * that change the page's data without being edited (--precision, --full,
 * the colours, --average, --tie, --ff, the dropout, --randn-input,
 * --batch). A run the editor cannot repeat (over --embeddings, with
 * --weights, --model, --draw or --tables) is not editable; each sentence
 * of --input is edited as if run alone. */
html_run page_run_of(const options *opt, const model_input *in);

#endif
