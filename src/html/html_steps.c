/* html_steps.c: the step-through of the --html page.
 *
 * The tables of one variant (or of the input) are grouped into the
 * steps of the computation, in the order each step first appears in the
 * trace: tokens, embeddings, then the module's parameters, queries keys
 * and values, scores, weights, context, concatenation, output (and the
 * block's add and norm, feed-forward, add and norm again; a trained
 * run's backward pass and updates). Each step
 * carries the --explain sentences of its tables, one sentence per
 * string, and its tables as render_text prints them (no colour, the
 * run's --precision and --full, summarised as the text output is). */
#include <stdlib.h>
#include <string.h>

#include "render/explain.h"
#include "html/html_parts.h"
#include "base/i18n.h"
#include "render/render.h"

/* Lines of the step-through's tables: blocks of columns within this. */
#define STEP_TEXT_WIDTH 120

/* The step a table belongs to (catalogue.h). */
static step_id step_of(const table *t)
{
    return table_step_for(t);
}

/* The text f wrote into a memory stream, closed; NULL when it failed. */
static char *stream_text(FILE *f, char **text)
{
    if (ferror(f)) {
        fclose(f);
        free(*text);
        *text = NULL;
        return NULL;
    }
    if (fclose(f) != 0) {
        free(*text);
        *text = NULL;
    }
    return *text;
}

/* ["sentence", ...] from explain_before's "# " lines (one per sentence:
 * the page's explain context does not wrap them). Each line's end is
 * cut in place. */
static void json_notes(FILE *out, char *notes)
{
    fputc('[', out);
    bool first = true;
    for (char *p = notes; *p != '\0';) {
        char *end = strchr(p, '\n');
        if (end != NULL)
            *end = '\0';
        if (p[0] == '#' && p[1] == ' ' && p[2] != '\0') {
            if (!first)
                fputc(',', out);
            json_string(out, p + 2);
            first = false;
        }
        if (end == NULL)
            break;
        p = end + 1;
    }
    fputc(']', out);
}

/* The title of a step that differs from its id's (step_view.js): a
 * pre-norm block (GPT-2, Llama) normalises before it adds, so its ln_1
 * and ln_2 steps are normalisations, not the post-norm "Add and norm".
 * NULL: the id's title. English, as the page's words are (html_data.c
 * has their translations). */
static const char *step_title(const table *const *tables, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (tables[i]->id == TABLE_LN_1)
            return "Normalisation before attention";
        if (tables[i]->id == TABLE_LN_2)
            return "Normalisation before the feed-forward";
    }
    return NULL;
}

/* {"step":...,"note":[...],"text":...} for the n tables of one step;
 * prev is the table before the step's first (NULL: the first of its
 * variant, which gets the module's note). */
static int json_step(FILE *out, step_id step, const table *const *tables,
                     size_t n, const table *prev, const html_page *page,
                     mx_error *err)
{
    char *notes = NULL, *text = NULL;
    size_t notes_len = 0, text_len = 0;
    FILE *nf = open_memstream(&notes, &notes_len);
    if (nf == NULL)
        return err_nomem(err, _("the --html page's data"));
    for (size_t i = 0; i < n; i++) {
        // each family's tables have the notes its row names
        explain_table_before(nf, tables[i], prev, page->explain);
        prev = tables[i];
    }
    if (stream_text(nf, &notes) == NULL)
        return err_nomem(err, _("the --html page's data"));
    FILE *tf = open_memstream(&text, &text_len);
    if (tf == NULL) {
        free(notes);
        return err_nomem(err, _("the --html page's data"));
    }
    text_style style = *page->text;
    style.color = false;
    style.before = NULL;
    style.width = STEP_TEXT_WIDTH;
    int rc = render_text(tf, tables, n, &style, err);
    if (stream_text(tf, &text) == NULL && rc == 0)
        rc = err_nomem(err, _("the --html page's data"));
    if (rc == 0) {
        fputs("{\"step\":", out);
        json_string(out, step_id_name(step));
        const char *title = step_title(tables, n);
        if (title != NULL) {
            fputs(",\"title\":", out);
            json_string(out, title);
        }
        fputs(",\"note\":", out);
        json_notes(out, notes);
        fputs(",\n\"text\":", out);
        json_string(out, text);
        fputc('}', out);
    }
    free(notes);
    free(text);
    return rc;
}

/* Whether t, a table of the model after its layers (VARIANT_MODEL), is
 * one of a lesson model's trained as variant's module: a trained block's
 * --ablate or --patch tables, which the headings name by the block
 * ("[block] ablation_effect"), and its page shows among the last
 * block's steps. */
static bool lesson_model_table(const table *t, variant_id variant)
{
    return t->variant == VARIANT_MODEL && table_model_name(t) == NULL &&
           strcmp(table_variant_name(t), variant_id_name(variant)) == 0;
}

/* The last layer of variant's tables in tr (a stack's last block). */
static int last_layer(const trace *tr, variant_id variant)
{
    int last = 0;
    for (size_t i = 0; i < trace_count(tr); i++)
        if (trace_at(tr, i)->variant == variant &&
            trace_at(tr, i)->layer > last)
            last = trace_at(tr, i)->layer;
    return last;
}

int html_write_steps(FILE *out, const trace *tr, variant_id variant, int layer,
                     const html_page *page, mx_error *err)
{
    // mine (n): the variant's tables in trace order; group: one step's
    const table **mine = calloc(trace_count(tr) + 1, sizeof *mine);
    const table **group = calloc(trace_count(tr) + 1, sizeof *group);
    bool *done = calloc(trace_count(tr) + 1, sizeof *done);
    int rc = 0;
    if (mine == NULL || group == NULL || done == NULL) {
        rc = err_nomem(err, _("the --html page's data"));
        goto out;
    }
    size_t n = 0;
    // a trained lesson model's tables after its layers: its last block's
    const bool last = variant != VARIANT_MODEL && variant != VARIANT_INPUT &&
                      layer == last_layer(tr, variant);
    // the tables made for the page's own views (catalogue.h) stay out
    for (size_t i = 0; i < trace_count(tr); i++) {
        const table *t = trace_at(tr, i);
        const bool own = t->variant == variant && t->layer == layer;
        if ((own || (last && lesson_model_table(t, variant))) && t->step == 0 &&
            !(ON_REQUEST_TABLES & table_bit(t->id)))
            mine[n++] = t;
    }
    fputc('[', out);
    const table *prev = NULL;
    size_t steps = 0;
    for (size_t i = 0; i < n && rc == 0; i++) {
        if (done[i])
            continue;
        const step_id step = step_of(mine[i]);
        size_t g = 0;
        for (size_t j = i; j < n; j++)
            if (!done[j] && step_of(mine[j]) == step) {
                group[g++] = mine[j];
                done[j] = true;
            }
        if (steps++ > 0)
            fputs(",\n", out);
        rc = json_step(out, step, group, g, prev, page, err);
        prev = group[g - 1];
    }
    fputc(']', out);
out:
    free(mine);
    free(group);
    free(done);
    return rc;
}
