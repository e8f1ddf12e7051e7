/* option_guess.c: the message for an unknown option, and a guess. */
#include "cli/option_guess.h"

#include <stdio.h>
#include <string.h>

#include "base/edit_distance.h"
#include "base/i18n.h"

/* Words the notebooks and PyTorch use for options named otherwise here. */
static const struct {
    const char *said, *meant;
} option_aliases[] = {
    {"num-heads", "heads"}, {"n-heads", "heads"},      {"nhead", "heads"},
    {"nheads", "heads"},    {"no-mask", "no-causal"},  {"embed-dim", "d-model"},
    {"d-in", "d-model"},    {"emb-dim", "d-model"},    {"bias", "qkv-bias"},
    {"colour", "color"},    {"decimals", "precision"},
};

#define OPTION_NAME_MAX 64

/* The option name in arg without its dashes and "=value", lower case,
 * '_' read as '-': "--D_Model=3" -> "d-model". */
static void normalise_option(char *out, const char *arg)
{
    arg += strspn(arg, "-");
    size_t n = 0;
    for (; arg[n] != '\0' && arg[n] != '=' && n + 1 < OPTION_NAME_MAX; n++) {
        char c = arg[n];
        out[n] = c == '_' ? '-' : (c >= 'A' && c <= 'Z') ? (char)(c + 32) : c;
    }
    out[n] = '\0';
}

/* The long option (without dashes) that arg most likely meant, or NULL:
 * a known other name for it, the same name spelt with '_' or capitals,
 * or the one name at most a third of its letters (and 1 to 3) away. */
static const char *nearest_option(const struct option *longopts,
                                  const char *arg)
{
    char name[OPTION_NAME_MAX];
    normalise_option(name, arg);
    if (name[0] == '\0')
        return NULL;
    for (size_t i = 0; i < sizeof option_aliases / sizeof option_aliases[0];
         i++)
        if (strcmp(name, option_aliases[i].said) == 0)
            return option_aliases[i].meant;
    const char *best = NULL;
    size_t best_distance = 0;
    for (const struct option *o = longopts; o->name != NULL; o++) {
        size_t d = edit_distance(name, o->name);
        if (best == NULL || d < best_distance) {
            best = o->name;
            best_distance = d;
        }
    }
    size_t limit = strlen(name) / 3;
    limit = limit < 1 ? 1 : limit > 3 ? 3 : limit;
    return best_distance <= limit ? best : NULL;
}

/* The argument getopt was reading when it met the unknown short option
 * c: "-heads" (still current: optind not yet past it) or the previous
 * one. */
static const char *short_cluster(int argc, char **argv, int c)
{
    if (optind < argc && argv[optind][0] == '-' && argv[optind][1] != '-' &&
        strchr(argv[optind] + 1, c) != NULL)
        return argv[optind];
    return argv[optind - 1];
}

/* The long option that "--name=value" names when name takes no value,
 * or NULL. */
static const struct option *given_a_value(const struct option *longopts,
                                          const char *arg, int val)
{
    const char *eq = strchr(arg, '=');
    if (strncmp(arg, "--", 2) != 0 || eq == NULL)
        return NULL;
    const size_t len = (size_t)(eq - arg - 2);
    for (const struct option *o = longopts; o->name != NULL; o++)
        if (o->val == val && o->has_arg == no_argument &&
            strncmp(o->name, arg + 2, len) == 0)
            return o;
    return NULL;
}

/* "--d" starts more than one long option: their list, else 0. */
static int ambiguous_prefix(char *list, size_t size,
                            const struct option *longopts, const char *arg)
{
    if (strncmp(arg, "--", 2) != 0 || arg[2] == '\0')
        return 0;
    const size_t len = strcspn(arg + 2, "=");
    int count = 0;
    list[0] = '\0';
    for (const struct option *o = longopts; o->name != NULL; o++) {
        if (strncmp(o->name, arg + 2, len) != 0)
            continue;
        size_t used = strlen(list);
        snprintf(list + used, size - used, "%s--%s", count ? ", " : "",
                 o->name);
        count++;
    }
    return count > 1;
}

int unknown_option(const struct option *longopts, int argc, char **argv,
                   mx_error *err)
{
    const struct option *flag =
        given_a_value(longopts, argv[optind - 1], optopt);
    if (optopt != 0 && flag != NULL)
        return err_usage(err, _("option '--%s' takes no value"), flag->name);
    char list[512];
    if (optopt == 0 &&
        ambiguous_prefix(list, sizeof list, longopts, argv[optind - 1]))
        return err_usage(err, _("option '%s' is ambiguous: it could be %s"),
                         argv[optind - 1], list);
    if (optopt != 0 && optopt < 256) {
        const char *arg = short_cluster(argc, argv, optopt);
        const char *meant =
            strlen(arg) > 2 ? nearest_option(longopts, arg) : NULL;
        if (meant != NULL)
            return err_usage(err,
                             _("unknown option '%s': long options take "
                               "two dashes (did you mean '--%s'?)"),
                             arg, meant);
        if ((unsigned char)optopt >= 0x80) /* a multi-byte letter, whole */
            return err_usage(err, _("unknown option '%s'"), arg);
        return err_usage(err, _("unknown option '-%c'"), optopt);
    }
    const char *seen = argv[optind - 1];
    const char *meant = nearest_option(longopts, seen);
    if (meant != NULL)
        return err_usage(err, _("unknown option '%s' (did you mean '--%s'?)"),
                         seen, meant);
    return err_usage(err, _("unknown option '%s'"), seen);
}
