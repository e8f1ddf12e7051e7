/* no_weight_files.c: the CSV reader model/lesson/weights.c calls, for the
 * WebAssembly core. The page has no file system, so no --weights folder
 * can be opened and this reader is never reached (weights_open_dir fails
 * first, with the program's message); the core carries no CSV parser
 * (libcsv) for it. */
#include "io/csv_in.h"

#include "base/i18n.h"

int read_weight_matrix_stream(matrix *m, FILE *f, const char *path,
                              const csv_style *style, mx_error *err)
{
    (void)m;
    (void)f;
    (void)style;
    return err_input(err, _("%s: the page reads no files"), path);
}

int read_embeddings_stream(char ***words, size_t *n, matrix *m, FILE *f,
                           const char *path, const csv_style *style,
                           size_t max_width, mx_error *err)
{
    (void)words;
    (void)n;
    (void)m;
    (void)f;
    (void)style;
    (void)max_width;
    return err_input(err, _("%s: the page reads no files"), path);
}

int read_word_matrix_stream(matrix *m, const char *const *words, FILE *f,
                            const char *path, const csv_style *style,
                            mx_error *err)
{
    (void)m;
    (void)words;
    (void)f;
    (void)style;
    return err_input(err, _("%s: the page reads no files"), path);
}
