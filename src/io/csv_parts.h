/* csv_parts.h: what the CSV readers share (csv_in.c): a whole file read
 * as rows of fields, each with the line and column it starts at, and the
 * checks every reader makes. Internal to io/csv_*.c.
 */
#ifndef MHA_CSV_PARTS_H
#define MHA_CSV_PARTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "base/error.h"
#include "io/csv_in.h"

typedef struct {
    char *text;          /* NUL-terminated; checked to hold no NUL byte */
    size_t line, column; /* where the field starts, from 1 */
} csv_field;

typedef struct {
    csv_field *fields;
    size_t n;
} csv_row;

typedef struct {
    const char *path;
    csv_row *rows;
    size_t n_rows, cap_rows;
    /* the row being read */
    csv_field *fields;
    size_t n_fields, cap_fields;
    /* limits */
    size_t max_rows, max_fields;
    /* position of the byte being fed, and of the next field's start */
    size_t line, column;
    size_t field_line, field_column;
    bool failed;
    bool hit_limit;     /* failed because of max_rows or max_fields */
    size_t field_bytes; /* bytes fed since the last field ended */
    /* with min_width > 0 and a header at least that wide, every row is
     * checked against the header as it ends, and fields past the
     * header's width are counted, not kept: memory stays in proportion
     * to what can be accepted */
    size_t min_width;
    bool numbers; /* with min_width: every cell after the first is a number,
                     checked as it is read */
    bool decimal_comma;
    size_t extra, extra_line, extra_column; /* fields past the width */
    bool narrow; /* the header is narrower than min_width: reading stopped
                    after it, for check_shape to say so */
    mx_error *err;
} csv_reader;

/* Reads the whole of f into rows; path names it in messages. With
 * min_width, rows are checked against the header's width while reading
 * (see csv_reader), and with numbers their cells after the first too. */
int read_csv(csv_reader *r, FILE *f, const char *path, const csv_style *style,
             size_t max_rows, size_t max_fields, size_t min_width, bool numbers,
             mx_error *err);
void reader_free(csv_reader *r);

/* Checks that there is a header and at least one data row, all rows as
 * wide as the header. */
int check_shape(const csv_reader *r, size_t min_fields, char delimiter,
                mx_error *err);

/* When a header came out as one column that holds another common
 * delimiter, a hint such as "; the header holds ';': try --csv-delimiter
 * ';'"; otherwise "". */
const char *delimiter_hint(char *buf, size_t size, const csv_row *header,
                           char delimiter);

/* Reads field f as a number into *out, or fails at its position. */
int field_number(float *out, const csv_field *f, const char *path,
                 bool decimal_comma, mx_error *err);

/* path opened for reading, or NULL with err set; "-" is standard input
 * (--input -, --corpus -, --embeddings -, as the sentence "-"). */
FILE *open_csv(const char *path, mx_error *err);

/* How messages name path: "standard input" for "-". */
const char *csv_name(const char *path);

/* Closes what open_csv opened (standard input is left open). */
void close_csv(FILE *f);

#endif
