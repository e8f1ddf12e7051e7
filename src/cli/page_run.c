/* page_run.c: the editor's command line of a live --html page. */
#include "cli/page_run.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Appends one argument (printf-style) to run's fixed arguments; one that
 * does not fit makes the run not editable. */
#if defined(__GNUC__) || defined(__clang__)
__attribute__((format(printf, 2, 3)))
#endif
static void
add_arg(html_run *run, const char *fmt, ...)
{
    if (run->n_fixed == HTML_RUN_FIXED) {
        run->editable = false;
        return;
    }
    va_list ap;
    va_start(ap, fmt);
    const int n = vsnprintf(run->fixed[run->n_fixed], HTML_RUN_ARG, fmt, ap);
    va_end(ap);
    if (n < 0 || n >= HTML_RUN_ARG)
        run->editable = false; /* too long to keep whole */
    else
        run->n_fixed++;
}

/* A --model run's intervention as given, which its page runs again with
 * each folder and text: the options whose rows say PAGE_RUNS, and the
 * one PAGE_TEXT gives the text to (its argument is the text). */
static void page_run_interventions(html_run *run, const options *opt)
{
    if (opt->model == NULL)
        return;
    for (size_t id = 0; id < N_OPTIONS; id++) {
        const option_row *o = &option_rows[id];
        if (!opt->given[id] || (o->page != PAGE_RUNS && o->page != PAGE_TEXT))
            continue;
        if (o->page == PAGE_TEXT) {
            run->text_as = o->name;
        } else if (run->n_runs == HTML_RUN_FIXED) {
            run->editable = false;
        } else {
            run->runs[run->n_runs].name = o->name;
            run->runs[run->n_runs++].arg = opt->arg[id];
        }
    }
}

/* A real default as the shortest decimal that reads back as it, with a
 * ".0" when it is whole ("1.0", "0.01"), as the help texts write it. */
static void real_text(char *out, size_t size, double v)
{
    for (int digits = 1; digits <= 17; digits++) {
        snprintf(out, size, "%.*g", digits, v);
        if (strtod(out, NULL) == v)
            break;
    }
    if (strpbrk(out, ".e") == NULL && strlen(out) + 2 < size)
        strcat(out, ".0");
}

/* Adds a default of the option named name (with the choice of another
 * option it goes with, or NULL). */
#if defined(__GNUC__) || defined(__clang__)
__attribute__((format(printf, 4, 5)))
#endif
static void
add_default(html_run *run, const char *name, const char *choice,
            const char *fmt, ...)
{
    if (run->n_defaults == HTML_RUN_DEFAULTS)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(run->defaults[run->n_defaults].value, HTML_RUN_DEFAULT, fmt, ap);
    va_end(ap);
    run->defaults[run->n_defaults].name = name;
    run->defaults[run->n_defaults++].choice = choice;
}

/* The defaults of the options the editor edits (PAGE_EDITS), as their
 * rows give them: a whole number (not 0, which is none), a choice's
 * name, a real number, or one for each choice of the option it goes
 * with (--lr's). Flags, texts and lists have none to show. */
static void page_run_defaults(html_run *run)
{
    for (size_t id = 0; id < N_OPTIONS; id++) {
        const option_row *o = &option_rows[id];
        char text[HTML_RUN_DEFAULT];
        if (o->page != PAGE_EDITS || o->filled == HELP_VARIANTS)
            continue;
        if (o->def_by != NULL) {
            const option_choices *c = option_rows[o->def_by->by].choices;
            for (size_t k = 0; k < c->n; k++) {
                real_text(text, sizeof text, o->def_by->each[c->each[k].value]);
                add_default(run, o->name, c->each[k].name, "%s", text);
            }
        } else if (o->real) {
            real_text(text, sizeof text, o->def_real);
            add_default(run, o->name, NULL, "%s", text);
        } else if (o->type == TYPE_CHOICE) {
            for (size_t k = 0; k < o->choices->n; k++)
                if ((uint64_t)o->choices->each[k].value == o->def)
                    add_default(run, o->name, NULL, "%s",
                                o->choices->each[k].name);
        } else if ((o->type == TYPE_SIZE || o->type == TYPE_OWN) &&
                   o->size > 0 && o->def != 0) {
            add_default(run, o->name, NULL, "%llu", (unsigned long long)o->def);
        }
    }
}

