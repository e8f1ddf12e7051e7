/* option_table.c: getopt_long's table and --help, from option_list.h. */
#include "cli/option_table.h"

#include <assert.h>
#include <stdint.h>
#include <string.h>

#include "base/i18n.h"
#include "cli/option_help.h"
#include "cli/options.h"
#include "model/catalogue.h"
#include "render/textwidth.h"

/* The names of each TYPE_CHOICE option, and the message for others. */
static const option_choices format_choices = {
    {{"text", FORMAT_TEXT}, {"csv", FORMAT_CSV}},
    2,
    N_("%s: unknown format '%s' (expected text or csv)"),
    true,
};
static const option_choices optimizer_choices = {
    {{"sgd", OPTIMIZER_SGD}, {"adam", OPTIMIZER_ADAM}},
    2,
    N_("%s: unknown optimizer '%s' (expected sgd or adam)"),
    true,
};
static const option_choices qkv_order_choices = {
    {{"kqv", QKV_ORDER_KQV}, {"qkv", QKV_ORDER_QKV}},
    2,
    N_("%s: unknown order '%s' (expected kqv or qkv)"),
    true,
};
static const option_choices style_choices = {
    {{"table", false}, {"torch", true}},
    2,
    N_("%s: unknown style '%s' (expected table or torch)"),
    true,
};
static const option_choices number_choices = {
    {{"on", true}, {"off", false}},
    2,
    N_("--numbers: '%s' is not on or off"),
    false,
};
static const option_choices bar_choices = {
    {{"panel", BARS_PANEL}, {"shared", BARS_SHARED}, {"none", BARS_NONE}},
    3,
    N_("--colorbar: '%s' is not panel, shared or none"),
    false,
};
static const option_choices ablate_mode_choices = {
    {{"zero", HOOK_ZERO}, {"mean", HOOK_MEAN}},
    2,
    N_("--ablate-mode: '%s' is not zero or mean"),
    false,
};
static const option_choices metric_choices = {
    {{"loss", METRIC_LOSS},
     {"logit-diff", METRIC_LOGIT_DIFF},
     {"prob", METRIC_PROB}},
    3,
    N_("--metric: '%s' is not loss, logit-diff or prob"),
    false,
};
static const option_choices token_choices = {
    {{"words", TOKENS_WORDS}, {"chars", TOKENS_CHARS}},
    2,
    N_("--tokens: '%s' is not words or chars"),
    false,
};
static const option_choices punct_choices = {
    {{"keep", PUNCT_KEEP}, {"split", PUNCT_SPLIT}, {"drop", PUNCT_DROP}},
    3,
    N_("--punct: '%s' is not keep, split or drop"),
    false,
};
static const option_choices scale_choices = {
    {{"table", SCALE_TABLE}, {"row", SCALE_ROW}, {"fixed", SCALE_FIXED}},
    3,
    N_("--color-scale: '%s' is not table, row or fixed"),
    false,
};
static const option_choices color_choices = {
    {{"auto", COLOR_AUTO}, {"always", COLOR_ALWAYS}, {"never", COLOR_NEVER}},
    3,
    N_("--color: '%s' is not auto, always or never"),
    false,
};
static const option_choices layout_choices = {
    {{"auto", LAYOUT_AUTO}, {"grid", LAYOUT_GRID}, {"stack", LAYOUT_STACK}},
    3,
    N_("--layout: '%s' is not auto, grid or stack"),
    false,
};

/* How option_list.h's rows name their value's type and storage. */
#define FIELD(f) .at = offsetof(options, f), .size = sizeof(((options *)0)->f)
#define FLAG(f, d) .type = TYPE_FLAG, FIELD(f), .def = (d)
#define SIZE(v, f, d, l, h) \
    .value = v, .type = TYPE_SIZE, FIELD(f), .def = (d), .lo = (l), .hi = (h)
#define REAL(d) .real = true, .def_real = (d)
#define PROBABILITY(v, f) \
    .value = v, .type = TYPE_PROBABILITY, FIELD(f), REAL(0)
#define RATE_BY(v, f, by_, ...)                       \
    .value = v, .type = TYPE_RATE, FIELD(f), REAL(0), \
    .def_by = &(const option_default_by)              \
    {                                                 \
        .by = (by_), .each = __VA_ARGS__              \
    }
#define NAME(v, f) .value = v, .type = TYPE_NAME, FIELD(f)
#define TEXT(v, f) .value = v, .type = TYPE_TEXT, FIELD(f)
#define WORDS(v, f) .value = v, .type = TYPE_WORDS, FIELD(f)
#define LIST(v, f) .value = v, .type = TYPE_LIST, FIELD(f), .one_list = true
#define CHOICE(v, f, d, list) \
    .value = v, .type = TYPE_CHOICE, FIELD(f), .def = (d), .choices = &(list)
