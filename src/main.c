/* main.c: options -> pipeline -> output, and the exit status.
 *
 * The only place that prints errors or decides how the program ends:
 *   0 success, 1 the output could not be written, 2 bad usage or input.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "render/check.h"
#include "cli/cleanup.h"
#include "io/csv_in.h"
#include "cli/error.h"
#include "render/explain.h"
#include "cli/i18n.h"
#include "cli/options.h"
#include "io/pager.h"
#include "model/pipeline.h"
#include "cli/progress.h"
#include "cli/run_files.h"
#include "render/render.h"
#include "io/spool.h"
#include "render/step.h"
#include "model/trace.h"
#include "render/textwidth.h"
#include "model/tokenize.h"
#include "model/trace.h"
#include "io/weights.h"

/* The most a sentence read from standard input may hold. */
#define MAX_STDIN_BYTES (1u << 20)

static int fail(const mx_error *err)
{
    /* messages quote what the user typed: escape control characters */
    char *safe = display_escape(err->msg);
    fprintf(stderr, "mha-explain: %s\n", safe != NULL ? safe : err->msg);
    free(safe);
    if (err->usage)
        fputs(_("Try 'mha-explain --help' for more information.\n"), stderr);
    return err->status;
}

/* Reads all of standard input into a new buffer (the sentence "-"). */
static char *read_stdin(size_t *len, mx_error *err)
{
    size_t cap = 4096, n = 0;
    char *buf = malloc(cap);
    if (buf == NULL) {
        err_nomem(err, _("the sentence"));
        return NULL;
    }
    /* the limit is on the text: a byte-order mark before it is not */
    size_t limit = MAX_STDIN_BYTES;
    for (;;) {
        if (n >= 3 && limit == MAX_STDIN_BYTES &&
            memcmp(buf, "\xEF\xBB\xBF", 3) == 0)
            limit += 3;
        if (n == cap) {
            /* exactly the limit is allowed: refused only if more follows */
            if (cap >= limit && getc(stdin) == EOF)
                break;
            if (cap >= limit) {
                free(buf);
                err_input(err,
                          _("the sentence on standard input is longer "
                            "than %u bytes"),
                          MAX_STDIN_BYTES);
                return NULL;
            }
            size_t grown = cap * 2 < limit ? cap * 2 : limit;
            char *p = realloc(buf, grown);
            if (p == NULL) {
                free(buf);
                err_nomem(err, _("the sentence"));
                return NULL;
            }
            buf = p;
            cap = grown;
        }
        size_t got = fread(buf + n, 1, cap - n, stdin);
        n += got;
        if (got == 0)
            break;
    }
    if (ferror(stdin)) {
        free(buf);
        err_input(err, _("cannot read standard input: %s"), strerror(errno));
        return NULL;
    }
    /* a byte-order mark, as some editors write, is not part of the text */
    if (n >= 3 && memcmp(buf, "\xEF\xBB\xBF", 3) == 0) {
        n -= 3;
        memmove(buf, buf + 3, n);
    }
    *len = n;
    return buf;
}

/* Flushes and closes stdout after a run that ended with `status`. Any
 * write error is a failure (status 1): a full disk, or a closed pipe when
 * SIGPIPE is ignored (otherwise SIGPIPE ends the program, see cleanup.h).
 * A run that failed already said why. */
static int close_stdout(int status)
{
    int failed = fflush(stdout) != 0 || ferror(stdout);
    int e = errno;
    if (fclose(stdout) != 0 && !failed) {
        failed = 1;
        e = errno;
    }
    if (status != 0 || !failed)
        return status;
    fprintf(stderr, _("mha-explain: cannot write the output: %s\n"),
            strerror(e));
    return EXIT_OUTPUT_ERROR;
}

/* The tables the user asked for, in trace order. */
static const table **select_tables(const trace *tr, const options *opt,
                                   size_t *n)
{
    const table **out = calloc(trace_count(tr) + 1, sizeof *out);
    if (out == NULL)
        return NULL;
    *n = 0;
    for (size_t i = 0; i < trace_count(tr); i++)
        if (options_wants_table(opt, trace_at(tr, i)->name))
            out[(*n)++] = trace_at(tr, i);
    return out;
}

