/* html_generation.c: a generation run's tokens, its distributions and
 * its heads' rows in the --html page's data (html_parts.h), for the
 * Generation view (page/generation.js, in such a page only).
 *
 *   "generation":{"variant":"gpt2","prompt":5,
 *     "cached":true,                      a checkpoint's KV cache; false:
 *                                         a lesson model's, which runs
 *                                         the whole sequence again
 *     "tokens":[" sat",...],              the N new tokens
 *     "generated":M,                      the table generated (N x 15)
 *     "k":10,"topTokens":["<d5>",...],    generated_top's k rows a step
 *     "top":M,                            generated_top ((N·k) x 2)
 *     "layers":["h.0","h.1"],"heads":[0,1],  the heads shown (--show-heads)
 *     "weights":[M0, M1, ...],            per step s, (L·H) x (T + s)
 *     "clean":{"text":"the cat⟦ sat⟧",   with --ablate, the clean model's
 *              "common":1,"same":false}}  generation (the text output's)
 *
 * Step s picked new token s from the logits of the last position before
 * it: its weights are every layer's and head's query row of that
 * position over the keys so far, layer by layer, head by head (the heads
 * --show-heads shows, which need not start at head 0). Step 0's
 * is the last row of the prompt's attn_weights; step s > 0's is the
 * generation step's table (model/generate.h: the new token fed over the
 * cache; a lesson model's, the last row of its pass over the whole
 * sequence). "weights" is written only when every step has them, else
 * the prompt's alone: a Llama-style checkpoint keeps its steps' tables
 * with --kv-steps only (its page's caption says so). M is a matrix as
 * every matrix of the page (html_data.c). The view's words are not the
 * data's labels: the editor's command line carries them (html.c), so
 * that the page's core, which writes the data again, leaves them out. */
#include <stdbool.h>
#include <stdlib.h>

#include "base/i18n.h"
#include "html/html_parts.h"

/* The generated table of the run, or NULL. */
static const table *generated_of(const trace *tr)
{
    for (size_t i = 0; i < trace_count(tr); i++) {
        const table *t = trace_at(tr, i);
        if (t->id == TABLE_GENERATED && !t->grad && t->values.rows > 0)
            return t;
    }
    return NULL;
}

bool html_has_generation(const trace *tr)
{
    return generated_of(tr) != NULL;
}

/* Whether attn_weights t (of the prompt) is a head of the model that
 * generated g: a checkpoint's every layer, a lesson's variant. */
static bool head_of(const table *t, const table *g)
{
    return t->id == TABLE_ATTN_WEIGHTS && !t->grad && t->step == 0 &&
           (g->variant == VARIANT_MODEL || t->variant == g->variant);
}

/* The heads' weights of the prompt's layers (w0, L of them: each
 * layer's table of its first head shown) for the H heads shown (heads,
 * as --show-heads chose them) at step s, as a matrix (L·H) x (T + s)
 * into v; false when a table is missing. */
static bool step_rows(float *v, const trace *tr, const table *const *w0,
                      size_t L, const int *heads, size_t H, int s)
{
    for (size_t l = 0; l < L; l++)
        for (size_t h = 0; h < H; h++) {
            const table_key key = {w0[l]->variant, w0[l]->layer, heads[h],
                                   TABLE_ATTN_WEIGHTS, false};
            const table *w = trace_find_step(tr, &key, s);
            if (w == NULL || w->values.rows == 0)
                return false;
            const size_t S = w->values.cols, r = w->values.rows - 1;
            if (S != w0[l]->values.cols + (size_t)s)
                return false;
            for (size_t j = 0; j < S; j++)
                v[(l * H + h) * S + j] = w->values.v[r * S + j];
        }
    return true;
}

/* w0[0..*L) = the prompt's layers (each one's table of head first, the
 * lowest head shown), and heads[0..*H) the heads shown of the first
 * layer, from first to last; n = the trace's head tables (head_of). */
static void shown_heads(const table **w0, size_t *L, int *heads, size_t *H,
                        const trace *tr, const table *g, size_t n)
{
    int first = -1, last = -1;
    for (size_t i = 0; i < trace_count(tr); i++) {
        const table *t = trace_at(tr, i);
        if (head_of(t, g)) {
            first = first < 0 || t->head < first ? t->head : first;
            last = t->head > last ? t->head : last;
        }
    }
    *L = *H = 0;
    for (size_t i = 0; i < trace_count(tr) && first >= 0; i++)
        if (head_of(trace_at(tr, i), g) && trace_at(tr, i)->head == first)
            w0[(*L)++] = trace_at(tr, i);
    for (int h = first; *L > 0 && h <= last && *H < n; h++)
        if (trace_find_beside(tr, w0[0], h, TABLE_ATTN_WEIGHTS) != NULL)
            heads[(*H)++] = h;
}

