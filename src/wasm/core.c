/* core.c: the WebAssembly core's entry points (core.h): a command line
 * in, the page's data or the CSV out, through the program's own options,
 * pipeline and writers. */
#include "wasm/core.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "base/i18n.h"
#include "cli/intervene_options.h"
#include "cli/model_options.h"
#include "cli/options.h"
#include "cli/run_errors.h"
#include "cli/settings.h"
#include "cli/weights_options.h"
#include "html/html_parts.h"
#include "model/pipeline.h"
#include "model/trace.h"
#include "render/render.h"
#include "wasm/page_folder.h"

EXPORT(mx_alloc) void *mx_alloc(size_t n)
{
    return malloc(n > 0 ? n : 1);
}

EXPORT(mx_free) void mx_free(void *p)
{
    free(p);
}

EXPORT(mx_folder) void mx_folder(page_file *files, size_t n)
{
    page_files_set(files, n);
}

/* argv for "mha-explain", with "--html page.html" for the page's data
 * (the run is the one --html writes a page of), then the '\0'-ended
 * strings of args (len bytes): (*argc + 1) pointers, the last NULL; NULL
 * without memory. */
static char **split_args(char *args, size_t len, bool page, int *argc)
{
    size_t n = 4; /* the program, --html, its file, an unended last */
    for (size_t i = 0; i < len; i++)
        n += args[i] == '\0';
    char **argv = calloc(n + 1, sizeof *argv);
    if (argv == NULL)
        return NULL;
    static char program[] = "mha-explain", html[] = "--html",
                file[] = "page.html";
    argv[0] = program;
    size_t k = 1;
    if (page) {
        argv[k++] = html;
        argv[k++] = file;
    }
    for (size_t i = 0; i < len; i += strlen(args + i) + 1)
        argv[k++] = args + i;
    *argc = (int)k;
    argv[k] = NULL;
    return argv;
}

/* The run's tables as --format csv prints them, in trace order. */
static int write_csv(FILE *out, const options *opt, const trace *tr,
                     mx_error *err)
{
    const csv_out_style style = {
        .delimiter = opt->csv_delimiter,
        .decimal_comma = opt->decimal_comma,
        .bom = opt->bom,
        .header = true,
        .sentence = -1,
        .layer = trace_layered(tr),
    };
    csv_stream s;
    csv_stream_begin(&s, out, &style);
    for (size_t i = 0; i < trace_count(tr); i++) {
        const table *t = trace_at(tr, i);
        if (options_wants_table(opt, table_name(t)) &&
            csv_stream_put(&s, t, err) != 0) {
            csv_stream_free(&s);
            return -1;
        }
    }
    return csv_stream_end(&s, err);
}

/* The run's page data, as the program writes it into --html's page. */
static int write_page_data(FILE *out, const options *opt, const trace *tr,
                           mx_error *err)
{
    explain_context notes = explain_for(opt, tr);
    notes.width = EXPLAIN_NO_WRAP;
    const text_style text = {
        .precision = opt->precision, .full = opt->full, .trace = tr};
    const html_page page = {.look = &opt->plot_look,
                            .masked = tr->model.causal,
                            .scaled = tr->model.scale,
                            .text = &text,
                            .explain = &notes};
    return html_write_data(out, tr, &page, err);
}

/* The run of one parsed command line, written to out; model (len bytes,
 * or NULL) the trained model the page carries, whose corpus a --corpus
 * of the command line reads. */
static int run_options(FILE *out, const options *opt, bool csv,
                       const unsigned char *model, size_t len, mx_error *err);

/* The run of a command line with --weights: the folder is the trained
 * model the page carries (model, len bytes; NULL: none), read as the
 * program reads a folder (cli/run.c, run_job). */
