/* option_guess.h: the message for an option getopt_long did not know:
 * a value given to an option that takes none, an ambiguous shortened
 * name, a long option written with one dash, or the option most likely
 * meant (a known other name, or one a few letters away). */
#ifndef MHA_OPTION_GUESS_H
#define MHA_OPTION_GUESS_H

#include <getopt.h>

#include "base/error.h"

/* Fills err (a usage error) for the unknown option getopt_long just met
 * ('?' returned; optind and optopt as it left them) among argv, whose
 * options are longopts. Returns -1. */
int unknown_option(const struct option *longopts, int argc, char **argv,
                   mx_error *err);

#endif
