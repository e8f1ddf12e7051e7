/* options.c: parsing and validating the command line. */
#include "cli/options.h"

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/i18n.h"
#include "model/gpt2/gpt2.h"
#include "model/lesson/stack.h"
#include "model/lesson/variants.h"
#include "cli/option_guess.h"
#include "cli/option_table.h"
#include "numerics/workers.h"
#include "render/colormap.h"

/* A decimal whole number with no sign, spaces or suffix, in [lo, hi]. */
static int parse_size(size_t *out, const char *opt, const char *text, size_t lo,
                      size_t hi, mx_error *err)
{
    size_t value = 0;
    int ok = text[0] != '\0';
    for (const char *p = text; *p != '\0' && ok; p++) {
        if (*p < '0' || *p > '9')
            ok = 0;
        else if (value > (SIZE_MAX - (size_t)(*p - '0')) / 10)
            value = SIZE_MAX; /* saturate: reported as out of range */
        else
            value = value * 10 + (size_t)(*p - '0');
    }
    if (!ok && text[0] == '-' && text[1] != '\0' &&
        strspn(text + 1, "0123456789") == strlen(text + 1))
        return err_usage(err,
                         _("%s: '%s' is out of range (expected %zu to "
                           "%zu)"),
                         opt, text, lo, hi);
    if (!ok) {
        return err_usage(err,
                         _("%s: '%s' is not a whole number (expected %zu "
                           "to %zu)"),
                         opt, text, lo, hi);
    }
    if (value < lo || value > hi) {
        return err_usage(err, _("%s: %s is out of range (expected %zu to %zu)"),
                         opt, text, lo, hi);
    }
    *out = value;
    return 0;
}

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

/* A dropout probability P, 0 <= P < 1, as a decimal number. */
static int parse_probability(double *out, const char *opt, const char *text,
                             mx_error *err)
{
    char *end = NULL;
    errno = 0;
    const double p = strtod(text, &end);
    // (!(p >= 0 && p < 1) also refuses NaN)
    if (end == text || *end != '\0' || errno != 0 || !(p >= 0 && p < 1))
        return err_usage(err,
                         _("%s: '%s' is not a probability (expected a "
                           "number from 0 up to, but not including, 1)"),
                         opt, text);
    *out = p;
    return 0;
}

