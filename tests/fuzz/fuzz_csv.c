/* fuzz_csv.c: any bytes as a CSV file, for each of the three readers.
 *
 * The first byte chooses: bits 0-1 the reader (embeddings, sentences,
 * weights), bit 2 ';' as the delimiter, bit 3 a decimal comma. The rest
 * is the file. A reader must either succeed with well-formed results or
 * fail with a located message ("fuzz.csv:LINE:COL: ..." or "fuzz.csv:"). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/csv_in.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_error(const mx_error *err)
{
    if (err->status != EXIT_BAD_INPUT || strncmp(err->msg, "fuzz.csv", 8) != 0)
        abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 2)
        return 0;
    const unsigned mode = data[0];
    const csv_style style = {(mode & 4) ? ';' : ',', (mode & 8) != 0};
    char *file = malloc(size - 1);
    if (file == NULL)
        return 0;
    memcpy(file, data + 1, size - 1);
    FILE *f = fmemopen(file, size - 1, "rb");
    if (f == NULL) {
        free(file);
        return 0;
    }
    mx_error err = {0};
    switch (mode & 3) {
    case 0: {
        char **words;
        size_t n;
        matrix m;
        if (read_embeddings_stream(&words, &n, &m, f, "fuzz.csv", &style,
                                   64, &err) == 0) {
            if (n == 0 || m.rows != n || m.cols == 0)
                abort();
            for (size_t i = 0; i < n * m.cols; i++)
                if (m.v[i] != m.v[i]) /* no NaN gets through */
                    abort();
            free_strings(words, n);
            matrix_free(&m);
        } else {
            check_error(&err);
        }
        break;
    }
    case 1: {
        char **s;
        size_t *lines, n;
        if (read_sentences_stream(&s, &lines, &n, f, "fuzz.csv", "head",
                                  &style, &err) == 0) {
            if (n == 0)
                abort();
            free_strings(s, n);
            free(lines);
        } else {
            check_error(&err);
        }
        break;
    }
    default: {
        matrix m;
        if (matrix_alloc(&m, 3, 4, "a weight", &err) != 0)
            abort();
        if (read_weight_matrix_stream(&m, f, "fuzz.csv", &style, &err) != 0)
            check_error(&err);
        matrix_free(&m);
        break;
    }
    }
    fclose(f);
    free(file);
    return 0;
}
