/* csv_matrix.c: a weight matrix of a --weights folder, a header row and a
 * label column around rows x cols numbers, read in the file's order
 * (csv_in.h). */
#include "io/csv_in.h"
#include "io/csv_parts.h"

#include <stdio.h>
#include <string.h>

#include "base/csv_guard.h"
#include "base/i18n.h"

/* A label such as --csv-dir writes, letters then a number ("out3",
 * "in0", "dim2"), names its position: *index is that number. Other
 * labels name none (0). */
static int numbered_label(size_t *index, const char *label)
{
    const char *p = label;
    while ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z'))
        p++;
    if (p == label || *p < '0' || *p > '9' || strlen(p) > 9)
        return 0;
    *index = 0;
    for (; *p >= '0' && *p <= '9'; p++)
        *index = *index * 10 + (size_t)(*p - '0');
    return *p == '\0';
}

/* Rows and columns are read in the file's order: a numbered label that
 * names another position (rows sorted in a spreadsheet) is an error.
 * With words, row i must be labelled words[i] (a trained vocabulary's
 * rows: their labels are words, whatever they look like, with the
 * apostrophe the writer puts before a formula-like word taken off:
 * base/csv_guard.h). */
static int check_label_order(const csv_reader *r, const char *const *words,
                             const char *path, mx_error *err)
{
    size_t at = 0;
    for (size_t j = 1; j < r->rows[0].n; j++) {
        const csv_field *c = &r->rows[0].fields[j];
        if (numbered_label(&at, c->text) && at != j - 1)
            return err_input(err,
                             _("%s:%zu:%zu: the column labelled '%.40s' is "
                               "column %zu (rows and columns are read in "
                               "the file's order; their labels must "
                               "agree)"),
                             path, c->line, c->column, c->text, j - 1);
    }
    for (size_t i = 1; i < r->n_rows; i++) {
        const csv_field *c = &r->rows[i].fields[0];
        if (words != NULL && strcmp(csv_unguard(c->text), words[i - 1]) != 0)
            return err_input(err,
                             _("%s:%zu:%zu: row %zu is labelled '%.40s', but "
                               "word %zu of the trained vocabulary is "
                               "'%.40s' (the rows stay in the vocabulary's "
                               "order, one per word)"),
                             path, c->line, c->column, i - 1, c->text, i - 1,
                             words[i - 1]);
        if (words == NULL && numbered_label(&at, c->text) && at != i - 1)
            return err_input(err,
                             _("%s:%zu:%zu: the row labelled '%.40s' is row "
                               "%zu (rows and columns are read in the "
                               "file's order; their labels must agree)"),
                             path, c->line, c->column, c->text, i - 1);
    }
    return 0;
}

/* read_weight_matrix_stream, with words (or NULL) the rows' labels. */
static int read_matrix(matrix *m, const char *const *words, FILE *f,
                       const char *path, const csv_style *style, mx_error *err)
{
    csv_reader r;
    /* reading stops one row or field past the expected shape */
    if (read_csv(&r, f, path, style, m->rows + 2, m->cols + 2, 0, false, err) !=
        0) {
        if (!r.hit_limit)
            return -1;
        return err_input(err,
                         _("%s: has more than %zu rows x %zu columns of "
                           "numbers (a header row and a label column besides)"),
                         path, m->rows, m->cols);
    }
    int rc = -1;
    if (r.n_rows != m->rows + 1 || r.rows[0].n != m->cols + 1) {
        char hint[128] = "";
        if (r.n_rows > 0)
            delimiter_hint(hint, sizeof hint, &r.rows[0], style->delimiter);
        err_input(err,
                  _("%s: has %zu rows x %zu columns of numbers, expected "
                    "%zu x %zu (a header row and a label column besides)%s"),
                  path, r.n_rows > 0 ? r.n_rows - 1 : 0,
                  r.n_rows > 0 && r.rows[0].n > 0 ? r.rows[0].n - 1 : 0,
                  m->rows, m->cols, hint);
        goto done;
    }
    if (check_shape(&r, 2, style->delimiter, err) != 0 ||
        check_label_order(&r, words, path, err) != 0)
        goto done;
    for (size_t i = 0; i < m->rows; i++)
        for (size_t j = 0; j < m->cols; j++)
            if (field_number(matrix_at(m, i, j), &r.rows[i + 1].fields[j + 1],
                             path, style->decimal_comma, err) != 0)
                goto done;
    rc = 0;
done:
    reader_free(&r);
    return rc;
}

int read_weight_matrix_stream(matrix *m, FILE *f, const char *path,
                              const csv_style *style, mx_error *err)
{
    return read_matrix(m, NULL, f, path, style, err);
}

int read_word_matrix_stream(matrix *m, const char *const *words, FILE *f,
                            const char *path, const csv_style *style,
                            mx_error *err)
{
    return read_matrix(m, words, f, path, style, err);
}

int read_weight_matrix(matrix *m, const char *path, const csv_style *style,
                       mx_error *err)
{
    FILE *f = open_csv(path, err);
    if (f == NULL)
        return -1;
    int rc = read_weight_matrix_stream(m, f, path, style, err);
    close_csv(f);
    return rc;
}