/* --lr RATE: a positive, finite decimal number. */
static int parse_rate(double *out, const char *text, mx_error *err)
{
    char *end = NULL;
    errno = 0;
    const double r = strtod(text, &end);
    // (!(r > 0) also refuses NaN)
    if (end == text || *end != '\0' || errno != 0 || !(r > 0) || isinf(r))
        return err_usage(err,
                         _("%s: '%s' is not a learning rate (expected a "
                           "positive, finite number)"),
                         "--lr", text);
    *out = r;
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

static void set_defaults(options *opt)
{
    memset(opt, 0, sizeof *opt);
    opt->d_model = 3;
    opt->d_out = 4;
    opt->heads = 2;
    opt->seed = 42;
    opt->causal = true;
    opt->scale = true;
    opt->variants = VARIANT_SINGLE | VARIANT_WRAPPER | VARIANT_FUSED;
    opt->format = FORMAT_TEXT;
    opt->precision = 4;
    opt->batch = 1;
    opt->training.optimizer = OPTIMIZER_ADAM;
    opt->plot_look = plot_style_default();
}

/* A checkpoint's run (--model) takes its sizes, parameters and tokens
 * from the checkpoint; the lessons' options that change them, or that
 * tie or average the lessons' modules, do not go with it. */
static int validate_model(const options *opt, mx_error *err)
{
    if (opt->model == NULL) {
        if (opt->show_heads != NULL)
            return err_usage(err, _("%s: goes with --model DIR"),
                             "--show-heads");
        return 0;
    }
    enum { FIXED, TIES, AVERAGES };
    const struct {
        bool given;
        const char *name;
        int why;
    } others[] = {
        {opt->embeddings != NULL, "--embeddings", FIXED},
        {opt->weights != NULL, "--weights", FIXED},
        {opt->kv != NULL, "--kv", FIXED},
        {opt->tie, "--tie", TIES},
        {opt->average, "--average", AVERAGES},
        {opt->ff != 0, "--ff", FIXED},
        {opt->d_model_given, "--d-model", FIXED},
        {opt->tokens == TOKENS_CHARS, "--tokens", FIXED},
        {opt->rules.lower, "--lower", FIXED},
        {opt->rules.punct != PUNCT_KEEP, "--punct", FIXED},
        {opt->unk, "--unk", FIXED},
        // the checkpoint fixes these (their defaults pass)
        {opt->heads != 2, "--heads", FIXED},
        {opt->d_out != 4, "--d-out", FIXED},
        {opt->seed != 42, "--seed", FIXED},
        {!opt->causal, "--no-causal", FIXED},
        {!opt->scale, "--no-scale", FIXED},
        {opt->qkv_bias, "--qkv-bias", FIXED},
        {opt->variants != (VARIANT_SINGLE | VARIANT_WRAPPER | VARIANT_FUSED),
         "--variant", FIXED},
    };
    for (size_t i = 0; i < sizeof others / sizeof *others; i++) {
        if (!others[i].given)
            continue;
        if (others[i].why == TIES)
            return err_usage(err,
                             _("%s: does not go with --model (it ties the "
                               "lessons' wrapper and fused modules; a "
                               "checkpoint has neither)"),
                             others[i].name);
        if (others[i].why == AVERAGES)
            return err_usage(err,
                             _("%s: does not go with --model (a "
                               "checkpoint's run does not average its "
                               "heads; attn_entropy sums up each head)"),
                             others[i].name);
        return err_usage(err,
                         _("%s: does not go with --model (the checkpoint "
                           "fixes its sizes, parameters, tokens and causal "
                           "self-attention)"),
                         others[i].name);
    }
    return 0;
}

/* --layers N without --model: the lesson's block stacked N times
 * (model/lesson/stack.h), with --variant block. */
static int validate_stack(options *opt, mx_error *err)
{
    if (opt->model != NULL || opt->layers == NULL)
        return 0;
    if (!(opt->variants & variants_taking(TAKES_LAYERS)))
        return err_usage(err, _("--layers: stacks the Transformer block: it "
                                "goes with --variant block, or with --model "
                                "DIR"));
    if (parse_size(&opt->block_layers, "--layers", opt->layers, 1,
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
        {opt->layers != NULL, "--layers"},
    };
    for (size_t i = 0; i < sizeof others / sizeof *others; i++)
        if (others[i].given)
            return others[i].name;
    return NULL;
}

/* --train and the options that go with it. A trained run learns a table
 * of words, so it needs a sentence (not --embeddings, --randn-input or
 * --input), and its steps draw nothing (no dropout, no --draw); its
 * options need --train. */
int options_validate_training(options *opt, mx_error *err)
{
    const struct {
        bool given;
        const char *name;
    } needs_train[] = {
        {opt->lr_given, "--lr"},
        {opt->corpus != NULL, "--corpus"},
        {opt->grad, "--grad"},
        // a trained model's folder makes the run a trained one
        {opt->unk && opt->weights == NULL, "--unk"},
        {opt->qkv_order_given, "--qkv-order"},
    };
    if (!opt->train) {
        for (size_t i = 0; i < sizeof needs_train / sizeof *needs_train; i++)
            if (needs_train[i].given)
                return err_usage(err, _("%s: goes with --train N"),
                                 needs_train[i].name);
        if (opt->training.optimizer != OPTIMIZER_ADAM)
            return err_usage(err, _("%s: goes with --train N"), "--optimizer");
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
    if (!opt->lr_given)
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

/* Every name of --tables is a table of the program. */
static int check_table_names(const options *opt, mx_error *err)
{
    for (size_t i = 0; i < opt->n_tables; i++)
        if (!known_table(opt->tables[i], opt->heads, opt->block_layers) &&
            !(opt->model != NULL && gpt2_param_name(opt->tables[i], NULL)))
            return err_usage(err, _("%s: unknown table '%s'"), "--tables",
                             opt->tables[i]);
    return 0;
}

/* Checks that need every option: sizes that fit together, table names,
 * inputs that go together. */
static int validate(options *opt, mx_error *err)
{
    if (validate_model(opt, err) != 0 || validate_stack(opt, err) != 0)
        return -1;
    if (options_validate_training(opt, err) != 0)
        return -1;
    if (opt->input != NULL && opt->column == NULL)
        return err_usage(err, _("--input: say which column holds the "
                                "sentences with --column NAME"));
    if (opt->column != NULL && opt->input == NULL && opt->corpus == NULL)
        return err_usage(err, _("--column: goes with --input FILE or --corpus "
                                "FILE"));
    if (opt->plot_width != 0 && opt->plot == NULL)
        return err_usage(err, _("--plot-size: goes with --plot FILE"));
    if (opt->plot_look.cmap != NULL && opt->plot == NULL && opt->html == NULL)
        return err_usage(err, _("--cmap: goes with --plot FILE or --html "
                                "FILE"));
    if (opt->plot_look.bars != BARS_AUTO && opt->plot == NULL)
        return err_usage(err, _("--colorbar: goes with --plot FILE"));
    opt->plot_look.scale = opt->color_scale;
    if (opt->precision_given)
        opt->plot_look.decimals = opt->precision;
    if (opt->input != NULL && opt->embeddings != NULL)
        return err_usage(err,
                         _("--embeddings: cannot be combined with --input"));
    if (opt->ff != 0 && !(opt->variants & variants_taking(TAKES_FF)))
        return err_usage(err,
                         _("--ff: sets the feed-forward width of "
                           "--variant block, which this run does not include"));
    if (opt->tie && !(opt->variants & variants_taking(TAKES_TIE)))
        return err_usage(err, _("--tie: ties the fused module to the "
                                "wrapper's heads; add fused to --variant"));
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
    if (opt->n_draw > 0 && opt->variants_given) {
        unsigned set = 0;
        for (size_t i = 0; i < opt->n_draw; i++)
            if (opt->draw[i] != VARIANT_INPUT)
                set |= variant_by_id(opt->draw[i])->bit;
        if (set != opt->variants)
            return err_usage(err, _("--draw: names the variants to run; "
                                    "--variant lists others"));
    }
    if (opt->dropout > 0 && !(opt->variants & variants_taking(TAKES_DROPOUT)))
        return err_usage(err,
                         _("%s: applies to %s, which this run does "
                           "not include"),
                         "--dropout", "block");
    if (opt->attn_dropout > 0 &&
        !(opt->variants & variants_taking(TAKES_ATTN_DROPOUT)))
        return err_usage(err,
                         _("%s: applies to %s, which this run does "
                           "not include"),
                         "--attn-dropout", "single, wrapper or fused");
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
    if (opt->average && !(opt->variants & variants_taking(TAKES_AVERAGE)))
        return err_usage(err, _("--average: averages the heads of the "
                                "wrapper, fused or block; --variant single "
                                "has one head"));
    /* the sizes of a --weights folder's trained model (its model.json)
     * are checked once the folder is read (cli/weights_options.h) */
    if (opt->weights != NULL && !opt->weights_read)
        return check_table_names(opt, err);
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

/* The value of option id (option_list.h), arg, into *opt. */
static int parse_one(options *opt, int id, const char *arg, mx_error *err)
{
    size_t n = 0;
    switch (id) {
    case OPT_D_MODEL:
        opt->d_model_given = true;
        return parse_size(&opt->d_model, "--d-model", arg, 1, MAX_WIDTH, err);
    case OPT_D_OUT:
        return parse_size(&opt->d_out, "--d-out", arg, 1, MAX_WIDTH, err);
    case OPT_HEADS:
        return parse_size(&opt->heads, "--heads", arg, 1, MAX_HEADS, err);
    case OPT_SEED:
        return parse_seed(&opt->seed, arg, err);
    case OPT_NO_CAUSAL:
        opt->causal = false;
        return 0;
    case OPT_NO_SCALE:
        opt->scale = false;
        return 0;
    case OPT_QKV_BIAS:
        opt->qkv_bias = true;
        return 0;
    case OPT_VARIANT:
        opt->variants_given = true;
        return parse_variants(&opt->variants, arg, err);
    case OPT_DRAW:
        return parse_draw(opt, arg, err);
    case OPT_DROPOUT:
        return parse_probability(&opt->dropout, "--dropout", arg, err);
    case OPT_ATTN_DROPOUT:
        return parse_probability(&opt->attn_dropout, "--attn-dropout", arg,
                                 err);
    case OPT_RANDN_INPUT:
        opt->randn_input = true;
        return 0;
    case OPT_POSITIONS:
        opt->positions = true;
        return 0;
    case OPT_TRAIN:
        opt->train = true;
        return parse_size(&opt->training.steps, "--train", arg, 0,
                          TRAIN_MAX_STEPS, err);
    case OPT_LR:
        opt->lr_given = true;
        return parse_rate(&opt->training.lr, arg, err);
    case OPT_OPTIMIZER:
        if (strcmp(arg, "sgd") == 0)
            opt->training.optimizer = OPTIMIZER_SGD;
        else if (strcmp(arg, "adam") == 0)
            opt->training.optimizer = OPTIMIZER_ADAM;
        else
            return err_usage(err,
                             _("%s: unknown optimizer '%s' (expected sgd or "
                               "adam)"),
                             "--optimizer", arg);
        return 0;
    case OPT_CORPUS:
        return set_path(&opt->corpus, "--corpus", arg, err);
    case OPT_GRAD:
        opt->grad = true;
        return 0;
    case OPT_QKV_ORDER:
        opt->qkv_order_given = true;
        if (strcmp(arg, "kqv") == 0)
            opt->training.qkv_order = QKV_ORDER_KQV;
        else if (strcmp(arg, "qkv") == 0)
            opt->training.qkv_order = QKV_ORDER_QKV;
        else
            return err_usage(err,
                             _("%s: unknown order '%s' (expected kqv or "
                               "qkv)"),
                             "--qkv-order", arg);
        return 0;
    case OPT_BATCH:
        return parse_size(&opt->batch, "--batch", arg, 1, MAX_BATCH, err);
    case OPT_TABLES:
        return parse_tables(opt, arg, err);
    case OPT_FORMAT:
        if (strcmp(arg, "text") == 0)
            opt->format = FORMAT_TEXT;
        else if (strcmp(arg, "csv") == 0)
            opt->format = FORMAT_CSV;
        else
            return err_usage(err,
                             _("%s: unknown format '%s' (expected text "
                               "or csv)"),
                             "--format", arg);
        return 0;
    case OPT_PRECISION:
        if (parse_size(&n, "--precision", arg, 0, MAX_PRECISION, err) != 0)
            return -1;
        opt->precision = (int)n;
        opt->precision_given = true;
        return 0;
    case OPT_FULL:
        opt->full = true;
        return 0;
    case OPT_STYLE:
        if (strcmp(arg, "table") != 0 && strcmp(arg, "torch") != 0)
            return err_usage(err,
                             _("%s: unknown style '%s' (expected table or "
                               "torch)"),
                             "--style", arg);
        opt->torch_style = strcmp(arg, "torch") == 0;
        return 0;
    case OPT_CSV_DIR:
        return set_path(&opt->csv_dir, "--csv-dir", arg, err);
    case OPT_HTML:
        return set_path(&opt->html, "--html", arg, err);
    case OPT_PLOT:
        if (set_path(&opt->plot, "--plot", arg, err) != 0)
            return -1;
        return check_plot_name(arg, err);
    case OPT_PLOT_SIZE:
        return parse_plot_size(opt, arg, err);
    case OPT_CMAP:
        return parse_cmap(opt, arg, err);
    case OPT_NUMBERS:
        if (strcmp(arg, "on") != 0 && strcmp(arg, "off") != 0)
            return err_usage(err, _("--numbers: '%s' is not on or off"), arg);
        opt->plot_look.numbers = strcmp(arg, "on") == 0;
        return 0;
    case OPT_COLORBAR:
        if (strcmp(arg, "panel") == 0)
            opt->plot_look.bars = BARS_PANEL;
        else if (strcmp(arg, "shared") == 0)
            opt->plot_look.bars = BARS_SHARED;
        else if (strcmp(arg, "none") == 0)
            opt->plot_look.bars = BARS_NONE;
        else
            return err_usage(err,
                             _("--colorbar: '%s' is not panel, shared or "
                               "none"),
                             arg);
        return 0;
    case OPT_EMBEDDINGS:
        return set_path(&opt->embeddings, "--embeddings", arg, err);
    case OPT_INPUT:
        return set_path(&opt->input, "--input", arg, err);
    case OPT_COLUMN:
        return set_path(&opt->column, "--column", arg, err);
    case OPT_WEIGHTS:
        return set_path(&opt->weights, "--weights", arg, err);
    case OPT_CSV_DELIMITER:
        return parse_delimiter(&opt->csv_delimiter, arg, err);
    case OPT_DECIMAL_COMMA:
        opt->decimal_comma = true;
        return 0;
    case OPT_BOM:
        opt->bom = true;
        return 0;
    case OPT_TIE:
        opt->tie = true;
        return 0;
    case OPT_CHECK:
        opt->check = true;
        return 0;
    case OPT_AVERAGE:
        opt->average = true;
        return 0;
    case OPT_QUIET:
        opt->quiet = true;
        return 0;
    case OPT_EXPLAIN:
        opt->explain = true;
        return 0;
    case OPT_FOCUS:
        return set_path(&opt->focus, "--focus", arg, err);
    case OPT_FF:
        return parse_size(&opt->ff, "--ff", arg, 1, 4 * MAX_WIDTH, err);
    case OPT_THREADS:
        return parse_size(&opt->threads, "--threads", arg, 1, MAX_THREADS, err);
    case OPT_WIDTH:
        opt->width_given = true;
        return parse_size(&opt->width, "--width", arg, 0, MAX_SCREEN_WIDTH,
                          err);
    case OPT_KV:
        opt->kv = arg;
        return 0;
    case OPT_LANG:
        opt->lang = arg;
        return 0;
    case OPT_MODEL:
        return set_path(&opt->model, "--model", arg, err);
    case OPT_LAYERS:
    case OPT_SHOW_HEADS:
        if (arg[0] == '\0')
            return err_usage(err,
                             _("%s: the list is empty (give one such as "
                               "0,3,5-7)"),
                             id == OPT_LAYERS ? "--layers" : "--show-heads");
        *(id == OPT_LAYERS ? &opt->layers : &opt->show_heads) = arg;
        return 0;
    case OPT_TOKENS:
        if (strcmp(arg, "words") == 0)
            opt->tokens = TOKENS_WORDS;
        else if (strcmp(arg, "chars") == 0)
            opt->tokens = TOKENS_CHARS;
        else
            return err_usage(err, _("--tokens: '%s' is not words or chars"),
                             arg);
        return 0;
    case OPT_LOWER:
        opt->rules.lower = true;
        return 0;
    case OPT_PUNCT:
        if (strcmp(arg, "keep") == 0)
            opt->rules.punct = PUNCT_KEEP;
        else if (strcmp(arg, "split") == 0)
            opt->rules.punct = PUNCT_SPLIT;
        else if (strcmp(arg, "drop") == 0)
            opt->rules.punct = PUNCT_DROP;
        else
            return err_usage(err, _("--punct: '%s' is not keep, split or drop"),
                             arg);
        return 0;
    case OPT_UNK:
        opt->unk = true;
        return 0;
    case OPT_COLOR_SCALE:
        if (strcmp(arg, "table") == 0)
            opt->color_scale = SCALE_TABLE;
        else if (strcmp(arg, "row") == 0)
            opt->color_scale = SCALE_ROW;
        else if (strcmp(arg, "fixed") == 0)
            opt->color_scale = SCALE_FIXED;
        else
            return err_usage(err,
                             _("--color-scale: '%s' is not table, row or "
                               "fixed"),
                             arg);
        return 0;
    case OPT_COLOR:
        if (strcmp(arg, "auto") == 0)
            opt->color = COLOR_AUTO;
        else if (strcmp(arg, "always") == 0)
            opt->color = COLOR_ALWAYS;
        else if (strcmp(arg, "never") == 0)
            opt->color = COLOR_NEVER;
        else
            return err_usage(err,
                             _("--color: '%s' is not auto, always or "
                               "never"),
                             arg);
        return 0;
    case OPT_LAYOUT:
        if (strcmp(arg, "auto") == 0)
            opt->layout = LAYOUT_AUTO;
        else if (strcmp(arg, "grid") == 0)
            opt->layout = LAYOUT_GRID;
        else if (strcmp(arg, "stack") == 0)
            opt->layout = LAYOUT_STACK;
        else
            return err_usage(
                err, _("--layout: '%s' is not auto, grid or stack"), arg);
        return 0;
    case OPT_NO_PAGER:
        opt->no_pager = true;
        return 0;
    case OPT_STEP:
        opt->step = true;
        return 0;
    case OPT_HELP:
        opt->show_help = true;
        return 0;
    case OPT_VERSION:
        opt->show_version = true;
        return 0;
    default:
        return err_usage(err, _("internal error: option %d not handled"), id);
    }
}

int options_parse(options *opt, int argc, char **argv, mx_error *err)
{
    set_defaults(opt);
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
        if (option_id_of(c) >= 0)
            opt->given[option_id_of(c)] = true;
        if (parse_one(opt, option_id_of(c), optarg, err) != 0)
            return -1;
    }
    if (opt->show_help || opt->show_version)
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
