/* option_parse.c: the command line read into an options struct
 * (options.h's options_parse): each option by its row (option_read.c) or
 * its own way (option_own.c), the words left the sentence, then every
 * check (option_checks.c). */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "base/i18n.h"
#include "cli/intervene_options.h"
#include "cli/option_guess.h"
#include "cli/option_own.h"
#include "cli/option_read.h"
#include "cli/options.h"
#include "cli/table_list.h"

/* Joins argv[first..argc) with single spaces. */
static int join_words(options *opt, int first, int argc, char **argv,
                      mx_error *err)
{
    size_t len = 0;
    for (int i = first; i < argc; i++)
        len += strlen(argv[i]) + 1;
    opt->sentence = malloc(len + 1);
    if (opt->sentence == NULL)
        return err_nomem(err, _("the sentence"));
    char *w = opt->sentence;
    for (int i = first; i < argc; i++) {
        size_t n = strlen(argv[i]);
        if (i > first)
            *w++ = ' ';
        memcpy(w, argv[i], n);
        w += n;
    }
    *w = '\0';
    return 0;
}

/* The value of option id, arg, into *opt: by its row, or its own way. */
static int parse_one(options *opt, int id, const char *arg, mx_error *err)
{
    if (id >= 0 && id < N_OPTIONS && option_rows[id].one_list && opt->given[id])
        return err_usage(err,
                         _("--%s: given twice; give one list, "
                           "comma-separated (the second would replace "
                           "the first)"),
                         option_rows[id].name);
    const int rc = option_read(opt, id, arg, err);
    if (rc == 1 && option_own_read(opt, id, arg, err) != 0)
        return -1;
    if (rc < 0)
        return -1;
    opt->given[id] = true;
    opt->arg[id] = arg;
    return 0;
}

int options_parse(options *opt, int argc, char **argv, mx_error *err)
{
    option_defaults(opt);
    opterr = 0; /* our messages, not getopt's */
    optind = 0; /* 0, not 1: GNU getopt then forgets any earlier parse */
    struct option longopts[N_OPTIONS + 1];
    char shorts[2 + 2 * N_OPTIONS];
    option_getopt_table(longopts);
    option_short_string(shorts, sizeof shorts);
    int c;
    while ((c = getopt_long(argc, argv, shorts, longopts, NULL)) != -1) {
        const char *seen = argv[optind - 1];
        if (c == '?')
            return unknown_option(longopts, argc, argv, err);
        if (c == ':')
            return err_usage(err, _("option '%s' needs a value"), seen);
        if (parse_one(opt, option_id_of(c), optarg, err) != 0)
            return -1;
    }
    opt->train = opt->given[OPT_TRAIN];
    if (opt->show_help || opt->show_version || opt->show_man)
        return 0;
    // --tables' names as the run's model names its tables
    if (table_list_read(&opt->tables_read, (const char *const *)opt->tables,
                        opt->n_tables, opt->model != NULL, err) != 0)
        return -1;

    const char *file_input =
        opt->input ? "--input" : (opt->embeddings ? "--embeddings" : NULL);
    if (file_input != NULL) {
        if (optind != argc)
            return err_usage(err,
                             _("%s: the input comes from a file, so "
                               "'%s' cannot be a sentence too"),
                             file_input, argv[optind]);
        if (patch_file_input(opt, file_input, err) != 0)
            return -1;
        return options_validate(opt, err);
    }
    if (opt->patch || opt->repeat_random > 0)
        return patch_sentence(opt, argc - optind, argv[optind], err) != 0
                   ? -1
                   : options_validate(opt, err);
    // an option that goes with another says so, rather than that the
    // sentence is missing
    if (optind == argc &&
        (options_goes_with(opt, err) != 0 || patch_parts_alone(opt, err) != 0))
        return -1;
    if (optind == argc)
        return err_usage(err, _("no sentence given"));
    if (argc - optind == 1 && strcmp(argv[optind], "-") == 0)
        opt->sentence_from_stdin = true;
    else if (join_words(opt, optind, argc, argv, err) != 0)
        return -1;
    return options_validate(opt, err);
}