/* Every name given to --tables must be a table this run makes: a name
 * that only another variant or option makes would print nothing. Checked
 * before the run, as its tables may go out while it is made. */
static int check_tables_made(const options *opt, const model_input *in,
                             mx_error *err)
{
    for (size_t k = 0; k < opt->n_tables; k++)
        if (!pipeline_makes_table(opt, in, opt->tables[k]))
            return err_usage(err,
                             _("--tables: this run makes no table '%s' "
                               "(it comes with another --variant or "
                               "option)"),
                             opt->tables[k]);
    return 0;
}

/* --color: auto shades only a terminal, and NO_COLOR turns it off. */
static bool use_color(const options *opt)
{
    if (opt->color != COLOR_AUTO)
        return opt->color == COLOR_ALWAYS;
    const char *no_color = getenv("NO_COLOR");
    const char *term = getenv("TERM");
    if (no_color != NULL && no_color[0] != '\0')
        return false;
    if (term != NULL && strcmp(term, "dumb") == 0)
        return false;
    return isatty(STDOUT_FILENO);
}

/* Terminals that draw 24-bit colour say so in COLORTERM. */
static bool truecolor(void)
{
    const char *c = getenv("COLORTERM");
    return c != NULL &&
           (strcmp(c, "truecolor") == 0 || strcmp(c, "24bit") == 0);
}

/* The widest text line: --width, else the terminal's width when standard
 * output is one, else $COLUMNS, else 80 as PyTorch's linewidth. */
static size_t screen_width(const options *opt)
{
    if (opt->width_given)
        return opt->width;
    struct winsize ws;
    if (isatty(STDOUT_FILENO) && ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 &&
        ws.ws_col > 0)
        return ws.ws_col;
    const char *columns = getenv("COLUMNS");
    if (columns != NULL && columns[0] >= '1' && columns[0] <= '9') {
        char *end = NULL;
        unsigned long n = strtoul(columns, &end, 10);
        if (*end == '\0' && n <= MAX_SCREEN_WIDTH)
            return n;
    }
    return 80;
}

/* The terminal's height when standard output is one, else $LINES, else
 * 24: output with as many lines goes through the pager. */
static size_t screen_rows(void)
{
    struct winsize ws;
    if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_row > 0)
        return ws.ws_row;
    const char *lines = getenv("LINES");
    if (lines != NULL && lines[0] >= '1' && lines[0] <= '9')
        return strtoul(lines, NULL, 10);
    return 24;
}

/* --layout auto: heads side by side on a terminal; a pipe or a file keeps
 * one table under another, in the trace's order, and so does a run too
 * large to keep every table, which the grid needs (trace.h). */
static bool use_grid(const options *opt, const model_input *in)
{
    if (opt->layout != LAYOUT_AUTO)
        return opt->layout == LAYOUT_GRID;
    if (!isatty(STDOUT_FILENO))
        return false;
    /* a run that fails the check fails again, with its message, when it
     * runs */
    double values = 0;
    mx_error ignored = {0};
    return pipeline_check(&values, opt, in, true, &ignored) != 0 ||
           values <= (double)MAX_TRACE_VALUES;
}

/* Whether the text may go through the pager: on a terminal, without
 * --no-pager or --step. */
static bool may_page(const options *opt)
{
    return !opt->no_pager && !opt->step && isatty(STDOUT_FILENO);
}

/* --help: through the pager too when it is longer than the screen. */
static void print_help(const options *opt)
{
    char *text = NULL;
    size_t len = 0;
    FILE *mem = may_page(opt) ? open_memstream(&text, &len) : NULL;
    if (mem == NULL) {
        options_print_usage(stdout);
        return;
    }
    options_print_usage(mem);
    if (fclose(mem) == 0)
        page_text(text, len, screen_rows());
    else
        options_print_usage(stdout);
    free(text);
}

/* Tokens of the --kv sentence in the trace. */
static size_t kv_rows(const trace *tr)
{
    const table *t = trace_find(tr, "input", NO_HEAD, "kv_inputs");
    return t != NULL ? t->values.rows : 0;
}

