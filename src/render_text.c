/* render_text.c: aligned tables for a terminal.
 *
 *   [fused] head 0: attn_weights (5 x 5)
 *                K:O   K:gato   K:sobe ...
 *   Q:O       1.0000   0.0000   0.0000
 *
 * Widths are counted in display cells (textwidth.h), so Chinese, accented
 * and emoji labels keep the columns straight.
 */
#include "render.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "i18n.h"
#include "textwidth.h"

#define ELLIPSIS "..."
#define SKIP ((size_t)-1) /* an index list entry that stands for "..." */

/* Which rows (or columns) of n to show: all of them, or when summarising
 * the first and last EDGE_ITEMS around SKIP. Returns the count written
 * into idx, which has room for n + 1 entries. */
static size_t shown_indices(size_t *idx, size_t n, bool summarise)
{
    size_t k = 0;
    if (!summarise || n <= 2 * EDGE_ITEMS) {
        for (size_t i = 0; i < n; i++)
            idx[k++] = i;
        return k;
    }
    for (size_t i = 0; i < EDGE_ITEMS; i++)
        idx[k++] = i;
    idx[k++] = SKIP;
    for (size_t i = n - EDGE_ITEMS; i < n; i++)
        idx[k++] = i;
    return k;
}

/* PyTorch prints a tensor in scientific notation when a value reaches
 * 1e8; so does a table here (fixed notation would print 39 digits for
 * 3e38). */
#define SCIENTIFIC_FROM 1e8f

/* Whether a finite value of t is at least SCIENTIFIC_FROM in size. With
 * the sign bit cleared, those values' bit patterns run from
 * SCIENTIFIC_FROM's up to infinity's (0x7f800000), so blocks of values
 * are tested with integer operations the compiler vectorises; the scan
 * stops after the first block holding one. */
static bool needs_scientific(const table *t)
{
    enum { BLOCK = 1024 };
    const float from = SCIENTIFIC_FROM;
    uint32_t low;
    memcpy(&low, &from, sizeof low);
    const uint32_t span = 0x7f800000u - low;
    const size_t n = t->values.rows * t->values.cols;
    for (size_t start = 0; start < n; start += BLOCK) {
        const size_t end = n - start < BLOCK ? n : start + BLOCK;
        uint32_t found = 0;
        for (size_t i = start; i < end; i++) {
            uint32_t bits;
            memcpy(&bits, &t->values.v[i], sizeof bits);
            found |= (uint32_t)((bits & 0x7fffffffu) - low < span);
        }
        if (found != 0)
            return true;
    }
    return false;
}

static void format_value(char *buf, size_t size, float v, const table *t,
                         bool scientific, const text_style *style)
{
    if (isinf(v))
        snprintf(buf, size, v < 0 ? "-inf" : "inf");
    else if (isnan(v))
        snprintf(buf, size, "nan");
    else if (scientific)
        snprintf(buf, size, "%.*e", style->precision, (double)v);
    else
        snprintf(buf, size, "%.*f", t->integral ? 0 : style->precision,
                 (double)v);
}

/* ---- --color: a heat map readable by colour-blind viewers ------------ */

static bool is_shaded(const table *t)
{
    return strcmp(t->name, "attn_weights") == 0 ||
           strcmp(t->name, "attn_weights_avg") == 0 ||
           strcmp(t->name, "attn_scores") == 0;
}

/* The scores whose -inf cells are t's masked cells: t itself, or for
 * weights the same head's scores in the run (head 0's for the average:
 * every head has the same mask). NULL when unknown. */
static const matrix *mask_of(const table *t, const text_style *style)
{
    if (strcmp(t->name, "attn_scores") == 0)
        return &t->values;
    if (style->trace == NULL)
        return NULL;
    int head = t->head == NO_HEAD ? 0 : t->head;
    const table *s = trace_find(style->trace, t->variant, head, "attn_scores");
    if (s == NULL || s->values.rows != t->values.rows ||
        s->values.cols != t->values.cols)
        return NULL;
    return &s->values;
}

