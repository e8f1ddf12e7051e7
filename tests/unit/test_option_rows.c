/* test_option_rows.c: the option rows (cli/option_list.h) and what is
 * made of them: each default the help text tells is the row's (a whole
 * number, a real one, one for each choice of another option, a choice's
 * name), and the parsed options hold the rows' defaults; an option
 * given where its row says it does nothing is a usage error (a lesson's
 * option with a checkpoint's --model, whatever its value; a variant's
 * option without that variant); the live page keeps, as given, the
 * options whose rows it keeps, and cannot repeat a run with one it cannot
 * have; an option whose row says what it goes with is refused alone with
 * its row's message, and not with that message beside one of them; a
 * help that lists the variants names each variant row, and its default
 * the row's (also --csv-delimiter's with --decimal-comma and --cmap's
 * maps); the helps that list the model families (--model, --pair)
 * name the family rows. */
#include <ctype.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cli/option_help.h"
#include "cli/option_table.h"
#include "cli/options.h"
#include "cli/page_run.h"
#include "tap.h"

/* A value row o takes (its lowest, its first name, ...), or NULL for a
 * flag. */
static const char *a_value(const option_row *o, int id, char *buf, size_t n)
{
    static const char *const own[N_OPTIONS] = {
        [OPT_SEED] = "7",       [OPT_VARIANT] = "wrapper",
        [OPT_DRAW] = "wrapper", [OPT_TABLES] = "out",
        [OPT_PLOT] = "p.svg",   [OPT_PLOT_SIZE] = "100x100",
        [OPT_CMAP] = "magma",   [OPT_CSV_DELIMITER] = ";",
    };
    switch (o->type) {
    case TYPE_FLAG:
        return NULL;
    case TYPE_SIZE:
        snprintf(buf, n, "%zu", o->lo > 0 ? o->lo : 1);
        return buf;
    case TYPE_PROBABILITY:
    case TYPE_RATE:
        return "0.5";
    case TYPE_CHOICE:
        return o->choices->each[o->choices->n - 1].name;
    case TYPE_OWN:
        return own[id];
    default:
        return "x";
    }
}

/* Parses "mha-explain ARGS... the cat" (args NULL-terminated); err
 * the error, if any. */
static int parse_err(options *opt, const char *const *args, mx_error *err)
{
    static char words[16][64];
    char *argv[16];
    int argc = 0;
    snprintf(words[argc], sizeof words[argc], "mha-explain");
    for (; *args != NULL && argc < 14; args++)
        snprintf(words[++argc], sizeof words[0], "%s", *args);
    snprintf(words[++argc], sizeof words[0], "the cat");
    for (int i = 0; i <= argc; i++)
        argv[i] = words[i];
    argv[++argc] = NULL;
    *err = (mx_error){0};
    return options_parse(opt, argc, argv, err) == 0 ? 0 : err->status;
}

static int parse(options *opt, const char *const *args)
{
    mx_error err;
    return parse_err(opt, args, &err);
}

/* The last "(default ...)" of row o's help, its words one space apart
 * ("0.01 with adam, 0.1 with sgd"), into out; false when it tells none. */
static bool help_default(char *out, size_t size, const option_row *o)
{
    const char *d = NULL;
    for (const char *p = strstr(o->help, "(default "); p != NULL;
         p = strstr(p + 1, "(default "))
        d = p + strlen("(default ");
    if (d == NULL)
        return false;
    size_t n = 0;
    for (; *d != ')' && *d != '\0' && n + 1 < size; d++)
        if (!isspace((unsigned char)*d))
            out[n++] = *d;
        else if (n > 0 && out[n - 1] != ' ')
            out[n++] = ' ';
    out[n] = '\0';
    return true;
}

/* The number at the start of text, read whole up to a space, ',' or ';'
 * (strtod's), into *v; false when text does not start with one. */
static bool number_at(double *v, const char *text)
{
    char *end;
    if (!isdigit((unsigned char)text[0]))
        return false;
    *v = strtod(text, &end);
    return *end == '\0' || *end == ' ' || *end == ',' || *end == ';';
}

