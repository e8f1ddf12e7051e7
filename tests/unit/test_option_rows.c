/* test_option_rows.c: the option rows (cli/option_list.h) and what is
 * made of them: each default the help text tells is the row's; an option
 * given where its row says it does nothing is a usage error (a lesson's
 * option with a checkpoint's --model, whatever its value; a variant's
 * option without that variant); the live page keeps, as given, the
 * options whose rows it keeps, and cannot repeat a run with one it cannot
 * have; an option whose row says what it goes with is refused alone with
 * its row's message, and not with that message beside one of them; a
 * help that lists the variants names each variant row, and its default
 * the row's. */
#include <ctype.h>
#include <stdbool.h>
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

/* The default the help text tells, "(default N)", is the row's. */
static void help_defaults(void)
{
    for (int id = 0; id < N_OPTIONS; id++) {
        const option_row *o = &option_rows[id];
        const char *d = strstr(o->help, "(default ");
        if (o->type != TYPE_SIZE && o->type != TYPE_OWN)
            continue;
        if (d == NULL || d[9] < '0' || d[9] > '9')
            continue;
        char *end = NULL;
        const unsigned long long told = strtoull(d + 9, &end, 10);
        if (*end != ')')
            continue; /* such as "(default 4 x d_model)" */
        ok(told == o->def, "--%s: the help's default %llu is the row's",
           o->name, told);
    }
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

/* A help filled from the variant rows (--variant) names every variant of
 * VARIANT_LIST, and its "(default ...)" the variants of the row's default
 * and no other; --help prints it in lines of at most OPTION_HELP_WIDTH
 * cells, the default last. */
static void help_lists_variants(void)
{
    size_t rows = 0;
    for (int id = 0; id < N_OPTIONS; id++) {
        const option_row *o = &option_rows[id];
        if (!o->help_lists_variants)
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
        FILE *f = tmpfile();
        if (!ok(f != NULL, "a file for --%s's help", o->name))
            continue;
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
    ok(rows >= 1, "rows whose help lists the variants: %zu", rows);
}

int main(void)
{
    help_defaults();
    help_lists_variants();
    checkpoint_refusals();
    variant_refusals();
    page_uses();
    goes_with();
    return tap_done();
}
