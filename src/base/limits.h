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

#endif
