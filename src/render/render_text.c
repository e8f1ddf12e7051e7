/* render_text.c: aligned tables for a terminal.
 *
 *   [fused] head 0: attn_weights (5 x 5)
 *                K:O   K:gato   K:sobe ...
 *   Q:O       1.0000   0.0000   0.0000
 *
 * Widths are counted in display cells (textwidth.h), so Chinese, accented
 * and emoji labels keep the columns straight. One table (text_table), or
 * the heads of one table side by side (text_grid, --layout grid);
 * text_stream.c puts them one after another.
 */
#include "render/render.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/i18n.h"
#include "numerics/floatfmt.h"
#include "render/layout.h"
#include "render/shading.h"
#include "render/text_rounds.h"
#include "render/textwidth.h"

#define ELLIPSIS "..."
#define SKIP ((size_t)-1)  /* an index list entry that stands for "..." */
#define LABEL_MIN_CELLS 24 /* a long row label is cut to no fewer cells */

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

/* A value of t's column col (NO_COLUMN for a legend's bound). */
#define NO_COLUMN SIZE_MAX

static void format_value(char *buf, size_t size, float v, const table *t,
                         size_t col, bool scientific, const text_style *style)
{
    v = unsigned_zero(v); /* -0.0 (patch_resid's 0 / -d) as 0.0000 */
    if (isinf(v))
        snprintf(buf, size, v < 0 ? "-inf" : "inf");
    else if (isnan(v))
        snprintf(buf, size, "nan");
    else if (scientific)
        snprintf(buf, size, "%.*e", style->precision, (double)v);
    else {
        const int digits =
            t->summary > 0 && t->summary < style->precision ? t->summary
            : (col == NO_COLUMN ? t->integral : table_col_integral(t, col))
                ? 0
                : style->precision;
        if (size < FLOAT_TEXT_SIZE || float_fixed_text(buf, v, digits) == 0)
            snprintf(buf, size, "%.*f", digits, (double)v);
    }
}

/* The size of a cell's text: a value, or a token and its value. */
#define CELL_TEXT_SIZE 160

/* Cell (r, c) of t as printed: its value, after its text when the table
 * writes one in each cell (table.cells: "␣cat 0.0614"), made safe for
 * the terminal and cut to fit buf. */
static void cell_text(char *buf, size_t size, const table *t, size_t r,
                      size_t c, bool scientific, const text_style *style)
{
    char value[64];
    format_value(value, sizeof value, trace_cell(t, r, c), t, c, scientific,
                 style);
    char *word = t->cells != NULL
                     ? display_escape(t->cells->s[r * t->values.cols + c])
                     : NULL;
    if (word != NULL)
        snprintf(buf, size, "%.*s %s", (int)(size - strlen(value) - 2), word,
                 value);
    else
        snprintf(buf, size, "%s", value);
    free(word);
}

/* ---- --color: a heat map readable by colour-blind viewers ------------ */

/* Starts the colour of the cell (i, j); returns false for cells left
 * plain (not a number). */
static bool shade_start(FILE *out, const table *t, const shading *sh,
                        const text_style *style, size_t i, size_t j)
{
    const float v = *matrix_at(&t->values, i, j);
    if (shading_masked(sh, i, j) || trace_cell_masked(t, i, j)) {
        heat_masked(out, style->truecolor);
        return true;
    }
    if (isnan(v))
        return false;
    heat_start(out, shading_x(sh, i, v), style->truecolor);
    return true;
}

