/* html_maps.c: the maps of the interventions and the model view's marks
 * in the --html page's data (html_parts.h), for the Interventions view
 * and the model view's marks (page/maps.js, in such a page only).
 *
 *   "maps":[{"table":"ablation_map","rows":["h.0",...],"cols":["0",...],
 *            "rowsTitle":"layer","colsTitle":"head ablated",
 *            "measure":"change of the mean loss","signed":true,
 *            "heads":true,"values":M,
 *            "ablated":"Switched off: each head's output z set to 0 ..."},
 *           ...],
 *   "scoresMap":"...", "kvHeads":[0,0,1,1],
 *
 * Each map is a row of render/map_axes.h, its texts translated; M is
 * its values as every matrix of the page (html_data.c); ablation_map's
 * "ablated" says what its heads' z was set to (zero, the text's mean,
 * the corpus's mean: trace.h's ablated_to); with head_scores,
 * scoresMap is the colours of the model view's scores. kvHeads is the
 * key/value head each query head reads (kv_heads), written only when
 * some heads share one. */
#include <stdbool.h>
#include <stdio.h>

#include "base/i18n.h"
#include "html/html_parts.h"
#include "render/colormap.h"
#include "render/map_axes.h"

/* The page's words of the two views (maps.js). */
static const char *const maps_words[] = {
    /* TRANSLATORS: the --html page's view of the interventions' maps */
    N_("Interventions"),
    /* TRANSLATORS: {0} is a map's name (ablation_map, kept as is), {1}
     * its row, {2} its column, {3} the value */
    N_("{0}, {1}, {2}: {3}; open it in the head view"),
    N_("Each map's cells are heads (or a layer's input at a position): "
       "click one, or move with the arrow keys and press Enter, to open it "
       "in the head view."),
    /* TRANSLATORS: the --html model view's marks */
    N_("Under each head: its previous-token, duplicate-token and induction "
       "scores (head_scores), left to right."),
    N_("Heads under one bracket share a key/value head (grouped-query "
       "attention, kv_heads)."),
    /* TRANSLATORS: {0} is a key/value head's number */
    N_("kv {0}"),
    /* TRANSLATORS: {0} previous-token, {1} duplicate-token, {2} induction
     * score of a head */
    N_("scores: previous token {0}, duplicate token {1}, induction {2}"),
    /* TRANSLATORS: over the maps of a lesson page, whose editor can
     * recompute the run but not the interventions */
    N_("These maps are the program's run of the command line the page was "
       "written with: the page's core runs no interventions, so a change in "
       "the editor starts a plain run, without them."),
};

/* What the ablation set a switched-off head's z to (trace.h's
 * ablated_to), said under ablation_map, into text (size bytes); NULL:
 * no head was switched off. */
static const char *ablated_words(char *text, size_t size, const trace_model *m)
{
    const size_t n = m->ablated_texts;
    switch (m->ablated_to) {
    case ABLATED_ZERO:
        return _("Switched off: each head's output z set to 0 "
                 "(--ablate-mode zero).");
    case ABLATED_TEXT_MEAN:
        return _("Switched off: each head's output z set to its mean over "
                 "this text's positions (--ablate-mode mean).");
    case ABLATED_CORPUS_MEAN:
        // the input's corpus is --corpus FILE --column NAME's (cli/run.c,
        // the page's core alike)
        snprintf(text, size,
                 /* TRANSLATORS: under the page's ablation_map; %s is the
                  * --corpus file, %s its column, %zu its texts */
                 ngettext("Switched off: each head's output z set to its "
                          "mean over every position of every text of "
                          "--corpus %s, column '%s' (%zu text; "
                          "--ablate-mode mean).",
                          "Switched off: each head's output z set to its "
                          "mean over every position of every text of "
                          "--corpus %s, column '%s' (%zu texts; "
                          "--ablate-mode mean).",
                          n),
                 m->ablated_file != NULL ? m->ablated_file : "",
                 m->ablated_column != NULL ? m->ablated_column : "", n);
        return text;
    case ABLATED_NONE:
        break;
    }
    return NULL;
}

