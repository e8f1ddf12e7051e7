/* figure_scores.c: a trained run's heads' induction scores over the
 * training (head_scores_steps, model/lesson/score_steps.h), a chart
 * beside its loss curve on the --plot page (figure_parts.h): the step
 * where a head's score rises is where it became an induction head.
 *
 * Shapes: head_scores_steps is K x (L·H), a row per step taken
 * ("step<n>"), a column per head ("block.1.0").
 */
#include "plot/figure_parts.h"

#include <math.h>
#include <stdio.h>

#include "base/i18n.h"
#include "model/lesson/score_steps.h"

/* Colours of the heads' lines (matplotlib's tab10). */
static const double head_rgb[][3] = {
    {0.122, 0.467, 0.706}, {1.000, 0.498, 0.055}, {0.173, 0.627, 0.173},
    {0.839, 0.153, 0.157}, {0.580, 0.404, 0.741}, {0.549, 0.337, 0.294},
    {0.890, 0.467, 0.761}, {0.498, 0.498, 0.498}, {0.737, 0.741, 0.133},
    {0.090, 0.745, 0.812},
};
#define N_HEAD_RGB (sizeof head_rgb / sizeof *head_rgb)

/* The most heads the legend names; the lines of more are drawn too. */
#define LEGEND_HEADS 12

/* The step of row r ("step<n>"). */
static size_t row_step(const table *t, size_t r)
{
    size_t step = 0;
    return sscanf(t->rows->s[r], "step%zu", &step) == 1 ? step : 0;
}

/* Head c's scores as a line over the steps (steps the last), in the box
 * (x0, y0, w, h) whose scale is 0 to 1, and its legend entry. */
static void head_line(cairo_t *cr, const table *t, size_t c, size_t steps,
                      double x0, double y0, double w, double h)
{
    const double *colour = head_rgb[c % N_HEAD_RGB];
    cairo_set_source_rgb(cr, colour[0], colour[1], colour[2]);
    cairo_set_line_width(cr, 1.5);
    cairo_new_path(cr);
    bool drawing = false;
    for (size_t r = 0; r < t->values.rows; r++) {
        const double v = t->values.v[r * t->values.cols + c];
        if (!isfinite(v)) {
            drawing = false;
            continue;
        }
        const double px =
            x0 +
            (steps > 0 ? w * (double)row_step(t, r) / (double)steps : w / 2);
        const double py = y0 + h * (1 - fmin(fmax(v, 0), 1));
        if (drawing)
            cairo_line_to(cr, px, py);
        else
            cairo_move_to(cr, px, py);
        drawing = true;
    }
    cairo_stroke(cr);
    if (c >= LEGEND_HEADS)
        return;
    /* the legend, top left inside the box, in two columns */
    const double lx = x0 + 8 + 84 * (double)(c % 2),
                 ly = y0 + 8 + 14 * (double)(c / 2);
    cairo_move_to(cr, lx, ly);
    cairo_line_to(cr, lx + 14, ly);
    cairo_stroke(cr);
    cairo_set_source_rgb(cr, 0, 0, 0);
    fig_draw_text(cr, LABEL_FONT, t->cols->s[c], 0, lx + 18, ly, 0, 0.5, 0);
}

void fig_draw_scores_chart(cairo_t *cr, const figure *pg, double x, double y)
{
    const table *t = pg->scores;
    // the widest tick, and the axis's name left of it, as the loss's
    double widest, th;
    fig_text_size(cr, LABEL_FONT, "0.75", 0, false, &widest, &th);
    const double left = fmax(52, widest + th + 18), right = 12, top = 32,
                 bottom = 40;
    const double x0 = x + left, y0 = y + top;
    const double w = CHART_W - left - right, h = CHART_H - top - bottom;
    const size_t steps =
        t->values.rows > 0 ? row_step(t, t->values.rows - 1) : 0;
    cairo_set_source_rgb(cr, 0, 0, 0);
    /* TRANSLATORS: the title of --plot's chart of head_scores_steps
     * (--train): each head's induction score at the training's steps */
    fig_draw_text(cr, TITLE_FONT, _("each head's induction score"), CHART_W, x,
                  y, 0, 0, 0);
    cairo_set_line_width(cr, 0.75);
    cairo_rectangle(cr, x0, y0, w, h);
    cairo_stroke(cr);
    char tick[16];
    for (int i = 0; i <= 4; i++) {
        const double v = i / 4.0, ty = y0 + h * (1 - v);
        cairo_move_to(cr, x0 - 4, ty);
        cairo_line_to(cr, x0, ty);
        cairo_stroke(cr);
        snprintf(tick, sizeof tick, "%.2g", v);
        fig_draw_text(cr, LABEL_FONT, tick, 0, x0 - 6, ty, 1.0, 0.5, 0);
    }
    fig_step_ticks(cr, x0, y0, w, h, steps);
    fig_draw_text(cr, LABEL_FONT, _("training step"), 0, x0 + w / 2,
                  y + CHART_H, 0.5, 1.0, 0);
    /* TRANSLATORS: the vertical axis of --plot's chart of head_scores_steps */
    const char *title = _("induction score");
    if (fig_upright(title)) /* Chinese never sideways */
        fig_draw_vertical(cr, title, x0 - 8 - widest, y0, h, th);
    else
        fig_draw_text(cr, LABEL_FONT, title, 0, x0 - 8 - widest - th,
                      y0 + h / 2, 0.5, 0, QUARTER_TURN);
    for (size_t c = 0; c < t->values.cols; c++)
        head_line(cr, t, c, steps, x0, y0, w, h);
    if (score_steps_flat(t)) { /* why every line lies on 0 */
        cairo_set_source_rgb(cr, 0.75, 0.15, 0.0);
        fig_draw_wrapped(
            cr, LABEL_FONT,
            _("Every score is 0: the shown sentence repeats no word. Type one that "
              "does (the cat sat, the cat sat) to watch an induction head form."),
            w - 24, x0 + w / 2, y0 + h * 0.6, 0.5, 0.5, 0);
    }
}
