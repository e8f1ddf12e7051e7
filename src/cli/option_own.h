/* option_own.h: the values of the options of TYPE_OWN
 * (option_list.h), which no row's type reads: --seed, --variant, --draw,
 * --tables, --plot, --plot-size, --cmap, --csv-delimiter, and generation's
 * --temperature and --top-p (generate_options.h). */
#ifndef MHA_OPTION_OWN_H
#define MHA_OPTION_OWN_H

#include "base/error.h"
#include "cli/options.h"

/* Reads arg, the value of option id (of TYPE_OWN), into *opt. On a value
 * the option does not take fills err (a usage error) and returns -1. */
int option_own_read(options *opt, int id, const char *arg, mx_error *err);

#endif