/* The line under a shaded table: its scale and how masked cells look. */
static void print_legend(FILE *out, const table *t, const shading *sh,
                         const text_style *style, bool scientific)
{
    bool any_masked = false;
    for (size_t i = 0; i < t->values.rows && !any_masked; i++)
        for (size_t j = 0; j < t->values.cols && !any_masked; j++)
            any_masked = shading_masked(sh, i, j);
    const char *masked = any_masked ? _("grey") : NULL;
    if (style->scale == SCALE_ROW || t->values.rows == 0) {
        heat_legend(out, _("smallest"), _("largest"), _("in each row"), masked,
                    style->width, style->truecolor);
        return;
    }
    const bool fixed = on_fixed_scale(t, style->scale);
    char a[64], b[64];
    format_value(a, sizeof a, (float)sh->lo[0], t, NO_COLUMN, scientific,
                 style);
    format_value(b, sizeof b, (float)sh->hi[0], t, NO_COLUMN, scientific,
                 style);
    heat_legend(out, a, b, fixed ? _("fixed") : _("the table's range"), masked,
                style->width, style->truecolor);
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

/* "[fused] head 0: attn_weights (5 x 5)", wrapped at the screen width;
 * the note of a table printed in blocks of columns ends the line when
 * the whole title fits in width, else it has a line of its own (whole,
 * "(width 80)" with its number, unless the width is under the note's). */
static void print_header(FILE *out, const table *t, bool summarised,
                         size_t blocks, size_t width)
{
    char line[512], place[16];
    int n = snprintf(line, sizeof line, "[%s] ",
                     table_place(place, sizeof place, t));
    if (t->step > 0)
        /* TRANSLATORS: a generation step's table, before "head %d: " */
        n += snprintf(line + n, sizeof line - (size_t)n, _("step %d, "),
                      t->step);
    if (t->head != NO_HEAD)
        n += snprintf(line + n, sizeof line - (size_t)n, _("head %d: "),
                      t->head);
    n += snprintf(line + n, sizeof line - (size_t)n, "%s (%zu x %zu)",
                  table_name(t), t->values.rows, t->values.cols);
    if (summarised)
        n += snprintf(line + n, sizeof line - (size_t)n, "%s",
                      _(", summarised (--full prints all)"));
    if (blocks > 1) {
        snprintf(line + n, sizeof line - (size_t)n,
                 ngettext(", in %zu block of columns (width %zu)",
                          ", in %zu blocks of columns (width %zu)", blocks),
                 blocks, width);
        if (display_width(line) > width) {
            line[n] = '\0';
            write_wrapped(out, line, width, 2);
            line[0] = line[1] = ' '; /* the indent of the title's lines */
            snprintf(line + 2, sizeof line - 2,
                     /* TRANSLATORS: under a table's title, on its own line */
                     ngettext("in %zu block of columns (width %zu)",
                              "in %zu blocks of columns (width %zu)", blocks),
                     blocks, width);
        }
    }
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
 * [first, end); the row labels first unless labels is false. */
static void print_block(FILE *out, const table *t, const text_style *style,
                        const size_t *ri, size_t nr, const size_t *ci,
                        size_t first, size_t end, char **row_names,
                        char **col_names, const size_t *width,
                        size_t label_width, bool with_labels, bool scientific,
                        const shading *sh)
{
    const bool shaded = style->color && is_shaded(t);
    if (with_labels)
        pad(out, label_width);
    for (size_t j = first; j < end; j++) {
        fputs("  ", out);
        put_cell(out, ci[j] == SKIP ? ELLIPSIS : col_names[j], width[j], true);
    }
    fputc('\n', out);
    for (size_t i = 0; i < nr; i++) {
        if (with_labels)
            put_cell(out, ri[i] == SKIP ? ELLIPSIS : row_names[i], label_width,
                     false);
        for (size_t j = first; j < end; j++) {
            char buf[CELL_TEXT_SIZE] = ELLIPSIS;
            bool colored = false;
            fputs(shaded ? " " : "  ", out);
            if (ri[i] != SKIP && ci[j] != SKIP) {
                cell_text(buf, sizeof buf, t, ri[i], ci[j], scientific, style);
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

/* A table laid out for printing: the rows and columns shown (summarised
 * or not), their labels made safe, and the widths of the columns. */
typedef struct {
    const table *t;
    size_t nr, nc;      /* rows and columns shown */
    size_t *ri, *ci;    /* [nr], [nc]: their indices, or SKIP */
    size_t *width;      /* [nc]: cells of each shown column */
    char **row_names;   /* [nr], owned */
    char **col_names;   /* [nc], owned */
    size_t label_width; /* cells of the row labels */
    bool scientific, shaded;
    shading sh;
} table_view;

static void view_free(table_view *v)
{
    free_labels(v->row_names, v->nr);
    free_labels(v->col_names, v->nc);
    free(v->ri);
    free(v->ci);
    free(v->width);
    shading_free(&v->sh);
}

/* The longest a label (a row's or a column's) is printed on a screen of
 * `width` cells (0: no limit): half the screen beside the other, though
 * never under LABEL_MIN_CELLS, so that a word of the sentence is cut to
 * the same length in every table of a run, as row and as column. */
static size_t label_cap(size_t width)
{
    if (width == 0)
        return SIZE_MAX;
    return (width - 2) / 2 > LABEL_MIN_CELLS ? (width - 2) / 2
                                             : LABEL_MIN_CELLS;
}

/* names[k], when wider than room cells, cut to fit, "..." in its middle
 * (display_cut). */
static int cut_label(char **names, size_t k, size_t room, mx_error *err)
{
    if (names[k] == NULL || display_width(names[k]) <= room)
        return 0;
    char *cut = display_cut(names[k], room);
    if (cut == NULL)
        return err_nomem(err, _("labels"));
    free(names[k]);
    names[k] = cut;
    return 0;
}

/* The row labels' width; a label that would leave the widest shown column
 * of numbers no room beside it on a screen of `width` cells (0: no limit),
 * or longer than label_cap, is cut to fit, "..." in its middle
 * (display_cut), though never under LABEL_MIN_CELLS: patch_baselines'
 * "clean: TEXT" of a long text. Then the column labels are cut to the room
 * the row labels leave, so that a block of one column fits the screen.
 * The CSV keeps them whole. */
static int cut_labels(table_view *v, size_t width, mx_error *err)
{
    size_t widest = 0;
    for (size_t j = 0; j < v->nc; j++)
        widest = v->width[j] > widest ? v->width[j] : widest;
    size_t room = width == 0                             ? SIZE_MAX
                  : width > widest + 2 + LABEL_MIN_CELLS ? width - widest - 2
                                                         : LABEL_MIN_CELLS;
    if (room > label_cap(width))
        room = label_cap(width);
    v->label_width = strlen(ELLIPSIS);
    for (size_t i = 0; i < v->nr; i++) {
        if (cut_label(v->row_names, i, room, err) != 0)
            return -1;
        if (v->row_names[i] != NULL &&
            display_width(v->row_names[i]) > v->label_width)
            v->label_width = display_width(v->row_names[i]);
    }
    const size_t least = strlen(ELLIPSIS) + 2,
                 col_room = width == 0 ? SIZE_MAX
                            : width > v->label_width + 2 + least
                                ? width - v->label_width - 2
                                : least;
    for (size_t j = 0; j < v->nc; j++) {
        if (v->ci[j] == SKIP)
            continue;
        if (cut_label(v->col_names, j, col_room, err) != 0)
            return -1;
        if (display_width(v->col_names[j]) > v->width[j])
            v->width[j] = display_width(v->col_names[j]);
    }
    return 0;
}

static int view_init(table_view *v, const table *t, const text_style *style,
                     mx_error *err)
{
    const size_t R = t->values.rows, C = t->values.cols;
    const bool summarise_rows = !style->full && R * C > SUMMARY_THRESHOLD;
    const bool summarise_cols =
        summarise_rows || (!style->full && C > WIDE_COLUMNS);
    memset(v, 0, sizeof *v);
    v->t = t;
    v->shaded = style->color && is_shaded(t);
    v->scientific = needs_scientific(t);
    v->ri = malloc((R + 1) * sizeof *v->ri);
    v->ci = malloc((C + 1) * sizeof *v->ci);
    v->width = calloc(C + 1, sizeof *v->width);
    if (v->ri == NULL || v->ci == NULL || v->width == NULL ||
        (v->shaded && shading_init(&v->sh, t, style->scale, style->trace) != 0))
        return err_nomem(err, _("a table's layout"));
    v->nr = shown_indices(v->ri, R, summarise_rows);
    v->nc = shown_indices(v->ci, C, summarise_cols);
    v->row_names = escaped_labels(t->rows, v->ri, v->nr);
    v->col_names = escaped_labels(t->cols, v->ci, v->nc);
    if (v->row_names == NULL || v->col_names == NULL)
        return err_nomem(err, _("labels"));

    /* widths: each shown column's numbers, then the labels (cut_labels) */
    for (size_t j = 0; j < v->nc; j++) {
        v->width[j] = strlen(ELLIPSIS);
        if (v->ci[j] == SKIP)
            continue;
        for (size_t i = 0; i < v->nr; i++) {
            if (v->ri[i] == SKIP)
                continue;
            char buf[CELL_TEXT_SIZE];
            cell_text(buf, sizeof buf, t, v->ri[i], v->ci[j], v->scientific,
                      style);
            if (display_width(buf) > v->width[j])
                v->width[j] = display_width(buf);
        }
    }
    return cut_labels(v, style->width, err);
}

static bool view_summarised(const table_view *v)
{
    return v->nr < v->t->values.rows || v->nc < v->t->values.cols;
}

int text_table(FILE *out, const table *t, const text_style *style,
               mx_error *err)
{
    table_view v;
    if (view_init(&v, t, style, err) != 0) {
        view_free(&v);
        return -1;
    }
    /* a table wider than the screen is printed in blocks of columns,
     * each with the row labels, as PyTorch and NumPy wrap */
    size_t blocks = 0;
    for (size_t j = 0; j < v.nc;
         j = block_end(v.width, v.nc, j, v.label_width, style->width))
        blocks++;
    print_header(out, t, view_summarised(&v), blocks, style->width);
    for (size_t j = 0; j < v.nc;) {
        size_t end = block_end(v.width, v.nc, j, v.label_width, style->width);
        if (j > 0)
            fputc('\n', out);
        print_block(out, t, style, v.ri, v.nr, v.ci, j, end, v.row_names,
                    v.col_names, v.width, v.label_width, true, v.scientific,
                    &v.sh);
        j = end;
    }
    if (v.shaded)
        print_legend(out, t, &v.sh, style, v.scientific);
    if (!v.scientific)
        text_rounds_note(out, t, style->precision);
    view_free(&v);
    return ferror(out) ? err_write(err, _("the output"), errno) : 0;
}

/* ---- --layout grid: the heads of one table side by side ---------------- */

/* A table of the grid alone, written into *text (owned by the caller):
 * "head h", the column labels and values, and under them, for a table
 * shaded on its own range, the short legend. With labels_only, the
 * column of row labels instead, with blank lines beside the rest. */
static int panel_text(char **text, const table_view *v, const text_style *style,
                      bool labels_only, mx_error *err)
{
    size_t len = 0;
    FILE *out = open_memstream(text, &len);
    if (out == NULL)
        return err_nomem(err, _("a grid of tables"));
    const bool short_legend = v->shaded && style->scale != SCALE_ROW &&
                              !on_fixed_scale(v->t, style->scale);
    if (labels_only) {
        fputs("\n\n", out); /* beside "head h" and the column labels */
        for (size_t i = 0; i < v->nr; i++) {
            put_cell(out, v->ri[i] == SKIP ? ELLIPSIS : v->row_names[i],
                     v->label_width, false);
            fputc('\n', out);
        }
    } else {
        fputs("  ", out);
        if (v->t->head == NO_HEAD)
            fputs(table_name(v->t), out); /* a parameter */
        else
            fprintf(out, _("head %d"), v->t->head);
        fputc('\n', out);
        print_block(out, v->t, style, v->ri, v->nr, v->ci, 0, v->nc,
                    v->row_names, v->col_names, v->width, v->label_width, false,
                    v->scientific, &v->sh);
        if (short_legend) {
            char lo[64], hi[64];
            format_value(lo, sizeof lo, (float)v->sh.lo[0], v->t, NO_COLUMN,
                         v->scientific, style);
            format_value(hi, sizeof hi, (float)v->sh.hi[0], v->t, NO_COLUMN,
                         v->scientific, style);
            fputs("  ", out);
            heat_ramp(out, lo, hi, style->truecolor);
            fputc('\n', out);
        }
    }
    /* glibc's fclose of a memory stream leaves *text NULL when its last
     * allocation fails */
    return fclose(out) == 0 && *text != NULL
               ? 0
               : err_nomem(err, _("a grid of tables"));
}

/* The heading of a grid: "[fused] heads 0 to 7: attn_weights (5 x 5)", or
 * of parameters, "[wrapper] heads.0.W_query.weight to
 * heads.1.W_value.weight (2 x 3 each)". */
static void print_grid_header(FILE *out, const table *first, const table *last,
                              bool summarised, size_t width)
{
    char line[512], place[16];
    int n = snprintf(line, sizeof line, "[%s] ",
                     table_place(place, sizeof place, first));
    if (first->head == NO_HEAD) /* a module's parameters of one shape */
        n += snprintf(line + n, sizeof line - (size_t)n,
                      _("%s to %s (%zu x %zu each)"), table_name(first),
                      table_name(last), first->values.rows, first->values.cols);
    else {
        if (first->step > 0)
            n += snprintf(line + n, sizeof line - (size_t)n, _("step %d, "),
                          first->step);
        n += snprintf(line + n, sizeof line - (size_t)n, _("heads %d to %d: "),
                      first->head, last->head);
        n +=
            snprintf(line + n, sizeof line - (size_t)n, "%s (%zu x %zu)",
                     table_name(first), first->values.rows, first->values.cols);
    }
    if (summarised)
        snprintf(line + n, sizeof line - (size_t)n, "%s",
                 _(", summarised (--full prints all)"));
    write_wrapped(out, line, width, 2);
}

/* The legend line under a grid of shaded tables. */
static void print_grid_legend(FILE *out, const table_view *views, size_t n,
                              const text_style *style)
{
    bool any_masked = false;
    for (size_t k = 0; k < n; k++)
        for (size_t i = 0; i < views[k].t->values.rows && !any_masked; i++)
            for (size_t j = 0; j < views[k].t->values.cols && !any_masked; j++)
                any_masked = shading_masked(&views[k].sh, i, j);
    const char *masked = any_masked ? _("grey") : NULL;
    const table *t = views[0].t;
    if (style->scale == SCALE_ROW)
        heat_legend(out, _("smallest"), _("largest"), _("in each row"), masked,
                    style->width, style->truecolor);
    else if (on_fixed_scale(t, style->scale))
        heat_legend(out, "0", "1", _("fixed"), masked, style->width,
                    style->truecolor);
    else
        heat_legend(out, _("smallest"), _("largest"),
                    _("each head's own range"), masked, style->width,
                    style->truecolor);
}

/* Whether the n tables can form a grid: the same shape and row labels. */
static bool same_shape(const table *const *group, size_t n)
{
    for (size_t k = 1; k < n; k++)
        if (group[k]->values.rows != group[0]->values.rows ||
            group[k]->values.cols != group[0]->values.cols ||
            group[k]->rows != group[0]->rows)
            return false;
    return true;
}

/* How many of the panels from `first` fit beside the row labels in
 * `width` cells (0: no limit). */
static size_t row_fits(const size_t *panel_width, size_t n, size_t first,
                       size_t label_width, size_t width)
{
    size_t used = label_width, k = first;
    while (k < n &&
           (width == 0 ||
            used + panel_width[k] + (k > first ? LAYOUT_SEPARATOR_CELLS : 0) <=
                width)) {
        used += panel_width[k] + (k > first ? LAYOUT_SEPARATOR_CELLS : 0);
        k++;
    }
    return k - first;
}

/* Whether the panels make a grid within width: two or more side by side
 * in the first row, at least one in every other, and the legend line (of
 * `legend` cells, 0 without one) no wider. */
static bool grid_fits(const size_t *panel_width, size_t n, size_t label_width,
                      size_t legend, size_t width)
{
    if (width == 0)
        return true;
    if (legend > width || row_fits(panel_width, n, 0, label_width, width) < 2)
        return false;
    for (size_t first = 0; first < n;) {
        const size_t k = row_fits(panel_width, n, first, label_width, width);
        if (k == 0)
            return false;
        first += k;
    }
    return true;
}

/* Cells of the legend line under a grid of the views, 0 when unshaded:
 * on one line, as a grid is only chosen when its legend need not be
 * broken. */
static size_t grid_legend_width(const table_view *views, size_t n,
                                const text_style *style)
{
    text_style one_line = *style;
    one_line.width = 0;
    if (!views[0].shaded)
        return 0;
    char *text = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&text, &len);
    if (mem == NULL)
        return 0;
    print_grid_legend(mem, views, n, &one_line);
    size_t w = fclose(mem) == 0 && text != NULL ? block_width(text) : 0;
    free(text);
    return w;
}

/* The length of a parameter's submodule in its state_dict() name: up to
 * the layer's name ("heads.1." of "heads.1.W_key.weight", "" of
 * "W_key.weight"). */
static size_t submodule_length(const char *name)
{
    const char *last = strrchr(name, '.');
    if (last == NULL)
        return 0;
    while (last > name && last[-1] != '.')
        last--;
    return (size_t)(last - name);
}

/* How many of the n parameters from `first` belong to its submodule. */
static size_t same_submodule(const table *const *group, size_t n, size_t first)
{
    const char *a = table_name(group[first]);
    const size_t len = submodule_length(a);
    size_t k = first + 1;
    while (k < n) {
        const char *b = table_name(group[k]);
        if (submodule_length(b) != len || strncmp(a, b, len) != 0)
            break;
        k++;
    }
    return k - first;
}

int text_grid(FILE *out, const table *const *group, size_t n,
              const text_style *style, bool *done, mx_error *err)
{
    *done = false;
    if (n < 2 || !same_shape(group, n))
        return 0;
    table_view *views = calloc(n, sizeof *views);
    char **texts = calloc(n + 1, sizeof *texts); /* [n] the labels */
    size_t *panel_width = calloc(n, sizeof *panel_width);
    const char **row = calloc(n + 1, sizeof *row);
    unsigned char *sep = calloc(n + 1, 1);
    size_t ready = 0;
    int rc = 0;
    if (views == NULL || texts == NULL || panel_width == NULL || row == NULL ||
        sep == NULL)
        rc = err_nomem(err, _("a grid of tables"));
    for (; rc == 0 && ready < n; ready++) {
        rc = view_init(&views[ready], group[ready], style, err);
        if (rc == 0)
            rc = panel_text(&texts[ready], &views[ready], style, false, err);
        if (rc == 0)
            panel_width[ready] = block_width(texts[ready]);
    }
    if (rc == 0)
        rc = panel_text(&texts[n], &views[0], style, true, err);
    size_t label_width = rc == 0 ? block_width(texts[n]) : 0;
    if (rc == 0 &&
        grid_fits(panel_width, n, label_width,
                  grid_legend_width(views, n, style), style->width)) {
        *done = true;
        bool summarised = false;
        for (size_t k = 0; k < n; k++)
            summarised = summarised || view_summarised(&views[k]);
        print_grid_header(out, group[0], group[n - 1], summarised,
                          style->width);
        /* heads: as many in a row as fit; parameters: a row for each
         * submodule where its parameters fit on one (the wrapper's
         * heads.0.W_query, W_key and W_value), else rows of equal length */
        const size_t most =
            style->width == 0
                ? n
                : row_fits(panel_width, n, 0, label_width, style->width);
        const size_t rows = (n + most - 1) / most;
        const size_t even = (n + rows - 1) / rows;
        bool by_submodule = group[0]->head == NO_HEAD && style->width != 0;
        for (size_t first = 0; by_submodule && first < n;) {
            const size_t same = same_submodule(group, n, first);
            by_submodule = same <= row_fits(panel_width, n, first, label_width,
                                            style->width);
            first += same;
        }
        for (size_t first = 0; first < n && rc == 0;) {
            size_t k = style->width == 0 ? n
                                         : row_fits(panel_width, n, first,
                                                    label_width, style->width);
            if (by_submodule)
                k = same_submodule(group, n, first);
            else if (group[0]->head == NO_HEAD && k > even)
                k = even;
            if (first > 0)
                fputc('\n', out);
            row[0] = texts[n];
            sep[0] = 0;
            for (size_t i = 0; i < k; i++) {
                row[i + 1] = texts[first + i];
                sep[i + 1] = 1;
            }
            if (layout_side_by_side(out, row, k + 1, sep) != 0)
                rc = err_nomem(err, _("a grid of tables"));
            first += k;
        }
        if (rc == 0 && views[0].shaded)
            print_grid_legend(out, views, n, style);
        if (rc == 0 && ferror(out))
            rc = err_write(err, _("the output"), errno);
    }
    for (size_t k = 0; views != NULL && k < n; k++)
        view_free(&views[k]);
    for (size_t k = 0; texts != NULL && k <= n; k++)
        free(texts[k]);
    free(views);
    free(texts);
    free(panel_width);
    free(row);
    free(sep);
    return rc;
}
