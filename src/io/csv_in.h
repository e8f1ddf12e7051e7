/* csv_in.h: reading the CSV files a teacher prepares, with libcsv.
 *
 *   embeddings   token,dim0,dim1,...   one row per token
 *   sentences    any columns with a header; one run per data row
 *   weights      a parameter matrix as --csv-dir writes it
 *
 * Every reader accepts a UTF-8 byte-order mark, CRLF or LF line ends and
 * quoted fields, reads numbers the same in every locale (with a decimal
 * comma when asked), and rejects anything malformed with
 * "FILE:LINE:COLUMN: what was wrong" (status 2). Sizes are capped so a
 * huge or hostile file is refused, not allowed to exhaust memory.
 */
#ifndef MHA_CSV_IN_H
#define MHA_CSV_IN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "base/error.h"
#include "numerics/tensor.h"

#define MAX_CSV_BYTES ((size_t)64 << 20)   /* a file larger is refused */
#define MAX_SENTENCES 10000                /* data rows of --input */
#define MAX_FIELD_BYTES ((size_t)64 << 10) /* one cell: a label, a sentence */

typedef struct {
    char delimiter;     /* ',' by default, ';' for decimal-comma locales */
    bool decimal_comma; /* numbers written 0,5 instead of 0.5 */
} csv_style;

/* Whether c can separate a CSV's fields (--csv-delimiter): an ASCII
 * character that is not a letter, a digit, a sign, a point, a quote or a
 * line end (tab is one). Inline: the page's core, which reads no CSV
 * file, checks --csv-delimiter and model.json's "csv" too. */
static inline bool csv_delimiter_usable(char c)
{
    const bool letter = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
    return c != '\0' && !letter && (unsigned char)c < 0x80 &&
           strchr("\"\r\n.0123456789+-", c) == NULL;
}

/* --embeddings: words (n, owned strings) and the inputs (n, D), D taken
 * from the header. */
int read_embeddings(char ***words, size_t *n, matrix *inputs, const char *path,
                    const csv_style *style, size_t max_width, mx_error *err);

/* --input FILE --column NAME: the cells of that column, one per data row,
 * with the line each came from (for messages). */
int read_sentences(char ***sentences, size_t **lines, size_t *n,
                   const char *path, const char *column, const csv_style *style,
                   mx_error *err);

/* A parameter of `rows` x `cols` from a file --csv-dir wrote: a header row
 * (token, column labels), then one labelled row per matrix row. Fills the
 * caller's m, which has that shape. */
int read_weight_matrix(matrix *m, const char *path, const csv_style *style,
                       mx_error *err);

/* The same three readers on an open stream; path only names it in
 * messages. (The fuzz tests feed them memory through fmemopen.) */
int read_embeddings_stream(char ***words, size_t *n, matrix *inputs, FILE *f,
                           const char *path, const csv_style *style,
                           size_t max_width, mx_error *err);
int read_sentences_stream(char ***sentences, size_t **lines, size_t *n, FILE *f,
                          const char *path, const char *column,
                          const csv_style *style, mx_error *err);
int read_weight_matrix_stream(matrix *m, FILE *f, const char *path,
                              const csv_style *style, mx_error *err);

/* read_weight_matrix_stream for a table whose rows are a vocabulary's
 * words (m->rows of them, in order): row i must be labelled words[i]. */
int read_word_matrix_stream(matrix *m, const char *const *words, FILE *f,
                            const char *path, const csv_style *style,
                            mx_error *err);

/* Frees an array of n strings and the array. */
void free_strings(char **s, size_t n);

/* Parses one number as written in a CSV cell: an optional sign, digits
 * with one decimal separator ('.', or ',' with decimal_comma), an optional
 * exponent. Never looks at the locale; NaN and infinities are refused.
 * Returns 0 and sets *out, or -1 with a reason in *why (an English
 * message marked with N_(): translate it with _() where it is shown). */
int parse_csv_number(float *out, const char *text, bool decimal_comma,
                     const char **why);

#endif
