/* limits.h: the sizes of a run's input that every stage checks the same
 * way, from the readers of files to the tokenizer. */
#ifndef MHA_BASE_LIMITS_H
#define MHA_BASE_LIMITS_H

#include <stddef.h>

/* Largest accepted sentence, in tokens; checked before the model is built. */
#define MAX_TOKENS 8000

/* Largest vocabulary of a lesson model, in words: what --train keeps
 * (a --corpus with more different words is refused before training) and
 * what --weights reads back from the model.json and the embedding rows
 * --csv-dir wrote. The rows of a table are bounded as a sentence's
 * tokens are, and a vocabulary is the rows of embedding.weight. */
#define MAX_VOCAB MAX_TOKENS

/* Longest accepted token, in bytes: the limit of one CSV cell
 * (MAX_FIELD_BYTES), whether the token comes from a file, the command
 * line or standard input. A label is printed once per row and column, so
 * this bounds the output too. */
#define MAX_TOKEN_BYTES ((size_t)64 << 10)

/* Largest --html page, in MB (10^6 bytes), estimated before the run:
 * every value the run holds, written as the page writes a float (base64
 * of its 4 bytes, 16/3 characters). A 50 to 100 MB page opens in a
 * browser in seconds (docs/html.md, "Size and speed"); past a few
 * hundred MB it may not open at all. */
#define MAX_PAGE_MB 100
#define PAGE_BYTES_PER_VALUE (16.0 / 3.0)

#endif
