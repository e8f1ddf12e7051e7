/* check_reference.c: mha-explain's tables against tables made by PyTorch.
 *
 * Usage: check_reference CASE.args CASE.csv
 *
 * CASE.args holds the command-line arguments, one per line; CASE.csv holds
 * PyTorch's tables in the tidy CSV layout of `--format csv`, both written
 * by make_reference.py. The arguments go through the real option parser
 * and pipeline; every table is then compared with PyTorch's:
 *   - the same tables, in the same order, with the same labels;
 *   - every value bit for bit: mha-explain follows PyTorch's float32
 *     arithmetic operation by operation, so even the last bit agrees.
 * When something differs the diagnostics say how far, and how many values
 * would print differently with 4 decimals.
 */
#include <csv.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "io/csv_in.h"
#include "model/lesson/weights.h"
#include "cli/model_options.h"
#include "cli/options.h"
#include "model/pipeline.h"
#include "unit/tap.h"

#define MAX_ARGS 64
#define MAX_FIELDS 8

/* ---- reading the expected CSV with libcsv ------------------------------ */

typedef struct {
    char *field[MAX_FIELDS];
    size_t n_fields;
    size_t rows; /* data rows seen */
    const trace *tr;
    size_t table_index;   /* the trace table being compared */
    size_t seen_in_table; /* values of it seen so far */
    /* results */
    size_t values, exact, printed_differ, failures;
    double worst;
    char first_problem[256];
} compare_state;

/* clang-format off */
__attribute__((format(printf, 2, 3)))
static void problem(compare_state *st, const char *fmt, ...)
/* clang-format on */
{
    va_list ap;
    st->failures++;
    if (st->first_problem[0] == '\0') {
        va_start(ap, fmt);
        vsnprintf(st->first_problem, sizeof st->first_problem, fmt, ap);
        va_end(ap);
    }
}

static void on_field(void *data, size_t len, void *user)
{
    compare_state *st = user;
    if (st->n_fields < MAX_FIELDS)
        st->field[st->n_fields] = strndup(data, len);
    st->n_fields++;
}

static void compare_row(compare_state *st)
{
    char **f = st->field;
    if (st->n_fields != MAX_FIELDS) {
        problem(st, "a row has %zu fields, not %d", st->n_fields, MAX_FIELDS);
        return;
    }
    if (st->rows++ == 0)
        return; /* header */

    const trace *tr = st->tr;
    if (st->table_index >= trace_count(tr)) {
        problem(st, "PyTorch has table %s/%s that mha-explain lacks", f[0],
                f[2]);
        return;
    }
    const table *t = trace_at(tr, st->table_index);
    char head[16] = "";
    if (t->head != NO_HEAD)
        snprintf(head, sizeof head, "%d", t->head);
    if (strcmp(variant_id_name(t->variant), f[0]) != 0 ||
        strcmp(head, f[1]) != 0 || strcmp(table_name(t), f[2]) != 0) {
        problem(st, "expected table %s/%s here", f[0], f[2]);
        return;
    }
    size_t r = strtoul(f[3], NULL, 10), c = strtoul(f[5], NULL, 10);
    if (r >= t->values.rows || c >= t->values.cols ||
        r * t->values.cols + c != st->seen_in_table) {
        problem(st, "table %s has another shape or order (row %s)", f[2], f[3]);
        return;
    }
    if (strcmp(t->rows->s[r], f[4]) != 0 || strcmp(t->cols->s[c], f[6]) != 0)
        problem(st, "labels of %s differ: PyTorch has %s / %s", f[2], f[4],
                f[6]);

    float want = strtof(f[7], NULL);
    float got = *matrix_at(&t->values, r, c);
    st->values++;
    /* NaN is NaN: its sign and payload bits carry no meaning */
    if (memcmp(&want, &got, sizeof want) == 0 || (isnan(want) && isnan(got))) {
        st->exact++;
    } else {
        problem(st, "%s/%s/%s[%zu][%zu] is %.9g, PyTorch has %s", f[0], f[1],
                f[2], r, c, (double)got, f[7]);
        double diff = fabs((double)got - (double)want);
        double scale = fabs((double)want) > 1.0 ? fabs((double)want) : 1.0;
        if (isinf(want) || isinf(got) || diff / scale > st->worst)
            st->worst = isinf(want) || isinf(got) ? INFINITY : diff / scale;
        char a[64], b[64];
        snprintf(a, sizeof a, "%.4f", (double)got);
        snprintf(b, sizeof b, "%.4f", (double)want);
        if (strcmp(a, b) != 0)
            st->printed_differ++;
    }
    if (++st->seen_in_table == t->values.rows * t->values.cols) {
        st->table_index++;
        st->seen_in_table = 0;
    }
}

static void on_row(int c, void *user)
{
    (void)c;
    compare_state *st = user;
    compare_row(st);
    for (size_t i = 0; i < st->n_fields && i < MAX_FIELDS; i++)
        free(st->field[i]);
    st->n_fields = 0;
}

