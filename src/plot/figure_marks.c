/* figure_marks.c: what the model view of --plot marks on its heads
 * (figure_parts.h):
 *
 *   - with --head-scores, each head's three scores (head_scores: the
 *     previous-token, duplicate-token and induction scores) as a strip
 *     of three cells under its thumbnail, coloured on a scale from 0 to 1
 *     of their own, with that scale's bar and a legend;
 *   - on a model whose query heads share key/value heads (grouped-query
 *     attention, kv_heads), a bracket over the columns of the heads that
 *     read one key/value head, named "kv N", with a legend;
 *   - with --ablate L.H,..., each head switched off dimmed under a white
 *     veil (as the page dims it) in a dashed frame, with a legend saying
 *     how its output was replaced.
 *
 *        kv 0          kv 1
 *     ┌───────────┐ ┌───────────┐
 *      head 0 head 1 head 2 head 3
 *      ▦▦▦▦   ▦▦▦▦   ...
 *      P D I  P D I
 */
#include "plot/figure_parts.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "base/i18n.h"

#define STRIP_H 13.0  /* the scores' strip under a thumbnail */
#define STRIP_GAP 2.0 /* between the thumbnail and its strip */
#define BRACKET_H 5.0 /* a bracket's ends */
#define SCORES_BAR_H 110.0
#define LEGEND_W 200.0 /* a legend's text wraps at this width */
#define OFF_VEIL \
    0.65             /* a head switched off: white over it, as the
                          page's opacity 0.35 */
#define OFF_DASH 4.0 /* its frame's dashes */

void fig_marks_find(view_marks *m, const trace *tr, const plot_style *style)
{
    *m = (view_marks){0};
    m->off = style->ablated;
    m->n_off = style->ablated != NULL ? style->n_ablated : 0;
    m->off_mode = style->ablate_mode;
    for (size_t i = 0; i < trace_count(tr); i++) {
        const table *t = trace_at(tr, i);
        if (t->grad || t->values.rows == 0)
            continue;
        if (t->id == TABLE_HEAD_SCORES && t->values.cols == 3)
            m->scores = t;
        else if (t->id == TABLE_KV_HEADS && t->values.cols == 1)
            m->kv = t;
    }
    // a kv_heads that shares nothing (as many key/value heads as query
    // heads) marks nothing
    bool shared = false;
    for (size_t h = 1; m->kv != NULL && h < m->kv->values.rows; h++)
        shared |= m->kv->values.v[h] == m->kv->values.v[h - 1];
    if (!shared)
        m->kv = NULL;
    colormap_find(&m->map, "Oranges");
}

double fig_marks_strip_h(const view_marks *m)
{
    return m->scores != NULL ? STRIP_GAP + STRIP_H : 0.0;
}

double fig_marks_groups_h(const view_marks *m, double line_h)
{
    return m->kv != NULL ? line_h + BRACKET_H + PAD : 0.0;
}

bool fig_marks_is_off(const view_marks *m, const table *t)
{
    const int layer = table_model_layer(t);
    for (size_t i = 0; i < m->n_off && layer >= 0 && t->head >= 0; i++)
        if (m->off[i].layer == (size_t)layer &&
            m->off[i].head == (size_t)t->head)
            return true;
    return false;
}

void fig_marks_draw_off(cairo_t *cr, double x, double y, double thumb)
{
    static const double dash[] = {OFF_DASH, OFF_DASH * 0.6};
    cairo_save(cr);
    cairo_set_source_rgba(cr, 1, 1, 1, OFF_VEIL);
    cairo_rectangle(cr, x, y, thumb, thumb);
    cairo_fill(cr);
    cairo_set_source_rgb(cr, 0.1, 0.1, 0.1);
    cairo_set_line_width(cr, 1.5);
    cairo_set_dash(cr, dash, 2, 0);
    cairo_rectangle(cr, x + 0.75, y + 0.75, thumb - 1.5, thumb - 1.5);
    cairo_stroke(cr);
    cairo_restore(cr);
}

/* The scores' row of the head of place's layer, or -1. */
static long score_row(const table *scores, const char *place, int head)
{
    char name[48];
    snprintf(name, sizeof name, "%s.%d", place, head);
    for (size_t r = 0; r < scores->rows->n; r++)
        if (strcmp(scores->rows->s[r], name) == 0)
            return (long)r;
    return -1;
}

