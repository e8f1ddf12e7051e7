/* html_model.c: the trained model a live page carries (html_parts.h),
 * so that its editor runs new sentences over it (docs/html.md, "A
 * trained model's page"). */
#include <stdint.h>
#include <string.h>

#include "base/i18n.h"
#include "html/html_parts.h"
#include "model/lesson/manifest.h"

/* The bytes of one file in the page's form: name, length, then its
 * bytes (see html_parts.h). */
static size_t file_bytes(const char *name, size_t len)
{
    return strlen(name) + 1 + 4 + len;
}

/* "<variant>.<name>.csv", the file --csv-dir writes t into. */
static void model_file_name(char *buf, size_t size, const table *t)
{
    snprintf(buf, size, "%s.%s.csv", table_source_name(t), table_name(t));
}

/* The bytes of table t in the page's form: rows, cols, the labels, the
 * values. */
static size_t table_bytes(const table *t)
{
    size_t n = 8 + t->values.rows * t->values.cols * sizeof(float);
    for (size_t r = 0; r < t->values.rows; r++)
        n += strlen(t->rows->s[r]) + 1;
    return n;
}

/* The bytes of the corpus's sentences in the page's form: each its
 * line, then its text. */
static size_t corpus_bytes(const html_model *model)
{
    size_t n = 0;
    for (size_t i = 0; i < model->n_corpus; i++)
        n += 4 + strlen(model->corpus[i]) + 1;
    return n;
}

int html_model_size(size_t *bytes, const trace *tr, const html_model *model,
                    mx_error *err)
{
    size_t n = file_bytes(MANIFEST_NAME, model->len), values = 0;
    char name[512];
    for (size_t i = 0; i < trace_count(tr); i++) {
        const table *t = trace_at(tr, i);
        if (!manifest_table(t))
            continue;
        model_file_name(name, sizeof name, t);
        n += file_bytes(name, table_bytes(t));
        values += t->values.rows * t->values.cols;
    }
    if (model->corpus != NULL)
        n += file_bytes(PAGE_CORPUS_NAME, corpus_bytes(model));
    *bytes = n;
    if (n > HTML_MODEL_MAX_BYTES)
        return err_input(err,
                         _("--html: the trained model has %zu values (%zu "
                           "kB in the page), more than the %zu kB a page "
                           "carries; leave --html out, or train a smaller "
                           "model (--d-model, --d-out, fewer words)"),
                         values, n / 1000, HTML_MODEL_MAX_BYTES / 1000);
    return 0;
}

static void put_u32(base64_out *b, size_t v)
{
    for (int i = 0; i < 4; i++)
        base64_put(b, (unsigned char)((uint32_t)v >> (8 * i)));
}

static void put_text(base64_out *b, const char *s, size_t len)
{
    for (size_t i = 0; i < len; i++)
        base64_put(b, (unsigned char)s[i]);
}

/* A file's name and length, before its bytes. */
static void put_head(base64_out *b, const char *name, size_t len)
{
    put_text(b, name, strlen(name) + 1);
    put_u32(b, len);
}

void html_write_model(FILE *out, const trace *tr, const html_model *model)
{
    base64_out b = {.out = out};
    put_head(&b, MANIFEST_NAME, model->len);
    put_text(&b, model->manifest, model->len);
    char name[512];
    for (size_t i = 0; i < trace_count(tr); i++) {
        const table *t = trace_at(tr, i);
        if (!manifest_table(t))
            continue;
        model_file_name(name, sizeof name, t);
        put_head(&b, name, table_bytes(t));
        put_u32(&b, t->values.rows);
        put_u32(&b, t->values.cols);
        for (size_t r = 0; r < t->values.rows; r++)
            put_text(&b, t->rows->s[r], strlen(t->rows->s[r]) + 1);
        for (size_t k = 0; k < t->values.rows * t->values.cols; k++)
            base64_float(&b, t->values.v[k]);
    }
    if (model->corpus != NULL) {
        put_head(&b, PAGE_CORPUS_NAME, corpus_bytes(model));
        for (size_t i = 0; i < model->n_corpus; i++) {
            put_u32(&b,
                    model->corpus_lines != NULL ? model->corpus_lines[i] : i);
            put_text(&b, model->corpus[i], strlen(model->corpus[i]) + 1);
        }
    }
    base64_end(&b);
}
