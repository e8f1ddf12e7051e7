/* sink.c: where a run's tables go, a table at a time. */
#include "cli/sink.h"

#include <stdlib.h>

#include "base/i18n.h"
#include "cli/settings.h"
#include "model/lesson/manifest.h"
#include "model/tokenize.h"

/* Whether t goes to the text, the CSV and the pictures: a table --tables
 * asks for, and a generation step's (model/generate.h) only with
 * --kv-steps (without it the steps' weights are the page's alone). */
static bool shows_table(const options *opt, const table *t)
{
    return options_wants_table(opt, table_name(t)) &&
           (t->step == 0 || opt->kv_steps);
}

const table **select_tables(const trace *tr, const options *opt, size_t *n)
{
    const table **out = calloc(trace_count(tr) + 1, sizeof *out);
    if (out == NULL)
        return NULL;
    *n = 0;
    for (size_t i = 0; i < trace_count(tr); i++)
        if (shows_table(opt, trace_at(tr, i)))
            out[(*n)++] = trace_at(tr, i);
    return out;
}

/* The table whose rows are the sequence's tokens: the inputs, or in a
 * trained run (each variant its own inputs, --train) the tokens. */
static const table *focus_tokens(const trace *tr)
{
    const table *t = trace_find_input(tr, TABLE_INPUTS);
    return t != NULL ? t : trace_find_input(tr, TABLE_TOKENS);
}

/* The position --focus names in the trace's sequence (0 without --focus). */
static int find_focus(size_t *position, const options *opt, const trace *tr,
                      mx_error *err)
{
    *position = 0;
    if (opt->focus == NULL)
        return 0;
    const table *inputs = focus_tokens(tr);
    if (inputs == NULL)
        return err_input(err, _("--focus: the sequence has no tokens"));
    return find_token(position, opt->focus,
                      (const char *const *)inputs->rows->s, inputs->rows->n,
                      err);
}

/* --focus: the view begun at the run's first table (the input tables are
 * in the trace by then), then table t, chosen or not. */
static int put_focus(run_output *o, const table *t, mx_error *err)
{
    if (!o->focus_begun) {
        size_t position;
        o->focus_begun = true;
        if (find_focus(&position, o->opt, o->tr, err) != 0 ||
            focus_stream_begin(&o->focus, focus_tokens(o->tr)->rows, position,
                               o->tr->model.cross, &o->style, err) != 0)
            return -1;
    }
    // the compact view shows the forward pass: not the gradients (--grad)
    if (t->grad)
        return 0;
    return focus_stream_put(&o->focus, t,
                            options_wants_table(o->opt, table_name(t)), err);
}

/* Whether t is part of a trained model (--train): manifest_table. */
static bool trained_model_table(const options *opt, const table *t)
{
    return opt->train && manifest_table(t);
}

void run_output_layered(run_output *o)
{
    if (o->layered_known)
        return;
    o->layered_known = true;
    o->csv_out.layer = o->file_csv.layer = trace_layered(o->tr);
}

int put_table(void *ctx, const table *t, mx_error *err)
{
    run_output *o = ctx;
    run_output_layered(o);
    // the steps' weights kept for the page alone: as if not made
    if (t->step > 0 && !o->opt->kv_steps)
        return 0;
    if (o->opt->check)
        check_table(&o->report, o->tr, t);
    if (o->opt->focus != NULL && put_focus(o, t, err) != 0)
        return -1;
    if (!shows_table(o->opt, t))
        return o->files != NULL && trained_model_table(o->opt, t)
                   ? csv_dir_add(o->files, o->sub, &t, 1, &o->file_csv, err)
                   : 0;
    if (o->n++ == 0) /* the input tables are in the trace by now */
        o->notes = explain_for(o->opt, o->tr);
    if (o->files != NULL &&
        csv_dir_add(o->files, o->sub, &t, 1, &o->file_csv, err) != 0)
        return -1;
    if (o->opt->format == FORMAT_CSV)
        return csv_stream_put(&o->csv, t, err);
    if (o->text_streams)
        return text_stream_put(&o->text, t, err);
    return 0;
}

int render_grid_text(FILE *out, const options *opt, const trace *tr,
                     const text_style *style, mx_error *err)
{
    size_t n = 0;
    const table **tables = select_tables(tr, opt, &n);
    if (tables == NULL)
        return err_nomem(err, _("the table list"));
    size_t apart = 0;
    int rc = render_text_apart(out, tables, n, style, &apart, err);
    free(tables);
    // the grid asked for, and not made: said once, beside the tables
    if (rc == 0 && apart > 0 && opt->layout == LAYOUT_GRID)
        fprintf(stderr,
                ngettext("mha-explain: note: --layout grid: the heads of %zu "
                         "table do not fit side by side in %zu columns, and "
                         "are printed one under another (a larger --width "
                         "fits them)\n",
                         "mha-explain: note: --layout grid: the heads of %zu "
                         "tables do not fit side by side in %zu columns, and "
                         "are printed one under another (a larger --width "
                         "fits them)\n",
                         apart),
                apart, style->width);
    return rc;
}
