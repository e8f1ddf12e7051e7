/* limits.h: the sizes of a run's input that every stage checks the same
 * way, from the readers of files to the tokenizer. */
#ifndef MHA_BASE_LIMITS_H
#define MHA_BASE_LIMITS_H

#include <stddef.h>

/* Largest accepted sentence, in tokens; checked before the model is built. */
#define MAX_TOKENS 8000

/* Longest accepted token, in bytes: the limit of one CSV cell
 * (MAX_FIELD_BYTES), whether the token comes from a file, the command
 * line or standard input. A label is printed once per row and column, so
 * this bounds the output too. */
#define MAX_TOKEN_BYTES ((size_t)64 << 10)

#endif