/* Whether some query heads of kv_heads t share a key/value head. */
static bool kv_shared(const table *t)
{
    bool shared = false;
    for (size_t h = 1; t->values.cols == 1 && h < t->values.rows; h++)
        shared |= t->values.v[h] == t->values.v[h - 1];
    return shared;
}

bool html_has_maps(const trace *tr)
{
    for (size_t i = 0; i < trace_count(tr); i++) {
        const table *t = trace_at(tr, i);
        if (!t->grad && (map_axes_of(t->id) != NULL ||
                         (t->id == TABLE_KV_HEADS && kv_shared(t))))
            return true;
    }
    return false;
}

void html_write_maps_words(FILE *out, const trace *tr)
{
    if (!html_has_maps(tr))
        return;
    for (size_t i = 0; i < sizeof maps_words / sizeof maps_words[0]; i++) {
        fputs(",\n", out);
        json_string(out, maps_words[i]);
        fputc(':', out);
        json_string(out, _(maps_words[i]));
    }
}

static void json_label_list(FILE *out, const labels *l)
{
    fputc('[', out);
    for (size_t i = 0; i < l->n; i++) {
        if (i > 0)
            fputc(',', out);
        json_string(out, l->s[i]);
    }
    fputc(']', out);
}

/* "kvHeads":[...], when some query heads share a key/value head. */
static void json_kv_heads(FILE *out, const trace *tr)
{
    for (size_t i = 0; i < trace_count(tr); i++) {
        const table *t = trace_at(tr, i);
        if (t->id != TABLE_KV_HEADS || t->grad || t->values.cols != 1)
            continue;
        if (!kv_shared(t))
            return;
        fputs("\"kvHeads\":[", out);
        for (size_t h = 0; h < t->values.rows; h++)
            fprintf(out, "%s%d", h > 0 ? "," : "", (int)t->values.v[h]);
        fputs("],\n", out);
        return;
    }
}

/* "scoresMap": the 256 colours of the head scores' map (Oranges, as
 * --plot's model view colours them), as base64 of their red, green and
 * blue bytes. */
static void json_scores_map(FILE *out)
{
    colormap m;
    colormap_find(&m, "Oranges");
    base64_out b = {.out = out};
    fputs("\"scoresMap\":\"", out);
    for (int i = 0; i < COLORMAP_ENTRIES; i++) {
        rgb c = colormap_color(&m, (i + 0.5) / COLORMAP_ENTRIES);
        base64_put(&b, c.r);
        base64_put(&b, c.g);
        base64_put(&b, c.b);
    }
    base64_end(&b);
    fputs("\",\n", out);
}

void html_write_maps(FILE *out, const trace *tr)
{
    size_t n = 0;
    bool scores = false;
    for (size_t i = 0; i < trace_count(tr); i++) {
        const table *t = trace_at(tr, i);
        const map_axes *m = t->grad ? NULL : map_axes_of(t->id);
        if (m == NULL || t->values.rows == 0 || t->values.cols == 0)
            continue;
        fputs(n++ == 0 ? "\"maps\":[{\"table\":" : ",\n{\"table\":", out);
        json_string(out, table_name(t));
        fputs(",\"rows\":", out);
        json_label_list(out, t->rows);
        fputs(",\"cols\":", out);
        json_label_list(out, t->cols);
        fputs(",\"rowsTitle\":", out);
        json_string(out, _(m->rows));
        fputs(",\"colsTitle\":", out);
        json_string(out, _(m->cols));
        fputs(",\"measure\":", out);
        json_string(out, _(map_axes_measure(m, tr->model.map_measure)));
        fprintf(out, ",\"signed\":%s,\"heads\":%s,\n\"values\":",
                m->signed_values ? "true" : "false",
                m->of_heads ? "true" : "false");
        json_floats(out, t->values.v, t->values.rows, t->values.cols);
        char text[1024];
        const char *ablated = t->id == TABLE_ABLATE_MAP
                                  ? ablated_words(text, sizeof text, &tr->model)
                                  : NULL;
        if (ablated != NULL) {
            fputs(",\n\"ablated\":", out);
            json_string(out, ablated);
        }
        fputc('}', out);
        scores |= t->id == TABLE_HEAD_SCORES;
    }
    if (n > 0)
        fputs("],\n", out);
    if (scores)
        json_scores_map(out);
    json_kv_heads(out, tr);
}
