/* text_stream.c: tables printed one after another, with the blank line,
 * step mark (--step) and note (--explain) before each; with --layout
 * grid, the same table of every head gathered into one grid (render.h).
 * Each table, or group of tables, is formatted whole in memory, then
 * written at once. */
#include "render/render.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "base/i18n.h"
#include "render/step.h"

/* Before the table t, printed after prev (NULL for the first): a blank
 * line, or with page breaks a step mark where a step starts; then the
 * style's note. */
static void before_table(FILE *out, const table *t, const table *prev,
                         const text_style *style)
{
    if (prev != NULL)
        fputc(style->page_breaks && step_starts(t, prev) ? STEP_MARK : '\n',
              out);
    if (style->before != NULL)
        style->before(out, t, prev, style->before_ctx);
}

void text_stream_begin(text_stream *s, FILE *out, const text_style *style,
                       render_table_fn one)
{
    s->out = out;
    s->style = style;
    s->one = one;
    s->prev = NULL;
    s->mem = NULL;
    s->text = NULL;
    s->len = 0;
}

void text_stream_end(text_stream *s)
{
    if (s->mem != NULL)
        fclose(s->mem);
    free(s->text);
    s->mem = NULL;
    s->text = NULL;
    s->len = 0;
}

/* Closes mem, the memory stream over *text (*len bytes) that a table was
 * formatted into with result rc, and writes the text to out with one
 * fwrite if all went well; frees the text. */
static int write_closed(FILE *out, FILE *mem, char **text, size_t *len, int rc,
                        mx_error *err)
{
    /* a memory stream fails only when memory runs out (glibc's fclose
     * then may leave text NULL) */
    if ((ferror(mem) | fclose(mem)) != 0 || *text == NULL)
        rc = err_nomem(err, _("a table's text"));
    if (rc == 0 && *len > 0 && fwrite(*text, 1, *len, out) != *len)
        rc = err_write(err, _("the output"), errno);
    free(*text);
    return rc;
}

int text_stream_put(text_stream *s, const table *t, mx_error *err)
{
    if (s->mem == NULL) {
        s->mem = open_memstream(&s->text, &s->len);
        if (s->mem == NULL)
            return err_nomem(err, _("a table's text"));
    } else {
        rewind(s->mem); /* the size at the next flush is where it ends */
    }
    before_table(s->mem, t, s->prev, s->style);
    int rc = s->one(s->mem, t, s->style, err);
    /* a memory stream fails only when memory runs out */
    if ((fflush(s->mem) | ferror(s->mem)) != 0 || s->text == NULL)
        return rc != 0 ? rc : err_nomem(err, _("a table's text"));
    if (rc == 0 && s->len > 0 && fwrite(s->text, 1, s->len, s->out) != s->len)
        rc = err_write(err, _("the output"), errno);
    if (rc != 0)
        return rc;
    s->prev = t;
    return 0;
}

int render_each(FILE *out, const table *const *tables, size_t n,
                const text_style *style, render_table_fn one, mx_error *err)
{
    text_stream s;
    text_stream_begin(&s, out, style, one);
    int rc = 0;
    for (size_t i = 0; i < n && rc == 0; i++)
        rc = text_stream_put(&s, tables[i], err);
    text_stream_end(&s);
    return rc;
}

/* The tables of [from, n) that belong with tables[from] in a grid: the
 * same variant and name, each of another head, within the run of head
 * tables that starts with it; their indices in idx (not yet printed). */
static size_t gather(size_t *idx, const table *const *tables, size_t n,
                     size_t from, const bool *printed)
{
    const variant_id variant = tables[from]->variant;
    const table_id id = tables[from]->id;
    size_t k = 0;
    for (size_t i = from; i < n; i++) {
        // a generation step's heads (--kv-steps) follow one another with
        // no table between layers or steps: a grid is of one of each
        if (tables[i]->head == NO_HEAD || tables[i]->variant != variant ||
            tables[i]->layer != tables[from]->layer ||
            tables[i]->step != tables[from]->step)
            break;
        if (!printed[i] && tables[i]->id == id)
            idx[k++] = i;
    }
    return k;
}

/* The parameters of [from, n) that stand with tables[from], a parameter,
 * in a grid: the run of the same variant's parameters of its shape and
 * row labels; their indices in idx. */
static size_t gather_params(size_t *idx, const table *const *tables, size_t n,
                            size_t from)
{
    const table *t = tables[from];
    size_t k = 0;
    for (size_t i = from; i < n; i++) {
        const table *u = tables[i];
        if (u->id != TABLE_PARAM || u->variant != t->variant ||
            u->layer != t->layer || u->values.rows != t->values.rows ||
            u->values.cols != t->values.cols || u->rows != t->rows)
            break;
        idx[k++] = i;
    }
    return k;
}

/* The k tables of a group (gather) after prev: as a grid, or one under
 * another where two do not fit side by side; formatted in memory, then
 * written whole. */
static int put_group(FILE *out, const table *const *group, size_t k,
                     const table *prev, const text_style *style, size_t *apart,
                     mx_error *err)
{
    char *text = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&text, &len);
    if (mem == NULL)
        return err_nomem(err, _("a table's text"));
    bool done = false;
    before_table(mem, group[0], prev, style);
    int rc = text_grid(mem, group, k, style, &done, err);
    if (rc == 0 && !done && k > 1 && group[0]->head != NO_HEAD)
        ++*apart; /* a grid of heads, not of a module's parameters */
    for (size_t j = 0; j < k && rc == 0 && !done; j++) {
        if (j > 0)
            before_table(mem, group[j], group[j - 1], style);
        rc = text_table(mem, group[j], style, err);
    }
    return write_closed(out, mem, &text, &len, rc, err);
}

int render_text(FILE *out, const table *const *tables, size_t n,
                const text_style *style, mx_error *err)
{
    size_t apart = 0;
    return render_text_apart(out, tables, n, style, &apart, err);
}

int render_text_apart(FILE *out, const table *const *tables, size_t n,
                      const text_style *style, size_t *apart, mx_error *err)
{
    *apart = 0;
    if (!style->grid)
        return render_each(out, tables, n, style, text_table, err);
    bool *printed = calloc(n + 1, sizeof *printed);
    size_t *idx = calloc(n + 1, sizeof *idx);
    const table **group = calloc(n + 1, sizeof *group);
    int rc = 0;
    if (printed == NULL || idx == NULL || group == NULL)
        rc = err_nomem(err, _("the table list"));
    const table *prev = NULL;
    for (size_t i = 0; i < n && rc == 0; i++) {
        if (printed[i])
            continue;
        size_t k = 1;
        idx[0] = i;
        if (tables[i]->head != NO_HEAD)
            k = gather(idx, tables, n, i, printed);
        else if (tables[i]->id == TABLE_PARAM)
            k = gather_params(idx, tables, n, i);
        for (size_t j = 0; j < k; j++) {
            group[j] = tables[idx[j]];
            printed[idx[j]] = true;
        }
        rc = put_group(out, group, k, prev, style, apart, err);
        prev = group[0];
    }
    free(printed);
    free(idx);
    free(group);
    return rc;
}
