/* render_csv.c: tidy CSV, one row per value. */
#include "render/render.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "numerics/floatfmt.h"
#include "base/i18n.h"
#include "render/map_axes.h"
#include "render/textbuf.h"

void format_float_exact(char *buf, size_t size, float v, bool decimal_comma)
{
    char text[FLOAT_TEXT_SIZE];
    if (buf == NULL || size == 0)
        return;
    float_text(text, v, decimal_comma);
    snprintf(buf, size, "%s", text);
}

/* Output is gathered in a buffer and written in pieces of about this
 * size. */
#define CHUNK 65536

/* Bytes of s as one CSV field, at most (quoted, every quote doubled, an
 * apostrophe first: textbuf_add_csv_field). */
static size_t field_bytes(const char *s)
{
    return 2 * strlen(s) + 3;
}

/* One table's rows: "[sentence,]variant,head,table,r,row_label," once per
 * row, then "c,col_label,value\n" per value, the column parts made once
 * per table. Everything is allocated before the first row goes into
 * chunk, so the table's rows reach out whole, or (-1: memory ran out)
 * none of them. Returns -2 on a write error. */
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
        const char *variant = table_source_name(t), *name = table_name(t);
        rc |= textbuf_add(&prefix, variant, strlen(variant));
        rc |= textbuf_add_char(&prefix, d);
        if (style->layer) {
            if (table_model_layer(t) >= 0)
                rc |= textbuf_add_size(&prefix, (size_t)table_model_layer(t));
            rc |= textbuf_add_char(&prefix, d);
        }
        if (style->step) {
            if (t->step > 0)
                rc |= textbuf_add_size(&prefix, (size_t)t->step);
            rc |= textbuf_add_char(&prefix, d);
        }
        if (t->head != NO_HEAD)
            rc |= textbuf_add_size(&prefix, (size_t)t->head);
        rc |= textbuf_add_char(&prefix, d);
        rc |= textbuf_add(&prefix, name, strlen(name));
        rc |= textbuf_add_char(&prefix, d);
    }
    const size_t fixed = prefix.len;
    /* room for the longest row prefix, and for a chunk of rows: written
     * out once it passes CHUNK, so never longer than CHUNK and a row */
    size_t longest = 0;
    for (size_t r = 0; r < t->values.rows; r++)
        if (field_bytes(t->rows->s[r]) > longest)
            longest = field_bytes(t->rows->s[r]);
    const size_t prefix_most = fixed + 24 + longest + 2;
    const size_t row_most =
        cols * (prefix_most + FLOAT_TEXT_SIZE + 1) + col_parts.len;
    if (rc == 0 && (textbuf_reserve(&prefix, prefix_most - fixed) == NULL ||
                    (cols > 0 && t->values.rows > 0 &&
                     textbuf_reserve(chunk, CHUNK + row_most) == NULL)))
        rc = -1;
    for (size_t r = 0; rc == 0 && r < t->values.rows && cols > 0; r++) {
        prefix.len = fixed;
        rc |= textbuf_add_size(&prefix, r);
        rc |= textbuf_add_char(&prefix, d);
        rc |= textbuf_add_csv_field(&prefix, t->rows->s[r], d);
        rc |= textbuf_add_char(&prefix, d);
        /* the row's lines: prefix, column parts, values and line ends */
        const size_t most =
            cols * (prefix.len + FLOAT_TEXT_SIZE + 1) + col_parts.len;
        char *p = rc == 0 ? textbuf_reserve(chunk, most) : NULL;
        if (p == NULL) {
            rc = -1;
            break;
        }
        for (size_t c = 0; c < cols; c++) {
            const size_t start = c > 0 ? col_end[c - 1] : 0;
            memcpy(p, prefix.s, prefix.len);
            p += prefix.len;
            memcpy(p, col_parts.s + start, col_end[c] - start);
            p += col_end[c] - start;
            p += float_text(p, trace_cell(t, r, c), style->decimal_comma);
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

/* A key of the tidy CSV (a layer, a head; -1: empty), then the
 * delimiter. */
static int add_key(textbuf *b, long key, char d)
{
    int rc = key >= 0 ? textbuf_add_size(b, (size_t)key) : 0;
    return rc | textbuf_add_char(b, d);
}

/* A map of the interventions (map_axes.h): each cell with its own layer
 * and head, as its row and column say (ablation_map's cell (l, h): layer
 * l, head h), written line by line into chunk (maps are small). Returns
 * as write_table. */
static int write_map(FILE *out, textbuf *chunk, const table *t,
                     const map_axes *m, const csv_out_style *style)
{
    const char d = style->delimiter;
    const char *variant = table_source_name(t), *name = table_name(t);
    int rc = 0;
    for (size_t r = 0; rc == 0 && r < t->values.rows; r++)
        for (size_t c = 0; rc == 0 && c < t->values.cols; c++) {
            int layer, head;
            map_axes_cell(&layer, &head, m, t, r, c);
            if (style->sentence >= 0)
                rc |= add_key(chunk, style->sentence, d);
            rc |= textbuf_add(chunk, variant, strlen(variant));
            rc |= textbuf_add_char(chunk, d);
            if (style->layer)
                rc |= add_key(chunk, layer, d);
            if (style->step)
                rc |= add_key(chunk, t->step > 0 ? t->step : -1, d);
            rc |= add_key(chunk, head, d);
            rc |= textbuf_add(chunk, name, strlen(name));
            rc |= textbuf_add_char(chunk, d);
            rc |= add_key(chunk, (long)r, d);
            rc |= textbuf_add_csv_field(chunk, t->rows->s[r], d);
            rc |= textbuf_add_char(chunk, d);
            rc |= add_key(chunk, (long)c, d);
            rc |= textbuf_add_csv_field(chunk, t->cols->s[c], d);
            rc |= textbuf_add_char(chunk, d);
            rc |= textbuf_add_float(chunk, trace_cell(t, r, c),
                                    style->decimal_comma);
            rc |= textbuf_add_char(chunk, '\n');
            if (rc != 0)
                rc = -1;
            else if (chunk->len >= CHUNK && textbuf_flush(chunk, out) != 0)
                rc = -2;
        }
    return rc;
}

void csv_stream_begin(csv_stream *s, FILE *out, const csv_out_style *style)
{
    memset(s, 0, sizeof *s);
    s->out = out;
    s->style = style;
}

/* The byte-order mark and the header row, as the style asks. */
static void write_header(csv_stream *s)
{
    const char d = s->style->delimiter;
    if (s->style->bom)
        fputs("\xEF\xBB\xBF", s->out);
    if (s->style->header) {
        if (s->style->sentence >= 0)
            fprintf(s->out, "sentence%c", d);
        fprintf(s->out, "variant%c", d);
        if (s->style->layer)
            fprintf(s->out, "layer%c", d);
        if (s->style->step)
            fprintf(s->out, "step%c", d);
        fprintf(s->out,
                "head%ctable%crow%crow_label%ccol%ccol_label%c"
                "value\n",
                d, d, d, d, d, d);
    }
    s->started = true;
}

int csv_stream_put(csv_stream *s, const table *t, mx_error *err)
{
    if (!s->started)
        write_header(s);
    const map_axes *m = t->grad ? NULL : map_axes_of_picture(t->id);
    const int rc =
        m != NULL && (m->row_key != MAP_KEY_NONE || m->col_key != MAP_KEY_NONE)
            ? write_map(s->out, &s->chunk, t, m, s->style)
            : write_table(s->out, &s->chunk, t, s->style);
    if (rc == -1)
        return err_nomem(err, _("the CSV output"));
    if (rc != 0 || textbuf_flush(&s->chunk, s->out) != 0 || ferror(s->out))
        return err_write(err, _("the output"), errno);
    return 0;
}

int csv_stream_end(csv_stream *s, mx_error *err)
{
    csv_stream_free(s);
    if (!s->started)
        write_header(s);
    return ferror(s->out) ? err_write(err, _("the output"), errno) : 0;
}

void csv_stream_free(csv_stream *s)
{
    textbuf_free(&s->chunk);
}

int render_csv(FILE *out, const table *const *tables, size_t n,
               const csv_out_style *style, mx_error *err)
{
    csv_stream s;
    csv_stream_begin(&s, out, style);
    for (size_t i = 0; i < n; i++)
        if (csv_stream_put(&s, tables[i], err) != 0) {
            csv_stream_free(&s);
            return -1;
        }
    return csv_stream_end(&s, err);
}
