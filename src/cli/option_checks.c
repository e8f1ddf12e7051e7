/* option_checks.c: the checks that need every option (options.h's
 * options_validate): each option given does something in this run and
 * goes with what its row says, sizes fit together, --tables names
 * tables, inputs go together. */
#include "cli/options.h"

#include <stdio.h>
#include <string.h>

#include "base/i18n.h"
#include "model/family.h"
#include "model/lesson/manifest.h"
#include "model/lesson/stack.h"
#include "model/lesson/variants.h"
#include "cli/generate_options.h"
#include "cli/index_list.h"
#include "cli/intervene_options.h"
#include "cli/option_read.h"
#include "cli/table_hint.h"
#include "cli/table_list.h"

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
    size_t n;
    if (table_name_is_grad(name, &n)) {
        char base[64];
        if (n >= sizeof base)
            return 0;
        memcpy(base, name, n);
        base[n] = '\0';
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

/* Why a lesson's option does not go with --model DIR: the message names
 * the attention of the checkpoint's family (causal unless its row says
 * it looks both ways; causal too for a folder whose family is not known
 * yet: the run refuses it later, saying why). */
static const char *checkpoint_fixes(const char *dir)
{
    mx_error ignored;
    const model_family *row =
        family_of(&(run_request){.checkpoint = dir}, &ignored);
    return row != NULL && row->bidirectional
               ? N_("%s: does not go with --model (the checkpoint fixes "
                    "its sizes, parameters, tokens and self-attention, "
                    "which looks both ways)")
               : N_("%s: does not go with --model (the checkpoint fixes "
                    "its sizes, parameters, tokens and causal "
                    "self-attention)");
}

/* Every option given does something in this run, as its row says: a
 * checkpoint's run (--model) takes its sizes, parameters and tokens from
 * the checkpoint, so the lessons' options do not go with it, whatever
 * their value; a lesson's option needs a variant it applies to. Without
 * --variant, a --weights folder not read yet chooses the variants (its
 * model.json's, or its trained ones): their check waits for it
 * (weights_options checks the options again). */
static int validate_applies(const options *opt, mx_error *err)
{
    const bool variants_known =
        opt->weights == NULL || opt->weights_read || opt->given[OPT_VARIANT];
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
                              : checkpoint_fixes(opt->model),
                          flag);
        if (opt->model != NULL || !variants_known ||
            (applies & opt->variants) != 0)
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
    // a trained model's folder stacks its blocks as its model.json says
    if (opt->layers == NULL && opt->block_layers > 0 && opt->average &&
        (opt->variants & variants_taking(TAKES_LAYERS)) != 0)
        return err_usage(err,
                         _("--average: the trained model in %s is a stack "
                           "of %zu blocks (its %s), whose heads are not "
                           "averaged; leave the option out"),
                         opt->weights, opt->block_layers, MANIFEST_NAME);
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
 * options need --train (their rows say so: options_goes_with). */
int options_validate_training(options *opt, mx_error *err)
{
    // the options that go with --train alone are refused without it by
    // their rows (GOES_WITH, options_goes_with)
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
    // the learning rate's default is its row's for the optimizer chosen
    if (!opt->given[OPT_LR])
        opt->training.lr = option_real_default(opt, &option_rows[OPT_LR]);
    const char *other = options_training_conflict(opt);
    if (other != NULL)
        return err_usage(err,
                         _("--train: learns an embedding of the words of "
                           "a sentence, one step at a time; it does not "
                           "go with %s"),
                         other);
    return 0;
}

/* --corpus FILE --column NAME: a lesson model's training texts (with
 * --train), or, with --model, the texts --ablate-mode mean takes each
 * head's mean over (model/intervene/corpus_mean.h). */
static int validate_corpus(const options *opt, mx_error *err)
{
    if (opt->corpus == NULL)
        return 0;
    if (opt->model == NULL && !opt->train)
        return err_usage(err, _("%s: goes with --train N"), "--corpus");
    if (opt->model != NULL &&
        (opt->ablate == NULL || opt->ablate_mode != HOOK_MEAN))
        return err_usage(err,
                         _("--corpus: with --model, the texts --ablate-mode "
                           "mean takes each head's mean over: it goes with "
                           "--ablate and --ablate-mode mean"));
    if (opt->column == NULL)
        return err_usage(err, _("--corpus: say which column holds the "
                                "sentences with --column NAME"));
    return 0;
}

/* Every option given goes with what its row says it goes with
 * (option_list.h's GOES_WITH): one of the options it names is given too,
 * else its row's message. */
int options_goes_with(const options *opt, mx_error *err)
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

/* Every name of --tables is a table of the program; a mistyped one is
 * told the catalogue's name it most likely meant (table_hint.h). */
static int check_table_names(const options *opt, mx_error *err)
{
    for (size_t i = 0; i < opt->n_tables; i++) {
        const char *name = opt->tables[i];
        if (known_table(name, opt->heads, opt->block_layers) ||
            (opt->model != NULL && family_param_name(name)))
            continue;
        const char *meant = table_name_guess(name);
        if (meant != NULL)
            return err_usage(err,
                             _("%s: unknown table '%s' (did you mean %s?)"),
                             "--tables", name, meant);
        return err_usage(err, _("%s: unknown table '%s'"), "--tables", name);
    }
    return 0;
}

/* --heads divides the width each variant's row splits into heads
 * (variants.h): a module of heads apart (the wrapper's) its total width
 * d_out, one projection split by view and transpose (the fused module's)
 * d_out, or, when its attention is d_model wide (the block's: its
 * residual adds the attention's output to its input), d_model; a module
 * of one head (the single's) splits none. The rows are checked in run
 * order. */
static int validate_heads(const options *opt, mx_error *err)
{
    for (size_t i = 0; i < MODEL_N_VARIANTS; i++) {
        if (!(opt->variants & model_variants[i].bit))
            continue;
        const variant_row *row = variant_row_of(model_variants[i].id);
        if (row->heads == HEADS_ONE)
            continue;
        if (row->heads == HEADS_APART && opt->d_out % opt->heads != 0 &&
            opt->d_out * opt->heads > MAX_WIDTH) {
            /* the book's total width would pass the limit: the nearest
             * width the heads divide instead */
            size_t d = opt->d_out / opt->heads * opt->heads;
            return err_usage(err,
                             _("--heads: %zu heads do not divide --d-out %zu, "
                               "the wrapper's total width (--d-out %zu would "
                               "do)"),
                             opt->heads, opt->d_out, d > 0 ? d : opt->heads);
        }
        if (row->heads == HEADS_APART && opt->d_out % opt->heads != 0)
            /* as a 1-column head (see main.c's note), a d_out the heads do
             * not divide suggests the book's wrapper call copied as it is */
            return err_usage(err,
                             _("--heads: %zu heads do not divide --d-out %zu, "
                               "the wrapper's total width; the book's "
                               "MultiHeadAttentionWrapper(d_in, %zu, ..., "
                               "num_heads=%zu) is --d-out %zu"),
                             opt->heads, opt->d_out, opt->d_out, opt->heads,
                             opt->d_out * opt->heads);
        if (row->heads == HEADS_SPLIT && !row->d_model_wide &&
            opt->d_out % opt->heads != 0)
            return err_usage(err,
                             _("--heads: %zu heads do not divide --d-out %zu "
                               "(each head needs d_out / heads columns)"),
                             opt->heads, opt->d_out);
        /* with --embeddings, d_model is the file's width: checked once it
         * is read */
        if (row->heads == HEADS_SPLIT && row->d_model_wide &&
            opt->embeddings == NULL && opt->d_model % opt->heads != 0) {
            /* the next width up the heads divide (down past the range) */
            size_t d = (opt->d_model / opt->heads + 1) * opt->heads;
            if (d > option_rows[OPT_D_MODEL].hi)
                d -= opt->heads;
            return err_usage(err,
                             _("--heads: %zu heads do not divide --d-model "
                               "%zu (the block's attention is d_model wide: "
                               "each head needs d_model / heads columns; "
                               "--d-model %zu would do)"),
                             opt->heads, opt->d_model, d);
        }
    }
    return 0;
}

/* Standard input ("-") read by one of the sentence and the options that
 * read a file of text (--input, --corpus, --embeddings) at most. */
static int validate_stdin(const options *opt, mx_error *err)
{
    const struct {
        bool dash;
        const char *name;
    } readers[] = {
        {opt->sentence_from_stdin, "-"},
        {opt->input != NULL && strcmp(opt->input, "-") == 0, "--input -"},
        {opt->corpus != NULL && strcmp(opt->corpus, "-") == 0, "--corpus -"},
        {opt->embeddings != NULL && strcmp(opt->embeddings, "-") == 0,
         "--embeddings -"},
    };
    const char *first = NULL;
    for (size_t i = 0; i < sizeof readers / sizeof *readers; i++) {
        if (!readers[i].dash)
            continue;
        if (first != NULL)
            return err_usage(err,
                             _("%s and %s: both read standard input; give "
                               "one of them a file"),
                             first, readers[i].name);
        first = readers[i].name;
    }
    return 0;
}

/* Checks that need every option: sizes that fit together, table names,
 * inputs that go together. */
int options_validate(options *opt, mx_error *err)
{
    if (validate_applies(opt, err) != 0 || validate_layers(opt, err) != 0 ||
        validate_attn_only(opt, err) != 0 || options_goes_with(opt, err) != 0 ||
        validate_interventions(opt, err) != 0 ||
        validate_corpus(opt, err) != 0 || validate_stdin(opt, err) != 0)
        return -1;
    if (options_validate_training(opt, err) != 0 ||
        generate_options_validate(opt, err) != 0)
        return -1;
    if (opt->input != NULL && opt->column == NULL)
        return err_usage(err, _("--input: say which column holds the "
                                "sentences with --column NAME"));
    opt->plot_look.scale = opt->color_scale;
    opt->plot_look.ablated = opt->ablate_heads;
    opt->plot_look.n_ablated = opt->n_ablate_heads;
    opt->plot_look.ablate_mode = opt->ablate_mode;
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
    // the delimiter's default is its row's, with or without --decimal-comma
    if (!opt->given[OPT_CSV_DELIMITER])
        opt->csv_delimiter =
            (char)option_int_default(opt, &option_rows[OPT_CSV_DELIMITER]);
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