/* "layers":[...],"heads":[...],"weights":[...], when every step has
 * them. */
static int write_weights(FILE *out, const trace *tr, const table *g,
                         mx_error *err)
{
    const size_t N = g->values.rows;
    size_t n = 0, L = 0, H = 0;
    for (size_t i = 0; i < trace_count(tr); i++)
        n += head_of(trace_at(tr, i), g);
    const table **w0 = calloc(n + 1, sizeof *w0);
    int *heads = calloc(n + 1, sizeof *heads);
    if (w0 == NULL || heads == NULL) {
        free(w0);
        free(heads);
        return err_nomem(err, _("the table list"));
    }
    shown_heads(w0, &L, heads, &H, tr, g, n);
    const size_t T = L > 0 ? w0[0]->values.cols : 0;
    float *v = malloc((L * H * (T + N) + 1) * sizeof *v);
    if (v == NULL) {
        free(w0);
        free(heads);
        return err_nomem(err, _("the table list"));
    }
    fputs(",\"layers\":[", out);
    for (size_t l = 0; l < L; l++) {
        char place[16];
        fputs(l > 0 ? "," : "", out);
        json_string(out, table_place(place, sizeof place, w0[l]));
    }
    fputs("],\"heads\":[", out);
    for (size_t h = 0; h < H; h++)
        fprintf(out, "%s%d", h > 0 ? "," : "", heads[h]);
    fputc(']', out);
    bool every = L > 0 && H > 0;
    for (size_t s = 0; every && s < N; s++)
        every = step_rows(v, tr, w0, L, heads, H, (int)s);
    for (size_t s = 0; every && s < N; s++) {
        step_rows(v, tr, w0, L, heads, H, (int)s);
        fputs(s == 0 ? ",\n\"weights\":[" : ",\n", out);
        json_floats(out, v, L * H, T + s);
    }
    if (every)
        fputc(']', out);
    else if (L > 0 && H > 0 && step_rows(v, tr, w0, L, heads, H, 0)) {
        // the prompt's alone (the steps' tables not kept)
        fputs(",\n\"weights\":[", out);
        json_floats(out, v, L * H, T);
        fputc(']', out);
    }
    free(v);
    free(heads);
    free(w0);
    return 0;
}

/* ,"clean":{...}: with --ablate, what the model with no head switched
 * off generated from the same prompt (the prompt, then the new text
 * between the marks), how many new tokens the two texts share and
 * whether they are the same, as the text output says them (cli/run.c). */
static void write_clean(FILE *out, const trace *tr)
{
    const trace_model *m = &tr->model;
    if (m->continued_clean == NULL)
        return;
    fputs(",\n\"clean\":{\"text\":", out);
    json_string(out, m->continued_clean);
    fprintf(out, ",\"common\":%zu,\"same\":%s}", m->clean_common,
            m->clean_same ? "true" : "false");
}

int html_write_generation(FILE *out, const trace *tr, mx_error *err)
{
    const table *g = generated_of(tr);
    if (g == NULL)
        return 0;
    const table *top = NULL;
    for (size_t i = 0; i < trace_count(tr) && top == NULL; i++) {
        const table *t = trace_at(tr, i);
        if (t->id == TABLE_GENERATED_TOP && !t->grad &&
            t->variant == g->variant)
            top = t;
    }
    const size_t N = g->values.rows;
    const size_t k = top != NULL ? top->values.rows / N : 0;
    fputs("\"generation\":{\"variant\":", out);
    json_string(out, table_variant_name(g));
    // a checkpoint's run-wide tables are the model's: it keeps a cache
    fprintf(out, ",\"prompt\":%zu,\"cached\":%s,\n\"tokens\":[",
            trace_find_tokens(tr)->rows->n,
            g->variant == VARIANT_MODEL ? "true" : "false");
    for (size_t i = 0; i < N; i++) {
        fputs(i > 0 ? "," : "", out);
        json_string(out, g->rows->s[i]);
    }
    fputs("],\n\"generated\":", out);
    json_floats(out, g->values.v, g->values.rows, g->values.cols);
    fprintf(out, ",\n\"k\":%zu,\"topTokens\":[", k);
    for (size_t i = 0; i < N * k; i++) {
        fputs(i > 0 ? "," : "", out);
        json_string(out, top->rows->s[i]);
    }
    fputs("],\n\"top\":", out);
    if (top != NULL)
        json_floats(out, top->values.v, top->values.rows, top->values.cols);
    else
        fputs("null", out);
    if (write_weights(out, tr, g, err) != 0)
        return -1;
    write_clean(out, tr);
    // stopped at the model's context (cli/run.c's note): its positions
    if (tr->model.context_full > 0)
        fprintf(out, ",\n\"stopped\":%zu", tr->model.context_full);
    fputs("},\n", out);
    return 0;
}
