/* options.c: parsing and validating the command line. */
#include "cli/options.h"

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/i18n.h"
#include "model/family.h"
#include "model/lesson/stack.h"
#include "model/lesson/variants.h"
#include "cli/generate_options.h"
#include "cli/index_list.h"
#include "cli/intervene_options.h"
#include "cli/option_guess.h"
#include "cli/option_read.h"
#include "cli/option_table.h"
#include "numerics/workers.h"
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
        else
            return err_usage(err,
                             _("--variant: unknown variant in '%s' (expected "
                               "single, wrapper, fused or block, "
                               "comma-separated)"),
                             text);
        if (p[n] == '\0')
            break;
        p += n + 1;
    }
    *out = set;
    return 0;
}

static int bad_draw(const char *text, mx_error *err)
{
    return err_usage(err,
                     _("--draw: '%s' is not an order of input and the "
                       "variants single, wrapper, fused and block "
                       "(comma-separated, each at most once, at least one "
                       "variant)"),
                     text);
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

/* A param_fn: stops the listing (returns 1) at the parameter whose name
 * ctx (a const char *) points to. */
static int is_named(const param_info *p, void *ctx)
{
    const char *const *name = ctx;
    return strcmp(p->name, *name) == 0;
}

static int known_table(const char *name, size_t heads, size_t layers)
{
    // a gradient (--grad): a known table's name and ".grad"
    const size_t n = strlen(name), suffix = strlen(".grad");
    if (n > suffix && strcmp(name + n - suffix, ".grad") == 0) {
        char base[64];
        if (n - suffix >= sizeof base)
            return 0;
        memcpy(base, name, n - suffix);
        base[n - suffix] = '\0';
        return known_table(base, heads, layers);
    }
    // a table of the catalogue, or a parameter of any variant, biases
    // included
    if (table_by_name(name, strlen(name)) != TABLE_COUNT)
        return 1;
    const model_dims names_only = {.heads = heads, .layers = layers};
    for (size_t i = 0; i < MODEL_N_VARIANTS; i++)
        if (model_params_each(model_variants[i].bit, &names_only, NULL,
                              is_named, &name) != 0)
            return 1;
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

/* The rows' own messages are formats of the option's name: the compiler
 * cannot check a format read from a row; the po test's msgfmt -c checks
 * their translations. */
static int refuse(mx_error *err, const char *msgid, const char *flag)
{
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
    return err_usage(err, _(msgid), flag);
#pragma GCC diagnostic pop
}

/* "single, wrapper or fused": the names of a set of variant_bits. */
static void variant_names(char *out, size_t size, unsigned set)
{
    size_t n = 0, left = 0;
    for (size_t i = 0; i < MODEL_N_VARIANTS; i++)
        left += (set & model_variants[i].bit) != 0;
    out[0] = '\0';
    for (size_t i = 0; i < MODEL_N_VARIANTS; i++) {
        if (!(set & model_variants[i].bit))
            continue;
        left--;
        n += (size_t)snprintf(out + n, n < size ? size - n : 0, "%s%s",
                              model_variants[i].name,
                              left > 1    ? ", "
                              : left == 1 ? " or "
                                          : "");
    }
}

/* Every option given does something in this run, as its row says: a
 * checkpoint's run (--model) takes its sizes, parameters and tokens from
 * the checkpoint, so the lessons' options do not go with it, whatever
 * their value; a lesson's option needs a variant it applies to. */
static int validate_applies(const options *opt, mx_error *err)
{
    for (size_t id = 0; id < N_OPTIONS; id++) {
        const option_row *o = &option_rows[id];
        char flag[40], names[64];
        snprintf(flag, sizeof flag, "--%s", o->name);
        if (!opt->given[id])
            continue;
        const unsigned applies = option_applies(o);
        if (opt->model != NULL && !(applies & APPLIES_CHECKPOINT))
            return refuse(err,
                          o->off_checkpoint != NULL
                              ? o->off_checkpoint
                              : N_("%s: does not go with --model (the "
                                   "checkpoint fixes its sizes, parameters, "
                                   "tokens and causal self-attention)"),
                          flag);
        if (opt->model != NULL || (applies & opt->variants) != 0)
            continue;
        if (o->off_lesson != NULL)
            return refuse(err, o->off_lesson, flag);
        variant_names(names, sizeof names, applies & APPLIES_LESSON);
        return err_usage(err,
                         _("%s: applies to %s, which this run does "
                           "not include"),
                         flag, names);
    }
    return 0;
}

/* --layers: with --model, the checkpoint's layers shown (a list such as
 * 0,3,5-7, as --show-heads its heads); without, N: the lesson's block
 * stacked N times (model/lesson/stack.h), with --variant block. */
static int validate_layers(options *opt, mx_error *err)
{
    if (opt->model != NULL && opt->layers != NULL &&
        index_list_parse(&opt->layer_list, &opt->n_layer_list, opt->layers,
                         "--layers", err) != 0)
        return -1;
    if (opt->model != NULL && opt->show_heads != NULL &&
        index_list_parse(&opt->head_list, &opt->n_head_list, opt->show_heads,
                         "--show-heads", err) != 0)
        return -1;
    if (opt->model != NULL)
        return 0;
    if (opt->layers == NULL)
        return 0;
    if (option_parse_size(&opt->block_layers, "--layers", opt->layers, 1,
                          MAX_STACK_LAYERS, err) != 0)
        return -1;
    if (opt->kv != NULL || opt->average)
        return err_usage(err,
                         _("%s: does not go with --layers (a stack of "
                           "blocks attends over its own sentence, one "
                           "layer after another)"),
                         opt->kv != NULL ? "--kv" : "--average");
    return 0;
}

/* --attn-only: the block has no feed-forward network to size or drop. */
static int validate_attn_only(const options *opt, mx_error *err)
{
    if (opt->attn_only && (opt->given[OPT_FF] || opt->dropout > 0))
        return err_usage(err,
                         _("%s: does not go with --attn-only (the block "
                           "has no feed-forward network)"),
                         opt->given[OPT_FF] ? "--ff" : "--dropout");
    return 0;
}

const char *options_training_conflict(const options *opt)
{
    const struct {
        bool given;
        const char *name;
    } others[] = {
        {opt->embeddings != NULL, "--embeddings"},
        {opt->randn_input, "--randn-input"},
        {opt->input != NULL, "--input"},
        {opt->kv != NULL, "--kv"},
        {opt->n_draw > 0, "--draw"},
        {opt->tie, "--tie"},
        {opt->dropout > 0, "--dropout"},
        {opt->attn_dropout > 0, "--attn-dropout"},
        {opt->batch > 1, "--batch"},
        {opt->model != NULL, "--model"},
    };
    for (size_t i = 0; i < sizeof others / sizeof *others; i++)
        if (others[i].given)
            return others[i].name;
    return NULL;
}

/* --train and the options that go with it. A trained run learns a table
 * of words, so it needs a sentence (not --embeddings, --randn-input or
 * --input), and its steps draw nothing (no dropout, no --draw); its
 * options need --train (their rows say so: validate_goes_with). */
int options_validate_training(options *opt, mx_error *err)
{
    // the options that go with --train alone are refused without it by
    // their rows (GOES_WITH, validate_goes_with)
    if (!opt->train) {
        if (opt->positions && (opt->embeddings != NULL || opt->randn_input ||
                               opt->n_draw > 0 || opt->kv != NULL))
            return err_usage(err,
                             _("--positions: adds learned positions to an "
                               "embedding lookup; it does not go with %s"),
                             opt->embeddings    ? "--embeddings"
                             : opt->randn_input ? "--randn-input"
                             : opt->kv          ? "--kv"
                                                : "--draw");
        return 0;
    }
    if (!opt->given[OPT_LR])
        opt->training.lr =
            opt->training.optimizer == OPTIMIZER_ADAM ? 0.01 : 0.1;
    if (opt->corpus != NULL && opt->column == NULL)
        return err_usage(err, _("--corpus: say which column holds the "
                                "sentences with --column NAME"));
    const char *other = options_training_conflict(opt);
    if (other != NULL)
        return err_usage(err,
                         _("--train: learns an embedding of the words of "
                           "a sentence, one step at a time; it does not "
                           "go with %s"),
                         other);
    return 0;
}

/* Every option given goes with what its row says it goes with
 * (option_list.h's GOES_WITH): one of the options it names is given too,
 * else its row's message. */
static int validate_goes_with(const options *opt, mx_error *err)
{
    for (size_t id = 0; id < N_OPTIONS; id++) {
        const option_goes_with *g = &option_rows[id].goes_with;
        if (g->n == 0 || !opt->given[id])
            continue;
        bool with = false;
        for (size_t i = 0; i < g->n; i++)
            with = with || opt->given[g->with[i]];
        char flag[40];
        snprintf(flag, sizeof flag, "--%s", option_rows[id].name);
        if (!with)
            return refuse(err, g->message, flag);
    }
    return 0;
}

/* Every name of --tables is a table of the program. */
static int check_table_names(const options *opt, mx_error *err)
{
    for (size_t i = 0; i < opt->n_tables; i++)
        if (!known_table(opt->tables[i], opt->heads, opt->block_layers) &&
            !(opt->model != NULL && family_param_name(opt->tables[i])))
            return err_usage(err, _("%s: unknown table '%s'"), "--tables",
                             opt->tables[i]);
    return 0;
}

/* --heads divides the widths it splits: d_out for the wrapper and fused,
 * d_model for the block. */
static int validate_heads(const options *opt, mx_error *err)
{
    /* the single variant has one head of width d_out, so --heads is for
     * the others; the block's attention is d_model wide (its residual adds
     * the attention's output to its input), so --d-out is not for it */
    if ((opt->variants & VARIANT_WRAPPER) && opt->d_out % opt->heads != 0 &&
        opt->d_out * opt->heads > MAX_WIDTH) {
        /* the book's total width would pass the limit: the nearest
         * width the heads divide instead */
        size_t d = opt->d_out / opt->heads * opt->heads;
        return err_usage(err,
                         _("--heads: %zu heads do not divide --d-out %zu, "
                           "the wrapper's total width (--d-out %zu would do)"),
                         opt->heads, opt->d_out, d > 0 ? d : opt->heads);
    }
    if ((opt->variants & VARIANT_WRAPPER) && opt->d_out % opt->heads != 0)
        /* as a 1-column head (see main.c's note), a d_out the heads do not
         * divide suggests the book's wrapper call copied as it is */
        return err_usage(err,
                         _("--heads: %zu heads do not divide --d-out %zu, "
                           "the wrapper's total width; the book's "
                           "MultiHeadAttentionWrapper(d_in, %zu, ..., "
                           "num_heads=%zu) is --d-out %zu"),
                         opt->heads, opt->d_out, opt->d_out, opt->heads,
                         opt->d_out * opt->heads);
    if ((opt->variants & VARIANT_FUSED) && opt->d_out % opt->heads != 0)
        return err_usage(err,
                         _("--heads: %zu heads do not divide --d-out %zu "
                           "(each head needs d_out / heads columns)"),
                         opt->heads, opt->d_out);
    if ((opt->variants & VARIANT_BLOCK) && opt->embeddings == NULL &&
        opt->d_model % opt->heads != 0)
        return err_usage(err,
                         _("--heads: %zu heads do not divide --d-model %zu "
                           "(the block's attention is d_model wide: each "
                           "head needs d_model / heads columns)"),
                         opt->heads, opt->d_model);
    return 0;
}

/* Checks that need every option: sizes that fit together, table names,
 * inputs that go together. */
static int validate(options *opt, mx_error *err)
{
    if (validate_applies(opt, err) != 0 || validate_layers(opt, err) != 0 ||
        validate_attn_only(opt, err) != 0 ||
        validate_goes_with(opt, err) != 0 ||
        validate_interventions(opt, err) != 0)
        return -1;
    if (options_validate_training(opt, err) != 0 ||
        generate_options_validate(opt, err) != 0)
        return -1;
    if (opt->input != NULL && opt->column == NULL)
        return err_usage(err, _("--input: say which column holds the "
                                "sentences with --column NAME"));
    opt->plot_look.scale = opt->color_scale;
    if (opt->given[OPT_PRECISION])
        opt->plot_look.decimals = opt->precision;
    if (opt->input != NULL && opt->embeddings != NULL)
        return err_usage(err,
                         _("--embeddings: cannot be combined with --input"));
    if (opt->explain && opt->focus != NULL)
        return err_usage(err, _("--explain: explains the full tables; it does "
                                "not go with --focus's compact view"));
    if (opt->kv != NULL &&
        (opt->input != NULL || opt->embeddings != NULL || opt->randn_input))
        return err_usage(err,
                         _("--kv: cross-attention takes two sentences, "
                           "not %s"),
                         opt->input         ? "--input"
                         : opt->randn_input ? "--randn-input"
                                            : "--embeddings");
    if (opt->randn_input && opt->embeddings != NULL)
        return err_usage(err, _("--randn-input: draws the input itself; it "
                                "does not go with --embeddings"));
    for (size_t i = 0; opt->embeddings != NULL && i < opt->n_draw; i++)
        if (opt->draw[i] == VARIANT_INPUT)
            return err_usage(err, _("--draw: input draws the input, which "
                                    "--embeddings gives; name only the "
                                    "variants"));
    if (opt->n_draw > 0 && opt->given[OPT_VARIANT]) {
        unsigned set = 0;
        for (size_t i = 0; i < opt->n_draw; i++)
            if (opt->draw[i] != VARIANT_INPUT)
                set |= variant_by_id(opt->draw[i])->bit;
        if (set != opt->variants)
            return err_usage(err, _("--draw: names the variants to run; "
                                    "--variant lists others"));
    }
    if ((opt->tokens == TOKENS_CHARS || opt->rules.lower ||
         opt->rules.punct != PUNCT_KEEP) &&
        opt->embeddings != NULL)
        return err_usage(err,
                         _("%s: the tokens are the embeddings file's labels, "
                           "not a sentence to cut"),
                         opt->tokens == TOKENS_CHARS ? "--tokens"
                         : opt->rules.lower          ? "--lower"
                                                     : "--punct");
    if (opt->torch_style && (opt->format == FORMAT_CSV || opt->focus))
        return err_usage(err,
                         _("--style torch: prints text tables; it does not go "
                           "with %s"),
                         opt->focus != NULL ? "--focus" : "--format csv");
    if (opt->format == FORMAT_CSV && (opt->focus != NULL || opt->explain))
        return err_usage(err,
                         _("%s: a text view; it does not go with "
                           "--format csv"),
                         opt->focus != NULL ? "--focus" : "--explain");
    if (opt->step && opt->format == FORMAT_CSV)
        return err_usage(err, _("--step: pauses between text tables; it "
                                "does not go with --format csv"));
    if (opt->csv_delimiter == '\0')
        opt->csv_delimiter = opt->decimal_comma ? ';' : ',';
    else if (opt->decimal_comma && opt->csv_delimiter == ',')
        return err_usage(err, _("--decimal-comma: numbers like 0,25 need "
                                "another delimiter than ',' (use "
                                "--csv-delimiter ';')"));
    /* the sizes of a --weights folder's trained model (its model.json),
     * and the --tables names that depend on them (heads.3...), are
     * checked once the folder is read (cli/weights_options.h) */
    if (opt->weights != NULL && !opt->weights_read)
        return 0;
    if (validate_heads(opt, err) != 0)
        return -1;
    return check_table_names(opt, err);
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
    const char c = arg[0];
    const bool letter = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
    if (strlen(arg) != 1 || letter || strchr("\"\r\n.0123456789+-", c) ||
        (unsigned char)c >= 0x80)
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
static int parse_own(options *opt, int id, const char *arg, mx_error *err)
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

/* The value of option id, arg, into *opt: by its row, or its own way. */
static int parse_one(options *opt, int id, const char *arg, mx_error *err)
{
    const int rc = option_read(opt, id, arg, err);
    if (rc == 1 && parse_own(opt, id, arg, err) != 0)
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

    const char *file_input =
        opt->input ? "--input" : (opt->embeddings ? "--embeddings" : NULL);
    if (file_input != NULL) {
        if (optind != argc)
            return err_usage(err,
                             _("%s: the input comes from a file, so "
                               "'%s' cannot be a sentence too"),
                             file_input, argv[optind]);
        return validate(opt, err);
    }
    if (opt->patch || opt->repeat_random > 0)
        return patch_sentence(opt, argc - optind, argv[optind], err) != 0
                   ? -1
                   : validate(opt, err);
    if (optind == argc)
        return err_usage(err, _("no sentence given"));
    if (argc - optind == 1 && strcmp(argv[optind], "-") == 0)
        opt->sentence_from_stdin = true;
    else if (join_words(opt, optind, argc, argv, err) != 0)
        return -1;
    return validate(opt, err);
}

int options_validate(options *opt, mx_error *err)
{
    return validate(opt, err);
}

void options_free(options *opt)
{
    if (opt == NULL)
        return;
    for (size_t i = 0; i < opt->n_tables; i++)
        free(opt->tables[i]);
    free(opt->tables);
    free(opt->sentence);
    interventions_free(opt);
    free(opt->layer_list);
    free(opt->head_list);
    opt->layer_list = opt->head_list = NULL;
    opt->n_layer_list = opt->n_head_list = 0;
    opt->tables = NULL;
    opt->n_tables = 0;
    opt->sentence = NULL;
}

int options_wants_table(const options *opt, const char *name)
{
    if (opt->tables == NULL) {
        // the pictures' and the page's tables only when named
        const table_id id = table_by_name(name, strlen(name));
        return id == TABLE_COUNT || !(ON_REQUEST_TABLES & table_bit(id));
    }
    for (size_t i = 0; i < opt->n_tables; i++)
        if (strcmp(opt->tables[i], name) == 0)
            return 1;
    return 0;
}
