/* csv_matrix_page.c: the readers of a table that model/lesson/weights.c
 * calls (csv_in.h: read_weight_matrix_stream, read_word_matrix_stream,
 * read_embeddings_stream) for the page's WebAssembly core
 * (src/wasm/meson.build names it in csv_matrix.c's place). The page
 * carries its trained model's tables in its own form (html_write_model:
 * rows and cols, each a u32, then each row's label ending in '\0', then
 * the float32 values, little-endian), not as CSV; they are read here with
 * csv_matrix.c's checks of their shape and labels. */
#include "io/csv_matrix_page.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/i18n.h"
#include "base/limits.h"
#include "io/csv_in.h"

size_t page_form_u32(const unsigned char *p)
{
    return (size_t)p[0] | (size_t)p[1] << 8 | (size_t)p[2] << 16 |
           (size_t)p[3] << 24;
}

int page_form_broken(const char *dir, mx_error *err)
{
    return err_input(err, _("%s: the page reads no files"), dir);
}

/* n bytes of f into buf, or an error naming path. */
static int get_bytes(void *buf, size_t n, FILE *f, const char *path,
                     mx_error *err)
{
    if (fread(buf, 1, n, f) != n)
        return page_form_broken(path, err);
    return 0;
}

/* The table's rows and cols. */
static int get_shape(size_t *rows, size_t *cols, FILE *f, const char *path,
                     mx_error *err)
{
    unsigned char b[8];
    if (get_bytes(b, sizeof b, f, path, err) != 0)
        return -1;
    *rows = page_form_u32(b);
    *cols = page_form_u32(b + 4);
    return 0;
}

/* One '\0'-ended label into buf (at most MAX_FIELD_BYTES). */
static int get_label(char *buf, FILE *f, const char *path, mx_error *err)
{
    for (size_t i = 0; i < MAX_FIELD_BYTES; i++) {
        const int c = fgetc(f);
        if (c == EOF)
            return page_form_broken(path, err);
        buf[i] = (char)c;
        if (c == '\0')
            return 0;
    }
    return page_form_broken(path, err);
}

/* The values of m, whose shape the file's must be. */
static int get_values(matrix *m, FILE *f, const char *path, mx_error *err)
{
    unsigned char b[4];
    for (size_t k = 0; k < m->rows * m->cols; k++) {
        if (get_bytes(b, sizeof b, f, path, err) != 0)
            return -1;
        const uint32_t bits = (uint32_t)page_form_u32(b);
        memcpy(&m->v[k], &bits, sizeof bits);
    }
    return 0;
}

/* read_weight_matrix_stream, with words (or NULL) the rows' labels. */
static int read_matrix(matrix *m, const char *const *words, FILE *f,
                       const char *path, mx_error *err)
{
    size_t rows, cols;
    if (get_shape(&rows, &cols, f, path, err) != 0)
        return -1;
    if (rows != m->rows || cols != m->cols)
        return err_input(err,
                         _("%s: has %zu rows x %zu columns of numbers, "
                           "expected %zu x %zu (a header row and a label "
                           "column besides)%s"),
                         path, rows, cols, m->rows, m->cols, "");
    char *label = malloc(MAX_FIELD_BYTES);
    if (label == NULL)
        return err_nomem(err, _("the token list"));
    int rc = 0;
    for (size_t i = 0; i < rows && rc == 0; i++) {
        rc = get_label(label, f, path, err);
        if (rc == 0 && words != NULL && strcmp(label, words[i]) != 0)
            rc = err_input(err,
                           _("%s:%zu:%zu: row %zu is labelled '%.40s', but "
                             "word %zu of the trained vocabulary is "
                             "'%.40s' (the rows stay in the vocabulary's "
                             "order, one per word)"),
                           path, i + 2, (size_t)1, i, label, i, words[i]);
    }
    free(label);
    return rc == 0 ? get_values(m, f, path, err) : -1;
}

int read_weight_matrix_stream(matrix *m, FILE *f, const char *path,
                              const csv_style *style, mx_error *err)
{
    (void)style;
    return read_matrix(m, NULL, f, path, err);
}

int read_word_matrix_stream(matrix *m, const char *const *words, FILE *f,
                            const char *path, const csv_style *style,
                            mx_error *err)
{
    (void)style;
    return read_matrix(m, words, f, path, err);
}

int read_embeddings_stream(char ***words, size_t *n, matrix *m, FILE *f,
                           const char *path, const csv_style *style,
                           size_t max_width, mx_error *err)
{
    (void)style;
    size_t rows, cols;
    *words = NULL;
    *n = 0;
    if (get_shape(&rows, &cols, f, path, err) != 0)
        return -1;
    if (rows == 0 || rows > MAX_TOKENS || cols == 0 || cols > max_width)
        return page_form_broken(path, err);
    char *label = malloc(MAX_FIELD_BYTES);
    *words = calloc(rows, sizeof **words);
    if (label == NULL || *words == NULL) {
        free(label);
        free(*words);
        *words = NULL;
        return err_nomem(err, _("the token list"));
    }
    int rc = 0;
    for (; *n < rows && rc == 0; (*n)++) {
        rc = get_label(label, f, path, err);
        if (rc == 0 && ((*words)[*n] = strdup(label)) == NULL)
            rc = err_nomem(err, _("the token list"));
    }
    free(label);
    if (rc == 0)
        rc = matrix_alloc(m, rows, cols, N_("the embeddings"), err);
    return rc == 0 ? get_values(m, f, path, err) : -1;
}
