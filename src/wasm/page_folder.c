/* page_folder.c: the --weights folder of the WebAssembly core: the
 * trained model a page carries (html_parts.h, html_write_model), handed
 * over with the command line (core.h), read as the program reads a
 * folder's files. The page has no file system: each file is a stream
 * over the page's bytes (fmemopen), and the CSV readers
 * model/lesson/weights.c calls are replaced here by readers of the
 * page's form of a table (rows, cols, labels, float32 values), with the
 * CSV readers' checks of its shape and labels. */
#include "wasm/page_folder.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/i18n.h"
#include "html/html_parts.h"
#include "io/csv_in.h"

/* A u32, little-endian, at p. */
static size_t get_u32(const unsigned char *p)
{
    return (size_t)p[0] | (size_t)p[1] << 8 | (size_t)p[2] << 16 |
           (size_t)p[3] << 24;
}

/* The model's folder broken: the page was not written by the program. */
static int broken(const char *dir, mx_error *err)
{
    return err_input(err, _("%s: the page reads no files"), dir);
}

/* Adds file name (its len bytes at bytes) to w. */
static int add_file(weights_files *w, const char *name, unsigned char *bytes,
                    size_t len, mx_error *err)
{
    weights_file *more = realloc(w->files, (w->n + 1) * sizeof *more);
    if (more == NULL)
        return err_nomem(err, _("the file list"));
    w->files = more;
    weights_file *f = &w->files[w->n];
    f->name = strdup(name);
    f->f = len > 0 && f->name != NULL ? fmemopen(bytes, len, "r") : NULL;
    if (f->f == NULL) {
        free(f->name);
        return err_nomem(err, _("the file list"));
    }
    w->n++;
    return 0;
}

int page_folder_open(weights_files *w, const char *dir, unsigned char *bytes,
                     size_t len, mx_error *err)
{
    *w = (weights_files){0};
    w->dir = strdup(dir);
    if (w->dir == NULL)
        return err_nomem(err, _("the file list"));
    int rc = 0;
    for (size_t at = 0; at < len && rc == 0;) {
        const char *name = (const char *)bytes + at;
        const size_t name_len = strnlen(name, len - at);
        if (name_len == len - at || len - at - name_len - 1 < 4) {
            rc = broken(dir, err);
            break;
        }
        at += name_len + 1;
        const size_t n = get_u32(bytes + at);
        at += 4;
        if (n > len - at) {
            rc = broken(dir, err);
            break;
        }
        if (strcmp(name, MANIFEST_NAME) == 0)
            rc = manifest_parse(&w->manifest, (const char *)bytes + at, n,
                                MANIFEST_NAME, err);
        else if (strcmp(name, PAGE_CORPUS_NAME) == 0)
            ; /* the corpus: --corpus's (page_folder_corpus) */
        else
            rc = add_file(w, name, bytes + at, n, err);
        at += n;
    }
    if (rc == 0 && (!w->manifest.present || w->n == 0))
        rc = broken(dir, err);
    if (rc != 0)
        weights_files_free(w);
    return rc;
}

/* The file named name among the page's bytes: *at its bytes, *n their
 * length; 0 when there is none. */
static int find_file(size_t *at, size_t *n, const char *name,
                     const unsigned char *bytes, size_t len)
{
    for (size_t i = 0; i < len;) {
        const char *here = (const char *)bytes + i;
        const size_t name_len = strnlen(here, len - i);
        if (name_len == len - i || len - i - name_len - 1 < 4)
            return 0;
        const size_t size = get_u32(bytes + i + name_len + 1);
        i += name_len + 1 + 4;
        if (size > len - i)
            return 0;
        if (strcmp(here, name) == 0) {
            *at = i;
            *n = size;
            return 1;
        }
        i += size;
    }
    return 0;
}

int page_folder_corpus(char ***sentences, size_t **lines, size_t *n,
                       const char *path, const unsigned char *bytes, size_t len,
                       mx_error *err)
{
    *sentences = NULL;
    *lines = NULL;
    *n = 0;
    size_t at = 0, size = 0;
    if (bytes == NULL || !find_file(&at, &size, PAGE_CORPUS_NAME, bytes, len))
        return broken(path, err);
    // count, then copy: each sentence its line (4 bytes) and its text
    size_t count = 0;
    for (size_t i = 0; i < size; count++) {
        const size_t text =
            size - i < 4
                ? 0
                : strnlen((const char *)bytes + at + i + 4, size - i - 4);
        if (size - i < 4 || text == size - i - 4)
            return broken(path, err);
        i += 4 + text + 1;
    }
    *sentences = calloc(count > 0 ? count : 1, sizeof **sentences);
    *lines = calloc(count > 0 ? count : 1, sizeof **lines);
    if (*sentences == NULL || *lines == NULL) {
        free(*sentences);
        free(*lines);
        *sentences = NULL;
        *lines = NULL;
        return err_nomem(err, _("the token list"));
    }
    for (size_t i = 0; *n < count; (*n)++) {
        (*lines)[*n] = get_u32(bytes + at + i);
        const char *text = (const char *)bytes + at + i + 4;
        if (((*sentences)[*n] = strdup(text)) == NULL)
            return err_nomem(err, _("the token list"));
        i += 4 + strlen(text) + 1;
    }
    return 0;
}

/* ---- the readers of a table in the page's form ----------------------- */

/* n bytes of f into buf, or an error naming path. */
static int get_bytes(void *buf, size_t n, FILE *f, const char *path,
                     mx_error *err)
{
    if (fread(buf, 1, n, f) != n)
        return broken(path, err);
    return 0;
}

/* The table's rows and cols. */
static int get_shape(size_t *rows, size_t *cols, FILE *f, const char *path,
                     mx_error *err)
{
    unsigned char b[8];
    if (get_bytes(b, sizeof b, f, path, err) != 0)
        return -1;
    *rows = get_u32(b);
    *cols = get_u32(b + 4);
    return 0;
}

/* One '\0'-ended label into buf (at most MAX_FIELD_BYTES). */
static int get_label(char *buf, FILE *f, const char *path, mx_error *err)
{
    for (size_t i = 0; i < MAX_FIELD_BYTES; i++) {
        const int c = fgetc(f);
        if (c == EOF)
            return broken(path, err);
        buf[i] = (char)c;
        if (c == '\0')
            return 0;
    }
    return broken(path, err);
}

/* The values of m, whose shape the file's must be. */
static int get_values(matrix *m, FILE *f, const char *path, mx_error *err)
{
    unsigned char b[4];
    for (size_t k = 0; k < m->rows * m->cols; k++) {
        if (get_bytes(b, sizeof b, f, path, err) != 0)
            return -1;
        const uint32_t bits = (uint32_t)get_u32(b);
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
        return broken(path, err);
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
