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
#include "render/render.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/i18n.h"
#include "render/shading.h"
#include "render/text_rounds.h"
#include "render/textwidth.h"

#define FOCUS_MAX_LIST 8 /* longest attends / seen-by list */
#define FOCUS_EDGE 3     /* a long vector shows 3 values, ..., 3 */

/* The cells of the row labels: 9, or the widest translated label (a
 * translation may be longer, or hold wide characters). */
static size_t label_cells(void)
{
    /* TRANSLATORS: --focus row labels; the rows are padded to the widest
     * of them (a Chinese character takes 2 cells) */
    const char *names[] = {_("attends"), _("seen by"), _("context")};
    size_t widest = 9;
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        const size_t w = display_width(names[i]);
        widest = w > widest ? w : widest;
    }
    return widest;
}

/* "  what     ": the row label, padded to label_cells(). */
static void print_label(FILE *out, const char *what)
{
    const size_t w = display_width(what), cells = label_cells();
    fprintf(out, "  %s%*s", what, w < cells ? (int)(cells - w) : 0, "");
}

/* "  Q        0.1185   0.2411 ...": the n values of row, a long row
 * summarised. */
static void print_row(FILE *out, const char *what, const float *row, size_t n,
                      const text_style *style)
{
    print_label(out, what);
    for (size_t j = 0; j < n; j++) {
        if (!style->full && n > 2 * FOCUS_EDGE + 2 && j == FOCUS_EDGE) {
            fputs("  ...", out);
            j = n - FOCUS_EDGE - 1;
            continue;
        }
        fprintf(out, " %*.*f", style->precision + 4, style->precision,
                (double)unsigned_zero(row[j]));
    }
    fputc('\n', out);
}

/* print_row of row r of t, if t is not NULL. */
static void print_vector(FILE *out, const char *what, const table *t, size_t r,
                         const text_style *style)
{
    if (t != NULL)
        print_row(out, what, matrix_at(&t->values, r, 0), t->values.cols,
                  style);
}

/* A no-break space: one cell, which write_wrapped does not break at. */
#define GLUE "\xc2\xa0"