/* What --explain needs to know about the run. */
static explain_context explain_for(const options *opt, const trace *tr)
{
    const table *inputs = trace_find(tr, "input", NO_HEAD, "inputs");
    const table *vocab = trace_find(tr, "input", NO_HEAD, "vocab");
    explain_context c = {
        .tokens = inputs ? inputs->values.rows : 0,
        .vocab = vocab ? vocab->values.rows : 0,
        .d_model = inputs ? inputs->values.cols : opt->d_model,
        .d_out = opt->d_out,
        .heads = opt->heads,
        .seed = opt->seed,
        .causal = opt->causal && opt->kv == NULL,
        .scale = opt->scale,
        .qkv_bias = opt->qkv_bias,
        .embeddings_given = opt->embeddings != NULL,
        .chars = opt->tokens == TOKENS_CHARS,
        .kv_tokens = opt->kv != NULL ? kv_rows(tr) : 0,
        .width = screen_width(opt),
        .ff = opt->ff ? opt->ff
                      : 4 * (inputs ? inputs->values.cols : opt->d_model),
    };
    return c;
}

/* The text style of a run. ctx is filled when the first table goes out
 * (explain_for reads the input tables). */
static text_style text_style_of(const options *opt, const trace *tr,
                                const explain_context *ctx, bool grid)
{
    const text_style style = {
        .precision = opt->precision,
        .full = opt->full,
        .color = use_color(opt),
        .before = opt->explain ? explain_before : NULL,
        .before_ctx = ctx,
        .width = screen_width(opt),
        .truecolor = truecolor(),
        .scale = opt->color_scale,
        .trace = tr,
        .grid = grid,
        .page_breaks = opt->step,
    };
    return style;
}

/* Whether a run keeps every table until it ends, for an output that
 * reads the whole trace (the --html page and --plot picture of every
 * head, the heads side by side of --layout grid); otherwise its tables go
 * to the output as they are made (trace.h). grid: the text is laid out as
 * a grid. */
static bool keeps_all(const options *opt, bool grid)
{
    return opt->html != NULL || opt->plot != NULL ||
           (opt->format == FORMAT_TEXT && !opt->torch_style &&
            opt->focus == NULL && grid);
}

/* Where one run's chosen tables go, a table at a time: --csv-dir files,
 * then CSV or text on out, or the --focus view (written at the end); the
 * text of --layout grid, which needs every table together, is written
 * after the run instead. */
typedef struct {
    const options *opt;
    const trace *tr;
    csv_dir_set *files; /* or NULL */
    const char *sub;
    csv_out_style file_csv;
    csv_stream csv;
    text_stream text;
    bool text_streams; /* the text goes table by table */
    text_style style;
    explain_context notes;
    size_t n;            /* chosen tables that went out */
    check_report report; /* --check, measured over every table */
    focus_stream focus;  /* --focus, begun at the first table */
    bool focus_begun;
} run_output;

/* The position --focus names in the trace's sequence (0 without --focus). */
static int find_focus(size_t *position, const options *opt, const trace *tr,
                      mx_error *err)
{
    *position = 0;
    if (opt->focus == NULL)
        return 0;
    const table *inputs = trace_find(tr, "input", NO_HEAD, "inputs");
    if (inputs == NULL)
        return err_input(err, _("--focus: the sequence has no tokens"));
    return find_token(position, opt->focus,
                      (const char *const *)inputs->rows->s, inputs->rows->n,
                      err);
}

/* --focus: the view begun at the run's first table (the input tables are
 * in the trace by then), then table t, chosen or not. */
static int put_focus(run_output *o, const table *t, mx_error *err)
{
    if (!o->focus_begun) {
        size_t position;
        o->focus_begun = true;
        if (find_focus(&position, o->opt, o->tr, err) != 0 ||
            focus_stream_begin(
                &o->focus, trace_find(o->tr, "input", NO_HEAD, "inputs")->rows,
                position, o->opt->kv != NULL, &o->style, err) != 0)
            return -1;
    }
    return focus_stream_put(&o->focus, t, options_wants_table(o->opt, t->name),
                            err);
}

