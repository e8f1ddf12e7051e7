/* option_table.h: the options of option_list.h as the program uses them:
 * their ids, their rows (what each stores, its default and range, where
 * it applies, what the live page does with it), getopt_long's table and
 * short options, and the --help text.
 */
#ifndef MHA_OPTION_TABLE_H
#define MHA_OPTION_TABLE_H

#include <getopt.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "model/lesson/model.h"
#include "model/lesson/variants.h"

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
#define OPTION(id, name, short_name, section, place, ...) OPT_##id,
#include "cli/option_list.h"
#undef OPTION
    N_OPTIONS
};

/* What an option's value is, and how option_read.c reads it into the
 * field of the options struct its row names. */
enum option_type {
    TYPE_FLAG,        /* no value: the field (a bool) becomes the opposite
                         of its default */
    TYPE_SIZE,        /* a decimal whole number from lo to hi */
    TYPE_PROBABILITY, /* a number P, 0 <= P < 1 (a double) */
    TYPE_RATE,        /* a positive, finite number (a double) */
    TYPE_NAME,        /* a file, folder, column or word: not empty */
    TYPE_TEXT,        /* any text, the empty one included */
    TYPE_WORDS,       /* a text: not empty */
    TYPE_LIST,        /* a list such as 0,3,5-7: not empty */
    TYPE_CHOICE,      /* one of the names of the row's choices */
    TYPE_OWN,         /* read by option_own.c's parser of the option */
};

/* Where an option does something: a set of the lessons' variant_bits
 * (model.h; APPLIES_LESSON: every row of VARIANT_LIST) and
 * APPLIES_CHECKPOINT for a checkpoint's run (--model).
 * An option given where it does nothing is a usage error. */
#define APPLIES_CHECKPOINT (1u << 16)
#define APPLIES_LESSON VARIANTS_ALL
#define APPLIES_ANY (APPLIES_LESSON | APPLIES_CHECKPOINT)
_Static_assert((APPLIES_LESSON & APPLIES_CHECKPOINT) == 0,
               "APPLIES_CHECKPOINT must lie above every variant's bit");

/* What the live page (--html, docs/html.md) does with an option given. */
enum page_use {
    PAGE_NONE,   /* nothing: the option does not shape the page's data */
    PAGE_EDITS,  /* its editor shows and changes the setting */
    PAGE_KEEPS,  /* its editor keeps it as it was given, unedited, and
                    so does the "Open a model" of a --model run's page
                    with each folder and text (mha-run's fixed) */
    PAGE_CANNOT, /* the page cannot repeat the run: not editable */
    PAGE_MODEL,  /* a trained run's page carries its model instead (the
                    training's corpus, the folder it was read from): the
                    editor runs the sentence over that model; any other
                    run's page cannot repeat it */
    PAGE_RUNS,   /* the page of a --model run runs it again, as given,
                    with each folder and text (an intervention: the
                    families core carries them); other pages: nothing */
    PAGE_TEXT,   /* as PAGE_RUNS, and it gives the run's text (--clean):
                    a --model page's text edits it */
    PAGE_MAP,    /* what --ablate all-heads' map measures: the page of a
                    --model run keeps it as given for the run that makes
                    the map again (its families core runs the
                    interventions: page/model_switches.js); a classroom
                    page's core runs none, and drops it */
    /* a view only the families core makes (--logit-lens): the page of a
     * --model run keeps it as given, as PAGE_KEEPS; a classroom page's
     * core cannot make it, so its editor drops it and runs the rest, the
     * view staying the written run's until an edit (the view's script
     * says so: page/lens.js) */
    PAGE_FAMILIES,
};

/* The names a TYPE_CHOICE option takes and the value each one stores. */
typedef struct {
    const char *name;
    int value;
} option_choice;

typedef struct {
    option_choice each[4];
    size_t n;
    /* the message for any other value: with named, "%s" the option's
     * name then "%s" the value; else only the value */
    const char *wrong;
    bool named;
} option_choices;

/* What an option goes with (option_list.h's GOES_WITH): given without
 * any of the n options `with` names, it is refused with message ("%s"
 * its --name). */
typedef struct {
    int with[2];         /* option ids */
    size_t n;            /* 0: it goes alone */
    const char *message; /* untranslated */
} option_goes_with;

