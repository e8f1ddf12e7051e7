/* render_csvdir.c: --csv-dir, one matrix-shaped CSV per table, written
 * as one unit: all of the files or none of them.
 *
 *   token,dim0,dim1,dim2
 *   O,0.3367,0.1288,0.2345
 *
 * The files are made by the run's transaction (io/outputs.h) in a private
 * folder inside DIR, and put in place with the run's other files.
 */
#include "render/render.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/i18n.h"
#include "io/outputs.h"
#include "numerics/floatfmt.h"
#include "render/map_axes.h"
#include "render/textbuf.h"

struct csv_dir_set {
    outputs *tx;    /* the run's files */
    size_t group;   /* DIR's group in it */
    char *dir;      /* DIR, as the user named it */
    char **written; /* n_written names, "name" or "sub/name"; owned */
    size_t n_written, cap_written;
};

int csv_dir_begin(csv_dir_set **out, outputs *tx, const char *dir,
                  mx_error *err)
{
    csv_dir_set *s = calloc(1, sizeof *s);
    *out = s;
    if (s == NULL || (s->dir = strdup(dir)) == NULL)
        return err_nomem(err, _("the file list"));
    s->tx = tx;
    return outputs_folder(tx, &s->group, dir, err);
}

/* name (in sub, or NULL) among the files the set wrote. */
static int note_written(csv_dir_set *s, const char *sub, const char *name,
                        mx_error *err)
{
    if (s->n_written == s->cap_written) {
        const size_t cap = s->cap_written ? 2 * s->cap_written : 64;
        char **w = realloc(s->written, cap * sizeof *w);
        if (w == NULL)
            return err_nomem(err, _("the file list"));
        s->written = w;
        s->cap_written = cap;
    }
    const size_t len = (sub ? strlen(sub) + 1 : 0) + strlen(name) + 1;
    char *text = malloc(len);
    if (text == NULL)
        return err_nomem(err, _("the file list"));
    snprintf(text, len, "%s%s%s", sub ? sub : "", sub ? "/" : "", name);
    s->written[s->n_written++] = text;
    return 0;
}

const char *csv_dir_path(const csv_dir_set *s)
{
    return s->dir;
}

bool csv_dir_wrote(const csv_dir_set *s, const char *name)
{
    for (size_t i = 0; i < s->n_written; i++)
        if (strcmp(s->written[i], name) == 0)
            return true;
    return false;
}

/* "<variant>.<table>.csv" or "<variant>.head<h>.<table>.csv"; a
 * checkpoint's (--model): "gpt2.<table>.csv", in a layer
 * "gpt2.h<L>.<table>.csv" or "gpt2.h<L>.head<h>.<table>.csv", a parameter
 * "gpt2.<its name>.csv" ("gpt2.h.3.attn.c_attn.weight.csv"); a stacked
 * block's (--layers N) "block.<L>.<table>.csv" or
 * "block.<L>.head<h>.<table>.csv", a parameter under its name
 * ("block.1.norm1.weight.csv", which --weights reads back); a
 * generation step's (--kv-steps) with the step after the layer,
 * "gpt2.h<L>.step<s>.head<h>.<table>.csv" */
static void file_name(char *buf, size_t size, const table *t)
{
    const char *variant = table_source_name(t), *name = table_name(t);
    char layer[32];
    if (table_in_layered_model(t) && table_model_layer(t) >= 0 &&
        t->id != TABLE_PARAM) {
        snprintf(layer, sizeof layer, "%s.%s%d", variant, table_layer_name(t),
                 t->layer);
        variant = layer;
    } else if (t->stacked && t->id != TABLE_PARAM) {
        snprintf(layer, sizeof layer, "%s.%d", variant, t->layer);
        variant = layer;
    }
    char step[64];
    if (t->step > 0) { // a generation step's: "gpt2.h0.step3.head1.keys.csv"
        snprintf(step, sizeof step, "%s.step%d", variant, t->step);
        variant = step;
    }
    if (t->head == NO_HEAD)
        snprintf(buf, size, "%s.%s.csv", variant, name);
    else
        snprintf(buf, size, "%s.head%d.%s.csv", variant, t->head, name);
}

/* Output is gathered in a buffer and written in pieces of about this
 * size. */
#define CHUNK 65536

/* The first cells of a row: a map's keys (map_axes.h: its layer, or its
 * layer and head: "layer,head,..." and "1,0,...") or, for any other
 * table, its label ("token,..." and "Q:gato,..."), without the
 * delimiter after them. r is the row, or -1 for the header. */
static int add_row_keys(textbuf *text, const table *t, const map_axes *m,
                        long r, char d)
{
    const enum map_key key = m != NULL ? m->row_key : MAP_KEY_NONE;
    if (key == MAP_KEY_NONE)
        return r < 0 ? textbuf_add(text, "token", 5)
                     : textbuf_add_csv_field(text, t->rows->s[r], d);
    if (r < 0)
        return key == MAP_KEY_LAYER_HEAD
                   ? textbuf_add(text, "layer", 5) | textbuf_add_char(text, d) |
                         textbuf_add(text, "head", 4)
                   : textbuf_add(text, "layer", 5);
    int layer, head;
    map_axes_cell(&layer, &head, m, t, (size_t)r, 0);
    int rc = textbuf_add_size(text, (size_t)layer);
    if (key == MAP_KEY_LAYER_HEAD)
        rc |= textbuf_add_char(text, d) | textbuf_add_size(text, (size_t)head);
    return rc;
}