/* A trace_sink_fn: table t of the run to every output that wants it. */
static int put_table(void *ctx, const table *t, mx_error *err)
{
    run_output *o = ctx;
    if (o->opt->check)
        check_table(&o->report, o->tr, t);
    if (o->opt->focus != NULL && put_focus(o, t, err) != 0)
        return -1;
    if (!options_wants_table(o->opt, t->name))
        return 0;
    if (o->n++ == 0) /* the input tables are in the trace by now */
        o->notes = explain_for(o->opt, o->tr);
    if (o->files != NULL &&
        csv_dir_add(o->files, o->sub, &t, 1, &o->file_csv, err) != 0)
        return -1;
    if (o->opt->format == FORMAT_CSV)
        return csv_stream_put(&o->csv, t, err);
    if (o->text_streams)
        return text_stream_put(&o->text, t, err);
    return 0;
}

/* The text of --layout grid, once the whole trace is made. */
static int render_grid_text(FILE *out, const options *opt, const trace *tr,
                            const text_style *style, mx_error *err)
{
    size_t n = 0;
    const table **tables = select_tables(tr, opt, &n);
    if (tables == NULL)
        return err_nomem(err, _("the table list"));
    int rc = render_text(out, tables, n, style, err);
    free(tables);
    return rc;
}

/* One run of the model: sentence number `index` of --input (or -1 for a
 * single run), rendered to out and, with --csv-dir, added to files
 * (begun at the first run, in sub or in the directory itself), with
 * --plot drawn as a page and with --html written as a page. A failed
 * --check sets *check_failed; the run goes on. Unless an output needs
 * the whole trace (keeps_all), its tables go out as they are made, so a
 * long run holds few of them at once. */
static int run_and_render(FILE *out, bool *check_failed, const options *opt,
                          const model_input *in, long index,
                          const char *heading, run_files *files,
                          const char *sub, mx_error *err)
{
    trace tr;
    trace_init(&tr);
    const bool grid = use_grid(opt, in);
    const bool streams = !keeps_all(opt, grid);
    const csv_out_style csv = {
        .delimiter = opt->csv_delimiter,
        .decimal_comma = opt->decimal_comma,
        .bom = opt->bom && index <= 0,
        .header = index <= 0,
        .sentence = index,
    };
    run_output o = {.opt = opt, .tr = &tr, .sub = sub, .file_csv = csv};
    o.file_csv.bom = opt->bom;
    check_begin(&o.report, opt->causal && opt->kv == NULL, opt->tie);
    o.style = text_style_of(opt, &tr, &o.notes, grid);
    o.text_streams = opt->format == FORMAT_TEXT && opt->focus == NULL &&
                     (opt->torch_style || !o.style.grid);
    csv_stream_begin(&o.csv, out, &csv);
    text_stream_begin(&o.text, out, &o.style,
                      opt->torch_style ? torch_table : text_table);
    /* everything that can fail on the input fails before any output */
    int rc = check_tables_made(opt, in, err);
    if (rc == 0)
        rc = run_files_csv(files, opt, err);
    o.files = files->csv;
    if (rc == 0 && streams)
        trace_set_sink(&tr, put_table, &o);
    if (rc == 0 && heading != NULL && opt->format == FORMAT_TEXT)
        /* each sentence on its own step too; --input's text is spooled */
        fprintf(out, "%s=== %s ===\n\n",
                index <= 0  ? ""
                : opt->step ? "\f"
                            : "\n",
                heading);
    if (rc == 0)
        rc = pipeline_run(&tr, opt, in, err);
    /* a run that kept its trace: every table now, in order */
    for (size_t i = 0; i < trace_count(&tr) && rc == 0 && !streams; i++)
        rc = put_table(&o, trace_at(&tr, i), err);
    if (rc == 0 && opt->format == FORMAT_CSV)
        rc = csv_stream_end(&o.csv, err);
    else
        csv_stream_free(&o.csv);
    if (rc == 0 && files->plot != NULL) {
        size_t n = 0;
        const table **chosen = select_tables(&tr, opt, &n);
        rc = chosen == NULL ? err_nomem(err, _("the table list"))
                            : plot_page(files->plot, &tr,
                                        opt->tables != NULL ? chosen : NULL, n,
                                        heading, err);
        free(chosen);
    }
    if (rc == 0 && opt->focus != NULL)
        rc = focus_stream_end(&o.focus, out, err);
    focus_stream_free(&o.focus);
    if (rc == 0 && opt->format == FORMAT_TEXT && !o.text_streams &&
        opt->focus == NULL)
        rc = render_grid_text(out, opt, &tr, &o.style, err);
    if (rc == 0 && opt->check) {
        /* the report goes with the tables in text, beside them in CSV */
        FILE *report = opt->format == FORMAT_TEXT ? out : stderr;
        const check_report r = o.report;
        if (opt->format == FORMAT_TEXT && o.n > 0)
            fputc('\n', report);
        /* wrapped for a person at a terminal; one line per invariant
         * for a script reading a pipe or a file */
        if (opt->format == FORMAT_TEXT && isatty(STDOUT_FILENO))
            check_print_wrapped(report, &r, screen_width(opt));
        else
            check_print(report, &r);
        if (!check_passed(&r))
            *check_failed = true;
    }
    /* the page is written whole, under a temporary name, last */
    if (rc == 0 && files->html != NULL) {
        explain_context notes = explain_for(opt, &tr);
        notes.width = EXPLAIN_NO_WRAP;
        const text_style text = {
            .precision = opt->precision, .full = opt->full, .trace = &tr};
        const html_page page = {.masked = opt->causal && opt->kv == NULL,
                                .scaled = opt->scale,
                                .text = &text,
                                .explain = &notes};
        rc = html_add(files->html, &tr, &page, err);
    }
    trace_free(&tr);
    return rc;
}

