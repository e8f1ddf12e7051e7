/* csv_in.c: strict CSV readers on top of libcsv: a whole file read as
 * rows of fields with their positions, numbers as PyTorch reads them,
 * and the --embeddings reader. The --input and --corpus sentences
 * (csv_sentences.c) and the weight matrices (csv_matrix.c) are read
 * through the same reader (csv_parts.h). */
#include "io/csv_in.h"
#include "io/csv_parts.h"

#include "base/csv_guard.h"
#include "base/i18n.h"
#include "base/limits.h"
#include "base/text.h"

#include <csv.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <utf8proc.h>

/* ---- a whole file as rows of fields, with positions ------------------- */

/* clang-format off */
__attribute__((format(printf, 4, 5)))
static void fail_at(csv_reader *r, size_t line, size_t column,
                    const char *fmt, ...)
/* clang-format on */
{
    if (r->failed)
        return;
    char what[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    err_input(r->err, "%s:%zu:%zu: %s", r->path, line, column, what);
    r->failed = true;
}

static void free_fields(csv_field *f, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(f[i].text);
    free(f);
}

void reader_free(csv_reader *r)
{
    for (size_t i = 0; i < r->n_rows; i++)
        free_fields(r->rows[i].fields, r->rows[i].n);
    free(r->rows);
    free_fields(r->fields, r->n_fields);
    r->rows = NULL;
    r->fields = NULL;
    r->n_rows = r->n_fields = 0;
}

static void on_field(void *data, size_t len, void *user)
{
    csv_reader *r = user;
    const size_t line = r->field_line, column = r->field_column;
    if (r->failed)
        return;
    if (memchr(data, '\0', len) != NULL) {
        fail_at(r, line, column, _("the field holds a NUL byte"));
        return;
    }
    /* labels must be valid UTF-8 */
    const utf8proc_uint8_t *p = data;
    for (size_t i = 0; i < len;) {
        utf8proc_int32_t c;
        utf8proc_ssize_t n =
            utf8proc_iterate(p + i, (utf8proc_ssize_t)(len - i), &c);
        if (n < 0) {
            fail_at(r, line, column,
                    _("the field is not valid UTF-8 (a file saved as "
                      "Latin-1 or Windows-1252? save it as \"CSV UTF-8\")"));
            return;
        }
        i += (size_t)n;
    }
    if (r->min_width > 0 && r->n_rows > 0 && r->rows[0].n >= r->min_width &&
        r->n_fields == r->rows[0].n) {
        if (r->extra++ == 0) {
            r->extra_line = line;
            r->extra_column = column;
        }
        return;
    }
    if (r->numbers && r->n_rows > 0 && r->rows[0].n >= r->min_width &&
        r->n_fields >= 1) {
        float value;
        const char *why = NULL;
        /* data is NUL-terminated (CSV_APPEND_NULL) */
        if (parse_csv_number(&value, data, r->decimal_comma, &why) != 0) {
            char shown[41]; /* cut between two characters */
            fail_at(r, line, column, "%s: '%.40s'", _(why),
                    text_cut(shown, sizeof shown, (const char *)data));
            return;
        }
    }
    if (r->n_fields == r->max_fields && r->numbers)
        /* a label and numbers: the limit is the width of an embedding */
        fail_at(
            r, line, column,
            _("more than %zu columns after the label: an embedding is at most "
              "%zu wide"),
            r->max_fields - 1, r->max_fields - 1);
    else if (r->n_fields == r->max_fields)
        fail_at(r, line, column, _("more than %zu fields in a row"),
                r->max_fields);
    if (r->n_fields == r->max_fields) {
        r->hit_limit = true;
        return;
    }
    if (r->n_fields == r->cap_fields) {
        size_t cap = r->cap_fields ? r->cap_fields * 2 : 16;
        csv_field *f = realloc(r->fields, cap * sizeof *f);
        if (f == NULL) {
            fail_at(r, line, column, _("out of memory"));
            return;
        }
        r->fields = f;
        r->cap_fields = cap;
    }
    char *text = malloc(len + 1);
    if (text == NULL) {
        fail_at(r, line, column, _("out of memory"));
        return;
    }
    memcpy(text, data, len);
    text[len] = '\0';
    r->fields[r->n_fields++] = (csv_field){text, line, column};
}

static void on_row(int c, void *user)
{
    (void)c;
    csv_reader *r = user;
    if (r->failed)
        return;
    const size_t width = r->n_rows > 0 ? r->rows[0].n : 0;
    if (r->min_width > 0 && width >= r->min_width &&
        r->n_fields + r->extra != width) {
        /* where check_shape would point: the first extra field, or the
         * last one present */
        if (r->extra > 0)
            fail_at(r, r->extra_line, r->extra_column,
                    ngettext("this row has %zu field, the header has %zu",
                             "this row has %zu fields, the header has %zu",
                             r->n_fields + r->extra),
                    r->n_fields + r->extra, width);
        else if (r->n_fields > 0)
            fail_at(r, r->fields[r->n_fields - 1].line,
                    r->fields[r->n_fields - 1].column,
                    ngettext("this row has %zu field, the header has %zu",
                             "this row has %zu fields, the header has %zu",
                             r->n_fields),
                    r->n_fields, width);
        return;
    }
    if (r->n_rows == r->max_rows) {
        fail_at(r, r->field_line, 1, _("more than %zu rows besides the header"),
                r->max_rows - 1);
        r->hit_limit = true;
        return;
    }
    if (r->n_rows == r->cap_rows) {
        size_t cap = r->cap_rows ? r->cap_rows * 2 : 64;
        csv_row *rows = realloc(r->rows, cap * sizeof *rows);
        if (rows == NULL) {
            fail_at(r, r->field_line, 1, _("out of memory"));
            return;
        }
        r->rows = rows;
        r->cap_rows = cap;
    }
    r->rows[r->n_rows++] = (csv_row){r->fields, r->n_fields};
    r->fields = NULL;
    r->n_fields = r->cap_fields = 0;
    r->extra = 0;
    /* a header too narrow for the file to be accepted: no row after it
     * is kept (they could hold any number of fields) */
    if (r->n_rows == 1 && r->min_width > 0 && r->rows[0].n < r->min_width) {
        r->narrow = true;
        r->failed = true;
    }
}

/* libcsv refused the input at the current position. */
static int malformed(csv_reader *r, struct csv_parser *p)
{
    fail_at(r, r->line, r->column, _("malformed CSV: %s"),
            csv_error(p) == CSV_EPARSE
                ? _("a quote inside an unquoted field, or text after a "
                    "closing quote")
                : csv_strerror(csv_error(p)));
    return -1;
}

/* Feeds a run of ordinary bytes (no delimiter, quote or line end, so no
 * field can end inside it) to libcsv in one call. */
static int feed_run(csv_reader *r, struct csv_parser *p,
                    const unsigned char *run, size_t n)
{
    if (n == 0)
        return 0;
    r->field_bytes += n;
    if (r->field_bytes > MAX_FIELD_BYTES) {
        fail_at(r, r->field_line, r->field_column,
                _("a field longer than %zu KiB"), MAX_FIELD_BYTES >> 10);
        return -1;
    }
    if (csv_parse(p, run, n, on_field, on_row, r) != n)
        return malformed(r, p);
    for (size_t i = 0; i < n; i++)
        if ((run[i] & 0xC0) != 0x80)
            r->column++; /* count characters, not continuation bytes */
    return r->failed ? -1 : 0;
}

/* Feeds one byte to libcsv, keeping track of lines and columns: a field
 * starts right after the byte that ended the previous one. */
static int feed(csv_reader *r, struct csv_parser *p, unsigned char byte)
{
    size_t rows = r->n_rows, fields = r->n_fields + r->extra;
    if (csv_parse(p, &byte, 1, on_field, on_row, r) != 1)
        return malformed(r, p);
    if (byte == '\n') {
        r->line++;
        r->column = 1;
    } else if ((byte & 0xC0) != 0x80) {
        r->column++; /* count characters, not UTF-8 continuation bytes */
    }
    /* a field or row just ended, or line ends between rows: the next
     * field starts after this byte */
    if (r->n_rows != rows || r->n_fields + r->extra != fields ||
        ((byte == '\r' || byte == '\n') && r->n_fields == 0 && !p->quoted)) {
        r->field_bytes = 0;
        r->field_line = r->line;
        r->field_column = r->column;
    } else if (p->entry_pos > MAX_FIELD_BYTES + (byte == '"')) {
        /* the field so far, as libcsv holds it: quoted delimiters, quotes
         * and line breaks count too; libcsv holds a quote inside a quoted
         * field until the next byte says whether it closes the field */
        fail_at(r, r->field_line, r->field_column,
                _("a field longer than %zu KiB"), MAX_FIELD_BYTES >> 10);
    }
    return r->failed ? -1 : 0;
}

/* Reads the whole of f into rows; path names it in messages. With
 * min_width, rows are checked against the header's width while reading
 * (see csv_reader), and with numbers their cells after the first too. */
int read_csv(csv_reader *r, FILE *f, const char *path, const csv_style *style,
             size_t max_rows, size_t max_fields, size_t min_width, bool numbers,
             mx_error *err)
{
    memset(r, 0, sizeof *r);
    r->path = path;
    r->err = err;
    r->max_rows = max_rows;
    r->max_fields = max_fields;
    r->min_width = min_width;
    r->numbers = numbers;
    r->decimal_comma = style->decimal_comma;
    r->line = r->column = r->field_line = r->field_column = 1;

    struct csv_parser p;
    if (csv_init(&p, CSV_STRICT | CSV_STRICT_FINI | CSV_APPEND_NULL) != 0)
        return err_nomem(err, _("a CSV parser"));
    csv_set_delim(&p, (unsigned char)style->delimiter);
    /* grow libcsv's field buffer in large steps: fewer copies */
    csv_set_blk_size(&p, MAX_FIELD_BYTES);

    /* on the heap: a thread's or a small (ulimit -s) stack holds less */
    const size_t size = 65536;
    unsigned char *buf = malloc(size);
    if (buf == NULL) {
        csv_free(&p);
        reader_free(r);
        return err_nomem(err, _("a CSV parser"));
    }
    size_t total = 0, got;
    bool first = true;
    while (!r->failed && (got = fread(buf, 1, size, f)) > 0) {
        size_t start = 0;
        if (first && got >= 3 && buf[0] == 0xEF && buf[1] == 0xBB &&
            buf[2] == 0xBF)
            start = 3; /* a byte-order mark, as spreadsheets write */
        first = false;
        total += got;
        if (total > MAX_CSV_BYTES) {
            err_input(err, _("%s: larger than %zu MiB"), path,
                      MAX_CSV_BYTES >> 20);
            r->failed = true;
            break;
        }
        /* runs of ordinary bytes in one call, the bytes that can end a
         * field or row one at a time */
        const char special[] = {style->delimiter, '"', '\r', '\n', '\0'};
        for (size_t i = start; i < got && !r->failed;) {
            size_t n = 0;
            while (i + n < got && strchr(special, buf[i + n]) == NULL)
                n++;
            if (feed_run(r, &p, buf + i, n) != 0)
                break;
            i += n;
            if (i < got && feed(r, &p, buf[i]) != 0)
                break;
            i++;
        }
    }
    if (!r->failed && ferror(f))
        fail_at(r, r->line, r->column, _("read error: %s"), strerror(errno));
    if (!r->failed && csv_fini(&p, on_field, on_row, r) != 0)
        fail_at(r, r->field_line, r->field_column,
                _("a quoted field is never closed"));
    csv_free(&p);
    free(buf);
    if (r->failed && !r->narrow) {
        reader_free(r);
        return -1;
    }
    return 0;
}

/* ---- numbers ----------------------------------------------------------- */

/* Whitespace that float() ignores around a number: of ASCII, space and
 * \t \n \v \f \r (not 0x1c-0x1f, which str.isspace() names); beyond
 * ASCII, what str.isspace() names (a no-break space, U+3000, ...). */
static bool float_space(utf8proc_int32_t c)
{
    return c == ' ' || (c >= 0x09 && c <= 0x0d) ||
           (c >= 0x80 && is_split_space(c));
}

/* The length of the whitespace that starts s, which is valid UTF-8. */
static size_t space_prefix(const char *s)
{
    size_t at = 0;
    for (;;) {
        utf8proc_int32_t c;
        utf8proc_ssize_t n =
            utf8proc_iterate((const utf8proc_uint8_t *)s + at, -1, &c);
        if (n <= 0 || c == 0 || !float_space(c))
            return at;
        at += (size_t)n;
    }
}

/* Where the whitespace that ends s (of length len) begins. */
static size_t space_suffix(const char *s, size_t len)
{
    size_t end = len;
    while (end > 0) {
        size_t start = end - 1;
        while (start > 0 && ((unsigned char)s[start] & 0xC0) == 0x80)
            start--;
        utf8proc_int32_t c = -1;
        utf8proc_iterate((const utf8proc_uint8_t *)s + start,
                         (utf8proc_ssize_t)(end - start), &c);
        if (!float_space(c))
            break;
        end = start;
    }
    return end;
}

int parse_csv_number(float *out, const char *text, bool decimal_comma,
                     const char **why)
{
    const char sep = decimal_comma ? ',' : '.';
    size_t n = 0, digits = 0;
    /* whitespace around the number is ignored, as float() ignores it */
    const char *p = text + space_prefix(text);
    const size_t len = space_suffix(p, strlen(p));
    const char *const end = p + len;
    if (len == 0) {
        *why = N_("an empty cell where a number belongs");
        return -1;
    }
    /* any number of digits: 1 and 120 zeros is a number (too large) */
    char *plain = malloc(len + 1);
    if (plain == NULL) {
        *why = N_("out of memory");
        return -1;
    }
    if (*p == '+' || *p == '-')
        plain[n++] = *p++;
    for (; *p >= '0' && *p <= '9'; p++, digits++)
        plain[n++] = *p;
    if (*p == sep) {
        plain[n++] = '.';
        for (p++; *p >= '0' && *p <= '9'; p++, digits++)
            plain[n++] = *p;
    }
    if (digits > 0 && (*p == 'e' || *p == 'E')) {
        plain[n++] = *p++;
        if (*p == '+' || *p == '-')
            plain[n++] = *p++;
        size_t exp_digits = 0;
        for (; *p >= '0' && *p <= '9'; p++, exp_digits++)
            plain[n++] = *p;
        if (exp_digits == 0)
            digits = 0;
    }
    if (digits == 0 || p != end) {
        free(plain);
        *why = decimal_comma ? N_("not a number (expected digits with a "
                                  "decimal comma, such as -0,25)")
                             : N_("not a number (expected digits with a "
                                  "decimal point, such as -0.25)");
        return -1;
    }
    plain[n] = '\0';
    /* plain is in the C locale's syntax, which strtod uses: the program
     * never calls setlocale. The decimal becomes the nearest double, then
     * the nearest float32, as float() then torch.tensor() read it (going
     * straight to float32 differs by one unit in the last place for
     * decimals near a float32 rounding midpoint). */
    errno = 0;
    const double d = strtod(plain, NULL);
    free(plain);
    const float v = (float)d;
    if (isinf(v) || isnan(v)) {
        *why = N_("a number too large for float32");
        return -1;
    }
    *out = v;
    return 0;
}

/* Reads field f as a number into *out, or fails at its position. */
int field_number(float *out, const csv_field *f, const char *path,
                 bool decimal_comma, mx_error *err)
{
    const char *why = NULL;
    if (parse_csv_number(out, f->text, decimal_comma, &why) != 0) {
        char shown[41]; /* cut between two characters */
        return err_input(err, "%s:%zu:%zu: %s: '%.40s'", path, f->line,
                         f->column, _(why),
                         text_cut(shown, sizeof shown, f->text));
    }
    return 0;
}

/* When a header came out as one column that holds another common
 * delimiter, a hint such as "; the header holds ';': try --csv-delimiter
 * ';'"; otherwise "". */
const char *delimiter_hint(char *buf, size_t size, const csv_row *header,
                           char delimiter)
{
    buf[0] = '\0';
    if (header->n != 1)
        return buf;
    static const char candidates[] = {';', ',', '\t', '|'};
    for (size_t i = 0; i < sizeof candidates; i++) {
        const char c = candidates[i];
        if (c == delimiter || strchr(header->fields[0].text, c) == NULL)
            continue;
        if (c == '\t')
            snprintf(buf, size,
                     _("; the header holds tabs: try "
                       "--csv-delimiter tab"));
        else
            snprintf(buf, size,
                     _("; the header holds '%c': try "
                       "--csv-delimiter '%c'"),
                     c, c);
        break;
    }
    return buf;
}

/* Checks that there is a header and at least one data row, all rows as
 * wide as the header. */
int check_shape(const csv_reader *r, size_t min_fields, char delimiter,
                mx_error *err)
{
    if (r->n_rows == 0)
        return err_input(
            err, _("%s: the file is empty (expected a header row)"), r->path);
    if (r->n_rows == 1 && !r->narrow)
        return err_input(err, _("%s: no data rows after the header"), r->path);
    const size_t width = r->rows[0].n;
    if (width < min_fields) {
        char hint[128];
        return err_input(
            err,
            ngettext("%s:%zu:1: the header has %zu column, at least %zu are "
                     "needed%s",
                     "%s:%zu:1: the header has %zu columns, at least %zu "
                     "are needed%s",
                     width),
            r->path, r->rows[0].fields[0].line, width, min_fields,
            delimiter_hint(hint, sizeof hint, &r->rows[0], delimiter));
    }
    for (size_t i = 1; i < r->n_rows; i++) {
        const csv_row *row = &r->rows[i];
        if (row->n != width) {
            const csv_field *at =
                &row->fields[row->n < width ? row->n - 1 : width];
            return err_input(err,
                             ngettext("%s:%zu:%zu: this row has %zu field, "
                                      "the header has %zu",
                                      "%s:%zu:%zu: this row has %zu fields, "
                                      "the header has %zu",
                                      row->n),
                             r->path, at->line, at->column, row->n, width);
        }
    }
    return 0;
}

void free_strings(char **s, size_t n)
{
    if (s == NULL)
        return;
    for (size_t i = 0; i < n; i++)
        free(s[i]);
    free(s);
}

/* ---- the embeddings ------------------------------------------------------ */

int read_embeddings_stream(char ***words, size_t *n, matrix *inputs, FILE *f,
                           const char *path, const csv_style *style,
                           size_t max_width, mx_error *err)
{
    csv_reader r;
    *words = NULL;
    *n = 0;
    memset(inputs, 0, sizeof *inputs);
    if (read_csv(&r, f, path, style, MAX_TOKENS + 1, max_width + 1, 2, true,
                 err) != 0)
        return -1;
    int rc = -1;
    if (check_shape(&r, 2, style->delimiter, err) != 0)
        goto done;

    const size_t T = r.n_rows - 1, D = r.rows[0].n - 1;
    char **w = calloc(T, sizeof *w);
    if (w == NULL) {
        err_nomem(err, _("the token list"));
        goto done;
    }
    if (matrix_alloc(inputs, T, D, N_("the embeddings"), err) != 0) {
        free(w);
        goto done;
    }
    for (size_t t = 0; t < T; t++) {
        const csv_row *row = &r.rows[t + 1];
        if (row->fields[0].text[0] == '\0') {
            err_input(err, _("%s:%zu:%zu: the token label is empty"), path,
                      row->fields[0].line, row->fields[0].column);
            goto fail;
        }
        for (size_t d = 0; d < D; d++)
            if (field_number(matrix_at(inputs, t, d), &row->fields[d + 1], path,
                             style->decimal_comma, err) != 0)
                goto fail;
        /* the label moves from the reader into the word list, without
         * the apostrophe the writer puts before a formula-like word
         * (base/csv_guard.h) */
        w[t] = row->fields[0].text;
        if (csv_unguard(w[t]) != w[t])
            memmove(w[t], w[t] + 1, strlen(w[t]));
        row->fields[0].text = NULL;
    }
    *words = w;
    *n = T;
    rc = 0;
    goto done;
fail:
    free_strings(w, T);
    matrix_free(inputs);
done:
    reader_free(&r);
    return rc;
}

/* ---- the same, from a path ---------------------------------------------- */

const char *csv_name(const char *path)
{
    return strcmp(path, "-") == 0 ? _("standard input") : path;
}

void close_csv(FILE *f)
{
    if (f != stdin)
        fclose(f);
}

FILE *open_csv(const char *path, mx_error *err)
{
    if (strcmp(path, "-") == 0)
        return stdin;
    FILE *f = fopen(path, "rb");
    if (f == NULL)
        err_input(err, _("%s: cannot open: %s"), path, strerror(errno));
    return f;
}

int read_embeddings(char ***words, size_t *n, matrix *inputs, const char *path,
                    const csv_style *style, size_t max_width, mx_error *err)
{
    FILE *f = open_csv(path, err);
    *words = NULL;
    *n = 0;
    memset(inputs, 0, sizeof *inputs);
    if (f == NULL)
        return -1;
    int rc = read_embeddings_stream(words, n, inputs, f, csv_name(path), style,
                                    max_width, err);
    close_csv(f);
    return rc;
}