static bool is_masked(const matrix *mask, size_t i, size_t j)
{
    if (mask == NULL)
        return false;
    const float s = *matrix_at(mask, i, j);
    return isinf(s) && s < 0;
}

/* The smallest and largest finite unmasked values of rows [r0, r1) of t;
 * false when there are none. */
static bool value_range(const table *t, const matrix *mask, size_t r0,
                        size_t r1, double *lo, double *hi)
{
    bool any = false;
    for (size_t i = r0; i < r1; i++)
        for (size_t j = 0; j < t->values.cols; j++) {
            const double v = *matrix_at(&t->values, i, j);
            if (!isfinite(v) || is_masked(mask, i, j))
                continue;
            if (!any || v < *lo)
                *lo = v;
            if (!any || v > *hi)
                *hi = v;
            any = true;
        }
    return any;
}

/* How a shaded table is coloured: its mask, and the ends of the scale
 * each row's cells are placed on. */
typedef struct {
    const matrix *mask; /* -inf where a cell is masked, or NULL */
    double *lo, *hi;    /* [rows], owned */
} shading;

static int shading_init(shading *sh, const table *t, const text_style *style)
{
    const size_t R = t->values.rows;
    sh->mask = mask_of(t, style);
    sh->lo = malloc((R + 1) * sizeof *sh->lo);
    sh->hi = malloc((R + 1) * sizeof *sh->hi);
    if (sh->lo == NULL || sh->hi == NULL)
        return -1;
    double lo = 0.0, hi = 1.0;
    const bool fixed =
        style->scale == SCALE_FIXED && strcmp(t->name, "attn_scores") != 0;
    if (!fixed && style->scale != SCALE_ROW)
        value_range(t, sh->mask, 0, R, &lo, &hi);
    for (size_t i = 0; i < R; i++) {
        sh->lo[i] = lo;
        sh->hi[i] = hi;
        if (style->scale == SCALE_ROW &&
            !value_range(t, sh->mask, i, i + 1, &sh->lo[i], &sh->hi[i]))
            sh->lo[i] = 0.0, sh->hi[i] = 1.0;
    }
    return 0;
}

static void shading_free(shading *sh)
{
    free(sh->lo);
    free(sh->hi);
}

/* Starts the colour of the cell (i, j); returns false for cells left
 * plain (not a number). */
static bool shade_start(FILE *out, const table *t, const shading *sh,
                        const text_style *style, size_t i, size_t j)
{
    const float v = *matrix_at(&t->values, i, j);
    if (is_masked(sh->mask, i, j)) {
        heat_masked(out, style->truecolor);
        return true;
    }
    if (isnan(v))
        return false;
    const double lo = sh->lo[i], hi = sh->hi[i];
    /* in double, where no float difference overflows */
    double x = hi > lo ? ((double)v - lo) / (hi - lo) : 1.0;
    heat_start(out, x, style->truecolor);
    return true;
}

/* The line under a shaded table: its scale and how masked cells look. */
static void print_legend(FILE *out, const table *t, const shading *sh,
                         const text_style *style, bool scientific)
{
    bool any_masked = false;
    for (size_t i = 0; i < t->values.rows && !any_masked; i++)
        for (size_t j = 0; j < t->values.cols && !any_masked; j++)
            any_masked = is_masked(sh->mask, i, j);
    const char *masked = any_masked ? _("grey") : NULL;
    if (style->scale == SCALE_ROW || t->values.rows == 0) {
        heat_legend(out, _("smallest"), _("largest"), _("in each row"), masked,
                    style->truecolor);
        return;
    }
    const bool fixed =
        style->scale == SCALE_FIXED && strcmp(t->name, "attn_scores") != 0;
    char a[64], b[64];
    format_value(a, sizeof a, (float)sh->lo[0], t, scientific, style);
    format_value(b, sizeof b, (float)sh->hi[0], t, scientific, style);
    heat_legend(out, a, b, fixed ? _("fixed") : _("the table's range"), masked,
                style->truecolor);
}

