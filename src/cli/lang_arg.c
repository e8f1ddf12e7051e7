/* lang_arg.c: --lang found among the arguments before the options are
 * parsed, skipping every other option's value by the option table. */
#include "cli/lang_arg.h"

#include <stdbool.h>
#include <stddef.h>
#include <string.h>

#include "cli/option_table.h"

/* Whether the long option arg ("--name", no '=') takes the next
 * argument as its value: its name, or a beginning of exactly one name
 * (getopt_long's shortened forms), is an option with a value. */
static bool long_takes_value(const char *arg)
{
    const char *name = arg + 2;
    const size_t len = strlen(name);
    const option_row *match = NULL;
    for (size_t i = 0; i < N_OPTIONS; i++) {
        if (strncmp(option_rows[i].name, name, len) != 0)
            continue;
        if (option_rows[i].name[len] == '\0')
            return option_rows[i].value != NULL; /* the whole name */
        if (match != NULL)
            return false; /* ambiguous: getopt_long refuses it */
        match = &option_rows[i];
    }
    return match != NULL && match->value != NULL;
}

/* Whether the short options arg ("-xyz") end with one that takes the
 * next argument as its value. */
static bool short_takes_value(const char *arg)
{
    for (const char *c = arg + 1; *c != '\0'; c++)
        for (size_t i = 0; i < N_OPTIONS; i++)
            if (option_rows[i].short_name == *c && option_rows[i].value != NULL)
                return c[1] == '\0'; /* else the rest is its value */
    return false;
}

const char *i18n_lang_arg(int argc, char **argv)
{
    const char *lang = NULL;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--") == 0)
            break;
        if (strcmp(a, "--lang") == 0 && i + 1 < argc)
            lang = argv[++i];
        else if (strncmp(a, "--lang=", 7) == 0)
            lang = a + 7;
        else if (strncmp(a, "--", 2) == 0 && strchr(a, '=') == NULL &&
                 long_takes_value(a))
            i++; /* another option's value, such as --kv's sentence */
        else if (a[0] == '-' && a[1] != '-' && a[1] != '\0' &&
                 short_takes_value(a))
            i++;
    }
    return lang;
}
