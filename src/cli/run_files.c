/* run_files.c: a run's files in one transaction (see run_files.h). */
#include "cli/run_files.h"

#include <stdio.h>

#include "cli/csv_dir_stale.h"
#include "cli/option_table.h"

/* Refuses, before the run, a path of option id where no file can go
 * (io/outputs.h: outputs_check_name); whole: the run writes the name
 * itself (one page), not names made from it. A missing folder is left
 * to the making of the file when --csv-dir may make it. */
static int check_path(enum option_id id, const char *path, bool whole,
                      const options *opt, mx_error *err)
{
    char flag[64];
    snprintf(flag, sizeof flag, "--%s", option_rows[id].name);
    return path != NULL ? outputs_check_name(flag, path, whole,
                                             opt->csv_dir != NULL, err)
                        : 0;
}

int run_files_open(run_files *files, const options *opt, size_t pages,
                   mx_error *err)
{
    *files = (run_files){0};
    if (opt->plot == NULL && opt->html == NULL && opt->csv_dir == NULL)
        return 0;
    if (check_path(OPT_PLOT, opt->plot, pages == 1, opt, err) != 0 ||
        check_path(OPT_HTML, opt->html, pages == 1, opt, err) != 0)
        return -1;
    if (outputs_begin(&files->tx, err) != 0)
        return -1;
    if (opt->plot != NULL) {
        files->plot = plot_begin(files->tx, opt->plot, pages, opt->plot_width,
                                 opt->plot_height, err);
        if (files->plot == NULL)
            return -1;
    }
    if (opt->html != NULL)
        return html_open(&files->html, files->tx, opt->html, pages, err);
    return 0;
}

int run_files_csv(run_files *files, const options *opt, mx_error *err)
{
    if (opt->csv_dir == NULL || files->csv != NULL)
        return 0;
    return csv_dir_begin(&files->csv, files->tx, opt->csv_dir, err);
}

int run_files_commit(run_files *files, mx_error *err)
{
    if (files->tx == NULL)
        return 0;
    if (files->plot != NULL && plot_finish(files->plot, err) != 0)
        return -1;
    return outputs_commit(files->tx, err);
}

void run_files_end(run_files *files, bool keep)
{
    plot_free(files->plot);
    html_free(files->html);
    outputs_end(files->tx, keep);
    // the files in place: those of the folder the run did not write
    if (keep)
        csv_dir_warn_stale(stderr, files->csv);
    csv_dir_end(files->csv);
    *files = (run_files){0};
}