static void pad(FILE *out, size_t n)
{
    for (size_t i = 0; i < n; i++)
        fputc(' ', out);
}

/* Prints s in a field of `width` cells, right-aligned or left-aligned. */
static void put_cell(FILE *out, const char *s, size_t width, bool right)
{
    size_t w = display_width(s);
    size_t gap = width > w ? width - w : 0;
    if (right)
        pad(out, gap);
    fputs(s, out);
    if (!right)
        pad(out, gap);
}

/* Terminal-safe copies of the labels at idx (NULL at SKIP). */
static char **escaped_labels(const labels *l, const size_t *idx, size_t k)
{
    char **out = calloc(k > 0 ? k : 1, sizeof *out);
    if (out == NULL)
        return NULL;
    for (size_t i = 0; i < k; i++) {
        if (idx[i] == SKIP)
            continue;
        out[i] = display_escape(l->s[idx[i]]);
        if (out[i] == NULL) {
            for (size_t j = 0; j < i; j++)
                free(out[j]);
            free(out);
            return NULL;
        }
    }
    return out;
}

static void free_labels(char **l, size_t k)
{
    if (l == NULL)
        return;
    for (size_t i = 0; i < k; i++)
        free(l[i]);
    free(l);
}

/* "[fused] head 0: attn_weights (5 x 5)", wrapped at the screen width. */
static void print_header(FILE *out, const table *t, bool summarised,
                         size_t blocks, size_t width)
{
    char line[512];
    int n = snprintf(line, sizeof line, "[%s] ", t->variant);
    if (t->head != NO_HEAD)
        n += snprintf(line + n, sizeof line - (size_t)n, _("head %d: "),
                      t->head);
    n += snprintf(line + n, sizeof line - (size_t)n, "%s (%zu x %zu)", t->name,
                  t->values.rows, t->values.cols);
    if (summarised)
        n += snprintf(line + n, sizeof line - (size_t)n, "%s",
                      _(", summarised (--full prints all)"));
    if (blocks > 1)
        snprintf(line + n, sizeof line - (size_t)n,
                 ngettext(", in %zu block of columns (width %zu)",
                          ", in %zu blocks of columns (width %zu)", blocks),
                 blocks, width);
    write_wrapped(out, line, width, 2);
}

/* The shown columns [first, end) that fit beside the row labels in
 * `width` cells (at least one column): returns end. */
static size_t block_end(const size_t *col_width, size_t nc, size_t first,
                        size_t label_width, size_t width)
{
    size_t used = label_width, j = first;
    while (j < nc &&
           (j == first || width == 0 || used + 2 + col_width[j] <= width)) {
        used += 2 + col_width[j];
        j++;
    }
    return j;
}

/* The column labels, then every shown row, of the shown columns
 * [first, end). */
static void print_block(FILE *out, const table *t, const text_style *style,
                        const size_t *ri, size_t nr, const size_t *ci,
                        size_t first, size_t end, char **row_names,
                        char **col_names, const size_t *width,
                        size_t label_width, bool scientific, const shading *sh)
{
    const bool shaded = style->color && is_shaded(t);
    pad(out, label_width);
    for (size_t j = first; j < end; j++) {
        fputs("  ", out);
        put_cell(out, ci[j] == SKIP ? ELLIPSIS : col_names[j], width[j], true);
    }
    fputc('\n', out);
    for (size_t i = 0; i < nr; i++) {
        put_cell(out, ri[i] == SKIP ? ELLIPSIS : row_names[i], label_width,
                 false);
        for (size_t j = first; j < end; j++) {
            char buf[64] = ELLIPSIS;
            bool colored = false;
            fputs(shaded ? " " : "  ", out);
            if (ri[i] != SKIP && ci[j] != SKIP) {
                const float v = *matrix_at(&t->values, ri[i], ci[j]);
                format_value(buf, sizeof buf, v, t, scientific, style);
                colored =
                    shaded && shade_start(out, t, sh, style, ri[i], ci[j]);
            }
            if (shaded)
                fputc(' ', out); /* a margin inside the coloured cell */
            put_cell(out, buf, width[j], true);
            if (colored)
                heat_end(out);
        }
        fputc('\n', out);
    }
}