/* A whole-number row (SIZE, OWN): the help tells its default, or words
 * ("none", "4 x d_model") when the row's is 0, none. */
static void whole_default(const option_row *o, const char *told)
{
    double v;
    char *end;
    const unsigned long long n = strtoull(told, &end, 10);
    if (number_at(&v, told) && *end == '\0')
        ok(n == o->def, "--%s: the help's default %llu is the row's", o->name,
           n);
    else
        ok(o->def == 0,
           "--%s: the help's default '%s' is words: the row's "
           "is 0 (%llu)",
           o->name, told, (unsigned long long)o->def);
}

/* A real row: the help tells its number; one whose default goes with
 * another option's choice tells "A with NAME" for each choice. */
static void real_default(const option_row *o, const char *told)
{
    double v;
    if (o->def_by == NULL) {
        ok(number_at(&v, told) && v == o->def_real,
           "--%s: the help's default '%s' is the row's %g", o->name, told,
           o->def_real);
        return;
    }
    const option_choices *c = option_rows[o->def_by->by].choices;
    for (size_t k = 0; k < c->n; k++) {
        char with[40];
        snprintf(with, sizeof with, " with %s", c->each[k].name);
        const char *at = strstr(told, with);
        const char *num = at;
        while (num != NULL && num > told && num[-1] != ' ')
            num--;
        const double want = o->def_by->each[c->each[k].value];
        ok(at != NULL && number_at(&v, num) && v == want,
           "--%s: the help's default with %s is the row's %g", o->name,
           c->each[k].name, want);
    }
}

/* A choice: the help names the choice of the row's default, when the
 * default is one of the choices (an automatic one, such as --colorbar's,
 * is told in words). */
static void choice_default(const option_row *o, const char *told)
{
    const char *name = NULL;
    for (size_t k = 0; k < o->choices->n; k++)
        if ((uint64_t)o->choices->each[k].value == o->def)
            name = o->choices->each[k].name;
    if (name == NULL)
        return;
    const size_t n = strcspn(told, " ;,");
    ok(strlen(name) == n && strncmp(told, name, n) == 0,
       "--%s: the help's default '%s' is the row's %s", o->name, told, name);
}

/* A character row whose default goes with a flag (--csv-delimiter's
 * with --decimal-comma): the help tells "'X', 'Y' with --FLAG". */
static void flag_default(const option_row *o, const char *told)
{
    const option_row *by = &option_rows[o->def_by->by];
    char first[8], with[64];
    snprintf(first, sizeof first, "'%c'", (char)o->def_by->each[0]);
    snprintf(with, sizeof with, "'%c' with --%s", (char)o->def_by->each[1],
             by->name);
    ok(by->type == TYPE_FLAG && strncmp(told, first, strlen(first)) == 0 &&
           strstr(told, with) != NULL,
       "--%s: the help's default '%s' is the row's %s, %s", o->name, told,
       first, with);
}

/* A name the code picks when the option is not given (--cmap's): the
 * help tells the row's first name, then its second. */
static void named_default(const option_row *o, const char *told)
{
    const size_t n = strcspn(told, " ;,");
    ok(strlen(o->def_name[0]) == n && strncmp(told, o->def_name[0], n) == 0 &&
           (o->def_name[1] == NULL || strstr(told + n, o->def_name[1])),
       "--%s: the help's default '%s' is the row's %s, %s", o->name, told,
       o->def_name[0], o->def_name[1] != NULL ? o->def_name[1] : "");
}

/* Every default the help text tells, "(default ...)", is the row's: a
 * whole number, a real number (one for each choice of the option it goes
 * with), a choice's name. (A flag's default is its absence, which its
 * help tells in words: off, causal; a name, text or list has none.) */
static void help_defaults(void)
{
    size_t told_rows = 0;
    for (int id = 0; id < N_OPTIONS; id++) {
        const option_row *o = &option_rows[id];
        char told[160];
        if (!help_default(told, sizeof told, o))
            continue;
        if (o->real) {
            real_default(o, told);
        } else if (o->def_by != NULL) {
            flag_default(o, told);
        } else if (o->def_name[0] != NULL) {
            named_default(o, told);
        } else if (o->type == TYPE_CHOICE) {
            choice_default(o, told);
        } else if ((o->type == TYPE_SIZE || o->type == TYPE_OWN) &&
                   o->size > 0) {
            whole_default(o, told);
        } else {
            continue;
        }
        told_rows++;
    }
    ok(told_rows >= 30, "the help tells the defaults of %zu valued rows",
       told_rows);
}

