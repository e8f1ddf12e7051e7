/* render_csv.c: tidy CSV, one row per value. */
#include "render.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <csv.h>

#include "floatfmt.h"
#include "i18n.h"
#include "textbuf.h"

void format_float_exact(char *buf, size_t size, float v, bool decimal_comma)
{
    char text[FLOAT_TEXT_SIZE];
    if (buf == NULL || size == 0)
        return;
    float_text(text, v, decimal_comma);
    snprintf(buf, size, "%s", text);
}

void write_csv_field(FILE *out, const char *s, char delimiter)
{
    const char special[] = {delimiter, '"', '\r', '\n', '\0'};
    if (strpbrk(s, special) != NULL)
        csv_fwrite(out, s, strlen(s));
    else
        fputs(s, out);
}

/* Output is gathered in a buffer and written in pieces of about this
 * size. */
#define CHUNK 65536

/* One table's rows: "[sentence,]variant,head,table,r,row_label," once per
 * row, then "c,col_label,value\n" per value, the column parts made once
 * per table. */
static int write_table(FILE *out, textbuf *chunk, const table *t,
                       const csv_out_style *style)
{
    const char d = style->delimiter;
    const size_t cols = t->values.cols;
    textbuf prefix = {0}, col_parts = {0};
    size_t *col_end = malloc((cols > 0 ? cols : 1) * sizeof *col_end);
    int rc = col_end == NULL ? -1 : 0;
    for (size_t c = 0; rc == 0 && c < cols; c++) {
        rc |= textbuf_add_size(&col_parts, c);
        rc |= textbuf_add_char(&col_parts, d);
        rc |= textbuf_add_csv_field(&col_parts, t->cols->s[c], d);
        rc |= textbuf_add_char(&col_parts, d);
        col_end[c] = col_parts.len;
    }
    if (rc == 0 && style->sentence >= 0) {
        rc |= textbuf_add_size(&prefix, (size_t)style->sentence);
        rc |= textbuf_add_char(&prefix, d);
    }
    if (rc == 0) {
        rc |= textbuf_add(&prefix, t->variant, strlen(t->variant));
        rc |= textbuf_add_char(&prefix, d);
        if (t->head != NO_HEAD)
            rc |= textbuf_add_size(&prefix, (size_t)t->head);
        rc |= textbuf_add_char(&prefix, d);
        rc |= textbuf_add(&prefix, t->name, strlen(t->name));
        rc |= textbuf_add_char(&prefix, d);
    }
    const size_t fixed = prefix.len;
    for (size_t r = 0; rc == 0 && r < t->values.rows; r++) {
        prefix.len = fixed;
        rc |= textbuf_add_size(&prefix, r);
        rc |= textbuf_add_char(&prefix, d);
        rc |= textbuf_add_csv_field(&prefix, t->rows->s[r], d);
        rc |= textbuf_add_char(&prefix, d);
        /* the row's lines: prefix, column parts, values and line ends */
        const size_t most =
            cols * (prefix.len + FLOAT_TEXT_SIZE + 1) + col_parts.len;
        char *p = rc == 0 && cols > 0 ? textbuf_reserve(chunk, most) : NULL;
        if (p == NULL) {
            if (cols > 0)
                rc = -1;
            continue;
        }
        const float *row = matrix_at(&t->values, r, 0);
        for (size_t c = 0; c < cols; c++) {
            const size_t start = c > 0 ? col_end[c - 1] : 0;
            memcpy(p, prefix.s, prefix.len);
            p += prefix.len;
            memcpy(p, col_parts.s + start, col_end[c] - start);
            p += col_end[c] - start;
            p += float_text(p, row[c], style->decimal_comma);
            *p++ = '\n';
        }
        chunk->len = (size_t)(p - chunk->s);
        if (chunk->len >= CHUNK && textbuf_flush(chunk, out) != 0)
            rc = -2;
    }
    textbuf_free(&prefix);
    textbuf_free(&col_parts);
    free(col_end);
    return rc;
}

int render_csv(FILE *out, const table *const *tables, size_t n,
               const csv_out_style *style, mx_error *err)
{
    const char d = style->delimiter;
    if (style->bom)
        fputs("\xEF\xBB\xBF", out);
    if (style->header) {
        if (style->sentence >= 0)
            fprintf(out, "sentence%c", d);
        fprintf(out,
                "variant%chead%ctable%crow%crow_label%ccol%ccol_label%c"
                "value\n",
                d, d, d, d, d, d, d);
    }
    textbuf chunk = {0};
    for (size_t i = 0; i < n; i++) {
        const int rc = write_table(out, &chunk, tables[i], style);
        if (rc == -1) {
            textbuf_free(&chunk);
            return err_nomem(err, _("the CSV output"));
        }
        if (rc != 0 || textbuf_flush(&chunk, out) != 0 || ferror(out)) {
            const int e = errno;
            textbuf_free(&chunk);
            return err_write(err, _("the output"), e);
        }
    }
    textbuf_free(&chunk);
    return 0;
}
