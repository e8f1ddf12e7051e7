/* run_files.h: the files of a run (--plot, --html, --csv-dir), put in
 * place together by one transaction (io/outputs.h).
 *
 *   run_files files;
 *   run_files_open(&files, opt, pages, err)     the picture and the pages
 *   run_files_csv(&files, opt, err)             --csv-dir, at the first
 *                                               sentence's run
 *   ... files.plot, files.html, files.csv written ...
 *   run_files_commit(&files, err)               every file in place, or
 *                                               none
 *   ... the text on standard output ...
 *   run_files_end(&files, keep)                 the replaced files dropped
 *                                               (keep) or put back
 *
 * run_files_end follows every run_files_open, whatever failed between.
 */
#ifndef MHA_RUN_FILES_H
#define MHA_RUN_FILES_H

#include <stdbool.h>
#include <stddef.h>

#include "base/error.h"
#include "cli/options.h"
#include "html/html.h"
#include "io/outputs.h"
#include "plot/plot.h"
#include "render/render.h"

typedef struct {
    outputs *tx;      /* NULL when the run writes no file */
    plot_file *plot;  /* --plot, or NULL */
    html_set *html;   /* --html, or NULL */
    csv_dir_set *csv; /* --csv-dir once begun, or NULL */
} run_files;

/* The transaction, --plot's picture of `pages` sentences and --html's
 * pages, for those the options ask for. */
int run_files_open(run_files *files, const options *opt, size_t pages,
                   mx_error *err);

/* --csv-dir's folder, unless begun already or not asked for. */
int run_files_csv(run_files *files, const options *opt, mx_error *err);

/* The picture completed, then every file put in place (outputs_commit). */
int run_files_commit(run_files *files, mx_error *err);

/* outputs_end(keep), and everything freed. */
void run_files_end(run_files *files, bool keep);

#endif