/* A lesson's option with --model is a usage error, whatever its value:
 * its default value too. */
static void checkpoint_refusals(void)
{
    for (int id = 0; id < N_OPTIONS; id++) {
        const option_row *o = &option_rows[id];
        if (option_applies(o) & APPLIES_CHECKPOINT)
            continue;
        char flag[40], buf[32];
        snprintf(flag, sizeof flag, "--%s", o->name);
        const char *v = a_value(o, id, buf, sizeof buf);
        const char *args[] = {"--model", "dir", flag, v, NULL};
        options opt;
        ok(parse(&opt, args) == 2, "%s %s with --model: a usage error", flag,
           v != NULL ? v : "");
        options_free(&opt);
    }
}

/* An option for some variants only, given without them. */
static void variant_refusals(void)
{
    for (int id = 0; id < N_OPTIONS; id++) {
        const option_row *o = &option_rows[id];
        const unsigned lessons = option_applies(o) & APPLIES_LESSON;
        if (lessons == APPLIES_LESSON)
            continue;
        const variant_info *other = NULL;
        for (size_t i = 0; i < MODEL_N_VARIANTS; i++)
            if (!(lessons & model_variants[i].bit))
                other = &model_variants[i];
        char flag[40], buf[32];
        snprintf(flag, sizeof flag, "--%s", o->name);
        const char *v = a_value(o, id, buf, sizeof buf);
        const char *args[] = {"--variant", other->name, flag, v, NULL};
        options opt;
        ok(parse(&opt, args) == 2, "%s without %s: a usage error", flag,
           lessons != 0 ? "its variants" : "--model");
        options_free(&opt);
    }
}

/* The page keeps the options its rows keep, as given, and is not
 * editable with one it cannot have. */
static void page_uses(void)
{
    const char *const keeps[] = {"--precision=06",
                                 "--full",
                                 "--color-scale=row",
                                 "--numbers=off",
                                 "--tie",
                                 "--average",
                                 "--randn-input",
                                 "--attn-dropout=0.250",
                                 "--batch=2",
                                 NULL};
    options opt;
    ok(parse(&opt, keeps) == 0, "the page's kept options parse");
    const model_input in = {.sentence = opt.sentence};
    html_run run = page_run_of(&opt, &in);
    bool same = run.editable && run.n_fixed == 9;
    for (size_t i = 0; same && keeps[i] != NULL; i++) {
        bool found = false;
        for (size_t k = 0; k < run.n_fixed; k++)
            found = found || strcmp(run.fixed[k], keeps[i]) == 0;
        same = found;
    }
    ok(same, "the page keeps each kept option as it was given");
    options_free(&opt);
    for (int id = 0; id < N_OPTIONS; id++) {
        const option_row *o = &option_rows[id];
        if (o->page != PAGE_CANNOT || id == OPT_EMBEDDINGS || id == OPT_MODEL)
            continue; /* (those two take no sentence, or another run) */
        char flag[40], buf[32];
        snprintf(flag, sizeof flag, "--%s", o->name);
        const char *v = a_value(o, id, buf, sizeof buf);
        const char *args[] = {
            flag, v,          v != NULL && id == OPT_CORPUS ? "--train" : NULL,
            "1",  "--column", "s",
            NULL};
        if (parse(&opt, args) != 0) {
            ok(0, "%s parses", flag);
            continue;
        }
        const model_input in2 = {.sentence = opt.sentence};
        run = page_run_of(&opt, &in2);
        ok(!run.editable, "%s: the page cannot repeat the run", flag);
        options_free(&opt);
    }
}

/* A --model run's page repeats its intervention as given: the options
 * whose rows say PAGE_RUNS, in the rows' order (--answer and --wrong:
 * PAGE_MAP), and --clean's argument
 * as its text (PAGE_TEXT); none of them is kept in fixed. */
