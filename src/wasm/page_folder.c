/* page_folder.c: the --weights folder of the WebAssembly core: the
 * trained model a page carries (html_parts.h, html_write_model), handed
 * over with the command line (core.h), read as the program reads a
 * folder's files. The page has no file system: each file is a stream
 * over the page's bytes (fmemopen), which the CSV readers
 * model/lesson/weights.c calls read in the page's form of a table
 * (io/csv_matrix_page.c). */
#include "wasm/page_folder.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/i18n.h"
#include "html/html_parts.h"
#include "io/csv_matrix_page.h"

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
            rc = page_form_broken(dir, err);
            break;
        }
        at += name_len + 1;
        const size_t n = page_form_u32(bytes + at);
        at += 4;
        if (n > len - at) {
            rc = page_form_broken(dir, err);
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
        rc = page_form_broken(dir, err);
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
        const size_t size = page_form_u32(bytes + i + name_len + 1);
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
        return page_form_broken(path, err);
    // count, then copy: each sentence its line (4 bytes) and its text
    size_t count = 0;
    for (size_t i = 0; i < size; count++) {
        const size_t text =
            size - i < 4
                ? 0
                : strnlen((const char *)bytes + at + i + 4, size - i - 4);
        if (size - i < 4 || text == size - i - 4)
            return page_form_broken(path, err);
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
        (*lines)[*n] = page_form_u32(bytes + at + i);
        const char *text = (const char *)bytes + at + i + 4;
        if (((*sentences)[*n] = strdup(text)) == NULL)
            return err_nomem(err, _("the token list"));
        i += 4 + strlen(text) + 1;
    }
    return 0;
}
