/* figure_loss.c: a trained run's loss curve above the panels of its
 * --plot page (figure_parts.h). */
#include "plot/figure_parts.h"

#include <math.h>
#include <stdio.h>

#include <glib.h>

#include "base/i18n.h"
#include "model/lesson/trained.h"

/* Colours of the variants' curves (matplotlib's first four). */
static const double curve_rgb[][3] = {
    {0.122, 0.467, 0.706},
    {1.000, 0.498, 0.055},
    {0.173, 0.627, 0.173},
    {0.839, 0.153, 0.157},
};

/* An axis tick's text: a step (integral) or a loss. */
static void axis_text(char *out, size_t size, double v, bool integral)
{
    if (integral)
        snprintf(out, size, "%.0f", v);
    else
        snprintf(out, size, "%.3g", v);
}

/* The chart's box and scales: the losses' axis from lo to hi in ticks of
 * tick_step, the steps' from 0 to steps. */
typedef struct {
    double x0, y0, w, h; /* the axes' box */
    double lo, hi, tick_step;
    size_t steps;
} chart;

/* The losses' range at round ends and the number of steps. */
static void loss_range(chart *ch, const figure *pg)
{
    double lo = INFINITY, hi = -INFINITY;
    size_t steps = 0;
    for (size_t i = 0; i < pg->n_loss; i++) {
        const matrix *m = &pg->loss[i]->values;
        steps = m->rows - 1 > steps ? m->rows - 1 : steps;
        for (size_t r = 0; r < m->rows; r++)
            if (isfinite(m->v[r * m->cols])) {
                lo = fmin(lo, m->v[r * m->cols]);
                hi = fmax(hi, m->v[r * m->cols]);
            }
    }
    if (!(lo <= hi)) { /* nothing finite */
        lo = 0;
        hi = 1;
    }
    // ticks at round values: a step of 1, 2 or 5 times a power of ten
    const double raw = fmax(hi > lo ? (hi - lo) / 4 : 0.25, 1e-12);
    const double mag = pow(10, floor(log10(raw)));
    const double tick_step = raw <= mag       ? mag
                             : raw <= 2 * mag ? 2 * mag
                             : raw <= 5 * mag ? 5 * mag
                                              : 10 * mag;
    lo = floor(lo / tick_step) * tick_step;
    hi = ceil(hi / tick_step) * tick_step;
    if (hi <= lo)
        hi = lo + tick_step;
    ch->lo = lo;
    ch->hi = hi;
    ch->tick_step = tick_step;
    ch->steps = steps;
}

void fig_step_ticks(cairo_t *cr, double x0, double y0, double w, double h,
                    size_t steps)
{
    char tick[48];
    const double raw_every = steps > 4 ? (double)steps / 4 : 1;
    const double every_mag = pow(10, floor(log10(raw_every)));
    const size_t every =
        (size_t)(raw_every <= every_mag       ? every_mag
                 : raw_every <= 2 * every_mag ? 2 * every_mag
                 : raw_every <= 5 * every_mag ? 5 * every_mag
                                              : 10 * every_mag);
    for (size_t s = 0; s <= steps; s += every) {
        const double tx = x0 + (steps > 0 ? w * (double)s / (double)steps : 0);
        cairo_move_to(cr, tx, y0 + h);
        cairo_line_to(cr, tx, y0 + h + 4);
        cairo_stroke(cr);
        axis_text(tick, sizeof tick, (double)s, true);
        fig_draw_text(cr, LABEL_FONT, tick, 0, tx, y0 + h + 6, 0.5, 0, 0);
    }
}

/* Variant i's loss m as a line (a dot for a single value), and its entry
 * in the legend; a last row that is the shown sentence's (--corpus,
 * trained_loss_ends_shown) off the line, a ring at step N. */
static void loss_curve(cairo_t *cr, const chart *ch, const figure *pg, size_t i)
{
    const double x0 = ch->x0, y0 = ch->y0, w = ch->w, h = ch->h;
    const double lo = ch->lo, hi = ch->hi;
    const size_t steps = ch->steps;
    const matrix *m = &pg->loss[i]->values;
    const double *c = curve_rgb[i % (sizeof curve_rgb / sizeof *curve_rgb)];
    const bool shown = trained_loss_ends_shown(pg->loss[i]);
    const size_t on_line = shown ? m->rows - 1 : m->rows;
    cairo_set_source_rgb(cr, c[0], c[1], c[2]);
    cairo_set_line_width(cr, 1.5);
    cairo_new_path(cr);
    bool drawing = false;
    for (size_t r = 0; r < on_line; r++) {
        const double v = m->v[r * m->cols];
        if (!isfinite(v)) {
            drawing = false;
            continue;
        }
        const double px =
            x0 + (steps > 0 ? w * (double)r / (double)steps : w / 2);
        const double py = y0 + h * (hi - v) / (hi - lo);
        if (drawing)
            cairo_line_to(cr, px, py);
        else
            cairo_move_to(cr, px, py);
        drawing = true;
    }
    cairo_stroke(cr);
    const double last = m->v[(m->rows - 1) * m->cols];
    if (shown && isfinite(last)) {
        cairo_new_path(cr);
        cairo_arc(cr, x0 + (steps > 0 ? w : w / 2),
                  y0 + h * (hi - last) / (hi - lo), 4.5, 0, 2 * G_PI);
        cairo_stroke(cr);
    } else if (m->rows == 1 && isfinite(m->v[0])) { /* --train 0: a dot */
        cairo_arc(cr, x0 + w / 2, y0 + h * (hi - m->v[0]) / (hi - lo), 3, 0,
                  2 * G_PI);
        cairo_fill(cr);
    }
    /* the legend, top right inside the box */
    const double ly = y0 + 8 + 14 * (double)i, lx = x0 + w - 96;
    cairo_move_to(cr, lx, ly);
    cairo_line_to(cr, lx + 18, ly);
    cairo_stroke(cr);
    cairo_set_source_rgb(cr, 0, 0, 0);
    fig_draw_text(cr, LABEL_FONT, variant_id_name(pg->loss[i]->variant), 0,
                  lx + 22, ly, 0, 0.5, 0);
}