static void page_interventions(void)
{
    /* (no sentence: --patch's texts are --clean's and --corrupt's) */
    char words[][16] = {"mha-explain", "--model", "m",        "--wrong",
                        " b",          "--patch", "--clean",  "a b",
                        "--corrupt",   "b a",     "--answer", " a"};
    char *argv[13];
    for (size_t i = 0; i < 12; i++)
        argv[i] = words[i];
    argv[12] = NULL;
    options opt;
    mx_error err = {0};
    if (options_parse(&opt, 12, argv, &err) != 0) {
        ok(0, "a --model run with --patch parses: %s", err.msg);
        return;
    }
    const model_input in = {.sentence = opt.sentence};
    const html_run run = page_run_of(&opt, &in);
    const char *const want[][2] = {{"patch", NULL}, {"corrupt", "b a"}};
    bool same = run.n_runs == 2 && run.n_map == 2;
    for (size_t k = 0; same && k < 2; k++)
        same =
            strcmp(run.runs[k].name, want[k][0]) == 0 &&
            (want[k][1] == NULL ? run.runs[k].arg == NULL
                                : run.runs[k].arg != NULL &&
                                      strcmp(run.runs[k].arg, want[k][1]) == 0);
    ok(same, "the page of --model --patch repeats its options as given");
    ok(run.text_as != NULL && strcmp(run.text_as, "clean") == 0,
       "its text is --clean's");
    ok(run.n_fixed == 0, "none of them is kept in fixed");
    options_free(&opt);
}

/* Whether run keeps word in fixed. */
static bool fixed_has(const html_run *run, const char *word)
{
    for (size_t k = 0; k < run->n_fixed; k++)
        if (strcmp(run->fixed[k], word) == 0)
            return true;
    return false;
}

/* A view only the families core makes (PAGE_FAMILIES: --logit-lens):
 * the page of a --model run keeps it as given; a trained lesson block's
 * page drops it from its editor's command line, which stays editable. */
static void page_families(void)
{
    size_t n = 0;
    for (int id = 0; id < N_OPTIONS; id++) {
        const option_row *o = &option_rows[id];
        if (o->page != PAGE_FAMILIES)
            continue;
        n++;
        char flag[40], buf[32], word[80];
        snprintf(flag, sizeof flag, "--%s", o->name);
        const char *v = a_value(o, id, buf, sizeof buf);
        if (v != NULL)
            snprintf(word, sizeof word, "%s=%s", flag, v);
        else
            snprintf(word, sizeof word, "%s", flag);
        const char *checkpoint[] = {"--model", "m", flag, v, NULL};
        const char *lesson[] = {"--variant", "block", "--train",  "1",
                                "--corpus",  "c.csv", "--column", "s",
                                "--d-model", "4",     flag,       v,
                                NULL};
        options opt;
        if (parse(&opt, checkpoint) != 0) {
            ok(0, "%s with --model parses", flag);
            continue;
        }
        const model_input in = {.sentence = opt.sentence};
        html_run run = page_run_of(&opt, &in);
        ok(fixed_has(&run, word), "%s: a --model run's page keeps it", flag);
        options_free(&opt);
        if (parse(&opt, lesson) != 0) {
            ok(0, "%s with a trained block parses", flag);
            continue;
        }
        const model_input in2 = {.sentence = opt.sentence};
        run = page_run_of(&opt, &in2);
        ok(run.editable && !fixed_has(&run, word),
           "%s: a lesson page's editor runs without it", flag);
        options_free(&opt);
    }
    ok(n > 0, "a row says PAGE_FAMILIES");
}

/* A row's GOES_WITH: alone, the option is refused with its row's message
 * (which names it); with one of the options it goes with, not so. */
