/* render_csv.c: tidy CSV, one row per value. */
#include "render.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <csv.h>

int err_write(mx_error *err, const char *what, int errnum)
{
    err_set(err, EXIT_OUTPUT_ERROR, "cannot write %s: %s", what,
            strerror(errnum));
    err->sys_errno = errnum;
    return -1;
}

void format_float_exact(char *buf, size_t size, float v)
{
    if (isnan(v)) {
        snprintf(buf, size, "nan");
        return;
    }
    if (isinf(v)) {
        snprintf(buf, size, v < 0 ? "-inf" : "inf");
        return;
    }
    /* whole numbers (ids, zeros) without an exponent */
    if (fabsf(v) < 1e7f && v == truncf(v)) {
        snprintf(buf, size, "%.0f", (double)v);
        return;
    }
    /* 9 significant digits always read back as the same float32; most
     * values need fewer */
    for (int digits = 1; digits <= 9; digits++) {
        snprintf(buf, size, "%.*g", digits, (double)v);
        if (strtof(buf, NULL) == v)
            return;
    }
}

void write_csv_field(FILE *out, const char *s)
{
    if (strpbrk(s, ",\"\r\n") != NULL)
        csv_fwrite(out, s, strlen(s));
    else
        fputs(s, out);
}

int render_csv(FILE *out, const table *const *tables, size_t n,
               mx_error *err)
{
    fputs("variant,head,table,row,row_label,col,col_label,value\n", out);
    for (size_t i = 0; i < n; i++) {
        const table *t = tables[i];
        char head[24] = "";
        if (t->head != NO_HEAD)
            snprintf(head, sizeof head, "%d", t->head);
        for (size_t r = 0; r < t->values.rows; r++) {
            for (size_t c = 0; c < t->values.cols; c++) {
                char value[32];
                format_float_exact(value, sizeof value,
                                   *matrix_at(&t->values, r, c));
                fprintf(out, "%s,%s,%s,%zu,", t->variant, head, t->name, r);
                write_csv_field(out, t->rows->s[r]);
                fprintf(out, ",%zu,", c);
                write_csv_field(out, t->cols->s[c]);
                fprintf(out, ",%s\n", value);
            }
        }
        if (ferror(out))
            return err_write(err, "the output", errno);
    }
    return 0;
}
