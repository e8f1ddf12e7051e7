/* render_focus.c: --focus WORD, one token followed through every head.
 *
 *   focus: gato (position 1 of 5)
 *
 *   [fused] head 0
 *     Q         0.0297  -0.1058
 *     K         0.2982  -0.2399
 *     V        -0.0309  -0.0619
 *     attends   O 0.4950, gato 0.5050
 *     seen by   gato 0.5050, sobe 0.2657, no 0.2385, tapete 0.1925
 *     context   0.0629  -0.0442
 */
#include "render.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "i18n.h"
#include "shading.h"
#include "textwidth.h"

#define FOCUS_MAX_LIST 8 /* longest attends / seen-by list */
#define FOCUS_EDGE 3     /* a long vector shows 3 values, ..., 3 */

/* "  what     ": the row label, padded to 9 cells (a translated label
 * may hold wide characters). */
static void print_label(FILE *out, const char *what)
{
    const size_t w = display_width(what);
    fprintf(out, "  %s%*s", what, w < 9 ? (int)(9 - w) : 0, "");
}

/* The table of (variant, head, name) among the chosen ones, or NULL. */
static const table *find(const table *const *tables, size_t n,
                         const char *variant, int head, const char *name)
{
    for (size_t i = 0; i < n; i++)
        if (tables[i]->head == head &&
            strcmp(tables[i]->variant, variant) == 0 &&
            strcmp(tables[i]->name, name) == 0)
            return tables[i];
    return NULL;
}

/* "  Q        0.1185   0.2411 ..." : row r of t, long rows summarised. */
static void print_vector(FILE *out, const char *what, const table *t, size_t r,
                         const text_style *style)
{
    if (t == NULL)
        return;
    const size_t n = t->values.cols;
    print_label(out, what);
    for (size_t j = 0; j < n; j++) {
        if (!style->full && n > 2 * FOCUS_EDGE + 2 && j == FOCUS_EDGE) {
            fputs("  ...", out);
            j = n - FOCUS_EDGE - 1;
            continue;
        }
        fprintf(out, " %*.*f", style->precision + 4, style->precision,
                (double)*matrix_at(&t->values, r, j));
    }
    fputc('\n', out);
}

/* "O 0.4950, gato 0.5050": the nonzero weights of a row (or column), at
 * most FOCUS_MAX_LIST of the largest, in sequence order. Returns 0, or -1
 * when memory ran out. */
static int print_weights(FILE *out, const char *what, const table *w,
                         size_t index, bool column, const text_style *style)
{
    if (w == NULL)
        return 0;
    const size_t n = column ? w->values.rows : w->values.cols;
    const labels *names = column ? w->rows : w->cols;
    float *v = malloc((n > 0 ? n : 1) * sizeof *v);
    if (v == NULL)
        return -1;
    size_t nonzero = 0;
    for (size_t k = 0; k < n; k++) {
        v[k] = column ? *matrix_at(&w->values, k, index)
                      : *matrix_at(&w->values, index, k);
        nonzero += v[k] != 0.0f;
    }
    /* the smallest weight that still makes the list */
    float cut = 0.0f;
    if (nonzero > FOCUS_MAX_LIST) {
        float *sorted = malloc(n * sizeof *sorted);
        if (sorted == NULL) {
            free(v);
            return -1;
        }
        memcpy(sorted, v, n * sizeof *sorted);
        for (size_t a = 0; a < FOCUS_MAX_LIST; a++) /* partial selection */
            for (size_t b = a + 1; b < n; b++)
                if (sorted[b] > sorted[a]) {
                    float tmp = sorted[a];
                    sorted[a] = sorted[b];
                    sorted[b] = tmp;
                }
        cut = sorted[FOCUS_MAX_LIST - 1];
        free(sorted);
    }
    /* with --color each weight is shaded as in its table */
    shading sh = {0};
    const bool shaded = style->color;
    if (shaded && shading_init(&sh, w, style->scale, style->trace) != 0) {
        shading_free(&sh);
        free(v);
        return -1;
    }
    print_label(out, what);
    size_t shown = 0;
    for (size_t k = 0; k < n; k++) {
        if (v[k] == 0.0f || v[k] < cut || shown == FOCUS_MAX_LIST)
            continue;
        char *name = display_escape(names->s[k]);
        if (name == NULL) {
            shading_free(&sh);
            free(v);
            return -1;
        }
        /* labels are "K:gato" or "Q:gato": show the word, and where it
         * stands when the sentence has it twice */
        const char *word = name;
        if (strlen(name) > 2 && name[1] == ':')
            word = name + 2;
        size_t same = 0;
        for (size_t m = 0; m < n; m++)
            same += strcmp(names->s[m], names->s[k]) == 0;
        char at[24] = "";
        if (same > 1)
            snprintf(at, sizeof at, "@%zu", k);
        fprintf(out, "%s %s%s ", shown ? "," : "", word, at);
        if (shaded)
            heat_start(out, shading_x(&sh, column ? k : index, v[k]),
                       style->truecolor);
        fprintf(out, "%.*f", style->precision, (double)v[k]);
        if (shaded)
            heat_end(out);
        free(name);
        shown++;
    }
    if (shown < nonzero)
        fprintf(out, _(" (and %zu more)"), nonzero - shown);
    if (nonzero == 0)
        fputs(_(" nobody"), out);
    fputc('\n', out);
    shading_free(&sh);
    free(v);
    return 0;
}