#define OWN(v, f, d) .value = v, .type = TYPE_OWN, FIELD(f), .def = (d)
#define OWN_VALUE(v) .value = v, .type = TYPE_OWN
#define OWN_REAL(v, f, d) .value = v, .type = TYPE_OWN, FIELD(f), REAL(d)
#define OWN_BY(v, f, by_, ...)              \
    .value = v, .type = TYPE_OWN, FIELD(f), \
    .def_by = &(const option_default_by)    \
    {                                       \
        .by = (by_), .each = __VA_ARGS__    \
    }
#define OWN_NAMED(v, f, ...) \
    .value = v, .type = TYPE_OWN, FIELD(f), .def_name = {__VA_ARGS__}
/* The options an option goes with (one of them), and the message when
 * none is given. */
#define GOES_WITH(msg, ...)                                        \
    .goes_with = {.with = {__VA_ARGS__},                           \
                  .n = sizeof((int[]){__VA_ARGS__}) / sizeof(int), \
                  .message = (msg)}

/* The page's WebAssembly core (src/wasm) prints no --help: there each
 * row's help is set again, to NULL, after the row's own, so that the
 * texts (a fifth of the rows' bytes, and of the page's catalogue) stay
 * out of the page. */
#ifdef MHA_NO_HELP
#define HELP_LEFT_OUT , .help = NULL
_Pragma("clang diagnostic push")
    _Pragma("clang diagnostic ignored \"-Winitializer-overrides\"")
#else
#define HELP_LEFT_OUT
#endif
        const option_row option_rows[N_OPTIONS] = {
#define OPTION(id, name_, short_, section_, place_, ...) \
    [OPT_##id] = {.name = name_,                         \
                  .short_name = short_,                  \
                  .section = SECTION_##section_,         \
                  .place = place_,                       \
                  __VA_ARGS__ HELP_LEFT_OUT},
#include "cli/option_list.h"
#undef OPTION
};
#ifdef MHA_NO_HELP
_Pragma("clang diagnostic pop")
#endif

/* Every place in getopt_long's table is taken once. Places are below 128
 * and may leave gaps: a new option takes a number no row has. In each
 * 64-place word, the sum of the rows' bits equals their OR only when no
 * bit is counted twice. */
#define PLACE_BIT(place, word) \
    ((place) / 64 == (word) ? UINT64_C(1) << ((place) % 64) : UINT64_C(0))
#define OPTION(id, name, short_name, section, place, ...) \
    static_assert((place) >= 0 && (place) < 2 * 64,       \
                  "option_list.h: a place is not below 128");
#include "cli/option_list.h"
#undef OPTION
    static_assert((0
#define OPTION(id, name, short_name, section, place, ...) +PLACE_BIT(place, 0)
#include "cli/option_list.h"
#undef OPTION
                   ) == (0
#define OPTION(id, name, short_name, section, place, ...) | PLACE_BIT(place, 0)
#include "cli/option_list.h"
#undef OPTION
                         ),
                  "option_list.h: two rows take the same place below 64");
static_assert((0
#define OPTION(id, name, short_name, section, place, ...) +PLACE_BIT(place, 1)
#include "cli/option_list.h"
#undef OPTION
               ) == (0
#define OPTION(id, name, short_name, section, place, ...) | PLACE_BIT(place, 1)
#include "cli/option_list.h"
#undef OPTION
                     ),
              "option_list.h: two rows take the same place from 64 to 127");

/* The headings of --help's sections. */
static const char *const section_heading[N_SECTIONS] = {
    [SECTION_MODEL] = N_("Model (the defaults reproduce the classroom "
                         "example):"),
    [SECTION_INPUTS] = N_("Inputs from CSV files:"),
    [SECTION_OUTPUT] = N_("Output:"),
    [SECTION_PICTURES] = N_("Pictures:"),
    [SECTION_TERMINAL] = N_("On a terminal:"),
    [SECTION_TEACHING] = N_("Teaching:"),
    [SECTION_SPEED] = N_("Speed:"),
    [SECTION_GENERAL] = NULL,
};

/* The text before the options and after them, each translated whole. */
static const char *const usage_head =
    N_("Usage: mha-explain [OPTIONS] SENTENCE...\n"
       "       mha-explain [OPTIONS] --embeddings FILE.csv\n"
       "       mha-explain [OPTIONS] --input FILE.csv --column NAME\n"
       "Show every table inside multi-head attention, with PyTorch's numbers.\n"
       "SENTENCE is every non-option argument joined by spaces; '-' reads it\n"
       "from standard input.\n"
       "\n");
static const char *const usage_tail = N_(
    "Exit status: 0 success, 1 the output could not be written, 2 bad usage\n"
    "or input, 3 a --check failed.\n"
    "Example: mha-explain \"O gato sobe no tapete\" --heads 2\n");

/* The tables --tables can name, by kind, from the catalogue. */
static const struct {
    enum table_kind kind;
    const char *heading;
} table_groups[] = {
    {KIND_INPUT, N_("  of the input:")},
    {KIND_PER_HEAD, N_("  of each head:")},
    {KIND_MODULE, N_("  of a module, or of a checkpoint's layer (--model):")},
};

