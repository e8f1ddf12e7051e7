/* csv_sentences.c: the sentences of --input and --corpus, one column of
 * a CSV file chosen by its header's name (csv_in.h). */
#include "io/csv_in.h"
#include "io/csv_parts.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/i18n.h"
#include "base/limits.h"
#include "base/text.h"

/* "; its columns: 'a', 'b', ..." into buf: the header's names, each cut
 * to 20 bytes between two characters, while they fit. */
static void column_list(char *buf, size_t size, const csv_row *header)
{
    snprintf(buf, size, "%s", _("; its columns:"));
    for (size_t i = 0; i < header->n; i++) {
        const char *name = header->fields[i].text;
        const size_t used = strlen(buf);
        const size_t take = text_prefix(name, 20);
        if (used + take + 8 >= size) {
            snprintf(buf + used, size - used, " ...");
            return;
        }
        snprintf(buf + used, size - used, "%s '%.*s%s'", i ? "," : "",
                 (int)take, name, take < strlen(name) ? "..." : "");
    }
}

int read_sentences_stream(char ***sentences, size_t **lines, size_t *n, FILE *f,
                          const char *path, const char *column,
                          const csv_style *style, mx_error *err)
{
    csv_reader r;
    *sentences = NULL;
    *lines = NULL;
    *n = 0;
    if (read_csv(&r, f, path, style, MAX_SENTENCES + 1, 1024, 1, false, err) !=
        0)
        return -1;
    int rc = -1;
    if (check_shape(&r, 1, style->delimiter, err) != 0)
        goto done;

    const csv_row *header = &r.rows[0];
    size_t col = header->n;
    for (size_t i = 0; i < header->n; i++) {
        if (strcmp(header->fields[i].text, column) != 0)
            continue;
        if (col != header->n) {
            err_input(err, _("%s:%zu:%zu: two columns are named '%s'"), path,
                      header->fields[i].line, header->fields[i].column, column);
            goto done;
        }
        col = i;
    }
    if (col == header->n) {
        char hint[128];
        if (delimiter_hint(hint, sizeof hint, header, style->delimiter)[0] ==
            '\0')
            column_list(hint, sizeof hint, header);
        err_input(err, _("%s:%zu:1: no column named '%s' in the header%s"),
                  path, header->fields[0].line, column, hint);
        goto done;
    }

    const size_t count = r.n_rows - 1;
    char **s = calloc(count, sizeof *s);
    size_t *l = calloc(count, sizeof *l);
    if (s == NULL || l == NULL) {
        free(s);
        free(l);
        err_nomem(err, _("the sentences"));
        goto done;
    }
    for (size_t i = 0; i < count; i++) {
        csv_field *cell = &r.rows[i + 1].fields[col];
        s[i] = cell->text;
        l[i] = cell->line;
        cell->text = NULL;
    }
    *sentences = s;
    *lines = l;
    *n = count;
    rc = 0;
done:
    reader_free(&r);
    return rc;
}

int read_sentences(char ***sentences, size_t **lines, size_t *n,
                   const char *path, const char *column, const csv_style *style,
                   mx_error *err)
{
    FILE *f = open_csv(path, err);
    *sentences = NULL;
    *lines = NULL;
    *n = 0;
    if (f == NULL)
        return -1;
    int rc = read_sentences_stream(sentences, lines, n, f, csv_name(path),
                                   column, style, err);
    close_csv(f);
    return rc;
}