static int render_one(FILE *out, const table *t, const text_style *style,
                      mx_error *err)
{
    const size_t R = t->values.rows, C = t->values.cols;
    const bool summarise_rows = !style->full && R * C > SUMMARY_THRESHOLD;
    const bool summarise_cols =
        summarise_rows || (!style->full && C > WIDE_COLUMNS);
    const bool shaded = style->color && is_shaded(t);
    const bool scientific = needs_scientific(t);
    shading sh = {0};
    size_t *ri = malloc((R + 1) * sizeof *ri);
    size_t *ci = malloc((C + 1) * sizeof *ci);
    size_t *width = calloc(C + 1, sizeof *width);
    char **row_names = NULL, **col_names = NULL;
    size_t nr = 0, nc = 0; /* rows and columns shown */
    int rc = -1;
    if (ri == NULL || ci == NULL || width == NULL ||
        (shaded && shading_init(&sh, t, style) != 0)) {
        err_nomem(err, _("a table's layout"));
        goto done;
    }
    nr = shown_indices(ri, R, summarise_rows);
    nc = shown_indices(ci, C, summarise_cols);
    row_names = escaped_labels(t->rows, ri, nr);
    col_names = escaped_labels(t->cols, ci, nc);
    if (row_names == NULL || col_names == NULL) {
        err_nomem(err, _("labels"));
        goto done;
    }

    /* widths: the row label column, then each shown column */
    size_t label_width = strlen(ELLIPSIS);
    for (size_t i = 0; i < nr; i++)
        if (row_names[i] != NULL && display_width(row_names[i]) > label_width)
            label_width = display_width(row_names[i]);
    for (size_t j = 0; j < nc; j++) {
        width[j] = strlen(ELLIPSIS);
        if (ci[j] == SKIP)
            continue;
        if (display_width(col_names[j]) > width[j])
            width[j] = display_width(col_names[j]);
        for (size_t i = 0; i < nr; i++) {
            if (ri[i] == SKIP)
                continue;
            char buf[64];
            format_value(buf, sizeof buf, *matrix_at(&t->values, ri[i], ci[j]),
                         t, scientific, style);
            if (strlen(buf) > width[j])
                width[j] = strlen(buf);
        }
    }

    /* a table wider than the screen is printed in blocks of columns,
     * each with the row labels, as PyTorch and NumPy wrap */
    size_t blocks = 0;
    for (size_t j = 0; j < nc;
         j = block_end(width, nc, j, label_width, style->width))
        blocks++;
    print_header(out, t, nr < R || nc < C, blocks, style->width);
    for (size_t j = 0; j < nc;) {
        size_t end = block_end(width, nc, j, label_width, style->width);
        if (j > 0)
            fputc('\n', out);
        print_block(out, t, style, ri, nr, ci, j, end, row_names, col_names,
                    width, label_width, scientific, &sh);
        j = end;
    }
    if (shaded)
        print_legend(out, t, &sh, style, scientific);
    rc = ferror(out) ? err_write(err, _("the output"), errno) : 0;
done:
    free_labels(row_names, nr);
    free_labels(col_names, nc);
    free(ri);
    free(ci);
    free(width);
    shading_free(&sh);
    return rc;
}

int render_each(FILE *out, const table *const *tables, size_t n,
                const text_style *style, render_table_fn one, mx_error *err)
{
    for (size_t i = 0; i < n; i++) {
        if (i > 0)
            fputc('\n', out);
        if (style->before != NULL)
            style->before(out, tables[i], i > 0 ? tables[i - 1] : NULL,
                          style->before_ctx);
        if (one(out, tables[i], style, err) != 0)
            return -1;
    }
    return 0;
}

int render_text(FILE *out, const table *const *tables, size_t n,
                const text_style *style, mx_error *err)
{
    return render_each(out, tables, n, style, render_one, err);
}