static int compare_file(compare_state *st, const char *path)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL)
        return -1;
    struct csv_parser p;
    csv_init(&p, CSV_STRICT | CSV_STRICT_FINI | CSV_APPEND_NULL);
    char buf[65536];
    size_t n;
    int rc = 0;
    while ((n = fread(buf, 1, sizeof buf, f)) > 0)
        if (csv_parse(&p, buf, n, on_field, on_row, st) != n) {
            rc = -1;
            break;
        }
    if (rc == 0 && csv_fini(&p, on_field, on_row, st) != 0)
        rc = -1;
    csv_free(&p);
    fclose(f);
    return rc;
}

/* ---- the arguments ------------------------------------------------------ */

/* Reads the arguments of CASE.args; the path after --weights or
 * --embeddings is taken relative to the folder that holds CASE.args. */
static int read_args(char **argv, int *argc, const char *path)
{
    FILE *f = fopen(path, "r");
    if (f == NULL)
        return -1;
    static char line[4096];
    const char *slash = strrchr(path, '/');
    const int dir_len = slash != NULL ? (int)(slash - path) : 1;
    const char *dir = slash != NULL ? path : ".";
    argv[(*argc)++] = strdup("mha-explain");
    while (*argc < MAX_ARGS - 1 && fgets(line, sizeof line, f) != NULL) {
        line[strcspn(line, "\n")] = '\0';
        if (line[0] == '\0')
            continue;
        const char *prev = argv[*argc - 1];
        if ((strcmp(prev, "--weights") == 0 ||
             strcmp(prev, "--embeddings") == 0) &&
            line[0] != '/') {
            char full[8192];
            snprintf(full, sizeof full, "%.*s/%s", dir_len, dir, line);
            argv[(*argc)++] = strdup(full);
        } else {
            argv[(*argc)++] = strdup(line);
        }
    }
    argv[*argc] = NULL;
    fclose(f);
    return 0;
}

int main(int cargc, char **cargv)
{
    if (cargc != 3) {
        fprintf(stderr, "usage: check_reference CASE.args CASE.csv\n");
        return 2;
    }
    char *argv[MAX_ARGS];
    int argc = 0;
    if (!ok(read_args(argv, &argc, cargv[1]) == 0, "read %s", cargv[1]))
        return tap_done();

    options opt;
    mx_error err = {0};
    trace tr;
    trace_init(&tr);
    int parsed = options_parse(&opt, argc, argv, &err) == 0;
    ok(parsed, "the arguments parse%s%s", parsed ? "" : ": ", err.msg);
    if (parsed) {
        model_input in = {.kv = opt.kv, .pair = opt.pair};
        char **words = NULL;
        size_t n_words = 0;
        matrix rows = {0};
        int ran;
        if (opt.embeddings != NULL) {
            // --embeddings FILE: the file's rows are the inputs, as main.c
            const csv_style style = {opt.csv_delimiter, opt.decimal_comma};
            ran = read_embeddings(&words, &n_words, &rows, opt.embeddings,
                                  &style, 1 << 20, &err) == 0;
            in.words = (const char *const *)words;
            in.embeddings = &rows;
        } else {
            in.sentence = opt.sentence;
            in.len = strlen(opt.sentence);
            ran = 1;
        }
        // --weights DIR: its files opened by the folder check, as run_job
        weights_files files = {0};
        if (ran && opt.weights != NULL) {
            ran = weights_open_dir(&files, opt.weights, opt.variants, opt.heads,
                                   opt.block_layers, opt.tie, &err) == 0;
            opt.weight_files = &files;
        }
        const run_request rq = run_request_of(&opt);
        ran = ran && pipeline_run(&tr, &rq, &in, &err) == 0;
        ok(ran, "the pipeline runs%s%s", ran ? "" : ": ", err.msg);
        if (opt.weight_files != NULL)
            weights_files_free(&files);

        compare_state st = {.tr = &tr};
        ok(compare_file(&st, cargv[2]) == 0, "read %s as CSV", cargv[2]);
        diag("%zu values, %zu bit for bit, largest relative difference %.3g",
             st.values, st.exact, st.worst);
        ok(st.failures == 0 && st.values > 0,
           "every value agrees with PyTorch bit for bit (%zu problems%s%s)",
           st.failures, st.failures ? "; first: " : "", st.first_problem);
        ok(st.table_index == trace_count(&tr) && st.seen_in_table == 0,
           "no table beyond PyTorch's (%zu of %zu compared)", st.table_index,
           trace_count(&tr));
        ok(st.printed_differ == 0,
           "every value printed with 4 decimals reads as PyTorch's (%zu differ)",
           st.printed_differ);
        for (size_t i = 0; i < n_words; i++)
            free(words[i]);
        free(words);
        matrix_free(&rows);
    }
    trace_free(&tr);
    options_free(&opt);
    for (int i = 0; i < argc; i++)
        free(argv[i]);
    return tap_done();
}
