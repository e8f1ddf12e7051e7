/* figure_labels.c: a --plot panel's title and its row and column labels,
 * measured and drawn; Chinese, Japanese and Korean column labels go down
 * the page upright (figure_text.c's fig_draw_upright; figure_parts.h). */
#include "plot/figure_parts.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include <glib.h>

#include "base/i18n.h"

void fig_panel_title(char *out, size_t size, const panel *p, bool names)
{
    const table *t = p->t;
    char who[96], layer[16];
    const char *where = table_place(layer, sizeof layer, t);
    if (t->head != NO_HEAD && p->training && p->step == 0)
        /* TRANSLATORS: a picture's panel title: variant, head number */
        snprintf(who, sizeof who, _("[%s] head %d, before training"), where,
                 t->head);
    else if (t->head != NO_HEAD && p->training)
        /* TRANSLATORS: a picture's panel title: variant, head number,
         * the number of training steps */
        snprintf(who, sizeof who,
                 ngettext("[%s] head %d, after %zu step",
                          "[%s] head %d, after %zu steps", p->step),
                 where, t->head, p->step);
    else if (t->head != NO_HEAD)
        /* TRANSLATORS: a picture's panel title: variant, head number */
        snprintf(who, sizeof who, _("[%s] head %d"), where, t->head);
    else if (t->id == TABLE_ATTN_WEIGHTS_AVG)
        /* TRANSLATORS: a picture's panel title: the mean of a variant's
         * heads' attention weights */
        snprintf(who, sizeof who, _("[%s] mean of the heads"), where);
    else {
        snprintf(out, size, "[%s] %s", where, table_name(t));
        return;
    }
    if (names)
        snprintf(out, size, "%s: %s", who, table_name(t));
    else
        snprintf(out, size, "%s", who);
}

/* The columns whose label is a word rather than a token (next_tokens',
 * logit_lens'): the picture says it in the user's language, the CSV
 * keeps the name. */
static const char *const word_columns[] = {
    /* TRANSLATORS: a --plot column label */
    N_("probability"),
};

/* Label k of a set as drawn: a word column's translated. */
static const char *label_text(const labels *l, size_t k)
{
    for (size_t i = 0; i < sizeof word_columns / sizeof word_columns[0]; i++)
        if (strcmp(l->s[k], word_columns[i]) == 0)
            return _(word_columns[i]);
    return l->s[k];
}

/* The widest label of a set, at most MAX_LABEL. */
static double widest_label(cairo_t *cr, const labels *l)
{
    double widest = 0;
    for (size_t k = 0; k < l->n; k++) {
        double w, h;
        fig_text_size(cr, LABEL_FONT, label_text(l, k), MAX_LABEL, false, &w,
                      &h);
        widest = w > widest ? w : widest;
    }
    return widest;
}

/* Whether cols' label k is set upright under its map: a label with a
 * Chinese character (fig_upright), and one of wide symbols alone, such
 * as an emoji, among such labels, so that the labels under a Chinese
 * sentence's map all read one way; among turned labels it is turned. */
static bool col_upright(const labels *cols, size_t k)
{
    const char *s = label_text(cols, k);
    if (fig_upright(s))
        return true;
    bool wide = false;
    for (const char *c = s; *c != '\0'; c += g_utf8_skip[(unsigned char)*c])
        wide |= g_unichar_iswide(g_utf8_get_char(c)) != 0;
    if (!wide)
        return false;
    for (size_t j = 0; j < cols->n; j++)
        if (fig_upright(label_text(cols, j)))
            return true;
    return false;
}

/* What does not depend on the page's scale: label and title widths. */
void fig_measure_section(section *S, cairo_t *cr, const panel *p, bool names,
                         double line_h)
{
    S->block = 1;
    for (size_t i = S->first; i < S->first + S->count; i++) {
        const labels *rows = p[i].t->rows, *cols = p[i].t->cols;
        bool seen_rows = false, seen_cols = false; /* label sets are shared */
        for (size_t j = S->first; j < i; j++) {
            seen_rows |= p[j].t->rows == rows;
            seen_cols |= p[j].t->cols == cols;
        }
        if (!seen_rows) {
            double w = widest_label(cr, rows);
            S->row_label_w = w > S->row_label_w ? w : S->row_label_w;
        }
        if (!seen_cols) {
            double w = widest_label(cr, cols);
            S->col_label_w = w > S->col_label_w ? w : S->col_label_w;
            for (size_t k = 0; k < cols->n; k++) {
                double v, h;
                if (col_upright(cols, k))
                    v = (double)fig_upright_count(label_text(cols, k), line_h) *
                        line_h;
                else
                    fig_text_size(cr, LABEL_FONT, label_text(cols, k),
                                  MAX_LABEL, false, &v, &h);
                S->col_label_v = v > S->col_label_v ? v : S->col_label_v;
            }
        }
        char title[256];
        double w, h;
        fig_panel_title(title, sizeof title, &p[i], names);
        fig_text_size(cr, TITLE_FONT, title, 0, false, &w, &h);
        S->title_w = w > S->title_w ? w : S->title_w;
        if (S->panel_bars)
            S->panel_bar_w =
                fmax(S->panel_bar_w, fig_ticks_width(cr, &p[i].sc));
    }
}

void fig_draw_labels(cairo_t *cr, const figure *pg, const panel *p, double mx,
                     double my, double map_h)
{
    const section *S = &pg->sections[p->section];
    const table *t = p->t;
    /* a drawn cell's labels are those of its first row or column */
    const size_t k = S->block, kr = S->block_r, every = S->label_every * k,
                 row_every = S->row_every * kr;
    const double cell = S->cell;
    cairo_set_source_rgb(cr, 0, 0, 0);
    for (size_t r = 0; r < t->rows->n; r += row_every)
        fig_draw_text(cr, LABEL_FONT, t->rows->s[r], MAX_LABEL, mx - PAD,
                      my + ((double)(r / kr) + 0.5) * S->cell_h, 1.0, 0.5, 0);
    double under = my + map_h + PAD;
    for (size_t c = 0; c < t->cols->n; c += every) {
        const char *label = label_text(t->cols, c);
        double cx = mx + ((double)(c / k) + 0.5) * cell;
        if (S->rotate_cols && col_upright(t->cols, c))
            fig_draw_upright(cr, label, cx, under, pg->line_h);
        else if (S->rotate_cols) /* reading upwards, ending under it */
            fig_draw_text(cr, fig_font(false, S->turn_size).name, label,
                          MAX_LABEL, cx, under, 1.0, 0.5, QUARTER_TURN);
        else
            fig_draw_text(cr, fig_font(false, S->col_size).name, label,
                          MAX_LABEL, cx, under, 0.5, 0, 0);
    }
}
