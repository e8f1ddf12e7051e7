/* input.h: the sentence read from standard input (the sentence "-"). */
#ifndef MHA_INPUT_H
#define MHA_INPUT_H

#include <stddef.h>

#include "base/error.h"

/* The most a sentence read from standard input may hold. */
#define MAX_STDIN_BYTES (1u << 20)

/* Reads all of standard input into *text, a new buffer of *len bytes
 * (no terminating '\0') that the caller frees. A UTF-8 byte-order mark
 * before the text is dropped and not counted against MAX_STDIN_BYTES.
 * On failure fills err (status 2, or 1 without memory) and returns -1. */
int read_stdin(char **text, size_t *len, mx_error *err);

#endif