/* The catalogue's names of one kind, comma-separated, in lines of at most
 * 80 columns indented by 4 (the names are ASCII). */
static void print_table_names(FILE *out, enum table_kind kind)
{
    size_t used = 0;
    for (size_t id = 0; id < TABLE_COUNT; id++) {
        const table_info *t = table_info_of((table_id)id);
        if (t->kind != kind)
            continue;
        const size_t n = strlen(t->name);
        if (used > 0 && used + 2 + n + 1 > 80) {
            fputs(",\n", out);
            used = 0;
        } else if (used > 0) {
            fputs(", ", out);
            used += 2;
        }
        if (used == 0)
            used = (size_t)fprintf(out, "    ");
        used += (size_t)fprintf(out, "%s", t->name);
    }
    fputc('\n', out);
}

/* The tables a run can show, as --tables names them. */
static void print_tables(FILE *out)
{
    fprintf(out, "%s\n", _("Tables, as --tables and the CSV name them:"));
    for (size_t g = 0; g < sizeof table_groups / sizeof table_groups[0]; g++) {
        fprintf(out, "%s\n", _(table_groups[g].heading));
        print_table_names(out, table_groups[g].kind);
    }
    fputs(
        _("  the parameters, by their state_dict() names:\n"
          "    W_query.weight, W_key.weight, W_value.weight (and .bias),\n"
          "    heads.H.W_*, out_proj.weight, out_proj.bias; for the block\n"
          "    attention.W_*, norm1.*, ff.0.*, ff.2.*, norm2.*; with --model\n"
          "    the checkpoint's names (h.L.attn.c_attn.weight, ...); with\n"
          "    --train lm_head.weight, and with --grad each one's gradient,\n"
          "    NAME.grad (W_query.weight.grad, lm_head.weight.grad, ...).\n"),
        out);
    fputc('\n', out);
}

void option_getopt_table(struct option out[N_OPTIONS + 1])
{
    /* the rows in the order of their places (the places may leave gaps) */
    int n = 0;
    for (int place = 0; place < 2 * 64; place++) {
        int id = 0;
        while (id < N_OPTIONS && option_rows[id].place != place)
            id++;
        if (id == N_OPTIONS)
            continue;
        const option_row *o = &option_rows[id];
        out[n++] = (struct option){
            .name = o->name,
            .has_arg = o->value != NULL ? required_argument : no_argument,
            .flag = NULL,
            .val = o->short_name != 0 ? o->short_name : OPTION_VAL_BASE + id,
        };
    }
    out[N_OPTIONS] = (struct option){0};
}

void option_short_string(char *out, size_t size)
{
    size_t n = 0;
    out[n++] = ':';
    for (int id = 0; id < N_OPTIONS && n + 3 <= size; id++) {
        if (option_rows[id].short_name == 0)
            continue;
        out[n++] = option_rows[id].short_name;
        if (option_rows[id].value != NULL)
            out[n++] = ':';
    }
    out[n] = '\0';
}

int option_id_of(int c)
{
    if (c >= OPTION_VAL_BASE && c < OPTION_VAL_BASE + N_OPTIONS)
        return c - OPTION_VAL_BASE;
    for (int id = 0; id < N_OPTIONS; id++)
        if (c != 0 && option_rows[id].short_name == c)
            return id;
    return -1;
}

/* The column where the help of every option starts. */
#define HELP_COLUMN 21

/* One option's lines of --help: "  -x, --name VALUE" (VALUE in the
 * reader's language, its width in terminal cells), then its help from
 * HELP_COLUMN, each further line of it indented to that column. */
static void print_option(FILE *out, const option_row *o)
{
    int used = 2;
    fputs("  ", out);
    if (o->short_name != 0)
        used += fprintf(out, "-%c, ", o->short_name);
    used += fprintf(out, "--%s", o->name);
    if (o->value != NULL) {
        const char *value = _(o->value);
        fprintf(out, " %s", value);
        used += 1 + (int)display_width(value);
    }
    if (used > HELP_COLUMN - 2) {
        fputc('\n', out);
        used = 0;
    }
    fprintf(out, "%*s", HELP_COLUMN - used, "");
    if (o->help == NULL) { /* the page's core: no help texts */
        fputc('\n', out);
        return;
    }
    option_help_print(out, o, HELP_COLUMN);
}

const char *option_section_heading(enum help_section s)
{
    return section_heading[s];
}

void options_print_usage(FILE *out)
{
    fputs(_(usage_head), out);
    for (int s = 0; s < N_SECTIONS; s++) {
        if (section_heading[s] != NULL)
            fprintf(out, "%s\n", _(section_heading[s]));
        for (int id = 0; id < N_OPTIONS; id++)
            if (option_rows[id].section == (enum help_section)s)
                print_option(out, &option_rows[id]);
        fputc('\n', out);
    }
    print_tables(out);
    fputs(_(usage_tail), out);
}

unsigned option_applies(const option_row *o)
{
    return o->applies | variants_taking(o->takes);
}