/* Returns 0, -1 when memory ran out, -2 on a write error. */
static int write_matrix_csv(FILE *f, const table *t, const csv_out_style *style)
{
    const char d = style->delimiter;
    const size_t cols = t->values.cols;
    // a map's rows are its layers (or heads): keys rather than labels
    const map_axes *m = t->grad ? NULL : map_axes_of_picture(t->id);
    if (m != NULL && m->row_key == MAP_KEY_LAYER_HEAD && t->map_heads == 0)
        m = NULL;
    textbuf text = {0};
    int rc = 0;
    if (style->bom)
        rc |= textbuf_add(&text, "\xEF\xBB\xBF", 3);
    rc |= add_row_keys(&text, t, m, -1, d);
    for (size_t c = 0; c < cols; c++) {
        rc |= textbuf_add_char(&text, d);
        rc |= textbuf_add_csv_field(&text, t->cols->s[c], d);
    }
    rc |= textbuf_add_char(&text, '\n');
    for (size_t r = 0; rc == 0 && r < t->values.rows; r++) {
        rc |= add_row_keys(&text, t, m, (long)r, d);
        /* the row's values, each after a delimiter, and the line end */
        char *p = rc == 0
                      ? textbuf_reserve(&text, cols * (1 + FLOAT_TEXT_SIZE) + 1)
                      : NULL;
        if (p == NULL) {
            rc = -1;
            break;
        }
        for (size_t c = 0; c < cols; c++) {
            *p++ = d;
            p += float_text(p, trace_cell(t, r, c), style->decimal_comma);
        }
        *p++ = '\n';
        text.len = (size_t)(p - text.s);
        if (text.len >= CHUNK && textbuf_flush(&text, f) != 0)
            rc = -2;
    }
    if (rc == 0 && textbuf_flush(&text, f) != 0)
        rc = -2;
    textbuf_free(&text);
    return rc;
}

/* Closes f, the file of the set at path that was written: a failed
 * write is err's. */
static int close_file(FILE *f, const char *path, mx_error *err)
{
    int failed = ferror(f);
    int e = errno;
    if (fflush(f) != 0 && !failed) {
        failed = 1;
        e = errno;
    }
    if (fclose(f) != 0 && !failed) {
        failed = 1;
        e = errno;
    }
    if (failed)
        return err_write(err, path, e != 0 ? e : EIO);
    return 0;
}

/* Writes t as a new file of the set. */
static int write_file(csv_dir_set *s, const char *sub, const table *t,
                      const csv_out_style *style, mx_error *err)
{
    char name[160];
    file_name(name, sizeof name, t);
    FILE *f = NULL;
    if (note_written(s, sub, name, err) != 0 ||
        outputs_create(s->tx, &f, s->group, sub, name, err) != 0)
        return -1;
    const char *path = outputs_last_name(s->tx);
    if (write_matrix_csv(f, t, style) == -1) {
        fclose(f);
        return err_nomem(err, _("the CSV output"));
    }
    return close_file(f, path, err);
}

int csv_dir_add_file(csv_dir_set *s, const char *sub, const char *name,
                     const char *bytes, size_t len, mx_error *err)
{
    FILE *f = NULL;
    if (note_written(s, sub, name, err) != 0 ||
        outputs_create(s->tx, &f, s->group, sub, name, err) != 0)
        return -1;
    fwrite(bytes, 1, len, f);
    return close_file(f, outputs_last_name(s->tx), err);
}

int csv_dir_add(csv_dir_set *s, const char *sub, const table *const *tables,
                size_t n, const csv_out_style *style, mx_error *err)
{
    for (size_t k = 0; k < n; k++)
        if (write_file(s, sub, tables[k], style, err) != 0)
            return -1;
    return 0;
}

void csv_dir_end(csv_dir_set *s)
{
    if (s == NULL)
        return;
    for (size_t i = 0; i < s->n_written; i++)
        free(s->written[i]);
    free(s->written);
    free(s->dir);
    free(s);
}

int render_csv_dir(const char *dir, const table *const *tables, size_t n,
                   const csv_out_style *style, mx_error *err)
{
    outputs *tx = NULL;
    csv_dir_set *s = NULL;
    int rc = outputs_begin(&tx, err);
    if (rc == 0)
        rc = csv_dir_begin(&s, tx, dir, err);
    if (rc == 0)
        rc = csv_dir_add(s, NULL, tables, n, style, err);
    if (rc == 0)
        rc = outputs_commit(tx, err);
    outputs_end(tx, rc == 0);
    csv_dir_end(s);
    return rc;
}
