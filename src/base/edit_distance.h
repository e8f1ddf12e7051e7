/* edit_distance.h: how far apart two short names are, for the guesses
 * of a mistyped option (cli/option_guess.c) or table (cli/table_hint.c). */
#ifndef MHA_BASE_EDIT_DISTANCE_H
#define MHA_BASE_EDIT_DISTANCE_H

#include <stddef.h>

/* The longest name edit_distance measures, in bytes. */
#define EDIT_NAME_MAX 63

/* The edits (insert, delete, change, swap two neighbours: the
 * Damerau-Levenshtein distance of optimal string alignment) from a to b,
 * or SIZE_MAX when either is longer than EDIT_NAME_MAX. */
size_t edit_distance(const char *a, const char *b);

#endif