static void goes_with(void)
{
    size_t rows = 0;
    for (int id = 0; id < N_OPTIONS; id++) {
        const option_row *o = &option_rows[id];
        if (o->goes_with.n == 0)
            continue;
        rows++;
        char flag[40], buf[32], wflag[40], wbuf[32], want[160];
        snprintf(flag, sizeof flag, "--%s", o->name);
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
        snprintf(want, sizeof want, o->goes_with.message, flag);
#pragma GCC diagnostic pop
        const char *v = a_value(o, id, buf, sizeof buf);
        const char *alone[] = {flag, v, NULL};
        options opt;
        mx_error err;
        const int rc = parse_err(&opt, alone, &err);
        options_free(&opt);
        ok(rc == 2 && strcmp(err.msg, want) == 0 &&
               strncmp(err.msg, flag, strlen(flag)) == 0,
           "%s alone: '%s'", flag, err.msg);
        for (size_t i = 0; i < o->goes_with.n; i++) {
            const option_row *w = &option_rows[o->goes_with.with[i]];
            snprintf(wflag, sizeof wflag, "--%s", w->name);
            const char *wv =
                a_value(w, o->goes_with.with[i], wbuf, sizeof wbuf);
            const char *with[] = {wflag, wv != NULL ? wv : flag,
                                  wv != NULL ? flag : v, wv != NULL ? v : NULL,
                                  NULL};
            parse_err(&opt, with, &err);
            options_free(&opt);
            ok(strcmp(err.msg, want) != 0, "%s with %s: not '%s'", flag, wflag,
               want);
        }
    }
    ok(rows >= 10, "%zu rows say what they go with", rows);
}

/* Whether word is in the n bytes of text, between characters that are
 * not part of a name. */
static bool has_word(const char *text, size_t n, const char *word)
{
    const size_t w = strlen(word);
    for (size_t i = 0; i + w <= n; i++) {
        const bool before = i == 0 || !(isalnum((unsigned char)text[i - 1]) ||
                                        text[i - 1] == '_');
        const bool after =
            i + w == n ||
            !(isalnum((unsigned char)text[i + w]) || text[i + w] == '_');
        if (before && after && strncmp(text + i, word, w) == 0)
            return true;
    }
    return false;
}

/* --help prints o's filled help in lines of at most OPTION_HELP_WIDTH
 * cells, the last ending with its default tag. */
static void printed_wrapped(const option_row *o, const char *tag)
{
    FILE *f = tmpfile();
    if (!ok(f != NULL, "a file for --%s's help", o->name))
        return;
    option_help_print(f, o, 0);
    rewind(f);
    char line[OPTION_HELP_SIZE], last[OPTION_HELP_SIZE] = "";
    size_t lines = 0, widest = 0;
    while (fgets(line, sizeof line, f) != NULL) {
        line[strcspn(line, "\n")] = '\0';
        lines++;
        widest = strlen(line) > widest ? strlen(line) : widest;
        snprintf(last, sizeof last, "%s", line);
    }
    fclose(f);
    ok(lines >= 2 && widest <= OPTION_HELP_WIDTH,
       "--%s: %zu lines, at most %d columns wide (%zu)", o->name, lines,
       OPTION_HELP_WIDTH, widest);
    ok(strlen(last) >= strlen(tag) &&
           strcmp(last + strlen(last) - strlen(tag), tag) == 0,
       "--%s: its last line ends with '%s'", o->name, tag);
}

/* A help filled from the variant rows (--variant) names every variant of
 * VARIANT_LIST, and its "(default ...)" the variants of the row's default
 * and no other; --help prints it in lines of at most OPTION_HELP_WIDTH
 * cells, the default last. */
static void help_lists_variants(void)
{
    size_t rows = 0;
    for (int id = 0; id < N_OPTIONS; id++) {
        const option_row *o = &option_rows[id];
        if (o->filled != HELP_VARIANTS)
            continue;
        rows++;
        char text[OPTION_HELP_SIZE];
        option_help_text(text, sizeof text, o);
        const char *tag = strstr(text, "(default ");
        const char *end = tag != NULL ? strchr(tag, ')') : NULL;
        if (!ok(end != NULL && end[1] == '\0',
                "--%s: '%s' ends with its default", o->name, text))
            continue;
        for (size_t i = 0; i < MODEL_N_VARIANTS; i++) {
            const variant_info *v = &model_variants[i];
            ok(has_word(text, (size_t)(tag - text), v->name),
               "--%s: its help names %s", o->name, v->name);
            const bool told = has_word(tag, (size_t)(end - tag), v->name);
            ok(told == ((o->def & v->bit) != 0),
               "--%s: its default %s %s, as the row's", o->name,
               told ? "names" : "leaves out", v->name);
        }
        printed_wrapped(o, tag);
    }
    ok(rows >= 1, "rows whose help lists the variants: %zu", rows);
}

