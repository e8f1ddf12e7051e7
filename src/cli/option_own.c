/* option_own.c: the values of the options that no row's type reads
 * (option_own.h): a seed as torch.manual_seed takes it, lists of variants
 * and tables, the picture's file, size and colour map, the CSV
 * delimiter. */
#include "cli/option_own.h"

#include <stdlib.h>
#include <string.h>

#include "base/i18n.h"
#include "cli/generate_options.h"
#include "io/csv_in.h"
#include "render/colormap.h"

/* A seed as torch.manual_seed takes it: -2^63 .. 2^64-1, with an optional
 * sign (+42 is 42); negative values wrap around as two's complement. Only
 * the low 32 bits reach MT19937. */
static int parse_seed(uint64_t *out, const char *text, mx_error *err)
{
    const char *p = text;
    int negative = 0;
    if (*p == '-' || *p == '+') {
        negative = *p == '-';
        p++;
    }
    uint64_t value = 0;
    int ok = *p != '\0';
    for (; *p != '\0' && ok; p++) {
        unsigned digit = (unsigned)(*p - '0');
        if (*p < '0' || *p > '9' || value > (UINT64_MAX - digit) / 10)
            ok = 0;
        else
            value = value * 10 + digit;
    }
    if (ok && negative && value > (UINT64_C(1) << 63))
        ok = 0;
    if (!ok)
        return err_usage(
            err,
            _("%s: '%s' is not a seed (expected a whole number "
              "from -9223372036854775808 to 18446744073709551615)"),
            "--seed", text);
    *out = negative ? (uint64_t)0 - value : value;
    return 0;
}

static int parse_variants(unsigned *out, const char *text, mx_error *err)
{
    unsigned set = 0;
    const char *p = text;
    for (;;) {
        size_t n = strcspn(p, ",");
        const variant_info *v = variant_by_name(p, n);
        if (v != NULL && (set & v->bit))
            return err_usage(err, _("%s: '%.*s' is listed twice in '%s'"),
                             "--variant", (int)n, p, text);
        if (v != NULL)
            set |= v->bit;
        else {
            char names[VARIANT_NAMES_SIZE];
            variant_names_joined(names, sizeof names, VARIANTS_ALL,
                                 VARIANT_NAMES_OR);
            return err_usage(err,
                             _("--variant: unknown variant in '%s' (expected "
                               "%s, comma-separated)"),
                             text, names);
        }
        if (p[n] == '\0')
            break;
        p += n + 1;
    }
    *out = set;
    return 0;
}

static int bad_draw(const char *text, mx_error *err)
{
    char names[VARIANT_NAMES_SIZE];
    variant_names_joined(names, sizeof names, VARIANTS_ALL, VARIANT_NAMES_AND);
    return err_usage(err,
                     _("--draw: '%s' is not an order of input and the "
                       "variants %s (comma-separated, each at most once, at "
                       "least one variant)"),
                     text, names);
}

/* --draw ORDER: input and variant names, each at most once, at least one
 * variant; the variants it names are the run's. */
static int parse_draw(options *opt, const char *text, mx_error *err)
{
    unsigned set = 0;
    bool input = false;
    size_t n_draw = 0;
    const char *p = text;
    for (;;) {
        size_t n = strcspn(p, ",");
        const variant_info *v = variant_by_name(p, n);
        const char *input_name = variant_id_name(VARIANT_INPUT);
        const bool is_input =
            n == strlen(input_name) && strncmp(p, input_name, n) == 0;
        if ((v != NULL && (set & v->bit)) || (is_input && input))
            return err_usage(err, _("%s: '%.*s' is listed twice in '%s'"),
                             "--draw", (int)n, p, text);
        if (v == NULL && !is_input)
            return bad_draw(text, err);
        input = input || is_input;
        set |= v != NULL ? v->bit : 0u;
        opt->draw[n_draw++] = v != NULL ? v->id : VARIANT_INPUT;
        if (p[n] == '\0')
            break;
        p += n + 1;
    }
    if (set == 0)
        return bad_draw(text, err);
    opt->n_draw = n_draw;
    opt->variants = set;
    return 0;
}

/* Splits the comma-separated list into owned names. */
static int parse_tables(options *opt, const char *text, mx_error *err)
{
    for (size_t i = 0; i < opt->n_tables; i++)
        free(opt->tables[i]);
    free(opt->tables);
    opt->tables = NULL;
    opt->n_tables = 0;

    size_t n = 1;
    for (const char *p = text; *p != '\0'; p++)
        n += *p == ',';
    opt->tables = calloc(n, sizeof *opt->tables);
    if (opt->tables == NULL)
        return err_nomem(err, _("the table list"));
    const char *p = text;
    for (size_t i = 0; i < n; i++) {
        size_t len = strcspn(p, ",");
        if (len == 0)
            return err_usage(err, _("%s: empty table name in '%s'"), "--tables",
                             text);
        for (size_t k = 0; k < i; k++)
            if (strlen(opt->tables[k]) == len &&
                strncmp(opt->tables[k], p, len) == 0)
                return err_usage(err, _("%s: '%.*s' is listed twice in '%s'"),
                                 "--tables", (int)len, p, text);
        opt->tables[i] = strndup(p, len);
        if (opt->tables[i] == NULL)
            return err_nomem(err, _("the table list"));
        opt->n_tables++;
        p += len + 1;
    }
    return 0;
}