void fig_marks_draw_scores(cairo_t *cr, const view_marks *m, const char *place,
                           int head, double x, double y, double thumb)
{
    if (m->scores == NULL)
        return;
    const long r = score_row(m->scores, place, head);
    if (r < 0)
        return;
    const double w = thumb / 3.0, top = y + STRIP_GAP;
    for (size_t k = 0; k < 3; k++) {
        const double v = m->scores->values.v[(size_t)r * 3 + k];
        const rgb c = colormap_color(&m->map, fmin(1.0, fmax(0.0, v)));
        cairo_set_source_rgb(cr, c.r / 255.0, c.g / 255.0, c.b / 255.0);
        cairo_rectangle(cr, x + (double)k * w, top, w, STRIP_H);
        cairo_fill(cr);
        if (w >= 22.0) { /* the value, when the cell holds it */
            char text[16];
            snprintf(text, sizeof text, "%.2f", v);
            const double lum =
                (0.2126 * c.r + 0.7152 * c.g + 0.0722 * c.b) / 255.0;
            const double ink = lum > 0.408 ? 0.0 : 1.0;
            cairo_set_source_rgb(cr, ink, ink, ink);
            fig_draw_text(cr, fig_font(false, 7.0).name, text, w,
                          x + ((double)k + 0.5) * w, top + STRIP_H / 2, 0.5,
                          0.5, 0);
        }
    }
    cairo_set_source_rgb(cr, 0.5, 0.5, 0.5);
    cairo_set_line_width(cr, 0.5);
    cairo_rectangle(cr, x, top, thumb, STRIP_H);
    cairo_stroke(cr);
}

/* A bracket over [x0, x1] whose ends come down to y. */
static void bracket(cairo_t *cr, double x0, double x1, double y)
{
    cairo_set_line_width(cr, 1.0);
    cairo_move_to(cr, x0, y);
    cairo_line_to(cr, x0, y - BRACKET_H);
    cairo_line_to(cr, x1, y - BRACKET_H);
    cairo_line_to(cr, x1, y);
    cairo_stroke(cr);
}

void fig_marks_draw_groups(cairo_t *cr, const view_marks *m, const int *heads,
                           size_t cols, double x, double y, double pitch,
                           double thumb)
{
    if (m->kv == NULL)
        return;
    const size_t H = m->kv->values.rows;
    cairo_set_source_rgb(cr, 0.2, 0.2, 0.2);
    for (size_t c = 0; c < cols;) {
        if (heads[c] < 0 || (size_t)heads[c] >= H) {
            c++;
            continue;
        }
        const float kv = m->kv->values.v[heads[c]];
        size_t end = c + 1; /* the columns next to c reading kv too */
        while (end < cols && heads[end] >= 0 && (size_t)heads[end] < H &&
               m->kv->values.v[heads[end]] == kv)
            end++;
        const double x0 = x + (double)c * pitch + 1.0,
                     x1 = x + (double)(end - 1) * pitch + thumb - 1.0;
        bracket(cr, x0, x1, y);
        char name[32];
        /* TRANSLATORS: --plot's model view: the key/value head a bracket
         * of query heads shares (grouped-query attention) */
        snprintf(name, sizeof name, _("kv %d"), (int)kv);
        fig_draw_text(cr, LABEL_FONT, name, x1 - x0 + pitch, (x0 + x1) / 2,
                      y - BRACKET_H - 1.0, 0.5, 1.0, 0);
        c = end;
    }
}

/* The legends' texts. */
static const char *scores_legend(void)
{
    return _("Under each head: its previous-token, duplicate-token and "
             "induction scores (head_scores), left to right.");
}

static const char *off_legend(const view_marks *m)
{
    /* TRANSLATORS: --plot's model view, beside a dimmed square in a
     * dashed frame: how the heads of --ablate were switched off */
    return m->off_mode == HOOK_MEAN
               ? _("switched off: its output z set to its mean "
                   "(--ablate-mode mean)")
               : _("switched off: its output z set to 0 (--ablate)");
}

static const char *groups_legend(void)
{
    return _("Heads under one bracket share a key/value head "
             "(grouped-query attention, kv_heads).");
}

