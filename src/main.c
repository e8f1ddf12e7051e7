/* main.c: options -> pipeline -> output, and the exit status.
 *
 * The only place that prints errors or decides how the program ends:
 *   0 success, 1 the output could not be written, 2 bad usage or input.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "options.h"
#include "pipeline.h"
#include "render.h"
#include "table.h"

/* The most a sentence read from standard input may hold. */
#define MAX_STDIN_BYTES (1u << 20)

static int fail(const mx_error *err)
{
    fprintf(stderr, "mha-explain: %s\n", err->msg);
    if (err->usage)
        fputs("Try 'mha-explain --help' for more information.\n", stderr);
    return err->status;
}

/* Reads all of standard input into a new buffer (the sentence "-"). */
static char *read_stdin(size_t *len, mx_error *err)
{
    size_t cap = 4096, n = 0;
    char *buf = malloc(cap);
    if (buf == NULL) {
        err_nomem(err, "the sentence");
        return NULL;
    }
    for (;;) {
        if (n == cap) {
            if (cap >= MAX_STDIN_BYTES) {
                free(buf);
                err_input(err, "the sentence on standard input is longer "
                               "than %u bytes", MAX_STDIN_BYTES);
                return NULL;
            }
            char *p = realloc(buf, cap * 2);
            if (p == NULL) {
                free(buf);
                err_nomem(err, "the sentence");
                return NULL;
            }
            buf = p;
            cap *= 2;
        }
        size_t got = fread(buf + n, 1, cap - n, stdin);
        n += got;
        if (got == 0)
            break;
    }
    if (ferror(stdin)) {
        free(buf);
        err_input(err, "cannot read standard input: %s", strerror(errno));
        return NULL;
    }
    *len = n;
    return buf;
}

/* Flushes and closes stdout after a run that ended with `status`. A full
 * disk is an error (status 1); a reader that went away (EPIPE, as `| head`
 * does) is not. A run that failed already said why. */
static int close_stdout(int status)
{
    int failed = fflush(stdout) != 0 || ferror(stdout);
    int e = errno;
    if (fclose(stdout) != 0 && !failed) {
        failed = 1;
        e = errno;
    }
    if (status != 0 || !failed || e == EPIPE)
        return status;
    fprintf(stderr, "mha-explain: cannot write the output: %s\n",
            strerror(e));
    return EXIT_OUTPUT_ERROR;
}

/* The tables the user asked for, in trace order. */
static const table **select_tables(const trace *tr, const options *opt,
                                   size_t *n)
{
    const table **out = calloc(tr->n_tables + 1, sizeof *out);
    if (out == NULL)
        return NULL;
    *n = 0;
    for (size_t i = 0; i < tr->n_tables; i++)
        if (options_wants_table(opt, tr->tables[i].name))
            out[(*n)++] = &tr->tables[i];
    return out;
}

static int render(const trace *tr, const options *opt, mx_error *err)
{
    size_t n = 0;
    const table **chosen = select_tables(tr, opt, &n);
    if (chosen == NULL)
        return err_nomem(err, "the table list");
    const table *const *tables = chosen;
    int rc = 0;
    if (opt->csv_dir != NULL)
        rc = render_csv_dir(opt->csv_dir, tables, n, err);
    if (rc == 0 && opt->format == FORMAT_CSV)
        rc = render_csv(stdout, tables, n, err);
    if (rc == 0 && opt->format == FORMAT_TEXT) {
        const text_style style = {.precision = opt->precision,
                                  .full = opt->full};
        rc = render_text(stdout, tables, n, &style, err);
    }
    free(chosen);
    return rc;
}

int main(int argc, char **argv)
{
    /* A closed pipe is reported by write errors (EPIPE), not a signal. */
    signal(SIGPIPE, SIG_IGN);

    options opt;
    mx_error err = {0};
    if (options_parse(&opt, argc, argv, &err) != 0) {
        options_free(&opt);
        return fail(&err);
    }
    if (opt.show_help || opt.show_version) {
        if (opt.show_help)
            fputs(options_usage, stdout);
        else
            puts("mha-explain " MHA_VERSION);
        options_free(&opt);
        return close_stdout(0);
    }

    char *input = opt.sentence;
    size_t len = input != NULL ? strlen(input) : 0;
    char *from_stdin = NULL;
    if (opt.sentence_from_stdin) {
        from_stdin = read_stdin(&len, &err);
        if (from_stdin == NULL) {
            options_free(&opt);
            return fail(&err);
        }
        input = from_stdin;
    }

    trace tr;
    trace_init(&tr);
    int status = 0;
    if (pipeline_run(&tr, &opt, input, len, &err) != 0 ||
        render(&tr, &opt, &err) != 0) {
        if (err.sys_errno == EPIPE)
            status = 0;
        else
            status = fail(&err);
    }
    trace_free(&tr);
    free(from_stdin);
    options_free(&opt);
    return close_stdout(status);
}