/* A file, directory or column name: anything but empty. */
static int set_path(const char **out, const char *opt, const char *arg,
                    mx_error *err)
{
    if (arg[0] == '\0')
        return err_usage(err, _("%s: the name is empty"), opt);
    *out = arg;
    return 0;
}

/* One character that can separate CSV fields, or the word "tab": never
 * one that a written number can hold (digits, '.', '+', '-', the letters
 * of "1e-05" and "-inf"; numbers are not quoted), a quote or a line
 * break. */
static int parse_delimiter(char *out, const char *arg, mx_error *err)
{
    if (strcmp(arg, "tab") == 0 || strcmp(arg, "\t") == 0) {
        *out = '\t';
        return 0;
    }
    if (strlen(arg) != 1 || !csv_delimiter_usable(arg[0]))
        return err_usage(err,
                         _("--csv-delimiter: '%s' cannot separate fields "
                           "(expected one ASCII character such as ';' or ',', "
                           "or 'tab')"),
                         arg);
    *out = arg[0];
    return 0;
}

/* --plot FILE: the extension names the format. It starts at the last dot
 * of the file's name, not at its first character: "dir/.png" is a hidden
 * file's name with no extension (so --input's files are named as --html's
 * pages are). */
static int check_plot_name(const char *path, mx_error *err)
{
    static const char *const ext[] = {".png", ".svg", ".pdf",
                                      ".PNG", ".SVG", ".PDF"};
    const char *slash = strrchr(path, '/');
    const char *name = slash != NULL ? slash + 1 : path;
    const char *dot = strrchr(name, '.');
    bool known = false;
    for (size_t i = 0; dot != NULL && i < sizeof ext / sizeof ext[0]; i++)
        known = known || strcmp(dot, ext[i]) == 0;
    if (known && dot > name)
        return 0;
    if (known)
        return err_usage(err,
                         _("--plot: '%s' is an extension without a name: "
                           "name the picture, as in 'heads%s'"),
                         path, dot);
    return err_usage(err, _("--plot: '%s' does not end in .png, .svg or .pdf"),
                     path);
}

/* --cmap NAME: one of the colour maps of colormap.h. */
static int parse_cmap(options *opt, const char *arg, mx_error *err)
{
    colormap m;
    if (colormap_find(&m, arg)) {
        opt->plot_look.cmap = arg;
        return 0;
    }
    char names[512];
    colormap_list(names, sizeof names);
    return err_usage(err,
                     _("--cmap: '%.60s' is not a colour map this program "
                       "knows: %s, each also as NAME_r"),
                     arg, names);
}

/* A side of --plot-size: digits only (leading zeros as the other
 * options take them); SIZE_MAX when too long to read. */
static size_t plot_side(const char *digits, size_t len)
{
    while (len > 1 && digits[0] == '0') {
        digits++;
        len--;
    }
    return len > 9 ? SIZE_MAX : (size_t)strtoul(digits, NULL, 10);
}

/* --plot-size WxH: two whole numbers, each side within the limits. */
static int parse_plot_size(options *opt, const char *arg, mx_error *err)
{
    const char *x = strpbrk(arg, "xX");
    size_t w_len = x != NULL ? (size_t)(x - arg) : 0;
    size_t h_len = x != NULL ? strlen(x + 1) : 0;
    if (w_len == 0 || h_len == 0 || strspn(arg, "0123456789") != w_len ||
        strspn(x + 1, "0123456789") != h_len)
        return err_usage(err,
                         _("--plot-size: '%s' is not WIDTHxHEIGHT in whole "
                           "numbers (such as 1920x1080)"),
                         arg);
    size_t w = plot_side(arg, w_len), h = plot_side(x + 1, h_len);
    if (w < MIN_PLOT_SIDE || w > MAX_PLOT_SIDE || h < MIN_PLOT_SIDE ||
        h > MAX_PLOT_SIDE)
        return err_usage(err,
                         _("--plot-size: %s is out of range (each side %d "
                           "to %d)"),
                         arg, MIN_PLOT_SIDE, MAX_PLOT_SIDE);
    opt->plot_width = w;
    opt->plot_height = h;
    return 0;
}

/* The value of an option of TYPE_OWN (option_list.h), arg, into *opt. */
int option_own_read(options *opt, int id, const char *arg, mx_error *err)
{
    switch (id) {
    case OPT_SEED:
        return parse_seed(&opt->seed, arg, err);
    case OPT_VARIANT:
        return parse_variants(&opt->variants, arg, err);
    case OPT_DRAW:
        return parse_draw(opt, arg, err);
    case OPT_TABLES:
        return parse_tables(opt, arg, err);
    case OPT_PLOT:
        if (set_path(&opt->plot, "--plot", arg, err) != 0)
            return -1;
        return check_plot_name(arg, err);
    case OPT_PLOT_SIZE:
        return parse_plot_size(opt, arg, err);
    case OPT_CMAP:
        return parse_cmap(opt, arg, err);
    case OPT_CSV_DELIMITER:
        return parse_delimiter(&opt->csv_delimiter, arg, err);
    case OPT_TEMPERATURE:
    case OPT_TOP_P:
        return generate_option_parse(opt, id, arg, err);
    default:
        return err_usage(err, _("internal error: option %d not handled"), id);
    }
}
