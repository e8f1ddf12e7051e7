/* render_torch.c: --style torch, each table as print(t) shows a float32
 * tensor of its shape with PyTorch's print options (torch/_tensor_str.py):
 *
 *   [fused] head 0: attn_weights (5 x 5)
 *   tensor([[1.0000, 0.0000, ...],
 *           ...])
 *
 * The formatter looks at the finite nonzero values (only the summarised
 * ones when the tensor is summarised) and picks one of three modes:
 *   - integer mode, every such value whole: "1." (scientific if the
 *     largest over the smallest magnitude is over 1000, or the largest is
 *     over 1e8);
 *   - scientific, "-1.0751e-01": that ratio over 1000, the largest over
 *     1e8, or the smallest under 1e-4;
 *   - fixed, "-0.1075".
 * Every value is right-aligned to the widest of those values. Rows wrap at
 * `linewidth` 80 characters; a tensor of more than 1000 values shows the
 * first and last 3 rows and columns around "...". */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "render/render.h"

#include "base/i18n.h"

#define TORCH_LINEWIDTH 80
/* len("tensor(") + 1: the indent of rows after the first */
#define ROW_INDENT 8

typedef struct {
    bool int_mode;
    bool sci_mode;
    int precision;
    size_t max_width;
} torch_formatter;

/* Python's '{:.Nf}' / '{:.Ne}' / '{:.0f}' of the double of v, NaN never
 * signed, as float.__format__ writes it. */
static size_t py_format(char *buf, size_t size, double v, char kind,
                        int precision)
{
    if (isnan(v))
        return (size_t)snprintf(buf, size, "nan");
    if (isinf(v))
        return (size_t)snprintf(buf, size, v < 0 ? "-inf" : "inf");
    if (kind == 'e')
        return (size_t)snprintf(buf, size, "%.*e", precision, v);
    return (size_t)snprintf(buf, size, "%.*f", precision, v);
}

/* _Formatter.__init__ over the n values of v (the summarised ones when
 * summarising). */
static void formatter_init(torch_formatter *f, const float *v, size_t n,
                           int precision)
{
    f->int_mode = true;
    f->sci_mode = false;
    f->precision = precision;
    f->max_width = 1;
    double lo = INFINITY, hi = 0.0;
    size_t count = 0;
    for (size_t i = 0; i < n; i++) {
        if (!isfinite(v[i]) || v[i] == 0.0f)
            continue;
        const double a = fabs((double)v[i]);
        lo = a < lo ? a : lo;
        hi = a > hi ? a : hi;
        if (v[i] != ceilf(v[i]))
            f->int_mode = false;
        count++;
    }
    if (count == 0)
        return;
    if (f->int_mode)
        f->sci_mode = hi / lo > 1000.0 || hi > 1.0e8;
    else
        f->sci_mode = hi / lo > 1000.0 || hi > 1.0e8 || lo < 1.0e-4;
    char buf[64];
    for (size_t i = 0; i < n; i++) {
        if (!isfinite(v[i]) || v[i] == 0.0f)
            continue;
        size_t len;
        if (f->sci_mode)
            len = py_format(buf, sizeof buf, v[i], 'e', precision);
        else if (f->int_mode)
            len = py_format(buf, sizeof buf, v[i], 'f', 0) + 1;
        else
            len = py_format(buf, sizeof buf, v[i], 'f', precision);
        f->max_width = len > f->max_width ? len : f->max_width;
    }
}

/* _Formatter.format: the value right-aligned to max_width. */
static void formatter_format(char *buf, size_t size, const torch_formatter *f,
                             float v)
{
    char s[64];
    size_t len;
    if (f->sci_mode) {
        len = py_format(s, sizeof s, v, 'e', f->precision);
    } else if (f->int_mode) {
        len = py_format(s, sizeof s, v, 'f', 0);
        if (isfinite(v))
            s[len++] = '.', s[len] = '\0';
    } else {
        len = py_format(s, sizeof s, v, 'f', f->precision);
    }
    const size_t padding = f->max_width > len ? f->max_width - len : 0;
    snprintf(buf, size, "%*s%s", (int)padding, "", s);
}

/* The indices shown along a dimension of n: all, or the first and last
 * EDGE_ITEMS with SIZE_MAX for the "..." between. Returns how many. */
static size_t shown(size_t *idx, size_t n, bool summarise)
{
    size_t k = 0;
    if (summarise && n > 2 * EDGE_ITEMS) {
        for (size_t i = 0; i < EDGE_ITEMS; i++)
            idx[k++] = i;
        idx[k++] = SIZE_MAX;
        for (size_t i = n - EDGE_ITEMS; i < n; i++)
            idx[k++] = i;
    } else {
        for (size_t i = 0; i < n; i++)
            idx[k++] = i;
    }
    return k;
}

/* _vector_str: one row, its elements wrapped elements_per_line at a time. */
static void print_row(FILE *out, const table *t, size_t r, const size_t *col,
                      size_t k, const torch_formatter *f)
{
    const size_t element = f->max_width + 2;
    size_t per_line = (TORCH_LINEWIDTH - ROW_INDENT) / element;
    per_line = per_line > 0 ? per_line : 1;
    char buf[96];
    fputc('[', out);
    for (size_t j = 0; j < k; j++) {
        if (j > 0)
            fputs(j % per_line == 0 ? ",\n         " : ", ", out);
        if (col[j] == SIZE_MAX) {
            fputs(" ...", out);
        } else {
            formatter_format(buf, sizeof buf, f, trace_cell(t, r, col[j]));
            fputs(buf, out);
        }
    }
    fputc(']', out);
}

int torch_table(FILE *out, const table *t, const text_style *style,
                mx_error *err)
{
    const size_t R = t->values.rows, C = t->values.cols;
    const bool summarise = !style->full && R * C > SUMMARY_THRESHOLD;
    size_t *row = malloc((R + 1) * sizeof *row);
    size_t *col = malloc((C + 1) * sizeof *col);
    const size_t nr = row ? shown(row, R, summarise) : 0;
    const size_t nc = col ? shown(col, C, summarise) : 0;
    float *kept = malloc((nr * nc > 0 ? nr * nc : 1) * sizeof *kept);
    if (row == NULL || col == NULL || kept == NULL) {
        free(row);
        free(col);
        free(kept);
        return err_nomem(err, _("a torch-style table"));
    }
    /* get_summarized_data: the values the formatter looks at */
    size_t n = 0;
    for (size_t i = 0; i < nr; i++)
        for (size_t j = 0; j < nc; j++)
            if (row[i] != SIZE_MAX && col[j] != SIZE_MAX)
                kept[n++] = trace_cell(t, row[i], col[j]);
    torch_formatter f;
    formatter_init(&f, kept, n, style->precision);

    fprintf(out, "[%s] ", table_variant_name(t));
    if (t->head != NO_HEAD)
        fprintf(out, _("head %d: "), t->head);
    fprintf(out, "%s (%zu x %zu)\ntensor([", table_name(t), R, C);
    for (size_t i = 0; i < nr; i++) {
        if (i > 0)
            fputs(",\n        ", out);
        if (row[i] == SIZE_MAX)
            fputs("...", out);
        else
            print_row(out, t, row[i], col, nc, &f);
    }
    fputs("])\n", out);
    free(row);
    free(col);
    free(kept);
    return 0;
}
