/* run.h: running the job the command line describes. */
#ifndef MHA_RUN_H
#define MHA_RUN_H

#include "base/error.h"
#include "cli/options.h"

/* Runs the model over the sentence (or standard input's, with "-"), the
 * --embeddings file or every sentence of --input, after the checks that
 * need the terminal (--step) or the disk (--weights), and writes every
 * output. A failed --check is status 3, once everything is written. */
int run_job(const options *opt, mx_error *err);

#endif