/* Each trained variant's loss (N + 1 values, row i at step i) as a line
 * over the steps, in a CHART_W x CHART_H box from (x, y): a title, the
 * axes with their ticks and names, a legend of the variants. A value
 * that is not finite breaks its line. */
void fig_draw_loss_chart(cairo_t *cr, const figure *pg, double x, double y)
{
    const double right = 12, top = 32, bottom = 40;
    chart ch;
    loss_range(&ch, pg);
    const double lo = ch.lo, hi = ch.hi, tick_step = ch.tick_step;
    // the widest tick of the losses, and the axis's name left of it
    char tick[48];
    double widest = 0, tw, th = LABEL_SIZE;
    for (double v = lo; v <= hi + tick_step / 2; v += tick_step) {
        axis_text(tick, sizeof tick, v, false);
        fig_text_size(cr, LABEL_FONT, tick, 0, false, &tw, &th);
        widest = fmax(widest, tw);
    }
    const double left = fmax(52, widest + th + 18);
    const double x0 = x + left, y0 = y + top;
    const double w = CHART_W - left - right, h = CHART_H - top - bottom;
    ch.x0 = x0;
    ch.y0 = y0;
    ch.w = w;
    ch.h = h;
    cairo_set_source_rgb(cr, 0, 0, 0);
    /* TRANSLATORS: the title of --plot's loss curve (--train) */
    fig_draw_text(cr, TITLE_FONT, _("loss at each training step"), CHART_W, x,
                  y, 0, 0, 0);
    cairo_set_line_width(cr, 0.75);
    cairo_rectangle(cr, x0, y0, w, h);
    cairo_stroke(cr);
    for (double v = lo; v <= hi + tick_step / 2; v += tick_step) {
        const double ty = y0 + h * (hi - v) / (hi - lo);
        cairo_move_to(cr, x0 - 4, ty);
        cairo_line_to(cr, x0, ty);
        cairo_stroke(cr);
        axis_text(tick, sizeof tick, v, false);
        fig_draw_text(cr, LABEL_FONT, tick, 0, x0 - 6, ty, 1.0, 0.5, 0);
    }
    fig_step_ticks(cr, ch.x0, ch.y0, ch.w, ch.h, ch.steps);
    /* TRANSLATORS: the axes of --plot's loss curve */
    fig_draw_text(cr, LABEL_FONT, _("training step"), 0, x0 + w / 2,
                  y + CHART_H, 0.5, 1.0, 0);
    const char *title = _("loss");
    if (fig_upright(title)) /* Chinese never sideways */
        fig_draw_vertical(cr, title, x0 - 8 - widest, y0, h, th);
    else
        fig_draw_text(cr, LABEL_FONT, title, 0, x0 - 8 - widest - th,
                      y0 + h / 2, 0.5, 0, QUARTER_TURN);
    bool shown = false;
    for (size_t i = 0; i < pg->n_loss; i++) {
        loss_curve(cr, &ch, pg, i);
        shown = shown || trained_loss_ends_shown(pg->loss[i]);
    }
    if (shown) { /* the rings' entry, under the variants' */
        const double ly = y0 + 8 + 14 * (double)pg->n_loss;
        /* TRANSLATORS: --plot's loss curve, the legend of the ring after
         * the last step when the steps trained on a corpus: the loss of
         * the sentence shown, which is no step's */
        const char *words = _("loss on the shown sentence");
        double ww, wh;
        fig_text_size(cr, LABEL_FONT, words, 0, false, &ww, &wh);
        cairo_set_source_rgb(cr, 0, 0, 0);
        fig_draw_text(cr, LABEL_FONT, words, 0, x0 + w - 6, ly, 1.0, 0.5, 0);
        cairo_set_line_width(cr, 1.5);
        cairo_new_path(cr);
        cairo_arc(cr, x0 + w - 16 - ww, ly, 4.5, 0, 2 * G_PI);
        cairo_stroke(cr);
    }
}
