/* render_csv.c: tidy CSV, one row per value. */
#include "render.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <csv.h>

static void use_decimal_comma(char *buf, bool decimal_comma)
{
    char *dot = strchr(buf, '.');
    if (decimal_comma && dot != NULL)
        *dot = ',';
}

void format_float_exact(char *buf, size_t size, float v, bool decimal_comma)
{
    if (buf == NULL || size == 0)
        return;
    if (isnan(v)) {
        snprintf(buf, size, "nan");
        return;
    }
    if (isinf(v)) {
        snprintf(buf, size, v < 0 ? "-inf" : "inf");
        return;
    }
    /* whole numbers (ids, zeros) without an exponent */
    if (fabsf(v) < 1e9f && v == truncf(v)) {
        snprintf(buf, size, "%.0f", (double)v);
        return;
    }
    /* 9 significant digits always read back as the same float32; most
     * values need fewer. Read back as --embeddings, --weights and
     * float() then torch.tensor() read: decimal -> double -> float32 */
    for (int digits = 1; digits <= 9; digits++) {
        snprintf(buf, size, "%.*g", digits, (double)v);
        if ((float)strtod(buf, NULL) == v)
            break;
    }
    use_decimal_comma(buf, decimal_comma);
}

void write_csv_field(FILE *out, const char *s, char delimiter)
{
    const char special[] = {delimiter, '"', '\r', '\n', '\0'};
    if (strpbrk(s, special) != NULL)
        csv_fwrite(out, s, strlen(s));
    else
        fputs(s, out);
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
    for (size_t i = 0; i < n; i++) {
        const table *t = tables[i];
        char head[24] = "";
        if (t->head != NO_HEAD)
            snprintf(head, sizeof head, "%d", t->head);
        for (size_t r = 0; r < t->values.rows; r++) {
            for (size_t c = 0; c < t->values.cols; c++) {
                char value[32];
                format_float_exact(value, sizeof value,
                                   *matrix_at(&t->values, r, c),
                                   style->decimal_comma);
                if (style->sentence >= 0)
                    fprintf(out, "%ld%c", style->sentence, d);
                fprintf(out, "%s%c%s%c%s%c%zu%c", t->variant, d, head, d,
                        t->name, d, r, d);
                write_csv_field(out, t->rows->s[r], d);
                fprintf(out, "%c%zu%c", d, c, d);
                write_csv_field(out, t->cols->s[c], d);
                fprintf(out, "%c%s\n", d, value);
            }
        }
        if (ferror(out))
            return err_write(err, "the output", errno);
    }
    return 0;
}