/* Where a run's text goes: straight to stdout, or, for a run that also
 * writes files or reads --input, into a spool copied to stdout once
 * everything else has succeeded; also for the pager and --step, which
 * need the whole text. */
static int open_output(FILE **out, FILE **spool, const options *opt,
                       mx_error *err)
{
    *out = stdout;
    *spool = NULL;
    if (opt->input == NULL && opt->csv_dir == NULL && opt->plot == NULL &&
        opt->html == NULL && !opt->step && !may_page(opt))
        return 0;
    if (spool_open(spool, err) != 0)
        return -1;
    *out = *spool;
    return 0;
}

/* The spooled text on stdout: as it is, through the pager, or a step at a
 * time (--step). Closes the spool. */
static int show_spool(FILE *spool, const options *opt, mx_error *err)
{
    if (!opt->step && !may_page(opt))
        return spool_copy(spool, STDOUT_FILENO, err);
    char *text = NULL;
    size_t len = 0;
    if (read_back(&text, &len, spool, err) != 0)
        return -1;
    int rc = opt->step
                 ? step_through(text, len, STDIN_FILENO, STDOUT_FILENO, err)
                 : page_text(text, len, screen_rows());
    free(text);
    return rc;
}

/* A standard descriptor that is closed (prog >&-) is held by /dev/null
 * opened the wrong way, so that no file the run opens takes its number
 * and every read or write on it fails (EBADF) as on a closed one. */
static void hold_closed_std_fds(void)
{
    for (int fd = 0; fd <= 2; fd++) {
        if (fcntl(fd, F_GETFD) >= 0 || errno != EBADF)
            continue;
        int got = open("/dev/null", fd == 0 ? O_WRONLY : O_RDONLY);
        if (got >= 0 && got != fd) {
            dup2(got, fd);
            close(got);
        }
    }
}

/* Whether standard output can take the spooled text: open for writing.
 * A closed or read-only standard output fails the run before any file
 * is put in place (a full one is found only by writing). */
static int check_stdout(mx_error *err)
{
    int flags = fcntl(STDOUT_FILENO, F_GETFL);
    if (flags < 0)
        return err_write(err, _("the output"), errno);
    if ((flags & O_ACCMODE) == O_RDONLY)
        return err_write(err, _("the output"), EBADF);
    return 0;
}

/* The end of a run that returned rc: its files put in place (or removed
 * after a failure), then its spooled text on stdout. The files they
 * replace are kept until the text is written: a write error there, or a
 * signal meanwhile (cleanup.h), puts them back (run_files.h), so a
 * failed run leaves the user's files as they were. A failed --check is
 * reported once everything is written. */