/* A default that depends on another option (--lr's on --optimizer's
 * choice, option_list.h's RATE_BY; --csv-delimiter's on the flag
 * --decimal-comma, OWN_BY): the default for each value that option
 * stores. */
typedef struct {
    int by;         /* the id of the TYPE_CHOICE option, or of a flag */
    double each[4]; /* the default for the choice storing value v: each[v];
                       for a flag each[0] without it, each[1] with it; for
                       a character field the character's code */
} option_default_by;

/* A help filled from other rows (option_help.h): its "%s" the names
 * those rows give, so that a new variant or family is named in every
 * language without a new message, and --help adds its default. */
enum help_fill {
    HELP_OWN,      /* its own text, wrapped by hand */
    HELP_VARIANTS, /* the names of every variant (VARIANT_LIST); its
                      default the names of its default's */
    HELP_FAMILIES, /* the checkpoint families, each with the model_types
                      it reads (model/family.h); its default none */
    HELP_PAIRS,    /* the checkpoint families that take a second text
                      (family.h's pairs); its default none */
};

/* One option: a row of option_list.h. */
typedef struct {
    const char *name;          /* the long name, without "--" */
    char short_name;           /* the letter of -x, or 0 */
    enum help_section section; /* where --help shows it */
    int place;                 /* its row in getopt_long's table */

    const char *value;     /* the value's name in --help, or NULL when the
                              option takes no value */
    enum option_type type; /* how its value is read */
    size_t at, size;       /* where it is stored: the offset and size of
                              its field in the options struct (0, 0: a
                              TYPE_OWN option that stores it itself) */
    uint64_t def;          /* the field's default (integer fields; the
                              others start as 0 or NULL) */
    bool real;             /* the field is a double, its default def_real
                              (or, with def_by, its by option's choice's) */
    double def_real;
    const option_default_by *def_by;
    /* A name field that stays NULL when the option is not given, where
     * the code picks the default: the names it picks, as the help tells
     * them (--cmap's: plot_style.h's PLOT_CMAP, and PLOT_CMAP_BOTH_SIGNS
     * for tables of both signs), or NULL. */
    const char *def_name[2];
    size_t lo, hi;                 /* TYPE_SIZE: the range */
    const option_choices *choices; /* TYPE_CHOICE: the names */
    /* A comma-separated list (--tables, --ablate, --layers, ...): given a
     * second time it is refused, as the second list would replace the
     * first and drop its items. */
    bool one_list;

    unsigned applies;           /* where it does something (APPLIES_*) */
    enum variant_takes takes;   /* the lessons' variants it applies to, as
                                   their rows say (variants_taking), added
                                   to applies; TAKES_NOTHING: applies alone */
    const char *off_lesson;     /* the message when given where it does
                               nothing, or NULL for the common one: for a
                               lesson's variants not in the run (no
                               argument) */
    const char *off_checkpoint; /* ... with --model ("%s" the option) */
    enum page_use page;         /* what the live page does with it */
    option_goes_with goes_with; /* the options it needs, or none */
    /* The catalogue's tables (catalogue.h) that a run makes only when
     * this option is given: --tables names the option for one of them
     * that a run without it was asked for (cli/table_hint.h). */
    table_set makes;

    const char *help;      /* its --help text, untranslated */
    enum help_fill filled; /* what its help's "%s" is, from other rows */
} option_row;

extern const option_row option_rows[N_OPTIONS];

/* What getopt_long returns for an option: its short letter when it has
 * one, else OPTION_VAL_BASE + its id (above every letter). */
#define OPTION_VAL_BASE 256

/* getopt_long's table: every option in the order of its place, then the
 * row of zeros that ends it. */
void option_getopt_table(struct option out[N_OPTIONS + 1]);

/* getopt_long's short options: ':' (so that a missing value is told
 * apart), then each short letter, with ':' after one that takes a value.
 * size: at least 2 + 2 * N_OPTIONS. */
void option_short_string(char *out, size_t size);

/* The id of what getopt_long returned (a letter or a val of the table),
 * or -1 for none. */
int option_id_of(int c);

/* The --help text, in the chosen language. */
void options_print_usage(FILE *out);

/* The untranslated heading of --help's section s ("Output:"), or NULL
 * for the section without one. */
const char *option_section_heading(enum help_section s);

/* Where option o does something (APPLIES_*): its row's applies, and the
 * variants whose rows take it. */
unsigned option_applies(const option_row *o);

#endif