static int run_weights(FILE *out, const options *opt, bool csv,
                       unsigned char *model, size_t len, mx_error *err)
{
    if (model == NULL)
        return err_input(err, _("%s: the page reads no files"), opt->weights);
    weights_files files;
    if (page_folder_open(&files, opt->weights, model, len, err) != 0)
        return -1;
    options with_files;
    int rc = weights_options(&with_files, opt, &files, err);
    if (rc == 0)
        rc = run_options(out, &with_files, csv, model, len, err);
    interventions_free(&with_files);
    weights_files_free(&files);
    return rc;
}

static int run_options(FILE *out, const options *opt, bool csv,
                       const unsigned char *model, size_t len, mx_error *err)
{
    if (opt->sentence == NULL || opt->sentence_from_stdin)
        return err_usage(err, "%s",
                         _("the page runs a sentence given on its "
                           "command line"));
    model_input in = {.sentence = opt->sentence,
                      .len = strlen(opt->sentence),
                      .kv = opt->kv,
                      .pair = opt->pair};
    // --corpus FILE --column NAME: the sentences the page carries
    char **corpus = NULL;
    size_t *lines = NULL, n_corpus = 0;
    int rc = 0;
    if (opt->corpus != NULL) {
        rc = page_folder_corpus(&corpus, &lines, &n_corpus, opt->corpus, model,
                                len, err);
        in.corpus = (const char *const *)corpus;
        in.n_corpus = n_corpus;
        in.corpus_lines = lines;
        in.corpus_file = opt->corpus;
        in.corpus_column = opt->column;
    }
    const run_request rq = run_request_of(opt);
    trace tr;
    trace_init(&tr);
    double values = 0;
    if (rc == 0)
        rc = check_run(&values, opt, &in, false, err);
    if (rc == 0 && pipeline_run(&tr, &rq, &in, err) != 0) {
        run_error_message(err, opt);
        rc = -1;
    }
    if (rc == 0)
        rc = csv ? write_csv(out, opt, &tr, err)
                 : write_page_data(out, opt, &tr, err);
    trace_free(&tr);
    for (size_t i = 0; i < n_corpus; i++)
        free(corpus[i]);
    free(corpus);
    free(lines);
    return rc;
}

mx_result *mx_answer(int status, char *text, size_t len)
{
    mx_result *r = malloc(sizeof *r);
    if (r == NULL) {
        free(text);
        return NULL;
    }
    r->status = status;
    r->text = text;
    r->len = len;
    return r;
}

mx_result *mx_refused(const mx_error *err)
{
    const size_t len = strlen(err->msg);
    char *text = malloc(len + 1);
    if (text == NULL)
        return NULL;
    memcpy(text, err->msg, len + 1);
    return mx_answer(err->status != 0 ? err->status : 2, text, len);
}

EXPORT(mx_run)
mx_result *mx_run(const char *args, size_t len, int csv, unsigned char *model,
                  size_t model_len)
{
    mx_error err = {0};
    char *copy = malloc(len + 1);
    if (copy != NULL) {
        memcpy(copy, args, len);
        copy[len] = '\0';
    }
    int argc = 0;
    char **argv = copy != NULL ? split_args(copy, len, csv == 0, &argc) : NULL;
    char *text = NULL;
    size_t text_len = 0;
    FILE *out = argv != NULL ? open_memstream(&text, &text_len) : NULL;
    int rc = -1;
    if (out == NULL) {
        err_nomem(&err, _("the page's data"));
    } else {
        options opt;
        rc = options_parse(&opt, argc, argv, &err);
        if (rc == 0 && opt.weights != NULL)
            rc = run_weights(out, &opt, csv != 0, model, model_len, &err);
        else if (rc == 0)
            rc = run_options(out, &opt, csv != 0, model, model_len, &err);
        options_free(&opt);
    }
    if (out != NULL && fclose(out) != 0 && rc == 0)
        rc = err_nomem(&err, _("the page's data"));
    free(argv);
    free(copy);
    if (rc != 0) {
        free(text);
        return mx_refused(&err);
    }
    return mx_answer(0, text, text_len);
}

EXPORT(mx_result_free) void mx_result_free(mx_result *r)
{
    if (r == NULL)
        return;
    free(r->text);
    free(r);
}
