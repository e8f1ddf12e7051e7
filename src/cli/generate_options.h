/* generate_options.h: the options of generation (--generate, --sample,
 * --temperature, --top-k, --top-p, --stop; model/generate.h): the values
 * read by their own rules and the checks of how they go together. */
#ifndef MHA_GENERATE_OPTIONS_H
#define MHA_GENERATE_OPTIONS_H

#include "base/error.h"
#include "cli/options.h"

/* --temperature T (positive, finite) or --top-p P (0 < P <= 1) into
 * *opt. */
int generate_option_parse(options *opt, int id, const char *arg, mx_error *err);

/* The defaults of the values read above, and the checks: the sampling
 * options go with --sample, --sample and --stop with --generate, and with
 * --model --seed goes with --sample (it seeds only the draws). */
int generate_options_validate(options *opt, mx_error *err);

#endif
