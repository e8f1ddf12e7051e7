/* option_read.h: an option's value read by its row of option_list.h
 * (option_table.h): the whole numbers, probabilities, rates, names,
 * lists and choices, each into the field the row names, and every
 * field's default. option_own.c reads the options of TYPE_OWN. */
#ifndef MHA_OPTION_READ_H
#define MHA_OPTION_READ_H

#include <stddef.h>

#include "base/error.h"
#include "cli/options.h"

/* Clears *opt, then sets each field a row stores to the row's default
 * (but a default that depends on another option's choice: below). */
void option_defaults(options *opt);

/* The default of row o's real field: its def_real or, for a row with
 * def_by, the one of the choice its by option holds in opt (--lr's with
 * the --optimizer chosen). */
double option_real_default(const options *opt, const option_row *o);

/* The default of row o's integer field: its def or, for a row with
 * def_by, the one of the value its by option holds in opt
 * (--csv-delimiter's with or without --decimal-comma). */
uint64_t option_int_default(const options *opt, const option_row *o);

/* Reads arg, the value of option id (NULL for an option without one),
 * into the field of its row. Returns 0 when done, 1 for an option of
 * TYPE_OWN (untouched: the caller reads it), -1 with err set (a usage
 * error) for a value the row does not take. */
int option_read(options *opt, int id, const char *arg, mx_error *err);

/* A decimal whole number with no sign, spaces or suffix, in [lo, hi],
 * for the option named opt ("--heads"). */
int option_parse_size(size_t *out, const char *opt, const char *text, size_t lo,
                      size_t hi, mx_error *err);

#endif