html_run page_run_of(const options *opt, const model_input *in)
{
    html_run run = {
        .sentence = in->sentence != NULL ? in->sentence : "",
        .kv = in->kv,
        .seed = opt->seed,
        .d_model = opt->d_model,
        .d_out = opt->d_out,
        .heads = opt->heads,
        .variants = opt->variants,
        .causal = opt->causal,
        .scale = opt->scale,
        .qkv_bias = opt->qkv_bias,
        .chars = opt->tokens == TOKENS_CHARS,
        .train = opt->train,
        .train_steps = opt->training.steps,
        .lr = opt->training.lr,
        .lr_given = opt->given[OPT_LR],
        .adam = opt->training.optimizer == OPTIMIZER_ADAM,
        .positions = opt->positions,
        .grad = opt->grad,
        .queries_first = opt->training.qkv_order == QKV_ORDER_QKV,
        .layers = opt->block_layers,
        .editable = in->sentence != NULL,
    };
    // a trained run from a corpus or a folder: the page carries its model
    static const char *const punct[] = {"keep", "split", "drop"};
    run.lower = opt->rules.lower;
    run.unk = opt->unk;
    run.punct = punct[opt->rules.punct];
    for (size_t id = 0; id < N_OPTIONS && opt->train; id++)
        if (opt->given[id] && option_rows[id].page == PAGE_MODEL)
            run.model = true;
    // the folder of the model the page carries: --weights' unless the
    // run trained it further (then --csv-dir's, where it was saved)
    run.model_dir = opt->weights != NULL && opt->training.steps == 0
                        ? opt->weights
                        : opt->csv_dir;
    run.corpus = run.model ? opt->corpus : NULL;
    run.column = run.corpus != NULL ? opt->column : NULL;
    run.checkpoint = opt->model;
    // the generation's settings, which the editor shows
    run.generate = opt->generate;
    run.sample = opt->sample;
    run.temperature =
        opt->given[OPT_TEMPERATURE] ? opt->arg[OPT_TEMPERATURE] : NULL;
    run.top_k = opt->given[OPT_TOP_K] ? opt->arg[OPT_TOP_K] : NULL;
    run.top_p = opt->given[OPT_TOP_P] ? opt->arg[OPT_TOP_P] : NULL;
    run.stop = opt->stop;
    run.ablate = opt->given[OPT_ABLATE] ? opt->arg[OPT_ABLATE] : NULL;
    run.ablate_mode =
        opt->given[OPT_ABLATE_MODE] ? opt->arg[OPT_ABLATE_MODE] : NULL;
    // what --ablate all-heads' map measures, for a --model page's run
    for (size_t id = 0; id < N_OPTIONS && run.n_map < HTML_RUN_MAP; id++)
        if (opt->given[id] && option_rows[id].page == PAGE_MAP &&
            opt->arg[id] != NULL) {
            run.map_name[run.n_map] = option_rows[id].name;
            run.map_value[run.n_map++] = opt->arg[id];
        }
    page_run_interventions(&run, opt);
    page_run_defaults(&run);
    // a --model run's layers shown, which its "Open a model" keeps (the
    // editor of a lesson's page edits --layers N, its count of blocks)
    if (opt->model != NULL && opt->given[OPT_LAYERS])
        add_arg(&run, "--%s=%s", option_rows[OPT_LAYERS].name,
                opt->arg[OPT_LAYERS]);
    // the options the page keeps, as they were given, in --help's order
    // (a view only the families core makes: on a --model run's page)
    for (size_t id = 0; id < N_OPTIONS; id++) {
        const option_row *o = &option_rows[id];
        if (!opt->given[id] || o->page == PAGE_NONE || o->page == PAGE_EDITS ||
            o->page == PAGE_MAP || o->page == PAGE_RUNS ||
            o->page == PAGE_TEXT || (o->page == PAGE_MODEL && run.model) ||
            (o->page == PAGE_FAMILIES && opt->model == NULL))
            continue;
        if (o->page == PAGE_CANNOT || o->page == PAGE_MODEL)
            run.editable = false;
        else if (opt->arg[id] == NULL)
            add_arg(&run, "--%s", o->name);
        else
            add_arg(&run, "--%s=%s", o->name, opt->arg[id]);
    }
    return run;
}
