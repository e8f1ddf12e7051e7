/* option_table.h: the options of option_list.h as the program uses them:
 * their ids, getopt_long's table and short options, and the --help text.
 */
#ifndef MHA_OPTION_TABLE_H
#define MHA_OPTION_TABLE_H

#include <getopt.h>
#include <stdio.h>

/* The sections of --help, in its order; SECTION_GENERAL has no heading. */
enum help_section {
    SECTION_MODEL,
    SECTION_INPUTS,
    SECTION_OUTPUT,
    SECTION_PICTURES,
    SECTION_TERMINAL,
    SECTION_TEACHING,
    SECTION_SPEED,
    SECTION_GENERAL,
    N_SECTIONS
};

/* One id per option (OPT_D_MODEL, ...), in option_list.h's order. */
enum option_id {
#define OPTION(id, name, short_name, value, section, place, help) OPT_##id,
#include "cli/option_list.h"
#undef OPTION
    N_OPTIONS
};

/* One option: a row of option_list.h. */
typedef struct {
    const char *name;          /* the long name, without "--" */
    char short_name;           /* the letter of -x, or 0 */
    const char *value;         /* the value's name in --help, or NULL when
                                  the option takes no value */
    enum help_section section; /* where --help shows it */
    int place;                 /* its row in getopt_long's table */
    const char *help;          /* its --help text, untranslated */
} option_row;

extern const option_row option_rows[N_OPTIONS];

/* What getopt_long returns for an option: its short letter when it has
 * one, else OPTION_VAL_BASE + its id (above every letter). */
#define OPTION_VAL_BASE 256

/* getopt_long's table: every option in the order of its place, then the
 * row of zeros that ends it. */
void option_getopt_table(struct option table[N_OPTIONS + 1]);

/* getopt_long's short options: ':' (so that a missing value is told
 * apart), then each short letter, with ':' after one that takes a value.
 * size: at least 2 + 2 * N_OPTIONS. */
void option_short_string(char *out, size_t size);

/* The id of what getopt_long returned (a letter or a val of the table),
 * or -1 for none. */
int option_id_of(int c);

/* The --help text, in the chosen language. */
void options_print_usage(FILE *out);

#endif