/* The lines of the view, before they are fitted to the screen; 0, or -1
 * when memory ran out. */
static int focus_lines(FILE *out, const table *const *tables, size_t n,
                       const labels *tokens, size_t position, bool cross,
                       const text_style *style)
{
    char *word = display_escape(tokens->s[position]);
    if (word == NULL)
        return -1;
    fprintf(out, _("focus: %s (position %zu of %zu)%s\n"), word, position,
            tokens->n,
            cross ? _("; keys and values belong to the --kv sentence") : "");
    free(word);
    static const char *const variants[] = {"single", "wrapper", "fused",
                                           "block"};
    for (size_t v = 0; v < sizeof variants / sizeof variants[0]; v++) {
        const char *var = variants[v];
        for (int h = 0;; h++) {
            const table *q = find(tables, n, var, h, "queries");
            const table *w = find(tables, n, var, h, "attn_weights");
            if (q == NULL && w == NULL)
                break;
            fputc('\n', out);
            fprintf(out, _("[%s] head %d"), var, h);
            fputc('\n', out);
            print_vector(out, "Q", q, position, style);
            if (!cross) { /* the token's own key and value, and its column */
                print_vector(out, "K", find(tables, n, var, h, "keys"),
                             position, style);
                print_vector(out, "V", find(tables, n, var, h, "values"),
                             position, style);
            }
            /* TRANSLATORS: --focus row labels: at most 9 columns wide (a
             * Chinese character takes 2) */
            if (print_weights(out, _("attends"), w, position, false, style) !=
                    0 ||
                (!cross && print_weights(out, _("seen by"), w, position, true,
                                         style) != 0))
                return -1;
            print_vector(out, _("context"),
                         find(tables, n, var, h, "head_context"), position,
                         style);
        }
        const table *o = find(tables, n, var, NO_HEAD, "out");
        if (o == NULL)
            o = find(tables, n, var, NO_HEAD, "concat_context");
        if (o != NULL) {
            fprintf(out, "\n[%s] %s\n", var, o->name);
            print_vector(out, "", o, position, style);
        }
    }
    return 0;
}

int render_focus(FILE *out, const table *const *tables, size_t n,
                 const labels *tokens, size_t position, bool cross,
                 const text_style *style, mx_error *err)
{
    /* written whole first, then each line wrapped at the screen width
     * with its continuation under the values */
    char *text = NULL;
    size_t size = 0;
    FILE *mem = open_memstream(&text, &size);
    if (mem == NULL)
        return err_nomem(err, _("the --focus view"));
    int failed = focus_lines(mem, tables, n, tokens, position, cross, style);
    failed |= ferror(mem);
    /* glibc may close a stream whose buffer it could not grow without
     * an error, and without the text */
    if (fclose(mem) != 0 || failed || text == NULL) {
        free(text);
        return err_nomem(err, _("the --focus view"));
    }
    /* wrapped in memory too, then written at once: the view reaches out
     * whole or not at all */
    char *wrapped = NULL;
    mem = open_memstream(&wrapped, &size);
    failed = mem == NULL || write_wrapped_lines(mem, text, style->width, 12);
    free(text);
    if (mem != NULL && (ferror(mem) | fclose(mem)) != 0)
        failed = 1;
    if (failed || wrapped == NULL) {
        free(wrapped);
        return err_nomem(err, _("the --focus view"));
    }
    const bool written = fwrite(wrapped, 1, size, out) == size;
    free(wrapped);
    if (!written || ferror(out))
        return err_write(err, _("the output"), errno);
    return 0;
}