/* The helps filled from the family rows (model/family.h): --model's
 * names every checkpoint family with the model_types it reads, --pair's
 * the families that take a second text (BERT's) and no other; both end
 * with "(default none)", wrapped as --variant's. */
static void help_lists_families(void)
{
    static const char *const families[] = {"GPT-2", "Llama-style", "BERT",
                                           NULL};
    static const char *const types[] = {"gpt2",    "llama", "qwen2",
                                        "mistral", "bert",  NULL};
    const char *none = "(default none)";
    char text[OPTION_HELP_SIZE];
    const option_row *model = &option_rows[OPT_MODEL];
    ok(model->filled == HELP_FAMILIES, "--model's help names the families");
    option_help_text(text, sizeof text, model);
    for (const char *const *f = families; *f != NULL; f++)
        ok(strstr(text, *f) != NULL, "--model: its help names %s", *f);
    for (const char *const *t = types; *t != NULL; t++)
        ok(has_word(text, strlen(text), *t),
           "--model: its help names the model_type %s", *t);
    ok(strstr(text, "GPT-2 (gpt2), Llama-style (llama, qwen2, mistral), "
                    "BERT (bert)") != NULL,
       "--model: '%s' lists each family with its model_types", text);
    printed_wrapped(model, none);
    const option_row *pair = &option_rows[OPT_PAIR];
    ok(pair->filled == HELP_PAIRS, "--pair's help names its families");
    option_help_text(text, sizeof text, pair);
    ok(strncmp(text, "with a BERT --model,", 20) == 0 &&
           strstr(text, "GPT-2") == NULL && strstr(text, "Llama") == NULL,
       "--pair: '%s' names BERT alone", text);
    printed_wrapped(pair, none);
}

/* A run's options hold their rows' real defaults: --temperature's and
 * --top-p's, and with --train the learning rate of the optimizer
 * chosen; and the delimiter of the row's default with and without
 * --decimal-comma. */
static void parsed_defaults(void)
{
    options opt;
    const char *none[] = {NULL};
    if (ok(parse(&opt, none) == 0, "a run without options parses"))
        ok(opt.temperature == option_rows[OPT_TEMPERATURE].def_real &&
               opt.top_p == option_rows[OPT_TOP_P].def_real,
           "its --temperature %g and --top-p %g are the rows'", opt.temperature,
           opt.top_p);
    options_free(&opt);
    const option_choices *c = option_rows[OPT_OPTIMIZER].choices;
    for (size_t k = 0; k < c->n; k++) {
        const char *args[] = {"--train", "1", "--optimizer", c->each[k].name,
                              NULL};
        if (!ok(parse(&opt, args) == 0, "--train 1 --optimizer %s parses",
                c->each[k].name))
            continue;
        const double want = option_rows[OPT_LR].def_by->each[c->each[k].value];
        ok(opt.training.lr == want, "its learning rate %g is the row's %g",
           opt.training.lr, want);
        options_free(&opt);
    }
    const option_default_by *by = option_rows[OPT_CSV_DELIMITER].def_by;
    for (int comma = 0; comma <= 1; comma++) {
        const char *args[] = {comma ? "--decimal-comma" : NULL, NULL};
        if (!ok(parse(&opt, args) == 0, "a run %s --decimal-comma parses",
                comma ? "with" : "without"))
            continue;
        ok(by != NULL && opt.csv_delimiter == (char)by->each[comma],
           "its delimiter '%c' is the row's", opt.csv_delimiter);
        options_free(&opt);
    }
}

int main(void)
{
    help_defaults();
    parsed_defaults();
    help_lists_variants();
    help_lists_families();
    checkpoint_refusals();
    variant_refusals();
    page_uses();
    page_interventions();
    page_families();
    goes_with();
    return tap_done();
}