static int finish_run(int rc, bool check_failed, run_files *files, FILE *spool,
                      const options *opt, mx_error *err)
{
    if (rc == 0 && spool != NULL)
        rc = check_stdout(err);
    if (rc == 0)
        rc = run_files_commit(files, err);
    if (rc == 0 && spool != NULL) {
        rc = show_spool(spool, opt, err);
        spool = NULL;
    }
    run_files_end(files, rc == 0);
    spool_discard(spool);
    if (rc == 0 && check_failed)
        rc = err_set(err, EXIT_CHECK_FAILED,
                     _("--check: an invariant "
                       "does not hold (see the [check] lines)"));
    return rc;
}

/* A single run (no --input): its picture, the run, its --csv-dir files. */
static int run_single(const options *opt, const model_input *in, mx_error *err)
{
    run_files files;
    FILE *out = NULL, *spool = NULL;
    bool check_failed = false;
    int rc = run_files_open(&files, opt, 1, err);
    if (rc == 0)
        rc = open_output(&out, &spool, opt, err);
    if (rc == 0)
        rc = run_and_render(out, &check_failed, opt, in, -1, NULL, &files, NULL,
                            err);
    return finish_run(rc, check_failed, &files, spool, opt, err);
}

/* --input FILE --column NAME: every sentence is checked before the first
 * one is run, so a bad row stops the run before anything is written, and
 * so is the work of all of them together (MAX_INPUT_VALUES). */
static int run_sentence_file(const options *opt, mx_error *err)
{
    const csv_style style = {opt->csv_delimiter, opt->decimal_comma};
    char **sentences = NULL;
    size_t *lines = NULL, n = 0;
    if (read_sentences(&sentences, &lines, &n, opt->input, opt->column, &style,
                       err) != 0)
        return -1;
    int rc = 0;
    double work = 0;
    for (size_t i = 0; i < n && rc == 0; i++) {
        const model_input in = {.sentence = sentences[i],
                                .len = strlen(sentences[i])};
        double values = 0;
        const bool streamed = !keeps_all(opt, use_grid(opt, &in));
        if (pipeline_check(&values, opt, &in, streamed, err) != 0) {
            char why[sizeof err->msg];
            snprintf(why, sizeof why, "%s", err->msg);
            rc = err_input(err, _("%s:%zu: column '%s': %s"), opt->input,
                           lines[i], opt->column, why);
        }
        work += values;
    }
    if (rc == 0 && work > (double)MAX_INPUT_VALUES)
        rc = err_input(err,
                       _("%s: the %zu sentences together would make about "
                         "%.0f million values, more than the %zu million "
                         "one --input run may make: split the file or "
                         "use smaller widths"),
                       opt->input, n, work / 1e6, MAX_INPUT_VALUES / 1000000);
    run_files files = {0};
    FILE *out = NULL, *spool = NULL;
    bool check_failed = false;
    if (rc == 0)
        rc = run_files_open(&files, opt, n, err);
    if (rc == 0)
        rc = open_output(&out, &spool, opt, err);
    progress bar;
    progress_begin(&bar, stderr, !opt->quiet && isatty(STDERR_FILENO));
    for (size_t i = 0; i < n && rc == 0; i++) {
        const model_input in = {.sentence = sentences[i],
                                .len = strlen(sentences[i])};
        progress_step(&bar, i, n);
        char heading[256], sub[64];
        char *shown = display_escape(sentences[i]);
        if (shown == NULL) {
            rc = err_nomem(err, _("the heading"));
            break;
        }
        /* TRANSLATORS: the heading of each --input row: its index and text */
        snprintf(heading, sizeof heading, _("sentence %zu: %.200s"), i, shown);
        free(shown);
        snprintf(sub, sizeof sub, "sentence%zu", i);
        rc = run_and_render(out, &check_failed, opt, &in, (long)i, heading,
                            &files, sub, err);
    }
    progress_end(&bar);
    /* the files of every sentence are moved into place together, then
     * the text of every sentence is printed */
    rc = finish_run(rc, check_failed, &files, spool, opt, err);
    free_strings(sentences, n);
    free(lines);
    return rc;
}