/* The text's GLUEs made spaces, in place; returns its new length. */
static size_t unglue(char *text, size_t len)
{
    size_t w = 0;
    for (size_t r = 0; r < len; r++) {
        if (r + 1 < len && memcmp(text + r, GLUE, 2) == 0) {
            text[w++] = ' ';
            r++;
        } else
            text[w++] = text[r];
    }
    return w;
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
        // the word and its weight glued, so that a line wraps between two
        // weights (focus_stream_end makes the glue a space again)
        fprintf(out, "%s %s%s" GLUE, shown ? "," : "", word, at);
        if (shaded)
            heat_start(out, shading_x(&sh, column ? k : index, v[k]),
                       style->truecolor);
        fprintf(out, "%.*f", style->precision, (double)unsigned_zero(v[k]));
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

int focus_stream_begin(focus_stream *s, const labels *tokens, size_t position,
                       bool cross, const text_style *style, mx_error *err)
{
    memset(s, 0, sizeof *s);
    s->position = position;
    s->cross = cross;
    s->style = style;
    s->mem = open_memstream(&s->text, &s->len);
    if (s->mem == NULL)
        return err_nomem(err, _("the --focus view"));
    char *word = display_escape(tokens->s[position]);
    if (word == NULL)
        return err_nomem(err, _("the --focus view"));
    fprintf(s->mem, _("focus: %s (position %zu of %zu)%s\n"), word, position,
            tokens->n,
            cross ? _("; keys and values belong to the --kv sentence") : "");
    free(word);
    return 0;
}

/* The tables of a head the view shows, in focus_stream.head. */
#define F_QUERIES head_table(TABLE_QUERIES)
#define F_KEYS head_table(TABLE_KEYS)
#define F_VALUES head_table(TABLE_VALUES)
#define F_WEIGHTS head_table(TABLE_ATTN_WEIGHTS)
#define F_CONTEXT head_table(TABLE_HEAD_CONTEXT)

/* The head whose tables are in s->head: its block, when its queries or
 * weights are chosen. Returns 0, or -1 when memory ran out. */
static int head_block(focus_stream *s, const table *context, int h)
{
    char place[16];
    const table *const *t = s->head;
    FILE *out = s->mem;
    const size_t p = s->position;
    if (t[F_QUERIES] == NULL && t[F_WEIGHTS] == NULL)
        return 0;
    fputc('\n', out);
    fprintf(out, _("[%s] head %d"), table_place(place, sizeof place, context),
            h);
    fputc('\n', out);
    print_vector(out, "Q", t[F_QUERIES], p, s->style);
    if (!s->cross) { /* the token's own key and value, and its column */
        print_vector(out, "K", t[F_KEYS], p, s->style);
        print_vector(out, "V", t[F_VALUES], p, s->style);
    }
    if (print_weights(out, _("attends"), t[F_WEIGHTS], p, false, s->style) !=
            0 ||
        (!s->cross && print_weights(out, _("seen by"), t[F_WEIGHTS], p, true,
                                    s->style) != 0))
        return -1;
    print_vector(out, _("context"), t[F_CONTEXT], p, s->style);
    return 0;
}

/* The output of the variant (or the stacked block, or the checkpoint's
 * layer) whose tables just ended: its out (hidden) row, or its
 * concat_context row, as chosen. */
static void output_block(focus_stream *s)
{
    if (s->output == NULL)
        return;
    fprintf(s->mem, "\n[%s] %s\n", s->place, table_info_of(s->output_id)->name);
    print_row(s->mem, "", s->output, s->output_cols, s->style);
    free(s->output);
    s->output = NULL;
}

int focus_stream_put(focus_stream *s, const table *t, bool chosen,
                     mx_error *err)
{
    char buf[sizeof s->place];
    const char *place = table_place(buf, sizeof buf, t);
    if (t->variant != s->variant || strcmp(place, s->place) != 0) {
        output_block(s);
        s->variant = t->variant;
        snprintf(s->place, sizeof s->place, "%s", place);
    }
    int rc = 0;
    if (t->head != NO_HEAD) {
        if (chosen)
            s->head[head_table(t->id)] = t;
        /* head_context is the last table of every head */
        if (t->id == TABLE_HEAD_CONTEXT) {
            rc = head_block(s, t, t->head);
            memset(s->head, 0, sizeof s->head);
        }
    } else if (chosen &&
               (t->id == TABLE_OUT || t->id == TABLE_HIDDEN ||
                (t->id == TABLE_CONCAT_CONTEXT && s->output == NULL))) {
        /* the variant's output: out (a checkpoint's layer: hidden), else
         * concat_context; the row is kept, the table may not be
         * (trace.h) */
        const size_t n = t->values.cols;
        float *row = malloc((n > 0 ? n : 1) * sizeof *row);
        if (row == NULL)
            rc = -1;
        else {
            memcpy(row, matrix_at(&t->values, s->position, 0), n * sizeof *row);
            free(s->output);
            s->output = row;
            s->output_cols = n;
            s->output_id = t->id;
        }
    }
    return rc == 0 ? 0 : err_nomem(err, _("the --focus view"));
}

int focus_stream_end(focus_stream *s, FILE *out, mx_error *err)
{
    output_block(s);
    int failed = ferror(s->mem);
    /* glibc may close a stream whose buffer it could not grow without
     * an error, and without the text */
    failed |= fclose(s->mem) != 0 || s->text == NULL;
    s->mem = NULL;
    if (failed)
        return err_nomem(err, _("the --focus view"));
    /* each line wrapped at the screen width with its continuation under
     * the values, in memory too, then written at once: the view reaches
     * out whole or not at all */
    char *wrapped = NULL;
    size_t size = 0;
    FILE *mem = open_memstream(&wrapped, &size);
    failed = mem == NULL ||
             write_wrapped_lines(mem, s->text, s->style->width, 12) != 0;
    if (mem != NULL && (ferror(mem) | fclose(mem)) != 0)
        failed = 1;
    if (failed || wrapped == NULL) {
        free(wrapped);
        return err_nomem(err, _("the --focus view"));
    }
    size = unglue(wrapped, size);
    const bool written = fwrite(wrapped, 1, size, out) == size;
    free(wrapped);
    if (!written || ferror(out))
        return err_write(err, _("the output"), errno);
    return 0;
}

void focus_stream_free(focus_stream *s)
{
    if (s->mem != NULL)
        fclose(s->mem);
    free(s->text);
    free(s->output);
    memset(s, 0, sizeof *s);
}