/* How much wider than one line the scores bar's caption is, wrapped
 * sideways along the bar (a long translation takes two lines): the bar
 * moves right by as much. */
static double caption_extra(cairo_t *cr)
{
    double w, one, h;
    fig_text_size(cr, LABEL_FONT, "Ag", 0, false, &w, &one);
    fig_text_size(cr, LABEL_FONT, _("head score"), SCORES_BAR_H, true, &w, &h);
    return fmax(0.0, h - one);
}

/* The scores' colour scale. */
static color_range scores_scale(const view_marks *m)
{
    return (color_range){.map = m->map, .lo = 0.0, .hi = 1.0};
}

void fig_marks_legend_size(cairo_t *cr, const view_marks *m, double *w,
                           double *h)
{
    double tw, th;
    *w = *h = 0;
    if (m->n_off > 0) {
        fig_text_size(cr, LABEL_FONT, off_legend(m), LEGEND_W - BAR_WIDTH - PAD,
                      true, &tw, &th);
        *w = LEGEND_W;
        *h += fmax(th, BAR_WIDTH) + GAP;
    }
    if (m->scores != NULL) {
        const color_range sc = scores_scale(m);
        fig_text_size(cr, LABEL_FONT, scores_legend(), LEGEND_W, true, &tw,
                      &th);
        *w = fmax(20 + caption_extra(cr) + fig_ticks_width(cr, &sc), tw);
        *h += th + 2 * PAD + SCORES_BAR_H + GAP;
    }
    if (m->kv != NULL) {
        fig_text_size(cr, LABEL_FONT, groups_legend(), LEGEND_W, true, &tw,
                      &th);
        *w = fmax(*w, tw);
        *h += BRACKET_H + PAD + th + GAP;
    }
}

void fig_marks_draw_legend(cairo_t *cr, const view_marks *m, double x, double y)
{
    double tw, th;
    if (m->n_off > 0) { /* a mid grey square switched off */
        cairo_set_source_rgb(cr, 0.45, 0.45, 0.45);
        cairo_rectangle(cr, x, y, BAR_WIDTH, BAR_WIDTH);
        cairo_fill(cr);
        fig_marks_draw_off(cr, x, y, BAR_WIDTH);
        cairo_set_source_rgb(cr, 0, 0, 0);
        fig_draw_paragraph(cr, off_legend(m), LEGEND_W - BAR_WIDTH - PAD,
                           x + BAR_WIDTH + PAD, y);
        fig_text_size(cr, LABEL_FONT, off_legend(m), LEGEND_W - BAR_WIDTH - PAD,
                      true, &tw, &th);
        y += fmax(th, BAR_WIDTH) + GAP;
    }
    if (m->scores != NULL) {
        cairo_set_source_rgb(cr, 0, 0, 0);
        fig_draw_paragraph(cr, scores_legend(), LEGEND_W, x, y);
        fig_text_size(cr, LABEL_FONT, scores_legend(), LEGEND_W, true, &tw,
                      &th);
        y += th + 2 * PAD;
        const color_range sc = scores_scale(m);
        const double bx = x + 20 + caption_extra(cr);
        fig_draw_bar(cr, &sc, bx, y, SCORES_BAR_H);
        cairo_set_source_rgb(cr, 0, 0, 0);
        const char *caption = _("head score");
        double lw, line_h;
        fig_text_size(cr, LABEL_FONT, "Ag", 0, false, &lw, &line_h);
        if (fig_upright(caption)) /* Chinese never sideways */
            fig_draw_vertical(cr, caption, bx - 6, y, SCORES_BAR_H, line_h);
        else
            fig_draw_wrapped(cr, LABEL_FONT, caption, SCORES_BAR_H, bx - 6,
                             y + SCORES_BAR_H / 2, 0.5, 1.0, QUARTER_TURN);
        y += SCORES_BAR_H + GAP;
    }
    if (m->kv != NULL) {
        cairo_set_source_rgb(cr, 0.2, 0.2, 0.2);
        bracket(cr, x, x + 3 * BAR_WIDTH, y + BRACKET_H);
        cairo_set_source_rgb(cr, 0, 0, 0);
        fig_draw_paragraph(cr, groups_legend(), LEGEND_W, x,
                           y + BRACKET_H + PAD);
    }
}