/* --embeddings FILE: the rows of the file are the inputs. */
static int run_embeddings_file(const options *opt, mx_error *err)
{
    const csv_style style = {opt->csv_delimiter, opt->decimal_comma};
    char **words = NULL;
    size_t n = 0;
    matrix rows = {0};
    if (read_embeddings(&words, &n, &rows, opt->embeddings, &style, MAX_WIDTH,
                        err) != 0)
        return -1;
    const model_input in = {.words = (const char *const *)words,
                            .embeddings = &rows};
    int rc = run_single(opt, &in, err);
    free_strings(words, n);
    matrix_free(&rows);
    return rc;
}

/* A sentence from the command line, or from standard input with "-". */
static int run_sentence(const options *opt, mx_error *err)
{
    char *from_stdin = NULL;
    model_input in = {.sentence = opt->sentence,
                      .len = opt->sentence ? strlen(opt->sentence) : 0,
                      .kv = opt->kv};
    if (opt->sentence_from_stdin) {
        from_stdin = read_stdin(&in.len, err);
        if (from_stdin == NULL)
            return -1;
        in.sentence = from_stdin;
    }
    int rc = run_single(opt, &in, err);
    free(from_stdin);
    return rc;
}

/* One line on stderr when the wrapper's heads are one column wide: most
 * likely the book's MultiHeadAttentionWrapper(d_in, d_out, ...,
 * num_heads) copied as --d-out d_out, where --d-out is the total width.
 * Not when the book's width would pass MAX_WIDTH: no run could have it. */
static void note_wrapper_width(const options *opt)
{
    if ((opt->variants & VARIANT_WRAPPER) && opt->heads > 1 &&
        opt->d_out == opt->heads && opt->d_out * opt->heads <= MAX_WIDTH)
        fprintf(stderr,
                _("mha-explain: note: --d-out %zu is the wrapper's total "
                  "width, %zu heads of 1 column; the book's "
                  "MultiHeadAttentionWrapper(d_in, %zu, ..., num_heads=%zu) "
                  "is --d-out %zu\n"),
                opt->d_out, opt->heads, opt->d_out, opt->heads,
                opt->d_out * opt->heads);
}

int main(int argc, char **argv)
{
    /* SIGINT, SIGTERM, SIGHUP and SIGPIPE remove unfinished files */
    cleanup_init();
    hold_closed_std_fds();

    options opt;
    mx_error err = {0};
    const char *lang = i18n_lang_arg(argc, argv);
    if (i18n_init(lang, argv[0], &err) != 0)
        return fail(&err);
    if (options_parse(&opt, argc, argv, &err) != 0) {
        options_free(&opt);
        return fail(&err);
    }
    /* --lang given in a shortened form ("--lan pt_BR") */
    if (opt.lang != NULL && opt.lang != lang &&
        i18n_init(opt.lang, argv[0], &err) != 0) {
        options_free(&opt);
        return fail(&err);
    }
    if (opt.show_help || opt.show_version) {
        if (opt.show_help)
            print_help(&opt);
        else
            puts("mha-explain " MHA_VERSION);
        options_free(&opt);
        return close_stdout(0);
    }

    note_wrapper_width(&opt);
    int rc = 0;
    if (opt.step && !(isatty(STDIN_FILENO) && isatty(STDOUT_FILENO)))
        rc = err_usage(&err, "%s",
                       isatty(STDIN_FILENO)
                           ? _("--step: waits for keys on a terminal, and "
                               "standard output is not one (--explain "
                               "gives the notes without pauses)")
                           : _("--step: waits for keys on a terminal, and "
                               "standard input is not one (--explain gives "
                               "the notes without pauses)"));
    if (rc == 0 && opt.weights != NULL)
        rc = weights_check_dir(opt.weights, opt.variants, opt.heads, opt.tie,
                               &err);
    if (rc == 0) {
        if (opt.input != NULL)
            rc = run_sentence_file(&opt, &err);
        else if (opt.embeddings != NULL)
            rc = run_embeddings_file(&opt, &err);
        else
            rc = run_sentence(&opt, &err);
    }
    int status = 0;
    if (rc != 0)
        status = fail(&err);
    options_free(&opt);
    return close_stdout(status);
}
